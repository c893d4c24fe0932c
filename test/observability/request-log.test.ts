// Request logs: one line per request with request_id, key_id (only with a valid key), method, the
// route pattern (never the raw path), status, duration; health at debug; unexpected errors at
// error level with their stack and the response's request_id; never a key anywhere.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app.js';
import { createApiKeyResolver } from '../../src/auth/api-keys.js';
import { SQL_POOL, type SqlPool } from '../../src/db/client.js';
import { graphql, testApp } from '../helpers/app.js';
import { failingInteractions, testDb } from '../helpers/db.js';
import { createClinic, createInteraction } from '../helpers/factories.js';
import { request } from '../rest/client.js';
import { captureLog, createKeyWithId } from './support.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('request lines', () => {
  it('REST 200, 400, 401 and an unmatched 404: one line each with the route pattern', async () => {
    const db = testDb();
    const clinic = await createClinic(db);
    const { key, id } = await createKeyWithId(db, { clinicIds: [clinic.id] });
    const log = captureLog();
    const app = testApp(db, { logger: log.logger });

    const ok = await request(app, '/api/v1/clinics', { key, headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(ok.status).toBe(200);
    const bad = await request(app, '/api/v1/interactions?limit=0', { key });
    expect(bad.status).toBe(400);
    const anonymous = await request(app, '/api/v1/clinics');
    expect(anonymous.status).toBe(401);
    const unknown = await request(app, `/api/v1/patients/${clinic.id}?name=Maria`, { key });
    expect(unknown.status).toBe(404);

    const lines = log.requests();
    expect(lines).toHaveLength(4);
    const [l200, l400, l401, l404] = lines;
    expect(l200).toMatchObject({
      level: 'info',
      request_id: ok.headers.get('x-request-id'),
      key_id: id,
      method: 'GET',
      route: '/api/v1/clinics',
      status: 200,
      client_ip: expect.any(String),
    });
    expect(l200!.duration_ms).toBeGreaterThanOrEqual(0);
    expect(l400).toMatchObject({ level: 'info', request_id: bad.body.request_id, key_id: id, route: '/api/v1/interactions', status: 400 });
    expect(l401).toMatchObject({ level: 'info', request_id: anonymous.body.request_id, route: '/api/v1/clinics', status: 401 });
    expect(l401).not.toHaveProperty('key_id');
    // An unknown path is answered before authentication: no key id, and no trace of the raw path.
    expect(l404).toMatchObject({ route: 'unmatched', status: 404, request_id: unknown.body.request_id });
    expect(l404).not.toHaveProperty('key_id');
    expect(log.text()).not.toContain('patients');
    expect(log.text()).not.toContain('Maria');
  });

  it('path ids are replaced by the route pattern', async () => {
    const db = testDb();
    const clinic = await createClinic(db);
    const interaction = await createInteraction(db, { clinicId: clinic.id });
    const { key } = await createKeyWithId(db, { clinicIds: [clinic.id] });
    const log = captureLog();
    const app = testApp(db, { logger: log.logger });
    expect((await request(app, `/api/v1/interactions/${interaction.id}`, { key })).status).toBe(200);
    expect(log.requests()).toEqual([expect.objectContaining({ route: '/api/v1/interactions/{id}', status: 200 })]);
    expect(log.text()).not.toContain(interaction.id);
  });

  it('GraphQL: route /graphql with the operation name', async () => {
    const db = testDb();
    const clinic = await createClinic(db);
    const { key, id } = await createKeyWithId(db, { clinicIds: [clinic.id] });
    const log = captureLog();
    const app = testApp(db, { logger: log.logger });
    const response = await graphql(app, { key, query: 'query ClinicNames { clinics { nodes { name } } }' });
    expect(response.status).toBe(200);
    const anonymous = await graphql(app, { query: 'query ClinicNames { clinics { nodes { name } } }' });
    expect(anonymous.status).toBe(401);
    expect(log.requests()).toEqual([
      expect.objectContaining({
        level: 'info',
        request_id: response.headers.get('x-request-id'),
        key_id: id,
        method: 'POST',
        route: '/graphql',
        operation: 'ClinicNames',
        status: 200,
      }),
      expect.objectContaining({ route: '/graphql', status: 401, request_id: anonymous.headers.get('x-request-id') }),
    ]);
    expect(log.requests()[1]).not.toHaveProperty('key_id');
  });

  it('health checks at debug level (absent at info); metrics scrapes too', async () => {
    const db = testDb();
    const debug = captureLog('debug');
    const app = testApp(db, { logger: debug.logger, metricsToken: 'observability-test-token' });
    expect((await request(app, '/health/live')).status).toBe(200);
    expect((await request(app, '/health/ready')).status).toBe(200);
    expect((await app.fetch('http://localhost/metrics', { headers: { authorization: 'Bearer observability-test-token' } })).status).toBe(200);
    expect(debug.requests().map((l) => [l.level, l.route, l.status])).toEqual([
      ['debug', '/health/live', 200],
      ['debug', '/health/ready', 200],
      ['debug', '/metrics', 200],
    ]);

    const info = captureLog('info');
    const quiet = testApp(db, { logger: info.logger });
    await request(quiet, '/health/live');
    await request(quiet, '/health/ready');
    expect(info.text()).toBe('');
  });

  it('an incoming well-formed X-Request-Id is the logged request_id', async () => {
    const db = testDb();
    const log = captureLog();
    const app = testApp(db, { logger: log.logger });
    await request(app, '/api/v1/clinics', { headers: { 'x-request-id': 'trace-abc-12345' } });
    expect(log.requests()[0]).toMatchObject({ request_id: 'trace-abc-12345', status: 401 });
  });
});

