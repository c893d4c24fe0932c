// Everything the service works out once per HTTP request and reads in several places, in one typed
// object: its id, client address, start, matched route, GraphQL operation name, authentication
// and admission. Yoga hands every plugin the same Request object (the REST facade's in-process
// execution included), so the Request is the key; envelop's `withState` keeps one state per plugin,
// which is what this replaces, and Yoga's server context is not the same object in every hook.
import type { AuthResult } from '../auth/authenticate.js';
import type { Admission } from '../limits/admission.js';
import type { AppRoute } from './app-routes.js';
import { requestIdFrom } from './request-id.js';

export interface RequestState {
  /** The request id (decisions section 1): a well-formed incoming X-Request-Id, else a new one. */
  readonly id: string;
  /** performance.now() when the service first saw the request. */
  readonly startedAt: number;
  /** The client address (see client-ip.ts); `unknown` until use-request-state.ts sets it. */
  clientIp: string;
  /** The app's route for the path, matched once (app-routes.ts). */
  route?: AppRoute;
  /** The executed GraphQL operation's name, when it has one (for the request log). */
  operation?: string;
  /** The authentication of the Authorization header, shared by every layer that asks. */
  auth?: Promise<AuthResult>;
  /** The admission decision (limits/admission.ts), taken once, whichever layer asks first. */
  admission?: Promise<Admission>;
  /** The same decision once taken, read synchronously by response headers, logs and metrics. */
  admitted?: Admission;
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
