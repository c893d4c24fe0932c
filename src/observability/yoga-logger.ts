// Yoga's own logger (createYoga's `logging` option), on pino: nothing is printed with console.
// Yoga reports through `error` every error that maskError replaced (app.ts: INTERNAL_ERROR or
// SERVICE_UNAVAILABLE); each is logged once at error level with its stack and the request_id of
// the response it was masked in, and counted in the metrics.
import { GraphQLError } from 'graphql';
import type { Logger } from './logger.js';
import { classifyUnexpectedError, type Metrics } from './metrics.js';
import { rootError } from './logger.js';
import { currentRequest, routeOfRequest } from './request-context.js';
import { requestIdOf } from '../http/request-id.js';

type LogFn = (...args: unknown[]) => void;
export type YogaLogger = Record<'debug' | 'info' | 'warn' | 'error', LogFn>;

function messageOf(args: unknown[]): string {
  return args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? a.message : JSON.stringify(a))).join(' ');
}

function requestFields(): Record<string, unknown> {
  const request = currentRequest();
  return request ? { request_id: requestIdOf(request), route: routeOfRequest(request) } : {};
}

export function createYogaLogger(logger: Logger, metrics?: Metrics): YogaLogger {
  // One failure is logged once per request. Yoga may report an error twice (while masking, then
  // while turning it into a response), and one failure can surface in several fields: a list's
  // total, totalPages and hasMore share one count, each its own located GraphQLError around the
  // same original error. Keyed by request too, so that a failure shared by concurrent requests (a
  // coalesced lookup, say) is logged with each request_id that received it.
  const reported = new WeakMap<object, WeakSet<object>>();
  const outsideRequests = {};

  return {
    // Yoga's debug lines are per-request internals ("Parsing request..."): trace, so that
    // LOG_LEVEL=debug stays readable.
    debug: (...args) => logger.trace(requestFields(), messageOf(args)),
    info: (...args) => logger.info(requestFields(), messageOf(args)),
    warn: (...args) => logger.warn(requestFields(), messageOf(args)),
    error: (...args) => {
      const error = args.find((a): a is object => a instanceof Error);
      if (!error) {
        logger.error(requestFields(), messageOf(args));
        return;
      }
      const root = rootError(error);
      const original = typeof root === 'object' && root !== null ? root : error;
      const request = currentRequest() ?? outsideRequests;
      const requests = reported.get(original) ?? new WeakSet<object>();
      reported.set(original, requests);
      if (requests.has(request)) return;
      requests.add(request);
      const classified = classifyUnexpectedError(error);
      metrics?.observeUnexpectedError(classified);
      const path = error instanceof GraphQLError && error.path ? error.path.join('.') : undefined;
      logger.error(
        { ...requestFields(), code: classified.code, ...(path ? { graphql_path: path } : {}), err: root },
        classified.code === 'SERVICE_UNAVAILABLE' ? 'database unavailable' : 'unexpected error',
      );
    },
  };
}
