// The served OpenAPI document against live answers, judged by a third-party validator
// (openapi-backend: it matches each request to its operation and validates the answer's body and
// headers by status, on a JSON Schema 2020-12 Ajv, as the document is OpenAPI 3.1). A broad set of
// requests goes to the real app: every endpoint with GET and HEAD, and every status the API
// answers (200, 304, 400, 401, 403, 404, 405, 406, 429, 500, 503), exports, cursors, the change
// feed and tombstones. Every answer must be documented for its operation and status, carry the
// headers the document requires, and match the schemas of its body and headers; the requests
// answered 2xx or 304 must be valid requests by the document too, read by a validator that takes
// `format` as an annotation (as JSON Schema 2020-12 allows), as many generated clients do.
import { Ajv2020, type Options as AjvOptions, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { type Document, OpenAPIBackend, type Operation } from 'openapi-backend';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { createApiKey, createApiKeyResolver } from '../../src/auth/api-keys.js';
import { createPrismaClient } from '../../src/db/client.js';
import { MAX_PAGE } from '../../src/domain/parameters.js';
import { SCOPES } from '../../src/domain/values.js';
import { MAX_CAMPAIGN_ID_LENGTH } from '../../src/filters/interaction-filters.js';
import { OPENAPI_PATH } from '../../src/http/app-plugins.js';
import { exportFormatsOf } from '../../src/rest/exports/routes.js';
import { API_INDEX_PATH, READ_METHODS, routes } from '../../src/rest/routes.js';
import { createKey, testApp } from '../helpers/app.js';
import { failingInteractions, sql, testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';

type Json = Record<string, unknown>;

interface DocumentedResponse {
  description: string;
  headers?: Record<string, { required?: boolean; schema?: Json }>;
  content?: Record<string, { schema?: Json }>;
}

interface Exchange {
  method: string;
  target: string;
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** A validator as openapi-backend needs it: draft 2020-12, formats checked or not. */
function ajv2020(checkFormats: boolean) {
  return (_default: unknown, options: AjvOptions) => {
    const ajv = new Ajv2020({ ...options, strict: false, validateFormats: checkFormats });
    formats.default(ajv);
    return ajv as never;
  };
}

/** An OpenAPIBackend on a copy of the document (it dereferences its input in place). */
async function backendOf(document: Json, checkFormats: boolean): Promise<OpenAPIBackend> {
  // `quick`: openapi-backend's own check of the document knows OpenAPI 3.0 only; the 3.1 document
  // is checked by Redocly (npm run lint:openapi) and against the 3.1 meta-schema (openapi.test.ts).
  const api = new OpenAPIBackend({ definition: structuredClone(document) as Document, quick: true, strict: true, customizeAjv: ajv2020(checkFormats) });
  await api.init();
  return api;
}

/** Header names as HTTP reads them (the in-process Headers keep the case they were set with). */
const lowercased = (headers: Headers) => Object.fromEntries([...headers].map(([name, value]) => [name.toLowerCase(), value]));

const STATUSES = [200, 304, 400, 401, 403, 404, 405, 406, 429, 500, 503];

describe('live answers match the served OpenAPI document', () => {
  const db = testDb();
  const app = testApp(db);
  const unreachable = createPrismaClient('postgresql://postgres:x@127.0.0.1:1/nowhere', 1);
  afterAll(() => unreachable.$disconnect());

  let servedDocument: Json;
  let responses: OpenAPIBackend;
  let requests: OpenAPIBackend;
  let methodNotAllowed: DocumentedResponse;
  const violations: string[] = [];
  const seen = new Set<number>();

  let key: string;
  let expiredKey: string;
  const keysWithout = new Map<string, string>();
  let voiceId: string;
  const day = (offset: number) => new Date(Date.now() - offset * 86_400_000);

  beforeAll(async () => {
    const served = await app.fetch(`http://localhost${OPENAPI_PATH}`);
    expect(served.status).toBe(200);
    servedDocument = (await served.json()) as Json;
    responses = await backendOf(servedDocument, true);
    requests = await backendOf(servedDocument, false);
    const shared = responses.definition.components?.responses as Record<string, DocumentedResponse> | undefined;
    methodNotAllowed = shared?.MethodNotAllowed as DocumentedResponse;
    expect(methodNotAllowed).toBeDefined();

    const clinic = await createClinic(db);
    const campaign = await createCampaign(db, clinic.id, { type: 'recall', settings: { max_attempts: 3 } });
    const transcript = [
      { role: 'assistant', content: 'Hello, this is the clinic.' },
      { role: 'user', content: 'I would like to book a cleaning.' },
    ];
    const made = await Promise.all([
      createInteraction(db, { clinicId: clinic.id, channel: 'voice', type: 'INBOUND', startedAt: day(1), transcript }),
      createInteraction(db, {
        clinicId: clinic.id,
        channel: 'voice',
        type: 'CAMPAIGN_OUTBOUND',
        campaignId: campaign.id,
        startedAt: day(2),
        outcome: 'NO_ANSWER',
      }),
      createInteraction(db, { clinicId: clinic.id, channel: 'whatsapp', type: 'APPOINTMENT_REMINDER', startedAt: day(1), transcript }),
      createInteraction(db, { clinicId: clinic.id, channel: 'whatsapp', type: 'INBOUND', startedAt: day(3), outcome: null, summary: null }),
      createInteraction(db, { clinicId: clinic.id, channel: 'voice', startedAt: day(4) }),
    ]);
    voiceId = made[0]!.id;
    // A tombstone for /interactions/deleted.
    await sql('DELETE FROM interactions WHERE id = $1', [made[4]!.id]);

    const clinicIds = [clinic.id];
    key = await createKey(db, { clinicIds });
    for (const scope of SCOPES) keysWithout.set(scope, await createKey(db, { clinicIds, scopes: SCOPES.filter((s) => s !== scope) }));
    const expiring = await createApiKey(db, { name: 'expired', clinicIds, expiresAt: new Date(Date.now() + 60_000) });
    await db.apiKey.update({ where: { id: expiring.record.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expiredKey = expiring.key;
  });

  beforeEach(() => {
    violations.length = 0;
  });

  /** Fails with every violation found, one a line. */
  function expectNoViolations(): void {
    if (violations.length) throw new Error(`${violations.length} answers differ from the document:\n${violations.join('\n')}`);
  }

  /** Sends a request to `on` and checks its answer against the document; returns the answer. */
  async function call(target: string, options: { method?: string; key?: string | null; headers?: Record<string, string>; on?: App } = {}): Promise<Exchange> {
    const method = options.method ?? 'GET';
    const headers: Record<string, string> = { ...options.headers };
    const bearer = options.key === undefined ? key : options.key;
    if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
    const response = await (options.on ?? app).fetch(`http://localhost${target}`, { method, headers });
    const exchange: Exchange = { method, target, status: response.status, headers: lowercased(response.headers), text: await response.text() };
    seen.add(exchange.status);
    violations.push(...check(exchange, headers));
    return exchange;
  }

  function check(exchange: Exchange, requestHeaders: Record<string, string>): string[] {
    const { method, target, status, headers, text } = exchange;
    const where = `${method} ${target} -> ${status}`;
    const url = new URL(`http://localhost${target}`);
    const request = { method: method.toLowerCase(), path: url.pathname, query: Object.fromEntries(url.searchParams), headers: requestHeaders };
    const operation = responses.matchOperation(request) as Operation | undefined;
    const problems: string[] = [];

    let documented: DocumentedResponse | undefined;
    if (operation) {
      documented = (operation.responses as Record<string, DocumentedResponse> | undefined)?.[status];
      if ((status < 300 || status === 304) && operation.operationId) {
        const valid = requests.validateRequest(request, operation.operationId);
        if (!valid.valid) problems.push(`${where}: the request is invalid by the document: ${JSON.stringify(valid.errors)}`);
      }
    } else if (status === 405 && !(READ_METHODS as readonly string[]).includes(method)) {
      documented = methodNotAllowed;
    }
    if (!documented) return [`${where}: no response documented for this status${operation ? ` of ${operation.operationId}` : ' (no operation)'}`];

    for (const [name, header] of Object.entries(documented.headers ?? {})) {
      if (header.required && headers[name.toLowerCase()] === undefined) problems.push(`${where}: required header ${name} is missing`);
    }
    const mediaType = headers['content-type']?.split(';')[0]?.trim();
    const noBody = method === 'HEAD' || status === 304;
    if (noBody && text !== '') problems.push(`${where}: a body where none is sent`);
    if (!noBody && (!mediaType || !documented.content?.[mediaType])) {
      problems.push(`${where}: Content-Type ${mediaType} is not documented (${Object.keys(documented.content ?? {}).join(', ') || 'no content'})`);
    }
    if (operation?.operationId) {
      const headerCheck = responses.validateResponseHeaders(headers, operation.operationId, { statusCode: status, setMatchType: 'any' as never });
      if (!headerCheck.valid) problems.push(`${where}: headers: ${JSON.stringify(headerCheck.errors)}`);
      if (!noBody && mediaType === 'application/json') {
        const bodyCheck = responses.validateResponse(JSON.parse(text), operation.operationId, status);
        if (!bodyCheck.valid) problems.push(`${where}: body: ${JSON.stringify(bodyCheck.errors)}\n${text.slice(0, 1500)}`);
      }
    } else {
      problems.push(...checkByHand(where, documented, headers, noBody ? undefined : text));
    }
    return problems;
  }

  /** An answer no operation gives (405), against its shared response, by the same Ajv. */
  const compiled = new Map<object, ValidateFunction>();
  function checkByHand(where: string, documented: DocumentedResponse, headers: Record<string, string>, text: string | undefined): string[] {
    const ajv = ajv2020(true)(undefined, {}) as Ajv2020;
    const validate = (schema: Json, value: unknown) => {
      let fn = compiled.get(schema);
      if (!fn) {
        fn = ajv.compile(schema);
        compiled.set(schema, fn);
      }
      return fn(value) ? [] : [JSON.stringify(fn.errors)];
    };
    const problems: string[] = [];
    for (const [name, header] of Object.entries(documented.headers ?? {})) {
      const value = headers[name.toLowerCase()];
      if (value !== undefined && header.schema) problems.push(...validate(header.schema, value).map((e) => `${where}: header ${name}: ${e}`));
    }
    const schema = documented.content?.['application/json']?.schema;
    if (text !== undefined && schema) problems.push(...validate(schema, JSON.parse(text)).map((e) => `${where}: body: ${e}`));
    return problems;
  }

  /** The first example the document gives a required parameter: what a valid request sends. */
  function requiredQuery(path: string): string {
    const item = (servedDocument.paths as Record<string, { get: { parameters: Json[] } }>)[path];
    if (!item) throw new Error(`the document has no path ${path}`);
    const { get } = item;
    const search = new URLSearchParams();
    for (const parameter of get.parameters) {
      if (parameter.in !== 'query' || parameter.required !== true) continue;
      const example = parameter.example ?? Object.values((parameter.examples ?? {}) as Record<string, { value: unknown }>)[0]?.value;
      search.set(parameter.name as string, Array.isArray(example) ? example.join(',') : String(example));
    }
    return search.size ? `?${search}` : '';
  }
  const concrete = (path: string) => path.replace('{id}', voiceId);
  const withQuery = (target: string, extra: string) => `${target}${target.includes('?') ? '&' : '?'}${extra}`;

  it('every endpoint and the index: 200 and 304 to GET and HEAD, 405 to other methods', async () => {
    // Metrics windows given in full: a window relative to today gets a new ETag every 15 minutes
    // (so that "today" moves on), and a GET and its conditional GET on either side of such a
    // boundary were a 200 where the test expects 304.
    const window = `date_from=${day(30).toISOString().slice(0, 10)}&date_to=${day(0).toISOString().slice(0, 10)}`;
    for (const path of [API_INDEX_PATH, ...routes.map((route) => route.path)]) {
      const base = `${concrete(path)}${path === API_INDEX_PATH ? '' : requiredQuery(path)}`;
      const target = path.startsWith('/api/v1/metrics/') ? withQuery(base, window) : base;
      for (const method of READ_METHODS) {
        const ok = await call(target, { method });
        expect(ok.status, `${method} ${target}: ${ok.text}`).toBe(200);
        const again = await call(target, { method, headers: { 'if-none-match': ok.headers.etag ?? '' } });
        expect(again.status, `${method} ${target} with If-None-Match ${ok.headers.etag}: ${JSON.stringify(again.headers)}`).toBe(304);
      }
      for (const method of ['POST', 'DELETE', 'PUT']) expect((await call(target, { method })).status).toBe(405);
    }
    expectNoViolations();
  });

  it('lists, cursors, the change feed, tombstones and metrics variants', async () => {
    const since = day(30).toISOString();
    const targets = [
      '/api/v1/interactions?page=2&limit=2',
      `/api/v1/interactions?date_from=${day(10).toISOString().slice(0, 10)}&date_to=${new Date().toISOString()}&channel=voice&outcome=NO_ANSWER,APPOINTMENT_BOOKED`,
      '/api/v1/interactions?include_total=false&order=asc',
      '/api/v1/interactions?search=600&q=cleaning',
      '/api/v1/interactions/deleted?include_total=false',
      `/api/v1/interactions/deleted?since=${encodeURIComponent(since)}`,
      '/api/v1/metrics/summary?compare=previous_period&timezone=Europe/Madrid',
      '/api/v1/metrics/daily?compare=previous_period',
      '/api/v1/metrics/series?granularity=hour&compare=previous_period',
      '/api/v1/metrics/outcomes?compare=previous_period',
      '/api/v1/metrics/breakdown?group_by=campaign,outcome&page=1&limit=5',
      '/api/v1/metrics/durations?channel=voice',
    ];
    for (const target of targets) {
      const answer = await call(target);
      expect(answer.status, `${target}: ${answer.text}`).toBe(200);
    }

    // Cursor lists and the change feed, page after page to the end.
    let feedItems = 0;
    for (const start of [
      '/api/v1/interactions?cursor=&limit=2',
      `/api/v1/interactions?updated_since=${encodeURIComponent(since)}&limit=2`,
      '/api/v1/interactions/deleted?limit=1',
    ]) {
      let target = start;
      for (let pages = 0; pages < 10; pages++) {
        const page = await call(target);
        expect(page.status, target).toBe(200);
        const body = JSON.parse(page.text);
        if (start.includes('updated_since')) feedItems += body.data.interactions.filter((item: Json) => 'updated_at' in item).length;
        if (!body.meta.next_cursor) break;
        target = withQuery(start.replace('cursor=&', ''), `cursor=${encodeURIComponent(body.meta.next_cursor)}`);
      }
    }
    expect(feedItems).toBe(4);
    expectNoViolations();
  });

  it('exports: CSV and NDJSON by Accept and by ?format, GET and HEAD', async () => {
    const exported = routes.filter((route) => exportFormatsOf(route.path).length > 0);
    expect(exported.length).toBeGreaterThan(1);
    for (const route of exported) {
      const target = `${route.path}${requiredQuery(route.path)}`;
      for (const format of exportFormatsOf(route.path)) {
        for (const method of READ_METHODS) {
          const byQuery = await call(withQuery(target, `format=${format}`), { method });
          expect(byQuery.status, `${method} ${target} ${format}: ${byQuery.text}`).toBe(200);
        }
      }
      expect((await call(target, { headers: { accept: 'text/csv' } })).status).toBe(200);
      expect((await call(target, { headers: { accept: 'application/x-ndjson' } })).status).toBe(200);
      expect((await call(withQuery(target, 'updated_since=2026-01-01&format=ndjson'))).status).toBeLessThan(500);
    }
    expectNoViolations();
  });

  it('errors: 400, 401, 403, 404 and 406 on every endpoint where they apply', async () => {
    for (const route of routes) {
      const target = `${concrete(route.path)}${requiredQuery(route.path)}`;
      for (const method of READ_METHODS) {
        expect((await call(withQuery(target, 'bogus=1'), { method })).status, `${target} bogus`).toBe(400);
        expect((await call(target, { method, key: null })).status).toBe(401);
        expect((await call(target, { method, key: expiredKey })).status).toBe(401);
        expect((await call(target, { method, headers: { accept: 'application/xml' } })).status).toBe(406);
        if (route.scope) expect((await call(target, { method, key: keysWithout.get(route.scope)! })).status).toBe(403);
      }
    }
    expect((await call('/api/v1/interactions?page=0&date_from=yesterday')).status).toBe(400);
    expect((await call('/api/v1/interactions?search=600', { key: keysWithout.get('phi:read')! })).status).toBe(403);
    expect((await call('/api/v1/interactions/no-such-interaction')).status).toBe(404);
    expect((await call('/api/v1/interactions/no-such-interaction', { method: 'HEAD' })).status).toBe(404);
    expectNoViolations();
  });

  it('the bounds the API enforces are in the document: a request past them is invalid by it too', async () => {
    const past = [`/api/v1/interactions?page=${MAX_PAGE + 1}`, `/api/v1/interactions/${'i'.repeat(MAX_CAMPAIGN_ID_LENGTH + 1)}`];
    for (const target of past) {
      const answer = await call(target);
      expect([400, 404], target).toContain(answer.status);
      const url = new URL(`http://localhost${target}`);
      const request = { method: 'get', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: {} };
      const operation = requests.matchOperation(request) as Operation;
      expect(requests.validateRequest(request, operation.operationId!).valid, target).toBe(false);
    }
    expectNoViolations();
  });

  it('429 (a quota, and failed authentications), 500 and 503', async () => {
    // Standard tier (60 a minute) on a clock that stays in one minute: the 61st request is refused.
    const quotaApp = testApp(db, { now: () => new Date('2026-06-01T12:00:30.000Z') });
    const standard = await createKey(db, { tier: 'standard' });
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push((await call('/api/v1/me', { method: i % 2 ? 'HEAD' : 'GET', key: standard, on: quotaApp })).status);
    expect(statuses.slice(0, 60).every((status) => status === 200)).toBe(true);
    expect(statuses[60]).toBe(429);

    const guarded = testApp(db, { authFailureLimits: { minute: 1, hour: 100, day: 1000 } });
    const refused = [];
    for (let i = 0; i < 3; i++) refused.push((await call('/api/v1/clinics', { key: expiredKey, on: guarded })).status);
    expect(refused).toContain(429);

    const failing = testApp(failingInteractions(db), { keyResolver: createApiKeyResolver(db, { ttlMs: 0 }) });
    expect((await call('/api/v1/interactions', { on: failing })).status).toBe(500);
    const down = testApp(unreachable, { keyResolver: createApiKeyResolver(db, { ttlMs: 0 }) });
    expect((await call('/api/v1/clinics', { on: down })).status).toBe(503);
    expectNoViolations();
  });

  it('saw every status the API answers', () => {
    expect([...seen].sort((a, b) => a - b)).toEqual(STATUSES);
  });
});
