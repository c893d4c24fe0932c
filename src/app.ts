// Builds the HTTP application: GraphQL (and GraphiQL) at /graphql, the REST facade under /api/v1,
// its OpenAPI document and reference page, the front door (/ and the REST index), and health
// checks. It is only listened to in server.ts, so tests call `app.fetch(...)` in-process.
import { randomUUID } from 'node:crypto';
import { GraphQLError } from 'graphql';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import { type ApiKeyResolver, createApiKeyResolver, createRequestAuthenticator } from './auth/api-keys.js';
import type { Db } from './db/client.js';
import { isDatabaseUnavailable } from './db/errors.js';
import { codedError, httpOf } from './domain/coded-error.js';
import { callerParametersOf, createGraphQLContext, type FieldRateLimit, type GraphQLContext, useAdmission, useQueryLimits } from './graphql/builder.js';
import { useGraphQLOverHttp } from './graphql/graphql-http.js';
import { FIELD_RATE_LIMITS, schema } from './graphql/index.js';
import { useCompiledExecution } from './graphql/use-compiled-execution.js';
import { useDocumentLimits } from './graphql/use-document-limits.js';
import { useHeavyLane } from './graphql/use-heavy-lane.js';
import { useOperationErrors } from './graphql/use-operation-errors.js';
import type { TrustProxySetting } from './http/app-plugins.js';
import {
  classifyUnexpectedError,
  createMetrics,
  GRAPHQL_PATH,
  metricsPage,
  type PoolStats,
  rendersGraphiQL,
  routeOf,
  useMetrics,
  usePages,
  usePrivateAnswers,
  useRequestLog,
  useRequestState,
  useRoutes,
} from './http/app-plugins.js';
import { frontDoorPage } from './http/front-door.js';
import type { Lifecycle } from './http/lifecycle.js';
import { docsPage } from './http/use-docs.js';
import { graphiqlFiles, graphiqlPageHeaders, renderGraphiQL } from './http/use-graphiql.js';
import { healthPage } from './http/use-health.js';
import { type Admitter, type ConcurrencyLimits, createAdmission, KeyConcurrency } from './limits/admission.js';
import type { HeavyWork } from './limits/heavy-lane.js';
import { MemoryQuotaStore } from './limits/memory-store.js';
import type { PerWindow, QuotaStore } from './limits/windows.js';
import { defaultLogger, type Logger } from './logging/logger.js';
import type { Tracing } from './observability/tracing.js';
import { createYogaLogger } from './observability/yoga-logger.js';
import { stateOf } from './request/state.js';
import { createExports, type ExportLimits } from './rest/exports/index.js';
import { useRest } from './rest/use-rest.js';

export interface AppOptions {
  db: Db;
  /** Resolves API keys; a cached resolver on `db` by default. */
  keyResolver?: ApiKeyResolver;
  /** Pre-filled in GraphiQL's headers editor (the embedded demo database's key). */
  demoKey?: string;
  now?: () => Date;
  /** Where per-key quotas are counted; this process's memory by default (Redis: see server.ts). */
  quotaStore?: QuotaStore;
  /** Take the client address from X-Forwarded-For (only behind a proxy that sets it). */
  trustProxy?: TrustProxySetting;
  /** Failed authentications allowed per client IP before 429s (defaults in limits/admission.ts). */
  authFailureLimits?: PerWindow<number>;
  /** Readiness turns 503 while it is draining (graceful shutdown). */
  lifecycle?: Lifecycle;
  /** Shares the per-field GraphQL rate limits between instances. */
  redis?: Redis;
  /** Per-key limits on expensive GraphQL fields (default: FIELD_RATE_LIMITS, derived in graphql/index.ts). */
  fieldRateLimits?: readonly FieldRateLimit[];
  /** Units of database work one key may hold at once, per tier (defaults in limits/admission.ts), or the limiter itself. */
  keyConcurrency?: ConcurrencyLimits | KeyConcurrency;
  /** Request lines, unexpected errors and Yoga's own logs; default: stdout at LOG_LEVEL/LOG_FORMAT. */
  logger?: Logger;
  /** Bearer token for GET /metrics; unset: /metrics answers 404. */
  metricsToken?: string;
  /** The database connection pool's counts, for the pool metrics (a node-postgres Pool fits). */
  dbPool?: PoolStats;
  /** Bounds on CSV and NDJSON exports (defaults in rest/exports/index.ts). */
  exportLimits?: ExportLimits;
  /** Spans for requests, GraphQL and SQL (observability/tracing.ts); unset: no tracing at all. */
  tracing?: Pick<Tracing, 'plugin'>;
  /** Serves heavy requests in a worker thread (limits/heavy-lane.ts); unset: they are served here, in time slices. */
  heavyLane?: HeavyWork;
  /** Decides admission instead of authenticating and counting here (the heavy lane's worker: its requests arrive admitted). */
  admitter?: Admitter;
  /** Plugins run after the app's own: observers of the pipeline (a test counts parses with one). */
  plugins?: readonly Plugin[];
}

