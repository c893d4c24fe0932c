// The API's own documentation, a page (app-plugins.ts): the OpenAPI document at GET /api/v1/openapi.json
// (no key needed) and an interactive reference at GET /docs. The page is Swagger UI, served from
// the installed `swagger-ui-dist` package under /docs/ (no CDN: every script, style and image is
// same-origin); its "Authorize" button takes a Bearer key and "Try it out" sends real requests.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { BEARER_SCHEME, buildOpenApiDocument } from '../rest/openapi.js';
import type { Page } from './app-plugins.js';
import { DOCS_PATH, type DocsFile, OPENAPI_PATH } from './app-plugins.js';
import { type StaticBody, staticAnswer, staticBody } from './static-file.js';

interface Asset {
  type: string;
  /** Read on first use, then kept. */
  body: () => string | Uint8Array;
  cache: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const JS_TYPE = 'text/javascript; charset=utf-8';

function swaggerUiFile(name: string): () => Uint8Array {
  return () => {
    const require = createRequire(import.meta.url);
    return readFileSync(path.join(path.dirname(require.resolve('swagger-ui-dist/package.json')), name));
  };
}

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Clinic Interaction Analytics API - reference</title>
    <link rel="stylesheet" href="/docs/swagger-ui.css">
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
  </head>
  <body>
    <noscript>This reference needs JavaScript. The OpenAPI document itself is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/docs.js"></script>
  </body>
</html>
`;

/** Starts Swagger UI on the document; a demo key, when given, is pre-filled in "Authorize". */
function initScript(demoKey: string | undefined): string {
  return `// Starts the API reference (Swagger UI) on this server's OpenAPI document.
window.addEventListener('load', function () {
  var ui = SwaggerUIBundle({
    url: ${JSON.stringify(OPENAPI_PATH)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: true,
    displayRequestDuration: true,
    displayOperationId: true,
    filter: true,
    showExtensions: true,
    tryItOutEnabled: true,
    validatorUrl: null,
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    onComplete: function () {
      var demoKey = ${JSON.stringify(demoKey ?? null)};
      if (demoKey) ui.preauthorizeApiKey(${JSON.stringify(BEARER_SCHEME)}, demoKey);
    },
  });
  window.ui = ui;
});
`;
}

export interface DocsOptions {
  /** Pre-filled as the Bearer key (the embedded demo database's key). */
  demoKey?: string;
}

const ASSET_CACHE = 'public, max-age=3600';

function assetsOf(options: DocsOptions): Record<DocsFile, Asset> {
  return {
    [OPENAPI_PATH]: { type: JSON_TYPE, body: () => JSON.stringify(buildOpenApiDocument(), null, 2), cache: 'no-cache' },
    [DOCS_PATH]: { type: 'text/html; charset=utf-8', body: () => PAGE, cache: 'no-cache' },
    // A script that embeds a key is a credential: no shared cache may keep it (as GraphiQL's page with the demo key).
    '/docs/docs.js': { type: JS_TYPE, body: () => initScript(options.demoKey), cache: options.demoKey ? 'private, no-store' : 'no-cache' },
    '/docs/swagger-ui-bundle.js': { type: JS_TYPE, body: swaggerUiFile('swagger-ui-bundle.js'), cache: ASSET_CACHE },
    '/docs/swagger-ui.css': { type: 'text/css; charset=utf-8', body: swaggerUiFile('swagger-ui.css'), cache: ASSET_CACHE },
    '/docs/favicon-32x32.png': { type: 'image/png', body: swaggerUiFile('favicon-32x32.png'), cache: ASSET_CACHE },
  };
}

/**
 * The page only loads same-origin scripts; Swagger UI needs inline styles (React style attributes)
 * and data: images (its CSS icons).
 */
const PAGE_SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/**
 * The file the route names: app-plugins.ts matched the path against DOCS_FILES, and useRoutes
 * refused unknown files and methods other than GET and HEAD.
 */
export function docsPage(options: DocsOptions = {}): Page<'docs'> {
  const assets = assetsOf(options);
  const loaded = new Map<DocsFile, StaticBody>();

  function load(pathname: DocsFile, asset: Asset) {
    let entry = loaded.get(pathname);
    if (!entry) {
      entry = staticBody(asset.body());
      loaded.set(pathname, entry);
    }
    return entry;
  }

  return (request, route, fetchAPI) => {
    const pathname = route.file;
    const asset = assets[pathname];
    const headers: Record<string, string> = {
      'Content-Type': asset.type,
      'Cache-Control': asset.cache,
      ...(pathname === DOCS_PATH ? PAGE_SECURITY_HEADERS : { 'X-Content-Type-Options': 'nosniff' }),
    };
    if (pathname === OPENAPI_PATH) headers['Access-Control-Allow-Origin'] = '*';
    return staticAnswer(request, load(pathname, asset), headers, fetchAPI);
  };
}
