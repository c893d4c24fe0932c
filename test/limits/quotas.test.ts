// Per-key quotas end to end through `app.fetch` (decisions sections 1 and 5): what is counted, the
// X-RateLimit-* headers, 429 with Retry-After, fixed UTC windows on an injected clock, the tiers,
// and exactness under concurrency on one in-memory instance.
import { describe, expect, it } from 'vitest';
import { createApiKey, createApiKeyResolver } from '../../src/auth/api-keys.js';
import { createKey, graphql, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { expectError, get, request } from '../rest/client.js';
import {
  burst,
  clinicAndKey,
  expectNoQuotaHeaders,
  fakeClock,
  PREMIUM,
  quotaAfter,
  quotaOf,
  restCheap,
  retryAfterOf,
  STANDARD,
  secondsUntilBoundary,
  statuses,
  typename,
} from './support.js';

const db = testDb();

// 2026-03-10T12:34:56.789Z: inside a minute, an hour and a day.
const T0 = Date.UTC(2026, 2, 10, 12, 34, 56, 789);
const BAD_KEY = `svc_live_${'x'.repeat(40)}`;

describe('per-key quota: what counts, and the headers', () => {
  it('counts every authenticated request once, REST and GraphQL alike, whatever its status, with exact headers', async () => {
    // No campaigns:read, so that /campaigns answers 403 after counting.
    const { clinic, key } = await clinicAndKey(db, 'standard', ['interactions:read', 'clinics:read', 'metrics:read']);
    const clock = fakeClock(T0);
    const app = testApp(db, { now: clock.now });

    const counted: Array<[string, () => Promise<{ status: number; headers: Headers }>, number]> = [
      ['REST 200', () => get(app, '/api/v1/clinics', key), 200],
      ['REST 400', () => get(app, '/api/v1/clinics?limit=0', key), 400],
      ['REST 403', () => get(app, '/api/v1/campaigns', key), 403],
      ['REST 404 (by id)', () => get(app, '/api/v1/interactions/int_does_not_exist', key), 404],
      ['REST HEAD', () => request(app, '/api/v1/clinics', { method: 'HEAD', key }), 200],
      ['REST metrics', () => get(app, `/api/v1/metrics/summary?clinic_id=${clinic.id}`, key), 200],
      ['GraphQL one field', () => graphql(app, { key, query: '{ clinics { nodes { id } } }' }), 200],
      [
        'GraphQL three root fields',
        () => graphql(app, { key, query: '{ clinics { nodes { id } } interactions(limit: 1) { nodes { id } } metricsSummary { totalInteractions } }' }),
        200,
      ],
      ['GraphQL field lacking scope', () => graphql(app, { key, query: '{ clinics { nodes { id } } campaigns { nodes { id } } }' }), 200],
      ['GraphQL syntax error', () => graphql(app, { key, query: '{ clinics( }' }), 400],
    ];
    for (const [i, [label, send, status]] of counted.entries()) {
      const response = await send();
      expect(response.status, label).toBe(status);
      expect(quotaOf(response), label).toEqual(quotaAfter(STANDARD, i + 1));
    }

    // Not counted: 401s (bad, missing or malformed credentials), health probes, and a path that
    // matches no route (route comes before authentication). None carries quota headers.
    const notCounted = [
      await get(app, '/api/v1/clinics', BAD_KEY),
      await get(app, '/api/v1/clinics'),
      await request(app, '/api/v1/clinics', { authorization: `Basic ${key}` }),
      await graphql(app, { key: BAD_KEY, query: '{ __typename }' }),
      await graphql(app, { query: '{ __typename }' }),
      await app.fetch('http://localhost/health/live'),
      await get(app, '/api/v1/no-such-endpoint', key),
    ];
    expect(notCounted.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 200, 404]);
    for (const response of notCounted) expectNoQuotaHeaders(response);
    // Readiness also checks the database and its migrations (503 while not ready): either way, uncounted.
    const ready = await app.fetch('http://localhost/health/ready');
    expect([200, 503]).toContain(ready.status);
    expectNoQuotaHeaders(ready);

    const next = await typename(app, key);
    expect(next.status).toBe(200);
    expect(quotaOf(next)).toEqual(quotaAfter(STANDARD, counted.length + 1));
  });

  it('refuses the 61st request of a minute with 429 RATE_LIMITED and Retry-After, counting nothing while refused', async () => {
    const { key } = await clinicAndKey(db, 'standard');
    const clock = fakeClock(T0);
    const app = testApp(db, { now: clock.now });

    // Mixed REST and GraphQL share the one count.
    for (let i = 1; i <= 60; i++) {
      const response = i % 2 ? await typename(app, key) : await restCheap(app, key);
      expect(response.status).toBe(i % 2 ? 200 : 400);
      expect(quotaOf(response)).toEqual(quotaAfter(STANDARD, i));
    }

    // 12:34:56.789: 3.211 s to the minute boundary, rounded up.
    expect(secondsUntilBoundary('minute', clock.ms)).toBe(4);
    const rest = await get(app, '/api/v1/clinics', key);
    expectError(rest, 429, 'RATE_LIMITED', 'Rate limit exceeded');
    expect(retryAfterOf(rest)).toBe(4);
    expect(quotaOf(rest)).toEqual(quotaAfter(STANDARD, 60));

    const gql = await graphql(app, { key, query: '{ clinics { nodes { id } } }' });
    expect(gql.status).toBe(429);
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(gql.body.errors?.[0]?.message).toBe('Rate limit exceeded');
    expect(gql.body.data ?? null).toBeNull();
    expect(retryAfterOf(gql)).toBe(4);
    expect(quotaOf(gql)).toEqual(quotaAfter(STANDARD, 60));

    // Later in the same minute: still refused, Retry-After shrinks, never below 1, and the hour and
    // day counts have not moved however many requests were refused.
    for (const at of [Date.UTC(2026, 2, 10, 12, 34, 58, 0), Date.UTC(2026, 2, 10, 12, 34, 59, 1), Date.UTC(2026, 2, 10, 12, 34, 59, 999)]) {
      clock.set(at);
      for (const response of [await restCheap(app, key), await typename(app, key)]) {
        expect(response.status).toBe(429);
        expect(retryAfterOf(response)).toBe(Math.ceil((Date.UTC(2026, 2, 10, 12, 35) - at) / 1000));
        expect(quotaOf(response)).toEqual(quotaAfter(STANDARD, 60));
      }
    }
    expect(secondsUntilBoundary('minute', clock.ms)).toBe(1);

    // The next minute admits again: 60 + 1 counted in the hour and day, not 60 + the refused ones.
    clock.set(Date.UTC(2026, 2, 10, 12, 35, 0, 0));
    const admitted = await typename(app, key);
    expect(admitted.status).toBe(200);
    expect(quotaOf(admitted)).toEqual(quotaAfter(STANDARD, { minute: 1, hour: 61, day: 61 }));
  });

  it("counts per key: another key, and requests with a bad key, do not move a key's counts", async () => {
    const a = await clinicAndKey(db, 'standard');
    const b = await clinicAndKey(db, 'standard');
    const app = testApp(db, { now: fakeClock(T0).now });
    for (let i = 0; i < 5; i++) await typename(app, a.key);
    for (let i = 0; i < 7; i++) await restCheap(app, b.key);
    for (let i = 0; i < 20; i++) expect((await typename(app, BAD_KEY)).status).toBe(401);
    expect(quotaOf(await typename(app, a.key))).toEqual(quotaAfter(STANDARD, 6));
    expect(quotaOf(await typename(app, b.key))).toEqual(quotaAfter(STANDARD, 8));
  });
});

