// What the service knows of one HTTP request, worked out once and read in several places: its id,
// its state, and which request is being handled.
//
// The state is one typed object: the id, client address, start, matched route, GraphQL operation
// name, authentication and admission. Yoga hands every plugin the same Request object (the REST
// facade's in-process execution included), so the Request is the key; envelop's `withState` keeps
// one state per plugin, which is what this replaces, and Yoga's server context is not the same
// object in every hook. This module is below everything that keeps a fact here: the layers above
// declare their own members of RequestState (declaration merging: auth/api-keys.ts,
// limits/admission.ts, http/app-plugins.ts), so nothing here imports from them.
//
// The current request is for code that has none at hand: the database pool's fair share
// (db/client.ts: whose lane a statement waits in), the document limits, and Yoga's logger
// (called while masking an error). Node's AsyncLocalStorage carries it through every await.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

// The request id of decisions section 1: a well-formed incoming `X-Request-Id` is reused, otherwise
// one is made; it is echoed as `X-Request-Id` on every response and as `request_id` in REST bodies.

const WELL_FORMED = /^[A-Za-z0-9._:-]{8,128}$/;

export function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '')}`;
}

/** A well-formed incoming `X-Request-Id`, else a new id. */
export function requestIdFrom(incoming: string | string[] | null | undefined): string {
  return typeof incoming === 'string' && WELL_FORMED.test(incoming) ? incoming : newRequestId();
}

// The request's state.

export interface RequestState {
  /** The request id (decisions section 1): a well-formed incoming X-Request-Id, else a new one. */
  readonly id: string;
  /** performance.now() when the service first saw the request. */
  readonly startedAt: number;
  /** The client address (see http/app-plugins.ts); `unknown` until http/app-plugins.ts sets it. */
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

// The request being handled.

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

/** Milliseconds since the request's handling began (for logs, metrics and spans). */
export function elapsedMs(request: Request): number {
  return performance.now() - stateOf(request).startedAt;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The method as a label for logs, metrics and spans: the standard ones, anything else `OTHER`. */
export function methodOf(request: Request): string {
  return METHODS.has(request.method) ? request.method : 'OTHER';
}
