// The error catalogue is what the service answers: every code in it is answered, for one
// representative request on each surface that has it, with the catalogue's status (and its
// Retry-After), and no answer carries a code the catalogue lacks. `CASES` is keyed by ErrorCode,
// so a code added to the catalogue without a case here fails the type check.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app.js';
import { createApiKeyResolver } from '../../src/auth/api-keys.js';
import { createPrismaClient } from '../../src/db/client.js';
import { ERRORS, type ErrorCode } from '../../src/domain/error-catalogue.js';
import { answerClientErrors } from '../../src/http/client-errors.js';
import { createNodeListener } from '../../src/http/node-listener.js';
import type { QuotaStore } from '../../src/limits/windows.js';
import { createKey, testApp } from '../helpers/app.js';
import { failingInteractions, sql, testDb } from '../helpers/db.js';
import { createClinic } from '../helpers/factories.js';
import { captureLog, createKeyWithId } from '../observability/support.js';

interface Answer {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** Every error code in the body: the REST envelope's, or each GraphQL error's. */
  codes: string[];
}

/** One representative request for a code, on one surface. */
type Probe = () => Promise<Answer>;

function codesOf(text: string): string[] {
  if (!text.startsWith('{')) return [];
  const body = JSON.parse(text) as { error?: { code?: string }; errors?: Array<{ extensions?: { code?: string } }> };
  const codes = [body.error?.code, ...(body.errors ?? []).map((e) => e.extensions?.code)];
  return codes.filter((c): c is string => c !== undefined);
}

async function answerOf(response: Response): Promise<Answer> {
  const headers = Object.fromEntries([...response.headers].map(([name, value]) => [name.toLowerCase(), value]));
  return { status: response.status, headers, codes: codesOf(await response.text()) };
}

async function rest(app: App, path: string, init: { key?: string; method?: string; accept?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.accept) headers.accept = init.accept;
  return answerOf(await app.fetch(`http://localhost${path}`, { method: init.method ?? 'GET', headers }));
}

/** As GraphQL over HTTP clients ask: with the spec's media type, request errors have their status. */
async function graphql(app: App, query: string, key?: string): Promise<Answer> {
  const headers = { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...(key ? { authorization: `Bearer ${key}` } : {}) };
  return answerOf(await app.fetch('http://localhost/graphql', { method: 'POST', headers, body: JSON.stringify({ query }) }));
}

/** Raw HTTP/1.1 to the server as served (node listener and client-error handling), until it closes. */
function raw(port: number, text: string, waitMs = 5_000): Promise<Answer> {
  return new Promise((resolve) => {
    let received = '';
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      const split = received.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = received.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, codes: codesOf(received.slice(split + 4)) });
    };
    const timer = setTimeout(done, waitMs);
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', done);
    socket.on('close', done);
  });
}

const refusingQuotas: QuotaStore = {
  consume: async (_bucket, limits) => ({
    allowed: false,
    limits,
    remaining: { minute: 0, hour: 0, day: 0 },
    resetSeconds: { minute: 17, hour: 17, day: 17 },
    retryAfterSeconds: 17,
  }),
  close: async () => {},
};

const db = testDb();
const unreachable = createPrismaClient('postgresql://postgres:x@127.0.0.1:1/nowhere', 1);
let app: App;
let server: http.Server;
let port: number;
let key: string;
let standardKey: string;
let clinicId: string;
let clinicsOnly: string;
let expired: string;

