// Protection of the GraphQL endpoint against expensive free-form queries (issue: depth and cost are
// bounded by @pothos/plugin-complexity in builder.ts). Here: a cap on aliases, and per-field rate
// limits on the expensive fields, per API key, so that one query with many aliased metrics fields
// cannot multiply the database work.
import { InMemoryStore, RedisStore, type Store, useRateLimiter } from '@envelop/rate-limiter';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import type { GraphQLContext } from './context.js';

export const MAX_ALIASES = 15;

/**
 * Executions allowed per API key and field. Generous for REST and ordinary frontends (a REST call
 * runs each field once), tight enough to stop one request from fanning out.
 */
export const FIELD_RATE_LIMITS: readonly FieldRateLimit[] = [
  { type: 'Query', field: 'metricsSummary', max: 10, window: '1s' },
  { type: 'Query', field: 'metricsDaily', max: 10, window: '1s' },
  { type: 'Query', field: 'metricsOutcomes', max: 10, window: '1s' },
  { type: 'Query', field: 'interactions', max: 20, window: '1s' },
];

export interface FieldRateLimit {
  type: string;
  field: string;
  max: number;
  window: string;
}

type Identity = Parameters<Store['getForIdentity']>[0];

/**
 * The field limiter's counters in Redis when it answers, in memory when it does not (like the
 * per-key quotas: a Redis outage must not fail queries).
 */
class FallbackFieldStore implements Store {
  private readonly memory = new InMemoryStore();
  constructor(private readonly redis: RedisStore) {}

  async setForIdentity(identity: Identity, timestamps: readonly number[], windowMs?: number): Promise<void> {
    try {
      await this.redis.setForIdentity(identity, timestamps, windowMs);
    } catch {
      this.memory.setForIdentity(identity, timestamps);
    }
  }

  async getForIdentity(identity: Identity): Promise<readonly number[]> {
    try {
      return await this.redis.getForIdentity(identity);
    } catch {
      return this.memory.getForIdentity(identity);
    }
  }
}

export function useQueryLimits(options: { redis?: Redis; fieldRateLimits?: readonly FieldRateLimit[] } = {}): Plugin[] {
  const fieldRateLimits = options.fieldRateLimits ?? FIELD_RATE_LIMITS;
  const store = options.redis ? new FallbackFieldStore(new RedisStore(options.redis)) : new InMemoryStore();
  return [
    maxAliasesPlugin({
      n: MAX_ALIASES,
      propagateOnRejection: false,
      onReject: [
        (context, error) =>
          context?.reportError(
            new GraphQLError(error.message.replace(/^Syntax Error: /, ''), { extensions: { code: 'TOO_MANY_ALIASES', limit: MAX_ALIASES } }),
          ),
      ],
    }) as Plugin,
    useRateLimiter({
      identifyFn: (context) => `key:${(context as GraphQLContext).key.id}`,
      configByField: fieldRateLimits.map((limit) => ({ ...limit, message: `Too many ${limit.field} executions: at most ${limit.max} per second per API key` })),
      store,
      transformError: (message) => new GraphQLError(message, { extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 1 } }),
    }) as Plugin,
  ];
}
