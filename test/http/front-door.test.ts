// The front door: GET / (an HTML page for a browser, JSON for other clients, by Accept) and GET
// /api/v1 (the REST index, from the route table). No key needed, nothing counted, GET and HEAD only.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { prefersHtml } from '../../src/http/front-door.js';
import { buildOpenApiDocument } from '../../src/rest/openapi.js';
import { routes } from '../../src/rest/routes.js';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';

const db = testDb();
const app = testApp(db);

const CHROME = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7';
const FIREFOX = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

interface Link {
  href: string;
  title: string;
}

const fetchPath = (path: string, init: RequestInit = {}) => app.fetch(`http://localhost${path}`, init);
const withAccept = (accept: string | undefined): RequestInit => (accept === undefined ? {} : { headers: { accept } });

describe('GET / by Accept', () => {
  const cases: Array<[string, string | undefined, 'html' | 'json']> = [
    ['no Accept (curl -H "Accept:", most libraries)', undefined, 'json'],
    ['*/* (curl)', '*/*', 'json'],
    ['application/json', 'application/json', 'json'],
    ['Chrome', CHROME, 'html'],
    ['Firefox', FIREFOX, 'html'],
    ['text/html', 'text/html', 'html'],
    ['TEXT/HTML (case)', 'TEXT/HTML', 'html'],
    ['text/*', 'text/*', 'html'],
    ['application/xhtml+xml', 'application/xhtml+xml', 'html'],
    ['HTML weighted below JSON', 'text/html;q=0.5, application/json', 'json'],
    ['JSON weighted below HTML', 'application/json;q=0.5, text/html', 'html'],
    ['a tie keeps JSON', 'text/html, application/json', 'json'],
    ['a tie with */* keeps JSON', 'text/html;q=0.8, */*;q=0.8', 'json'],
    ['HTML refused', 'text/html;q=0, */*', 'json'],
    ['an invalid q drops its range', 'text/html;q=2', 'json'],
    ['an unreadable q drops its range', 'text/html;q=abc, application/json;q=0.1', 'json'],
    ['garbage', ';;;,,, ;q=1,=,', 'json'],
    ['a media type that is no media type', 'not a media type', 'json'],
    ['empty', '', 'json'],
    ['over-long, HTML first', `text/html,${'x/y;q=0.1,'.repeat(5_000)}`, 'json'],
  ];
  for (const [name, accept, expected] of cases) {
    it(`${name}: ${expected}`, async () => {
      expect(prefersHtml(accept ?? null)).toBe(expected === 'html');
      const response = await fetchPath('/', withAccept(accept));
      expect(response.status).toBe(200);
      expect(response.headers.get('vary')).toContain('Accept');
      expect(response.headers.get('x-request-id')).toBeTruthy();
      if (expected === 'html') {
        expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(await response.text()).toMatch(/^<!doctype html>/);
      } else {
        expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
        const body = (await response.json()) as { success: boolean; data: { links: Record<string, Link> }; request_id: string };
        expect(body.success).toBe(true);
        expect(body.request_id).toBe(response.headers.get('x-request-id'));
        expect(body.data.links.docs!.href).toBe('/docs');
      }
    });
  }
});

