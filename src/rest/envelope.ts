// The response envelope of the spec, for successes and errors (decisions section 1), and the `Link`
// header a list answer's `meta` gives it.
import { STATUS_CODES } from 'node:http';
import { Response } from '@whatwg-node/fetch';
import { ERRORS, type ErrorCode, retryAfterHeader } from '../domain/error-catalogue.js';
import type { Problems } from '../domain/parameters.js';
import { stringifyInSlices, type TimeSlice } from '../limits/time-slices.js';
import { stateOf } from '../request/state.js';

// openapi.ts still imports the code type from here; the catalogue is its home.

export interface PaginationMeta {
  page: number;
  limit: number;
  /** Null with `include_total=false`. */
  total: number | null;
  total_pages: number | null;
  has_more: boolean;
}

/** The `meta` of a list read by cursor. */
export interface CursorMeta {
  limit: number;
  total: number | null;
  has_more: boolean;
  next_cursor: string | null;
}

export interface ApiError {
  code: ErrorCode;
  message: string;
  details?: Problems | Record<string, unknown>;
}

/** What an error answer says beyond its code; the catalogue supplies the rest. */
export interface FailureOptions {
  /** Default: the catalogue's message for the code. */
  message?: string;
  details?: ApiError['details'];
  /** Only for a code answered with several statuses (REQUEST_TOO_LARGE); default: the catalogue's. */
  status?: number;
  /** Retry-After in seconds when it is known more exactly than the catalogue's (a quota's reset). */
  retryAfterSeconds?: number;
  headers?: Record<string, string>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The envelope as a response. Built with the Fetch API implementation that Yoga's server adapter
 * uses (@whatwg-node/fetch), not Node's global Response: the adapter writes a string body of its
 * own Response straight to the socket, while it reads a global Response's body as a web stream,
 * chunk by chunk (about a tenth of the service's CPU on a list page).
 */
function respond(request: Request, status: number, body: Record<string, unknown>, headers: Record<string, string>): Response {
  const requestId = stateOf(request).id;
  const text = JSON.stringify({ ...body, request_id: requestId, timestamp: new Date().toISOString() });
  return new Response(request.method === 'HEAD' ? null : text, {
    status,
    // The reason phrase, which a Response leaves empty ("HTTP/1.1 200 ").
    statusText: STATUS_CODES[status],
    headers: {
      'Content-Type': JSON_TYPE,
      // Known in advance, so the body goes out as it is, in one write, rather than chunked (a
      // chunked body ends with a second write of its last chunk); also the length of a HEAD's body.
      'Content-Length': String(Buffer.byteLength(text)),
      'X-Request-Id': requestId,
      'Cache-Control': 'no-store',
      ...headers,
    },
  });
}

export function success(request: Request, data: unknown, meta?: PaginationMeta | CursorMeta, headers: Record<string, string> = {}): Response {
  return respond(request, 200, meta ? { success: true, data, meta } : { success: true, data }, headers);
}

/** The text of a success envelope without `request_id` and `timestamp`: what an ETag is computed over. */
export function successPayload(data: unknown, meta?: PaginationMeta | CursorMeta): string {
  return JSON.stringify(meta ? { success: true, data, meta } : { success: true, data });
}

/**
 * successPayload's text as UTF-8 parts, serialized and encoded in time slices (a year of hourly
 * buckets is 3-4 MB of JSON). Bytes rather than text: the ETag's hash, the length and the socket
 * each turned the text into bytes again, and a flat copy of it was made for the body, 20 MB of
 * the JavaScript heap per such answer where these bytes are 4 MB outside it.
 */
export async function successPayloadParts(data: unknown, meta: PaginationMeta | CursorMeta | undefined, slice: TimeSlice): Promise<Buffer[]> {
  const texts = await stringifyInSlices(meta ? { success: true, data, meta } : { success: true, data }, slice);
  const parts: Buffer[] = new Array(texts.length);
  for (let i = 0; i < texts.length; i++) {
    parts[i] = Buffer.from(texts[i]!);
    if (i % 64 === 63) await slice.pause();
  }
  return parts;
}

/**
 * A 200 from its payload text (successPayload), completed with the request id and timestamp: the
 * same bytes `success` writes, serialized once although the ETag needs the text too.
 */
export function successFromPayload(request: Request, payload: string | readonly Buffer[], headers: Record<string, string>): Response {
  const requestId = stateOf(request).id;
  const tail = `,"request_id":${JSON.stringify(requestId)},"timestamp":"${new Date().toISOString()}"}`;
  // The payload's closing brace gives way to the tail.
  const body: Buffer<ArrayBuffer> = typeof payload === 'string' ? Buffer.from(`${payload.slice(0, -1)}${tail}`) : joinedBefore(payload, 1, tail);
  return new Response(request.method === 'HEAD' ? null : body, {
    status: 200,
    statusText: STATUS_CODES[200],
    headers: {
      'Content-Type': JSON_TYPE,
      'Content-Length': String(body.length),
      'X-Request-Id': requestId,
      ...headers,
    },
  });
}

/** The parts as one buffer without their last `drop` bytes, followed by `tail`: one copy. */
function joinedBefore(parts: readonly Buffer[], drop: number, tail: string): Buffer<ArrayBuffer> {
  const length = parts.reduce((n, part) => n + part.length, 0) - drop;
  const body = Buffer.allocUnsafe(length + Buffer.byteLength(tail));
  let at = 0;
  for (const part of parts) at += part.copy(body, at, 0, Math.min(part.length, length - at));
  body.write(tail, at);
  return body;
}

/** 304 Not Modified: no body; the validator and caching headers a 200 would carry. */
export function notModified(request: Request, headers: Record<string, string>): Response {
  return new Response(null, { status: 304, statusText: STATUS_CODES[304], headers: { 'X-Request-Id': stateOf(request).id, ...headers } });
}

/** The error envelope for `code`: its status, default message and Retry-After come from the catalogue. */
export function failure(request: Request, code: ErrorCode, options: FailureOptions = {}): Response {
  const error: ApiError = { code, message: options.message ?? ERRORS[code].message, details: options.details };
  const headers = { ...options.headers, ...retryAfterHeader(code, options.retryAfterSeconds) };
  return respond(request, options.status ?? ERRORS[code].status, { success: false, error }, headers);
}

/** 403 INSUFFICIENT_SCOPE for `scope` (`details.required_scope`), with the WWW-Authenticate header of RFC 6750. */
export function insufficientScope(request: Request, scope: string, message: string): Response {
  return failure(request, 'INSUFFICIENT_SCOPE', {
    message,
    details: { required_scope: scope },
    headers: { 'WWW-Authenticate': `Bearer realm="api", error="insufficient_scope", scope="${scope}"` },
  });
}

// The `Link` header of list answers (RFC 8288): `first`, `prev`, `next`, `last` for pages, `next`
// for cursors. Targets are relative references (path and query), so they hold behind any proxy or
// host name; the client's other parameters are kept as it wrote them.

/** The `Link` header of a list answer with this `meta`, if it has links. */
export function listLinks(url: URL, meta: PaginationMeta | CursorMeta): string | undefined {
  return 'page' in meta ? pageLinks(url, meta) : cursorLinks(url, meta);
}

/** The request's query with `name` set to `value` (replaced where it was, else added). */
function withParameter(url: URL, name: string, value: string): string {
  const pairs = url.search.slice(1).split('&').filter(Boolean);
  const encoded = `${name}=${encodeURIComponent(value)}`;
  let replaced = false;
  const kept = pairs.map((pair) => {
    const key = pair.split('=', 1)[0];
    if (key !== name) return pair;
    replaced = true;
    return encoded;
  });
  if (!replaced) kept.push(encoded);
  return `${url.pathname}?${kept.join('&')}`;
}

const link = (target: string, rel: string) => `<${target}>; rel="${rel}"`;

/** Links of a page (`last` only when the total is known). */
function pageLinks(url: URL, meta: { page: number; total_pages: number | null; has_more: boolean }): string {
  const links = [link(withParameter(url, 'page', '1'), 'first')];
  if (meta.page > 1) {
    // A page past the last points back to the last one (or the first when nothing matches).
    const previous = meta.total_pages !== null && meta.page > meta.total_pages ? Math.max(meta.total_pages, 1) : meta.page - 1;
    links.push(link(withParameter(url, 'page', String(previous)), 'prev'));
  }
  if (meta.has_more) links.push(link(withParameter(url, 'page', String(meta.page + 1)), 'next'));
  if (meta.total_pages !== null) links.push(link(withParameter(url, 'page', String(Math.max(meta.total_pages, 1))), 'last'));
  return links.join(', ');
}

/** The link to the next page of a cursor list, if there is one. */
function cursorLinks(url: URL, meta: { next_cursor: string | null }): string | undefined {
  return meta.next_cursor === null ? undefined : link(withParameter(url, 'cursor', meta.next_cursor), 'next');
}
