// The front door: `GET /` says what the service is and links to its parts (the REST reference, the
// OpenAPI document, the REST index, GraphQL, health), as a small HTML page for a browser and as JSON
// for any other client; `GET /api/v1` is the REST API's index, every endpoint with its method,
// summary and required scope, taken from the route table (and the operation ids from the OpenAPI
// document's own functions), so it cannot drift from what is served. Neither needs a key, and
// neither is counted: app-plugins.ts calls this page before admission. Unknown methods were refused
// (405) by useRoutes (app-plugins.ts), where the path was matched.
//
// The JSON is the API's success envelope (`{ success, data, request_id, timestamp }`): decisions
// section 1 makes every answer on an API path the envelope, `/api/v1` is one, and a client that
// follows the links from `/` then reads everything one way. The page for a browser is the one
// answer that is not JSON, like /docs.
import { createHash } from 'node:crypto';
import { API_TITLE, API_VERSION, operationIdOf, tagOf } from '../rest/openapi.js';
import { mediaRanges, notModified, routes, successFromPayload, successPayload } from '../rest/routes.js';
import { etagOf, ifNoneMatchNames } from '../rest/use-rest.js';
import type { Page } from './app-plugins.js';
import { API_INDEX_PATH, DOCS_PATH, GRAPHQL_PATH, HOME_PATH, OPENAPI_PATH } from './app-plugins.js';

const READY_PATH = '/health/ready';

interface FrontLink {
  href: string;
  title: string;
}

/** Where the parts are; the page lists them in this order. */
const LINKS = {
  docs: { href: DOCS_PATH, title: 'REST API reference (Swagger UI): every endpoint, and "Try it out" with a key' },
  openapi: { href: OPENAPI_PATH, title: 'OpenAPI 3.1 document of the REST API, for code generators and API tools' },
  api: { href: API_INDEX_PATH, title: 'Index of the REST endpoints, with the scope each needs' },
  graphql: { href: GRAPHQL_PATH, title: 'GraphQL endpoint; in a browser, GraphiQL' },
  health: { href: READY_PATH, title: 'Readiness: the service and its database answer' },
} as const satisfies Record<string, FrontLink>;

const DESCRIPTION =
  'Read-only analytics over the voice calls and WhatsApp conversations clinics have with their patients: clinics, campaigns, interactions and metrics, ' +
  `as REST under ${API_INDEX_PATH} and as GraphQL at ${GRAPHQL_PATH}.`;
const AUTHORIZATION = 'Authorization: Bearer <API key>';
/** What to send, with the header as `header` spells it (quoted in JSON, as code on the page). */
const authentication = (header: string) =>
  `Every API request needs the header ${header}; ${HOME_PATH}, ${API_INDEX_PATH}, the reference, the OpenAPI document and health need none.`;

/** RFC 8631 relations, for clients that look for them in the headers. */
const LINK_HEADER = `<${DOCS_PATH}>; rel="service-doc", <${OPENAPI_PATH}>; rel="service-desc", <${READY_PATH}>; rel="status"`;

interface EndpointEntry {
  method: 'GET';
  path: string;
  summary: string;
  /** Null: any valid key (GET /api/v1/me). */
  required_scope: string | null;
  operation_id: string;
  /** The endpoint in the reference (Swagger UI's deep link). */
  docs: string;
}

function homeData() {
  return { name: API_TITLE, description: DESCRIPTION, authentication: authentication(`"${AUTHORIZATION}"`), links: LINKS };
}

function indexData() {
  const endpoints: EndpointEntry[] = routes.map((route) => ({
    method: 'GET',
    path: route.path,
    summary: route.summary,
    required_scope: route.scope ?? null,
    operation_id: operationIdOf(route),
    docs: `${DOCS_PATH}#/${tagOf(route)}/${operationIdOf(route)}`,
  }));
  return { name: API_TITLE, version: API_VERSION, authentication: authentication(`"${AUTHORIZATION}"`), openapi: OPENAPI_PATH, docs: DOCS_PATH, endpoints };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:3rem auto;padding:0 1rem;color:#1b1f24}' +
  'h1{font-size:1.6rem;margin-bottom:.25rem}li{margin:.6rem 0}a{font-weight:600}code{background:#f0f2f4;padding:0 .25rem;border-radius:3px}';

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(API_TITLE)}</title>
    <link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png" sizes="32x32">
    <style>${STYLE}</style>
  </head>
  <body>
    <main>
      <h1>${escapeHtml(API_TITLE)}</h1>
      <p>${escapeHtml(DESCRIPTION)}</p>
      <ul>
