// Yoga's own logger (createYoga's `logging` option), on pino: nothing is printed with console.
// Yoga reports through `error` every error that maskError replaced (app.ts: INTERNAL_ERROR or
// SERVICE_UNAVAILABLE); the first of a request is logged at error level with its stack and the
// request_id of the response it was masked in, and counted in the metrics.
import { GraphQLError } from 'graphql';
import { classifyUnexpectedError, type Metrics, routeOf } from '../http/app-plugins.js';
import type { Logger } from '../logging/logger.js';
import { rootError } from '../logging/logger.js';
import { currentRequest, stateOf } from '../request/state.js';

type LogFn = (...args: unknown[]) => void;
export type YogaLogger = Record<'debug' | 'info' | 'warn' | 'error', LogFn>;

function messageOf(args: unknown[]): string {
  return args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? a.message : JSON.stringify(a))).join(' ');
}

function requestFields(): Record<string, unknown> {
  const request = currentRequest();
  return request ? { request_id: stateOf(request).id, route: routeOf(request).label } : {};
}

export function createYogaLogger(logger: Logger, metrics?: Metrics): YogaLogger {
  // One line per request: a failing field inside a list of 500 fails 500 times, each a distinct
  // error, and 500 stack traces would drown the log; the first says what failed and where, and
  // the response carries every path. Yoga may also report an error twice (while masking, then
  // while turning it into a response), and one failure can surface in several fields (a list's
  // total, totalPages and hasMore share one count). Outside requests, each failure once.
  const reported = new WeakSet<object>();

  return {
    // Yoga's debug lines are per-request internals ("Parsing request..."): trace, so that
    // LOG_LEVEL=debug stays readable. Yoga calls it several times in every request: the line is
    // built only when it will be written.
    debug: (...args) => {
      if (logger.isLevelEnabled('trace')) logger.trace(requestFields(), messageOf(args));
    },
    info: (...args) => {
      if (logger.isLevelEnabled('info')) logger.info(requestFields(), messageOf(args));
    },
    warn: (...args) => logger.warn(requestFields(), messageOf(args)),
    error: (...args) => {
      const error = args.find((a): a is object => a instanceof Error);
      if (!error) {
        logger.error(requestFields(), messageOf(args));
        return;
      }
      const root = rootError(error);
      const original = typeof root === 'object' && root !== null ? root : error;
      const request = currentRequest();
      // A client that hung up while its body was arriving: Node fails the read with "aborted" and
      // ECONNRESET, which would otherwise read as a database socket error (an outage to whoever
      // watches the error lines and the unexpected-errors metric). Nobody receives the answer.
      if (request?.signal.aborted) {
        logger.info({ ...requestFields(), err: root }, 'client went away');
        return;
      }
      if (request) {
        const state = stateOf(request);
        if (state.errorLogged) return;
        state.errorLogged = true;
      } else {
        if (reported.has(original)) return;
        reported.add(original);
      }
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
