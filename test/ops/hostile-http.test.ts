// The HTTP edge of the real server process under attack, through raw sockets where a client
// library would refuse or rewrite the request: a Host header that picks another route or is
// malformed, failed logins that lock valid keys out or are escaped by rotating X-Forwarded-For,
// slow requests that hold connections, and more connections than the server takes.
import http from 'node:http';
import net from 'node:net';
import type { Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { MAX_HEADER_FIELDS } from '../../src/http/header-fields.js';
import { createNodeListener } from '../../src/http/node-listener.js';
import { createKey, testApp } from '../helpers/app.js';
import { databaseUrl, testDb } from '../helpers/db.js';
import { createClinic } from '../helpers/factories.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { captureLog } from '../observability/support.js';

interface Answer {
  raw: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connecting until the server closed the connection (or the wait gave up). */
  closedAfterMs: number;
  closed: boolean;
}

function parseAnswer(raw: string): Pick<Answer, 'status' | 'headers' | 'body'> {
  const split = raw.indexOf('\r\n\r\n');
  const head = split === -1 ? raw : raw.slice(0, split);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, body: split === -1 ? '' : raw.slice(split + 4) };
}

/**
 * Connects, writes `chunks` (`delayMs` apart, stopping once the server closes), and collects the
 * answer until the server closes the connection or `waitMs` passes.
 */
function exchange(port: number, chunks: string[], options: { delayMs?: number; waitMs?: number } = {}): Promise<Answer> {
  const { delayMs = 0, waitMs = 10_000 } = options;
  return new Promise((resolve) => {
    const started = performance.now();
    let raw = '';
    let closed = false;
    let timer: NodeJS.Timeout | undefined;
    const socket = net.connect(port, '127.0.0.1');
    const finish = () => {
      clearTimeout(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ raw, ...parseAnswer(raw), closedAfterMs: performance.now() - started, closed });
    };
    const giveUp = setTimeout(finish, waitMs);
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.on('connect', () => {
      let i = 0;
      const next = () => {
        if (closed || socket.destroyed || i >= chunks.length) return;
        socket.write(chunks[i++]!);
        timer = setTimeout(next, delayMs);
      };
      next();
    });
  });
}

/** A whole request in one write, with `Connection: close` so the server ends the exchange. */
function send(port: number, requestLine: string, headers: string[]): Promise<Answer> {
  return exchange(port, [`${requestLine}\r\n${[...headers, 'Connection: close'].join('\r\n')}\r\n\r\n`]);
}

/** The API's error envelope with `code`, JSON, its request id in X-Request-Id; never a stack. */
function expectEnvelope(answer: Answer, status: number, code: string): { request_id: string; error: { message: string } } {
  expect(answer.status, answer.raw).toBe(status);
  expect(answer.headers['content-type'], answer.raw).toBe('application/json; charset=utf-8');
  const body = JSON.parse(answer.body) as { success: boolean; error: { code: string; message: string }; request_id: string; timestamp: string };
  expect(body.success).toBe(false);
  expect(body.error.code).toBe(code);
  expect(body.request_id).toBe(answer.headers['x-request-id']);
  expect(typeof body.timestamp).toBe('string');
  expect(answer.body).not.toMatch(/node_modules|at .*\.[jt]s:\d+/);
  return body;
}

/** A GraphQL error document (the GraphQL endpoint's refusals), as application/json; never a stack. */
function expectGraphQLError(answer: Answer, status: number, code: string): void {
  expect(answer.status, answer.raw).toBe(status);
  expect(answer.headers['content-type'], answer.raw).toBe('application/json; charset=utf-8');
  const body = JSON.parse(answer.body) as { errors: Array<{ message: string; extensions: { code: string } }> };
  expect(body.errors).toHaveLength(1);
  expect(body.errors[0]!.extensions.code).toBe(code);
  expect(body.errors[0]!.message.length).toBeGreaterThan(0);
  expect(answer.headers['x-request-id']).toBeTruthy();
}

