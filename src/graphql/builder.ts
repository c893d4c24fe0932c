// What every module of the schema builds on, and what is read from it: the builder and its field
// options (a field's declared database cost among them); the context every resolver receives;
// `checked`, the one place arguments are judged; the scalars and the page type every list shares;
// and the limits derived from the declared costs (the per-key concurrency units every execution
// takes, the per-field rate limits, the document cost) with the GraphQL endpoint's admission. A cost
// is declared once, on its field, and everything that limits it reads it here.
//
// The Pothos schema builder. Types and fields live in ./schema/*.ts.

import { useRateLimiter } from '@envelop/rate-limiter';
import SchemaBuilder, { type FieldNullability, type InputFieldMap, type SchemaTypes, type TypeParam } from '@pothos/core';
import ComplexityPlugin, { type ComplexityErrorFn, type ComplexityErrorKind } from '@pothos/plugin-complexity';
import PrismaPlugin from '@pothos/plugin-prisma';
import ScopeAuthPlugin, { type AuthFailure } from '@pothos/plugin-scope-auth';
import DataLoader from 'dataloader';
import {
  type ASTNode,
  type DocumentNode,
  defaultFieldResolver,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  getArgumentValues,
  getNamedType,
  getOperationAST,
  isInterfaceType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  visit,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import { type ApiKeyPrincipal, type VisibleClinics, visibleClinicsOf } from '../auth/api-keys.js';
import { bindLane, type Db, isoOf, SQL_POOL } from '../db/client.js';
import { codedError, httpOf } from '../domain/coded-error.js';
import { ERRORS, type ErrorCode, retryAfterHeader } from '../domain/error-catalogue.js';
import { checkPaging, type Paging, type Problems } from '../domain/parameters.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type Scope } from '../domain/values.js';
import { GRAPHQL_NAMES, type ParameterNames } from '../filters/interaction-filters.js';
import type PrismaTypes from '../generated/pothos-prisma-types.js';
import { getDatamodel } from '../generated/pothos-prisma-types.js';
import type { Campaign, Clinic, Prisma } from '../generated/prisma/client.js';
import type { NestedLists } from '../interactions/nested-pages.js';
import { CAMPAIGN_KIND, CLINIC_KIND, campaignsById, clinicsById, transcriptsById } from '../interactions/rows.js';
import {
  type Admission,
  type Admitter,
  CONCURRENCY_RETRY_AFTER_SECONDS,
  type ConcurrencyDecision,
  type ConcurrencyLimits,
  KeyConcurrency,
  rateLimitHeaders,
  refusalAnswer,
} from '../limits/admission.js';
import type { QuotaDecision } from '../limits/windows.js';
import { currentRequest, stateOf } from '../request/state.js';
import { type FieldLimitStore, ReservingMemoryStore, ReservingRedisStore } from './field-limit-store.js';
import { graphqlErrorResponse } from './graphql-http.js';

/**
 * What a Query field costs the database, declared where the field is declared (a required option of
 * every Query field, so a new field cannot be added without one). The per-key concurrency limit
 * counts a document's root fields by `units` (or by what their nested fields declare, when more:
 * NestedDatabaseCost), and the per-field rate limit is `perSecond` (fieldRateLimitsOf, below, derives
 * both, and the documentation, from the built schema).
 */
export type DatabaseCost =
  /** The field answers from the request itself (the key, its quota): no database work. */
  | { readsDatabase: false }
  | {
      readsDatabase: true;
      /**
       * Units of the key's concurrency limit held while the field runs (statements it may run at
       * once), or units by the field's arguments where its work grows with them.
       */
      units: number | ArgumentUnits;
      /** Executions allowed per API key and second in free-form GraphQL. */
      perSecond: number;
    };

/**
 * Units that grow with a field's arguments (a series' buckets): most of such a field's work is
 * building and writing its answer on the service's one thread, so a key running several at once
 * would hold the thread for every other key.
 */
export interface ArgumentUnits {
  /** Units for the arguments as the document gives them (variables substituted, defaults applied); at least 1. */
  of: (args: Record<string, unknown>, nowMs: number) => number;
  /** The rule in words, for the documentation (`1 per 5,000 buckets`). */
  text: string;
}

/**
 * What a field of an object type other than Query costs the database, declared where the field is
 * declared. A field that reads the database declares it (test/graphql/database-cost.test.ts runs
 * every field of the schema and fails on one whose selection sends statements undeclared); a field
 * that declares nothing reads nothing.
 *
 * A unit is what a list field's page takes: its rows, its total, and its rows completed by their
 * own records read by id (their clinic, campaign and transcript: one statement per kind for the
 * whole page, whether the list's reader reads them with the rows or the field does right after).
 * Such reads are `countedBy: 'parent'`: inside the units of the field that produced the parent
 * (its list, or the root field that looked it up). A field that does work of its own for every
 * parent (a nested list, an aggregate, a search's fragments) declares `units`: its parents' work at
 * one level is batched into one statement, or a few run one after another, so `units` does not grow
 * with the number of parents. How a document's nested units add up is rootFieldUnits'
 * rootFieldUnits'.
 *
 * Nested fields have no per-field rate limit (`perSecond` is the Query fields'): a nested field runs
 * once per parent, for parents that a root field produced, so it is bounded by that root field's
 * rate limit and units, and by the document's cost limit (the `complexity` option, QUERY_LIMITS).
 */
export type NestedDatabaseCost =
  /** Declared where a reader might expect a read (a field that hands over a page whose fields read): reads nothing itself. */
  | { readsDatabase: false }
  /** Work of its own per parent, batched per level: units held while it runs. */
  | { readsDatabase: true; units: number }
  /** Reads inside the units of the field that produced the parent (a page's rows and total, the rows' own records by id). */
  | { readsDatabase: true; countedBy: 'parent' };

declare global {
  export namespace PothosSchemaTypes {
    export interface QueryFieldOptions<
      Types extends SchemaTypes,
      Type extends TypeParam<Types>,
      Nullable extends FieldNullability<Type>,
      Args extends InputFieldMap,
      ResolveReturnShape,
    > {
      databaseCost: DatabaseCost;
    }

    export interface ObjectFieldOptions<
      Types extends SchemaTypes,
      ParentShape,
      Type extends TypeParam<Types>,
      Nullable extends FieldNullability<Type>,
      Args extends InputFieldMap,
      ResolveReturnShape,
    > {
      /** Required of a field that reads the database; see NestedDatabaseCost. */
      databaseCost?: NestedDatabaseCost;
    }
  }
}

/** Bounds on one GraphQL operation (documented in docs/graphql.md). */
export const QUERY_LIMITS = { depth: 8, breadth: 400, complexity: 30_000 };

/** The code of each bound of QUERY_LIMITS. */
export const COMPLEXITY_CODES = {
  Depth: 'QUERY_TOO_DEEP',
  Breadth: 'QUERY_TOO_BROAD',
  Complexity: 'QUERY_TOO_COMPLEX',
} as const satisfies Record<ComplexityErrorKind, ErrorCode>;

/**
 * The error for an operation over QUERY_LIMITS, from use-document-limits.ts (the whole operation,
 * introspection included, before it runs).
 */
export function complexityError(kind: ComplexityErrorKind, result: Parameters<ComplexityErrorFn>[1]): GraphQLError {
  const message = {
    Depth: `The query nests ${result.depth} levels; at most ${result.maxDepth} are allowed`,
    Breadth: `The query selects ${result.breadth} fields; at most ${result.maxBreadth} are allowed`,
    Complexity: `The query's cost is ${result.complexity}; at most ${result.maxComplexity} is allowed (list fields cost their limit times their selection)`,
  }[kind];
  return codedError(COMPLEXITY_CODES[kind], message, { extensions: { limits: QUERY_LIMITS } });
}

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  AuthScopes: Record<Scope, boolean>;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    Date: { Input: string; Output: string };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  plugins: [ScopeAuthPlugin, ComplexityPlugin, PrismaPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authScopes: (context) => ({
      'interactions:read': context.key.scopes.includes('interactions:read'),
      'metrics:read': context.key.scopes.includes('metrics:read'),
      'campaigns:read': context.key.scopes.includes('campaigns:read'),
      'clinics:read': context.key.scopes.includes('clinics:read'),
      'phi:read': context.key.scopes.includes('phi:read'),
    }),
    unauthorizedError: (_parent, _context, info, result) => insufficientScope(info, failedScope(result.failure)),
  },
  // Free-form queries are bounded before they run: list fields cost their `limit` times their
  // children, so a page of 500 interactions with relations fits, and nesting pages of pages does not.
  complexity: {
    // Not checked again inside each root field: use-document-limits.ts costs the whole operation
    // with this model before it runs (the plugin would compute the same figures once more per
    // request), and the REST facade's fixed documents are bounded by their routes.
    disabled: true,
    defaultComplexity: 1,
    defaultListMultiplier: 10,
    limit: QUERY_LIMITS,
    complexityError,
  },
  prisma: {
    client: (context) => context.db,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    onUnusedQuery: process.env.NODE_ENV === 'production' ? null : 'warn',
  },
});

