// The circuit breaker in front of Redis (src/limits/redis-breaker.ts), in-process against the real
// Redis behind a relay that freezes (what a client sees of a Redis stopped by SIGSTOP): open after
// consecutive timeouts, then no waiting; a warning on each transition; a probe closes it again;
// and a script that reaches Redis after the client gave up counts nothing.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { FallbackQuotaStore } from '../../src/limits/fallback-store.js';
import { MemoryQuotaStore } from '../../src/limits/memory-store.js';
import { RedisUnavailable, redisBreaker } from '../../src/limits/redis-breaker.js';
import { createRedisClient, whenReady } from '../../src/limits/redis-client.js';
import { RedisQuotaStore } from '../../src/limits/redis-store.js';
import { createRedisRelay, redisUrl, requireRedis } from '../helpers/redis.js';

const redisAvailable = await requireRedis('Redis circuit breaker');
const STANDARD = { minute: 60, hour: 1_000, day: 10_000 };

describe.skipIf(!redisAvailable)('Redis circuit breaker', () => {
  const cleanups: Array<() => unknown> = [];
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  async function frozenSetup(options: { commandTimeoutMs: number; failureThreshold: number; cooldownMs: number }) {
    const relay = await createRedisRelay();
    cleanups.push(() => relay.close());
    const redis = createRedisClient(relay.url);
    cleanups.push(() => redis.disconnect());
    const warnings: string[] = [];
    const breaker = redisBreaker(redis, { ...options, warn: (m) => warnings.push(m) });
    expect(await whenReady(redis, 5_000)).toBe(true);
    expect(await breaker.whenClosed(5_000)).toBe(true);
    const prefix = `test-breaker-${randomUUID()}`;
    const store = new RedisQuotaStore(redis, prefix);
    const direct = new Redis(redisUrl);
    cleanups.push(() => direct.disconnect());
    const minuteCount = async (bucket: string, nowMs: number) => Number((await direct.get(`${prefix}:{${bucket}}:minute:${Math.floor(nowMs / 60_000)}`)) ?? 0);
    return { relay, redis, breaker, store, warnings, minuteCount };
  }

  it('opens after consecutive timeouts, then fails at once; probes after the cool-down and closes; warns on each transition', async () => {
    // A long command timeout, so that "at once" is far from it even on a loaded machine.
    const { relay, breaker, store, warnings } = await frozenSetup({ commandTimeoutMs: 2_000, failureThreshold: 2, cooldownMs: 300 });
    const bucket = `bucket-${randomUUID()}`;
    expect((await store.consume(bucket, STANDARD, Date.now())).allowed).toBe(true);

    relay.freeze();
    for (let i = 0; i < 2; i++) await expect(store.consume(bucket, STANDARD, Date.now())).rejects.toBeInstanceOf(RedisUnavailable);
    expect(breaker.state).toBe('open');
    expect(warnings[0]).toMatch(/^Redis circuit open \(2 consecutive failures, last: no answer within 2000 ms\)/);
    const startedAt = Date.now();
    await expect(store.consume(bucket, STANDARD, Date.now())).rejects.toThrow(/Redis circuit (open|half-open)/);
    expect(Date.now() - startedAt, 'an open circuit does not wait for Redis').toBeLessThan(1_000);

    relay.thaw();
    expect(await breaker.whenClosed(10_000)).toBe(true);
    expect(warnings).toContain('Redis circuit half-open: probing Redis');
    expect(warnings.at(-1)).toBe('Redis circuit closed: Redis answers again; quotas and field limits are shared again');
    expect((await store.consume(bucket, STANDARD, Date.now())).allowed).toBe(true);
  });

  it('a script Redis runs after the client stopped waiting counts nothing: the request counted in memory is not counted again', async () => {
    const { relay, redis, breaker, store, minuteCount } = await frozenSetup({ commandTimeoutMs: 300, failureThreshold: 100, cooldownMs: 60_000 });
    const fallback = new FallbackQuotaStore(store, new MemoryQuotaStore(), () => {});
    const bucket = `bucket-${randomUUID()}`;
    const now = Date.now();
    expect((await fallback.consume(bucket, STANDARD, now)).allowed).toBe(true);
    expect(await minuteCount(bucket, now)).toBe(1);

    relay.freeze();
    const during = await Promise.all(Array.from({ length: 5 }, () => fallback.consume(bucket, STANDARD, now)));
    expect(during.every((d) => d.allowed)).toBe(true);
    expect(fallback.usingFallback).toBe(true);
    // Let the deadlines pass for sure before Redis gets the scripts.
    await new Promise((resolve) => setTimeout(resolve, 500));
    relay.thaw();
    // Redis now runs the five scripts it was holding; a PING on the same connection answers after them.
    expect(await redis.ping()).toBe('PONG');
    expect(breaker.state).toBe('closed');
    expect(await minuteCount(bucket, now), 'only the request Redis answered in time').toBe(1);
    expect((await fallback.consume(bucket, STANDARD, now)).remaining.minute).toBe(58);
  });
});
