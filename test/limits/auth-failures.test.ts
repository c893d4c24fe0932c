// Failed authentication is limited per client IP (decisions section 5, brute-force protection),
// REST and GraphQL alike, answered with 429 RATE_LIMITED and Retry-After. In-process requests have
// no peer address, so the client address comes from X-Forwarded-For with `trustProxy: true`.
import { describe, expect, it } from 'vitest';
import type { AppOptions } from '../../src/app.js';
import { testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { expectError, request } from '../rest/client.js';
import { clinicAndKey, expectNoQuotaHeaders, fakeClock, quotaAfter, quotaOf, retryAfterOf, STANDARD, secondsUntilBoundary, typename } from './support.js';

const db = testDb();

// 2026-03-10T12:34:56.789Z: 3.211 s before a minute boundary.
const T0 = Date.UTC(2026, 2, 10, 12, 34, 56, 789);
const LIMITS = { minute: 5, hour: 100, day: 1_000 };
const BAD_KEY = `svc_live_${'b'.repeat(40)}`;

function limitedApp(clock: { now: () => Date }, options: Partial<AppOptions> = {}) {
  return testApp(db, { now: clock.now, trustProxy: true, authFailureLimits: LIMITS, ...options });
}

/** A REST request with a bad key from `ip`. */
function restFrom(app: ReturnType<typeof limitedApp>, ip: string, authorization = `Bearer ${BAD_KEY}`) {
  return request(app, '/api/v1/clinics', { authorization, headers: { 'X-Forwarded-For': ip } });
}

/** A GraphQL request with `authorization` from `ip`. */
async function graphqlFrom(app: ReturnType<typeof limitedApp>, ip: string, authorization = `Bearer ${BAD_KEY}`) {
  const response = await app.fetch('http://localhost/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization, 'X-Forwarded-For': ip },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
  const body = (await response.json()) as { data?: unknown; errors?: Array<{ message: string; extensions?: { code?: string } }> };
  return { status: response.status, headers: response.headers, body };
}

describe('failed authentication, limited per client IP', () => {
  it('REST: five bad-key requests get 401, the sixth 429 RATE_LIMITED with Retry-After; another IP is unaffected', async () => {
    const clock = fakeClock(T0);
    const app = limitedApp(clock);
    const ip = '203.0.113.10';
    for (let i = 0; i < 5; i++) expectError(await restFrom(app, ip), 401, 'INVALID_API_KEY', 'Invalid API key');

    const refused = await restFrom(app, ip);
    expectError(refused, 429, 'RATE_LIMITED', 'Rate limit exceeded');
    expect(retryAfterOf(refused)).toBe(4);
    expect(retryAfterOf(refused)).toBe(secondsUntilBoundary('minute', clock.ms));
    expectNoQuotaHeaders(refused);

    // Another address, and a proxy chain whose first (client) entry is another address.
    expectError(await restFrom(app, '203.0.113.11'), 401, 'INVALID_API_KEY');
    expectError(await restFrom(app, '203.0.113.12, 203.0.113.10'), 401, 'INVALID_API_KEY');
    // The first entry is the client: the blocked one, whatever proxies follow.
    expectError(await restFrom(app, '203.0.113.10, 10.0.0.1'), 429, 'RATE_LIMITED');
  });

  it('GraphQL: five bad-key requests get 401, the sixth is HTTP 429 with errors[0].extensions.code RATE_LIMITED', async () => {
    const clock = fakeClock(T0);
    const app = limitedApp(clock);
    const ip = '198.51.100.20';
    for (let i = 0; i < 5; i++) {
      const denied = await graphqlFrom(app, ip);
      expect(denied.status).toBe(401);
      expect(denied.body.errors?.[0]?.extensions?.code).toBe('INVALID_API_KEY');
    }
    const refused = await graphqlFrom(app, ip);
    expect(refused.status).toBe(429);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(refused.body.errors?.[0]?.message).toBe('Rate limit exceeded');
    expect(refused.body.data ?? null).toBeNull();
    expect(retryAfterOf(refused)).toBe(4);

    const other = await graphqlFrom(app, '198.51.100.21');
    expect(other.status).toBe(401);
  });

  it('every kind of failed authentication counts, on REST and GraphQL together', async () => {
    const app = limitedApp(fakeClock(T0));
    const ip = '192.0.2.30';
    expectError(await restFrom(app, ip, ''), 401, 'UNAUTHORIZED');
    expectError(await restFrom(app, ip, `Basic ${BAD_KEY}`), 401, 'UNAUTHORIZED');
    expectError(await restFrom(app, ip, 'Bearer not-a-key'), 401, 'INVALID_API_KEY');
    expect((await graphqlFrom(app, ip)).status).toBe(401);
    expect((await graphqlFrom(app, ip, '')).status).toBe(401);
    expectError(await restFrom(app, ip), 429, 'RATE_LIMITED');
    expect((await graphqlFrom(app, ip)).status).toBe(429);
  });

  it('refused attempts count nothing: the next minute allows five more, and the hour limit counts only real failures', async () => {
    const clock = fakeClock(T0);
    const app = limitedApp(clock, { authFailureLimits: { minute: 5, hour: 8, day: 1_000 } });
    const ip = '192.0.2.40';
    for (let i = 0; i < 5; i++) expect((await restFrom(app, ip)).status).toBe(401);
    for (let i = 0; i < 20; i++) expect((await restFrom(app, ip)).status).toBe(429);

    // 12:35:00.000: a new minute. Had the 20 refusals been counted, the hour (8) would be exhausted.
    clock.set(Date.UTC(2026, 2, 10, 12, 35, 0, 0));
    for (let i = 0; i < 3; i++) expectError(await restFrom(app, ip), 401, 'INVALID_API_KEY');
    // 8 failures this hour: refused until 13:00:00, the latest-resetting exhausted window.
    clock.set(Date.UTC(2026, 2, 10, 12, 35, 30, 0));
    const refused = await restFrom(app, ip);
    expectError(refused, 429, 'RATE_LIMITED');
    expect(retryAfterOf(refused)).toBe(24 * 60 + 30);

    clock.set(Date.UTC(2026, 2, 10, 13, 0, 0, 0));
    expectError(await restFrom(app, ip), 401, 'INVALID_API_KEY');
  });

  it('a valid key from another address keeps working, and its quota is not touched by the failures', async () => {
    const clock = fakeClock(T0);
    const app = limitedApp(clock);
    const { key } = await clinicAndKey(db, 'standard');
    for (let i = 0; i < 10; i++) await restFrom(app, '192.0.2.50');
    expectError(await restFrom(app, '192.0.2.50'), 429, 'RATE_LIMITED');

    const ok = await request(app, '/api/v1/clinics', { key, headers: { 'X-Forwarded-For': '192.0.2.51' } });
    expect(ok.status).toBe(200);
    expect(quotaOf(ok)).toEqual(quotaAfter(STANDARD, 1));
  });

  it('without trustProxy, X-Forwarded-For is ignored: a client cannot escape the limit by naming another address', async () => {
    const app = testApp(db, { now: fakeClock(T0).now, trustProxy: false, authFailureLimits: LIMITS });
    for (let i = 0; i < 5; i++) expect((await restFrom(app, `10.1.0.${i}`)).status).toBe(401);
    expectError(await restFrom(app, '10.1.0.99'), 429, 'RATE_LIMITED');
    expect((await graphqlFrom(app, '10.1.0.100')).status).toBe(429);
  });

  it('the limits are per app instance and off in testApp by default (sanity check of the helper)', async () => {
    const app = testApp(db, { now: fakeClock(T0).now, trustProxy: true });
    for (let i = 0; i < 40; i++) expect((await restFrom(app, '192.0.2.60')).status).toBe(401);
    // The same address on another instance with limits on starts from zero.
    const limited = limitedApp(fakeClock(T0));
    expect((await restFrom(limited, '192.0.2.60')).status).toBe(401);
    expect((await typename(limited, BAD_KEY)).status).toBe(401);
  });
});
