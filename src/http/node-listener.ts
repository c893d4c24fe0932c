// What Node's HTTP server calls for each request, in front of the app's adapter: the header fields,
// the request target and Host are checked first (request-target.ts), and whatever fails below it is answered
// with the API's envelope. Yoga's own `requestListener` answers a failure of its adapter (an
// unparseable URL, a plugin hook that threw) with the error's stack as text/plain; this one
// calls the adapter's parts itself so that no input can produce a non-envelope body.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendNodeResponse } from '@whatwg-node/server';
import { ERRORS } from '../domain/error-catalogue.js';
import { answerMediaType } from '../graphql/graphql-http.js';
import type { Logger } from '../logging/logger.js';
import { requestIdFrom } from '../request/state.js';
import { clientAddressOf, isGraphQLTarget, proxyMatcher, type TrustProxySetting } from './app-plugins.js';
import { negotiateCompression, sendCompressed } from './compression.js';
import { lingerOnClose } from './lingering-close.js';
import { writeEnvelope, writeGraphQLError } from './raw-envelope.js';
import { checkRequestTarget } from './request-target.js';

/** The part of Yoga's server adapter used here. */
export interface NodeAdapter {
  handleNodeRequestAndResponse(request: IncomingMessage, response: ServerResponse, context: never): Response | Promise<Response>;
}

export interface NodeListenerOptions {
  logger: Logger;
  trustProxy: TrustProxySetting;
  /**
   * An answer whose client accepts no byte for this long is broken off and its connection closed
   * (0 or unset: never). This is the only stall bound: closing the response aborts the request's
   * signal, which ends a running export and its statement (rest/exports/index.ts); it also frees an
   * answer whose last bytes are already out of PostgreSQL - a whole export at 100,000 rows fits in
   * the kernel's and Node's buffers - that would otherwise hold its connection and buffers for as
   * long as the client cares to stay.
   */
  stallTimeoutMs?: number;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export function createNodeListener(adapter: NodeAdapter, options: NodeListenerOptions): (request: IncomingMessage, response: ServerResponse) => void {
  const { logger } = options;
  const isProxy = proxyMatcher(options.trustProxy);

  return (request, response) => {
    const startedAt = performance.now();
    // The id the app would pick, fixed here so a failure answered below the app carries the same
    // id as the app's own log lines for the request.
    const requestId = requestIdFrom(request.headers['x-request-id']);
    request.headers['x-request-id'] = requestId;
    lingerOnClose(request, response);

    const checked = checkRequestTarget(request);
    if (!checked.ok) {
      const { error } = checked;
      // After the server's other 'request' listeners (they may still set headers), as the adapter's answer is.
      queueMicrotask(() =>
        isGraphQLTarget(request.url)
          ? writeGraphQLError(response, error, requestId, answerMediaType(request.headers.accept ?? null))
          : writeEnvelope(response, error, requestId),
      );
      // The request line every request gets (see http/app-plugins.ts), with the reason.
      logger.info(
        {
          request_id: requestId,
          method: METHODS.has(request.method ?? '') ? request.method : 'OTHER',
          route: 'unmatched',
          status: error.status ?? ERRORS[error.code].status,
          duration_ms: Math.round((performance.now() - startedAt) * 100) / 100,
          client_ip: clientAddressOf(headerText(request.headers['x-forwarded-for']), request.socket.remoteAddress, isProxy),
          reason: error.message,
        },
        'request',
      );
      return;
    }
    request.url = checked.target;
    void handle(request, response, requestId);
  };

  async function handle(request: IncomingMessage, response: ServerResponse, requestId: string): Promise<void> {
    let answer: Response;
    try {
      // The server context Yoga's requestListener passes (plugins read the socket from `req`).
      answer = await adapter.handleNodeRequestAndResponse(request, response, { req: request, res: response } as never);
    } catch (error) {
      logger.error({ err: error, request_id: requestId }, 'unhandled error below the app; answered 500');
      if (!response.headersSent) writeEnvelope(response, { code: 'INTERNAL_ERROR' }, requestId);
      else response.destroy();
      return;
    }
    try {
      // gzip or br per Accept-Encoding (compression.ts); everything else as the adapter would send it.
      const encoding = negotiateCompression(request, answer);
      const sending = encoding ? sendCompressed(answer, response, encoding) : sendNodeResponse(answer, response, request, true);
      // Armed once sending has begun: the adapter turns the socket's timeout off for a streamed body.
      if (options.stallTimeoutMs && !response.writableFinished) {
        const stallMs = options.stallTimeoutMs;
        // Socket inactivity: a transfer that moves, however slowly, is never cut.
        response.setTimeout(stallMs, () => {
          logger.info({ request_id: requestId, stall_ms: stallMs }, 'client accepted nothing: answer broken off');
          response.destroy();
        });
      }
      await sending;
    } catch (error) {
      // The answer was (partly) on its way: nothing else can be sent on this connection.
      logger.warn({ err: error, request_id: requestId }, 'sending the response failed');
      response.destroy();
    }
  }
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}
