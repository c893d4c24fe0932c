// GraphiQL, served by the service itself and working offline. Yoga answers GET /graphql with
// Accept: text/html by calling the renderer here (createYoga's `renderGraphiQL`); the page it
// returns is small and loads everything from this server under /graphiql/: GraphiQL's bundle, its
// styles, the editor's (Monaco's) three web workers and the favicon, all taken from the installed
// `@graphql-yoga/render-graphiql` package. Yoga's default renderer loads GraphiQL from unpkg and
// its favicon from GitHub; that package's own renderer inlines the same files into one 17 MB page
// that is rebuilt on every request and needs inline scripts and blob: workers. As files, they are
// cached by the browser (ETag), and the page can have a Content-Security-Policy without
// 'unsafe-inline' scripts.
import type { GraphiQLOptions } from 'graphql-yoga';
import type { GraphiQLFile, Page } from './app-plugins.js';
import { type StaticBody, staticAnswer, staticBody } from './static-file.js';

type Bundle = typeof import('@graphql-yoga/render-graphiql/graphiql');

interface Asset {
  type: string;
  body: (bundle: Bundle) => string | Uint8Array;
  cache: string;
}

const JS_TYPE = 'text/javascript; charset=utf-8';
const ASSET_CACHE = 'public, max-age=3600';
const OPTIONS_ELEMENT_ID = 'graphiql-options';

/**
 * Monaco asks MonacoEnvironment.getWorkerUrl for each of its workers by label and starts it as a
 * module worker; the labels are those the package's own renderer maps (`editorWorkerService`,
 * `json`, `graphql`). The options come from the page (a JSON element, not a script).
 */
const START_SCRIPT = `// Starts GraphiQL with the options the page carries.
(function () {
  var workers = {
    editorWorkerService: '/graphiql/editor.worker.js',
    json: '/graphiql/json.worker.js',
    graphql: '/graphiql/graphql.worker.js',
  };
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: function (moduleId, label) {
      return workers[label] || workers.editorWorkerService;
    },
  };
  var options = JSON.parse(document.getElementById(${JSON.stringify(OPTIONS_ELEMENT_ID)}).textContent);
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), options);
})();
`;

/** The package's favicon is a data: URL; served as the file it encodes. */
function dataUrlBytes(url: string): Uint8Array {
  const comma = url.indexOf(',');
  return Buffer.from(url.slice(comma + 1), 'base64');
}

const ASSETS: Record<GraphiQLFile, Asset> = {
  '/graphiql/graphiql.js': { type: JS_TYPE, body: (bundle) => bundle.js, cache: ASSET_CACHE },
  '/graphiql/graphiql.css': { type: 'text/css; charset=utf-8', body: (bundle) => bundle.css, cache: ASSET_CACHE },
  '/graphiql/start.js': { type: JS_TYPE, body: () => START_SCRIPT, cache: 'no-cache' },
  '/graphiql/editor.worker.js': { type: JS_TYPE, body: (bundle) => bundle.editorWorkerService, cache: ASSET_CACHE },
  '/graphiql/json.worker.js': { type: JS_TYPE, body: (bundle) => bundle.jsonWorker, cache: ASSET_CACHE },
  '/graphiql/graphql.worker.js': { type: JS_TYPE, body: (bundle) => bundle.graphqlWorker, cache: ASSET_CACHE },
  '/graphiql/favicon.ico': { type: 'image/x-icon', body: (bundle) => dataUrlBytes(bundle.favicon), cache: ASSET_CACHE },
};

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The page Yoga sends for GraphiQL. The options (title, headers, defaultQuery) go into a JSON
 * element with `<` escaped, so that no value (a configured key, the query) can end the element.
 */
export function renderGraphiQL(options: GraphiQLOptions): string {
  const title = escapeHtml(options.title ?? 'GraphiQL');
  const json = JSON.stringify(options).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${title}</title>
    <link rel="icon" href="/graphiql/favicon.ico">
    <link rel="stylesheet" href="/graphiql/graphiql.css">
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>GraphiQL needs JavaScript. GraphQL requests can be sent to this URL with any HTTP client.</noscript>
    <div id="root"></div>
    <script type="application/json" id="${OPTIONS_ELEMENT_ID}">${json}</script>
    <script src="/graphiql/graphiql.js"></script>
    <script src="/graphiql/start.js"></script>
  </body>
</html>
`;
}

/**
 * Scripts only from this server (no inline script, no eval); Monaco and React set inline styles
 * and inject <style> elements, and GraphiQL's styles carry fonts and icons as data: URLs. Requests
 * (queries, introspection) go to this server only. Its caching headers are those of every answer
 * at /graphql (http/app-plugins.ts): the same URL answers JSON, and the page may carry the
 * demo key.
 */
const PAGE_SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; worker-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** Yoga's GraphiQL answer carries only `Content-Type: text/html`: the page's own headers (app-plugins.ts adds them to it alone). */
export function graphiqlPageHeaders(response: Response): void {
  if (!response.headers.get('content-type')?.startsWith('text/html')) return;
  response.headers.set('Content-Type', 'text/html; charset=utf-8');
  for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) response.headers.set(name, value);
}

/**
 * The files under /graphiql/. The path was matched (unknown files and methods other than GET and
 * HEAD refused) by useRoutes (http/app-plugins.ts); the route names the file.
 */
export function graphiqlFiles(): Page<'graphiql'> {
  // The bundle is 9 MB of strings: loaded on the first request for GraphiQL, not at start-up.
  let bundle: Promise<Bundle> | undefined;
  const loaded = new Map<GraphiQLFile, StaticBody>();

  async function load(file: GraphiQLFile) {
    let entry = loaded.get(file);
    if (!entry) {
      bundle ??= import('@graphql-yoga/render-graphiql/graphiql');
      const content = ASSETS[file].body(await bundle);
      entry = staticBody(typeof content === 'string' ? Buffer.from(content) : content);
      loaded.set(file, entry);
    }
    return entry;
  }

  return async (request, route, fetchAPI) => {
    const asset = ASSETS[route.file];
    const headers = { 'Content-Type': asset.type, 'Cache-Control': asset.cache, 'X-Content-Type-Options': 'nosniff' };
    return staticAnswer(request, await load(route.file), headers, fetchAPI);
  };
}