/** The error of a field the key's scopes do not allow (scope-auth's, and keyScoped's below). */
function insufficientScope(info: GraphQLResolveInfo, scope: string | undefined): GraphQLError {
  return codedError('INSUFFICIENT_SCOPE', `This API key lacks the scope needed for ${info.parentType.name}.${info.fieldName}${scope ? ` (${scope})` : ''}`, {
    extensions: scope ? { details: { required_scope: scope } } : {},
  });
}

/**
 * The resolver of a field on a row type that needs a scope of the key: the key's scopes are tested
 * in the resolver instead of by `authScopes`, with the same answer (null and one
 * INSUFFICIENT_SCOPE error per row). Scope-auth runs its steps for every row it wraps (its request
 * cache, a closure, the scope map's cache, then the resolver as a step): on a page of 50 with the
 * clinic's and the campaign's names, about 7% of the service's CPU per request. Fields resolved
 * once per request, or once per parent of a short list, keep `authScopes`.
 */
export function keyScoped<Parent, Result>(
  scope: Scope,
  resolve: (parent: Parent, context: GraphQLContext) => Result,
): (parent: Parent, args: unknown, context: GraphQLContext, info: GraphQLResolveInfo) => Result {
  return (parent, _args, context, info) => {
    if (!context.key.scopes.includes(scope)) throw insufficientScope(info, scope);
    return resolve(parent, context);
  };
}

/**
 * The scope a failed check asked for. A field's `authScopes: { 'x:read': true }` fails as an
 * "any of" map whose single member is the scope, so the scope sits one level down.
 */
function failedScope(failure: AuthFailure): string | undefined {
  if ('scope' in failure) return failure.scope;
  if ('failures' in failure) {
    for (const inner of failure.failures) {
      const scope = failedScope(inner);
      if (scope) return scope;
    }
  }
  return undefined;
}

// The one place arguments are judged: every resolver that takes filters or paging checks them
// through `checked`, for GraphQL clients and the REST facade alike (the facade only maps names).

function validationError(problems: Problems): GraphQLError {
  return new GraphQLError('Invalid query parameters', { extensions: { code: 'VALIDATION_ERROR', details: problems } });
}

