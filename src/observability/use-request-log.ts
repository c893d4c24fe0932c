// One log line per HTTP request, written when its response is ready:
//   request_id, key_id (the admitted key's id; absent without a valid key), method, route (the
//   route pattern, never the raw path), operation (GraphQL operation name, when there is one),
//   status, duration_ms, client_ip.
// Health checks and metrics scrapes are logged at debug, 5xx at warn, the rest at info. The plugin
// also makes the request the async context's current one for its whole handling, so errors that
// Yoga's logger reports (see yoga-logger.ts) carry the request_id of the response.
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { clientIpOf } from '../http/client-ip.js';
import { requestIdOf } from '../http/request-id.js';
import type { Logger } from './logger.js';
import {
  type AdmissionSources,
  admissionOf,
  elapsedMs,
  GRAPHQL_PATH,
  isHealthRoute,
  METRICS_PATH,
  markStart,
  methodOf,
  routeOfRequest,
  runWithRequest,
} from './request-context.js';

export interface RequestLogOptions extends AdmissionSources {
  logger: Logger;
}

const operations = new WeakMap<Request, string>();
/** Requests whose line was written (a request is logged once, even if it failed outside Yoga). */
const logged = new WeakSet<Request>();

export function useRequestLog(options: RequestLogOptions): Plugin {
  const { logger } = options;

  async function logLine(request: Request, status: number): Promise<void> {
    if (logged.has(request)) return;
    logged.add(request);
    const route = routeOfRequest(request);
    const admission = await admissionOf(options, request);
    const line = {
      request_id: requestIdOf(request),
      ...(admission?.keyId ? { key_id: admission.keyId } : {}),
      method: methodOf(request),
      route,
      ...(route === GRAPHQL_PATH && operations.has(request) ? { operation: operations.get(request) } : {}),
      status,
      duration_ms: Math.round(elapsedMs(request) * 100) / 100,
      client_ip: clientIpOf(request),
    };
    if (isHealthRoute(route) || route === METRICS_PATH) logger.debug(line, 'request');
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
          return handled.catch(async (error: unknown) => {
            logger.error({ request_id: requestIdOf(request), route: routeOfRequest(request), err: error }, 'unhandled error');
            await logLine(request, 500);
            throw error;
          });
        });
      },
    },
    onRequest({ request }) {
      markStart(request);
    },
    onExecute({ args }) {
      const request = (args.contextValue as { request?: Request } | undefined)?.request;
      if (!request || operations.has(request)) return;
      const name = getOperationAST(args.document, args.operationName)?.name?.value;
      if (name) operations.set(request, name.slice(0, 100));
    },
    async onResponse({ request, response }) {
      await logLine(request, response.status);
    },
  };
}
