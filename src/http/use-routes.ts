// The one place that refuses a path or a method: a path that names nothing is a 404 in the
// envelope, a read-only path (REST, docs, GraphiQL's files, /metrics, the front door: / and
// /api/v1) answers only GET and HEAD (405 with Allow, decisions section 1), and /graphql only GET
// and POST (405 with Allow, as a GraphQL error: OPTIONS without a key was a 401). It runs before any
// part that answers a path, and before authentication, so an unknown path is never counted against
// a key. It also matches the path once for the request (app-routes.ts), for every later plugin and
// for logs and metrics.
import type { Plugin } from 'graphql-yoga';
import { codedError } from '../domain/coded-error.js';
import { graphqlErrorResponse } from '../graphql/graphql-http.js';
import { failure } from '../rest/envelope.js';
import { READ_METHODS } from '../rest/routes.js';
import { type AppRoute, GRAPHQL_PATH, routeOf } from './app-routes.js';

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
