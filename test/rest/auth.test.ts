// Authentication and scopes of the REST facade (decisions section 1), and the order of the checks:
// route -> authentication -> scope -> parameter validation.
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/auth/api-keys.js';
import { SCOPES, type Scope } from '../../src/domain/values.js';
import { createKey, testApp } from '../helpers/app.js';
import { sql, testDb } from '../helpers/db.js';
import { createClinic, createInteraction } from '../helpers/factories.js';
import { ENDPOINTS, expectError, expectStatus, get, pathOf, request, withQuery } from './client.js';

const db = testDb();
const app = testApp(db);

let clinicId: string;
let interactionId: string;
let key: string;

beforeAll(async () => {
  const clinic = await createClinic(db);
  clinicId = clinic.id;
  interactionId = (await createInteraction(db, { clinicId })).id;
  key = await createKey(db, { clinicIds: [clinicId] });
});

const UNAUTHORIZED_MESSAGE = /missing/i;
const BEARER_EXPECTED = /Bearer/;

function expectUnauthorized(response: Awaited<ReturnType<typeof get>>) {
  const error = expectError(response, 401, 'UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
  expect(error.message).toMatch(BEARER_EXPECTED);
  expect(Object.keys(error).sort()).toEqual(['code', 'message']);
  expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  expect(response.headers.get('www-authenticate')).not.toMatch(/error=/);
}

function expectInvalidKey(response: Awaited<ReturnType<typeof get>>) {
  const error = expectError(response, 401, 'INVALID_API_KEY', 'Invalid API key');
  expect(Object.keys(error).sort()).toEqual(['code', 'message']);
  expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b.*error="invalid_token"/);
}

function expectExpiredKey(response: Awaited<ReturnType<typeof get>>) {
  const error = expectError(response, 401, 'API_KEY_EXPIRED', 'API key has expired');
  expect(Object.keys(error).sort()).toEqual(['code', 'message']);
  expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b.*error="invalid_token"/);
}

async function keyWithId(input: { scopes?: Scope[]; expiresAt?: Date } = {}) {
  const { key: secret, record } = await createApiKey(db, { name: 'rest auth test', clinicIds: [clinicId], tier: 'unlimited', ...input });
  return { secret, id: record.id };
}

