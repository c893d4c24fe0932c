// The limits derived from each Query field's declared database cost (builder.ts DatabaseCost), per
// API key, so that one query with many aliased fields cannot multiply the database work: per-field
// rate limits, and the key's concurrency limit on the units of work it has running at once (the
// bounds on a document's size, tokens, aliases, depth and cost are in use-document-limits.ts).
import { useRateLimiter } from '@envelop/rate-limiter';
import {
  type ASTNode,
  type DocumentNode,
  defaultFieldResolver,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLError,
  type GraphQLSchema,
  getArgumentValues,
  getOperationAST,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  visit,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import { bindLane } from '../db/fair-pool.js';
import { codedError, httpOf } from '../domain/coded-error.js';
import { ERRORS } from '../domain/error-catalogue.js';
import { CONCURRENCY_RETRY_AFTER_SECONDS, type ConcurrencyDecision, type ConcurrencyLimits, KeyConcurrency } from '../limits/concurrency.js';
import { currentRequest } from '../request/current.js';
import type { DatabaseCost } from './builder.js';
import type { GraphQLContext } from './context.js';
import { type FieldLimitStore, ReservingMemoryStore, ReservingRedisStore } from './field-limit-store.js';
import { schema } from './index.js';

/** Each Query field's declared database cost (builder.ts DatabaseCost), read from the built schema. */
export function databaseCosts(built: GraphQLSchema): ReadonlyMap<string, DatabaseCost> {
  const costs = new Map<string, DatabaseCost>();
  for (const [name, field] of Object.entries(built.getQueryType()?.getFields() ?? {})) {
    const declared = (field.extensions as { pothosOptions?: { databaseCost?: DatabaseCost } }).pothosOptions?.databaseCost;
    if (!declared) throw new Error(`Query.${name} declares no databaseCost (builder.ts DatabaseCost)`);
    costs.set(name, declared);
  }
  return costs;
}

/**
 * Executions allowed per API key and field, from each field's declared cost: generous for REST and
 * ordinary frontends (a REST call runs each field once), tight enough to stop one request from
 * fanning out.
 */
export const FIELD_RATE_LIMITS: readonly FieldRateLimit[] = [...databaseCosts(schema)].flatMap(([field, cost]) =>
  cost.readsDatabase ? [{ type: 'Query', field, max: cost.perSecond, window: '1s' }] : [],
);

export interface FieldRateLimit {
  type: string;
  field: string;
  max: number;
  window: string;
}

export interface QueryLimitOptions {
  redis?: Redis;
  fieldRateLimits?: readonly FieldRateLimit[];
  /** Units of database work one key may hold at once, per tier (limits/concurrency.ts defaults). */
  concurrency?: KeyConcurrency | ConcurrencyLimits;
}

export function useQueryLimits(options: QueryLimitOptions = {}): Plugin[] {
  const fieldRateLimits = options.fieldRateLimits ?? FIELD_RATE_LIMITS;
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
const takenUnits = new WeakMap<object, readonly number[]>();

/** The units of database work an execution took under the concurrency limit; undefined when it took none (no key). */
export function unitsTaken(context: object): readonly number[] | undefined {
  return takenUnits.get(context);
}

/**
 * The per-key concurrency limit (limits/concurrency.ts) on every execution, REST's fixed documents
 * included: the executed operation's root fields count by their declared units (15 aliases of
 * metricsSeries are 15), taken before any resolver runs and given back when the result is ready.
 * A document costing more than the limit can never run and is refused as too complex; one that
 * does not fit beside the key's work in flight is answered 429 with Retry-After.
 */
function useConcurrencyLimit(limiter: KeyConcurrency): Plugin {
  const costs = databaseCosts(schema);
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
      const units = operationUnits(operation, args.document, costs, { schema: args.schema, variables: args.variableValues ?? {}, nowMs: Date.now() });
      const decision = limiter.acquire(key.id, key.tier, units);
      if (!decision.ok) {
        setResultAndStopExecution({ errors: [concurrencyRefusal(decision)] });
        return undefined;
      }
      takenUnits.set(context, units);
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

/**
 * The units of each database-reading root field an operation selects, in document order (through
 * fragments; @skip/@include counted as run). Units by arguments (builder.ts ArgumentUnits) read the
 * field's arguments as execution will; arguments that execution will refuse count 1.
 */
export function operationUnits(
  operation: OperationDefinitionNode,
  document: DocumentNode,
  costs: ReadonlyMap<string, DatabaseCost>,
  context: UnitsContext,
): number[] {
  if (operation.operation !== 'query') return [];
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const fields = context.schema.getQueryType()?.getFields() ?? {};
  const seen = new Set<string>();
  const units: number[] = [];
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
        const count = cost ? unitsOf(selection, cost) : 0;
        if (count > 0) units.push(count);
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
