// The app's own paths, in one table: which part of the app answers a path, and its route label for
// logs and metrics. A request's path is matched once and kept in its request state, so every other
// part looks up its own match instead of matching (and refusing) paths again.
//
// useRoutes is the one place that refuses a path or a method: a path that names nothing is a 404 in
// the envelope, a read-only path (REST, docs, GraphiQL's files, /metrics, the front door: / and
// /api/v1) answers only GET and HEAD (405 with Allow, decisions section 1), and /graphql only GET
// and POST (405 with Allow, as a GraphQL error: OPTIONS without a key was a 401). It runs before any
// part that answers a path, and before authentication, so an unknown path is never counted against
// a key.

import type { Plugin } from 'graphql-yoga';
import { codedError } from '../domain/coded-error.js';
import { graphqlErrorResponse } from '../graphql/graphql-http.js';
import { stateOf } from '../request/state.js';
import { failure } from '../rest/envelope.js';
import { API_INDEX_PATH, matchRoute, READ_METHODS, type Route } from '../rest/routes.js';

export const GRAPHQL_PATH = '/graphql';

/** Whether a request target (`/graphql?query=...`) is the GraphQL endpoint: its refusals are GraphQL errors. */
export function isGraphQLTarget(target: string | undefined): boolean {
  return target !== undefined && (target === GRAPHQL_PATH || target.startsWith(`${GRAPHQL_PATH}?`));
}
export const METRICS_PATH = '/metrics';
/** The front door (front-door.ts): what the service is and where its parts are. */
export const HOME_PATH = '/';
/** The REST API's index (front-door.ts), declared with the REST routes that the OpenAPI document lists it with. */
export { API_INDEX_PATH } from '../rest/routes.js';