/**
 * Runs the checks in `check` on the arguments as the caller sent them (with the texts no variable
 * could carry: context.ts), naming problems as the caller names the arguments; any problem becomes
 * one `VALIDATION_ERROR` naming every bad argument. A caller with problems of its own gets this
 * field's problems and no data (`checkOnly`).
 */
export function checked<A extends object, T>(
  context: Pick<GraphQLContext, 'parameters'>,
  args: A,
  check: (args: A, names: ParameterNames, problems: Problems) => T,
): T {
  const { names, unconverted, checkOnly } = context.parameters;
  const problems: Problems = {};
  const value = check({ ...args, ...unconverted }, names, problems);
  if (checkOnly || Object.keys(problems).length > 0) throw validationError(problems);
  return value;
}

/**
 * A VALIDATION_ERROR found after the arguments' first check (one that needed the database, such as
 * whether a time zone exists), its problems named as the caller names the arguments.
 */
export function rejected(context: Pick<GraphQLContext, 'parameters'>, problems: (names: ParameterNames) => Problems): GraphQLError {
  return validationError(problems(context.parameters.names));
}

builder.scalarType('DateTime', {
  description: 'An instant, as an ISO 8601 UTC string with milliseconds, e.g. `2026-01-31T09:05:00.000Z`.',
  serialize: (value) => isoOf(value as Date),
  parseValue: (value) => {
    const date = typeof value === 'string' ? new Date(value) : undefined;
    if (!date || Number.isNaN(date.getTime())) throw new GraphQLError('DateTime must be an ISO 8601 string');
    return date;
  },
});

builder.scalarType('Date', {
  description: 'A UTC calendar day, `YYYY-MM-DD`.',
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new GraphQLError('Date must be YYYY-MM-DD');
    return value;
  },
});

builder.scalarType('JSON', {
  description: 'Any JSON value.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast) => {
    if (ast.kind === Kind.STRING || ast.kind === Kind.BOOLEAN) return ast.value;
    if (ast.kind === Kind.INT || ast.kind === Kind.FLOAT) return Number(ast.value);
    if (ast.kind === Kind.NULL) return null;
    throw new GraphQLError('JSON literals must be scalars; pass objects as variables');
  },
});

// Paging arguments and the PageInfo type shared by every list (the REST `meta`).

export interface PageInfoShape {
  page: number;
  limit: number;
  /** Counted only when a client asks for a total. */
  total: () => Promise<number>;
  /** Whether a page follows, when the list can tell without counting; else derived from `total`. */
  hasMore?: () => Promise<boolean>;
}

export const PageInfo = builder.objectRef<PageInfoShape>('PageInfo').implement({
  description: 'Position of a page in an ordered list (the REST `meta`).',
  fields: (t) => ({
    page: t.exposeInt('page', { description: 'Current page, 1-indexed.' }),
    limit: t.exposeInt('limit', { description: 'Items per page in use.' }),
    // The lists' totals are counted when asked for, in the unit the list declared.
    total: t.int({ databaseCost: { readsDatabase: true, countedBy: 'parent' }, description: 'Total items matching the filters.', resolve: (p) => p.total() }),
    totalPages: t.int({
      databaseCost: { readsDatabase: true, countedBy: 'parent' },
      description: 'Number of pages (0 when nothing matches).',
      resolve: async (p) => Math.ceil((await p.total()) / p.limit),
    }),
    hasMore: t.boolean({
      databaseCost: { readsDatabase: true, countedBy: 'parent' },
      description: 'True when a further page exists.',
      resolve: async (p) => (p.hasMore ? p.hasMore() : p.page < Math.ceil((await p.total()) / p.limit)),
    }),
  }),
});

export const pagingArgs = builder.args((t) => ({
  page: t.int({ description: 'Page number, 1-indexed. Default 1.' }),
  limit: t.int({ description: 'Items per page, 1 to 500. Default 25.' }),
}));

export const PAGING_NAMES = { page: 'page', limit: 'limit' } as const;

/** A list's page and limit, checked (graphql/builder.ts) as the caller named them. */
export function checkedPaging(args: { page?: number | null; limit?: number | null }, context: Pick<GraphQLContext, 'parameters'>): Paging {
  return checked(context, args, checkPaging);
}

/** Query cost of a list field: its children times the page size asked for (see the cost option above). */
export function costByLimit(args: { limit?: number | null }): { field: number; multiplier: number } {
  const limit = args.limit ?? DEFAULT_PAGE_SIZE;
  return { field: 1, multiplier: Math.min(Math.max(Number.isFinite(limit) ? limit : 1, 1), MAX_PAGE_SIZE) };
}

/** Query cost of a list whose length the parent's `limit` already counted (a page's `nodes`). */
export const COST_COUNTED_BY_PARENT = { field: 0, multiplier: 1 };

// What every resolver receives. Built once per request, after authentication: the key, the clinics
// it may see, the caller's parameters, and the loaders that batch the request's reads (each made
// when first asked for).

/**
 * How the caller names and sends the arguments the resolvers check (graphql/builder.ts `checked`):
 * GraphQL clients by the schema's names; the REST facade (rest/routes.ts) by its parameter
 * names, with the texts that no GraphQL variable could carry (an unknown enum value) handed over as
 * they were sent, so that the same rules judge them and name them as the client did.
 */
export interface CallerParameters {
  names: ParameterNames;
  /** Argument name -> the value sent, for arguments whose variable had to be left null. */
  unconverted: Readonly<Record<string, string | readonly string[] | number>>;
  /** The caller already has problems of its own: check every argument, read nothing, and report. */
  checkOnly: boolean;
  /** An export (src/rest/exports): a paged result has every row, not a page (breakdowns: every group). */
  everyRow?: boolean;
}

