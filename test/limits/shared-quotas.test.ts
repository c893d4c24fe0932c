// Per-key quotas shared through Redis by several app instances, end to end through `app.fetch`
// (decisions section 5): exact across instances, and a Redis outage in the middle of a run turns
// into per-instance in-memory limiting with a warning, never into 5xx; counts are shared again
// once Redis is back. Skipped, saying so, when no Redis is reachable (CI has one: REDIS_URL).
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { FallbackQuotaStore } from '../../src/limits/fallback-store.js';
import { MemoryQuotaStore } from '../../src/limits/memory-store.js';
import { redisBreaker } from '../../src/limits/redis-breaker.js';
import { createRedisClient, whenReady } from '../../src/limits/redis-client.js';
import { RedisQuotaStore } from '../../src/limits/redis-store.js';
import { testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createRedisRelay, redisUrl, requireRedis } from '../helpers/redis.js';
import { burst, clinicAndKey, fakeClock, quotaAfter, quotaOf, restCheap, retryAfterOf, STANDARD, statuses, typename } from './support.js';

const db = testDb();
const redisAvailable = await requireRedis('quotas shared through Redis, end to end');

// 2026-03-10T12:34:56.789Z. Counters are keyed by window index, and every test uses its own prefix.
const T0 = Date.UTC(2026, 2, 10, 12, 34, 56, 789);

