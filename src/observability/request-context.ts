// What logs and metrics say about a request: the request itself for code that has none at hand
// (Yoga's logger, called while masking an error), how long it has run, its method label, and the
// admission decision (key id, tier) without ever touching the key itself. The facts themselves are
// in the request state (http/request-state.ts).
import { AsyncLocalStorage } from 'node:async_hooks';
import { stateOf } from '../http/request-state.js';
import type { Refusal } from '../limits/admission.js';

const current = new AsyncLocalStorage<Request>();

/** Runs the handling of `request` with it as the current request (see `currentRequest`). */
export function runWithRequest<T>(request: Request, fn: () => T): T {
  // Begins the request's state, and so its clock, before anything else runs.
  stateOf(request);
  return current.run(request, fn);
}

/** The request being handled by the calling async context, if any. */
export function currentRequest(): Request | undefined {
  return current.getStore();
}

/** Milliseconds since the request's handling began. */
export function elapsedMs(request: Request): number {
  return performance.now() - stateOf(request).startedAt;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The method as a label: the standard ones, anything else `OTHER`. */
export function methodOf(request: Request): string {
  return METHODS.has(request.method) ? request.method : 'OTHER';
}

export type AdmissionDecision = 'admitted' | Refusal;

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
