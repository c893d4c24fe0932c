// One log line per HTTP request, written when its response is ready:
//   request_id, key_id (the admitted key's id, or a rate-limited key's; absent without a valid
//   key), method, route (the route pattern, never the raw path), operation (GraphQL operation
//   name, when there is one), status, duration_ms, client_ip.
// Health checks and metrics scrapes are logged at debug, 5xx at warn, the rest at info. The plugin
// also makes the request the async context's current one for its whole handling, so errors that
// Yoga's logger reports (see yoga-logger.ts) carry the request_id of the response.
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { GRAPHQL_PATH, routeOf } from '../http/app-routes.js';
import { admissionOf } from '../limits/admission.js';
import type { Logger } from '../logging/logger.js';
import { elapsedMs, methodOf, runWithRequest, stateOf } from '../request/state.js';

export interface RequestLogOptions {
  logger: Logger;
}

export function useRequestLog(options: RequestLogOptions): Plugin {
  const { logger } = options;

  function logLine(request: Request, status: number): void {
    const state = stateOf(request);
    // Once, even if it failed outside Yoga (see below).
    if (state.logged) return;
    state.logged = true;
    const route = routeOf(request);
    const admission = admissionOf(request);
    const line = {
      request_id: state.id,
      ...(admission?.keyId ? { key_id: admission.keyId } : {}),
      method: methodOf(request),
      route: route.label,
      ...(route.label === GRAPHQL_PATH && state.operation !== undefined ? { operation: state.operation } : {}),
      status,
      duration_ms: Math.round(elapsedMs(request) * 100) / 100,
      client_ip: state.clientIp,
    };
    if (route.area === 'health' || route.area === 'metrics') logger.debug(line, 'request');
    else if (status >= 500) logger.warn(line, 'request');
    else logger.info(line, 'request');
  }

  return {
    instrumentation: {
      request({ request }, wrapped) {
        return runWithRequest(request, () => {
          const handled = wrapped();
          if (!(handled instanceof Promise)) return handled;
          // A failure outside Yoga's error handling (a plugin's hook threw): the server answers
          // 500 itself, and no onResponse runs; log it here so it is not lost.
          return handled.catch((error: unknown) => {
            logger.error({ request_id: stateOf(request).id, route: routeOf(request).label, err: error }, 'unhandled error');
            logLine(request, 500);
            throw error;
          });
        });
      },
    },
    onExecute({ args }) {
      const request = (args.contextValue as { request?: Request } | undefined)?.request;
      if (!request) return;
      const state = stateOf(request);
      if (state.operation !== undefined) return;
      const name = getOperationAST(args.document, args.operationName)?.name?.value;
      if (name) state.operation = name.slice(0, 100);
    },
    onResponse({ request, response }) {
      logLine(request, response.status);
    },
  };
}
