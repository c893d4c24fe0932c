// Quota counters in Redis, shared by every instance. One server-side script per request reads the
// three windows, and increments all three only if all have room: atomic across instances.
// (rate-limiter-flexible's union consumes every limiter even when one rejects, and
// @envelop/rate-limiter's read-then-write is not atomic; see stack-facts.)
// Every call goes through the connection's circuit breaker: a script the client stopped waiting
// for does nothing when Redis runs it late (DEADLINE_GUARD), so no request counts both here and
// in the memory fallback.
import type { Redis } from 'ioredis';
import { DEADLINE_GUARD, redisBreaker } from './redis-breaker.js';
import { decide, type PerWindow, type QuotaStore, WINDOW_MS, WINDOWS, windowIndex } from './windows.js';

// ARGV: deadline, then the three limits, then the three TTLs.
const CONSUME = `${DEADLINE_GUARD}
local counts = {}
for i = 1, 3 do counts[i] = tonumber(redis.call('GET', KEYS[i]) or '0') end
for i = 1, 3 do
  if counts[i] >= tonumber(ARGV[i + 1]) then return {0, counts[1], counts[2], counts[3]} end
end
for i = 1, 3 do
  counts[i] = redis.call('INCR', KEYS[i])
  if counts[i] == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[i + 4]) end
end
return {1, counts[1], counts[2], counts[3]}
`;

type ConsumeCommand = (k1: string, k2: string, k3: string, deadline: number, ...args: number[]) => Promise<[number, number, number, number]>;

export class RedisQuotaStore implements QuotaStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'quota',
  ) {
    if (!(redis as unknown as { consumeQuotaBefore?: unknown }).consumeQuotaBefore) {
      redis.defineCommand('consumeQuotaBefore', { numberOfKeys: 3, lua: CONSUME });
    }
  }

  async consume(bucket: string, limits: PerWindow<number>, nowMs: number) {
    // The hash tag keeps a bucket's three counters in one Redis Cluster slot, as a script requires.
    const keys = WINDOWS.map((w) => `${this.prefix}:{${bucket}}:${w}:${windowIndex(w, nowMs)}`) as [string, string, string];
    const ttls = WINDOWS.map((w) => WINDOW_MS[w] + 60_000);
    const consume = (this.redis as unknown as { consumeQuotaBefore: ConsumeCommand }).consumeQuotaBefore.bind(this.redis);
    const [allowed, minute, hour, day] = await redisBreaker(this.redis).run((deadline) =>
      consume(...keys, deadline, limits.minute, limits.hour, limits.day, ...ttls),
    );
    return decide(allowed === 1, { minute, hour, day }, limits, nowMs);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
