// The HTTP surface shared by every REST endpoint (decisions section 1): the envelope, request ids,
// content type, unknown paths (404), other methods (405) and HEAD.
import { beforeAll, describe, expect, it } from 'vitest';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';
import { ENDPOINTS, expectEnvelope, expectError, expectStatus, get, ORIGIN, pathOf, request, withQuery } from './client.js';

const db = testDb();
const app = testApp(db);

let key: string;
let interactionId: string;

beforeAll(async () => {
  const clinic = await createClinic(db);
  await createCampaign(db, clinic.id);
  const interaction = await createInteraction(db, { clinicId: clinic.id, startedAt: new Date() });
  interactionId = interaction.id;
  key = await createKey(db, { clinicIds: [clinic.id] });
});

describe('envelope of every endpoint', () => {
  for (const endpoint of ENDPOINTS) {
    it(`${endpoint.path}: 200, success, data, meta only on lists, request_id = X-Request-Id, ISO timestamp, JSON content type`, async () => {
      const response = await get(app, pathOf(endpoint, interactionId), key);
      expectStatus(response, 200);
      expectEnvelope(response, endpoint.kind);
      expect(response.body.data).toBeTypeOf('object');
      expect(response.body.data).not.toBeNull();
      if (endpoint.name === 'deleted') {
        // Read by cursor only: the cursor meta.
        expect(Object.keys(response.body.meta)).toEqual(['limit', 'total', 'has_more', 'next_cursor']);
      } else if (endpoint.kind === 'list') {
        expect(Object.keys(response.body.meta)).toEqual(['page', 'limit', 'total', 'total_pages', 'has_more']);
      } else {
        expect('meta' in response.body).toBe(false);
      }
    });

    it(`${endpoint.path}: an error is the error envelope with its own request id`, async () => {
      const response = await get(app, withQuery(pathOf(endpoint, interactionId), 'unknown_parameter=1'), key);
      const error = expectError(response, 400, 'VALIDATION_ERROR', 'Invalid query parameters');
      expect(error.details).toEqual({ unknown_parameter: expect.any(String) });
      expect('data' in response.body).toBe(false);
      expect('meta' in response.body).toBe(false);
    });
  }
});

describe('framing', () => {
  it('a response states its length (sent whole, not chunked) and its reason phrase, on success and on errors', async () => {
    for (const [path, status, reason] of [
      ['/api/v1/metrics/daily', 200, 'OK'],
      ['/api/v1/interactions?page=0', 400, 'Bad Request'],
      ['/api/v1/nowhere', 404, 'Not Found'],
    ] as const) {
      const response = await app.fetch(`${ORIGIN}${path}`, { headers: { authorization: `Bearer ${key}` } });
      const body = Buffer.from(await response.arrayBuffer());
      expect(response.status).toBe(status);
      expect(response.statusText).toBe(reason);
      expect(body.length).toBeGreaterThan(0);
      expect(response.headers.get('content-length')).toBe(String(body.length));
    }
  });
});

describe('request ids', () => {
  it('are different for two requests', async () => {
    const a = await get(app, '/api/v1/clinics', key);
    const b = await get(app, '/api/v1/clinics', key);
    expect(a.body.request_id).not.toBe(b.body.request_id);
  });

  it('reuse a well-formed incoming X-Request-Id on success and on errors', async () => {
    const ok = await get(app, '/api/v1/metrics/summary', key, { 'x-request-id': 'client-request-0001' });
    expectStatus(ok, 200);
    expect(ok.headers.get('x-request-id')).toBe('client-request-0001');
    expect(ok.body.request_id).toBe('client-request-0001');

    const unauthorized = await get(app, '/api/v1/clinics', undefined, { 'x-request-id': 'trace.abc:123_XYZ-9' });
    expectStatus(unauthorized, 401);
    expect(unauthorized.headers.get('x-request-id')).toBe('trace.abc:123_XYZ-9');
    expect(unauthorized.body.request_id).toBe('trace.abc:123_XYZ-9');

    const notFound = await get(app, '/api/v1/nowhere', undefined, { 'x-request-id': 'f47ac10b-58cc-4372-a567-0e02b2c3d479' });
    expectStatus(notFound, 404);
    expect(notFound.body.request_id).toBe('f47ac10b-58cc-4372-a567-0e02b2c3d479');
  });

  it('replace a malformed incoming X-Request-Id with one of their own', async () => {
    for (const incoming of ['short', 'has spaces in it', 'x'.repeat(300), 'semi;colon;value', '<script>alert(1)</script>']) {
      const response = await get(app, '/api/v1/clinics', key, { 'x-request-id': incoming });
      expectStatus(response, 200);
      expect(response.body.request_id).not.toBe(incoming);
      expect(response.headers.get('x-request-id')).toBe(response.body.request_id);
      expect(response.body.request_id).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);
    }
  });
});

