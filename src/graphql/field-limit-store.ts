// Stores for @envelop/rate-limiter that make its per-field limits exact under concurrency, and
// bounded in what one request can cost.
//
// The limiter reads an identity's recent call timestamps, decides, then writes them back: with any
// store used that way, concurrent calls (aliases of one query, parallel requests, other instances)
// all read "no calls yet". These stores reserve on read instead: `getForIdentity` atomically records
// this call and returns only the earlier ones, and `setForIdentity` has nothing left to do. Rejected
// calls stay counted, as they are by the limiter's default (`uncountRejected: false`). The limiter's
// per-request batch cache must be off (it would count this request's calls twice).
//
// Bounds: the limiter asks once per matching field node. `batch` collects every call one request
// makes (the limiter asks synchronously while it visits the document) into one Redis script. And
// an identity never keeps more than its field's `max` newest calls: the decision "at least max
// earlier calls in the window" is the same with only the newest max kept (if max calls are in the
// window, the newest max are), so a request repeating a field 300 times stores max entries, not 300.
import { randomUUID } from 'node:crypto';
import type { Store } from '@envelop/rate-limiter';
import type { Redis } from 'ioredis';
import { DEADLINE_GUARD, redisBreaker } from '../limits/redis-breaker.js';

type Identity = Parameters<Store['getForIdentity']>[0];

/** The `max` of a field identity's limit (identities are field names: no identityArgs are used). */
export type MaxOf = (fieldIdentity: string) => number;

export interface FieldLimitStore extends Store {
  /** Runs `visit` (the limiter's synchronous pass over a document); its calls go out as one batch. */
  batch<T>(visit: () => T): T;
}

const keyOf = (identity: Identity) => `field-limit:{${identity.contextIdentity}}:${identity.fieldIdentity}`;

/** In this process: synchronous, so nothing can interleave between reading and recording. */
export class ReservingMemoryStore implements FieldLimitStore {
  private readonly calls = new Map<string, number[]>();

  constructor(
    private readonly windowMs: number,
    private readonly maxOf: MaxOf,
  ) {}

  batch<T>(visit: () => T): T {
    return visit();
  }

  getForIdentity(identity: Identity): readonly number[] {
    const now = Date.now();
    const key = keyOf(identity);
    const earlier = (this.calls.get(key) ?? []).filter((t) => t + this.windowMs > now);
    this.calls.set(key, [...earlier, now].slice(-Math.max(1, this.maxOf(identity.fieldIdentity))));
    if (this.calls.size > 10_000) this.sweep(now);
    return earlier;
  }

  setForIdentity(): void {}

  private sweep(now: number): void {
    for (const [key, times] of this.calls) if (!times.some((t) => t + this.windowMs > now)) this.calls.delete(key);
  }
}

// KEYS: the batch's identities (one hash tag: one Cluster slot). ARGV: deadline (DEADLINE_GUARD),
// now, window, a unique member prefix, then per key: calls in this batch, max kept.
// Returns per key the calls already in the window before this batch.
const RESERVE_BATCH = `${DEADLINE_GUARD}
local now = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local earlier = {}
for i, key in ipairs(KEYS) do
  local calls = tonumber(ARGV[3 + 2 * i])
  local max = tonumber(ARGV[4 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  earlier[i] = redis.call('ZCARD', key)
  for j = 1, math.min(calls, max) do redis.call('ZADD', key, now, ARGV[4] .. ':' .. i .. ':' .. j) end
  redis.call('ZREMRANGEBYRANK', key, 0, -(max + 1))
  redis.call('PEXPIRE', key, window)
end
return earlier
`;

type ReserveCommand = (...keysThenArgs: Array<string | number>) => Promise<number[]>;

interface PendingCall {
  identity: Identity;
  resolve: (earlier: readonly number[]) => void;
}

/**
 * In Redis, shared by every instance: one script per request reserves all its calls atomically. If
 * Redis does not answer (or its circuit breaker is open), the calls are counted in this process
 * instead (like the per-key quotas, an outage fails no query).
 */
export class ReservingRedisStore implements FieldLimitStore {
  private readonly fallback: ReservingMemoryStore;
  private collecting: PendingCall[] | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly windowMs: number,
    private readonly maxOf: MaxOf,
  ) {
    this.fallback = new ReservingMemoryStore(windowMs, maxOf);
    if (!(redis as unknown as { reserveFieldCalls?: unknown }).reserveFieldCalls) {
      redis.defineCommand('reserveFieldCalls', { lua: RESERVE_BATCH });
    }
  }

  batch<T>(visit: () => T): T {
    const calls: PendingCall[] = [];
    this.collecting = calls;
    try {
      return visit();
    } finally {
      this.collecting = undefined;
      if (calls.length > 0) void this.reserve(calls);
    }
  }

  getForIdentity(identity: Identity): Promise<readonly number[]> {
    return new Promise((resolve) => {
      const call = { identity, resolve };
      if (this.collecting) this.collecting.push(call);
      else void this.reserve([call]);
    });
  }

  setForIdentity(): void {}

  private async reserve(calls: PendingCall[]): Promise<void> {
    const byContext = new Map<string, PendingCall[]>();
    for (const call of calls) {
      const group = byContext.get(call.identity.contextIdentity);
      if (group) group.push(call);
      else byContext.set(call.identity.contextIdentity, [call]);
    }
    await Promise.all([...byContext.values()].map((group) => this.reserveOneContext(group)));
  }

  private async reserveOneContext(calls: PendingCall[]): Promise<void> {
    const byKey = new Map<string, PendingCall[]>();
    for (const call of calls) {
      const key = keyOf(call.identity);
      const group = byKey.get(key);
      if (group) group.push(call);
      else byKey.set(key, [call]);
    }
    const keys = [...byKey.keys()];
    const groups = [...byKey.values()];
    const maxes = groups.map((group) => Math.max(1, this.maxOf(group[0]!.identity.fieldIdentity)));
    const now = Date.now();
    const reserveCalls = (this.redis as unknown as { reserveFieldCalls: ReserveCommand }).reserveFieldCalls.bind(this.redis);
    let earlier: number[];
    try {
      earlier = await redisBreaker(this.redis).run((deadline) =>
        reserveCalls(keys.length, ...keys, deadline, now, this.windowMs, randomUUID(), ...groups.flatMap((group, i) => [group.length, maxes[i]!])),
      );
    } catch {
      for (const call of calls) call.resolve(this.fallback.getForIdentity(call.identity));
      return;
    }
    // The limiter only counts the timestamps it gets (all within the window): the n-th call of
    // this batch to a field saw the earlier calls plus the n-1 before it here, as one at a time would.
    for (const [i, group] of groups.entries()) {
      for (const [n, call] of group.entries()) call.resolve(new Array<number>(Math.min(earlier[i]! + n, maxes[i]!)).fill(now));
    }
  }
}
