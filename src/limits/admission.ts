// Whether a request may proceed: authentication, then the key's quota (decisions section 1's order:
// route -> authentication -> rate limit -> scope). Decided once per HTTP request, whichever layer
// asks first (REST facade or GraphQL endpoint), so one request counts once; the decision is kept
// in the request state (request/state.ts) for response headers, logs and metrics.
import type { ApiKeyPrincipal } from '../auth/api-keys.js';
import type { AuthFailure, RequestAuthenticator } from '../auth/authenticate.js';
import { isDatabaseUnavailable } from '../db/errors.js';
import { bindKey } from '../db/fair-pool.js';
import { ERRORS, type ErrorCode } from '../domain/error-catalogue.js';
import { TIER_LIMITS } from '../domain/values.js';
import { stateOf } from '../request/state.js';
import { MemoryQuotaStore } from './memory-store.js';
import { type PerWindow, type QuotaDecision, type QuotaStore, WINDOW_MS, WINDOWS } from './windows.js';

/** Why a request was refused: the metrics' decision labels (prometheus.ts). */
export type Refusal = 'unauthenticated' | 'auth_rate_limited' | 'rate_limited' | 'unavailable';

export type Admission =
  | { ok: true; key: ApiKeyPrincipal; quota?: QuotaDecision }
  | { ok: false; refusal: 'unauthenticated'; failure: AuthFailure }
  /** Failed authentications from the client address are over their limit; no key. */
  | { ok: false; refusal: 'auth_rate_limited'; retryAfterSeconds: number }
  /** The key's quota is used up; the key stays named, for logs and metrics. */
  | { ok: false; refusal: 'rate_limited'; key: ApiKeyPrincipal; retryAfterSeconds: number; quota: QuotaDecision }
  /** The key could not be checked: the database is unreachable. */
  | { ok: false; refusal: 'unavailable' };

export type Refused = Exclude<Admission, { ok: true }>;

declare module '../request/state.js' {
  interface RequestState {
    /** The admission decision, taken once, whichever layer asks first. */
    admission?: Promise<Admission>;
    /** The same decision once taken, read synchronously by response headers, logs and metrics. */
    admitted?: Admission;
  }
}

export type AdmissionDecision = 'admitted' | Refusal;

/** What logs, metrics and traces say of a request's admission: never the key itself. */
export interface AdmissionSummary {
  decision: AdmissionDecision;
  keyId?: string;
  /** The key's tier, `none` without an authenticated key. */
  tier: string;
}

/**
 * The admission decided for a request, if one was (health, docs, metrics and unknown paths have
 * none). A quota 429 names its key; an auth-failure 429 never authenticated.
 */
export function admissionOf(request: Request): AdmissionSummary | undefined {
  const admission = stateOf(request).admitted;
  if (!admission) return undefined;
  if (admission.ok) return { decision: 'admitted', keyId: admission.key.id, tier: admission.key.tier };
  if (admission.refusal === 'rate_limited') return { decision: 'rate_limited', keyId: admission.key.id, tier: admission.key.tier };
  return { decision: admission.refusal, tier: 'none' };
}

export interface AdmissionOptions {
  authenticate: RequestAuthenticator;
  quotas: QuotaStore;
  /** Failed authentications allowed per client IP and window before answering 429. */
  authFailureLimits?: PerWindow<number>;
  now: () => number;
}

export const DEFAULT_AUTH_FAILURE_LIMITS: PerWindow<number> = { minute: 30, hour: 300, day: 2_000 };

export interface Admitter {
  /** Decides once per request; later calls for the same request return the same decision. */
  admit(request: Request): Promise<Admission>;
}

