import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { FallbackQuotaStore } from '../../src/limits/fallback-store.js';
import { MemoryQuotaStore } from '../../src/limits/memory-store.js';
import { createRedisClient, whenReady } from '../../src/limits/redis-client.js';
import { RedisQuotaStore } from '../../src/limits/redis-store.js';
import type { QuotaStore } from '../../src/limits/windows.js';
import { createRedisRelay, redisUrl, requireRedis } from '../helpers/redis.js';

const STANDARD = { minute: 60, hour: 1_000, day: 10_000 };
// 2026-03-10T12:34:56.789Z: inside a minute, hour and day.
const T0 = Date.UTC(2026, 2, 10, 12, 34, 56, 789);

async function burst(stores: QuotaStore[], bucket: string, n: number, nowMs: number) {
  const decisions = await Promise.all(Array.from({ length: n }, (_, i) => stores[i % stores.length]!.consume(bucket, STANDARD, nowMs)));
  return decisions;
}

describe('in-memory quota store', () => {
  it('admits exactly the minute limit out of 200 concurrent requests, and the rejected ones count nothing', async () => {
    const store = new MemoryQuotaStore();
    const decisions = await burst([store], 'k', 200, T0);
    expect(decisions.filter((d) => d.allowed)).toHaveLength(60);
    expect(store.countsOf('k', T0)).toEqual({ minute: 60, hour: 60, day: 60 });
    const rejected = decisions.find((d) => !d.allowed)!;
    expect(rejected.remaining).toEqual({ minute: 0, hour: 940, day: 9_940 });
    // 56.789 s into the minute: 3.211 s left, rounded up.
    expect(rejected.retryAfterSeconds).toBe(4);
  });

  it('reports remaining counts after n requests', async () => {
    const store = new MemoryQuotaStore();
    const decisions = await burst([store], 'k', 7, T0);
    expect(decisions.at(-1)!.remaining).toEqual({ minute: 53, hour: 993, day: 9_993 });
    expect(decisions.at(-1)!.limits).toEqual(STANDARD);
  });

  it('opens a fresh minute at the UTC boundary while the hour and day keep counting', async () => {
    const store = new MemoryQuotaStore();
    const endOfMinute = Date.UTC(2026, 2, 10, 12, 34, 59, 999);
    await burst([store], 'k', 61, endOfMinute);
    expect((await store.consume('k', STANDARD, endOfMinute)).allowed).toBe(false);
    const next = await store.consume('k', STANDARD, endOfMinute + 1);
    expect(next.allowed).toBe(true);
    expect(next.remaining).toEqual({ minute: 59, hour: 939, day: 9_939 });
  });

  it('rejects while any window is exhausted and names the latest reset', async () => {
    const store = new MemoryQuotaStore();
    const tight = { minute: 5, hour: 6, day: 100 };
    for (let i = 0; i < 5; i++) expect((await store.consume('k', tight, T0)).allowed).toBe(true);
    const nextMinute = T0 + 60_000;
    expect((await store.consume('k', tight, nextMinute)).allowed).toBe(true);
    const blocked = await store.consume('k', tight, nextMinute);
    expect(blocked.allowed).toBe(false);
    expect(blocked.remaining.hour).toBe(0);
    // The hour window (12:00-13:00) resets at 13:00:00; now is 12:35:56.789.
    expect(blocked.retryAfterSeconds).toBe(Math.ceil((Date.UTC(2026, 2, 10, 13) - nextMinute) / 1000));
  });
});

const redisAvailable = await requireRedis('Redis quota store');

describe.skipIf(!redisAvailable)('Redis quota store', () => {
  const clients: Array<{ disconnect(): void }> = [];
  afterAll(() => {
    for (const c of clients) c.disconnect();
  });
  const store = async (url = redisUrl, prefix = `test-quota-${randomUUID()}`) => {
    const redis = createRedisClient(url);
    clients.push(redis);
    expect(await whenReady(redis)).toBe(true);
    return new RedisQuotaStore(redis, prefix);
  };

  it('two instances sharing Redis admit exactly 60 of 200 concurrent requests', async () => {
    const prefixless = `bucket-${randomUUID()}`;
    const prefix = `test-quota-${randomUUID()}`;
    const a = await store(redisUrl, prefix);
    const b = await store(redisUrl, prefix);
    const decisions = await burst([a, b], prefixless, 200, Date.now());
    expect(decisions.filter((d) => d.allowed)).toHaveLength(60);
    const last = await a.consume(prefixless, STANDARD, Date.now());
    expect(last.allowed).toBe(false);
    expect(last.remaining.hour).toBe(940);
  });

  // Timers run before I/O callbacks in an event-loop turn: after the loop was busy for longer than
  // the command timeout, the timer fires while Redis's reply already sits in the socket buffer.
  // That command was answered (and counted in Redis): it must not fail, or the memory fallback
  // would count it again.
  it('a busy event loop does not fail a command whose reply has arrived: it counts once, in Redis', async () => {
    const prefix = `test-quota-${randomUUID()}`;
    const shared = await store(redisUrl, prefix);
    const bucket = `bucket-${randomUUID()}`;
    const now = Date.now();
    // A first command, so the script is loaded and the connection warm.
    expect((await shared.consume(bucket, STANDARD, now)).allowed).toBe(true);
    const pending = shared.consume(bucket, STANDARD, now);
    // Busy for well over the 500 ms command timeout; Redis answers meanwhile.
    const busyUntil = Date.now() + 1_200;
    while (Date.now() < busyUntil) {}
    const decision = await pending;
    expect(decision.allowed).toBe(true);
    expect(decision.remaining.minute).toBe(58);
  });

  it('falls back to memory when Redis goes away, without failing, and returns to Redis', async () => {
    const relay = await createRedisRelay();
    const warnings: string[] = [];
    const shared = await store(relay.url);
    const fallback = new FallbackQuotaStore(shared, new MemoryQuotaStore(), (m) => warnings.push(m));
    const bucket = `bucket-${randomUUID()}`;
    const now = Date.now();
    expect((await fallback.consume(bucket, STANDARD, now)).allowed).toBe(true);
    expect(fallback.usingFallback).toBe(false);

    relay.cut();
    const during = await burst([fallback], bucket, 100, now);
    expect(fallback.usingFallback).toBe(true);
    expect(during.filter((d) => d.allowed)).toHaveLength(60);
    expect(warnings[0]).toMatch(/Redis unreachable/);

    await relay.restore();
    let back = false;
    for (let i = 0; i < 50 && !back; i++) {
      await new Promise((r) => setTimeout(r, 100));
      await fallback.consume(bucket, STANDARD, now);
      back = !fallback.usingFallback;
    }
    expect(back).toBe(true);
    expect(warnings.at(-1)).toMatch(/reachable again/);
    await relay.close();
  });
});
