// GET /api/v1/me and GraphQL `viewer` over real HTTP: what a key learns of itself (never the key),
// with no scope needed; its quotas as this request left them, equal to the rate-limit headers; and
// the same request counting like any other.
import { randomUUID } from 'node:crypto';
import { parseList } from 'structured-headers';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { type CreateApiKeyInput, createApiKey, hashApiKey } from '../../src/auth/api-keys.js';
import { testApp } from '../helpers/app.js';
import { sql, testDb } from '../helpers/db.js';
import { createClinic } from '../helpers/factories.js';
import { type HttpServer, serveOverHttp } from '../helpers/http-server.js';
import { expectNoQuotaHeaders, fakeClock, PREMIUM, quotaOf, STANDARD, secondsUntilBoundary } from '../limits/support.js';
import { expectEnvelope, expectError, expectIsoInstant, expectStatus, expectValidationError, type Json, type RestResponse } from './client.js';

const db = testDb();
// 2026-03-10T12:34:56.789Z: 3.211 s before a minute boundary.
const T0 = Date.UTC(2026, 2, 10, 12, 34, 56, 789);
const clock = fakeClock(T0);
const app = testApp(db, { now: clock.now });
let server: HttpServer;

const ME = '/api/v1/me';
const DATA_KEYS = ['id', 'name', 'prefix', 'environment', 'scopes', 'clinic_ids', 'tier', 'quota', 'expires_at', 'created_at', 'last_used_at'];
const VIEWER_QUERY = `{ viewer {
  id name prefix environment scopes clinicIds tier expiresAt createdAt lastUsedAt
  quota { minute { limit remaining resetSeconds } hour { limit remaining resetSeconds } day { limit remaining resetSeconds } }
} }`;

beforeAll(async () => {
  server = await serveOverHttp(app);
});

async function newKey(input: Partial<CreateApiKeyInput> = {}) {
  return createApiKey(db, { name: `me ${randomUUID().slice(0, 8)}`, ...input });
}

/** The quota object /me must show for a Standard-or-Premium key after `used` requests, at the clock's instant. */
function quotaAfter(limits: { minute: number; hour: number; day: number }, used: number) {
  const window = (w: 'minute' | 'hour' | 'day') => ({ limit: limits[w], remaining: limits[w] - used, reset_seconds: secondsUntilBoundary(w, clock.ms) });
  return { minute: window('minute'), hour: window('hour'), day: window('day') };
}

/** The quota of a response as its headers tell it, in /me's shape. */
function quotaFromHeaders(response: RestResponse) {
  const headers = quotaOf(response)!;
  const reset = (w: string) => Number(response.headers.get(`x-ratelimit-reset-${w}`));
  const window = (w: 'minute' | 'hour' | 'day') => ({ limit: headers.limit[w], remaining: headers.remaining[w], reset_seconds: reset(w) });
  return { minute: window('minute'), hour: window('hour'), day: window('day') };
}

/** GraphQL `viewer` in REST's spelling, to compare it with /me. */
function restSpelling(viewer: Json) {
  const window = (w: Json) => ({ limit: w.limit, remaining: w.remaining, reset_seconds: w.resetSeconds });
  return {
    id: viewer.id,
    name: viewer.name,
    prefix: viewer.prefix,
    environment: viewer.environment.toLowerCase(),
    scopes: viewer.scopes,
    clinic_ids: viewer.clinicIds,
    tier: viewer.tier.toLowerCase(),
    quota: { minute: window(viewer.quota.minute), hour: window(viewer.quota.hour), day: window(viewer.quota.day) },
    expires_at: viewer.expiresAt,
    created_at: viewer.createdAt,
    last_used_at: viewer.lastUsedAt,
  };
}

