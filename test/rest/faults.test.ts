// Faults: the database unreachable (503 SERVICE_UNAVAILABLE with Retry-After) and unexpected errors
// (a generic 500): never a stack trace or SQL text in a body.
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createApiKeyResolver } from '../../src/auth/api-keys.js';
import { createPrismaClient } from '../../src/db/client.js';
import { createKey } from '../helpers/app.js';
import { failingInteractions, testDb } from '../helpers/db.js';
import { createClinic } from '../helpers/factories.js';

const unreachable = createPrismaClient('postgresql://postgres:x@127.0.0.1:1/nowhere', 1);
afterAll(() => unreachable.$disconnect());

async function call(app: ReturnType<typeof createApp>, path: string, key: string, init: RequestInit = {}) {
  const response = await app.fetch(`http://localhost${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...(init.headers ?? {}) } });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
}

describe('database unreachable', () => {
  it('while checking the key: 503 SERVICE_UNAVAILABLE with Retry-After, on REST and GraphQL', async () => {
    const app = createApp({ db: unreachable, keyResolver: createApiKeyResolver(unreachable, { ttlMs: 0 }) });
    const key = `svc_test_${'A'.repeat(40)}`;
    const rest = await call(app, '/api/v1/clinics', key);
    expect(rest.status).toBe(503);
    expect(rest.body).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    expect(Number(rest.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(rest.text).not.toMatch(/ECONNREFUSED|at .*\.ts|prisma/i);

    const graphql = await call(app, '/graphql', key, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ clinics { nodes { id } } }' }),
    });
    expect(graphql.status).toBe(503);
    expect(graphql.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    expect(graphql.headers.get('retry-after')).toBeTruthy();
  });

  it('while running the query: 503 on REST and SERVICE_UNAVAILABLE in GraphQL', async () => {
    const db = testDb();
    const clinic = await createClinic(db);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const app = createApp({ db: unreachable, keyResolver: createApiKeyResolver(db, { ttlMs: 0 }) });
    for (const path of ['/api/v1/interactions', '/api/v1/clinics', '/api/v1/metrics/summary']) {
      const rest = await call(app, path, key);
      expect(rest.status, path).toBe(503);
      expect(rest.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(rest.headers.get('retry-after')).toBe('5');
      expect(rest.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|prisma/i);
    }
    const graphql = await call(app, '/graphql', key, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ clinics { nodes { id } } }' }),
    });
    expect(graphql.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    expect(graphql.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
  });

  it('readiness is 503 and liveness 200', async () => {
    const app = createApp({ db: unreachable });
    expect((await app.fetch('http://localhost/health/ready')).status).toBe(503);
    expect((await app.fetch('http://localhost/health/live')).status).toBe(200);
  });
});

describe('unexpected errors', () => {
  it('are a generic 500 INTERNAL_ERROR on REST and a masked error in GraphQL', async () => {
    const db = testDb();
    const clinic = await createClinic(db);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const app = createApp({ db: failingInteractions(db), keyResolver: createApiKeyResolver(db, { ttlMs: 0 }) });
    const rest = await call(app, '/api/v1/interactions', key);
    expect(rest.status).toBe(500);
    expect(rest.body).toMatchObject({ success: false, error: { code: 'INTERNAL_ERROR', message: 'An unexpected error occurred' } });
    expect(rest.text).not.toContain('boom');
    expect(rest.body.request_id).toBe(rest.headers.get('x-request-id'));

    const graphql = await call(app, '/graphql', key, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ interactions { nodes { id } } clinics { nodes { id } } }' }),
    });
    expect(graphql.body.errors[0].extensions.code).toBe('INTERNAL_ERROR');
    expect(graphql.text).not.toContain('boom');
    expect(graphql.body.data.clinics.nodes).toEqual([{ id: clinic.id }]);
  });
});

describe('paths ending in /health', () => {
  it('are not answered by a built-in health check: the REST rules apply', async () => {
    const app = createApp({ db: testDb() });
    for (const path of ['/api/v1/interactions/health', '/api/v1/clinics?x=/health', '/health']) {
      const response = await app.fetch(`http://localhost${path}`);
      expect(response.status, path).toBe(path === '/api/v1/interactions/health' || path.startsWith('/api/v1/clinics') ? 401 : 404);
      expect((await response.json()).success, path).toBe(false);
    }
  });
});

describe('a failure of the key lookup that is not the database', () => {
  it('is a 500 in the envelope (REST) or a GraphQL error, never a stack trace', async () => {
    const db = testDb();
    const broken = { resolve: () => Promise.reject(new Error('boom in resolver')), clear: () => {} };
    const app = createApp({ db, keyResolver: broken });
    const key = `svc_test_${'B'.repeat(40)}`;
    const rest = await call(app, '/api/v1/clinics', key);
    expect(rest.status).toBe(500);
    expect(rest.body).toMatchObject({ success: false, error: { code: 'INTERNAL_ERROR' } });
    expect(rest.body.request_id).toBe(rest.headers.get('x-request-id'));
    expect(rest.text).not.toContain('boom');
    const graphql = await call(app, '/graphql', key, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(graphql.status).toBe(500);
    expect(graphql.body.errors[0].extensions.code).toBe('INTERNAL_ERROR');
    expect(graphql.text).not.toContain('boom');
  });
});
