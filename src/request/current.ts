// The request being handled, for code that has none at hand: the database pool's fair share
// (db/fair-pool.ts: whose lane a statement waits in), the document limits, and Yoga's logger
// (called while masking an error). Node's AsyncLocalStorage carries it through every await.
import { AsyncLocalStorage } from 'node:async_hooks';
import { stateOf } from './state.js';

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