describe('keys never reach the logs', () => {
  it('valid, unknown and malformed keys, in headers, the query string and an operation name', async () => {
    const db = testDb();
    const clinic = await createClinic(db);
    const { key } = await createKeyWithId(db, { clinicIds: [clinic.id] });
    const unknownKey = `svc_test_${'Z'.repeat(40)}`;
    const log = captureLog('trace');
    const app = testApp(db, { logger: log.logger });

    await request(app, '/api/v1/clinics', { key });
    await request(app, '/api/v1/clinics', { key: unknownKey });
    await request(app, '/api/v1/clinics', { authorization: `Basic ${key}` });
    await request(app, `/api/v1/clinics?api_key=${key}`, { key });
    await request(app, `/api/v1/${key}`, { key });
    await graphql(app, { key, query: `query ${key} { clinics { nodes { id } } }` });
    await graphql(app, { key: unknownKey, query: '{ clinics { nodes { id } } }' });
    // Direct logging of request-shaped objects is redacted too.
    log.logger.info({ req: { headers: { authorization: `Bearer ${key}` } }, headers: { authorization: key }, nested: { authorization: key } }, 'probe');
    log.logger.error({ err: new Error(`lookup failed for ${key}`) }, `failed for ${key}`);

    const output = log.text();
    expect(log.requests().length).toBeGreaterThanOrEqual(7);
    expect(output).not.toContain(key);
    expect(output).not.toContain(key.slice('svc_test_'.length));
    expect(output).not.toContain(unknownKey);
    expect(output).not.toContain('svc_');
    const probe = log.entries().find((e) => e.msg === 'probe')!;
    expect(probe).toMatchObject({
      req: { headers: { authorization: '[redacted]' } },
      headers: { authorization: '[redacted]' },
      nested: { authorization: '[redacted]' },
    });
  });
});

