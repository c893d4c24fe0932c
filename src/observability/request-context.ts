// What logs and metrics say about a request: the request itself for code that has none at hand
// (Yoga's logger, called while masking an error), when it started, its low-cardinality route
// label, and the admission decision (key id, tier) without ever touching the key itself.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestAuthenticator } from '../auth/request-auth.js';
import { TIER_LIMITS } from '../domain/values.js';
import type { Admission, Admitter } from '../limits/admission.js';
import { matchRoute } from '../rest/routes.js';
import { isDocsPath } from '../rest/use-docs.js';

export const METRICS_PATH = '/metrics';
export const GRAPHQL_PATH = '/graphql';
const HEALTH_PATHS = new Set(['/health/live', '/health/ready']);

const current = new AsyncLocalStorage<Request>();
const startedAt = new WeakMap<Request, number>();

/** Runs the handling of `request` with it as the current request (see `currentRequest`). */
export function runWithRequest<T>(request: Request, fn: () => T): T {
  markStart(request);
  return current.run(request, fn);
}

/** The request being handled by the calling async context, if any. */
export function currentRequest(): Request | undefined {
  return current.getStore();
}

export function markStart(request: Request): void {
  if (!startedAt.has(request)) startedAt.set(request, performance.now());
}

/** Milliseconds since the request's handling began. */
export function elapsedMs(request: Request): number {
  const start = startedAt.get(request);
  return start === undefined ? 0 : performance.now() - start;
}

/**
 * The route label: a REST route's pattern (`/api/v1/interactions/{id}`), `/graphql`, a health
 * path, `/metrics`, `/docs` or `/api/v1/openapi.json`, else `unmatched`. Never the raw path, whose
 * ids and arbitrary segments would make unbounded label values and could carry personal data.
 */
export function routeOf(pathname: string): string {
  if (pathname === GRAPHQL_PATH || pathname === METRICS_PATH || HEALTH_PATHS.has(pathname)) return pathname;
  if (isDocsPath(pathname)) return pathname.startsWith('/docs') ? '/docs' : pathname;
  if (pathname.startsWith('/api/')) {
    const matched = matchRoute(pathname);
    if (matched) return matched.route.path;
  }
  return 'unmatched';
}

const routes = new WeakMap<Request, string>();

/** `routeOf` the request's path, worked out once per request. */
export function routeOfRequest(request: Request): string {
  let route = routes.get(request);
  if (route === undefined) {
    route = routeOf(new URL(request.url).pathname);
    routes.set(request, route);
  }
  return route;
}

export function isHealthRoute(route: string): boolean {
  return HEALTH_PATHS.has(route);
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The method as a label: the standard ones, anything else `OTHER`. */
export function methodOf(request: Request): string {
  return METHODS.has(request.method) ? request.method : 'OTHER';
}

export type AdmissionDecision = 'admitted' | 'rate_limited' | 'auth_rate_limited' | 'unauthenticated' | 'unavailable';

export interface AdmissionSummary {
  decision: AdmissionDecision;
  keyId?: string;
  /** The key's tier, `none` without an authenticated key. */
  tier: string;
}

export interface AdmissionSources {
  admitter: Admitter;
  /** The per-request memoised authenticator the admitter uses (reading it again costs nothing). */
  authenticate: RequestAuthenticator;
}

function tierOfLimits(limits: { minute: number; hour: number; day: number }): string {
  for (const [tier, tierLimits] of Object.entries(TIER_LIMITS)) {
    if (tierLimits && tierLimits.minute === limits.minute && tierLimits.hour === limits.hour && tierLimits.day === limits.day) return tier;
  }
  return 'unknown';
}

/**
 * The admission decided for a request, if one was (health, docs, metrics and unknown paths have
 * none). A quota 429 carries no key, but the request did authenticate: its memoised result names
 * the key. An auth-failure 429 never authenticated, and is not made to.
 */
export async function admissionOf(sources: AdmissionSources, request: Request): Promise<AdmissionSummary | undefined> {
  const admission: Admission | undefined = sources.admitter.decided(request);
  if (!admission) return undefined;
  if (admission.ok) return { decision: 'admitted', keyId: admission.key.id, tier: admission.key.tier };
  if (admission.status === 401) return { decision: 'unauthenticated', tier: 'none' };
  if (admission.status === 503) return { decision: 'unavailable', tier: 'none' };
  if (!admission.quota) return { decision: 'auth_rate_limited', tier: 'none' };
  const auth = await sources.authenticate(request).catch(() => undefined);
  if (auth?.ok) return { decision: 'rate_limited', keyId: auth.key.id, tier: auth.key.tier };
  return { decision: 'rate_limited', tier: tierOfLimits(admission.quota.limits) };
}
