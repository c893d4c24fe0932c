// A small REST client over the in-process app (`app.fetch`), and the assertions every REST test
// shares: the envelope of decisions section 1, errors, and validation details.
import { expect } from 'vitest';
import type { App } from '../../src/app.js';

/** A parsed JSON body; tests compare it with exact literals. */
// biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field, exactly
export type Json = any;

export interface RestResponse {
  status: number;
  headers: Headers;
  /** The parsed body, or undefined when the body is empty (HEAD). */
  body: Json;
  text: string;
}

export interface RequestOptions {
  method?: string;
  /** Sent as `Authorization: Bearer <key>`. */
  key?: string;
  /** Sent as the `Authorization` header verbatim (wins over `key`). */
  authorization?: string;
  headers?: Record<string, string>;
}

export const ORIGIN = 'http://localhost';

export async function request(app: App, path: string, options: RequestOptions = {}): Promise<RestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  const authorization = options.authorization ?? (options.key === undefined ? undefined : `Bearer ${options.key}`);
  if (authorization !== undefined) headers.authorization = authorization;
  const response = await app.fetch(`${ORIGIN}${path}`, { method: options.method ?? 'GET', headers });
  const text = await response.text();
  let body: Json;
  if (text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${options.method ?? 'GET'} ${path}: body is not JSON (status ${response.status}): ${text.slice(0, 300)}`);
    }
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** GET `path` with `Authorization: Bearer <key>` (no header when key is undefined). */
export function get(app: App, path: string, key?: string, headers?: Record<string, string>): Promise<RestResponse> {
  return request(app, path, { key, headers });
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
export const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Fails with the response in the message, so a wrong status shows what came back. */
export function expectStatus(response: RestResponse, status: number): void {
  if (response.status !== status) {
    throw new Error(`expected status ${status}, got ${response.status}: ${response.text.slice(0, 1500)}`);
  }
}

/** An ISO 8601 UTC instant with milliseconds and Z, that is a real instant. */
export function expectIsoInstant(value: unknown): void {
  expect(value).toMatch(ISO_MS_UTC);
  expect(new Date(value as string).toISOString()).toBe(value);
}

/**
 * The envelope of every response: content type, X-Request-Id = request_id, timestamp, and exactly
 * the keys of the spec's envelope table, in its order.
 */
export function expectEnvelope(response: RestResponse, kind: 'list' | 'object' | 'error'): void {
  expect(response.headers.get('content-type')).toBe(JSON_CONTENT_TYPE);
  const body = response.body;
  expect(body, 'a JSON body').toBeTypeOf('object');
  const keys =
    kind === 'list'
      ? ['success', 'data', 'meta', 'request_id', 'timestamp']
      : kind === 'object'
        ? ['success', 'data', 'request_id', 'timestamp']
        : ['success', 'error', 'request_id', 'timestamp'];
  expect(Object.keys(body)).toEqual(keys);
  expect(body.success).toBe(kind !== 'error');
  expect(body.request_id).toBeTypeOf('string');
  expect(body.request_id.length).toBeGreaterThan(0);
  expect(response.headers.get('x-request-id')).toBe(body.request_id);
  expectIsoInstant(body.timestamp);
}

/** A success with the given `data` (and `meta` for lists), compared exactly. */
export function expectSuccess(response: RestResponse, data: unknown, meta?: unknown): void {
  expectStatus(response, 200);
  expectEnvelope(response, meta === undefined ? 'object' : 'list');
  expect(response.body.data).toEqual(data);
  if (meta !== undefined) expect(response.body.meta).toEqual(meta);
}

/** An error envelope with this status, code and (when given) message; returns `error`. */
export function expectError(response: RestResponse, status: number, code: string, message?: string | RegExp): Json {
  expectStatus(response, status);
  expectEnvelope(response, 'error');
  const { error } = response.body;
  expect(error.code).toBe(code);
  expect(error.message).toBeTypeOf('string');
  if (typeof message === 'string') expect(error.message).toBe(message);
  else if (message) expect(error.message).toMatch(message);
  return error;
}

/**
 * A 400 VALIDATION_ERROR whose `details` names exactly these parameters, each with a non-empty
 * message. Returns the details.
 */
export function expectValidationError(response: RestResponse, parameters: string[]): Record<string, string> {
  const error = expectError(response, 400, 'VALIDATION_ERROR', 'Invalid query parameters');
  expect(Object.keys(error).sort()).toEqual(['code', 'details', 'message']);
  const details = error.details as Record<string, string>;
  expect(Object.keys(details).sort()).toEqual([...parameters].sort());
  for (const name of parameters) {
    expect(details[name], `details.${name}`).toBeTypeOf('string');
    expect(details[name]!.length, `details.${name}`).toBeGreaterThan(0);
  }
  return details;
}

/** Pagination meta as the spec and decisions section 3 define it. */
export function metaOf(page: number, limit: number, total: number) {
  const totalPages = Math.ceil(total / limit);
  return { page, limit, total, total_pages: totalPages, has_more: page < totalPages };
}

/** The endpoints of the spec (and the by-id extension), with their scope and parameters. */
export const ENDPOINTS = [
  {
    name: 'interactions',
    path: '/api/v1/interactions',
    scope: 'interactions:read',
    kind: 'list',
    params: ['page', 'limit', 'date_from', 'date_to', 'channel', 'type', 'outcome', 'clinic_id', 'search', 'q', 'campaign_id'],
  },
  { name: 'interaction', path: '/api/v1/interactions/{id}', scope: 'interactions:read', kind: 'object', params: [] },
  { name: 'deleted', path: '/api/v1/interactions/deleted', scope: 'interactions:read', kind: 'list', params: ['since', 'limit', 'cursor', 'include_total'] },
  { name: 'clinics', path: '/api/v1/clinics', scope: 'clinics:read', kind: 'list', params: ['page', 'limit'] },
  { name: 'campaigns', path: '/api/v1/campaigns', scope: 'campaigns:read', kind: 'list', params: ['page', 'limit', 'clinic_id', 'status'] },
  {
    name: 'summary',
    path: '/api/v1/metrics/summary',
    scope: 'metrics:read',
    kind: 'object',
    params: ['date_from', 'date_to', 'clinic_id', 'channel', 'campaign_id', 'timezone', 'compare'],
  },
  {
    name: 'daily',
    path: '/api/v1/metrics/daily',
    scope: 'metrics:read',
    kind: 'object',
    params: ['date_from', 'date_to', 'clinic_id', 'channel', 'type', 'campaign_id', 'timezone', 'compare'],
  },
  {
    name: 'series',
    path: '/api/v1/metrics/series',
    scope: 'metrics:read',
    kind: 'object',
    params: ['date_from', 'date_to', 'clinic_id', 'channel', 'type', 'campaign_id', 'timezone', 'compare', 'granularity'],
    // granularity is required: the path the generic tests call carries one
    base: 'granularity=day',
  },
  {
    name: 'outcomes',
    path: '/api/v1/metrics/outcomes',
    scope: 'metrics:read',
    kind: 'object',
    params: ['date_from', 'date_to', 'clinic_id', 'channel', 'type', 'campaign_id', 'timezone', 'compare'],
  },
  {
    name: 'breakdown',
    path: '/api/v1/metrics/breakdown',
    scope: 'metrics:read',
    kind: 'list',
    params: ['date_from', 'date_to', 'clinic_id', 'campaign_id', 'channel', 'type', 'timezone', 'group_by', 'page', 'limit'],
    // group_by is required: the path the generic tests call carries one
    base: 'group_by=campaign',
  },
  {
    name: 'durations',
    path: '/api/v1/metrics/durations',
    scope: 'metrics:read',
    kind: 'object',
    params: ['date_from', 'date_to', 'clinic_id', 'campaign_id', 'channel', 'type', 'timezone'],
  },
] as const;

export type Endpoint = (typeof ENDPOINTS)[number];

/** The endpoint's path, with `{id}` replaced by `id`, and the query a request needs at least (series: a granularity). */
export function pathOf(endpoint: Endpoint, id = 'int_does_not_exist'): string {
  const path = endpoint.path.replace('{id}', encodeURIComponent(id));
  return 'base' in endpoint ? `${path}?${endpoint.base}` : path;
}

/** `path` with `query` added (after `?`, or `&` when the path has a query already). */
export function withQuery(path: string, query: string): string {
  return query ? `${path}${path.includes('?') ? '&' : '?'}${query}` : path;
}

/** A well-formed UUID of no clinic. */
export const UNKNOWN_CLINIC = '00000000-0000-4000-8000-000000000000';