describe('unexpected errors', () => {
  it('a 500 logs an error line with the stack and the response request_id (REST and GraphQL), nothing on the console', async () => {
    const consoleCalls = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) => vi.spyOn(console, m).mockImplementation(() => {}));
    const db = testDb();
    const clinic = await createClinic(db);
    const { key, id } = await createKeyWithId(db, { clinicIds: [clinic.id] });
    const log = captureLog();
    const app = testApp(failingInteractions(db), { logger: log.logger, keyResolver: createApiKeyResolver(db, { ttlMs: 0 }) });

    const rest = await request(app, '/api/v1/interactions', { key });
    expect(rest.status).toBe(500);
    expect(rest.text).not.toContain('boom');
    const restErrors = log.entries().filter((e) => e.level === 'error');
    expect(restErrors).toHaveLength(1);
    expect(restErrors[0]).toMatchObject({ msg: 'unexpected error', code: 'INTERNAL_ERROR', request_id: rest.body.request_id, route: '/api/v1/interactions' });
    expect(restErrors[0]!.err!.message).toContain('boom');
    expect(restErrors[0]!.err!.stack).toMatch(/boom[\s\S]*\n\s+at /);
    expect(log.requests()).toEqual([expect.objectContaining({ level: 'warn', status: 500, request_id: rest.body.request_id, key_id: id })]);

    log.clear();
    const gql = await graphql(app, { key, query: 'query Failing { interactions { nodes { id } } clinics { nodes { id } } }' });
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('INTERNAL_ERROR');
    const requestId = gql.headers.get('x-request-id');
    const gqlErrors = log.entries().filter((e) => e.level === 'error');
    expect(gqlErrors).toHaveLength(1);
    expect(gqlErrors[0]).toMatchObject({
      request_id: requestId,
      route: '/graphql',
      graphql_path: expect.stringMatching(/^interactions/),
      code: 'INTERNAL_ERROR',
    });
    expect(gqlErrors[0]!.err!.stack).toContain('boom');
    expect(log.requests()).toEqual([expect.objectContaining({ request_id: requestId, route: '/graphql', operation: 'Failing', status: 200 })]);

    for (const spy of consoleCalls) expect(spy).not.toHaveBeenCalled();
  });

  it('one failure shown in several fields is logged and counted once: a count behind total, totalPages and hasMore', async () => {
    const db = testDb();
    const clinic = await createClinic(db);
    const { key } = await createKeyWithId(db, { clinicIds: [clinic.id] });
    const log = captureLog();
    // The list's count (read from the rollups) fails; nothing else does.
    const pool = db[SQL_POOL];
    const failingCount: SqlPool = {
      ...pool,
      query: (config) => (/coalesce\(sum\(n\), 0\)/.test(config.text) ? Promise.reject(new Error('boom: count')) : pool.query(config)),
    };
    const countless = new Proxy(db, { get: (target, prop, receiver) => (prop === SQL_POOL ? failingCount : Reflect.get(target, prop, receiver)) });
    const app = testApp(countless, { logger: log.logger, keyResolver: createApiKeyResolver(db, { ttlMs: 0 }), metricsToken: 'observability-test-token' });
    // REST reads total, total_pages and has_more from the one count: three field errors, one failure.
    const rest = await request(app, '/api/v1/interactions', { key });
    expect(rest.status).toBe(500);
    const restErrors = log.entries().filter((e) => e.level === 'error');
    expect(restErrors).toEqual([expect.objectContaining({ msg: 'unexpected error', request_id: rest.body.request_id, code: 'INTERNAL_ERROR' })]);
    expect(restErrors[0]!.err!.message).toContain('boom: count');
    // GraphQL: the masked error still names the field that failed; logged again, with this request_id.
    // (Without `nodes`: a page asked with its total is read in the same statement as the count.)
    const gql = await graphql(app, { key, query: '{ interactions { pageInfo { total totalPages hasMore } } }' });
    expect(gql.body.errors).toEqual([
      {
        message: 'Unexpected error.',
        locations: [{ line: 1, column: 29 }],
        path: ['interactions', 'pageInfo', 'total'],
        extensions: { code: 'INTERNAL_ERROR' },
      },
    ]);
    expect(
      log
        .entries()
        .filter((e) => e.level === 'error')
        .map((e) => e.request_id),
    ).toEqual([rest.body.request_id, gql.headers.get('x-request-id')]);
    const metrics = await (await app.fetch('http://localhost/metrics', { headers: { authorization: 'Bearer observability-test-token' } })).text();
    expect(metrics).toMatch(/^api_unexpected_errors_total\{code="INTERNAL_ERROR"\} 2$/m);
  });

  it('a database that cannot be reached while querying: SERVICE_UNAVAILABLE logged at error level with the request_id', async () => {
    const db = testDb();
    const clinic = await createClinic(db);
    const { key } = await createKeyWithId(db, { clinicIds: [clinic.id] });
    const unreachable = new Proxy(db, {
      get: (target, prop, receiver) =>
        prop === 'clinic'
          ? new Proxy(db.clinic, {
              get: (t, p, r) =>
                p === 'findMany' ? () => Promise.reject(Object.assign(new Error("Can't reach database server"), { code: 'P1001' })) : Reflect.get(t, p, r),
            })
          : Reflect.get(target, prop, receiver),
    });
    const log = captureLog();
    const app = createApp({ db: unreachable, keyResolver: createApiKeyResolver(db, { ttlMs: 0 }), logger: log.logger });
    const rest = await request(app, '/api/v1/clinics', { key });
    expect(rest.status).toBe(503);
    const errors = log.entries().filter((e) => e.level === 'error');
    expect(errors).toEqual([expect.objectContaining({ msg: 'database unavailable', code: 'SERVICE_UNAVAILABLE', request_id: rest.body.request_id })]);
    expect(errors[0]!.err!.stack).toContain("Can't reach database server");
  });

  it('an error thrown in a hook (the key lookup) is a 500 in the envelope, logged with its request_id, and counted', async () => {
    const db = testDb();
    const log = captureLog();
    const exploding = { resolve: () => Promise.reject(new Error('resolver exploded')), clear: () => {} };
    const app = testApp(db, { logger: log.logger, keyResolver: exploding, metricsToken: 'observability-test-token' });
    const response = await app.fetch('http://localhost/api/v1/clinics', {
      headers: { authorization: `Bearer svc_test_${'B'.repeat(40)}`, 'x-request-id': 'req-hook-failure-1' },
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ success: false, error: { code: 'INTERNAL_ERROR' }, request_id: 'req-hook-failure-1' });
    const errors = log.entries().filter((e) => e.level === 'error');
    expect(errors).toEqual([expect.objectContaining({ msg: 'unexpected error', request_id: 'req-hook-failure-1' })]);
    expect(errors[0]!.err!.stack).toContain('resolver exploded');
    expect(log.requests()).toEqual([expect.objectContaining({ request_id: 'req-hook-failure-1', status: 500 })]);
    const metrics = await (await app.fetch('http://localhost/metrics', { headers: { authorization: 'Bearer observability-test-token' } })).text();
    expect(metrics).toMatch(/^http_requests_total\{method="GET",route="\/api\/v1\/clinics",status="500"\} 1$/m);
    expect(metrics).toMatch(/^api_unexpected_errors_total\{code="INTERNAL_ERROR"\} 1$/m);
  });

  it('over a real HTTP server: the client address from the socket, the error joined to the 500 by request_id', async () => {
    const db = testDb();
    const clinic = await createClinic(db);
    const { key, id } = await createKeyWithId(db, { clinicIds: [clinic.id] });
    const log = captureLog();
    const app = testApp(failingInteractions(db), { logger: log.logger, keyResolver: createApiKeyResolver(db, { ttlMs: 0 }) });
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/interactions`, { headers: { authorization: `Bearer ${key}` } });
      expect(response.status).toBe(500);
      const body = (await response.json()) as { request_id: string };
      expect(log.requests()).toEqual([expect.objectContaining({ request_id: body.request_id, key_id: id, status: 500, client_ip: '127.0.0.1' })]);
      expect(log.entries().filter((e) => e.level === 'error')).toEqual([expect.objectContaining({ request_id: body.request_id, msg: 'unexpected error' })]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