describe('GET /api/v1/me', () => {
  it('answers a key with no scopes at all: 200 with the key described, in the documented order', async () => {
    clock.set(T0);
    const { key, record } = await newKey({ tier: 'standard' });
    await sql(`UPDATE api_keys SET scopes = '{}' WHERE id = $1`, [record.id]);

    const response = await server.get(ME, key);
    expectStatus(response, 200);
    expectEnvelope(response, 'object');
    expect(Object.keys(response.body.data)).toEqual(DATA_KEYS);
    expect(response.body.data).toEqual({
      id: record.id,
      name: record.name,
      prefix: record.prefix,
      environment: 'live',
      scopes: [],
      clinic_ids: null,
      tier: 'standard',
      quota: quotaAfter(STANDARD, 1),
      expires_at: null,
      created_at: record.createdAt.toISOString(),
      last_used_at: null,
    });
    expectIsoInstant(response.body.data.created_at);
    // 12:34:56.789: 4 s (rounded up) to the minute, 25 min 4 s to the hour, 11 h 25 min 4 s to the day.
    expect(response.body.data.quota.minute.reset_seconds).toBe(4);
    expect(response.body.data.quota.hour.reset_seconds).toBe(25 * 60 + 4);
    expect(response.body.data.quota.day.reset_seconds).toBe(11 * 3600 + 25 * 60 + 4);

    // The same key may read nothing else.
    expectError(await server.get('/api/v1/clinics', key), 403, 'INSUFFICIENT_SCOPE');
  });

  it('shows a restricted key as it is: its clinics, scopes, environment, tier and expiry', async () => {
    clock.set(T0);
    const [a, b] = [await createClinic(db), await createClinic(db)];
    const expiresAt = new Date(Date.now() + 7 * 86_400_000);
    const { key, record } = await newKey({
      environment: 'test',
      scopes: ['metrics:read', 'clinics:read'],
      clinicIds: [a.id, b.id],
      tier: 'premium',
      expiresAt,
    });
    const response = await server.get(ME, key);
    expectStatus(response, 200);
    expect(response.body.data).toEqual({
      id: record.id,
      name: record.name,
      prefix: record.prefix,
      environment: 'test',
      scopes: ['metrics:read', 'clinics:read'],
      clinic_ids: [a.id, b.id],
      tier: 'premium',
      quota: quotaAfter(PREMIUM, 1),
      expires_at: expiresAt.toISOString(),
      created_at: record.createdAt.toISOString(),
      last_used_at: null,
    });
    expect(response.body.data.prefix).toMatch(/^svc_test_[0-9A-Za-z]{4}$/);
  });

  it('Unlimited tier: limit, remaining and reset_seconds are null, and no rate-limit headers', async () => {
    const { key } = await newKey({ tier: 'unlimited' });
    const response = await server.get(ME, key);
    expectStatus(response, 200);
    const none = { limit: null, remaining: null, reset_seconds: null };
    expect(response.body.data.tier).toBe('unlimited');
    expect(response.body.data.quota).toEqual({ minute: none, hour: none, day: none });
    expectNoQuotaHeaders(response);
  });

  it('counts itself: remaining goes down call by call and equals the rate-limit headers of the same response', async () => {
    clock.set(T0);
    const { key } = await newKey({ tier: 'standard' });
    const first = await server.get(ME, key);
    const expectedFirst = quotaAfter(STANDARD, 1);
    clock.advance(1_500); // 12:34:58.289: the resets move too
    const second = await server.get(ME, key);
    const expectedSecond = quotaAfter(STANDARD, 2);
    for (const [response, expected] of [
      [first, expectedFirst],
      [second, expectedSecond],
    ] as const) {
      expectStatus(response, 200);
      expect(response.body.data.quota).toEqual(expected);
      expect(response.body.data.quota).toEqual(quotaFromHeaders(response));
      // And the IETF field says the same.
      const items = parseList(response.headers.get('ratelimit')!);
      expect(items.map(([name, params]) => [name, params.get('r'), params.get('t')])).toEqual(
        (['minute', 'hour', 'day'] as const).map((w) => [w, response.body.data.quota[w].remaining, response.body.data.quota[w].reset_seconds]),
      );
    }
    expect(second.body.data.quota.minute.reset_seconds).toBe(2);
  });

  it('is a request like any other: the 61st of a minute is refused with 429', async () => {
    clock.set(T0);
    const { key } = await newKey({ tier: 'standard' });
    for (let i = 1; i <= STANDARD.minute; i++) expectStatus(await server.get(ME, key), 200);
    const refused = await server.get(ME, key);
    expectError(refused, 429, 'RATE_LIMITED');
    expect(quotaOf(refused)!.remaining.minute).toBe(0);
  });

  it('never shows the key itself, nor its hash, nor any of its random part beyond the display prefix', async () => {
    const { key, record } = await newKey({ tier: 'standard' });
    const rest = await server.get(ME, key);
    const graphql = await server.graphql(VIEWER_QUERY, key);
    for (const text of [rest.text, graphql.text]) {
      expect(text).toContain(record.prefix);
      expect(text).not.toContain(key);
      expect(text).not.toContain(hashApiKey(key));
      // Any 8 characters of the random part after the 4 the prefix shows.
      const hidden = key.slice(record.prefix.length);
      for (let i = 0; i + 8 <= hidden.length; i += 4) expect(text).not.toContain(hidden.slice(i, i + 8));
    }
  });

  it('without a key, or with a bad one: 401, uncounted, without rate-limit headers', async () => {
    const missing = await server.get(ME);
    expectError(missing, 401, 'UNAUTHORIZED');
    expectNoQuotaHeaders(missing);
    const unknown = await server.get(ME, `svc_live_${'Q'.repeat(40)}`);
    expectError(unknown, 401, 'INVALID_API_KEY');
    expectNoQuotaHeaders(unknown);
  });

  it('an unknown query parameter is a 400 VALIDATION_ERROR naming it (and it counts)', async () => {
    clock.set(T0);
    const { key } = await newKey({ tier: 'standard' });
    const response = await server.get(`${ME}?verbose=1&include=quota`, key);
    const details = expectValidationError(response, ['verbose', 'include']);
    expect(details.verbose).toMatch(/is not a parameter of this endpoint/);
    expect(quotaOf(response)!.remaining.minute).toBe(STANDARD.minute - 1);
  });

  it('last_used_at is as recorded before this request: null for a new key, then the time of its first use', async () => {
    const { key, record } = await newKey({ tier: 'standard' });
    const first = await server.get(ME, key);
    expect(first.body.data.last_used_at).toBeNull();
    // Written in the background, once a minute at most: wait for the write of the first use.
    const stored = async () => (await sql<{ t: Date | null }>('SELECT last_used_at AS t FROM api_keys WHERE id = $1', [record.id]))[0]!.t;
    await vi.waitFor(async () => expect(await stored()).not.toBeNull());
    const firstUse = (await stored())!.toISOString();
    const second = await server.get(ME, key);
    expect(second.body.data.last_used_at).toBe(firstUse);
    expectIsoInstant(second.body.data.last_used_at);
    // Within the minute the second use is not written: the stored time stays the first one's.
    expect((await server.get(ME, key)).body.data.last_used_at).toBe(firstUse);
  });
});