beforeAll(async () => {
  app = testApp(db);
  clinicId = (await createClinic(db)).id;
  key = await createKey(db);
  standardKey = await createKey(db, { tier: 'standard' });
  clinicsOnly = await createKey(db, { scopes: ['clinics:read'] });
  const lapsing = await createKeyWithId(db, { expiresAt: new Date(Date.now() + 3_600_000) });
  await sql(`UPDATE api_keys SET expires_at = now() - interval '1 minute' WHERE id = $1`, [lapsing.id]);
  expired = lapsing.key;
  // Short timeouts, so that a request that never completes is answered within the test.
  server = http.createServer(
    { requestTimeout: 1_000, headersTimeout: 500, connectionsCheckingInterval: 100 },
    createNodeListener(app, { logger: captureLog().logger, trustProxy: false }),
  );
  answerClientErrors(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await unreachable.$disconnect();
});

const failing = () => createApp({ db: failingInteractions(db), keyResolver: createApiKeyResolver(db, { ttlMs: 0 }), fieldRateLimits: [] });
const offline = () => createApp({ db: unreachable, keyResolver: createApiKeyResolver(unreachable, { ttlMs: 0 }) });
const quotaRefused = () => testApp(db, { quotaStore: refusingQuotas });
const typenames = (n: number) => Array.from({ length: n }, (_, i) => `t${i}: __typename`).join(' ');

/**
 * Per code: the statuses decisions section 1 and docs/rest-api.md (Errors) give it (the catalogue's first), and
 * one representative request on REST (the envelope, and the edge below the app) and GraphQL where a status is the
 * code's own. GraphQL field errors (INSUFFICIENT_SCOPE, VALIDATION_ERROR, a field's RATE_LIMITED,
 * INTERNAL_ERROR) are partial results, answered 200 with the rest of the data, so they have no case.
 */
const CASES: Record<ErrorCode, { statuses: number[]; rest?: Probe; graphql?: Probe; retryAfter?: string }> = {
  UNAUTHORIZED: { statuses: [401], rest: () => rest(app, '/api/v1/clinics'), graphql: () => graphql(app, '{ __typename }') },
  INVALID_API_KEY: {
    statuses: [401],
    rest: () => rest(app, '/api/v1/clinics', { key: `svc_test_${'A'.repeat(40)}` }),
    graphql: () => graphql(app, '{ __typename }', `svc_test_${'A'.repeat(40)}`),
  },
  API_KEY_EXPIRED: { statuses: [401], rest: () => rest(app, '/api/v1/clinics', { key: expired }), graphql: () => graphql(app, '{ __typename }', expired) },
  INSUFFICIENT_SCOPE: { statuses: [403], rest: () => rest(app, '/api/v1/interactions', { key: clinicsOnly }) },
  VALIDATION_ERROR: { statuses: [400], rest: () => rest(app, '/api/v1/interactions?limit=0', { key }) },
  NOT_FOUND: { statuses: [404], rest: () => rest(app, '/api/v1/patients', { key }) },
  NOT_ACCEPTABLE: { statuses: [406], rest: () => rest(app, '/api/v1/clinics', { key, accept: 'text/csv' }) },
  METHOD_NOT_ALLOWED: { statuses: [405], rest: () => rest(app, '/api/v1/clinics', { key, method: 'DELETE' }) },
  // The quota's own reset wins over the catalogue's default.
  RATE_LIMITED: {
    statuses: [429],
    rest: () => rest(quotaRefused(), '/api/v1/clinics', { key: standardKey }),
    graphql: () => graphql(quotaRefused(), '{ __typename }', standardKey),
    retryAfter: '17',
  },
  SERVICE_UNAVAILABLE: { statuses: [503], rest: () => rest(offline(), '/api/v1/clinics', { key }), graphql: () => graphql(offline(), '{ __typename }', key) },
  INTERNAL_ERROR: { statuses: [500], rest: () => rest(failing(), '/api/v1/interactions', { key }) },
  BAD_REQUEST: { statuses: [400], rest: () => raw(port, 'GET /api/v1/clinics HTTP/1.1\r\nHost: a/b\r\nConnection: close\r\n\r\n') },
  REQUEST_TOO_LARGE: {
    rest: () => raw(port, `GET /api/v1/clinics HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'x'.repeat(20_000)}\r\nConnection: close\r\n\r\n`),
    graphql: () => graphql(app, `{ __typename } #${'x'.repeat(70_000)}`, key),
    statuses: [413, 431, 414],
  },
  REQUEST_TIMEOUT: { statuses: [408], rest: () => raw(port, 'GET /api/v1/clinics HTTP/1.1\r\nHost: localhost\r\n') },
  EXPECTATION_FAILED: {
    statuses: [417],
    rest: () => raw(port, 'GET /api/v1/clinics HTTP/1.1\r\nHost: localhost\r\nExpect: teapot\r\nConnection: close\r\n\r\n'),
  },
  TOO_MANY_TOKENS: { statuses: [400], graphql: () => graphql(app, `{ ${'__typename '.repeat(1_001)} }`, key) },
  TOO_MANY_ALIASES: { statuses: [400], graphql: () => graphql(app, `{ ${typenames(16)} }`, key) },
  RESERVED_ALIAS: { statuses: [400], graphql: () => graphql(app, '{ then: __typename }', key) },
  QUERY_TOO_DEEP: {
    statuses: [400],
    graphql: () => graphql(app, '{ clinics { nodes { campaigns { clinic { campaigns { clinic { campaigns { clinic { campaigns { id } } } } } } } } } }', key),
  },
  QUERY_TOO_BROAD: { statuses: [400], graphql: () => graphql(app, `{ clinic(id: "${clinicId}") { ${'id '.repeat(400)} } }`, key) },
  QUERY_TOO_COMPLEX: { statuses: [400], graphql: () => graphql(app, '{ clinics(limit: 500) { nodes { interactions(limit: 500) { id } } } }', key) },
  GRAPHQL_PARSE_FAILED: { statuses: [400], graphql: () => graphql(app, '{ clinics(', key) },
  GRAPHQL_VALIDATION_FAILED: { statuses: [400], graphql: () => graphql(app, '{ nope }', key) },
};

describe('the error catalogue', () => {
  for (const [code, { rest: restProbe, graphql: graphqlProbe, statuses, retryAfter }] of Object.entries(CASES) as Array<
    [ErrorCode, (typeof CASES)[ErrorCode]]
  >) {
    const entry = ERRORS[code] as { status: number; retryAfterSeconds?: number };
    it(`${code}: answered ${statuses.join('/')}${entry.retryAfterSeconds ? ' with Retry-After' : ''}`, async () => {
      expect(entry.status, 'catalogue status').toBe(statuses[0]);
      for (const [surface, probe] of [
        ['REST', restProbe],
        ['GraphQL', graphqlProbe],
      ] as const) {
        if (!probe) continue;
        const answer = await probe();
        expect(answer.codes, surface).toEqual([code]);
        expect(statuses, `${surface} status`).toContain(answer.status);
        const expectedRetryAfter = retryAfter ?? (entry.retryAfterSeconds === undefined ? undefined : String(entry.retryAfterSeconds));
        expect(answer.headers['retry-after'], `${surface} Retry-After`).toBe(expectedRetryAfter);
      }
    });
  }

  it('no answer carries a code the catalogue lacks: any method on any kind of path, with and without a key', async () => {
    const paths = [
      '/',
      '/api/v1',
      '/api/v1/clinics',
      '/api/v1/clinics/',
      '/api/v1/interactions/%ZZ',
      '/docs/nope',
      '/docs',
      '/metrics',
      '/health/live',
      '/graphql',
    ];
    const methods = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'];
    const seen = new Set<string>();
    for (const path of paths) {
      for (const method of methods) {
        for (const authorization of [undefined, `Bearer ${key}`, 'Bearer nonsense', 'Basic x']) {
          const response = await app.fetch(`http://localhost${path}`, { method, headers: authorization ? { authorization } : {} });
          for (const code of codesOf(await response.text())) seen.add(code);
        }
      }
    }
    for (const body of ['not json', '{"query": 1}', '{"query": "{ clinics(limit: 0) { nodes { id } } }"}']) {
      const response = await app.fetch('http://localhost/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body,
      });
      for (const code of codesOf(await response.text())) seen.add(code);
    }
    expect(seen.size).toBeGreaterThan(3);
    expect([...seen].filter((code) => !(code in ERRORS))).toEqual([]);
  });
});