export const GRAPHQL_CALLER: CallerParameters = { names: GRAPHQL_NAMES, unconverted: {}, checkOnly: false };

/** Where the REST facade puts its CallerParameters in the initial context of an execution. */
export const CALLER_PARAMETERS = Symbol('caller-parameters');

/** The caller's parameters from an execution's initial context: the REST facade's, else GraphQL's. */
export function callerParametersOf(initialContext: object): CallerParameters {
  return (initialContext as { [CALLER_PARAMETERS]?: CallerParameters })[CALLER_PARAMETERS] ?? GRAPHQL_CALLER;
}

export interface GraphQLContext {
  db: Db;
  key: ApiKeyPrincipal;
  /**
   * The clinics this key may see (`null`: all): its clinic list, within its environment's clinics
   * (auth/api-keys.ts); applied in every query's WHERE.
   */
  visibleClinics: VisibleClinics;
  /** The batched interaction lists under clinics and campaigns, made when a nested list first asks (interactions/nested-pages.ts). */
  nestedLists: NestedLists;
  /** Clinics and campaigns by id, in batches (breakdown groups, metrics of clinics and campaigns). */
  entities: EntityLoaders;
  /** Batches of per-clinic and per-campaign metrics, one per distinct set of arguments (entity-metrics.ts). */
  metricsBatches: Map<string, unknown>;
  now: Date;
  parameters: CallerParameters;
  /**
   * The key's quota as this request's admission left it (this request counted); undefined for the
   * Unlimited tier. The same decision gives the response its rate-limit headers, so `viewer` and
   * the headers cannot disagree.
   */
  quota?: QuotaDecision;
}

/** Reads the clinics the key may see (one statement): a database that cannot answer rejects it. */
export async function createGraphQLContext(
  db: Db,
  key: ApiKeyPrincipal,
  now = new Date(),
  parameters = GRAPHQL_CALLER,
  quota?: QuotaDecision,
): Promise<GraphQLContext> {
  const visibleClinics = await visibleClinicsOf(db, key);
  return {
    db,
    key,
    visibleClinics,
    nestedLists: new Map(),
    entities: entityLoaders(db, visibleClinics),
    metricsBatches: new Map(),
    now,
    parameters,
    quota,
  };
}

// Clinics and campaigns by id, loaded in batches: the group keys of a breakdown name their clinic
// and campaign, and a page of groups must cost one statement per kind, not one per group. Read by
// hand-written SQL in the model's shape (interactions/rows.ts), as the relations of a page are:
// Prisma's client was a tenth of a breakdown's CPU in the service.

export interface EntityLoaders {
  readonly clinic: DataLoader<string, Clinic | null>;
  readonly campaign: DataLoader<string, Campaign | null>;
  /**
   * The clinic (or campaign) at once when the service holds it in memory (db/client.ts,
   * CatalogCache), else through its loader: a page's 50 rows then resolve their clinic and campaign
   * without 100 promises. Either way, nothing the key may not see.
   */
  clinicOf(id: string): Clinic | null | Promise<Clinic | null>;
  campaignOf(id: string): Campaign | null | Promise<Campaign | null>;
  /** Transcripts by interaction id, for rows read without theirs (a nested list's); the rows are visible ones. */
  readonly transcript: DataLoader<string, { entries: Prisma.JsonValue } | null>;
}

/**
 * Loaders that never return a clinic the key may not see, nor a campaign of one; each is made when
 * first asked for (most requests read neither).
 */