describe('GET / as JSON and as a page', () => {
  it('links to the reference, the OpenAPI document, the REST index, GraphQL and health, each answering 200 on this app', async () => {
    const body = (await (await fetchPath('/')).json()) as { data: { name: string; description: string; links: Record<string, Link> } };
    expect(body.data.name).toBe('Clinic Interaction Analytics API');
    const links = body.data.links;
    expect(Object.fromEntries(Object.entries(links).map(([name, link]) => [name, link.href]))).toEqual({
      docs: '/docs',
      openapi: '/api/v1/openapi.json',
      api: '/api/v1',
      graphql: '/graphql',
      health: '/health/ready',
    });
    for (const link of Object.values(links)) {
      expect(link.title.length).toBeGreaterThan(10);
      // As a browser follows them (GraphiQL at /graphql is for a browser; a client needs a key there).
      const response = await fetchPath(link.href, withAccept(FIREFOX));
      expect(response.status, link.href).toBe(200);
    }
  });

  it('serves a page with the same links, nothing from elsewhere, no script, and a policy that allows only its own style', async () => {
    const response = await fetchPath('/', withAccept(FIREFOX));
    const html = await response.text();
    const json = (await (await fetchPath('/')).json()) as { data: { links: Record<string, Link> } };
    const hrefs = [...html.matchAll(/<a\b[^>]*\bhref="([^"]+)"/gi)].map((m) => m[1]);
    expect(hrefs).toEqual(Object.values(json.data.links).map((link) => link.href));
    for (const [, href] of html.matchAll(/\b(?:href|src)="([^"]+)"/gi)) {
      expect(href).toMatch(/^\/(?!\/)/);
      expect((await fetchPath(href!, withAccept(FIREFOX))).status, href).toBe(200);
    }
    expect(html).not.toMatch(/https?:|\/\/[a-z]/i);
    expect(html).not.toMatch(/<script/i);

    const policy = response.headers.get('content-security-policy')!;
    expect(policy).toContain("default-src 'none'");
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).toContain("frame-ancestors 'none'");
    // The page's one style is the one the policy names by its hash, so a browser applies it.
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
    expect(styles).toHaveLength(1);
    expect(policy).toContain(`'sha256-${createHash('sha256').update(styles[0]!).digest('base64')}'`);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(html).toContain('Authorization: Bearer &lt;API key&gt;');
  });

  it('never reflects the query string', async () => {
    const hostile = '?q=<script>alert(1)</script>&x="onload=&%ZZ';
    const page = await fetchPath(`/${hostile}`, withAccept(FIREFOX));
    expect(page.status).toBe(200);
    const plain = await (await fetchPath('/', withAccept(FIREFOX))).text();
    expect(await page.text()).toBe(plain);
    const index = await fetchPath(`/api/v1${hostile}`);
    expect(index.status).toBe(200);
    expect(await index.text()).not.toContain('script');
  });
});

describe('GET /api/v1', () => {
  it('lists every route of the route table with its method, summary, scope, operation id and place in the reference', async () => {
    const response = await fetchPath('/api/v1');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('vary')).toBeNull();
    const body = (await response.json()) as { success: boolean; data: Record<string, unknown>; request_id: string; timestamp: string };
    expect(Object.keys(body)).toEqual(['success', 'data', 'request_id', 'timestamp']);
    expect(body.data).toMatchObject({ openapi: '/api/v1/openapi.json', docs: '/docs', version: '1.0.0' });

    const doc = buildOpenApiDocument() as unknown as { paths: Record<string, { get: { operationId: string; tags: string[]; 'x-required-scope'?: string } }> };
    expect(body.data.endpoints).toEqual(
      routes.map((route) => {
        const operation = doc.paths[route.path]!.get;
        return {
          method: 'GET',
          path: route.path,
          summary: route.summary,
          required_scope: operation['x-required-scope'] ?? null,
          operation_id: operation.operationId,
          docs: `/docs#/${operation.tags[0]}/${operation.operationId}`,
        };
      }),
    );
    expect(body.data.endpoints).toContainEqual(expect.objectContaining({ path: '/api/v1/me', required_scope: null }));
    expect(body.data.endpoints).toContainEqual(expect.objectContaining({ path: '/api/v1/metrics/summary', required_scope: 'metrics:read' }));
  });

  it('keeps the trailing-slash rule: /api/v1/ is a 404 in the envelope', async () => {
    const response = await fetchPath('/api/v1/');
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });
});

