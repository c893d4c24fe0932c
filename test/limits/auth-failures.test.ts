// Failed authentication is limited per client IP (decisions section 5, brute-force protection),
// REST and GraphQL alike, answered with 429 RATE_LIMITED and Retry-After. In-process requests have
// no peer address, so the client address comes from X-Forwarded-For with `trustProxy: true` (one
// trusted hop: the right-most entry, as a proxy in front appends it).
import { describe, expect, it } from 'vitest';
import type { AppOptions } from '../../src/app.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { clientAddressOf, proxyMatcher } from '../../src/http/app-plugins.js';
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

    // Another address is unaffected.
    expectError(await restFrom(app, '203.0.113.11'), 401, 'INVALID_API_KEY');
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

  it('a valid key from the very address that is over its failure limit is admitted, and only its own quota counts', async () => {
    const clock = fakeClock(T0);
    const app = limitedApp(clock);
    const ip = '192.0.2.52';
    const { key: unlimited } = await clinicAndKey(db, 'unlimited');
    const { key: standard } = await clinicAndKey(db, 'standard');
    for (let i = 0; i < 5; i++) expectError(await restFrom(app, ip), 401, 'INVALID_API_KEY');
    expectError(await restFrom(app, ip), 429, 'RATE_LIMITED');

    for (let i = 0; i < 3; i++) {
      const ok = await request(app, '/api/v1/clinics', { key: unlimited, headers: { 'X-Forwarded-For': ip } });
      expect(ok.status).toBe(200);
      expectNoQuotaHeaders(ok);
      expect((await graphqlFrom(app, ip, `Bearer ${unlimited}`)).status).toBe(200);
    }
    const standardOk = await request(app, '/api/v1/clinics', { key: standard, headers: { 'X-Forwarded-For': ip } });
    expect(standardOk.status).toBe(200);
    expect(quotaOf(standardOk)).toEqual(quotaAfter(STANDARD, 1));
    // The failures still refuse further failed attempts from the address.
    expectError(await restFrom(app, ip), 429, 'RATE_LIMITED');
    expect((await graphqlFrom(app, ip)).status).toBe(429);
  });

  it('behind one trusted proxy the client is the right-most X-Forwarded-For entry: rotating the first entry does not escape the limit, naming a victim does not lock the victim out', async () => {
    const app = limitedApp(fakeClock(T0));
    // The proxy appends the address it saw (192.0.2.70); what is left of it the client wrote.
    for (let i = 0; i < 5; i++) expectError(await restFrom(app, `10.9.0.${i}, 192.0.2.70`), 401, 'INVALID_API_KEY');
    expectError(await restFrom(app, '10.9.0.99, 192.0.2.70'), 429, 'RATE_LIMITED');
    expectError(await restFrom(app, '192.0.2.70'), 429, 'RATE_LIMITED');

    // An attacker (192.0.2.71) naming its victim (192.0.2.72) first spends its own allowance only.
    for (let i = 0; i < 6; i++) await restFrom(app, '192.0.2.72, 192.0.2.71');
    expectError(await restFrom(app, '192.0.2.71'), 429, 'RATE_LIMITED');
    expectError(await restFrom(app, '192.0.2.72'), 401, 'INVALID_API_KEY');
  });

  it('trusted proxies as address ranges: the right-most address outside them is the client', async () => {
    const app = limitedApp(fakeClock(T0), { trustProxy: { hops: 1, ranges: ['10.0.0.0/8', '2001:db8::/32'] } });
    // Two proxies of ours (10.1.2.3 and 2001:db8::5) in front of the peer; 192.0.2.80 is the client.
    for (let i = 0; i < 5; i++) expectError(await restFrom(app, `198.51.100.${i}, 192.0.2.80, 10.1.2.3, 2001:db8::5`), 401, 'INVALID_API_KEY');
    expectError(await restFrom(app, '198.51.100.99, 192.0.2.80, 10.1.2.3'), 429, 'RATE_LIMITED');
    expectError(await restFrom(app, '192.0.2.81, 10.1.2.3'), 401, 'INVALID_API_KEY');
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

describe('TRUST_PROXY', () => {
  it('reads false, true (one hop, as before), a hop count and address ranges, and reports every bad entry at once', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY).toEqual({ hops: 1, ranges: [] });
    expect(loadConfig({ TRUST_PROXY: '1' }).TRUST_PROXY).toEqual({ hops: 1, ranges: [] });
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toEqual({ hops: 2, ranges: [] });
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,fd00::/8' }).TRUST_PROXY).toEqual({ hops: 0, ranges: ['10.0.0.0/8', '127.0.0.1', 'fd00::/8'] });
    expect(() => loadConfig({ TRUST_PROXY: 'yes,10.0.0.0/33,300.1.1.1,99' })).toThrow(ConfigError);
    try {
      loadConfig({ TRUST_PROXY: 'yes,10.0.0.0/33,300.1.1.1,99', PORT: 'x' });
    } catch (error) {
      const problems = (error as ConfigError).problems.join('\n');
      for (const part of ['"yes"', '"10.0.0.0/33"', '"300.1.1.1"', 'hop count 99', 'PORT']) expect(problems).toContain(part);
    }
  });

  it('takes the right-most address not added by a trusted proxy, from the TCP peer inwards', () => {
    const ranges = proxyMatcher({ hops: 0, ranges: ['10.0.0.0/8', '127.0.0.1'] });
    // The peer is not a proxy: X-Forwarded-For is the client's own text and ignored.
    expect(clientAddressOf('192.0.2.1', '198.51.100.9', ranges)).toBe('198.51.100.9');
    // IPv4-mapped peers (a dual-stack listener) match IPv4 ranges.
    expect(clientAddressOf('6.6.6.6, 192.0.2.1, 10.2.3.4', '::ffff:127.0.0.1', ranges)).toBe('192.0.2.1');
    expect(clientAddressOf(undefined, '::ffff:127.0.0.1', ranges)).toBe('127.0.0.1');
    // Only proxies all the way: the left-most address (what the first proxy saw).
    expect(clientAddressOf('10.0.0.1, 10.0.0.2', '10.0.0.3', ranges)).toBe('10.0.0.1');
    const twoHops = proxyMatcher({ hops: 2, ranges: [] });
    expect(clientAddressOf('6.6.6.6, 192.0.2.1, 203.0.113.5', '127.0.0.1', twoHops)).toBe('192.0.2.1');
    // Ports and brackets some proxies add are dropped.
    expect(clientAddressOf('[2001:db8::1]:4711', '127.0.0.1', proxyMatcher(true))).toBe('2001:db8::1');
    expect(clientAddressOf('192.0.2.1:4711', '127.0.0.1', proxyMatcher(true))).toBe('192.0.2.1');
    expect(clientAddressOf('192.0.2.1', '127.0.0.1', proxyMatcher(false))).toBe('127.0.0.1');
  });
});
