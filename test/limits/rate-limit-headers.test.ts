// The rate-limit headers as an HTTP client receives them, over a real socket: X-RateLimit-Reset-*
// against the fixed UTC windows on an injected clock, and the draft-ietf-httpapi-ratelimit-headers
// fields read by a Structured Field Values parser (RFC 9651), on admitted requests and on 429s.
import { randomUUID } from 'node:crypto';
import { type BareItem, parseList } from 'structured-headers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { buildOpenApiDocument } from '../../src/rest/openapi.js';
import { testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { type HttpServer, serveOverHttp } from '../helpers/http-server.js';
import type { RestResponse } from '../rest/client.js';
import { expectNoQuotaHeaders, fakeClock, type PerWindow, PREMIUM, quotaOf, retryAfterOf, STANDARD, secondsUntilBoundary } from './support.js';

const db = testDb();
const clock = fakeClock(Date.UTC(2026, 2, 10, 12, 34, 56, 789));
const app = testApp(db, { now: clock.now });
let server: HttpServer;

beforeAll(async () => {
  server = await serveOverHttp(app);
});

const WINDOWS = ['minute', 'hour', 'day'] as const;
const WINDOW_SECONDS = { minute: 60, hour: 3_600, day: 86_400 };

async function keyOf(tier: 'standard' | 'premium' | 'unlimited'): Promise<string> {
  return (await createApiKey(db, { name: `headers ${randomUUID().slice(0, 8)}`, tier })).key;
}

/** A cheap counted request: admitted, then a 400 before any query runs. */
const cheap = (key: string) => server.get('/api/v1/clinics?limit=0', key);

/** X-RateLimit-Reset-* as integers. */
function resetsOf(response: RestResponse): PerWindow {
  const value = (w: string) => {
    const text = response.headers.get(`x-ratelimit-reset-${w}`);
    expect(text, `X-RateLimit-Reset-${w}`).toMatch(/^[1-9]\d*$/);
    return Number(text);
  };
  return { minute: value('minute'), hour: value('hour'), day: value('day') };
}

/**
 * A field that must be a Structured Field List of Items whose values are Strings, as a name ->
 * parameters map, in field order; fails on anything else (an Inner List, a Token, a duplicate name).
 */
function policyList(response: RestResponse, field: string): Map<string, Map<string, BareItem>> {
  const text = response.headers.get(field);
  expect(text, field).not.toBeNull();
  const items = new Map<string, Map<string, BareItem>>();
  for (const [value, params] of parseList(text!)) {
    expect(typeof value, `${field}: each member is an Item with a String value`).toBe('string');
    expect(items.has(value as string), `${field}: ${String(value)} once`).toBe(false);
    items.set(value as string, params);
  }
  return items;
}

/** The parameters of every policy, as plain objects, for exact comparison. */
function parametersOf(response: RestResponse, field: string): Record<string, Record<string, BareItem>> {
  return Object.fromEntries([...policyList(response, field)].map(([name, params]) => [name, Object.fromEntries(params)]));
}

/** What RateLimit-Policy must say for a tier's limits: q = the quota, w = the window in seconds. */
const policyFor = (limits: PerWindow) => Object.fromEntries(WINDOWS.map((w) => [w, { q: limits[w], w: WINDOW_SECONDS[w] }]));

describe('X-RateLimit-Reset-*', () => {
  it('is the whole seconds until each UTC window resets, rounded up, at any instant', async () => {
    const key = await keyOf('standard');
    // In order (the counts only ever move forward): inside windows, 1 ms before and exactly on
    // boundaries, the last second of a day and the first instant of the next.
    const instants = [
      Date.UTC(2026, 2, 10, 12, 34, 56, 789),
      Date.UTC(2026, 2, 10, 12, 34, 59, 0),
      Date.UTC(2026, 2, 10, 12, 34, 59, 999),
      Date.UTC(2026, 2, 10, 12, 35, 0, 0),
      Date.UTC(2026, 2, 10, 12, 59, 59, 1),
      Date.UTC(2026, 2, 10, 23, 59, 59, 999),
      Date.UTC(2026, 2, 11, 0, 0, 0, 0),
    ];
    for (const at of instants) {
      clock.set(at);
      const response = await cheap(key);
      expect(response.status).toBe(400);
      const resets = resetsOf(response);
      for (const w of WINDOWS) {
        expect(resets[w], `${new Date(at).toISOString()} ${w}`).toBe(secondsUntilBoundary(w, at));
        expect(resets[w]).toBeGreaterThanOrEqual(1);
        expect(resets[w]).toBeLessThanOrEqual(WINDOW_SECONDS[w]);
        // The boundary is less than a second after the instant the reset names, never before it.
        const boundary = (Math.floor(at / (WINDOW_SECONDS[w] * 1000)) + 1) * WINDOW_SECONDS[w] * 1000;
        expect(at + resets[w] * 1000).toBeGreaterThanOrEqual(boundary);
        expect(at + (resets[w] - 1) * 1000).toBeLessThan(boundary);
      }
      // Windows nest: a minute never outlasts its hour, nor an hour its day.
      expect(resets.minute).toBeLessThanOrEqual(resets.hour);
      expect(resets.hour).toBeLessThanOrEqual(resets.day);
    }
    // The extremes: 1 ms before a boundary is 1 s away; on a boundary, the whole window is ahead.
    clock.set(Date.UTC(2026, 2, 11, 0, 0, 59, 999));
    expect(resetsOf(await cheap(key)).minute).toBe(1);
    clock.set(Date.UTC(2026, 2, 11, 1, 0, 0, 0));
    expect(resetsOf(await cheap(key))).toEqual({ minute: 60, hour: 3_600, day: 23 * 3_600 });
  });
});

describe('RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers)', () => {
  it('one policy per window, by name, with the same figures as the X-RateLimit-* headers, on REST and GraphQL', async () => {
    clock.set(Date.UTC(2026, 2, 10, 12, 34, 56, 789));
    const key = await keyOf('standard');
    const responses = [await server.get('/api/v1/clinics', key), await cheap(key), await server.graphql('{ __typename }', key)];
    expect(responses.map((r) => r.status)).toEqual([200, 400, 200]);
    for (const [i, response] of responses.entries()) {
      expect([...policyList(response, 'ratelimit-policy').keys()]).toEqual([...WINDOWS]);
      expect(parametersOf(response, 'ratelimit-policy')).toEqual(policyFor(STANDARD));

      const quota = quotaOf(response)!;
      const resets = resetsOf(response);
      expect(quota.remaining.minute).toBe(STANDARD.minute - (i + 1));
      expect([...policyList(response, 'ratelimit').keys()]).toEqual([...WINDOWS]);
      expect(parametersOf(response, 'ratelimit')).toEqual(Object.fromEntries(WINDOWS.map((w) => [w, { r: quota.remaining[w], t: resets[w] }])));
      expect(resets).toEqual({ minute: 4, hour: 25 * 60 + 4, day: 11 * 3_600 + 25 * 60 + 4 });
      // As the OpenAPI document describes them.
      for (const field of ['RateLimit-Policy', 'RateLimit']) {
        const { pattern } = (buildOpenApiDocument().components as { headers: Record<string, { schema: { pattern: string } }> }).headers[field]!.schema;
        expect(response.headers.get(field)).toMatch(new RegExp(pattern));
      }
    }
  });

  it("Premium: the policies carry the tier's quotas", async () => {
    const response = await cheap(await keyOf('premium'));
    expect(parametersOf(response, 'ratelimit-policy')).toEqual(policyFor(PREMIUM));
    expect(parametersOf(response, 'ratelimit').minute).toEqual({ r: PREMIUM.minute - 1, t: resetsOf(response).minute });
  });

  it('on a 429: the exhausted window shows r=0, its reset no later than Retry-After, the others unchanged', async () => {
    clock.set(Date.UTC(2026, 2, 10, 12, 34, 56, 789));
    const key = await keyOf('standard');
    for (let i = 0; i < STANDARD.minute; i++) expect((await cheap(key)).status).toBe(400);

    for (const refused of [await server.get('/api/v1/clinics', key), await server.graphql('{ __typename }', key)]) {
      expect(refused.status).toBe(429);
      expect(parametersOf(refused, 'ratelimit-policy')).toEqual(policyFor(STANDARD));
      const limits = parametersOf(refused, 'ratelimit');
      expect(limits).toEqual({
        minute: { r: 0, t: 4 },
        hour: { r: STANDARD.hour - STANDARD.minute, t: 25 * 60 + 4 },
        day: { r: STANDARD.day - STANDARD.minute, t: 11 * 3_600 + 25 * 60 + 4 },
      });
      // The draft: Retry-After SHOULD NOT be earlier than the reset of the refusing policy.
      expect(retryAfterOf(refused)).toBe(4);
      expect(retryAfterOf(refused)).toBeGreaterThanOrEqual(limits.minute!.t as number);
      expect(quotaOf(refused)!.remaining.minute).toBe(0);
      expect(resetsOf(refused).minute).toBe(4);
    }
  });

  it('Unlimited tier: none of the rate-limit headers, on REST and GraphQL', async () => {
    const key = await keyOf('unlimited');
    for (const response of [await server.get('/api/v1/clinics', key), await cheap(key), await server.graphql('{ __typename }', key)]) {
      expect([200, 400]).toContain(response.status);
      expectNoQuotaHeaders(response);
    }
  });
});
