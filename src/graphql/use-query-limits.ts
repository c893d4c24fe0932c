// Per-field rate limits on the expensive GraphQL fields, per API key, so that one query with many
// aliased metrics fields cannot multiply the database work (the bounds on a document's size, tokens,
// aliases, depth and cost are in use-document-limits.ts).
import { isPromise } from 'node:util/types';
import { useRateLimiter } from '@envelop/rate-limiter';
import { type ASTNode, type DocumentNode, type FragmentDefinitionNode, GraphQLError, getOperationAST, Kind, visit } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import { ERRORS } from '../http/error-catalogue.js';
import { codedError } from './coded-error.js';
import type { GraphQLContext } from './context.js';
import { type FieldLimitStore, ReservingMemoryStore, ReservingRedisStore } from './field-limit-store.js';

/**
 * Executions allowed per API key and field. Generous for REST and ordinary frontends (a REST call
 * runs each field once), tight enough to stop one request from fanning out.
 */
export const FIELD_RATE_LIMITS: readonly FieldRateLimit[] = [
  { type: 'Query', field: 'metricsSummary', max: 10, window: '1s' },
  { type: 'Query', field: 'metricsDaily', max: 10, window: '1s' },
  { type: 'Query', field: 'metricsOutcomes', max: 10, window: '1s' },
  { type: 'Query', field: 'metricsBreakdown', max: 10, window: '1s' },
  { type: 'Query', field: 'metricsDurations', max: 10, window: '1s' },
  { type: 'Query', field: 'interactions', max: 20, window: '1s' },
];

export interface FieldRateLimit {
  type: string;
  field: string;
  max: number;
  window: string;
}

export function useQueryLimits(options: { redis?: Redis; fieldRateLimits?: readonly FieldRateLimit[] } = {}): Plugin[] {
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
        transformError: (message) => codedError('RATE_LIMITED', message, { extensions: { retryAfterSeconds: ERRORS.RATE_LIMITED.retryAfterSeconds } }),
      }) as Plugin,
    ),
  ];
}

/** `1s`, `500ms`, `2m`... as the limiter reads them. */
function windowToMs(window: string): number {
  const match = /^(\d+)\s*(ms|s|m|h|d)?$/.exec(window.trim());
  if (!match) throw new Error(`Unreadable rate-limit window: ${window}`);
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(match[2] ?? 'ms') as 'ms'];
  return Number(match[1]) * unit;
}

const isRateLimited = (error: unknown): error is GraphQLError => error instanceof GraphQLError && error.extensions.code === 'RATE_LIMITED';

/** Marks the GraphQL context of a REST facade execution (see rest/use-rest.ts). */
export const REST_EXECUTION = Symbol('rest-execution');

/** Whether a GraphQL context is that of a REST facade execution. */
export function isRestExecution(context: unknown): boolean {
  return (context as { [REST_EXECUTION]?: boolean } | undefined)?.[REST_EXECUTION] === true;
}

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
 * The limiter also throws its error out of its onExecute hook (synchronously with an in-memory
 * store, as a rejection with Redis); that throw becomes the operation's result, `{ errors }`.
 */
function limitFreeFormQueries(store: FieldLimitStore, plugin: Plugin): Plugin {
  const onExecute = plugin.onExecute;
  if (!onExecute) return plugin;
  return {
    ...plugin,
    onExecute(payload) {
      const context = payload.args.contextValue as Partial<GraphQLContext>;
      if (isRestExecution(context) || context.key?.tier === 'unlimited') return undefined;
      const executed = executedPart(payload.args.document, payload.args.operationName);
      // No operation to execute (several and none named): execution fails and no field runs.
      if (!executed) return undefined;
      const stop = (error: unknown) => {
        if (!isRateLimited(error)) throw error;
        payload.setResultAndStopExecution({ errors: [error] });
      };
      try {
        const result = store.batch(() => onExecute({ ...payload, args: { ...payload.args, document: executed } }));
        return isPromise(result) ? result.catch(stop) : result;
      } catch (error) {
        stop(error);
        return undefined;
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
