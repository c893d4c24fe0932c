// GET /metrics: absent (404) without METRICS_TOKEN, 401 without the right bearer token, Prometheus
// text with it; counters that follow the traffic (routes as patterns, admission decisions by tier,
// unexpected errors, health checks); never rate limited nor counted in a key's quota.
import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { createApiKeyResolver } from '../../src/auth/api-keys.js';
import { createPrismaClient, SQL_POOL } from '../../src/db/client.js';
import { createMetrics, tokenMatches } from '../../src/http/app-plugins.js';
import { MemoryQuotaStore } from '../../src/limits/memory-store.js';
import type { QuotaStore } from '../../src/limits/windows.js';
import { graphql, testApp } from '../helpers/app.js';
import { databaseUrl, failingInteractions, testDb } from '../helpers/db.js';
import { createClinic } from '../helpers/factories.js';
import { request } from '../rest/client.js';
import { captureLog, createKeyWithId, sample } from './support.js';

const TOKEN = 'metrics-token-for-tests-0123456789';

function quietApp(options: Parameters<typeof testApp>[1] = {}): App {
  return testApp(testDb(), { logger: captureLog('info').logger, metricsToken: TOKEN, ...options });
}

async function scrape(app: App): Promise<string> {
  const response = await app.fetch('http://localhost/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  return response.text();
}

/** Per-key quotas far smaller than the tiers' (the store is told the limits; it applies these). */
function tinyQuotas(limits = { minute: 2, hour: 100, day: 100 }): QuotaStore {
  const inner = new MemoryQuotaStore();
  return { consume: (bucket, _limits, nowMs) => inner.consume(bucket, limits, nowMs), close: () => inner.close() };
}

describe('the /metrics endpoint', () => {
  it('is a 404 like any unknown path when METRICS_TOKEN is not configured, whatever the token', async () => {
    const app = testApp(testDb(), { logger: captureLog('info').logger });
    const response = await request(app, '/metrics', { authorization: `Bearer ${TOKEN}` });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND', message: 'No endpoint at /metrics' } });
    expect((await request(app, '/metrics')).status).toBe(404);
  });

  it('answers 401 without the right bearer token (including an API key), 200 Prometheus text with it', async () => {
    const db = testDb();
    const { key } = await createKeyWithId(db);
    const app = quietApp();
    for (const authorization of [
      undefined,
      'Bearer wrong-token',
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      TOKEN,
      `Basic ${TOKEN}`,
      `Bearer ${key}`,
    ]) {
      const response = await request(app, '/metrics', { authorization });
      expect(response.status, String(authorization)).toBe(401);
      expect(response.body.error.code).toBe('UNAUTHORIZED');
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(response.text).not.toContain('http_requests_total');
    }
    const ok = await app.fetch('http://localhost/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4; charset=utf-8/);
    const text = await ok.text();
    expect(text).toContain('# TYPE http_requests_total counter');
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    // Default process metrics.
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    expect(text).toContain('nodejs_heap_size_used_bytes');
    expect(sample(text, 'database_errors_total', { kind: 'unavailable' })).toBe(0);

    const head = await app.fetch('http://localhost/metrics', { method: 'HEAD', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(head.status).toBe(200);
    expect((await request(app, '/metrics', { method: 'POST', authorization: `Bearer ${TOKEN}` })).status).toBe(405);
  });

  it('compares tokens in constant time (hashes of equal length)', () => {
    expect(tokenMatches(TOKEN, TOKEN)).toBe(true);
    expect(tokenMatches(`${TOKEN} `, TOKEN)).toBe(false);
    expect(tokenMatches('', TOKEN)).toBe(false);
    expect(tokenMatches(undefined, TOKEN)).toBe(false);
  });
});

describe('what the metrics count', () => {
  it('requests by route pattern and status, with latency', async () => {
    const db = testDb();
    const clinic = await createClinic(db);
    const { key } = await createKeyWithId(db, { clinicIds: [clinic.id] });
    const app = quietApp();
    const before = await scrape(app);
    expect(sample(before, 'http_requests_total', { method: 'GET', route: '/api/v1/clinics', status: '200' })).toBeUndefined();

    await request(app, '/api/v1/clinics', { key });
    await request(app, '/api/v1/clinics', { key });
    await request(app, '/api/v1/clinics?limit=0', { key });
    await request(app, `/api/v1/interactions/${clinic.id}`, { key });
    await request(app, `/api/v1/nothing/${clinic.id}`, { key });
    await graphql(app, { key, query: '{ clinics { nodes { id } } }' });

    const text = await scrape(app);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/api/v1/clinics', status: '200' })).toBe(2);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/api/v1/clinics', status: '400' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/api/v1/interactions/{id}', status: '404' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'POST', route: '/graphql', status: '200' })).toBe(1);
    // The scrape before counts; this one is not finished while it is being rendered.
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/metrics', status: '200' })).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/clinics', status: '200' })).toBe(2);
    expect(sample(text, 'http_request_duration_seconds_bucket', { method: 'GET', route: '/api/v1/clinics', status: '200', le: '+Inf' })).toBe(2);
    expect(text).not.toContain(clinic.id);
    expect(sample(text, 'api_admission_decisions_total', { decision: 'admitted', tier: 'unlimited' })).toBe(5);
  });

  it('admission decisions by tier: admitted, quota 429, 401 and failed-authentication 429', async () => {
    const db = testDb();
    const clinic = await createClinic(db);
    const { key } = await createKeyWithId(db, { tier: 'standard', clinicIds: [clinic.id] });
    const app = quietApp({ quotaStore: tinyQuotas(), authFailureLimits: { minute: 2, hour: 100, day: 100 } });

    expect((await request(app, '/api/v1/clinics', { key })).status).toBe(200);
    expect((await graphql(app, { key, query: '{ __typename }' })).status).toBe(200);
    expect((await request(app, '/api/v1/clinics', { key })).status).toBe(429);
    expect((await graphql(app, { key, query: '{ __typename }' })).status).toBe(429);
    const wrong = `svc_test_${'Q'.repeat(40)}`;
    expect((await request(app, '/api/v1/clinics', { key: wrong })).status).toBe(401);
    expect((await request(app, '/api/v1/clinics')).status).toBe(401);
    expect((await request(app, '/api/v1/clinics', { key: wrong })).status).toBe(429);

    const text = await scrape(app);
    expect(sample(text, 'api_admission_decisions_total', { decision: 'admitted', tier: 'standard' })).toBe(2);
    expect(sample(text, 'api_admission_decisions_total', { decision: 'rate_limited', tier: 'standard' })).toBe(2);
    expect(sample(text, 'api_admission_decisions_total', { decision: 'unauthenticated', tier: 'none' })).toBe(2);
    expect(sample(text, 'api_admission_decisions_total', { decision: 'auth_rate_limited', tier: 'none' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/api/v1/clinics', status: '429' })).toBe(2);
  });

  it('a quota 429 is logged with the key id of the key that hit it', async () => {
    const db = testDb();
    const { key, id } = await createKeyWithId(db, { tier: 'standard' });
    const log = captureLog('info');
    const app = testApp(db, { logger: log.logger, quotaStore: tinyQuotas({ minute: 1, hour: 10, day: 10 }) });
    await request(app, '/api/v1/clinics', { key });
    await request(app, '/api/v1/clinics', { key });
    expect(log.requests().map((l) => [l.status, l.key_id])).toEqual([
      [200, id],
      [429, id],
    ]);
  });

  it('neither /metrics nor health checks are rate limited or counted in a quota', async () => {
    const db = testDb();
    const { key } = await createKeyWithId(db, { tier: 'standard' });
    const app = quietApp();
    for (let i = 0; i < 3; i++) {
      await scrape(app);
      expect((await request(app, '/health/live', { key })).status).toBe(200);
      expect((await request(app, '/health/ready', { key })).status).toBe(200);
    }
    const counted = await request(app, '/api/v1/clinics', { key });
    expect(counted.status).toBe(200);
    expect(counted.headers.get('x-ratelimit-remaining-minute')).toBe('59');
    // The scrape answered before admission: no decision, no X-RateLimit headers.
    const scrapeResponse = await app.fetch('http://localhost/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(scrapeResponse.headers.get('x-ratelimit-remaining-minute')).toBeNull();
    const text = await scrapeResponse.text();
    expect(sample(text, 'api_admission_decisions_total', { decision: 'admitted', tier: 'standard' })).toBe(1);
    expect(sample(text, 'database_health_check_duration_seconds_count', { result: 'up' })).toBe(3);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/health/live', status: '200' })).toBe(3);
  });

  it('unexpected errors and database failures', async () => {
    const db = testDb();
    const clinic = await createClinic(db);
    const { key } = await createKeyWithId(db, { clinicIds: [clinic.id] });
    const failing = testApp(failingInteractions(db), {
      logger: captureLog('info').logger,
      metricsToken: TOKEN,
      keyResolver: createApiKeyResolver(db, { ttlMs: 0 }),
    });
    expect((await request(failing, '/api/v1/interactions', { key })).status).toBe(500);
    expect((await request(failing, '/api/v1/clinics', { key })).status).toBe(200);
    const text = await scrape(failing);
    expect(sample(text, 'api_unexpected_errors_total', { code: 'INTERNAL_ERROR' })).toBe(1);
    expect(sample(text, 'api_unexpected_errors_total', { code: 'SERVICE_UNAVAILABLE' })).toBe(0);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/api/v1/interactions', status: '500' })).toBe(1);
  });

  it('two apps in one process keep separate registries', async () => {
    const first = quietApp();
    const second = quietApp();
    await request(first, '/api/v1/clinics');
    const a = await scrape(first);
    const b = await scrape(second);
    expect(sample(a, 'http_requests_total', { method: 'GET', route: '/api/v1/clinics', status: '401' })).toBe(1);
    expect(sample(b, 'http_requests_total', { method: 'GET', route: '/api/v1/clinics', status: '401' })).toBeUndefined();
  });

  it('connection pool counts, when the pool is reachable', async () => {
    const pool = { totalCount: 7, idleCount: 3, waitingCount: 2 };
    const metrics = createMetrics({ pool });
    const text = await metrics.registry.metrics();
    expect(sample(text, 'database_pool_connections', { state: 'idle' })).toBe(3);
    expect(sample(text, 'database_pool_connections', { state: 'busy' })).toBe(4);
    expect(sample(text, 'database_pool_waiting_requests')).toBe(2);
    // Without process metrics (no METRICS_TOKEN), none are collected.
    expect(text).not.toContain('process_cpu_user_seconds_total');
  });

  it('pool counts from the pool beneath a client of createPrismaClient (as server.ts passes them)', async () => {
    const db = createPrismaClient(databaseUrl, 2);
    const pool = db[SQL_POOL].stats;
    try {
      await db.$queryRaw`SELECT 1`;
      const app = testApp(db, { logger: captureLog('info').logger, metricsToken: TOKEN, dbPool: pool });
      const text = await scrape(app);
      const idle = sample(text, 'database_pool_connections', { state: 'idle' })!;
      const busy = sample(text, 'database_pool_connections', { state: 'busy' })!;
      expect(idle + busy).toBeGreaterThanOrEqual(1);
      expect(idle + busy).toBeLessThanOrEqual(2);
      expect(sample(text, 'database_pool_waiting_requests')).toBe(0);
    } finally {
      await db.$disconnect();
    }
    // $disconnect ends the pool too (the adapter was handed it with disposeExternalPool).
    expect(pool.totalCount).toBe(0);
  });
});
