// Shared caches never mix keys: every GraphQL answer (GET and POST, data, errors, 401, 429, 405,
// GraphiQL's page) says `Cache-Control: private, no-store` and `Vary: Authorization`, as do the
// other answers that depend on the key (REST, /metrics with its token), while the public static
// files stay cacheable. Then the same through a real nginx with `proxy_cache` (which stores answers
// to requests carrying Authorization unless they say private or no-store): a phi:read key's answer
// is never served to a key without phi:read, and a 401 never to a valid key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/domain/values.js';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createClinic, createInteraction } from '../helpers/factories.js';
import { type HttpServer, serveOverHttp } from '../helpers/http-server.js';
import { type CachingProxy, nginxFor, startCachingProxy } from '../helpers/nginx.js';

const db = testDb();
const METRICS_TOKEN = 'metrics-token-for-shared-cache-tests';
const server = await serveOverHttp(testApp(db, { metricsToken: METRICS_TOKEN }));
// Every failed authentication from this address after the first is a 429.
const strict = await serveOverHttp(testApp(db, { authFailureLimits: { minute: 1, hour: 1_000, day: 1_000 } }));

const PHONE = '+34 612 345 678';
const EMAIL = 'patient.shared.cache@example.com';

let phiKey: string;
let maskedKey: string;
let interactionId: string;
beforeAll(async () => {
  const clinic = await createClinic(db);
  const interaction = await createInteraction(db, { clinicId: clinic.id, phoneNumber: PHONE, summary: `Call back on ${PHONE} or write to ${EMAIL}.` });
  interactionId = interaction.id;
  phiKey = await createKey(db, { clinicIds: [clinic.id] });
  maskedKey = await createKey(db, { clinicIds: [clinic.id], scopes: SCOPES.filter((scope) => scope !== 'phi:read') });
});

const varyNames = (response: Response) => (response.headers.get('vary') ?? '').split(',').map((name) => name.trim().toLowerCase());

/** What keeps a shared cache from storing the answer, or from giving it to another key. */
function expectNeverShared(response: Response, what: string) {
  const cacheControl = (response.headers.get('cache-control') ?? '').split(',').map((directive) => directive.trim().toLowerCase());
  expect(cacheControl.includes('private') || cacheControl.includes('no-store'), `${what}: Cache-Control ${cacheControl}`).toBe(true);
  expect(varyNames(response), `${what}: Vary`).toContain('authorization');
}

