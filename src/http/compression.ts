// Response compression in the service's own HTTP layer (decisions: "gzip and br per
// Accept-Encoding for bodies of 1 KiB or more, exports included"). node-listener.ts asks
// negotiateCompression() which coding an answer goes out in and, when there is one, sends it with
// sendCompressed() instead of @whatwg-node's sendNodeResponse.
//
// A body known in full (a string or buffer with its Content-Length: the envelope, GraphQL results,
// the OpenAPI document) is compressed in one call on libuv's threadpool, never with the *Sync
// functions, so the event loop keeps serving while it runs; it goes out with its new length. A
// streamed body (an export: no Content-Length, possibly millions of rows) goes through a zlib
// stream with backpressure, chunked, and is never held whole. Its first 1 KiB is read before
// deciding: a stream that ends below it goes out as it is, with a Content-Length, like any small
// body, so the threshold means the same thing for both kinds of body; a real export passes 1 KiB
// within its first rows, so the wait costs it nothing.
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { replaceHeader, varyWith } from './app-plugins.js';

export type ContentCoding = 'br' | 'gzip';

/** Smaller bodies are sent as they are: the coding's framing and a round of the threadpool cost more than the bytes saved. */
export const MIN_COMPRESSED_BYTES = 1024;

/**
 * Measured on this service's kinds of body (a 37 KB page of interactions, the 240 KB OpenAPI
 * document, the 1.7 MB Swagger UI bundle, 2-4 MB of CSV, a 12 MB NDJSON export written in 500-row
 * chunks) on a busy 2-core host: brotli at quality 4 took 0.5-1.5x the time of gzip at 6 (both
 * 40-160 MB/s) and came out 3-35% smaller (the streamed export most: its 4 MiB window reaches rows
 * far back); quality 5 gained 0-10% more for 1.5-3x the CPU; the default, 11, runs 100-200 times
 * slower (0.2 s for the OpenAPI document, 10 s for 4 MB of CSV): a setting for files compressed
 * once, not per request.
 */
const BROTLI_QUALITY = 4;
/** zlib's own default: level 9 took 2-3.5x as long for 1-4% less; level 4 saved 25-35% of the time but came out 4-14% larger. */
const GZIP_LEVEL = 6;

/** A known body larger than this is streamed through the compressor rather than read into memory first. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

/**
 * How long compressed bytes of a stream may wait inside the compressor while nothing reaches the
 * client. A sync flush on every chunk would cost ratio (each one ends a deflate block, or a brotli
 * meta-block); the compressor emits on its own once a 16 KiB chunk of output is full, so a fast
 * export is never flushed early. A slow one (a query that yields a row now and then) is flushed at
 * most this often, so its client still sees the rows as they come.
 */
const STALL_FLUSH_MS = 500;

/** Beyond this an Accept-Encoding is not a browser's or an HTTP library's (they send a few dozen bytes): it is ignored. */
const MAX_ACCEPT_ENCODING_LENGTH = 4096;

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
/** RFC 9110 §12.4.2: at most three decimals, and never above 1. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The coding the client accepts most (RFC 9110 §12.5.3): the highest q wins; br wins a tie with
 * gzip, both win a tie with identity; `*` stands for every coding not named; q=0 refuses. An
 * element that is malformed (a bad q, a name that is not a token) counts as absent, a coding named
 * twice takes its lower q, and a missing, empty, over-long or unusable header means identity
 * (undefined), which is also the answer when identity itself is refused: a 406 would help no one.
 */
export function chooseEncoding(header: string | undefined): ContentCoding | undefined {
  if (!header || header.length > MAX_ACCEPT_ENCODING_LENGTH) return undefined;
  const weights = new Map<string, number>();
  for (const element of header.split(',')) {
    const [rawName = '', ...parameters] = element.split(';');
    let name = rawName.trim().toLowerCase();
    if (!TOKEN.test(name)) continue;
    let weight: number | undefined = 1;
    for (const parameter of parameters) {
      const eq = parameter.indexOf('=');
      if (eq === -1 || parameter.slice(0, eq).trim().toLowerCase() !== 'q') continue;
      const value = parameter.slice(eq + 1).trim();
      weight = QVALUE.test(value) ? Number(value) : undefined;
    }
    if (weight === undefined) continue;
    // RFC 9110 §8.4.1.3: a recipient should take x-gzip to be gzip.
    if (name === 'x-gzip') name = 'gzip';
    const earlier = weights.get(name);
    weights.set(name, earlier === undefined ? weight : Math.min(earlier, weight));
  }
  const any = weights.get('*');
  const weightOf = (coding: string) => weights.get(coding) ?? any ?? 0;
  const br = weightOf('br');
  const gzip = weightOf('gzip');
  const best = Math.max(br, gzip);
  // Identity only wins when named with a higher q than any coding (`identity, gzip;q=0.5`).
  if (best === 0 || best < (weights.get('identity') ?? 0)) return undefined;
  return br >= gzip ? 'br' : 'gzip';
}

