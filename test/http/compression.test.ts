// Response compression (http/compression.ts): over real HTTP against the app as served (node
// listener), with Accept-Encoding set by hand and bodies decompressed here, so that the bytes on the
// wire are what is checked; and streamed bodies (exports) against compression.ts alone, with fake
// sources that count their pulls and record their cancel.
import http from 'node:http';
import type net from 'node:net';
import zlib from 'node:zlib';
import { ReadableStream as PonyfillReadableStream, Response as PonyfillResponse } from '@whatwg-node/fetch';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.js';
import { answerClientErrors } from '../../src/http/client-errors.js';
import { chooseEncoding, isCompressibleType, mergeVary, negotiateCompression, sendCompressed } from '../../src/http/compression.js';
import { createNodeListener } from '../../src/http/node-listener.js';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createClinic } from '../helpers/factories.js';
import { captureLog } from '../observability/support.js';

interface Raw {
  status: number;
  statusMessage: string;
  headers: http.IncomingHttpHeaders;
  /** The body as it came over the wire (still compressed). */
  raw: Buffer;
  /** Names and values as they came, duplicates included. */
  rawHeaders: string[];
}

/** How many times `name` came in the answer's header section. */
function headerCount(answer: Raw, name: string): number {
  return answer.rawHeaders.filter((value, i) => i % 2 === 0 && value.toLowerCase() === name).length;
}

interface RequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** One request on a connection of its own; Node's client never decompresses. */
function send(port: number, path: string, init: RequestInit = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, path, method: init.method ?? 'GET', headers: init.headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          statusMessage: response.statusMessage ?? '',
          headers: response.headers,
          raw: Buffer.concat(chunks),
          rawHeaders: response.rawHeaders,
        }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(init.body);
  });
}

function decoded(answer: Raw): Buffer {
  switch (answer.headers['content-encoding']) {
    case undefined:
      return answer.raw;
    case 'gzip':
      return zlib.gunzipSync(answer.raw);
    case 'br':
      return zlib.brotliDecompressSync(answer.raw);
    default:
      throw new Error(`unexpected Content-Encoding ${answer.headers['content-encoding']}`);
  }
}

/** The parsed JSON body without the fields that differ from one answer to the next. */
function jsonOf(answer: Raw): Record<string, unknown> {
  const { request_id: _id, timestamp: _at, ...rest } = JSON.parse(decoded(answer).toString('utf8')) as Record<string, unknown>;
  return rest;
}

function varyNames(answer: Raw): string[] {
  return String(answer.headers.vary ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
}

async function listen(listener: http.RequestListener): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer(listener);
  answerClientErrors(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as net.AddressInfo).port };
}

