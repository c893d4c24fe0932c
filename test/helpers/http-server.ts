// The app behind a real HTTP server on a loopback port, through the node listener that server.ts
// uses, for tests of what goes over the wire: header fields as an HTTP client receives and parses
// them, not as the in-process Response holds them.
import http from 'node:http';
import type net from 'node:net';
import { afterAll } from 'vitest';
import type { App } from '../../src/app.js';
import { createNodeListener } from '../../src/http/node-listener.js';
import { createLogger } from '../../src/logging/logger.js';
import type { Json, RestResponse } from '../rest/client.js';

export interface HttpServer {
  baseUrl: string;
  /** GET `path` with `Authorization: Bearer <key>` (none when key is undefined), the body parsed as JSON. */
  get(path: string, key?: string): Promise<RestResponse>;
  /** POST a GraphQL query to /graphql. */
  graphql(query: string, key: string): Promise<RestResponse>;
}

/** Serves `app` on 127.0.0.1 until the file's tests end; `stallTimeoutMs` as server.ts's EXPORT_STALL_TIMEOUT_MS (default: none). */
export async function serveOverHttp(app: App, listener: { stallTimeoutMs?: number } = {}): Promise<HttpServer> {
  const logger = createLogger({ level: 'silent', destination: { write: () => true } });
  const server = http.createServer(createNodeListener(app, { logger, trustProxy: false, stallTimeoutMs: listener.stallTimeoutMs }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;

  async function send(path: string, init: RequestInit): Promise<RestResponse> {
    const response = await fetch(`${baseUrl}${path}`, init);
    const text = await response.text();
    let body: Json;
    if (text !== '') body = JSON.parse(text);
    return { status: response.status, headers: response.headers, body, text };
  }

  return {
    baseUrl,
    get: (path, key) => send(path, { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } }),
    graphql: (query, key) =>
      send('/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify({ query }),
      }),
  };
}
