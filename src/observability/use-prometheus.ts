// GET /metrics in Prometheus text format, for a scraper holding METRICS_TOKEN, and the recording of
// every response into the HTTP and admission metrics. Without a configured token /metrics does not
// exist (http/use-routes.ts answers it 404 like any unknown path), so it is never public by
// accident. Never rate limited or counted in a key's quota: http/use-pages.ts answers it before
// admission.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import { routeOf } from '../http/app-routes.js';
import type { Page } from '../http/use-pages.js';
import { admissionOf } from '../limits/admission.js';
import { stateOf } from '../request/state.js';
import { failure } from '../rest/envelope.js';
import type { Metrics } from './prometheus.js';
import { elapsedMs, methodOf } from './request-context.js';

export interface MetricsPluginOptions {
  metrics: Metrics;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Constant-time comparison (hashing first makes the lengths equal, so length leaks nothing either). */
export function tokenMatches(presented: string | null | undefined, expected: string): boolean {
  return presented != null && timingSafeEqual(digest(presented), digest(expected));
}

function bearerToken(request: Request): string | undefined {
  const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(request.headers.get('authorization') ?? '');
  return match?.[1];
}

/**
 * GET /metrics, for the scraper that sends `token` (http/use-pages.ts calls it; without a token
 * configured the app has no such page, and http/use-routes.ts answers 404, as it does to methods
 * other than GET and HEAD).
 */
export function metricsPage(metrics: Metrics, token: string): Page<'metrics'> {
  return async (request, _route, fetchAPI) => {
    if (!tokenMatches(bearerToken(request), token)) {
      return failure(request, 'UNAUTHORIZED', {
        message: 'The metrics endpoint needs Authorization: Bearer <metrics token>',
        headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
      });
    }
    const body = await metrics.registry.metrics();
    return new fetchAPI.Response(request.method === 'HEAD' ? null : body, {
      status: 200,
      headers: { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' },
    });
  };
}

/** Records every response into the HTTP and admission metrics. */
export function useMetrics(options: MetricsPluginOptions): Plugin {
  const { metrics } = options;

  function observe(request: Request, status: number): string {
    const route = routeOf(request).label;
    metrics.observeRequest({ method: methodOf(request), route, status }, elapsedMs(request) / 1000);
    return route;
  }

  return {
    instrumentation: {
      request({ request }, wrapped) {
        // Begins the request's state (its clock) if the request log has not.
        stateOf(request);
        const handled = wrapped();
        if (!(handled instanceof Promise)) return handled;
        // A hook threw outside Yoga's error handling: the server answers 500 and no onResponse runs.
        return handled.catch((error: unknown) => {
          observe(request, 500);
          metrics.observeUnexpectedError({ code: 'INTERNAL_ERROR' });
          throw error;
        });
      },
    },
    onResponse({ request, response }) {
      const route = observe(request, response.status);
      if (route === '/health/ready') metrics.observeHealthCheck(response.status === 200, elapsedMs(request) / 1000);
      const admission = admissionOf(request);
      if (admission) {
        metrics.observeAdmission(admission);
        if (admission.decision === 'unavailable') metrics.observeDatabaseUnavailable();
      }
    },
  };
}
