// The one place that refuses a path or a method: a path that names nothing is a 404 in the
// envelope, and a read-only path (REST, docs, GraphiQL's files, /metrics, the front door: / and
// /api/v1) answers only GET and HEAD (405 with Allow, decisions section 1). It runs before any
// part that answers a path, and before authentication, so an unknown path is never counted against
// a key. It also matches the path once for the request (app-routes.ts), for every later plugin and
// for logs and metrics.
import type { Plugin } from 'graphql-yoga';
import { failure } from '../rest/envelope.js';
import { type AppRoute, routeOf } from './app-routes.js';

export interface RoutesOptions {
  /** Whether /metrics is served (METRICS_TOKEN set); otherwise it is a 404 like any unknown path. */
  metrics: boolean;
}

const ALLOW = 'GET, HEAD';
const READ_ONLY: ReadonlySet<AppRoute['area']> = new Set(['rest', 'docs', 'graphiql', 'metrics', 'front-door']);

export function useRoutes(options: RoutesOptions): Plugin {
  return {
    onRequest({ request, url, endResponse }) {
      const route = routeOf(request, url);
      if (route.area === 'none' || (route.area === 'metrics' && !options.metrics)) {
        endResponse(failure(request, 'NOT_FOUND', { message: `No endpoint at ${url.pathname}` }));
        return;
      }
      if (READ_ONLY.has(route.area) && request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(failure(request, 'METHOD_NOT_ALLOWED', { message: `${request.method} is not allowed; use GET or HEAD`, headers: { Allow: ALLOW } }));
      }
    },
  };
}
