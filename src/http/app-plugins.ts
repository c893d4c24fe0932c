// The plugins every request passes around the API's own answer, and what they share (app.ts runs
// them in order): the request's state and client address (useRequestState), its log line
// (useRequestLog) and Prometheus metrics with their /metrics page (useMetrics), the app's own paths
// in one table (routeOf, useRoutes), its pages (usePages), and answers that depend on the key kept
// out of shared caches (usePrivateAnswers). They are one module because one request meets them all,
// one after another, before and after the REST facade or GraphQL answers it.

import { createHash, timingSafeEqual } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ProxyTrust } from '../config.js';
import { isDatabaseUnavailable } from '../db/errors.js';
import { codedError } from '../domain/coded-error.js';
import { graphqlErrorResponse } from '../graphql/graphql-http.js';
import { type AdmissionSummary, admissionOf } from '../limits/admission.js';
import { type Logger, rootError } from '../logging/logger.js';
import { elapsedMs, methodOf, runWithRequest, stateOf } from '../request/state.js';
import { API_INDEX_PATH, failure, matchRoute, READ_METHODS, type Route } from '../rest/routes.js';

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

// The app's own pages, those that need no API key: health, /metrics, the reference (/docs and the
// OpenAPI document), GraphiQL's files, and the front door (/ and the REST index /api/v1). The
// path was matched once (routeOf, above), and unknown paths and methods refused (useRoutes, there);
// this plugin calls the page the route's area names, so a REST or GraphQL request runs no page's
// code at all. It runs before admission: no page is authenticated or counted against a key.
//
// GraphiQL's page itself is Yoga's answer at /graphql (app.ts's `graphiql` option, use-graphiql.ts
// renders it); the request is marked when Yoga renders it, and only then are the page's own
// headers added to the answer.

/** The areas (AppRoute, above) whose paths are pages. */
export type PageArea = 'health' | 'metrics' | 'docs' | 'graphiql' | 'front-door';

/** A page: the answer to a GET or HEAD of one of its area's paths (its route says which). */
export type Page<A extends PageArea = PageArea> = (
  request: Request,
  route: AppRoute & { area: A },
  fetchAPI: { Response: typeof Response },
) => Response | Promise<Response>;

export type Pages = { [A in PageArea]?: Page<A> } & {
  /** Adds its own headers to GraphiQL's page, which Yoga renders (`rendersGraphiQL`). */
  graphiqlPage?: (response: Response) => void;
};

declare module '../request/state.js' {
  interface RequestState {
    /** Yoga answers it with GraphiQL's page (app.ts's `graphiql` option said so). */
    graphiqlPage?: boolean;
  }
}

/** `options`, and the request marked as answered by GraphiQL's page (for createYoga's `graphiql` option). */
export function rendersGraphiQL<T>(request: Request, options: T): T {
  stateOf(request).graphiqlPage = true;
  return options;
}

export function usePages(pages: Pages): Plugin {
  const pageOf = pages as Partial<Record<AppRoute['area'], Page>>;
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      const route = routeOf(request, url);
      const page = pageOf[route.area];
      if (!page) return;
      return Promise.resolve(page(request, route as AppRoute & { area: PageArea }, fetchAPI)).then(endResponse);
    },
    onResponse({ request, response }) {
      if (stateOf(request).graphiqlPage) pages.graphiqlPage?.(response);
    },
  };
}

// Answers that depend on the API key are never shared by caches. A proxy cache such as nginx's
// `proxy_cache` stores an answer to a request carrying Authorization unless the answer says
// `private` or `no-store` (RFC 9111 section 3.5 leaves that to the server), and by default it keys
// its entries by the URL alone: a GET /graphql answer with a phi:read key's phone numbers, or a 401,
// would be served to the next key that asks for the same URL. So every answer on a path that reads
// a key (by its route, whatever the status and whoever built it) varies by Authorization, and:
// - GraphQL answers say `private, no-store`: they carry no validator to revalidate with, and the
//   same URL answers GraphiQL's page, JSON or the GraphQL media type by Accept;
// - REST and /metrics keep their own (`private, no-cache` with an ETag, `no-store` on errors and
//   exports), and an answer that says neither private nor no-store gets `private, no-store`.
// The public files (/docs, /graphiql/, /, /api/v1) are left cacheable.

/** The areas whose answers depend on the Authorization header (AppRoute, above). */
const KEYED: ReadonlySet<AppRoute['area']> = new Set(['graphql', 'rest', 'metrics']);
const NEVER_STORED = 'private, no-store';

function keepsItPrivate(cacheControl: string | null): boolean {
  const directives = (cacheControl ?? '').split(',').map((directive) => directive.trim().toLowerCase());
  return directives.includes('private') || directives.includes('no-store');
}

export function usePrivateAnswers(): Plugin {
  return {
    onResponse({ request, response }) {
      const area = stateOf(request).route?.area;
      if (!area || !KEYED.has(area)) return;
      const { headers } = response;
      replaceHeader(headers, 'Vary', varyWith(headers.get('vary'), 'Authorization'));
      if (area === 'graphql') {
        replaceHeader(headers, 'Cache-Control', NEVER_STORED);
        replaceHeader(headers, 'Vary', varyWith(headers.get('vary'), 'Accept'));
      } else if (!keepsItPrivate(headers.get('cache-control'))) {
        replaceHeader(headers, 'Cache-Control', NEVER_STORED);
      }
    },
  };
}