describe('GraphQL viewer', () => {
  it("is /me in GraphQL spelling; its quota is its own request's, as its headers say", async () => {
    clock.set(T0);
    const clinic = await createClinic(db);
    const { key } = await newKey({ tier: 'standard', scopes: ['campaigns:read'], clinicIds: [clinic.id] });
    const rest = await server.get(ME, key);
    expectStatus(rest, 200);
    // The background write of the first use, so both requests read the same last_used_at.
    await vi.waitFor(async () => expect((await server.get(ME, key)).body.data.last_used_at).not.toBeNull());
    const again = await server.get(ME, key);

    const graphql = await server.graphql(VIEWER_QUERY, key);
    expect(graphql.status).toBe(200);
    expect(graphql.body.errors).toBeUndefined();
    const viewer = restSpelling(graphql.body.data.viewer);
    const used = again.body.data.quota.minute.limit - again.body.data.quota.minute.remaining + 1;
    expect(viewer).toEqual({ ...again.body.data, quota: quotaAfter(STANDARD, used) });
    expect(viewer.quota).toEqual(quotaFromHeaders(graphql));
    expect(viewer.clinic_ids).toEqual([clinic.id]);
  });

  it('needs no scope, and gives nulls for an Unlimited-tier key', async () => {
    const { key, record } = await newKey({ tier: 'unlimited' });
    await sql(`UPDATE api_keys SET scopes = '{}' WHERE id = $1`, [record.id]);
    const response = await server.graphql('{ viewer { id scopes tier quota { minute { limit remaining resetSeconds } day { remaining } } } }', key);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: {
        viewer: {
          id: record.id,
          scopes: [],
          tier: 'UNLIMITED',
          quota: { minute: { limit: null, remaining: null, resetSeconds: null }, day: { remaining: null } },
        },
      },
    });
    expectNoQuotaHeaders(response);
  });
});
