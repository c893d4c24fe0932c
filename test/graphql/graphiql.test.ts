// GraphiQL's page and files as the service sends them: nothing loaded from another origin, the demo
// key and the example query in the page's options, and its files under the app's routing (404 for
// unknown ones, GET and HEAD only). test/browser/graphiql.test.ts runs it in a real browser.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { GRAPHIQL_FILES } from '../../src/http/app-plugins.js';
import { testDb } from '../helpers/db.js';

const DEMO_KEY = 'svc_test_DEMOdemoDEMOdemoDEMOdemoDEMOdemoDEMOdemo';
const ORIGIN = 'http://localhost';

const pageOf = (app: ReturnType<typeof createApp>, path = '/graphql') => app.fetch(`${ORIGIN}${path}`, { headers: { accept: 'text/html' } });

/** The URLs the page's elements load (script src, link href, img src, ...). */
function loadedUrls(html: string): string[] {
  const attribute = /<(?:script|link|img|iframe|source|embed|object)\b[^>]*?\s(?:src|href|data)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi;
  return [...html.matchAll(attribute)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

/** The options GraphiQL starts with: the page's JSON element. */
function optionsOf(html: string): Record<string, unknown> {
  const match = /<script type="application\/json" id="graphiql-options">([^<]*)<\/script>/.exec(html);
  expect(match).not.toBeNull();
  return JSON.parse(match![1]!);
}

/**
 * Absolute http(s) URLs in positions where a browser would load them: CSS url() and @import,
 * importScripts, dynamic import or import ... from, new Worker, fetch, a src/href attribute in
 * markup, and the CDNs GraphiQL setups load from. (The bundle names other URLs in plain text:
 * licences, XML namespaces, links a person may click.)
 */
const LOADING_EXTERNAL = [
  /url\(\s*["']?(?:https?:)?\/\//i,
  /@import\s+(?:url\()?\s*["']?(?:https?:)?\/\//i,
  /importScripts\(\s*["'`](?:https?:)?\/\//,
  /\bimport\(\s*["'`](?:https?:)?\/\//,
  /\bfrom\s*["'`]https?:\/\//,
  /new\s+(?:Shared)?Worker\(\s*["'`](?:https?:)?\/\//,
  /\bfetch\(\s*["'`](?:https?:)?\/\//,
  /<(?:script|link|img|iframe)\b[^>]*\s(?:src|href)\s*=\s*\\?["']?(?:https?:)?\/\//i,
  /unpkg\.com|cdn\.jsdelivr\.net|cdnjs\.cloudflare\.com|esm\.sh|fonts\.googleapis\.com|fonts\.gstatic\.com|raw\.githubusercontent\.com/i,
];

describe('GraphiQL', () => {
  it('is served to a browser without a key, with the demo key in its headers and the example query', async () => {
    const app = createApp({ db: testDb(), demoKey: DEMO_KEY });
    const response = await pageOf(app);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('<title>Clinic analytics GraphQL</title>');
    const options = optionsOf(html);
    expect(JSON.parse(options.headers as string)).toEqual({ Authorization: `Bearer ${DEMO_KEY}` });
    expect(options.defaultQuery).toMatch(/^# Every request needs[^\n]*\nquery Overview \{\n {2}metricsSummary \{/);
  });

  it('offers a placeholder key when no demo key is configured', async () => {
    const html = await (await pageOf(createApp({ db: testDb() }))).text();
    expect(JSON.parse(optionsOf(html).headers as string)).toEqual({ Authorization: 'Bearer <your API key>' });
  });

  it('loads nothing from another origin: the page and every file it references are served here', async () => {
    const app = createApp({ db: testDb(), demoKey: DEMO_KEY });
    const html = await (await pageOf(app)).text();
    const referenced = loadedUrls(html);
    expect(referenced).toEqual(['/graphiql/favicon.ico', '/graphiql/graphiql.css', '/graphiql/graphiql.js', '/graphiql/start.js']);
    for (const pattern of LOADING_EXTERNAL) expect(html).not.toMatch(pattern);

    // The start script names the editor's workers; every file is same-origin and loads nothing external.
    const start = await (await app.fetch(`${ORIGIN}/graphiql/start.js`)).text();
    const workers = [...start.matchAll(/'(\/graphiql\/[a-z.]+\.worker\.js)'/g)].map((m) => m[1]);
    expect(workers.sort()).toEqual(['/graphiql/editor.worker.js', '/graphiql/graphql.worker.js', '/graphiql/json.worker.js']);
    expect([...GRAPHIQL_FILES].sort()).toEqual([...referenced, ...workers].sort());
    for (const file of GRAPHIQL_FILES) {
      const response = await app.fetch(`${ORIGIN}${file}`);
      expect(response.status, file).toBe(200);
      if (file.endsWith('.ico')) {
        expect(response.headers.get('content-type')).toBe('image/x-icon');
        // An ICO file: reserved 0, type 1.
        expect([...new Uint8Array(await response.arrayBuffer()).slice(0, 4)]).toEqual([0, 0, 1, 0]);
        continue;
      }
      expect(response.headers.get('content-type'), file).toBe(file.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8');
      const text = await response.text();
      expect(text.length, file).toBeGreaterThan(file === '/graphiql/start.js' ? 100 : 100_000);
      for (const pattern of LOADING_EXTERNAL) expect(text, `${file} ${pattern}`).not.toMatch(pattern);
    }
  }, 60_000);

  it('sends the page with a Content-Security-Policy that allows only this origin', async () => {
    const response = await pageOf(createApp({ db: testDb() }));
    const csp = response.headers.get('content-security-policy') ?? '';
    const directives = new Map(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/) as [string, ...string[]])
        .map(([name, ...values]) => [name, values]),
    );
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('worker-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('private, no-store');
  });

  it('keeps a configured value inside the options element (no markup injection)', async () => {
    const hostile = '</script><script>alert(1)</script>';
    const html = await (await pageOf(createApp({ db: testDb(), demoKey: hostile }))).text();
    expect(html.match(/<script\b/g)).toHaveLength(3);
    expect(JSON.parse(optionsOf(html).headers as string)).toEqual({ Authorization: `Bearer ${hostile}` });
  });

  it('serves its files with validators, GET and HEAD only, and 404s for other files', async () => {
    const app = createApp({ db: testDb() });
    const first = await app.fetch(`${ORIGIN}/graphiql/graphiql.css`);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get('cache-control')).toBe('public, max-age=3600');
    expect((await app.fetch(`${ORIGIN}/graphiql/graphiql.css`, { headers: { 'if-none-match': etag! } })).status).toBe(304);
    const head = await app.fetch(`${ORIGIN}/graphiql/graphiql.css`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await app.fetch(`${ORIGIN}/graphiql/graphiql.js`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    for (const path of ['/graphiql/', '/graphiql/other.js', '/graphiql/../package.json', '/graphiql/graphiql.js/x']) {
      const response = await app.fetch(`${ORIGIN}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    }
  });

  it('is only at /graphql: other paths ending in /graphql are 404s, not GraphiQL', async () => {
    const app = createApp({ db: testDb() });
    for (const path of ['/api/v1/graphql', '/x/graphql', '/graphql/']) {
      const response = await pageOf(app, path);
      expect(response.status, path).toBe(404);
      expect(await response.text()).not.toContain('graphiql');
    }
  });

  it('does not run a query sent without a key', async () => {
    const app = createApp({ db: testDb() });
    const response = await app.fetch('http://localhost/graphql?query=%7B__typename%7D', { headers: { accept: 'application/json' } });
    expect(response.status).toBe(401);
  });
});