function fetchFrom(base: HttpServer | CachingProxy, path: string, headers: Record<string, string> = {}, init: RequestInit = {}) {
  return fetch(`${base.baseUrl}${path}`, { ...init, headers: { accept: 'application/json', ...headers } });
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const graphqlGet = (query: string) => `/graphql?query=${encodeURIComponent(query)}`;
const PHONES = '{ interactions(limit: 5) { nodes { phoneNumber summary } } }';

describe('caching headers of every answer that depends on the key', () => {
  it('GraphQL: data, errors, 401, 405 and 429, GET and POST, both media types: private, no-store and Vary: Authorization, Accept', async () => {
    const post = (body: string, headers: Record<string, string>) =>
      fetchFrom(server, '/graphql', { 'content-type': 'application/json', ...headers }, { method: 'POST', body });
    const answers: Array<[string, Response, number]> = [
      ['GET with data', await fetchFrom(server, graphqlGet(PHONES), bearer(phiKey)), 200],
      ['POST with data', await post(JSON.stringify({ query: PHONES }), bearer(maskedKey)), 200],
      ['a field error', await fetchFrom(server, graphqlGet('{ interactions(limit: 5, search: "612") { nodes { id } } }'), bearer(maskedKey)), 200],
      [
        'a parse error (graphql-response+json)',
        await fetchFrom(server, graphqlGet('{ interactions('), { ...bearer(phiKey), accept: 'application/graphql-response+json' }),
        400,
      ],
      ['a validation error', await fetchFrom(server, graphqlGet('{ nothingHere }'), bearer(phiKey)), 200],
      ['an unparseable body', await post('{', bearer(phiKey)), 400],
      ['no key', await fetchFrom(server, graphqlGet(PHONES)), 401],
      ['an unknown key', await fetchFrom(server, graphqlGet(PHONES), bearer('svc_live_unknownunknownunknownunknown1234')), 401],
      ['OPTIONS', await fetchFrom(server, '/graphql', bearer(phiKey), { method: 'OPTIONS' }), 405],
      ['PUT without a key', await fetchFrom(server, '/graphql', {}, { method: 'PUT' }), 405],
    ];
    await fetchFrom(strict, graphqlGet(PHONES), bearer('svc_live_unknownunknownunknownunknown1234'));
    answers.push(['a refused address', await fetchFrom(strict, graphqlGet(PHONES), bearer('svc_live_unknownunknownunknownunknown5678')), 429]);
    for (const [what, response, status] of answers) {
      expect(response.status, what).toBe(status);
      expect(response.headers.get('cache-control'), what).toBe('private, no-store');
      expect(varyNames(response), what).toEqual(expect.arrayContaining(['authorization', 'accept']));
    }
  });

  it("GraphiQL's page is never stored either (it is the same URL as the JSON answers, and may carry the demo key)", async () => {
    const page = await fetchFrom(server, '/graphql', { accept: 'text/html' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('private, no-store');
    expect(varyNames(page)).toEqual(expect.arrayContaining(['authorization', 'accept']));
  });

  it('REST and /metrics: successes, 304s, 401s, 403s, 404s and exports are private or no-store, and vary by Authorization', async () => {
    const ok = await fetchFrom(server, '/api/v1/me', bearer(phiKey));
    const answers: Array<[string, Response, number]> = [
      ['/me', ok, 200],
      ['a 304', await fetchFrom(server, '/api/v1/me', { ...bearer(phiKey), 'if-none-match': ok.headers.get('etag') ?? '' }), 304],
      ['a list', await fetchFrom(server, '/api/v1/interactions', bearer(maskedKey)), 200],
      ['no key', await fetchFrom(server, '/api/v1/interactions'), 401],
      ['a missing scope', await fetchFrom(server, '/api/v1/interactions?search=612', bearer(maskedKey)), 403],
      ['an unknown id', await fetchFrom(server, '/api/v1/interactions/int_nothing_here', bearer(phiKey)), 404],
      ['an export', await fetchFrom(server, '/api/v1/interactions', { ...bearer(phiKey), accept: 'application/x-ndjson' }), 200],
      ['/metrics', await fetchFrom(server, '/metrics', bearer(METRICS_TOKEN)), 200],
      ['/metrics with a wrong token', await fetchFrom(server, '/metrics', bearer('wrong')), 401],
    ];
    for (const [what, response, status] of answers) {
      expect(response.status, what).toBe(status);
      expectNeverShared(response, what);
      await response.arrayBuffer();
    }
  });

  it('the public files stay cacheable, without Vary: Authorization', async () => {
    for (const path of ['/graphiql/graphiql.css', '/docs/swagger-ui.css']) {
      const response = await fetchFrom(server, path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('cache-control'), path).toBe('public, max-age=3600');
      expect(varyNames(response), path).not.toContain('authorization');
      await response.arrayBuffer();
    }
  });
});

const NGINX = nginxFor('GraphQL and REST behind nginx proxy_cache');

describe.skipIf(!NGINX)('behind nginx with proxy_cache', () => {
  let proxy: CachingProxy;
  beforeAll(async () => {
    proxy = await startCachingProxy(NGINX!, server.baseUrl);
  });
  afterAll(async () => {
    await proxy?.stop();
  });

  /** Through nginx: the status, the body and whether nginx answered from its cache. */
  async function viaProxy(path: string, headers: Record<string, string> = {}) {
    const response = await fetchFrom(proxy, path, headers);
    return { status: response.status, text: await response.text(), cache: response.headers.get('x-cache-status') };
  }

  it("a phi:read key's GraphQL answer is never served to a key without phi:read, in either order", async () => {
    for (const [path, first, second] of [
      [graphqlGet(PHONES), phiKey, maskedKey],
      [graphqlGet(`{ again: interactions(limit: 5) { nodes { phoneNumber summary } } }`), phiKey, maskedKey],
      [graphqlGet(`{ masked: interactions(limit: 5) { nodes { phoneNumber summary } } }`), maskedKey, phiKey],
    ] as const) {
      for (const key of [first, second, first, second]) {
        const answer = await viaProxy(path, bearer(key));
        expect(answer.status, proxy.log()).toBe(200);
        expect(answer.cache, path).not.toBe('HIT');
        if (key === phiKey) expect(answer.text).toContain(PHONE);
        else {
          expect(answer.text).not.toContain(PHONE);
          expect(answer.text).not.toContain(EMAIL);
          expect(answer.text).toContain('"phoneNumber"');
        }
      }
    }
  });

  it('a GraphQL 401 is never served to a valid key, nor a valid answer to a request without a key', async () => {
    const path = graphqlGet('{ unauthorized: interactions(limit: 1) { nodes { id } } }');
    expect((await viaProxy(path, bearer('svc_live_unknownunknownunknownunknown1234'))).status).toBe(401);
    expect((await viaProxy(path)).status).toBe(401);
    const valid = await viaProxy(path, bearer(maskedKey));
    expect(valid.status).toBe(200);
    expect(valid.cache).not.toBe('HIT');
    expect(JSON.parse(valid.text).data.unauthorized.nodes).toEqual([{ id: interactionId }]);
    const none = await viaProxy(path);
    expect(none.status).toBe(401);
    expect(none.cache).not.toBe('HIT');
  });

  it('REST likewise: the list and the detail with and without phi:read, a 401 then a valid key', async () => {
    for (const path of ['/api/v1/interactions?limit=5', `/api/v1/interactions/${interactionId}`]) {
      for (const key of [phiKey, maskedKey, phiKey, maskedKey]) {
        const answer = await viaProxy(path, bearer(key));
        expect(answer.status, path).toBe(200);
        expect(answer.cache, path).not.toBe('HIT');
        expect(answer.text.includes(PHONE), path).toBe(key === phiKey);
      }
    }
    const path = '/api/v1/interactions?limit=1';
    expect((await viaProxy(path)).status).toBe(401);
    const valid = await viaProxy(path, bearer(phiKey));
    expect(valid.status).toBe(200);
    expect(valid.cache).not.toBe('HIT');
  });
});