describe.skipIf(!redisAvailable)('quotas shared through Redis by two app instances', () => {
  const clients: Redis[] = [];
  afterAll(() => {
    for (const client of clients) client.disconnect();
  });

  async function redisClient(url: string): Promise<Redis> {
    const client = createRedisClient(url);
    clients.push(client);
    expect(await whenReady(client, 5_000), `Redis ready at ${url}`).toBe(true);
    return client;
  }

  /** Waits (events, not a deadline to meet) until every client has noticed that its connection is gone. */
  async function lostConnection(...redis: Redis[]): Promise<void> {
    for (let i = 0; i < 200 && redis.some((r) => r.status === 'ready'); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(redis.map((r) => r.status)).not.toContain('ready');
  }

  /** An instance as server.ts builds it: Redis first, this instance's memory when Redis fails. */
  async function instance(url: string, prefix: string, now: () => Date, warnings: string[]) {
    const redis = await redisClient(url);
    const store = new FallbackQuotaStore(new RedisQuotaStore(redis, prefix), new MemoryQuotaStore(), (m) => warnings.push(m));
    return { app: testApp(db, { now, quotaStore: store }), store, redis, warnings };
  }

  it('admits exactly 60 of 200 concurrent requests spread over two instances', async () => {
    const { key } = await clinicAndKey(db, 'standard');
    const prefix = `test-e2e-quota-${randomUUID()}`;
    const clock = fakeClock(T0);
    const warnings: string[] = [];
    const a = await instance(redisUrl, prefix, clock.now, warnings);
    const b = await instance(redisUrl, prefix, clock.now, warnings);

    const responses = await Promise.all([burst(a.app, key, 100), burst(b.app, key, 100)]).then(([x, y]) => [...x, ...y]);
    const admitted = responses.filter((r) => r.status !== 429);
    expect(admitted).toHaveLength(60);
    for (const r of admitted) expect([200, 400]).toContain(r.status);
    // One count for both: the admitted requests of both instances saw 60 distinct counts.
    expect(admitted.map((r) => quotaOf(r)!.remaining.minute).sort((x, y) => x - y)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    for (const refused of responses.filter((r) => r.status === 429)) {
      expect(quotaOf(refused)).toEqual(quotaAfter(STANDARD, 60));
      expect(retryAfterOf(refused)).toBe(4);
    }
    expect(warnings).toEqual([]);
    expect(a.store.usingFallback || b.store.usingFallback).toBe(false);

    // The next minute, on both: the hour and day counts are shared too.
    clock.set(Date.UTC(2026, 2, 10, 12, 35, 0, 0));
    expect(quotaOf(await typename(a.app, key))).toEqual(quotaAfter(STANDARD, { minute: 1, hour: 61, day: 61 }));
    expect(quotaOf(await typename(b.app, key))).toEqual(quotaAfter(STANDARD, { minute: 2, hour: 62, day: 62 }));
  });

  it('Redis lost mid-run: no 5xx, each instance limits on its own from memory, a warning; shared again once Redis is back', async () => {
    const relay = await createRedisRelay();
    try {
      const { key } = await clinicAndKey(db, 'standard');
      const prefix = `test-e2e-quota-${randomUUID()}`;
      const clock = fakeClock(T0);
      const a = await instance(relay.url, prefix, clock.now, []);
      const b = await instance(relay.url, prefix, clock.now, []);
      const all: Array<{ status: number; headers: Headers }> = [];

      // Before the cut: 10 on each instance, one shared count of 20.
      const before = [...(await burst(a.app, key, 10)), ...(await burst(b.app, key, 10))];
      all.push(...before);
      expect(before.filter((r) => r.status === 429)).toHaveLength(0);
      expect(quotaOf(await typename(a.app, key))).toEqual(quotaAfter(STANDARD, 21));
      expect(quotaOf(await typename(b.app, key))).toEqual(quotaAfter(STANDARD, 22));

      relay.cut();

      // After the cut: 100 more on each instance, in bursts of 10 (same minute).
      const afterCut = { a: [] as Array<{ status: number; headers: Headers }>, b: [] as Array<{ status: number; headers: Headers }> };
      for (let round = 0; round < 10; round++) {
        const [ra, rb] = await Promise.all([burst(a.app, key, 10), burst(b.app, key, 10)]);
        afterCut.a.push(...ra);
        afterCut.b.push(...rb);
      }
      all.push(...afterCut.a, ...afterCut.b);

      // Never a 5xx (nor anything but admitted or refused).
      for (const r of all) expect([200, 400, 429]).toContain(r.status);
      for (const [name, inst, responses] of [
        ['a', a, afterCut.a],
        ['b', b, afterCut.b],
      ] as const) {
        const admitted = responses.filter((r) => r.status !== 429);
        // Counted from this instance's memory, which knew nothing of the 22 counted in Redis:
        // each instance admits its own 60 of the minute, and no more.
        expect(admitted.length, `instance ${name} admitted`).toBe(60);
        expect(admitted.map((r) => quotaOf(r)!.remaining.minute).sort((x, y) => x - y)).toEqual(Array.from({ length: 60 }, (_, i) => i));
        for (const refused of responses.filter((r) => r.status === 429)) expect(retryAfterOf(refused)).toBe(4);
        expect(inst.store.usingFallback, `instance ${name} on its memory fallback`).toBe(true);
        expect(inst.warnings, `instance ${name} warned once`).toHaveLength(1);
        expect(inst.warnings[0]).toMatch(/^Redis unreachable \(.+\): quotas are counted in memory per instance until it returns$/);
      }

      await lostConnection(a.redis, b.redis);
      // Redis back: both clients reconnect, and the instances count in Redis again, where the
      // 22 of before the cut are still this minute's count.
      await relay.restore();
      expect(await whenReady(a.redis, 10_000), 'instance a reconnected').toBe(true);
      expect(await whenReady(b.redis, 10_000), 'instance b reconnected').toBe(true);
      for (const inst of [a, b]) expect(await redisBreaker(inst.redis).whenClosed(10_000), 'circuit closed again').toBe(true);
      const backA = await typename(a.app, key);
      const backB = await typename(b.app, key);
      expect(backA.status).toBe(200);
      expect(backB.status).toBe(200);
      expect(quotaOf(backA)).toEqual(quotaAfter(STANDARD, 23));
      expect(quotaOf(backB)).toEqual(quotaAfter(STANDARD, 24));
      for (const inst of [a, b]) {
        expect(inst.store.usingFallback).toBe(false);
        expect(inst.warnings.at(-1)).toMatch(/reachable again/);
      }
    } finally {
      await relay.close();
    }
  });

  it('Redis lost while requests are in flight: every response is admitted or refused, never a 5xx, and no instance exceeds its own 60', async () => {
    const relay = await createRedisRelay();
    try {
      const { key } = await clinicAndKey(db, 'standard');
      const prefix = `test-e2e-quota-${randomUUID()}`;
      const clock = fakeClock(T0);
      const a = await instance(relay.url, prefix, clock.now, []);
      const b = await instance(relay.url, prefix, clock.now, []);
      // 150 requests on each instance at once; the connection is cut as soon as the first answer
      // comes back, with the others still on their way.
      let cut = false;
      const cutOnFirst = (response: { status: number; headers: Headers }) => {
        if (!cut) {
          cut = true;
          relay.cut();
        }
        return response;
      };
      const send = (app: App) =>
        Promise.all(
          Array.from(
            { length: 150 },
            (_, i): Promise<{ status: number; headers: Headers }> => (i % 2 ? typename(app, key) : restCheap(app, key)).then(cutOnFirst),
          ),
        );
      const [ra, rb] = await Promise.all([send(a.app), send(b.app)]);
      expect(cut).toBe(true);
      for (const r of [...ra, ...rb]) expect([200, 400, 429]).toContain(r.status);
      // At most 60 counted in Redis before the cut, plus at most 60 per instance from its memory.
      const admittedA = ra.filter((r) => r.status !== 429).length;
      const admittedB = rb.filter((r) => r.status !== 429).length;
      expect(admittedA + admittedB).toBeLessThanOrEqual(60 + 2 * 60);

      // Whatever went through Redis before the cut, from now on each instance counts in its own
      // memory, which holds at most 60 for this minute: 70 more on each admit at most 60.
      await lostConnection(a.redis, b.redis);
      for (const [name, inst] of [
        ['a', a],
        ['b', b],
      ] as const) {
        const more = await burst(inst.app, key, 70);
        for (const r of more) expect([200, 400, 429]).toContain(r.status);
        expect(more.filter((r) => r.status === 429).length, `instance ${name} refused`).toBeGreaterThanOrEqual(10);
        expect(inst.store.usingFallback, `instance ${name} on its memory fallback`).toBe(true);
        expect(inst.warnings[0]).toMatch(/^Redis unreachable/);
        const refused = await typename(inst.app, key);
        expect(refused.status).toBe(429);
        expect(quotaOf(refused)).toEqual(quotaAfter(STANDARD, 60));
      }
    } finally {
      await relay.close();
    }
  });

  it('the shared count is exact again after the outage: two instances admit the rest of the minute, no more', async () => {
    const relay = await createRedisRelay();
    try {
      const { key } = await clinicAndKey(db, 'standard');
      const prefix = `test-e2e-quota-${randomUUID()}`;
      const clock = fakeClock(T0);
      const a = await instance(relay.url, prefix, clock.now, []);
      const b = await instance(relay.url, prefix, clock.now, []);
      expect(statuses(await burst(a.app, key, 30))).toEqual({ 200: 15, 400: 15 });
      relay.cut();
      await burst(b.app, key, 5);
      expect(b.store.usingFallback).toBe(true);
      // Instance a sent nothing meanwhile: let its client notice the lost connection before
      // Redis comes back, or it would still look ready from before the cut.
      await lostConnection(a.redis, b.redis);
      await relay.restore();
      expect(await whenReady(a.redis, 10_000)).toBe(true);
      expect(await whenReady(b.redis, 10_000)).toBe(true);
      // b's failures opened its circuit breaker: it uses Redis again once its probe has answered.
      expect(await redisBreaker(b.redis).whenClosed(10_000)).toBe(true);

      // 30 counted in Redis (the 5 of the outage were counted in b's memory only): 30 left.
      const responses = await Promise.all([burst(a.app, key, 50), burst(b.app, key, 50)]).then(([x, y]) => [...x, ...y]);
      expect(responses.filter((r) => r.status !== 429)).toHaveLength(30);
      expect(responses.filter((r) => r.status === 429)).toHaveLength(70);
    } finally {
      await relay.close();
    }
  });
});