describe.each(ENDPOINTS.map((e) => [e.path, e] as const))('%s', (_path, endpoint) => {
  const path = () => pathOf(endpoint, interactionId);

  it('without an Authorization header: 401 UNAUTHORIZED with WWW-Authenticate: Bearer', async () => {
    expectUnauthorized(await get(app, path()));
  });

  it('with a header that is not "Bearer <token>": 401 UNAUTHORIZED', async () => {
    for (const authorization of ['Basic xyz', 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', 'Token abc', key, `Bearer ${key} extra`, '']) {
      const response = await request(app, path(), { authorization });
      expectUnauthorized(response);
    }
  });

  it('with an unknown key: 401 INVALID_API_KEY "Invalid API key"', async () => {
    const unknown = `svc_live_${'A'.repeat(40)}`;
    for (const token of [unknown, `svc_test_${'b'.repeat(40)}`, 'xyz', 'svc_live_short', `${key}x`, key.replace('svc_live_', 'svc_test_')]) {
      expectInvalidKey(await get(app, path(), token));
    }
  });

  it('with a revoked key: 401 INVALID_API_KEY, indistinguishable from an unknown key', async () => {
    const { secret, id } = await keyWithId();
    expectStatus(await get(app, path(), secret), 200);
    await revokeApiKey(db, id);
    const revoked = await get(app, path(), secret);
    expectInvalidKey(revoked);
    const unknown = await get(app, path(), `svc_live_${'Z'.repeat(40)}`);
    expect(revoked.body.error).toEqual(unknown.body.error);
    expect(revoked.headers.get('www-authenticate')).toBe(unknown.headers.get('www-authenticate'));
  });

  it('with an expired key: 401 API_KEY_EXPIRED "API key has expired"', async () => {
    const { secret, id } = await keyWithId({ expiresAt: new Date(Date.now() + 3_600_000) });
    expectStatus(await get(app, path(), secret), 200);
    await sql(`UPDATE api_keys SET expires_at = now() - interval '1 minute' WHERE id = $1`, [id]);
    expectExpiredKey(await get(app, path(), secret));
  });

  it(`with a key lacking ${endpoint.scope}: 403 INSUFFICIENT_SCOPE with details.required_scope`, async () => {
    const others = SCOPES.filter((s) => s !== endpoint.scope);
    const { secret } = await keyWithId({ scopes: others });
    const response = await get(app, path(), secret);
    const error = expectError(response, 403, 'INSUFFICIENT_SCOPE');
    expect(error.details).toEqual({ required_scope: endpoint.scope });
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer\b/);
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain(`scope="${endpoint.scope}"`);
  });

  it(`with only ${endpoint.scope}: 200`, async () => {
    const { secret } = await keyWithId({ scopes: [endpoint.scope] });
    expectStatus(await get(app, path(), secret), 200);
  });

  it('order of checks: a bad parameter with no key is 401, with an invalid key 401, with an expired key 401', async () => {
    const bad = withQuery(path(), 'page=0&clinicId=x');
    expectUnauthorized(await get(app, bad));
    expectUnauthorized(await request(app, bad, { authorization: 'Basic xyz' }));
    expectInvalidKey(await get(app, bad, `svc_live_${'Q'.repeat(40)}`));
    const { secret, id } = await keyWithId({ expiresAt: new Date(Date.now() + 3_600_000) });
    await sql(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    expectExpiredKey(await get(app, bad, secret));
  });

  it('order of checks: a bad parameter with a key lacking the scope is 403; with the scope 400', async () => {
    const bad = withQuery(path(), 'page=0&clinicId=x');
    const { secret } = await keyWithId({ scopes: SCOPES.filter((s) => s !== endpoint.scope) });
    expectError(await get(app, bad, secret), 403, 'INSUFFICIENT_SCOPE');
    const response = await get(app, bad, key);
    const error = expectError(response, 400, 'VALIDATION_ERROR', 'Invalid query parameters');
    expect(Object.keys(error.details).length).toBeGreaterThan(0);
  });
});

describe('authentication details', () => {
  it('the Bearer scheme is case-insensitive (RFC 6750)', async () => {
    expectStatus(await request(app, '/api/v1/clinics', { authorization: `bearer ${key}` }), 200);
    expectStatus(await request(app, '/api/v1/clinics', { authorization: `BEARER ${key}` }), 200);
  });

  it('an expiry in the future is accepted, and an expiry exactly now or earlier is not', async () => {
    const { secret, id } = await keyWithId({ expiresAt: new Date(Date.now() + 60_000) });
    expectStatus(await get(app, '/api/v1/metrics/summary', secret), 200);
    await sql(`UPDATE api_keys SET expires_at = now() - interval '1 day' WHERE id = $1`, [id]);
    expectExpiredKey(await get(app, '/api/v1/metrics/summary', secret));
  });

  it('a revoked key that has also expired is INVALID_API_KEY (revocation wins: it is unknown)', async () => {
    const { secret, id } = await keyWithId({ expiresAt: new Date(Date.now() + 60_000) });
    await sql(`UPDATE api_keys SET expires_at = now() - interval '1 day' WHERE id = $1`, [id]);
    await revokeApiKey(db, id);
    expectInvalidKey(await get(app, '/api/v1/clinics', secret));
  });

  it('a 401 carries no data and no meta', async () => {
    const response = await get(app, '/api/v1/interactions');
    expect(Object.keys(response.body)).toEqual(['success', 'error', 'request_id', 'timestamp']);
  });
});