${Object.values(LINKS)
  .map((link: FrontLink) => `        <li><a href="${escapeHtml(link.href)}">${escapeHtml(link.href)}</a>: ${escapeHtml(link.title)}</li>`)
  .join('\n')}
      </ul>
      <p>${authentication(`<code>${escapeHtml(AUTHORIZATION)}</code>`)}</p>
    </main>
  </body>
</html>
`;

/**
 * Nothing but this page's own style (by its hash) and same-origin images (the favicon); no script
 * at all. As strict as /docs's policy, and stricter where the page needs less.
 */
const PAGE_SECURITY_HEADERS = {
  'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** Beyond this an Accept is not a browser's or an HTTP library's: it is ignored (JSON). */
const MAX_ACCEPT_LENGTH = 4096;

/**
 * Whether an Accept header asks for HTML rather than JSON: only when it weights HTML (`text/html`
 * or `application/xhtml+xml`, else `text/*`, else `*`/`*`) strictly above JSON (`application/json`,
 * else `application/*`, else `*`/`*`). A browser's Accept does (`text/html,...,*`/`*;q=0.8`); an
 * absent one, `*`/`*` alone, an unreadable one and an over-long one do not: a tie keeps JSON.
 */
export function prefersHtml(accept: string | null): boolean {
  if (!accept || accept.length > MAX_ACCEPT_LENGTH) return false;
  const ranges = mediaRanges(accept);
  const qOf = (type: string) => ranges.reduce<number | undefined>((q, range) => (range.type === type ? Math.max(q ?? 0, range.q) : q), undefined);
  const any = qOf('*/*');
  const named = [qOf('text/html'), qOf('application/xhtml+xml')].filter((q) => q !== undefined);
  const html = named.length ? Math.max(...named) : (qOf('text/*') ?? any ?? 0);
  const json = qOf('application/json') ?? qOf('application/*') ?? any ?? 0;
  return html > json;
}

interface Answer {
  /** The envelope's text without `request_id` and `timestamp` (routes.ts successPayload). */
  payload: string;
  etag: string;
}

function answerOf(path: string, data: unknown): Answer {
  const payload = successPayload(data);
  return { payload, etag: etagOf(path, payload) };
}

export function frontDoorPage(): Page<'front-door'> {
  const home = answerOf(HOME_PATH, homeData());
  const index = answerOf(API_INDEX_PATH, indexData());
  const page = { body: PAGE, etag: `"${createHash('sha256').update(PAGE).digest('base64url').slice(0, 27)}"` };

  return (request, route, fetchAPI) => {
    const ifNoneMatch = request.headers.get('if-none-match');
    // Public and unchanging while the process runs; revalidated (ETag) so a new release shows.
    const caching: Record<string, string> = { 'Cache-Control': 'no-cache', Link: LINK_HEADER };
    if (route.label === HOME_PATH) {
      // `/` answers by Accept: caches must keep the page and the JSON apart.
      caching.Vary = 'Accept';
      if (prefersHtml(request.headers.get('accept'))) {
        const headers = { 'Content-Type': 'text/html; charset=utf-8', ETag: page.etag, ...caching, ...PAGE_SECURITY_HEADERS };
        const status = ifNoneMatchNames(ifNoneMatch, page.etag) ? 304 : 200;
        return new fetchAPI.Response(status === 304 || request.method === 'HEAD' ? null : page.body, { status, headers });
      }
    }
    const { payload, etag } = route.label === HOME_PATH ? home : index;
    const headers = { ETag: etag, ...caching };
    return ifNoneMatchNames(ifNoneMatch, etag) ? notModified(request, headers) : successFromPayload(request, payload, headers);
  };
}