/**
 * Text compresses; images, archives and fonts are compressed already. Server-sent events and
 * multipart (GraphQL's incremental delivery) are not compressed: each event or part must reach
 * the client when it is written, which a compressor holding bytes back would break.
 */
export function isCompressibleType(contentType: string | null): boolean {
  if (!contentType) return false;
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  if (type.startsWith('text/')) return type !== 'text/event-stream';
  return COMPRESSIBLE_TYPES.has(type) || type.endsWith('+json') || type.endsWith('+xml');
}

const COMPRESSIBLE_TYPES: ReadonlySet<string> = new Set([
  'application/json',
  'application/x-ndjson',
  'application/javascript',
  'application/xml',
  'application/yaml',
  'application/graphql',
  // image/svg+xml, application/graphql-response+json, application/problem+json: by suffix.
]);

/** Statuses that never carry a body; 206 would be a range of the uncompressed bytes. */
const NO_BODY_STATUSES: ReadonlySet<number> = new Set([204, 205, 206, 304]);

/** `vary` with Accept-Encoding added, unless it names it (in any case) or is `*` already. */
export function mergeVary(vary: string | null): string {
  return varyWith(vary, 'Accept-Encoding');
}

/** `W/"x"` for a strong `"x"`: a strong validator promises the very bytes, and compressed bytes are not those of the identity answer. */
function weakened(etag: string): string {
  return etag.startsWith('W/') ? etag : `W/${etag}`;
}

/**
 * Which coding `answer` goes out in; undefined: as it is. Whatever the request's Accept-Encoding,
 * an answer whose representation could depend on it (a textual type, a status that may have a
 * body, not encoded by the app already) is marked `Vary: Accept-Encoding` here, so that caches
 * keep the codings apart; HEAD and 304 are never compressed, but carry the Vary (and the weakened
 * ETag) that a GET would. Compressed: any status but 1xx/204/205/206/304 (an error envelope of
 * 1 KiB or more is as compressible as a page), and only bodies of MIN_COMPRESSED_BYTES or more
 * (for a stream, see sendCompressed).
 */
export function negotiateCompression(request: IncomingMessage, answer: Response): ContentCoding | undefined {
  const { headers, status } = answer;
  if (status < 200 || status === 204 || status === 205 || status === 206) return undefined;
  if (headers.has('content-encoding') || !isCompressibleType(headers.get('content-type'))) return undefined;
  try {
    replaceHeader(headers, 'Vary', mergeVary(headers.get('vary')));
  } catch {
    // Headers of a Response the app did not build (a fetch()'s) are immutable; such an answer goes out as it is.
    return undefined;
  }
  const encoding = chooseEncoding(headerText(request.headers['accept-encoding']));
  if (!encoding) return undefined;
  const etag = headers.get('etag');
  if (NO_BODY_STATUSES.has(status) || request.method === 'HEAD') {
    if (etag) replaceHeader(headers, 'ETag', weakened(etag));
    return undefined;
  }
  const length = contentLengthOf(headers);
  // Only asked when there is no length: @whatwg-node makes a stream of a string body when its `body` is read.
  if (length === undefined) return answer.body === null ? undefined : encoding;
  return length < MIN_COMPRESSED_BYTES ? undefined : encoding;
}

/**
 * Sends `answer` to `response` in `encoding` (from negotiateCompression), keeping its status,
 * reason phrase and headers but Content-Length. Resolves once the answer is sent, or as soon as
 * the client has gone (its stream body cancelled: an export's cancel() stops its query); rejects
 * when the body or the compressor failed, after destroying the response, as a truncated answer
 * must not look complete. Never throws synchronously.
 */
export async function sendCompressed(answer: Response, response: ServerResponse, encoding: ContentCoding): Promise<void> {
  const body = answer.body;
  if (response.destroyed || response.writableEnded) {
    await body?.cancel().catch(ignore);
    return;
  }
  const length = contentLengthOf(answer.headers);
  if (length !== undefined && length <= MAX_BUFFERED_BYTES) {
    await sendWhole(answer, response, encoding, bytesOf(await answer.arrayBuffer()));
    return;
  }
  if (body) await sendStream(answer, body, response, encoding);
  else writeHead(response, answer, { length: 0 }).end();
}