/** The OpenAPI document and the reference (Swagger UI) over it (use-docs.ts). */
export const OPENAPI_PATH = '/api/v1/openapi.json';
export const DOCS_PATH = '/docs';
/** Every file use-docs.ts serves (`/docs/` is `/docs`); other paths under /docs/ are 404s (useRoutes). */
export const DOCS_FILES = [OPENAPI_PATH, DOCS_PATH, '/docs/docs.js', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/docs/favicon-32x32.png'] as const;
export type DocsFile = (typeof DOCS_FILES)[number];

/** GraphiQL's files (use-graphiql.ts); its page is Yoga's answer at /graphql. */
export const GRAPHIQL_ASSETS_PATH = '/graphiql';
/** Every file served under /graphiql/; other paths there are 404s (useRoutes). */
export const GRAPHIQL_FILES = [
  '/graphiql/graphiql.js',
  '/graphiql/graphiql.css',
  '/graphiql/start.js',
  '/graphiql/editor.worker.js',
  '/graphiql/json.worker.js',
  '/graphiql/graphql.worker.js',
  '/graphiql/favicon.ico',
] as const;
export type GraphiQLFile = (typeof GRAPHIQL_FILES)[number];

const HEALTH_PATHS: ReadonlySet<string> = new Set(['/health/live', '/health/ready']);
const DOCS: ReadonlySet<string> = new Set(DOCS_FILES);
const GRAPHIQL: ReadonlySet<string> = new Set(GRAPHIQL_FILES);

/**
 * Where a path goes, with its label: a REST route's pattern (`/api/v1/interactions/{id}`),
 * `/graphql`, a health path, `/metrics`, `/docs`, `/api/v1/openapi.json` or a GraphiQL file, else `unmatched`.
 * Never the raw path, whose ids and arbitrary segments would make unbounded label values and
 * could carry personal data.
 */
export type AppRoute =
  | { area: 'graphql' | 'health' | 'metrics'; label: string }
  /** `/` and `/api/v1`: no key needed, never counted. */
  | { area: 'front-door'; label: typeof HOME_PATH | typeof API_INDEX_PATH }
  | { area: 'docs'; label: string; file: DocsFile }
  /** GraphiQL's files (its page is Yoga's answer at /graphql). */
  | { area: 'graphiql'; label: string; file: GraphiQLFile }
  | { area: 'rest'; label: string; route: Route; pathParams: Record<string, string> }
  /** Nothing here: a 404 (unknown paths, and unknown files under /docs/). */
  | { area: 'none'; label: string }
  /**
   * Other paths under /health/ were always left to Yoga, which answers them 404 with an empty body
   * rather than the envelope; kept so (issue 19 changes no answer).
   */
  | { area: 'yoga'; label: string };

/**
 * Exact paths are looked up; REST paths go through routes.ts's own matcher rather than URLPattern,
 * which matches the raw segment: a malformed escape or an encoded control character would match
 * there, where the matcher (decoding each segment) finds no route and the answer is a 404.
 */
export function matchAppRoute(pathname: string): AppRoute {
  if (pathname === GRAPHQL_PATH) return { area: 'graphql', label: pathname };
  if (pathname === METRICS_PATH) return { area: 'metrics', label: pathname };
  if (pathname === HOME_PATH || pathname === API_INDEX_PATH) return { area: 'front-door', label: pathname };
  if (HEALTH_PATHS.has(pathname)) return { area: 'health', label: pathname };
  if (pathname.startsWith('/health/')) return { area: 'yoga', label: 'unmatched' };
  if (pathname === DOCS_PATH || pathname.startsWith(`${DOCS_PATH}/`)) {
    const file = pathname === `${DOCS_PATH}/` ? DOCS_PATH : pathname;
    return DOCS.has(file) ? { area: 'docs', label: DOCS_PATH, file: file as DocsFile } : { area: 'none', label: DOCS_PATH };
  }
  if (DOCS.has(pathname)) return { area: 'docs', label: pathname, file: pathname as DocsFile };
  if (pathname.startsWith(`${GRAPHIQL_ASSETS_PATH}/`)) {
    return GRAPHIQL.has(pathname) ? { area: 'graphiql', label: pathname, file: pathname as GraphiQLFile } : { area: 'none', label: GRAPHIQL_ASSETS_PATH };
  }
  if (pathname.startsWith('/api/')) {
    const matched = matchRoute(pathname);
    if (matched) return { area: 'rest', label: matched.route.path, route: matched.route, pathParams: matched.pathParams };
  }
  return { area: 'none', label: 'unmatched' };
}

declare module '../request/state.js' {
  interface RequestState {
    /** The app's route for the path, matched once. */
    route?: AppRoute;
  }
}

/** The request's route, matched on first use and kept in its state. */
export function routeOf(request: Request, url?: URL): AppRoute {
  const state = stateOf(request);
  state.route ??= matchAppRoute((url ?? new URL(request.url)).pathname);
  return state.route;
}

export interface RoutesOptions {
  /** Whether /metrics is served (METRICS_TOKEN set); otherwise it is a 404 like any unknown path. */
  metrics: boolean;
}

const ALLOW = READ_METHODS.join(', ');
const READ_ONLY: ReadonlySet<AppRoute['area']> = new Set(['rest', 'docs', 'graphiql', 'metrics', 'front-door']);
/** What the GraphQL endpoint takes (GraphQL over HTTP); Yoga refuses the others, but only after admission. */
const GRAPHQL_METHODS: ReadonlySet<string> = new Set(['GET', 'POST']);
const GRAPHQL_ALLOW = [...GRAPHQL_METHODS].join(', ');

/** 405 in the GraphQL endpoint's own shape (`errors[0].extensions.code`), before any key is read. */
function graphqlMethodNotAllowed(request: Request, fetchAPI: { Response: typeof Response }): Response {
  const error = codedError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${GRAPHQL_PATH}; use ${[...GRAPHQL_METHODS].join(' or ')}`);
  return graphqlErrorResponse(request, fetchAPI, [error], { status: 405, headers: { Allow: GRAPHQL_ALLOW } });
}

export function useRoutes(options: RoutesOptions): Plugin {
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      const route = routeOf(request, url);
      if (route.area === 'none' || (route.area === 'metrics' && !options.metrics)) {
        endResponse(failure(request, 'NOT_FOUND', { message: `No endpoint at ${url.pathname}` }));
        return;
      }
      if (route.area === 'graphql' && !GRAPHQL_METHODS.has(request.method)) {
        endResponse(graphqlMethodNotAllowed(request, fetchAPI));
        return;
      }
      if (READ_ONLY.has(route.area) && !(READ_METHODS as readonly string[]).includes(request.method)) {
        endResponse(
          failure(request, 'METHOD_NOT_ALLOWED', { message: `${request.method} is not allowed; use ${READ_METHODS.join(' or ')}`, headers: { Allow: ALLOW } }),
        );
      }
    },
  };
}
