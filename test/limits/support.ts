// Helpers shared by the end-to-end limit tests (not a test file itself): a controllable clock,
// reading the X-RateLimit-* headers, and cheap counted requests through `app.fetch`.
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import type { Db } from '../../src/db/client.js';
import type { Scope } from '../../src/domain/values.js';
import { createKey, type GraphQLResponse, graphql } from '../helpers/app.js';
import { createClinic } from '../helpers/factories.js';
import { get, type RestResponse } from '../rest/client.js';

/** The spec's limits (docs/rest-api.md, Rate limits), written out rather than imported from the code under test. */
export const STANDARD = { minute: 60, hour: 1_000, day: 10_000 } as const;
export const PREMIUM = { minute: 300, hour: 5_000, day: 50_000 } as const;

export type PerWindow = { minute: number; hour: number; day: number };

/** A clock for the app's `now` option that only moves when told. */
export function fakeClock(startMs: number) {
  let ms = startMs;
  return {
    now: () => new Date(ms),
    get ms() {
      return ms;
    },
    set(to: number) {
      ms = to;
    },
    advance(by: number) {
      ms += by;
    },
  };
}

/** Whole seconds until the UTC boundary of the window containing `nowMs` (what Retry-After must say). */
export function secondsUntilBoundary(window: 'minute' | 'hour' | 'day', nowMs: number): number {
  const size = { minute: 60_000, hour: 3_600_000, day: 86_400_000 }[window];
  const reset = (Math.floor(nowMs / size) + 1) * size;
  return Math.max(1, Math.ceil((reset - nowMs) / 1000));
}

export const RATE_LIMIT_HEADERS = [
  'X-RateLimit-Limit-Minute',
  'X-RateLimit-Remaining-Minute',
  'X-RateLimit-Limit-Hour',
  'X-RateLimit-Remaining-Hour',
  'X-RateLimit-Limit-Day',
  'X-RateLimit-Remaining-Day',
] as const;

/** Every rate-limit header a keyed response may carry: the six above, the resets, and the IETF draft's two fields. */
export const ALL_RATE_LIMIT_HEADERS = [
  ...RATE_LIMIT_HEADERS,
  'X-RateLimit-Reset-Minute',
  'X-RateLimit-Reset-Hour',
  'X-RateLimit-Reset-Day',
  'RateLimit-Policy',
  'RateLimit',
] as const;

export interface QuotaHeaders {
  limit: PerWindow;
  remaining: PerWindow;
}

/**
 * The six X-RateLimit-* headers as integers, or null when the response has none of them. Fails
 * when only some are present or when one is not a non-negative integer.
 */
export function quotaOf(response: { headers: Headers }): QuotaHeaders | null {
  const values = RATE_LIMIT_HEADERS.map((name) => response.headers.get(name));
  if (values.every((v) => v === null)) return null;
  for (const [i, value] of values.entries()) {
    expect(value, `${RATE_LIMIT_HEADERS[i]} (all six or none)`).not.toBeNull();
    expect(value, RATE_LIMIT_HEADERS[i]).toMatch(/^(0|[1-9]\d*)$/);
  }
  const n = values.map(Number) as [number, number, number, number, number, number];
  return { limit: { minute: n[0], hour: n[2], day: n[4] }, remaining: { minute: n[1], hour: n[3], day: n[5] } };
}

/** The headers of a key of `limits` after `used` counted requests in each window. */
export function quotaAfter(limits: PerWindow, used: PerWindow | number): QuotaHeaders {
  const u = typeof used === 'number' ? { minute: used, hour: used, day: used } : used;
  return {
    limit: { ...limits },
    remaining: { minute: limits.minute - u.minute, hour: limits.hour - u.hour, day: limits.day - u.day },
  };
}

export function expectNoQuotaHeaders(response: { headers: Headers }): void {
  for (const name of ALL_RATE_LIMIT_HEADERS) expect(response.headers.get(name), name).toBeNull();
}

/** Retry-After as whole seconds (>= 1). */
export function retryAfterOf(response: { headers: Headers }): number {
  const value = response.headers.get('retry-after');
  expect(value, 'Retry-After').toMatch(/^[1-9]\d*$/);
  return Number(value);
}

/** A fresh clinic and a key of `tier` restricted to it (all scopes unless given). */
export async function clinicAndKey(db: Db, tier: 'standard' | 'premium' | 'unlimited', scopes?: Scope[]) {
  const clinic = await createClinic(db);
  const key = await createKey(db, { tier, clinicIds: [clinic.id], ...(scopes ? { scopes } : {}) });
  return { clinic, key };
}

/** The cheapest counted GraphQL request: authenticated and admitted, no database work. */
export function typename(app: App, key: string): Promise<GraphQLResponse> {
  return graphql(app, { key, query: '{ __typename }' });
}

/** A cheap counted REST request: authenticated and admitted, then a 400 before any query runs. */
export function restCheap(app: App, key: string): Promise<RestResponse> {
  return get(app, '/api/v1/clinics?limit=0', key);
}

/** `n` counted requests, alternating GraphQL and REST, all at once. */
export function burst(app: App, key: string, n: number): Promise<Array<{ status: number; headers: Headers }>> {
  return Promise.all(Array.from({ length: n }, (_, i) => (i % 2 === 0 ? typename(app, key) : restCheap(app, key))));
}

/** Counts of responses per HTTP status. */
export function statuses(responses: Array<{ status: number }>): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}