describe('the front door as HTTP', () => {
  const answers: Array<[string, string, string | undefined]> = [
    ['the page', '/', FIREFOX],
    ['the JSON of /', '/', undefined],
    ['the index', '/api/v1', undefined],
  ];

  for (const [name, path, accept] of answers) {
    it(`${name}: HEAD has no body, the same headers; If-None-Match gives 304; public and revalidated`, async () => {
      const get = await fetchPath(path, withAccept(accept));
      const text = await get.text();
      const etag = get.headers.get('etag')!;
      expect(etag).toMatch(/^(W\/)?"[A-Za-z0-9_-]{20,}"$/);
      expect(get.headers.get('cache-control')).toBe('no-cache');
      expect(get.headers.get('link')).toContain('</api/v1/openapi.json>; rel="service-desc"');

      const head = await fetchPath(path, { method: 'HEAD', ...withAccept(accept) });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
      expect(head.headers.get('etag')).toBe(etag);
      if (head.headers.get('content-length')) expect(Number(head.headers.get('content-length'))).toBe(Buffer.byteLength(text));

      for (const validator of [etag, `W/${etag.replace(/^W\//, '')}`, `"other", ${etag}`, '*']) {
        const again = await fetchPath(path, { headers: { ...(accept ? { accept } : {}), 'if-none-match': validator } });
        expect(again.status, validator).toBe(304);
        expect(await again.text()).toBe('');
        expect(again.headers.get('etag')).toBe(etag);
      }
      const stale = await fetchPath(path, { headers: { ...(accept ? { accept } : {}), 'if-none-match': '"stale"' } });
      expect(stale.status).toBe(200);
    });
  }

  it('gives the page and the JSON of / different validators', async () => {
    const page = await fetchPath('/', withAccept(FIREFOX));
    const json = await fetchPath('/');
    expect(page.headers.get('etag')).not.toBe(json.headers.get('etag'));
    // The JSON's validator does not depend on the request id or the time.
    expect((await fetchPath('/')).headers.get('etag')).toBe(json.headers.get('etag'));
  });

  for (const path of ['/', '/api/v1']) {
    it(`${path}: other methods are 405 in the envelope with Allow: GET, HEAD`, async () => {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
        const response = await fetchPath(path, {
          method,
          headers: { accept: FIREFOX, 'content-type': 'application/json' },
          body: method === 'OPTIONS' ? undefined : '{}',
        });
        expect(response.status, method).toBe(405);
        expect(response.headers.get('allow')).toBe('GET, HEAD');
        const body = (await response.json()) as { success: boolean; error: { code: string } };
        expect(body).toMatchObject({ success: false, error: { code: 'METHOD_NOT_ALLOWED' } });
      }
    });
  }
});

describe('no key, no quota', () => {
  it('answers without a key, ignores any Authorization, and counts nothing against the key that sends one', async () => {
    // A fixed clock: the minute window cannot roll over between the two readings.
    const fixed = new Date('2026-06-01T12:00:30.000Z');
    const counted = testApp(db, { now: () => fixed });
    const key = await createKey(db, { tier: 'standard' });
    const remaining = async () => {
      const me = await counted.fetch('http://localhost/api/v1/me', { headers: { authorization: `Bearer ${key}` } });
      expect(me.status).toBe(200);
      return Number(me.headers.get('x-ratelimit-remaining-minute'));
    };
    const before = await remaining();
    for (const path of ['/', '/api/v1']) {
      for (const authorization of [undefined, `Bearer ${key}`, 'Bearer svc_live_nonsense', 'Basic eDp5']) {
        for (const method of ['GET', 'HEAD']) {
          const response = await counted.fetch(`http://localhost${path}`, { method, headers: authorization ? { authorization } : {} });
          expect(response.status, `${method} ${path} ${authorization}`).toBe(200);
          expect(response.headers.get('x-ratelimit-remaining-minute')).toBeNull();
          expect(response.headers.get('www-authenticate')).toBeNull();
        }
      }
    }
    // Only the two readings of /me counted.
    expect(await remaining()).toBe(before - 1);
  });

  it('does not count bad keys sent to it as failed authentications of the client', async () => {
    const strict = testApp(db, { authFailureLimits: { minute: 2, hour: 2, day: 2 } });
    for (let i = 0; i < 5; i++) {
      expect((await strict.fetch('http://localhost/', { headers: { authorization: 'Bearer nonsense' } })).status).toBe(200);
      expect((await strict.fetch('http://localhost/api/v1', { headers: { authorization: 'Bearer nonsense' } })).status).toBe(200);
    }
    // The client's first failed authentication on the API is a 401, not the 429 of an exhausted allowance.
    const rest = await strict.fetch('http://localhost/api/v1/clinics', { headers: { authorization: 'Bearer nonsense' } });
    expect(rest.status).toBe(401);
  });
});