// Fills the request state's parts that come from the HTTP request itself (request/state.ts): the
// client address when the request arrives, and echoes the request id on every response.

type NodeServerContext = { req?: { socket?: { remoteAddress?: string } } };

export function useRequestState(trustProxy: TrustProxySetting): Plugin {
  const isProxy = proxyMatcher(trustProxy);
  return {
    onRequest({ request, serverContext }) {
      const peer = (serverContext as NodeServerContext | undefined)?.req?.socket?.remoteAddress;
      stateOf(request).clientIp = clientAddressOf(request.headers.get('x-forwarded-for'), peer, isProxy);
    },
    onResponse({ request, response }) {
      if (!response.headers.has('x-request-id')) response.headers.set('X-Request-Id', stateOf(request).id);
    },
  };
}

// The client address for brute-force protection and logs: the TCP peer, or - behind trusted
// proxies - the right-most X-Forwarded-For address that no trusted proxy added.
//
// Each proxy APPENDS the address it received the request from, so the list reads
// `client-written..., added by proxy 1, ..., added by the last proxy` and the TCP peer is the last
// proxy itself. Everything left of what the first trusted proxy wrote is the client's own text,
// so the first entry can never be trusted: a client could rotate it to escape the failed-login
// limit, or write a victim's address to lock the victim out. Walking from the right and stopping
// at the first hop that is not a trusted proxy gives the address the outermost trusted proxy saw.

/** `true` is one hop (what TRUST_PROXY=true always meant: one proxy in front); `false`: no proxy (TRUST_PROXY as config.ts reads it). */
export type TrustProxySetting = boolean | ProxyTrust;

/** The canonical form of an address as proxies and sockets write it, or undefined if it is not one. */
function normalizeAddress(text: string): string | undefined {
  let address = text.trim();
  // `[::1]:443` and `203.0.113.7:51234`: some proxies append the port.
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed?.[1]) address = bracketed[1];
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) address = mapped[1];
  return isIP(address) ? address.toLowerCase() : undefined;
}

export type ProxyMatcher = (address: string | undefined, hop: number) => boolean;

/** Whether the hop `hop` away (0: the TCP peer) with `address` is one of our proxies. */
export function proxyMatcher(setting: TrustProxySetting): ProxyMatcher {
  if (setting === false) return () => false;
  const { hops, ranges } = setting === true ? { hops: 1, ranges: [] } : setting;
  const list = new BlockList();
  for (const range of ranges) {
    const [address = '', prefix] = range.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return (address, hop) => {
    if (hop < hops) return true;
    if (!address || !ranges.length) return false;
    return list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  };
}

/** The right-most address in `[...X-Forwarded-For, peer]` that is not a trusted proxy (else the left-most). */
export function clientAddressOf(forwardedFor: string | null | undefined, peer: string | undefined, isProxy: ProxyMatcher): string {
  const peerAddress = peer ? normalizeAddress(peer) : undefined;
  if (!isProxy(peerAddress, 0)) return peerAddress ?? 'unknown';
  const chain = (forwardedFor ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  let client = peerAddress ?? 'unknown';
  for (let i = chain.length - 1, hop = 1; i >= 0; i--, hop++) {
    const written = chain[i] ?? '';
    const address = normalizeAddress(written);
    // What a trusted proxy wrote but is not an address: keep it (bounded) so it is visible in logs.
    client = address ?? written.slice(0, 64);
    if (!isProxy(address, hop)) break;
  }
  return client;
}

// Changing a header of an answer built elsewhere: Vary built up by each part that makes the
// answer depend on a request header, and a value replaced without leaving the old one beside it.

/** `vary` with `name` added, unless it names it already (in any case) or is `*`. */
export function varyWith(vary: string | null, name: string): string {
  if (!vary?.trim()) return name;
  const names = vary.split(',').map((part) => part.trim().toLowerCase());
  return names.includes(name.toLowerCase()) || names.includes('*') ? vary : `${vary}, ${name}`;
}

/**
 * headers.set(), but @whatwg-node's Headers built from a plain object keep the object, and set()
 * adds a lower-case key beside one spelt otherwise (`ETag`): the answer would carry both. Deleting
 * first turns them into a map of lower-case names.
 */
export function replaceHeader(headers: Headers, name: string, value: string): void {
  const current = headers.get(name);
  if (current === value) return;
  if (current !== null) headers.delete(name);
  headers.set(name, value);
}

// Prometheus metrics on a registry of the app's own (never prom-client's global one, so several
// apps in one process, as in tests, do not clash): HTTP traffic by route label and status,
// admission decisions by tier, database errors and health-check timings, optionally the
// connection pool's counts, and prom-client's default process metrics; the plugin that records
// every response into them; and GET /metrics in Prometheus text format, for a scraper holding
// METRICS_TOKEN. Without a configured token /metrics does not exist (useRoutes in http/app-plugins.ts answers it
// 404 like any unknown path), so it is never public by accident. Never rate limited or counted in a
// key's quota: http/app-plugins.ts answers it before admission.

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
 * GET /metrics, for the scraper that sends `token` (http/app-plugins.ts calls it; without a token
 * configured the app has no such page, and useRoutes (http/app-plugins.ts) answers 404, as it does to methods
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