async function sendWhole(answer: Response, response: ServerResponse, encoding: ContentCoding, input: Buffer): Promise<void> {
  const staticKey = staticKeyOf(answer.headers, encoding);
  const compressed =
    input.length < MIN_COMPRESSED_BYTES ? undefined : staticKey ? await compressStatic(staticKey, encoding, input) : await compress(encoding, input);
  if (response.destroyed) return;
  // Bytes that do not shrink (compressed data labelled as text) go out as they came.
  if (!compressed || compressed.length >= input.length) {
    writeHead(response, answer, { length: input.length }).end(input);
    return;
  }
  writeHead(response, answer, { length: compressed.length, encoding }).end(compressed);
}

function compress(encoding: ContentCoding, input: Buffer): Promise<Buffer> {
  // zlib's functions are looked up at each call (not promisified once) so that a test can count them.
  return encoding === 'br' ? promisify(zlib.brotliCompress)(input, brotliOptions(input.length)) : promisify(zlib.gzip)(input, { level: GZIP_LEVEL });
}

/**
 * The static files (/docs, /graphiql: `Cache-Control: public` and a strong ETag, which names their
 * bytes) are compressed once per coding and kept. GraphiQL's 5 MB bundle takes 150-180 ms of CPU to
 * compress, and anyone may ask for it without a key: compressed anew each time, a loop of such
 * requests would hold both cores. Requests that arrive while it is being compressed wait for that
 * one compression. Bounded: STATIC_CACHE_BYTES of compressed bodies (all of today's fit in 6 MB).
 */
const STATIC_CACHE_BYTES = 32 * 1024 * 1024;
const staticBodies = new LRUCache<string, Buffer>({ maxSize: STATIC_CACHE_BYTES, sizeCalculation: (body) => body.length || 1 });
const staticInFlight = new Map<string, Promise<Buffer>>();

function staticKeyOf(headers: Headers, encoding: ContentCoding): string | undefined {
  const etag = headers.get('etag');
  const cache = headers.get('cache-control') ?? '';
  if (!etag || etag.startsWith('W/') || !/(^|,)\s*public\s*(,|$)/i.test(cache)) return undefined;
  return `${encoding} ${etag}`;
}

async function compressStatic(key: string, encoding: ContentCoding, input: Buffer): Promise<Buffer> {
  const kept = staticBodies.get(key);
  if (kept) return kept;
  let pending = staticInFlight.get(key);
  if (!pending) {
    pending = compress(encoding, input)
      .then((body) => {
        staticBodies.set(key, body);
        return body;
      })
      .finally(() => staticInFlight.delete(key));
    staticInFlight.set(key, pending);
  }
  return pending;
}