function entityLoaders(db: Db, visible: VisibleClinics): EntityLoaders {
  const seen = (clinicId: string) => visible === null || visible.includes(clinicId);
  /** A loader of rows by id that answers null for a row of a clinic the key may not see. */
  const visibleById = <T extends { id: string }>(load: (db: Db, ids: string[]) => Promise<T[]>, clinicOf: (row: T) => string) =>
    new DataLoader<string, T | null>(async (ids) => {
      const byId = new Map((await load(db, [...ids])).filter((row) => seen(clinicOf(row))).map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    });
  let transcript: EntityLoaders['transcript'] | undefined;
  let clinic: DataLoader<string, Clinic | null> | undefined;
  let campaign: DataLoader<string, Campaign | null> | undefined;
  const catalog = db[SQL_POOL].catalog;
  const loaders: EntityLoaders = {
    get clinic() {
      clinic ??= visibleById(clinicsById, (row) => row.id);
      return clinic;
    },
    get campaign() {
      campaign ??= visibleById(campaignsById, (row) => row.clinicId);
      return campaign;
    },
    get transcript() {
      transcript ??= new DataLoader(async (ids) => {
        const found = await transcriptsById(db, ids);
        return ids.map((id) => found.get(id) ?? null);
      });
      return transcript;
    },
    clinicOf(id) {
      const kept = catalog?.peek<Clinic>(CLINIC_KIND, id.toLowerCase());
      return kept === undefined ? loaders.clinic.load(id) : kept !== null && seen(kept.id) ? kept : null;
    },
    campaignOf(id) {
      const kept = catalog?.peek<Campaign>(CAMPAIGN_KIND, id);
      return kept === undefined ? loaders.campaign.load(id) : kept !== null && seen(kept.clinicId) ? kept : null;
    },
  };
  return loaders;
}

// The limits derived from each field's declared database cost (DatabaseCost, above, for Query
// fields, NestedDatabaseCost for the others), per API key, so that one query with many aliased or
// nested fields cannot multiply the database work: per-field rate limits (Query fields), and the
// key's concurrency limit on the units of work it has running at once (the bounds on a document's
// size, tokens, aliases, depth and cost are in use-document-limits.ts).

const queryCostsOf = new WeakMap<GraphQLSchema, ReadonlyMap<string, DatabaseCost>>();

/** Each Query field's declared database cost (DatabaseCost, above), read from the built schema. */
export function databaseCosts(built: GraphQLSchema): ReadonlyMap<string, DatabaseCost> {
  const known = queryCostsOf.get(built);
  if (known) return known;
  const costs = new Map<string, DatabaseCost>();
  for (const [name, field] of Object.entries(built.getQueryType()?.getFields() ?? {})) {
    const declared = declaredCost(field) as DatabaseCost | undefined;
    if (!declared) throw new Error(`Query.${name} declares no databaseCost (builder.ts DatabaseCost)`);
    costs.set(name, declared);
  }
  queryCostsOf.set(built, costs);
  return costs;
}

/** The declared database cost of a field of the schema, if any (its Pothos options). */
function declaredCost(field: GraphQLField<unknown, unknown>): unknown {
  return (field.extensions as { pothosOptions?: { databaseCost?: unknown } }).pothosOptions?.databaseCost;
}

const nestedCostsOf = new WeakMap<GraphQLSchema, ReadonlyMap<string, NestedDatabaseCost>>();

/**
 * The declared database cost of each field of an object type other than Query (NestedDatabaseCost,
 * above), by `Type.field`; fields that declare none read nothing. Throws on a
 * declaration that only a Query field may make (a rate limit, units by arguments).
 */
export function nestedDatabaseCosts(built: GraphQLSchema): ReadonlyMap<string, NestedDatabaseCost> {
  const known = nestedCostsOf.get(built);
  if (known) return known;
  const costs = new Map<string, NestedDatabaseCost>();
  for (const type of Object.values(built.getTypeMap())) {
    if (!isObjectType(type) || type === built.getQueryType() || type.name.startsWith('__')) continue;
    for (const [name, field] of Object.entries(type.getFields())) {
      const declared = declaredCost(field) as (NestedDatabaseCost & { perSecond?: unknown; units?: unknown }) | undefined;
      if (!declared) continue;
      if ('perSecond' in declared || ('units' in declared && (typeof declared.units !== 'number' || declared.units < 1))) {
        throw new Error(`${type.name}.${name} declares a databaseCost only a Query field may (builder.ts NestedDatabaseCost)`);
      }
      costs.set(`${type.name}.${name}`, declared);
    }
  }
  nestedCostsOf.set(built, costs);
  return costs;
}

/**
 * Executions allowed per API key and field, from each field's declared cost: generous for REST and
 * ordinary frontends (a REST call runs each field once), tight enough to stop one request from
 * fanning out. Also checks every nested declaration, so a wrong one fails when the service starts.
 */
export function fieldRateLimitsOf(built: GraphQLSchema): readonly FieldRateLimit[] {
  nestedDatabaseCosts(built);
  return [...databaseCosts(built)].flatMap(([field, cost]) => (cost.readsDatabase ? [{ type: 'Query', field, max: cost.perSecond, window: '1s' }] : []));
}

export interface FieldRateLimit {
  type: string;
  field: string;
  max: number;
  window: string;
}

export interface QueryLimitOptions {
  redis?: Redis;
  /** The per-field limits (FIELD_RATE_LIMITS of graphql/index.ts in the service; none in most tests). */
  fieldRateLimits: readonly FieldRateLimit[];
  /** Units of database work one key may hold at once, per tier (limits/admission.ts defaults). */
  concurrency?: KeyConcurrency | ConcurrencyLimits;
}

export function useQueryLimits(options: QueryLimitOptions): Plugin[] {
  const { fieldRateLimits } = options;
  const windowMs = Math.max(1_000, ...fieldRateLimits.map((l) => windowToMs(l.window)));
  const maxOf = (fieldIdentity: string) => Math.max(0, ...fieldRateLimits.filter((l) => l.field === fieldIdentity).map((l) => l.max));
  const store = options.redis ? new ReservingRedisStore(options.redis, windowMs, maxOf) : new ReservingMemoryStore(windowMs, maxOf);
  return [
    limitFreeFormQueries(
      store,
      useRateLimiter({
        identifyFn: (context) => `key:${(context as GraphQLContext).key.id}`,
        configByField: fieldRateLimits.map((limit) => ({
          ...limit,
          message: `Too many ${limit.field} executions: at most ${limit.max} per second per API key`,
        })),
        store,
        // The reserving stores count each call when it is checked (see field-limit-store.ts).
        enableBatchRequestCache: false,
      }) as Plugin,
      (field, message) =>
        codedError('RATE_LIMITED', message, {
          extensions: { retryAfterSeconds: ERRORS.RATE_LIMITED.retryAfterSeconds, details: { limit: 'field', field, max_per_second: maxOf(field) } },
        }),
    ),
    refuseLimitedFields(fieldRateLimits),
    useConcurrencyLimit(options.concurrency instanceof KeyConcurrency ? options.concurrency : new KeyConcurrency(options.concurrency)),
  ];
}

/** The units each execution took (by its context), for the heavy lane to judge without counting them again. */
const takenUnits = new WeakMap<object, readonly RootFieldUnits[]>();

/**
 * The units of database work an execution took under the concurrency limit, per root field (with
 * each field's own units, by which the heavy lane judges it); undefined when it took none (no key).
 */
export function unitsTaken(context: object): readonly RootFieldUnits[] | undefined {
  return takenUnits.get(context);
}

/**
 * The per-key concurrency limit (limits/admission.ts) on every execution, REST's fixed documents
 * included: the executed operation's root fields count by their declared units, or by what their
 * nested fields declare when more (rootFieldUnits; 15 aliases of metricsSeries are 15), taken before
 * any resolver runs and given back when the result is ready.
 * A document costing more than the limit can never run and is refused as too complex; one that
 * does not fit beside the key's work in flight is answered 429 with Retry-After.
 */
function useConcurrencyLimit(limiter: KeyConcurrency): Plugin {
  // Units given back when the response is made, whatever happened to the execution (an
  // execution that throws never reaches onExecuteDone).
  const pending = new WeakMap<Request, Array<() => void>>();
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as Partial<GraphQLContext>;
      const key = context.key;
      if (!key) return undefined;
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation) return undefined;
      const fields = rootFieldUnits(operation, args.document, databaseCosts(args.schema), {
        schema: args.schema,
        variables: args.variableValues ?? {},
        nowMs: Date.now(),
      });
      const decision = limiter.acquire(
        key.id,
        key.tier,
        fields.map((field) => field.held),
      );
      if (!decision.ok) {
        setResultAndStopExecution({ errors: [concurrencyRefusal(decision)] });
        return undefined;
      }
      takenUnits.set(context, fields);
      const request = currentRequest();
      if (request) {
        pending.set(request, [...(pending.get(request) ?? []), decision.release]);
        bindLane(request, key.id);
      }
      return { onExecuteDone: () => decision.release() };
    },
    onResponse({ request }) {
      for (const release of pending.get(request) ?? []) release();
      pending.delete(request);
    },
  };
}

