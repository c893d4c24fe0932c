// Prometheus metrics on a registry of the app's own (never prom-client's global one, so several
// apps in one process, as in tests, do not clash): HTTP traffic by route label and status,
// admission decisions by tier, database errors and health-check timings, optionally the
// connection pool's counts, and prom-client's default process metrics; the plugin that records
// every response into them; and GET /metrics in Prometheus text format, for a scraper holding
// METRICS_TOKEN. Without a configured token /metrics does not exist (useRoutes in http/app-routes.ts answers it
// 404 like any unknown path), so it is never public by accident. Never rate limited or counted in a
// key's quota: http/use-pages.ts answers it before admission.

import { createHash, timingSafeEqual } from 'node:crypto';
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { isDatabaseUnavailable } from '../db/errors.js';
import type { Page } from '../http/app-routes.js';
import { GRAPHQL_PATH, routeOf } from '../http/app-routes.js';
import type { AdmissionSummary } from '../limits/admission.js';
import { admissionOf } from '../limits/admission.js';
import type { Logger } from '../logging/logger.js';
import { rootError } from '../logging/logger.js';
import { elapsedMs, methodOf, runWithRequest, stateOf } from '../request/state.js';
import { failure } from '../rest/envelope.js';

/** What a node-postgres `Pool` reports (its public counters). */
export interface PoolStats {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

export interface MetricsOptions {
  /** prom-client's process metrics (CPU, memory, event loop lag, GC, handles). */
  processMetrics?: boolean;
  /** Connection pool counts, when the pool is reachable (see PoolStats). */
  pool?: PoolStats;
}

export type UnexpectedErrorCode = 'INTERNAL_ERROR' | 'SERVICE_UNAVAILABLE';

export interface Metrics {
  readonly registry: Registry;
  observeRequest(labels: { method: string; route: string; status: number }, seconds: number): void;
  observeAdmission(summary: AdmissionSummary): void;
  /** An error masked into INTERNAL_ERROR / SERVICE_UNAVAILABLE (see classifyUnexpectedError). */
  observeUnexpectedError(classified: ClassifiedError): void;
  /** The key check could not reach the database (answered 503 before any query ran). */
  observeDatabaseUnavailable(): void;
  observeHealthCheck(ready: boolean, seconds: number): void;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Errors raised by Prisma or its driver adapter (the query reached the database layer). */
function isDatabaseError(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { name, code } = error as { name?: unknown; code?: unknown };
  return (
    (typeof name === 'string' && (name.startsWith('PrismaClient') || name === 'DriverAdapterError' || name === 'DatabaseError')) ||
    (typeof code === 'string' && /^P\d{4}$/.test(code))
  );
}

export interface ClassifiedError {
  code: UnexpectedErrorCode;
  /** Set when the database was the cause. */
  database?: 'unavailable' | 'query';
}

/** What app.ts's maskError made of an error: SERVICE_UNAVAILABLE when the database cannot be reached. */
export function classifyUnexpectedError(error: unknown): ClassifiedError {
  const cause = rootError(error);
  if (isDatabaseUnavailable(error) || isDatabaseUnavailable(cause)) return { code: 'SERVICE_UNAVAILABLE', database: 'unavailable' };
  return isDatabaseError(cause) ? { code: 'INTERNAL_ERROR', database: 'query' } : { code: 'INTERNAL_ERROR' };
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer HTTP requests (until the response is ready), by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const admissions = new Counter({
    name: 'api_admission_decisions_total',
    help: 'Authentication and quota decisions: admitted, rate_limited (quota 429), auth_rate_limited (failed-authentication 429), unauthenticated (401), unavailable (503), by key tier.',
    labelNames: ['decision', 'tier'] as const,
    registers: [registry],
  });
  const unexpected = new Counter({
    name: 'api_unexpected_errors_total',
    help: 'Errors answered as INTERNAL_ERROR (500) or SERVICE_UNAVAILABLE (503); each is logged with its stack and request_id.',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  const databaseErrors = new Counter({
    name: 'database_errors_total',
    help: 'Database failures seen by requests: unavailable (unreachable, pool exhausted, shutting down) or query (any other error from Prisma or the driver).',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const healthChecks = new Histogram({
    name: 'database_health_check_duration_seconds',
    help: 'Time of GET /health/ready (its database query), by result (up: 200, down: 503).',
    labelNames: ['result'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  for (const kind of ['unavailable', 'query']) databaseErrors.inc({ kind }, 0);
  for (const code of ['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']) unexpected.inc({ code }, 0);

  const pool = options.pool;
  if (pool) {
    new Gauge({
      name: 'database_pool_connections',
      help: 'Connections in the database pool, by state (idle or busy).',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'busy' }, pool.totalCount - pool.idleCount);
      },
    });
    new Gauge({
      name: 'database_pool_waiting_requests',
      help: 'Queries waiting for a free connection.',
      registers: [registry],
      collect() {
        this.set(pool.waitingCount);
      },
    });
  }

  return {
    registry,
    observeRequest({ method, route, status }, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
    observeAdmission({ decision, tier }) {
      admissions.inc({ decision, tier });
    },
    observeUnexpectedError({ code, database }) {
      unexpected.inc({ code });
      if (database) databaseErrors.inc({ kind: database });
    },
    observeDatabaseUnavailable() {
      databaseErrors.inc({ kind: 'unavailable' });
    },
    observeHealthCheck(ready, seconds) {
      healthChecks.observe({ result: ready ? 'up' : 'down' }, seconds);
    },
  };
}

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
 * configured the app has no such page, and useRoutes (http/app-routes.ts) answers 404, as it does to methods
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

// One log line per HTTP request, written when its response is ready:
//   request_id, key_id (the admitted key's id, or a rate-limited key's; absent without a valid
//   key), method, route (the route pattern, never the raw path), operation (GraphQL operation
//   name, when there is one), status, duration_ms, client_ip.
// Health checks and metrics scrapes are logged at debug, 5xx at warn, the rest at info. The plugin
// also makes the request the async context's current one for its whole handling, so errors that
// Yoga's logger reports (see yoga-logger.ts) carry the request_id of the response.

export interface RequestLogOptions {
  logger: Logger;
}

export function useRequestLog(options: RequestLogOptions): Plugin {
  const { logger } = options;

  function logLine(request: Request, status: number): void {
    const state = stateOf(request);
    // Once, even if it failed outside Yoga (see below).
    if (state.logged) return;
    state.logged = true;
    const route = routeOf(request);
    const admission = admissionOf(request);
    const line = {
      request_id: state.id,
      ...(admission?.keyId ? { key_id: admission.keyId } : {}),
      method: methodOf(request),
      route: route.label,
      ...(route.label === GRAPHQL_PATH && state.operation !== undefined ? { operation: state.operation } : {}),
      status,
      duration_ms: Math.round(elapsedMs(request) * 100) / 100,
      client_ip: state.clientIp,
    };
    if (route.area === 'health' || route.area === 'metrics') logger.debug(line, 'request');
    else if (status >= 500) logger.warn(line, 'request');
    else logger.info(line, 'request');
  }

  return {
    instrumentation: {
      request({ request }, wrapped) {
        return runWithRequest(request, () => {
          const handled = wrapped();
          if (!(handled instanceof Promise)) return handled;
          // A failure outside Yoga's error handling (a plugin's hook threw): the server answers
          // 500 itself, and no onResponse runs; log it here so it is not lost.
          return handled.catch((error: unknown) => {
            logger.error({ request_id: stateOf(request).id, route: routeOf(request).label, err: error }, 'unhandled error');
            logLine(request, 500);
            throw error;
          });
        });
      },
    },
    onExecute({ args }) {
      const request = (args.contextValue as { request?: Request } | undefined)?.request;
      if (!request) return;
      const state = stateOf(request);
      if (state.operation !== undefined) return;
      const name = getOperationAST(args.document, args.operationName)?.name?.value;
      if (name) state.operation = name.slice(0, 100);
    },
    onResponse({ request, response }) {
      logLine(request, response.status);
    },
  };
}