async function logLineWith(server: ServerProcess, requestId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 50; i++) {
    const line = server
      .output()
      .split('\n')
      .find((l) => l.includes(requestId) && l.includes('"msg":"request"'));
    if (line) return JSON.parse(line) as Record<string, unknown>;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no request log line for ${requestId}:\n${server.output().slice(-3000)}`);
}

const badKey = () => `svc_live_${Array.from({ length: 40 }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(Math.random() * 36)]).join('')}`;

let key: string;
let server: ServerProcess;
beforeAll(async () => {
  const db = testDb();
  const clinic = await createClinic(db);
  key = await createKey(db, { clinicIds: [clinic.id], tier: 'unlimited' });
  server = await startServer({
    DATABASE_URL: databaseUrl,
    TRUST_PROXY: '1',
    HTTP_REQUEST_TIMEOUT_MS: '2000',
    HTTP_HEADERS_TIMEOUT_MS: '1000',
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
  });
});
afterAll(async () => {
  server.child.kill('SIGTERM');
  await server.exited;
});

describe('the route comes from the request target alone', () => {
  it('a Host carrying a path and query does not run GraphQL on a REST URL, nor REST on a health URL: 400, logged', async () => {
    const graphqlViaHost = await send(server.port, 'GET /api/v1/interactions HTTP/1.1', [
      'Host: x/graphql?query={clinics{nodes{name}}}&',
      `Authorization: Bearer ${key}`,
    ]);
    const body = expectEnvelope(graphqlViaHost, 400, 'BAD_REQUEST');
    expect(body.error.message).toMatch(/Host/);
    expect(graphqlViaHost.body).not.toContain('"data"');
    const line = await logLineWith(server, body.request_id);
    expect(line).toMatchObject({ status: 400, method: 'GET', route: 'unmatched', client_ip: '127.0.0.1' });

    const restViaHost = await send(server.port, 'GET /health/live HTTP/1.1', ['Host: x/api/v1/clinics?', `Authorization: Bearer ${key}`]);
    expectEnvelope(restViaHost, 400, 'BAD_REQUEST');
  });

  it('a target starting with // stays a path, also without a Host; absolute-form targets route by their path; * is refused', async () => {
    for (const host of ['Host: localhost', 'Host:']) {
      const answer = await send(server.port, 'GET //x/graphql?query={__typename} HTTP/1.1', [host, `Authorization: Bearer ${key}`]);
      expect(expectEnvelope(answer, 404, 'NOT_FOUND').error.message).toContain('//x/graphql');
    }
    const absolute = await send(server.port, 'GET http://elsewhere.example/health/live HTTP/1.1', ['Host: localhost']);
    expect(absolute.status).toBe(200);
    expect(JSON.parse(absolute.body)).toEqual({ status: 'ok' });
    const absoluteRest = await send(server.port, 'GET http://x/api/v1/clinics?page=0 HTTP/1.1', ['Host: localhost', `Authorization: Bearer ${key}`]);
    expectEnvelope(absoluteRest, 400, 'VALIDATION_ERROR');

    expectEnvelope(await send(server.port, 'OPTIONS * HTTP/1.1', ['Host: localhost']), 400, 'BAD_REQUEST');
  });

  it('a malformed Host is a 400 envelope (never a text/plain 500 with a stack), logged; well-formed ones and a missing one are served', async () => {
    for (const host of ['[::1', 'a b', 'a@b', 'x:99999', 'x:8o', '[zz]', '[1:2]', 'a/b', 'a\\b', 'a%41b', 'a?b', 'a#b', '1.2.3.4.5']) {
      const answer = await send(server.port, 'GET /api/v1/clinics HTTP/1.1', [`Host: ${host}`, `Authorization: Bearer ${key}`]);
      const body = expectEnvelope(answer, 400, 'BAD_REQUEST');
      expect((await logLineWith(server, body.request_id)).status).toBe(400);
    }
    expectEnvelope(await send(server.port, 'GET /health/live HTTP/1.1', ['Host: a', 'Host: b']), 400, 'BAD_REQUEST');

    for (const host of ['localhost', 'localhost:4000', '127.0.0.1:80', '[::1]:4000', '[::ffff:127.0.0.1]', 'api.example.com', 'my_host.internal']) {
      const answer = await send(server.port, 'GET /api/v1/clinics HTTP/1.1', [`Host: ${host}`, `Authorization: Bearer ${key}`]);
      expect(answer.status, host).toBe(200);
    }
    const http10 = await exchange(server.port, ['GET /health/live HTTP/1.0\r\n\r\n']);
    expect(http10.status).toBe(200);
  });

  it('what Node would answer itself with an empty body is the envelope: HTTP/1.1 without Host (400), an unsupported Expect (417), CONNECT (405)', async () => {
    const noHost = await send(server.port, 'GET /health/live HTTP/1.1', []);
    expect(expectEnvelope(noHost, 400, 'BAD_REQUEST').error.message).toMatch(/Host/);
    expectEnvelope(await send(server.port, 'GET /health/live HTTP/1.1', ['Host: localhost', 'Expect: teapot']), 417, 'EXPECTATION_FAILED');
    expectEnvelope(await send(server.port, 'CONNECT localhost:443 HTTP/1.1', ['Host: localhost:443']), 405, 'METHOD_NOT_ALLOWED');
  });
});

describe('header fields only the wire shows', () => {
  const filler = (count: number) => Array.from({ length: count }, (_, i) => `h${i}: 1`);

  it('more header fields than the limit are a 431 in the envelope, however the Authorization falls among them (Node dropped those after the 1,000th)', async () => {
    for (const count of [MAX_HEADER_FIELDS, 1_000, 1_500]) {
      const answer = await send(server.port, 'GET /api/v1/clinics HTTP/1.1', ['Host: localhost', ...filler(count), `Authorization: Bearer ${key}`]);
      const body = expectEnvelope(answer, 431, 'REQUEST_TOO_LARGE');
      expect(body.error.message).toContain(String(MAX_HEADER_FIELDS));
      expect((await logLineWith(server, body.request_id)).status).toBe(431);
    }
    const graphqlAnswer = await send(server.port, 'GET /graphql?query={__typename} HTTP/1.1', [
      'Host: localhost',
      ...filler(1_200),
      `Authorization: Bearer ${key}`,
    ]);
    expectGraphQLError(graphqlAnswer, 431, 'REQUEST_TOO_LARGE');
    // A GraphQL GET whose URL and headers pass 16 KB (Node refuses it before any handler): GraphQL
    // errors too, as application/json (its headers could not be read, Accept among them).
    const longQuery = await send(server.port, `GET /graphql?query=${encodeURIComponent(`{ ${'__typename '.repeat(2_000)}}`)} HTTP/1.1`, ['Host: localhost']);
    expectGraphQLError(longQuery, 431, 'REQUEST_TOO_LARGE');
    expectEnvelope(await send(server.port, `GET /api/v1/clinics?q=${'x'.repeat(20_000)} HTTP/1.1`, ['Host: localhost']), 431, 'REQUEST_TOO_LARGE');
    // Up to the limit (Host, Authorization and Connection included), served.
    const atLimit = await send(server.port, 'GET /api/v1/clinics HTTP/1.1', [
      'Host: localhost',
      ...filler(MAX_HEADER_FIELDS - 3),
      `Authorization: Bearer ${key}`,
    ]);
    expect(atLimit.status, atLimit.raw).toBe(200);
  });

  it('two Authorization fields are a 400 naming the field, whichever is valid, in any spelling; list fields may repeat', async () => {
    for (const pair of [
      [`Authorization: Bearer ${key}`, `Authorization: Bearer ${badKey()}`],
      [`Authorization: Bearer ${badKey()}`, `authorization: Bearer ${key}`],
      [`Authorization: Bearer ${key}`, `AUTHORIZATION: Bearer ${key}`],
      [`Authorization: Bearer ${key}`, 'Authorization:'],
    ]) {
      for (const target of ['/api/v1/clinics', '/graphql?query={__typename}']) {
        const answer = await send(server.port, `GET ${target} HTTP/1.1`, ['Host: localhost', pair[0]!, 'Accept: application/json', pair[1]!]);
        // The GraphQL endpoint's refusals are GraphQL errors, the REST API's the envelope.
        if (target.startsWith('/graphql')) expectGraphQLError(answer, 400, 'BAD_REQUEST');
        else expectEnvelope(answer, 400, 'BAD_REQUEST');
        expect(answer.body).toMatch(/more than one Authorization/);
        expect(answer.body).not.toContain('__typename');
      }
    }
    // Any field Node takes once, not only Authorization: the body's type too.
    const body = '{"query":"{ __typename }"}';
    const types = await exchange(server.port, [
      `POST /graphql HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
        `Content-Type: application/graphql\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    ]);
    expectGraphQLError(types, 400, 'BAD_REQUEST');
    expect(types.body).toMatch(/more than one Content-Type/);
    const lists = await send(server.port, 'GET /api/v1/clinics HTTP/1.1', [
      'Host: localhost',
      `Authorization: Bearer ${key}`,
      'Accept: text/html;q=0.1',
      'Accept: application/json',
    ]);
    expect(lists.status, lists.raw).toBe(200);
  });

  it('OPTIONS and other methods on /graphql are a 405 with Allow before any key is read, never a 401', async () => {
    for (const method of ['OPTIONS', 'PUT', 'DELETE', 'PATCH']) {
      for (const authorization of [[], [`Authorization: Bearer ${key}`]]) {
        const answer = await send(server.port, `${method} /graphql HTTP/1.1`, ['Host: localhost', 'Content-Length: 0', ...authorization]);
        expect(answer.status, answer.raw).toBe(405);
        expect(answer.headers.allow).toBe('GET, POST');
        expect(answer.headers['cache-control']).toBe('private, no-store');
        expect(JSON.parse(answer.body).errors[0].extensions.code).toBe('METHOD_NOT_ALLOWED');
        expect(answer.headers['x-ratelimit-remaining-minute']).toBeUndefined();
      }
    }
  });
});

describe('failed logins', () => {
  it('behind a trusted proxy: a valid key is admitted from an address over the limit, rotating the first X-Forwarded-For entry does not escape it, naming a victim does not lock the victim out', async () => {
    // The default limit is 30 failures a minute; start well inside a minute so one window holds the test.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
    const from = (forwardedFor: string, authorization: string) =>
      fetch(`${server.baseUrl}/api/v1/clinics`, { headers: { authorization, 'x-forwarded-for': forwardedFor } });

    // The proxy (this test, the TCP peer) appends the attacker's address 198.51.100.7; the attacker
    // writes a new address in front each time.
    for (let i = 0; i < 30; i++) expect((await from(`203.0.113.${i}, 198.51.100.7`, `Bearer ${badKey()}`)).status).toBe(401);
    const limited = await from('203.0.113.200, 198.51.100.7', `Bearer ${badKey()}`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    // A valid Unlimited key from that very address is served.
    for (let i = 0; i < 3; i++) expect((await from('198.51.100.7', `Bearer ${key}`)).status).toBe(200);

    // Another attacker (198.51.100.9) names the victim (198.51.100.8) as the client 31 times.
    for (let i = 0; i < 31; i++) await from('198.51.100.8, 198.51.100.9', `Bearer ${badKey()}`);
    expect((await from('198.51.100.9', `Bearer ${badKey()}`)).status).toBe(429);
    expect((await from('198.51.100.8', `Bearer ${badKey()}`)).status).toBe(401);
  });
});

describe('slow clients and connection limits', () => {
  it('the timeouts and the connection limit are deliberate settings with bounded defaults, every bad one reported', () => {
    expect(loadConfig({})).toMatchObject({
      HTTP_REQUEST_TIMEOUT_MS: 30_000,
      HTTP_HEADERS_TIMEOUT_MS: 10_000,
      HTTP_KEEP_ALIVE_TIMEOUT_MS: 5_000,
      HTTP_MAX_CONNECTIONS: 1_000,
    });
    const bad = { HTTP_REQUEST_TIMEOUT_MS: '0', HTTP_HEADERS_TIMEOUT_MS: 'soon', HTTP_KEEP_ALIVE_TIMEOUT_MS: '-1', HTTP_MAX_CONNECTIONS: '0' };
    expect(() => loadConfig(bad)).toThrow(ConfigError);
    try {
      loadConfig(bad);
    } catch (error) {
      for (const name of Object.keys(bad)) expect((error as ConfigError).problems.join('\n')).toContain(name);
    }
  });

  it('a request body sent slowly is answered 408 in the envelope and closed within the request timeout (2 s here), not after 300 s', async () => {
    const head =
      `POST /graphql HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 200\r\n\r\n{"query":"';
    // One byte every 200 ms: 60 bytes at most, 12 s - the server must close long before.
    const answer = await exchange(server.port, [head, ...'{ __typename }'.repeat(5).split('')], { delayMs: 200, waitMs: 15_000 });
    expect(answer.closed).toBe(true);
    expect(answer.closedAfterMs).toBeLessThan(9_000);
    const body = expectEnvelope(answer, 408, 'REQUEST_TIMEOUT');
    expect(body.error.message).toMatch(/in time/);
  });

  it('headers sent slowly, or nothing at all, are answered 408 and closed within the bounds', async () => {
    const trickle = ['GET /health/live HTTP/1.1\r\nHost: localhost\r\n', ...Array.from({ length: 60 }, (_, i) => `X-Slow-${i}: y\r\n`)];
    const slowHeaders = await exchange(server.port, trickle, { delayMs: 200, waitMs: 15_000 });
    expect(slowHeaders.closed).toBe(true);
    expect(slowHeaders.closedAfterMs).toBeLessThan(9_000);
    expectEnvelope(slowHeaders, 408, 'REQUEST_TIMEOUT');

    const silent = await exchange(server.port, [], { waitMs: 15_000 });
    expect(silent.closed).toBe(true);
    expect(silent.closedAfterMs).toBeLessThan(9_000);
  });

  it('connections beyond HTTP_MAX_CONNECTIONS are closed at once; a freed slot is used again', async () => {
    const limited = await startServer({
      DATABASE_URL: databaseUrl,
      HTTP_MAX_CONNECTIONS: '3',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '60000',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
    });
    const open: net.Socket[] = [];
    try {
      // Three kept-alive connections, each proven accepted by an answer.
      for (let i = 0; i < 3; i++) {
        const socket = net.connect(limited.port, '127.0.0.1');
        open.push(socket);
        const answered = new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString())));
        socket.on('error', () => undefined);
        socket.write('GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n');
        expect(await answered).toMatch(/^HTTP\/1\.1 200 /);
      }
      const refused = await send(limited.port, 'GET /health/live HTTP/1.1', ['Host: localhost']);
      expect(refused.closed).toBe(true);
      expect(refused.raw).toBe('');

      open.shift()?.destroy();
      let again: Answer | undefined;
      for (let i = 0; i < 50 && again?.status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        again = await send(limited.port, 'GET /health/live HTTP/1.1', ['Host: localhost']);
      }
      expect(again?.status).toBe(200);
      expect(limited.output()).toContain('connection limit reached');
    } finally {
      for (const socket of open) socket.destroy();
      limited.child.kill('SIGTERM');
      await limited.exited;
    }
  });
});

