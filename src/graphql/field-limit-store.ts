// Stores for @envelop/rate-limiter that make its per-field limits exact under concurrency.
//
// The limiter reads an identity's recent call timestamps, decides, then writes them back: with any
// store used that way, concurrent calls (aliases of one query, parallel requests, other instances)
// all read "no calls yet". These stores reserve on read instead: `getForIdentity` atomically records
// this call and returns only the earlier ones, and `setForIdentity` has nothing left to do. Rejected
// calls stay counted, as they are by the limiter's default (`uncountRejected: false`). The limiter's
// per-request batch cache must be off (it would count this request's calls twice).
import { randomUUID } from 'node:crypto';
import type { Store } from '@envelop/rate-limiter';
import type { Redis } from 'ioredis';

type Identity = Parameters<Store['getForIdentity']>[0];

const keyOf = (identity: Identity) => `field-limit:{${identity.contextIdentity}}:${identity.fieldIdentity}`;

/** In this process: synchronous, so nothing can interleave between reading and recording. */
export class ReservingMemoryStore implements Store {
  private readonly calls = new Map<string, number[]>();

  constructor(private readonly windowMs: number) {}

  getForIdentity(identity: Identity): readonly number[] {
    const now = Date.now();
    const key = keyOf(identity);
    const earlier = (this.calls.get(key) ?? []).filter((t) => t + this.windowMs > now);
    this.calls.set(key, [...earlier, now]);
    if (this.calls.size > 10_000) this.sweep(now);
    return earlier;
  }

  setForIdentity(): void {}

  private sweep(now: number): void {
    for (const [key, times] of this.calls) if (!times.some((t) => t + this.windowMs > now)) this.calls.delete(key);
  }
}

const RESERVE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
local earlier = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return earlier
`;

type ReserveCommand = (key: string, now: number, windowMs: number, member: string) => Promise<string[]>;

/**
 * In Redis, shared by every instance: one script reserves atomically. If Redis does not answer,
 * the call is counted in this process instead (like the per-key quotas, an outage fails no query).
 */
export class ReservingRedisStore implements Store {
  private readonly fallback: ReservingMemoryStore;

  constructor(
    private readonly redis: Redis,
    private readonly windowMs: number,
  ) {
    this.fallback = new ReservingMemoryStore(windowMs);
    if (!(redis as unknown as { reserveFieldCall?: unknown }).reserveFieldCall) {
      redis.defineCommand('reserveFieldCall', { numberOfKeys: 1, lua: RESERVE });
    }
  }

  async getForIdentity(identity: Identity): Promise<readonly number[]> {
    const reserve = (this.redis as unknown as { reserveFieldCall: ReserveCommand }).reserveFieldCall.bind(this.redis);
    try {
      const flat = await reserve(keyOf(identity), Date.now(), this.windowMs, randomUUID());
      // [member, score, member, score, ...]
      return flat.filter((_, i) => i % 2 === 1).map(Number);
    } catch {
      return this.fallback.getForIdentity(identity);
    }
  }

  setForIdentity(): void {}
}