/** The error a refused concurrency decision answers: too costly ever to run (400), or busy (429 with Retry-After). */
export function concurrencyRefusal(decision: Extract<ConcurrencyDecision, { ok: false }>): GraphQLError {
  const details = { limit: 'concurrency', max_units: decision.limit, in_flight_units: decision.inFlight, document_units: decision.cost };
  return decision.reason === 'too_costly'
    ? codedError(
        'QUERY_TOO_COMPLEX',
        `The document reads the database ${decision.cost} times at once; this API key may run at most ${decision.limit} at once: split it`,
        { extensions: { details, http: httpOf('QUERY_TOO_COMPLEX') } },
      )
    : codedError(
        'RATE_LIMITED',
        `Concurrency limit: this API key already has ${decision.inFlight} of its ${decision.limit} units of database work running; this document needs ${decision.cost}`,
        {
          extensions: {
            retryAfterSeconds: CONCURRENCY_RETRY_AFTER_SECONDS,
            details,
            http: { status: ERRORS.RATE_LIMITED.status, headers: { 'Retry-After': String(CONCURRENCY_RETRY_AFTER_SECONDS) } },
          },
        },
      );
}

/** What units by arguments need to be read: the schema, the request's variables, and the time. */
export interface UnitsContext {
  schema: GraphQLSchema;
  variables: Record<string, unknown>;
  nowMs: number;
}

/** A root field's units: its own (declared on it), and those it holds, which its nested fields may raise. */
export interface RootFieldUnits {
  own: number;
  held: number;
}

/**
 * The units of each root field an operation selects that reads the database, itself or beneath it,
 * in document order (through fragments; @skip/@include counted as run; a root field selected twice
 * under one name counted twice). Units by arguments (ArgumentUnits, above) read the field's
 * arguments as execution will; arguments that execution will refuse count 1.
 *
 * A root field holds its own units or those of the fields selected beneath it, whichever is more
 * (nestedUnits): its own reads are done, or are the lazy reads of its page that its own units
 * count (`countedBy: 'parent'`), before the fields beneath it that read on their own start.
 */
export function rootFieldUnits(
  operation: OperationDefinitionNode,
  document: DocumentNode,
  costs: ReadonlyMap<string, DatabaseCost>,
  context: UnitsContext,
): RootFieldUnits[] {
  if (operation.operation !== 'query') return [];
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const nested = nestedDatabaseCosts(context.schema);
  const fields = context.schema.getQueryType()?.getFields() ?? {};
  const seen = new Set<string>();
  const units: RootFieldUnits[] = [];
  const unitsOf = (node: FieldNode, cost: DatabaseCost): number => {
    if (!cost.readsDatabase) return 0;
    if (typeof cost.units === 'number') return cost.units;
    const definition = fields[node.name.value];
    try {
      return definition ? Math.max(1, cost.units.of(getArgumentValues(definition, node, context.variables), context.nowMs)) : 1;
    } catch {
      return 1;
    }
  };
  const visitSet = (selectionSet: SelectionSetNode): void => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const cost = costs.get(selection.name.value);
        const own = cost ? unitsOf(selection, cost) : 0;
        const definition = fields[selection.name.value];
        const beneath = definition && selection.selectionSet ? unitsBeneath(context.schema, selection, definition, fragments, nested) : 0;
        const held = Math.max(own, beneath);
        if (held > 0) units.push({ own, held });
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visitSet(selection.selectionSet);
      } else {
        // Validation refuses fragment cycles; the guard keeps a spread counted once per path.
        const fragment = fragments.get(selection.name.value);
        if (fragment && !seen.has(fragment.name.value)) {
          seen.add(fragment.name.value);
          visitSet(fragment.selectionSet);
          seen.delete(fragment.name.value);
        }
      }
    }
  };
  visitSet(operation.selectionSet);
  return units;
}

/**
 * The most units the fields selected on objects of `type` may hold at once, by what each declares
 * (NestedDatabaseCost, above): `units` of its own, nothing for `countedBy: 'parent'` (its reads
 * are in the units of the field that produced the parent) or for fields that read nothing.
 *
 * How a document runs: the fields selected on one object resolve together (their batches are sent
 * in the same turn), so siblings that read may run at once; a field's own selection starts only
 * when the field has resolved, its own read done. So a field holds either its own units or what its
 * selection holds, never both at once: max(own, sum over its selected fields), from the leaves up.
 * That is the largest sum over fields that may run at once (none beneath another): the fields at
 * one depth are one such set, and so are a field at one depth and a sibling's fields deeper down
 * (a branch whose parent resolved sooner is further along), which a sum per depth would not count.
 * A nested field's batch serves every parent of its level, so its units do not grow with them.
 *
 * Fields selected under one name on one type run once (their selections merged), as execution
 * merges them; fragments and inline fragments are followed (@skip/@include counted as run).
 */