function brotliOptions(sizeHint: number | undefined): zlib.BrotliOptions {
  const { BROTLI_PARAM_QUALITY, BROTLI_PARAM_MODE, BROTLI_MODE_TEXT, BROTLI_PARAM_SIZE_HINT } = zlib.constants;
  const params: Record<number, number> = { [BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [BROTLI_PARAM_MODE]: BROTLI_MODE_TEXT };
  // Lets brotli size its window and tables to the body rather than to the largest one it allows.
  if (sizeHint !== undefined) params[BROTLI_PARAM_SIZE_HINT] = sizeHint;
  return { params };
}

function createCompressor(encoding: ContentCoding): zlib.Gzip | zlib.BrotliCompress {
  return encoding === 'br' ? zlib.createBrotliCompress(brotliOptions(undefined)) : zlib.createGzip({ level: GZIP_LEVEL });
}

async function sendStream(answer: Response, body: ReadableStream<Uint8Array>, response: ServerResponse, encoding: ContentCoding): Promise<void> {
  const reader = body.getReader();
  let sourceDone = false;
  let clientGone = false;
  const cancelSource = (reason: unknown) => {
    if (sourceDone) return;
    sourceDone = true;
    reader.cancel(reason).catch(ignore);
    // @whatwg-node's own ReadableStream runs its reader's cancel only after a pending read has
    // settled, which a stalled query never does; cancelling the stream itself runs the source's
    // cancel() at once. Without a reason: it would be emitted as the Node stream's 'error' event,
    // which nothing may be listening to any more. A standard stream refuses this while locked,
    // and needs only the reader's.
    if (!isStandardStream(body)) body.cancel().catch(ignore);
  };
  const gone = new Error('the client closed the connection before the response was sent');
  const onClose = () => {
    if (response.writableFinished) return;
    clientGone = true;
    cancelSource(gone);
  };
  response.once('close', onClose);
  try {
    const prefix: Buffer[] = [];
    let size = 0;
    while (size < MIN_COMPRESSED_BYTES) {
      const { done, value } = await reader.read();
      if (clientGone) return;
      if (done) {
        sourceDone = true;
        await sendWhole(answer, response, encoding, Buffer.concat(prefix, size));
        return;
      }
      const chunk = bytesOf(value);
      prefix.push(chunk);
      size += chunk.length;
    }
    await pump(answer, reader, prefix, response, encoding, () => clientGone);
    sourceDone = true;
  } catch (error) {
    cancelSource(error);
    // What the client's leaving caused (a read our cancel ended, the pipeline's premature close) is
    // no failure; a source or compressor that failed on its own is, even if the close came first.
    if (clientGone && (error === gone || (error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE')) return;
    response.destroy();
    throw error;
  } finally {
    response.off('close', onClose);
  }
}

/** Writes `prefix`, then the rest of the source, through a compressor to the client, at the pace the client reads. */
async function pump(
  answer: Response,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  prefix: Buffer[],
  response: ServerResponse,
  encoding: ContentCoding,
  clientGone: () => boolean,
): Promise<void> {
  const compressor = createCompressor(encoding);
  writeHead(response, answer, { encoding });
  // Destroys both streams if either fails or the client goes; settles when the last byte is out.
  const sent = pipeline(compressor, response);
  sent.catch(ignore);

  let pending = false;
  let flushing = false;
  let lastOutputAt = performance.now();
  compressor.on('data', () => {
    lastOutputAt = performance.now();
  });
  const flushKind = encoding === 'br' ? zlib.constants.BROTLI_OPERATION_FLUSH : zlib.constants.Z_SYNC_FLUSH;
  const staller = setInterval(() => {
    if (!pending || flushing || compressor.writableEnded || compressor.writableNeedDrain) return;
    if (performance.now() - lastOutputAt < STALL_FLUSH_MS) return;
    pending = false;
    flushing = true;
    compressor.flush(flushKind, () => {
      flushing = false;
    });
  }, STALL_FLUSH_MS).unref();

  try {
    const write = async (chunk: Buffer) => {
      pending = true;
      if (!compressor.write(chunk)) await drained(compressor);
    };
    for (const chunk of prefix) await write(chunk);
    for (;;) {
      if (compressor.destroyed || clientGone()) break;
      const { done, value } = await reader.read();
      if (done || clientGone()) break;
      await write(bytesOf(value));
    }
    // Ending the compressor finishes its stream (Z_FINISH, or brotli's last meta-block): whatever it held goes out.
    if (!compressor.destroyed && !clientGone()) compressor.end();
    await sent;
  } catch (error) {
    compressor.destroy();
    throw error;
  } finally {
    clearInterval(staller);
  }
}

/** Settles when `stream` wants more, or will never again (destroyed). */
function drained(stream: zlib.Gzip | zlib.BrotliCompress): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

function writeHead(response: ServerResponse, answer: Response, options: { length?: number; encoding?: ContentCoding }): ServerResponse {
  for (const [name, value] of answer.headers) {
    const lower = name.toLowerCase();
    if (lower === 'content-length' || lower === 'set-cookie') continue;
    response.setHeader(name, value);
  }
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) response.setHeader('Set-Cookie', cookies);
  if (options.length !== undefined) response.setHeader('Content-Length', options.length);
  if (options.encoding) {
    response.setHeader('Content-Encoding', options.encoding);
    const etag = answer.headers.get('etag');
    if (etag) response.setHeader('ETag', weakened(etag));
  }
  // The app's reason phrase; a Response built without one has "" and Node's own is used instead.
  response.writeHead(answer.status, answer.statusText || STATUS_CODES[answer.status]);
  return response;
}

function contentLengthOf(headers: Headers): number | undefined {
  const value = headers.get('content-length');
  return value !== null && /^\d{1,15}$/.test(value) ? Number(value) : undefined;
}

/** A body chunk as a Buffer, without copying; a stream of strings (which the Fetch API allows no stream to carry, but a careless one might) as UTF-8. */
function bytesOf(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (ArrayBuffer.isView(chunk)) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return Buffer.from(chunk);
  if (typeof chunk === 'string') return Buffer.from(chunk);
  throw new TypeError(`a response body chunk must be bytes, got ${typeof chunk}`);
}

/** Node's own web stream, as opposed to @whatwg-node's (whose class claims every object with a getReader as its instance). */
function isStandardStream(stream: object): boolean {
  return stream instanceof ReadableStream;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

function ignore(): void {}