export function createAdmission(options: AdmissionOptions): Admitter {
  // Brute-force protection is per instance: it needs no coordination to stop a guesser, and a
  // guess of a 190-bit key cannot succeed anyway; it bounds the lookups one client can cause.
  const failures = new MemoryQuotaStore();
  const failureLimits = options.authFailureLimits ?? DEFAULT_AUTH_FAILURE_LIMITS;

  async function admit(request: Request): Promise<Admission> {
    const nowMs = options.now();
    // Authenticate first: a valid key is never refused because of failures from its address
    // (others behind the same NAT or proxy, or someone naming that address); its own quota applies.
    // Only a FAILED attempt from an address over the limit is answered 429 instead of 401. A guess
    // of a 190-bit key cannot succeed, so what the limit must bound is the work a guesser causes,
    // and that stays bounded although every attempt is now looked at: malformed tokens never reach
    // the database, a repeated token is answered from the resolver's negative cache, concurrent
    // lookups of one token share one query, and each new well-formed token costs one indexed
    // lookup by hash - no more than any keyed request costs before its quota is known.
    let auth: Awaited<ReturnType<RequestAuthenticator>>;
    try {
      auth = await options.authenticate(request);
    } catch (error) {
      if (isDatabaseUnavailable(error)) return { ok: false, refusal: 'unavailable' };
      throw error;
    }
    if (!auth.ok) {
      // Counts the failure while the address is under its limits; over them, the attempt is
      // refused and counted nowhere (the hour and day windows count answered attempts only).
      const counted = failures.consumeSync(stateOf(request).clientIp, failureLimits, nowMs);
      if (!counted.allowed) return { ok: false, refusal: 'auth_rate_limited', retryAfterSeconds: counted.retryAfterSeconds ?? 60 };
      return { ok: false, refusal: 'unauthenticated', failure: auth.failure };
    }
    // From here the request's database work is its key's, served in turn with other keys' (db/fair-pool.ts).
    bindKey(request, auth.key.id);
    const limits = TIER_LIMITS[auth.key.tier];
    if (!limits) return { ok: true, key: auth.key };
    const quota = await options.quotas.consume(`key:${auth.key.id}`, limits, nowMs);
    if (!quota.allowed) return { ok: false, refusal: 'rate_limited', key: auth.key, retryAfterSeconds: quota.retryAfterSeconds ?? 1, quota };
    return { ok: true, key: auth.key, quota };
  }

  return oncePerRequest(admit);
}

/** An admitter that decides once per request, keeping the decision in the request's state. */
function oncePerRequest(admit: (request: Request) => Promise<Admission>): Admitter {
  return {
    admit(request) {
      const state = stateOf(request);
      state.admission ??= admit(request).then((result) => {
        state.admitted = result;
        return result;
      });
      return state.admission;
    },
  };
}

/**
 * An admitter for requests admitted elsewhere: the heavy lane's worker (lanes/heavy-lane.ts) serves
 * requests the main thread has already authenticated and counted, and must not count them again.
 * A request without a decision (none can arrive there) is refused as unavailable, never let through.
 */
export function presetAdmitter(decisionOf: (request: Request) => Admission | undefined): Admitter {
  return oncePerRequest(async (request) => {
    const decision = decisionOf(request) ?? { ok: false, refusal: 'unavailable' };
    if (decision.ok) bindKey(request, decision.key.id);
    return decision;
  });
}

/** What a refusal answers, on REST and GraphQL alike (the status is the code's, in the catalogue). */
export function refusalAnswer(refused: Refused): { code: ErrorCode; message: string; retryAfterSeconds?: number; headers: Record<string, string> } {
  switch (refused.refusal) {
    case 'unauthenticated': {
      const { code, message, challenge } = refused.failure;
      return { code, message, headers: { 'WWW-Authenticate': challenge } };
    }
    case 'auth_rate_limited':
    case 'rate_limited':
      return { code: 'RATE_LIMITED', message: ERRORS.RATE_LIMITED.message, retryAfterSeconds: refused.retryAfterSeconds, headers: {} };
    case 'unavailable':
      return { code: 'SERVICE_UNAVAILABLE', message: ERRORS.SERVICE_UNAVAILABLE.message, headers: {} };
  }
}

/** The header names' spelling of each window (`X-RateLimit-Remaining-Minute`). */
const WINDOW_TITLES: PerWindow<string> = { minute: 'Minute', hour: 'Hour', day: 'Day' };

/**
 * The rate-limit headers of a decision (none for the Unlimited tier or without a key): decisions
 * section 5's `X-RateLimit-{Limit,Remaining}-*` plus `X-RateLimit-Reset-*` (seconds), and the same
 * figures as draft-ietf-httpapi-ratelimit-headers-10 fields, one quota policy per window, named by
 * the window: `RateLimit-Policy` (q = quota, w = window seconds) and `RateLimit` (r = remaining,
 * t = seconds until reset). Both are Structured Field Lists of Items whose values are sf-strings;
 * the policy names need no escaping, so they are written directly.
 */
export function rateLimitHeaders(quota: QuotaDecision | undefined): Record<string, string> {
  if (!quota) return {};
  const headers: Record<string, string> = {};
  for (const w of WINDOWS) {
    headers[`X-RateLimit-Limit-${WINDOW_TITLES[w]}`] = String(quota.limits[w]);
    headers[`X-RateLimit-Remaining-${WINDOW_TITLES[w]}`] = String(quota.remaining[w]);
    headers[`X-RateLimit-Reset-${WINDOW_TITLES[w]}`] = String(quota.resetSeconds[w]);
  }
  headers['RateLimit-Policy'] = WINDOWS.map((w) => `"${w}";q=${quota.limits[w]};w=${WINDOW_MS[w] / 1000}`).join(', ');
  headers.RateLimit = WINDOWS.map((w) => `"${w}";r=${quota.remaining[w]};t=${quota.resetSeconds[w]}`).join(', ');
  return headers;
}