function nestedUnits(
  built: GraphQLSchema,
  type: GraphQLNamedType,
  selectionSets: readonly SelectionSetNode[],
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  costs: ReadonlyMap<string, NestedDatabaseCost>,
): number {
  const selected = new Map<string, { type: GraphQLNamedType; field: GraphQLField<unknown, unknown>; selectionSets: SelectionSetNode[] }>();
  const seen = new Set<string>();
  const collect = (on: GraphQLNamedType, selectionSet: SelectionSetNode): void => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const field = isObjectType(on) || isInterfaceType(on) ? on.getFields()[selection.name.value] : undefined;
        if (!field) continue;
        const key = `${on.name}.${selection.alias?.value ?? selection.name.value}`;
        const entry = selected.get(key) ?? { type: on, field, selectionSets: [] };
        if (selection.selectionSet) entry.selectionSets.push(selection.selectionSet);
        selected.set(key, entry);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition ? fragmentType(built, on, selection.typeCondition.name.value) : on;
        if (condition) collect(condition, selection.selectionSet);
      } else {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || seen.has(fragment.name.value)) continue;
        const condition = fragmentType(built, on, fragment.typeCondition.name.value);
        if (!condition) continue;
        seen.add(fragment.name.value);
        collect(condition, fragment.selectionSet);
        seen.delete(fragment.name.value);
      }
    }
  };
  for (const selectionSet of selectionSets) collect(type, selectionSet);
  let sum = 0;
  for (const { type: on, field, selectionSets: beneath } of selected.values()) {
    const cost = costs.get(`${on.name}.${field.name}`);
    const own = cost?.readsDatabase && 'units' in cost ? cost.units : 0;
    sum += Math.max(own, beneath.length ? nestedUnits(built, getNamedType(field.type), beneath, fragments, costs) : 0);
  }
  return sum;
}

/**
 * What a root field's selection holds (nestedUnits), once per field of a document: it depends on the
 * document and the schema alone, and a document repeats (every REST request runs one of a few, and
 * Yoga hands a repeated free-form text the same parsed document), while walking it was about 3% of
 * the CPU of a small request.
 */
const beneathByField = new WeakMap<GraphQLSchema, WeakMap<FieldNode, number>>();

function unitsBeneath(
  built: GraphQLSchema,
  node: FieldNode,
  definition: GraphQLField<unknown, unknown>,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  costs: ReadonlyMap<string, NestedDatabaseCost>,
): number {
  let known = beneathByField.get(built);
  if (!known) {
    known = new WeakMap();
    beneathByField.set(built, known);
  }
  let units = known.get(node);
  if (units === undefined) {
    units = node.selectionSet ? nestedUnits(built, getNamedType(definition.type), [node.selectionSet], fragments, costs) : 0;
    known.set(node, units);
  }
  return units;
}

/**
 * The type whose fields a fragment on `condition` selects, inside a selection on `on`: an object
 * type's own (validation has checked that the fragment can apply to it), or the condition's inside
 * an abstract type (the schema has none today).
 */
function fragmentType(built: GraphQLSchema, on: GraphQLNamedType, condition: string): GraphQLNamedType | undefined {
  return condition === on.name || isObjectType(on) ? on : built.getType(condition);
}

/** `1s`, `500ms`, `2m`... as the limiter reads them. */
function windowToMs(window: string): number {
  const match = /^(\d+)\s*(ms|s|m|h|d)?$/.exec(window.trim());
  if (!match) throw new Error(`Unreadable rate-limit window: ${window}`);
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(match[2] ?? 'ms') as 'ms'];
  return Number(match[1]) * unit;
}

/** Marks the GraphQL context of a REST facade execution (see rest/use-rest.ts). */
export const REST_EXECUTION = Symbol('rest-execution');

/** Whether a GraphQL context is that of a REST facade execution. */
export function isRestExecution(context: unknown): boolean {
  return (context as { [REST_EXECUTION]?: boolean } | undefined)?.[REST_EXECUTION] === true;
}

/**
 * An onExecute (or onSubscribe) hook that judges free-form documents only: a REST facade
 * execution passes without calling it. For the checks whose every REST document is exempt or
 * found already to pass, each saying why where it is written.
 */
export function forFreeFormDocuments<Payload extends { args: { contextValue: unknown } }, Result>(
  hook: (payload: Payload) => Result,
): (payload: Payload) => Result | undefined {
  return (payload) => (isRestExecution(payload.args.contextValue) ? undefined : hook(payload));
}

/**
 * The field nodes the limiter refused in an execution, by its context (one per execution; the
 * parsed document may be shared by concurrent requests, so the nodes alone cannot say), with the
 * error each of their fields answers.
 */
const refusedFields = new WeakMap<object, ReadonlyMap<FieldNode, GraphQLError>>();