export type App = YogaServerInstance<Record<string, never>, GraphQLContext>;

export function createApp(options: AppOptions): App {
  const { db } = options;
  const authenticate = createRequestAuthenticator(options.keyResolver ?? createApiKeyResolver(db));
  const now = options.now ?? (() => new Date());
  const admitter =
    options.admitter ??
    createAdmission({
      authenticate,
      quotas: options.quotaStore ?? new MemoryQuotaStore(),
      authFailureLimits: options.authFailureLimits,
      now: () => now().getTime(),
    });
  // One count of each key's units in flight, whether its requests are served here or in the heavy lane.
  const concurrency = options.keyConcurrency instanceof KeyConcurrency ? options.keyConcurrency : new KeyConcurrency(options.keyConcurrency);
  const graphiql = {
    title: 'Clinic analytics GraphQL',
    headers: JSON.stringify({ Authorization: options.demoKey ? `Bearer ${options.demoKey}` : 'Bearer <your API key>' }, null, 2),
    defaultQuery: DEFAULT_QUERY,
  };
  const logger = options.logger ?? defaultLogger();
  const metrics = createMetrics({ processMetrics: Boolean(options.metricsToken), pool: options.dbPool });
  const reportError = (error: unknown, request: Request) => {
    logger.error({ err: error, request_id: stateOf(request).id }, 'unexpected error');
    metrics.observeUnexpectedError(classifyUnexpectedError(error));
  };
  // Yoga runs each hook in this order (an instrumentation wraps the ones after it), and the first
  // plugin that ends a request in onRequest answers it:
  const plugins: Plugin[] = [
    // Outermost when tracing: the request's span is the parent of everything below, logs included.
    ...(options.tracing ? [options.tracing.plugin] : []),
    // Outermost otherwise: every request has a line and its state (its clock) begins first, and
    // every later hook runs with the request as the current one (for Yoga's own error logging).
    useRequestLog({ logger }),
    // The client address before anything uses it (failed-login limits, logs); X-Request-Id on
    // every response, before the rate-limit headers that use-admission adds.
    useRequestState(options.trustProxy ?? false),
    // Refuses unknown paths (404) and other methods on read-only ones (405) before anything
    // answers a path or authenticates: an unknown path is never counted against a key.
    useRoutes({ metrics: Boolean(options.metricsToken) }),
    // Whatever answers below, an answer that depends on the key is never kept by a shared cache.
    usePrivateAnswers(),
    // Every answer's status and duration, and its admission, into the metrics.
    useMetrics({ metrics }),
    // The paths that need no API key, answered before admission so that they are never counted:
    // the page the route's area names is called, and a REST or GraphQL request runs none of them.
    usePages({
      // Not Yoga's useReadinessCheck: like its health check (below), it also answers every URL
      // that ends with its endpoint, and it has no body for the checks' details.
      health: healthPage(db, options.lifecycle),
      ...(options.metricsToken ? { metrics: metricsPage(metrics, options.metricsToken) } : {}),
      docs: docsPage({ demoKey: options.demoKey }),
      graphiql: graphiqlFiles(),
      graphiqlPage: graphiqlPageHeaders,
      // `/` (what the service is, its links) and `/api/v1` (the REST index).
      'front-door': frontDoorPage(),
    }),
    // GraphQL requests are admitted here, before their body is parsed; REST requests inside
    // useRest, once their route is known (decisions section 1: route, then authentication).
    useAdmission(admitter, GRAPHQL_PATH, reportError),
    // Answers in the media type the client prefers, every error in one shape (GraphQL over HTTP).
    useGraphQLOverHttp(),
    // Before the cost of an operation is judged: a mutation or subscription is refused outright.
    useOperationErrors(),
    ...useDocumentLimits(),
    ...useQueryLimits({ redis: options.redis, fieldRateLimits: options.fieldRateLimits ?? FIELD_RATE_LIMITS, concurrency }),
    // REST documents and hot free-form ones run compiled; before the heavy lane, whose executor
    // (the worker's answer) must be the one that runs for a heavy document.
    useCompiledExecution(),
    // After the limits: a heavy document is handed over with its units already taken.
    ...(options.heavyLane ? [useHeavyLane(options.heavyLane)] : []),
    // Last of the app's own: it executes the route's document through the hooks above.
    useRest({
      restRouteOf: (request, url) => {
        const route = routeOf(request, url);
        return route.area === 'rest' ? route : undefined;
      },
      admitter,
      now,
      onError: reportError,
      heavyLane: options.heavyLane,
      concurrency,
      exports: createExports({ db, logger, now, onError: reportError, ...options.exportLimits }),
    }),
    ...(options.plugins ?? []),
  ];

  return createYoga<Record<string, never>, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    // Yoga's built-in health check answers every URL that ENDS with this string (query included),
    // e.g. /api/v1/interactions/health, bypassing keys and the REST 404; it cannot be turned off.
    // An unguessable random ending disables it in effect; use-health.ts serves /health/*.
    healthCheckEndpoint: `/unused-${randomUUID()}`,
    landingPage: false,
    // The body's cap is useDocumentLimits' (64 KB, in the API's envelope); Yoga's own (25 MB) would
    // pipe every POST body through a TransformStream of its own (about 7% of a small request's CPU).
    maxRequestBodySize: false,
    logging: createYogaLogger(logger, metrics),
    // No CORS: API keys are secrets for servers, not browsers, and decisions section 1 answers
    // every method but GET/HEAD on API paths with 405.
    cors: false,
    plugins,
    // Yoga renders GraphiQL for any URL that ends with /graphql; only the path itself has it, and
    // the others are left to useRoutes (app-plugins.ts: 404). Its answer gets the page's headers (app-plugins.ts).
    graphiql: (request) => routeOf(request).area === 'graphql' && rendersGraphiQL(request, graphiql),
    renderGraphiQL,
    maskedErrors: {
      maskError: (error, message) => {
        const original = error instanceof GraphQLError ? error.originalError : undefined;
        if (error instanceof GraphQLError && !original) return error;
        // The located error carries the original's extensions plus the path and locations.
        if (original instanceof GraphQLError) return error as GraphQLError;
        // The field that failed stays named (path and locations, as the GraphQL spec asks of field
        // errors): they come from the client's own document; only the message and cause are hidden.
        const located = error instanceof GraphQLError ? { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path } : {};
        if (isDatabaseUnavailable(original ?? error)) {
          return codedError('SERVICE_UNAVAILABLE', undefined, { ...located, extensions: { http: httpOf('SERVICE_UNAVAILABLE') } });
        }
        return codedError('INTERNAL_ERROR', message, located);
      },
    },
    // Admission (builder.ts, use-rest.ts) has already authenticated and counted the request.
    // The context reads which clinics the key may see (its environment's); a database that cannot
    // answer that is a 503, as for any other read.
    context: async (initialContext) => {
      const admission = await admitter.admit(initialContext.request);
      if (!admission.ok) throw codedError('UNAUTHORIZED', 'Request not admitted', { extensions: { http: httpOf('UNAUTHORIZED') } });
      return await createGraphQLContext(db, admission.key, now(), callerParametersOf(initialContext), admission.quota);
    },
  });
}

const DEFAULT_QUERY = `# Every request needs "Authorization: Bearer <API key>" (see the Headers tab below).
query Overview {
  metricsSummary {
    totalInteractions
    totalCalls
    totalConversations
    successRate
    appointmentsScheduled
  }
  interactions(limit: 5) {
    pageInfo { total totalPages hasMore }
    nodes {
      id
      channel
      type
      outcome
      startedAt
      clinic { name }
      campaign { name }
    }
  }
}
`;