describe('failures below the app', () => {
  it("a plugin hook that throws is a 500 envelope with X-Request-Id (not the adapter's text/plain stack), and logged with that id", async () => {
    const boom: Plugin = {
      onRequest({ url }) {
        if (url.pathname === '/health/boom') throw new Error('boom: secret internals');
      },
    };
    const app = testApp(testDb(), { plugins: [boom] });
    const log = captureLog('info');
    const local = http.createServer(createNodeListener(app, { logger: log.logger, trustProxy: false }));
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    try {
      const port = (local.address() as net.AddressInfo).port;
      const answer = await send(port, 'GET /health/boom HTTP/1.1', ['Host: localhost', 'X-Request-Id: trace-boom-0001']);
      const body = expectEnvelope(answer, 500, 'INTERNAL_ERROR');
      expect(body.request_id).toBe('trace-boom-0001');
      expect(answer.body).not.toContain('secret');
      const logged = log.entries().find((e) => e.err?.message?.includes('boom: secret internals') && e.request_id === 'trace-boom-0001');
      expect(logged?.level).toBe('error');
      // The rest of the app is served as before through the same listener.
      expect((await send(port, 'GET /health/live HTTP/1.1', ['Host: localhost'])).status).toBe(200);
    } finally {
      local.closeAllConnections();
      await new Promise((resolve) => local.close(resolve));
      await app.dispose();
    }
  });
});
