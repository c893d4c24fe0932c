// The response envelope of the spec, for successes and errors (decisions section 1).
import { STATUS_CODES } from 'node:http';
import { Response } from '@whatwg-node/fetch';
import type { Problems } from '../domain/parameters.js';
import { requestIdOf } from '../http/request-id.js';

export type ErrorCode =
  | 'UNAUTHORIZED'
  | 'INVALID_API_KEY'
  | 'API_KEY_EXPIRED'
  | 'INSUFFICIENT_SCOPE'
  | 'VALIDATION_ERROR'
  | 'RATE_LIMITED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

export interface PaginationMeta {
  page: number;
  limit: number;
  total: number;
  total_pages: number;
  has_more: boolean;
}

export interface ApiError {
  code: ErrorCode;
  message: string;
  details?: Problems | Record<string, unknown>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The envelope as a response. Built with the Fetch API implementation that Yoga's server adapter
 * uses (@whatwg-node/fetch), not Node's global Response: the adapter writes a string body of its
 * own Response straight to the socket, while it reads a global Response's body as a web stream,
 * chunk by chunk (about a tenth of the service's CPU on a list page).
 */
function respond(request: Request, status: number, body: Record<string, unknown>, headers: Record<string, string>): Response {
  const requestId = requestIdOf(request);
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

export function success(request: Request, data: unknown, meta?: PaginationMeta, headers: Record<string, string> = {}): Response {
  return respond(request, 200, meta ? { success: true, data, meta } : { success: true, data }, headers);
}

export function failure(request: Request, status: number, error: ApiError, headers: Record<string, string> = {}): Response {
  return respond(request, status, { success: false, error }, headers);
}
