// A client that hangs up while its request body is still arriving is not a database outage: Node
// fails the body's read with "aborted" (code ECONNRESET), which reads like a database socket error.
// Logged as "database unavailable" and counted as one, every impatient client would page whoever
// watches the database.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeListener } from '../../src/http/node-listener.js';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { captureLog } from './support.js';

describe('a client that hangs up mid-body', () => {
  const log = captureLog('info');
  let server: http.Server;
  let port: number;
  let key: string;
  let metricsText: () => Promise<string>;

  beforeAll(async () => {
    const db = testDb();
    key = await createKey(db);
    const metricsToken = 'client-abort-metrics';
    const app = testApp(db, { logger: log.logger, metricsToken });
    metricsText = async () => (await app.fetch('http://localhost/metrics', { headers: { authorization: `Bearer ${metricsToken}` } })).text();
    server = http.createServer(createNodeListener(app, { logger: log.logger, trustProxy: false }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('is logged as a client that went away, not as an error, and not counted as the database failing', async () => {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"query":"{ viewer { name `,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.destroy();
    // The line for the request is written once the server has given up on it.
    const deadline = Date.now() + 5_000;
    while (!log.requests().some((entry) => entry.route === '/graphql') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const line = log.requests().find((entry) => entry.route === '/graphql');
    expect(line, log.text()).toBeDefined();
    const errors = log.entries().filter((entry) => entry.level === 'error');
    expect(errors, log.text()).toEqual([]);
    expect(log.entries().some((entry) => entry.msg === 'database unavailable')).toBe(false);
    expect(log.entries().find((entry) => entry.msg === 'client went away')).toMatchObject({ level: 'info', request_id: line!.request_id });
    expect(await metricsText()).not.toMatch(/api_unexpected_errors_total\{[^}]*\} [1-9]/);
  });
});
