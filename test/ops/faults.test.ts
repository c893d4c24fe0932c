// Faults survived by the real server process: the database lost at start and mid-run, SIGTERM with
// requests in flight, and hostile HTTP input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../helpers/app.js';
import { databaseUrl, databaseUrlVia, testDb } from '../helpers/db.js';
import { createClinic } from '../helpers/factories.js';
import { createTcpRelay, getOnOwnConnection, rawRequest, type ServerProcess, startServer } from '../helpers/server-process.js';

const target = new URL(databaseUrl);
const viaRelay = (port: number) => databaseUrlVia({ port });

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

let key: string;
let clinicId: string;
beforeAll(async () => {
  const db = testDb();
  clinicId = (await createClinic(db)).id;
  key = await createKey(db, { clinicIds: [clinicId] });
});

const get = (server: ServerProcess, path: string) => fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });

describe('the database', () => {
  it('unreachable at start: the server starts, answers 503 with Retry-After, and recovers without a restart', async () => {
    const relay = await createTcpRelay({ host: target.hostname, port: Number(target.port || 5432) });
    await relay.cut();
    const server = await startServer({ DATABASE_URL: viaRelay(relay.port) });
    try {
      const rest = await get(server, `/api/v1/clinics`);
      expect(rest.status).toBe(503);
      expect(Number(rest.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await rest.json()).error.code).toBe('SERVICE_UNAVAILABLE');
      expect((await fetch(`${server.baseUrl}/health/ready`)).status).toBe(503);
      expect((await fetch(`${server.baseUrl}/health/live`)).status).toBe(200);

      await relay.restore();
      await until('readiness', async () => ((await fetch(`${server.baseUrl}/health/ready`)).status === 200 ? true : undefined));
      const after = await get(server, '/api/v1/clinics');
      expect(after.status).toBe(200);
      expect((await after.json()).data.clinics.map((c: { id: string }) => c.id)).toEqual([clinicId]);
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      await relay.close();
    }
  });

  it('hung at start (accepts connections, answers nothing): the server still starts listening, answers 503, and recovers when it answers', async () => {
    const relay = await createTcpRelay({ host: target.hostname, port: Number(target.port || 5432) });
    relay.freeze();
    // Before: the migration check waited on the hung database for as long as it hung, so the
    // server never listened (startServer timed out).
    const server = await startServer({ DATABASE_URL: viaRelay(relay.port) }, 50_000);
    try {
      const rest = await get(server, '/api/v1/clinics');
      expect(rest.status).toBe(503);
      expect(rest.headers.get('retry-after')).toBeTruthy();
      expect((await fetch(`${server.baseUrl}/health/live`)).status).toBe(200);
      relay.thaw();
      await until('readiness', async () => ((await fetch(`${server.baseUrl}/health/ready`)).status === 200 ? true : undefined), 40_000);
      expect((await get(server, '/api/v1/clinics')).status).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      await relay.close();
    }
  });

  it('lost mid-run: 503 while it is away, 200 again when it returns', async () => {
    const relay = await createTcpRelay({ host: target.hostname, port: Number(target.port || 5432) });
    const server = await startServer({ DATABASE_URL: viaRelay(relay.port) });
    try {
      expect((await get(server, '/api/v1/clinics')).status).toBe(200);
      await relay.cut();
      const during = await Promise.all(['/api/v1/clinics', '/api/v1/interactions', '/api/v1/metrics/summary'].map((p) => get(server, p)));
      for (const response of during) {
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toBeTruthy();
        const text = await response.text();
        expect(text).not.toMatch(/ECONNREFUSED|at .*\.ts/);
      }
      expect((await fetch(`${server.baseUrl}/health/ready`)).status).toBe(503);
      expect((await fetch(`${server.baseUrl}/health/live`)).status).toBe(200);

      await relay.restore();
      await until('recovery', async () => ((await get(server, '/api/v1/clinics')).status === 200 ? true : undefined));
      expect((await fetch(`${server.baseUrl}/health/ready`)).status).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      await relay.close();
    }
  });
});

