// The Pothos schema builder: configuration only. Types and fields live in ./schema/*.ts.

import SchemaBuilder, { type FieldNullability, type InputFieldMap, type SchemaTypes, type TypeParam } from '@pothos/core';
import ComplexityPlugin, { type ComplexityErrorFn, type ComplexityErrorKind } from '@pothos/plugin-complexity';
import PrismaPlugin from '@pothos/plugin-prisma';
import ScopeAuthPlugin, { type AuthFailure } from '@pothos/plugin-scope-auth';
import DataLoader from 'dataloader';
import { GraphQLError, Kind } from 'graphql';
import { type ApiKeyPrincipal, type VisibleClinics, visibleClinicsOf } from '../auth/api-keys.js';
import type { Db } from '../db/client.js';
import { codedError } from '../domain/coded-error.js';
import type { ErrorCode } from '../domain/error-catalogue.js';
import { checkPaging, type Paging, type Problems } from '../domain/parameters.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type Scope } from '../domain/values.js';
import { GRAPHQL_NAMES, type ParameterNames } from '../filters/interaction-filters.js';
import type PrismaTypes from '../generated/pothos-prisma-types.js';
import { getDatamodel } from '../generated/pothos-prisma-types.js';
import type { Campaign, Clinic } from '../generated/prisma/client.js';
import type { NestedLists } from '../interactions/nested-pages.js';
import { campaignsById, clinicsById } from '../interactions/rows.js';
import type { QuotaDecision } from '../limits/windows.js';

/**
 * What a Query field costs the database, declared where the field is declared (a required option of
 * every Query field, so a new field cannot be added without one). The per-key concurrency limit
 * counts a document's root fields by `units` (or by what their nested fields declare, when more:
 * NestedDatabaseCost), and the per-field rate limit is `perSecond` (use-query-limits.ts derives
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
 * with the number of parents. How a document's nested units add up is use-query-limits.ts
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
 * The error for an operation over QUERY_LIMITS: from the plugin (checked when a root field runs)
 * and from use-document-limits.ts (the whole operation, introspection included, before it runs).
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
    unauthorizedError: (_parent, _context, info, result) => {
      const scope = failedScope(result.failure);
      return codedError(
        'INSUFFICIENT_SCOPE',
        `This API key lacks the scope needed for ${info.parentType.name}.${info.fieldName}${scope ? ` (${scope})` : ''}`,
        {
          extensions: scope ? { details: { required_scope: scope } } : {},
        },
      );
    },
  },
  // Free-form queries are bounded before they run: list fields cost their `limit` times their
  // children, so a page of 500 interactions with relations fits, and nesting pages of pages does not.
  complexity: {
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
  serialize: (value) => (value as Date).toISOString(),
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

/** A list's page and limit, checked (graphql/errors.ts) as the caller named them. */
export function checkedPaging(args: { page?: number | null; limit?: number | null }, context: Pick<GraphQLContext, 'parameters'>): Paging {
  return checked(context, args, checkPaging);
}

/** Query cost of a list field: its children times the page size asked for (see builder.ts). */
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
 * How the caller names and sends the arguments the resolvers check (graphql/errors.ts `checked`):
 * GraphQL clients by the schema's names; the REST facade (rest/query-params.ts) by its parameter
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
   * (auth/clinic-visibility.ts); applied in every query's WHERE.
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
  let clinic: EntityLoaders['clinic'] | undefined;
  let campaign: EntityLoaders['campaign'] | undefined;
  return {
    get clinic() {
      clinic ??= visibleById(clinicsById, (row) => row.id);
      return clinic;
    },
    get campaign() {
      campaign ??= visibleById(campaignsById, (row) => row.clinicId);
      return campaign;
    },
  };
}