describe('per-key quota: fixed UTC windows on an injected clock', () => {
  it('opens a fresh minute at the UTC boundary while the hour and day keep counting', async () => {
    const { key } = await clinicAndKey(db, 'standard');
    const clock = fakeClock(Date.UTC(2026, 2, 10, 12, 34, 59, 0));
    const app = testApp(db, { now: clock.now });
    expect(statuses(await burst(app, key, 60))).toEqual({ 200: 30, 400: 30 });

    const refused = await typename(app, key);
    expect(refused.status).toBe(429);
    expect(retryAfterOf(refused)).toBe(1);

    clock.set(Date.UTC(2026, 2, 10, 12, 34, 59, 999));
    expect((await restCheap(app, key)).status).toBe(429);

    // Exactly at 12:35:00.000 the minute is new; the hour and day still remember the 60.
    clock.set(Date.UTC(2026, 2, 10, 12, 35, 0, 0));
    const first = await typename(app, key);
    expect(first.status).toBe(200);
    expect(quotaOf(first)).toEqual(quotaAfter(STANDARD, { minute: 1, hour: 61, day: 61 }));

    clock.set(Date.UTC(2026, 2, 10, 12, 35, 59, 999));
    const second = await restCheap(app, key);
    expect(second.status).toBe(400);
    expect(quotaOf(second)).toEqual(quotaAfter(STANDARD, { minute: 2, hour: 62, day: 62 }));

    // A new hour (13:00) resets minute and hour; the day keeps counting.
    clock.set(Date.UTC(2026, 2, 10, 13, 0, 0, 0));
    expect(quotaOf(await typename(app, key))).toEqual(quotaAfter(STANDARD, { minute: 1, hour: 1, day: 63 }));
    // A new UTC day resets all three.
    clock.set(Date.UTC(2026, 2, 11, 0, 0, 0, 0));
    expect(quotaOf(await typename(app, key))).toEqual(quotaAfter(STANDARD, 1));
  });

  it('when the hour is exhausted, Retry-After counts to the hour boundary (the latest-resetting exhausted window)', async () => {
    const { key } = await clinicAndKey(db, 'standard');
    const clock = fakeClock(Date.UTC(2026, 2, 10, 12, 0, 30, 0));
    // A caching key resolver: this test sends 1,000 requests.
    const app = testApp(db, { now: clock.now, keyResolver: createApiKeyResolver(db) });

    // 15 full minutes (900), 40 in the 16th (940), then 60 in the 17th: the minute and the hour
    // are exhausted together at 1,000.
    const perMinute = [...Array.from({ length: 15 }, () => 60), 40, 60];
    let used = 0;
    for (const [m, n] of perMinute.entries()) {
      clock.set(Date.UTC(2026, 2, 10, 12, m, 30, 0));
      const responses = await burst(app, key, n);
      expect(statuses(responses)).toEqual({ 200: n / 2, 400: n / 2 });
      used += n;
      const remainingHour = responses.map((r) => quotaOf(r)!.remaining.hour);
      expect(Math.min(...remainingHour)).toBe(STANDARD.hour - used);
    }
    expect(used).toBe(1_000);

    // 12:16:30: both windows exhausted; the hour resets last (13:00:00), 43.5 minutes away.
    const both = await get(app, '/api/v1/clinics', key);
    expectError(both, 429, 'RATE_LIMITED', 'Rate limit exceeded');
    expect(retryAfterOf(both)).toBe(43 * 60 + 30);
    expect(retryAfterOf(both)).toBe(secondsUntilBoundary('hour', clock.ms));
    expect(quotaOf(both)).toEqual(quotaAfter(STANDARD, { minute: 60, hour: 1_000, day: 1_000 }));

    // 12:17:10: the minute has room, the hour does not: still 429, Remaining-Hour 0.
    clock.set(Date.UTC(2026, 2, 10, 12, 17, 10, 0));
    const hourOnly = await graphql(app, { key, query: '{ __typename }' });
    expect(hourOnly.status).toBe(429);
    expect(hourOnly.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(retryAfterOf(hourOnly)).toBe(42 * 60 + 50);
    expect(quotaOf(hourOnly)).toEqual(quotaAfter(STANDARD, { minute: 0, hour: 1_000, day: 1_000 }));

    clock.set(Date.UTC(2026, 2, 10, 12, 59, 59, 500));
    const last = await restCheap(app, key);
    expect(last.status).toBe(429);
    expect(retryAfterOf(last)).toBe(1);

    // 13:00:00.000: a new hour; the day remembers the 1,000 admitted, none of the refused.
    clock.set(Date.UTC(2026, 2, 10, 13, 0, 0, 0));
    const admitted = await typename(app, key);
    expect(admitted.status).toBe(200);
    expect(quotaOf(admitted)).toEqual(quotaAfter(STANDARD, { minute: 1, hour: 1, day: 1_001 }));
  });
});

describe('per-key quota: tiers', () => {
  it('Premium: 300/5,000/50,000 headers, admits exactly 300 in a minute', async () => {
    const { key } = await clinicAndKey(db, 'premium');
    const clock = fakeClock(T0);
    const app = testApp(db, { now: clock.now, keyResolver: createApiKeyResolver(db) });

    const first = await get(app, '/api/v1/clinics', key);
    expect(first.status).toBe(200);
    expect(quotaOf(first)).toEqual(quotaAfter(PREMIUM, 1));
    const rest = await burst(app, key, 299);
    expect(statuses(rest)).toEqual({ 200: 150, 400: 149 });
    expect(rest.map((r) => quotaOf(r)!.remaining.minute).sort((x, y) => x - y)).toEqual(Array.from({ length: 299 }, (_, i) => i));

    const refused = await typename(app, key);
    expect(refused.status).toBe(429);
    expect(retryAfterOf(refused)).toBe(4);
    expect(quotaOf(refused)).toEqual(quotaAfter(PREMIUM, 300));
  });

  it('Unlimited: never limited, and no X-RateLimit-* headers on any response', async () => {
    const { key } = await clinicAndKey(db, 'unlimited');
    const app = testApp(db, { now: fakeClock(T0).now, keyResolver: createApiKeyResolver(db) });
    const responses = [
      ...(await Promise.all(Array.from({ length: 200 }, () => typename(app, key)))),
      ...(await Promise.all(Array.from({ length: 200 }, () => get(app, '/api/v1/clinics?limit=1', key)))),
    ];
    expect(statuses(responses)).toEqual({ 200: 400 });
    for (const response of responses) expectNoQuotaHeaders(response);
    // Errors too: 400 and 404.
    const invalid = await restCheap(app, key);
    const missing = await get(app, '/api/v1/interactions/int_does_not_exist', key);
    expect([invalid.status, missing.status]).toEqual([400, 404]);
    expectNoQuotaHeaders(invalid);
    expectNoQuotaHeaders(missing);
  });

  it('the default tier of a new key is Standard', async () => {
    const app = testApp(db, { now: fakeClock(T0).now });
    const { key } = await createApiKey(db, { name: 'default tier' });
    expect(quotaOf(await typename(app, key))).toEqual(quotaAfter(STANDARD, 1));
  });
});

describe('per-key quota: exact under concurrency on one instance', () => {
  it('admits exactly 60 of 200 concurrent requests on one Standard key, each with its own count', async () => {
    const { key } = await clinicAndKey(db, 'standard');
    const app = testApp(db, { now: fakeClock(T0).now });
    const responses = await burst(app, key, 200);
    const admitted = responses.filter((r) => r.status !== 429);
    expect(admitted).toHaveLength(60);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(140);
    // GraphQL requests answer 200, REST ones 400 (a cheap invalid page size): both are admitted.
    for (const r of admitted) expect([200, 400]).toContain(r.status);
    // Every admitted request saw a distinct count (no two were given the same slot).
    expect(admitted.map((r) => quotaOf(r)!.remaining.minute).sort((x, y) => x - y)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    for (const refused of responses.filter((r) => r.status === 429)) {
      expect(quotaOf(refused)).toEqual(quotaAfter(STANDARD, 60));
      expect(retryAfterOf(refused)).toBe(4);
    }
    // Nothing refused was counted.
    expect(quotaOf(await typename(app, key))).toEqual(quotaAfter(STANDARD, 60));
  });

  it('a key created without a clinic restriction is limited the same way', async () => {
    const key = await createKey(db, { tier: 'standard' });
    const app = testApp(db, { now: fakeClock(T0).now });
    const responses = await burst(app, key, 70);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(10);
  });
});