describe('SIGTERM', () => {
  it('with 50 requests in flight: all 50 complete, new connections are refused, exit code 0', async () => {
    const relay = await createTcpRelay({ host: target.hostname, port: Number(target.port || 5432) });
    // 50 requests queue for the pool's 10 connections behind a slow database for longer than the
    // default connect timeout (a 503 by design); this test is about draining, so it waits.
    const server = await startServer({ DATABASE_URL: viaRelay(relay.port), SHUTDOWN_TIMEOUT_MS: '30000', DATABASE_CONNECT_TIMEOUT_MS: '30000' });
    try {
      expect((await get(server, '/api/v1/clinics')).status).toBe(200);
      relay.slow(400); // every database answer now takes a while: requests stay in flight
      // Each on its own connection (no keep-alive reuse, whose close races are the client's to
      // retry); clinics and campaigns, since the metrics fields have per-second limits of their own.
      let completed = 0;
      const inFlight = Array.from({ length: 50 }, (_, i) =>
        getOnOwnConnection(server, i % 2 ? '/api/v1/clinics' : '/api/v1/campaigns', key).finally(() => completed++),
      );
      // A connection still in the kernel's accept backlog when the listener closes is refused: it
      // was never in flight. The backlog is first in, first out, so once a request on a newer
      // connection is answered, the server has accepted all 50.
      expect((await getOnOwnConnection(server, '/health/live', key)).status).toBe(200);
      expect(completed).toBeLessThan(25);
      server.child.kill('SIGTERM');
      await until('the listener to close', async () => {
        try {
          await fetch(`${server.baseUrl}/health/live`);
          return undefined;
        } catch (error) {
          return (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED' ? true : undefined;
        }
      });
      const results = await Promise.all(inFlight);
      expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
      expect(results.every((r) => r.body.success === true)).toBe(true);
      expect(await server.exited).toBe(0);
      expect(server.output()).toMatch(/SIGTERM received/);
    } finally {
      relay.slow(0);
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      await relay.close();
    }
  });
});

describe('hostile input', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({ DATABASE_URL: databaseUrl });
  });
  afterAll(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });

  it('oversized headers: 431 in the envelope', async () => {
    const response = await fetch(`${server.baseUrl}/api/v1/clinics`, { headers: { authorization: `Bearer ${key}`, 'x-padding': 'x'.repeat(20_000) } });
    expect(response.status).toBe(431);
    const body = await response.json();
    expect(body).toMatchObject({ success: false, error: { code: 'REQUEST_TOO_LARGE' } });
    expect(body.request_id).toBe(response.headers.get('x-request-id'));
  });

  it('a very long query string: a clear 4xx, never a 5xx', async () => {
    const long = await fetch(`${server.baseUrl}/api/v1/interactions?search=${'1'.repeat(50_000)}`, { headers: { authorization: `Bearer ${key}` } });
    expect(long.status).toBe(431);
    const withinLimit = await fetch(`${server.baseUrl}/api/v1/interactions?search=${'1'.repeat(5_000)}`, { headers: { authorization: `Bearer ${key}` } });
    expect(withinLimit.status).toBe(400);
    expect((await withinLimit.json()).error.details.search).toMatch(/at most/);
  });

  it('malformed percent-encoding: a clear 4xx in the envelope, never a 5xx', async () => {
    const cases: Array<[string, number]> = [
      ['/api/v1/interactions/%E0%A4%A', 404],
      ['/api/v1/interactions/%', 404],
      ['/api/v1/interactions?search=%E0%A4%A', 400],
      ['/api/v1/interactions?%zz=1', 400],
      ['/api/v1/interactions?limit=%', 400],
      ['/api/v1/metrics/summary?date_from=%FF%FE', 400],
    ];
    for (const [path, status] of cases) {
      const response = await get(server, path);
      expect(response.status, path).toBe(status);
      const body = await response.json();
      expect(typeof body.success, path).toBe('boolean');
    }
  });

  it('a malformed request line: 400 in the envelope', async () => {
    const answer = await rawRequest(server.port, 'GET /api/v1/clinics HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('"code":"BAD_REQUEST"');
  });
});
