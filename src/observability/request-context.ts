// What logs and metrics say about any request: how long it has run and its method label (the
// admission's summary is limits/admission.ts's `admissionOf`). The facts themselves are in the
// request state (request/state.ts).
import { stateOf } from '../request/state.js';

/** Milliseconds since the request's handling began. */
export function elapsedMs(request: Request): number {
  return performance.now() - stateOf(request).startedAt;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The method as a label: the standard ones, anything else `OTHER`. */
export function methodOf(request: Request): string {
  return METHODS.has(request.method) ? request.method : 'OTHER';
}
