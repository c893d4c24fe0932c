// The Pothos schema builder: configuration only. Types and fields live in ./schema/*.ts.
import SchemaBuilder, { type FieldNullability, type InputFieldMap, type SchemaTypes, type TypeParam } from '@pothos/core';
import ComplexityPlugin, { type ComplexityErrorFn, type ComplexityErrorKind } from '@pothos/plugin-complexity';
import PrismaPlugin from '@pothos/plugin-prisma';
import ScopeAuthPlugin, { type AuthFailure } from '@pothos/plugin-scope-auth';
import type { GraphQLError } from 'graphql';
import { codedError } from '../domain/coded-error.js';
import type { ErrorCode } from '../domain/error-catalogue.js';
import type { Scope } from '../domain/values.js';
import type PrismaTypes from '../generated/pothos-prisma-types.js';
import { getDatamodel } from '../generated/pothos-prisma-types.js';
import type { GraphQLContext } from './context.js';

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