async function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe('chooseEncoding (Accept-Encoding, RFC 9110 §12.5.3)', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, br', 'br'],
    ['br, gzip', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['GZIP', 'gzip'],
    ['  Br ; Q = 0.5 ,gzip;q=0.4', 'br'],
    ['gzip;q=0.5, br;q=0.4', 'gzip'],
    ['gzip;q=1.0, br;q=0.999', 'gzip'],
    ['x-gzip', 'gzip'],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['*;q=0', undefined],
    ['gzip;q=0', undefined],
    ['gzip;q=0, br;q=0.000', undefined],
    ['br;q=0, gzip', 'gzip'],
    ['gzip, gzip;q=0', undefined],
    ['identity', undefined],
    ['identity, gzip;q=0.5', undefined],
    ['identity;q=0.5, gzip', 'gzip'],
    ['identity;q=0, gzip;q=0', undefined],
    ['deflate, compress', undefined],
    ['gzip;q=abc', undefined],
    ['gzip;q=abc, br', 'br'],
    ['gzip;q=1.5', undefined],
    ['gzip;q=-1', undefined],
    ['gzip;q=0.1234', undefined],
    ['gzip;q=', undefined],
    ['gzip;level=9', 'gzip'],
    ['g zip, b"r', undefined],
    [',,,;;;=,q=1;', undefined],
  ])('%j → %s', (header, expected) => {
    expect(chooseEncoding(header)).toBe(expected);
  });

  it('reads a header of up to 4 KiB, and takes a longer one for no header', () => {
    expect(chooseEncoding(`${','.repeat(4000)}gzip`)).toBe('gzip');
    expect(chooseEncoding(`${','.repeat(5000)}gzip`)).toBeUndefined();
  });

  it('never throws, and answers br, gzip or identity, whatever the header', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          fc.array(fc.constantFrom('gzip', 'br', '*', ';', 'q=', '0', '1', '.', ',', ' ')).map((parts) => parts.join('')),
        ),
        (header) => {
          expect([undefined, 'gzip', 'br']).toContain(chooseEncoding(header));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('what is compressible', () => {
  it.each([
    ['application/json; charset=utf-8', true],
    ['application/graphql-response+json; charset=utf-8', true],
    ['application/x-ndjson', true],
    ['text/csv; charset=utf-8', true],
    ['TEXT/HTML', true],
    ['application/javascript; charset=utf-8', true],
    ['image/svg+xml', true],
    ['text/event-stream', false],
    ['multipart/mixed; boundary="-"', false],
    ['image/png', false],
    ['application/octet-stream', false],
    [null, false],
  ])('%s: %s', (type, expected) => {
    expect(isCompressibleType(type)).toBe(expected);
  });

  it.each([
    [null, 'Accept-Encoding'],
    ['', 'Accept-Encoding'],
    ['Origin', 'Origin, Accept-Encoding'],
    ['origin, accept-encoding', 'origin, accept-encoding'],
    ['Origin,ACCEPT-ENCODING ', 'Origin,ACCEPT-ENCODING '],
    ['*', '*'],
  ])('Vary %j becomes %j', (vary, expected) => {
    expect(mergeVary(vary)).toBe(expected);
  });
});

describe('the app as served', () => {
  const db = testDb();
  let app: App;
  let server: http.Server;
  let port: number;
  let key: string;
  let standardKey: string;
  const log = captureLog();

  beforeAll(async () => {
    app = testApp(db);
    const clinics = [];
    for (let i = 0; i < 12; i++) clinics.push(await createClinic(db, { name: `Compression clinic ${String(i).padStart(2, '0')}` }));
    const clinicIds = clinics.map((clinic) => clinic.id);
    key = await createKey(db, { clinicIds });
    standardKey = await createKey(db, { clinicIds, tier: 'standard' });
    ({ server, port } = await listen(createNodeListener(app, { logger: log.logger, trustProxy: false })));
  });

  afterAll(() => close(server));

  const clinicsPath = '/api/v1/clinics?limit=50';
  const get = (path: string, acceptEncoding: string | undefined, extra: Record<string, string> = {}) =>
    send(port, path, { headers: { authorization: `Bearer ${key}`, ...(acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding }), ...extra } });

  it('answers gzip and br that decompress to the same JSON as the identity answer, with the compressed length', async () => {
    const identity = await get(clinicsPath, undefined);
    expect(identity.status).toBe(200);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.raw.length).toBeGreaterThanOrEqual(1024);
    expect(Number(identity.headers['content-length'])).toBe(identity.raw.length);
    expect(varyNames(identity)).toContain('accept-encoding');

    for (const encoding of ['gzip', 'br']) {
      const answer = await get(clinicsPath, encoding);
      expect(answer.status).toBe(200);
      expect(answer.statusMessage).toBe('OK');
      expect(answer.headers['content-encoding']).toBe(encoding);
      // Merged with whatever Vary the route has, never repeated.
      expect(varyNames(answer).filter((name) => name === 'accept-encoding')).toHaveLength(1);
      expect(varyNames(answer)).toEqual(varyNames(identity));
      expect(headerCount(answer, 'vary')).toBe(1);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.headers['x-request-id']).toMatch(/\S/);
      expect(answer.headers['cache-control']).toBe(identity.headers['cache-control']);
      expect(Number(answer.headers['content-length'])).toBe(answer.raw.length);
      expect(answer.headers['transfer-encoding']).toBeUndefined();
      expect(answer.raw.length).toBeLessThan(identity.raw.length / 2);
      expect(jsonOf(answer)).toEqual(jsonOf(identity));
    }
  });

  it('keeps the rate-limit headers and the request id the client sent', async () => {
    const answer = await send(port, clinicsPath, {
      headers: { authorization: `Bearer ${standardKey}`, 'accept-encoding': 'br', 'x-request-id': 'compression-test-1' },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('br');
    expect(answer.headers['x-request-id']).toBe('compression-test-1');
    expect(answer.headers['x-ratelimit-remaining-minute']).toMatch(/^\d+$/);
    expect(answer.headers.ratelimit).toMatch(/"minute";r=\d+/);
    expect(answer.headers['ratelimit-policy']).toMatch(/"minute";q=\d+/);
  });

  it('sends a body under 1 KiB (an error envelope) as it is, marked as varying', async () => {
    const answer = await send(port, clinicsPath, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(answer.status).toBe(401);
    expect(answer.raw.length).toBeLessThan(1024);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(varyNames(answer)).toContain('accept-encoding');
    expect(JSON.parse(answer.raw.toString('utf8')).error.code).toBe('UNAUTHORIZED');
  });

  it.each([
    ['gzip;q=0, br;q=0', undefined],
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=0.5, br;q=0.4', 'gzip'],
    ['identity', undefined],
    ['identity, br;q=0.5', undefined],
    ['*', 'br'],
    ['GZip', 'gzip'],
  ])('honours Accept-Encoding %j (%s)', async (acceptEncoding, expected) => {
    const answer = await get(clinicsPath, acceptEncoding);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe(expected);
    expect(varyNames(answer)).toContain('accept-encoding');
    expect(Array.isArray(JSON.parse(decoded(answer).toString('utf8')).data.clinics)).toBe(true);
  });

  it.each([
    ['gzip;q=abc'],
    ['*;q=0'],
    [',;=;q=;;,'],
    ['br;q=1.0001, gzip;q=NaN'],
    ['gzip;q=Infinity, br;q=1e0'],
    [`${','.repeat(8_000)}br`],
    [`${'gzip;q=0.5, '.repeat(600)}`],
  ])('falls back to identity on a hostile Accept-Encoding (case %#)', async (acceptEncoding) => {
    const answer = await get(clinicsPath, acceptEncoding);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(answer.raw.toString('utf8')).success).toBe(true);
  });

  it('answers 100 KB of commas with a 4xx (headers too large), not a 500', async () => {
    const answer = await get(clinicsPath, ','.repeat(100_000));
    expect(answer.status).toBe(431);
    expect(JSON.parse(answer.raw.toString('utf8')).error.code).toBe('REQUEST_TOO_LARGE');
    expect(log.entries().filter((entry) => entry.level === 'error' || entry.level === 'warn')).toEqual([]);
  });

  it('compresses GraphQL POST answers', async () => {
    const body = JSON.stringify({ query: '{ clinics(limit: 50) { nodes { id name address phone email timezone } } }' });
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/graphql-response+json' };
    const identity = await send(port, '/graphql', { method: 'POST', headers, body });
    expect(identity.status).toBe(200);
    expect(identity.raw.length).toBeGreaterThanOrEqual(1024);
    for (const encoding of ['gzip', 'br']) {
      const answer = await send(port, '/graphql', { method: 'POST', headers: { ...headers, 'accept-encoding': encoding }, body });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('application/graphql-response+json; charset=utf-8');
      expect(answer.headers['content-encoding']).toBe(encoding);
      expect(varyNames(answer)).toContain('accept-encoding');
      const data = JSON.parse(decoded(answer).toString('utf8'));
      expect(data).toEqual(JSON.parse(identity.raw.toString('utf8')));
      expect(data.data.clinics.nodes).toHaveLength(12);
    }
  });

  it('compresses the OpenAPI document', async () => {
    const identity = await send(port, '/api/v1/openapi.json');
    expect(identity.status).toBe(200);
    expect(varyNames(identity)).toContain('accept-encoding');
    for (const encoding of ['gzip', 'br']) {
      const answer = await send(port, '/api/v1/openapi.json', { headers: { 'accept-encoding': `${encoding}, deflate` } });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-encoding']).toBe(encoding);
      expect(answer.headers['access-control-allow-origin']).toBe('*');
      expect(answer.raw.length).toBeLessThan(identity.raw.length / 5);
      expect(decoded(answer).equals(identity.raw)).toBe(true);
    }
  });

  it('weakens a strong ETag when it compresses, and answers HEAD and 304 uncompressed but varying', async () => {
    const path = '/docs/swagger-ui.css';
    const identity = await send(port, path);
    const etag = identity.headers.etag!;
    expect(etag).toMatch(/^"/);
    expect(varyNames(identity)).toContain('accept-encoding');

    const answer = await send(port, path, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('br');
    expect(answer.headers.etag).toBe(`W/${etag}`);
    expect(headerCount(answer, 'etag')).toBe(1);
    expect(answer.headers['cache-control']).toBe(identity.headers['cache-control']);
    expect(decoded(answer).equals(identity.raw)).toBe(true);

    const head = await send(port, path, { method: 'HEAD', headers: { 'accept-encoding': 'br' } });
    expect(head.status).toBe(200);
    expect(head.raw.length).toBe(0);
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(varyNames(head)).toContain('accept-encoding');
    expect(head.headers.etag).toBe(`W/${etag}`);
    expect(headerCount(head, 'etag')).toBe(1);
    expect(headerCount(head, 'vary')).toBe(1);

    const notModified = await send(port, path, { headers: { 'accept-encoding': 'gzip', 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.raw.length).toBe(0);
    expect(notModified.headers['content-encoding']).toBeUndefined();
    expect(varyNames(notModified)).toContain('accept-encoding');
    expect(notModified.headers.etag).toBe(`W/${etag}`);
    expect(headerCount(notModified, 'etag')).toBe(1);
  });

  it('answers HEAD on a REST route without a body or a coding', async () => {
    const answer = await get(clinicsPath, 'br', {});
    const head = await send(port, clinicsPath, { method: 'HEAD', headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'br' } });
    expect(answer.headers['content-encoding']).toBe('br');
    expect(head.status).toBe(200);
    expect(head.raw.length).toBe(0);
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(varyNames(head)).toContain('accept-encoding');
  });

  it('compresses the docs page scripts, and leaves the PNG alone', async () => {
    const script = await send(port, '/docs/swagger-ui-bundle.js', { headers: { 'accept-encoding': 'gzip' } });
    expect(script.status).toBe(200);
    expect(script.headers['content-encoding']).toBe('gzip');
    expect(decoded(script).length).toBeGreaterThan(script.raw.length * 2);
    const png = await send(port, '/docs/favicon-32x32.png', { headers: { 'accept-encoding': 'gzip, br' } });
    expect(png.status).toBe(200);
    expect(png.headers['content-encoding']).toBeUndefined();
    expect(png.headers.vary).toBeUndefined();
  });

  it("compresses a static file once per coding, however many ask for it at once or later (GraphiQL's files; /docs's alike)", async () => {
    const spies = { gzip: vi.spyOn(zlib, 'gzip'), br: vi.spyOn(zlib, 'brotliCompress') };
    try {
      for (const [coding, spy] of Object.entries(spies)) {
        for (const file of ['/graphiql/graphiql.js', '/graphiql/editor.worker.js']) {
          spy.mockClear();
          const answers = await Promise.all(Array.from({ length: 6 }, () => send(port, file, { headers: { 'accept-encoding': coding } })));
          answers.push(await send(port, file, { headers: { 'accept-encoding': coding } }));
          const identity = await send(port, file, {});
          for (const answer of answers) {
            expect(answer.status).toBe(200);
            expect(answer.headers['content-encoding']).toBe(coding);
            expect(decoded(answer).equals(identity.raw), `${file} ${coding}`).toBe(true);
          }
          // Once per coding and process: an earlier file of this worker may have asked already.
          expect(spy.mock.calls.length, `${file} ${coding}`).toBeLessThanOrEqual(1);
        }
      }
      // An answer that is not a static file is compressed each time.
      spies.gzip.mockClear();
      for (let i = 0; i < 2; i++) expect((await get(clinicsPath, 'gzip')).headers['content-encoding']).toBe('gzip');
      expect(spies.gzip).toHaveBeenCalledTimes(2);
    } finally {
      for (const spy of Object.values(spies)) spy.mockRestore();
    }
  });

  it('logged no failure while answering', () => {
    expect(log.entries().filter((entry) => entry.level === 'error' || entry.level === 'warn')).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Streamed bodies, against compression.ts alone.

type StreamKind = 'standard' | 'whatwg-node';

interface FakeSource {
  stream: ReadableStream<Uint8Array>;
  /** Chunks handed out so far. */
  pulled(): number;
  cancelled: Promise<unknown>;
  /** What cancel() was called with; undefined while it was not. */
  cancelReason(): unknown;
  /** Every byte handed out so far. */
  sent(): Buffer;
}

/**
 * An export as the colleague's endpoints will make one: a pull-based stream of NDJSON rows, `rowsPerChunk`
 * per chunk; after `chunks` chunks it ends, or stalls for good (a query that stopped yielding), or
 * fails. Random ids keep it from compressing to nothing, so backpressure is reached quickly.
 */
function fakeExport(kind: StreamKind, options: { chunks: number; rowsPerChunk?: number; after?: 'end' | 'stall' | 'fail' }): FakeSource {
  const rowsPerChunk = options.rowsPerChunk ?? 20;
  let pulled = 0;
  let cancelReason: unknown;
  const sent: Buffer[] = [];
  let markCancelled: (reason: unknown) => void = () => {};
  const cancelledPromise = new Promise<unknown>((resolve) => (markCancelled = resolve));
  const source = {
    pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> | void {
      if (pulled >= options.chunks) {
        if (options.after === 'stall') return new Promise<void>(() => {});
        if (options.after === 'fail') throw new Error('boom: the export query failed');
        controller.close();
        return;
      }
      let text = '';
      for (let i = 0; i < rowsPerChunk; i++) {
        const n = pulled * rowsPerChunk + i;
        text += `${JSON.stringify({ n, id: crypto.randomUUID(), clinic: `clinic-${n % 7}`, channel: n % 2 ? 'call' : 'whatsapp', at: new Date(1.7e12 + n * 1000).toISOString() })}\n`;
      }
      const chunk = Buffer.from(text);
      sent.push(chunk);
      pulled++;
      controller.enqueue(chunk);
    },
    cancel(reason: unknown) {
      cancelReason ??= reason;
      markCancelled(reason);
    },
  };
  const stream =
    kind === 'standard'
      ? new ReadableStream<Uint8Array>(source, { highWaterMark: 1 })
      : (new PonyfillReadableStream<Uint8Array>(source) as unknown as ReadableStream<Uint8Array>);
  return { stream, pulled: () => pulled, cancelled: cancelledPromise, cancelReason: () => cancelReason, sent: () => Buffer.concat(sent) };
}

function exportResponse(kind: StreamKind, stream: ReadableStream<Uint8Array>): Response {
  const init = { status: 200, headers: { 'Content-Type': 'application/x-ndjson', 'X-Request-Id': 'export-1', Vary: 'Origin' } };
  return kind === 'standard' ? new Response(stream, init) : (new PonyfillResponse(stream, init) as unknown as Response);
}

/** A server that answers every request with `answer()` through negotiateCompression and sendCompressed, keeping the outcome of each send. */
async function streamServer(answer: () => Response) {
  const outcomes: Array<Promise<'sent' | Error>> = [];
  const { server, port } = await listen((request, response) => {
    const built = answer();
    const encoding = negotiateCompression(request, built);
    if (!encoding) {
      response.writeHead(500).end('expected a compressible answer');
      return;
    }
    outcomes.push(
      sendCompressed(built, response, encoding).then(
        () => 'sent' as const,
        (error: Error) => error,
      ),
    );
  });
  return { server, port, outcomes };
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms))]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens a request and hands over the response as it starts, without reading it. */
function open(port: number, acceptEncoding: string): Promise<{ response: http.IncomingMessage; request: http.ClientRequest }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/export', headers: { 'accept-encoding': acceptEncoding }, agent: false }, (response) =>
      resolve({ response, request }),
    );
    request.on('error', reject);
  });
}

describe.each<StreamKind>(['standard', 'whatwg-node'])('a streamed body (%s ReadableStream)', (kind) => {
  it.each(['gzip', 'br'])('is sent chunked in %s and decompresses to every byte of the source', async (encoding) => {
    let source: FakeSource | undefined;
    const { server, port, outcomes } = await streamServer(() => {
      source = fakeExport(kind, { chunks: 400 });
      return exportResponse(kind, source.stream);
    });
    try {
      const answer = await send(port, '/export', { headers: { 'accept-encoding': encoding } });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-encoding']).toBe(encoding);
      expect(answer.headers['content-length']).toBeUndefined();
      expect(answer.headers['transfer-encoding']).toBe('chunked');
      expect(answer.headers['x-request-id']).toBe('export-1');
      expect(varyNames(answer)).toEqual(['origin', 'accept-encoding']);
      expect(headerCount(answer, 'vary')).toBe(1);
      const body = decoded(answer);
      expect(body.length).toBeGreaterThan(400_000);
      expect(body.equals(source!.sent())).toBe(true);
      expect(answer.raw.length).toBeLessThan(body.length / 2);
      expect(await outcomes[0]).toBe('sent');
      // Not cancelled for the client's leaving. (@whatwg-node's stream calls its source's cancel
      // with null once it has ended, of its own accord: an export's cancel() must allow for that.)
      expect(source!.cancelReason()).toBeFalsy();
    } finally {
      await close(server);
    }
  });

  it('goes out as it is, with its length, when it ends under 1 KiB', async () => {
    const { server, port, outcomes } = await streamServer(() => exportResponse(kind, fakeExport(kind, { chunks: 2, rowsPerChunk: 2 }).stream));
    try {
      const answer = await send(port, '/export', { headers: { 'accept-encoding': 'br' } });
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(Number(answer.headers['content-length'])).toBe(answer.raw.length);
      expect(answer.raw.toString('utf8').trim().split('\n')).toHaveLength(4);
      expect(varyNames(answer)).toEqual(['origin', 'accept-encoding']);
      expect(headerCount(answer, 'vary')).toBe(1);
      expect(await outcomes[0]).toBe('sent');
    } finally {
      await close(server);
    }
  });

  it('is read only as fast as the client reads', async () => {
    let source: FakeSource | undefined;
    const { server, port } = await streamServer(() => {
      source = fakeExport(kind, { chunks: Number.MAX_SAFE_INTEGER, rowsPerChunk: 50 });
      return exportResponse(kind, source.stream);
    });
    try {
      const { response, request } = await open(port, 'gzip');
      response.pause();
      // Until the socket buffers on both sides are full; then the source must stop being read.
      let before = -1;
      for (let i = 0; i < 50 && before !== source!.pulled(); i++) {
        before = source!.pulled();
        await sleep(200);
      }
      const stalledAt = source!.pulled();
      await sleep(500);
      expect(source!.pulled()).toBe(stalledAt);
      // A few MB at most (loopback socket buffers), never the endless source.
      expect(source!.sent().length).toBeLessThan(64 * 1024 * 1024);
      request.destroy();
      await within(source!.cancelled, 5_000, 'the source was not cancelled');
    } finally {
      await close(server);
    }
  });

  it.each(['gzip', 'br'])('reaches a client in %s while the source stalls, without waiting for the end', async (encoding) => {
    let source: FakeSource | undefined;
    const { server, port, outcomes } = await streamServer(() => {
      source = fakeExport(kind, { chunks: 3, rowsPerChunk: 10, after: 'stall' });
      return exportResponse(kind, source.stream);
    });
    try {
      const { response, request } = await open(port, encoding);
      const decompressor = encoding === 'br' ? zlib.createBrotliDecompress() : zlib.createGunzip();
      let text = '';
      decompressor.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.pipe(decompressor);
      const expected = source!.sent().toString('utf8');
      const started = Date.now();
      while (text.length < expected.length && Date.now() - started < 5_000) await sleep(50);
      expect(text).toBe(expected);
      // The client leaves: the stalled source is cancelled (an export's cancel() stops its query).
      request.destroy();
      await within(source!.cancelled, 5_000, 'the stalled source was not cancelled');
      expect(await within(outcomes[0]!, 5_000, 'the send did not settle')).toBe('sent');
    } finally {
      await close(server);
    }
  });

  it('cancels the source when the client goes mid-stream, and settles quietly', async () => {
    let source: FakeSource | undefined;
    const { server, port, outcomes } = await streamServer(() => {
      source = fakeExport(kind, { chunks: Number.MAX_SAFE_INTEGER });
      return exportResponse(kind, source.stream);
    });
    try {
      const { response, request } = await open(port, 'br');
      await new Promise((resolve) => response.once('data', resolve));
      request.destroy();
      await within(source!.cancelled, 5_000, 'the source was not cancelled');
      expect(await within(outcomes[0]!, 5_000, 'the send did not settle')).toBe('sent');
      const pulledAfterCancel = source!.pulled();
      await sleep(200);
      expect(source!.pulled()).toBe(pulledAfterCancel);
    } finally {
      await close(server);
    }
  });

  it('destroys the response when the source fails, so the client sees a truncated answer, and rejects', async () => {
    const { server, port, outcomes } = await streamServer(() => exportResponse(kind, fakeExport(kind, { chunks: 40, after: 'fail' }).stream));
    try {
      const { response } = await open(port, 'gzip');
      const ended = await new Promise<'end' | 'aborted'>((resolve) => {
        response.on('data', () => {});
        response.on('end', () => resolve('end'));
        response.on('error', () => resolve('aborted'));
        response.on('aborted', () => resolve('aborted'));
      });
      expect(ended).toBe('aborted');
      const outcome = await within(outcomes[0]!, 5_000, 'the send did not settle');
      expect(outcome).toBeInstanceOf(Error);
      expect((outcome as Error).message).toContain('boom');
    } finally {
      await close(server);
    }
  });
});

describe('sendCompressed on a response already gone', () => {
  it('cancels a stream body and writes nothing', async () => {
    const source = fakeExport('standard', { chunks: 10 });
    const { server, port } = await listen((request, response) => {
      const answer = exportResponse('standard', source.stream);
      const encoding = negotiateCompression(request, answer);
      response.destroy();
      void sendCompressed(answer, response, encoding!);
    });
    try {
      await send(port, '/export', { headers: { 'accept-encoding': 'gzip' } }).catch(() => undefined);
      await within(source.cancelled, 5_000, 'the source was not cancelled');
    } finally {
      await close(server);
    }
  });
});
