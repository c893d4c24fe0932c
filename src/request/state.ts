// Everything the service works out once per HTTP request and reads in several places, in one typed
// object: its id, client address, start, matched route, GraphQL operation name, authentication
// and admission. Yoga hands every plugin the same Request object (the REST facade's in-process
// execution included), so the Request is the key; envelop's `withState` keeps one state per plugin,
// which is what this replaces, and Yoga's server context is not the same object in every hook.
// This module is below everything that keeps a fact here: the layers above declare their own
// members of RequestState (declaration merging: auth/request-auth.ts, limits/admission.ts,
// http/app-routes.ts), so nothing here imports from them.
import { requestIdFrom } from './id.js';

export interface RequestState {
  /** The request id (decisions section 1): a well-formed incoming X-Request-Id, else a new one. */
  readonly id: string;
  /** performance.now() when the service first saw the request. */
  readonly startedAt: number;
  /** The client address (see http/client-ip.ts); `unknown` until http/use-request-state.ts sets it. */
  clientIp: string;
  /** The executed GraphQL operation's name, when it has one (for the request log). */
  operation?: string;
  /** Its request line was written (once, even when it failed outside Yoga). */
  logged: boolean;
  /** An unexpected error of it was logged (Yoga's logger logs one per request). */
  errorLogged: boolean;
}

const states = new WeakMap<Request, RequestState>();

/** The request's state, begun on first use (the outermost plugin's instrumentation, in the app). */
export function stateOf(request: Request): RequestState {
  let state = states.get(request);
  if (!state) {
    state = {
      id: requestIdFrom(request.headers.get('x-request-id')),
      startedAt: performance.now(),
      clientIp: 'unknown',
      logged: false,
      errorLogged: false,
    };
    states.set(request, state);
  }
  return state;
}