describe('unknown paths', () => {
  const paths = [
    '/api/v1/nowhere',
    // (/api/v1 itself is the REST index: test/http/front-door.test.ts)
    '/api/v1/',
    '/api',
    '/api/v2/interactions',
    '/api/v1/clinics/extra',
    '/api/v1/interactions/some-id/transcript',
    '/api/v1/metrics',
    '/api/v1/metrics/weekly',
    '/api/v1/INTERACTIONS',
    '/api/v1/campaigns/cmp_1',
    '/api/v1/clinics/00000000-0000-4000-8000-000000000000',
  ];
  for (const path of paths) {
    it(`${path} is 404 NOT_FOUND in the envelope, with and without a key`, async () => {
      for (const k of [key, undefined]) {
        const response = await get(app, path, k);
        const error = expectError(response, 404, 'NOT_FOUND');
        expect(Object.keys(error).sort()).toEqual(['code', 'message']);
      }
    });
  }

  it('an unknown path is 404 even with a malformed Authorization header', async () => {
    const response = await request(app, '/api/v1/nowhere?page=0', { authorization: 'Basic xyz' });
    expectError(response, 404, 'NOT_FOUND');
  });

  it('an unknown interaction id is 404 NOT_FOUND (after authentication)', async () => {
    const response = await get(app, '/api/v1/interactions/int_does_not_exist', key);
    expectError(response, 404, 'NOT_FOUND');
    expect(response.body.error.details).toBeUndefined();
    expectError(await get(app, '/api/v1/interactions/int_does_not_exist'), 401, 'UNAUTHORIZED');
  });

  it('an interaction id that is not decodable or holds control characters is 404, never 5xx', async () => {
    for (const segment of ['%', '%zz', '%E0%A4%A', '%00', 'abc%00def', '%0A', '%7F', `${'x'.repeat(2000)}`, '%F0%9F%98%80', "'%20OR%201=1--"]) {
      const response = await get(app, `/api/v1/interactions/${segment}`, key);
      expectError(response, 404, 'NOT_FOUND');
    }
  });
});

describe('methods other than GET and HEAD', () => {
  for (const endpoint of ENDPOINTS) {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      it(`${method} ${endpoint.path} is 405 METHOD_NOT_ALLOWED with Allow: GET, HEAD (with or without a key)`, async () => {
        for (const k of [key, undefined]) {
          const response = await request(app, pathOf(endpoint, interactionId), { method, key: k });
          expectError(response, 405, 'METHOD_NOT_ALLOWED');
          expect(response.headers.get('allow')).toBe('GET, HEAD');
        }
      });
    }
  }

  it('POST to an unknown path is 404, not 405', async () => {
    const response = await request(app, '/api/v1/nowhere', { method: 'POST', key });
    expectError(response, 404, 'NOT_FOUND');
    expect(response.headers.get('allow')).toBeNull();
  });
});

describe('HEAD', () => {
  /** Headers that legitimately differ between two requests. */
  const PER_REQUEST = new Set(['x-request-id', 'date']);
  const comparable = (headers: Headers) => [...headers].filter(([name]) => !PER_REQUEST.has(name.toLowerCase()));

  const cases: Array<{ label: string; path: (id: string) => string; withKey: boolean; status: number }> = [
    ...ENDPOINTS.map((e) => ({ label: `${e.path} (200)`, path: (id: string) => pathOf(e, id), withKey: true, status: 200 })),
    { label: '400', path: () => '/api/v1/interactions?page=0', withKey: true, status: 400 },
    { label: '401', path: () => '/api/v1/interactions', withKey: false, status: 401 },
    { label: '404 path', path: () => '/api/v1/nowhere', withKey: true, status: 404 },
    { label: '404 id', path: () => '/api/v1/interactions/int_does_not_exist', withKey: true, status: 404 },
  ];
  for (const c of cases) {
    it(`HEAD ${c.label}: same status and headers as GET, empty body`, async () => {
      const path = c.path(interactionId);
      const k = c.withKey ? key : undefined;
      const getResponse = await request(app, path, { key: k });
      const headResponse = await request(app, path, { method: 'HEAD', key: k });
      expect(getResponse.status).toBe(c.status);
      expect(headResponse.status).toBe(c.status);
      expect(headResponse.text).toBe('');
      expect(comparable(headResponse.headers)).toEqual(comparable(getResponse.headers));
      expect(headResponse.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(headResponse.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);
    });
  }

  it('HEAD reuses an incoming X-Request-Id', async () => {
    const response = await request(app, '/api/v1/clinics', { method: 'HEAD', key, headers: { 'x-request-id': 'head-request-42' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('head-request-42');
  });
});

describe('OPTIONS', () => {
  it('is a 405 like every method but GET and HEAD (no CORS: keys are for servers)', async () => {
    const app = testApp();
    const response = await app.fetch('http://localhost/api/v1/clinics', {
      method: 'OPTIONS',
      headers: { origin: 'https://example.test', 'access-control-request-method': 'GET' },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('paths match exactly', () => {
  it('a trailing slash, or an id that is a dot segment, is a 404, not the list', async () => {
    const db = testDb();
    const clinic = await createClinic(db);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const app = testApp(db);
    for (const path of ['/api/v1/interactions/', '/api/v1/interactions/.', '/api/v1/clinics/', '/api/v1/interactions/..']) {
      const response = await app.fetch(`http://localhost${path}`, { headers: { authorization: `Bearer ${key}` } });
      expect(response.status, path).toBe(404);
      expect((await response.json()).error.code, path).toBe('NOT_FOUND');
    }
  });
});