/**
 * Per-field limits bound what one free-form GraphQL query can fan out to. They do not apply to the
 * REST facade's fixed documents (one field per request, already bounded by the per-key quotas) nor
 * to Unlimited keys, which decisions section 5 says are never limited.
 *
 * The limiter visits the whole document it is given, every operation in it, and asks its store once
 * per matching field node: a document of 6,000 operations cost 6,000 Redis scripts, though only one
 * operation executes. So it is given only the executed operation and the fragments that operation
 * uses (the document executed is left as it is), and its store batches the calls of the visit into
 * one round trip (field-limit-store.ts).
 *
 * The limiter decides every field node before anything runs, but then answers the whole document
 * with its errors (`setResultAndStopExecution`). Only the refused fields should fail: its errors
 * (each names its field node) are kept for the execution instead, and refuseLimitedFields makes
 * those fields answer them when they resolve, so the rest of the document runs.
 */
function limitFreeFormQueries(store: FieldLimitStore, limiter: Plugin, errorOf: (field: string, message: string) => GraphQLError): Plugin {
  const onExecute = limiter.onExecute;
  if (!onExecute) return limiter;
  return {
    ...limiter,
    onExecute(payload) {
      const context = payload.args.contextValue as Partial<GraphQLContext>;
      if (isRestExecution(context) || context.key?.tier === 'unlimited') return undefined;
      const executed = executedPart(payload.args.document, payload.args.operationName);
      // No operation to execute (several and none named): execution fails and no field runs.
      if (!executed) return undefined;
      const refused = new Map<FieldNode, GraphQLError>();
      refusedFields.set(context, refused);
      const keep = (result: ExecutionResult) => {
        for (const error of result.errors ?? []) {
          const node = error.nodes?.[0];
          if (node?.kind !== Kind.FIELD) {
            payload.setResultAndStopExecution(result);
            return;
          }
          refused.set(node, errorOf(node.name.value, error.message));
        }
      };
      return store.batch(() => onExecute({ ...payload, args: { ...payload.args, document: executed }, setResultAndStopExecution: keep }));
    },
  };
}

/** Whether the per-field limits refused any field of the execution with this context. */
export function refusesFields(context: object): boolean {
  return (refusedFields.get(context)?.size ?? 0) > 0;
}

const REFUSING = Symbol('refuses-limited-field');

/**
 * Each rate-limited field answers the limiter's error where limitFreeFormQueries kept one for its
 * node: null at its path, with the error at that path, and the rest of the document answered (every
 * limited field is nullable, so the null stays at the field). The schema is shared by every app in
 * the process: each field is wrapped once, and does nothing for executions that refused nothing.
 */
function refuseLimitedFields(fieldRateLimits: readonly FieldRateLimit[]): Plugin {
  return {
    onSchemaChange({ schema: built }) {
      for (const limit of fieldRateLimits) {
        const type = built.getType(limit.type);
        const field = isObjectType(type) ? type.getFields()[limit.field] : undefined;
        if (!field) throw new Error(`A rate limit names ${limit.type}.${limit.field}, which the schema lacks`);
        const marked = field as typeof field & { [REFUSING]?: true };
        if (marked[REFUSING]) continue;
        const resolve = field.resolve ?? defaultFieldResolver;
        field.resolve = (source, args, context: object, info) => {
          const refused = refusedFields.get(context);
          if (refused?.size) {
            for (const node of info.fieldNodes) {
              const error = refused.get(node);
              if (error) throw error;
            }
          }
          return resolve(source, args, context, info);
        };
        marked[REFUSING] = true;
      }
    },
  };
}

/** The operation that executes and the fragments it spreads (directly or through other fragments). */
function executedPart(document: DocumentNode, operationName: string | null | undefined): DocumentNode | undefined {
  const operation = getOperationAST(document, operationName);
  if (!operation) return undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const used = new Map<string, FragmentDefinitionNode>();
  const pending: ASTNode[] = [operation];
  for (let node = pending.pop(); node; node = pending.pop()) {
    visit(node, {
      FragmentSpread(spread) {
        const fragment = fragments.get(spread.name.value);
        if (fragment && !used.has(spread.name.value)) {
          used.set(spread.name.value, fragment);
          pending.push(fragment);
        }
      },
    });
  }
  return { kind: Kind.DOCUMENT, definitions: [operation, ...used.values()] };
}

// Admission for the GraphQL endpoint (the REST facade admits inside its own handler, after route
// matching), and the rate-limit headers on every response to a request that carried a valid key
// (429s included).

/** GraphiQL's page itself needs no key: only the queries it sends do. */
function isGraphiQLPage(request: Request): boolean {
  return request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html');
}

/** The GraphQL answer of a request refused before its operation: the code's status, one error. */
function errorResponse(
  request: Request,
  fetchAPI: { Response: typeof Response },
  code: ErrorCode,
  message: string,
  extensions: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return graphqlErrorResponse(request, fetchAPI, [codedError(code, message, { extensions })], { status: ERRORS[code].status, headers });
}

export function useAdmission(admitter: Admitter, graphqlPath: string, onError: (error: unknown, request: Request) => void): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== graphqlPath || isGraphiQLPage(request)) return;
      let admission: Admission;
      try {
        admission = await admitter.admit(request);
      } catch (error) {
        onError(error, request);
        endResponse(errorResponse(request, fetchAPI, 'INTERNAL_ERROR', ERRORS.INTERNAL_ERROR.message, {}));
        return;
      }
      if (admission.ok) return;
      const { code, message, retryAfterSeconds, headers } = refusalAnswer(admission);
      const extensions = retryAfterSeconds === undefined ? {} : { retryAfterSeconds };
      endResponse(errorResponse(request, fetchAPI, code, message, extensions, { ...headers, ...retryAfterHeader(code, retryAfterSeconds) }));
    },
    onResponse({ request, response }) {
      const admission = stateOf(request).admitted;
      const quota = admission && 'quota' in admission ? admission.quota : undefined;
      for (const [name, value] of Object.entries(rateLimitHeaders(quota))) {
        if (!response.headers.has(name)) response.headers.set(name, value);
      }
    },
  };
}
