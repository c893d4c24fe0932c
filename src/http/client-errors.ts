// Requests Node's HTTP layer rejects before any handler runs (headers or URL over the size limit,
// malformed requests, a request not received within HTTP_HEADERS/REQUEST_TIMEOUT_MS) still get a
// clear 4xx in the API's envelope, never a bare socket reset or Node's own empty-bodied answer.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { requestIdFrom } from '../request/state.js';
import { isGraphQLTarget } from './app-plugins.js';
import { type EdgeError, rawEnvelope, rawGraphQLError, writeEnvelope } from './raw-envelope.js';

/** By Node's error code; REQUEST_TOO_LARGE names which part was too large by its status. */
const REJECTIONS: Record<string, EdgeError> = {
  HPE_HEADER_OVERFLOW: {
    code: 'REQUEST_TOO_LARGE',
    status: 431,
    message: 'The request line and headers are too large (at most 16 KB); shorten the URL or the headers',
  },
  HPE_URI_TOO_LONG: { code: 'REQUEST_TOO_LARGE', status: 414, message: 'The URL is too long' },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'REQUEST_TIMEOUT' },
};
const MALFORMED: EdgeError = { code: 'BAD_REQUEST' };

/** How long the client has to read the answer before the socket is destroyed (it may still be sending). */
const LINGER_MS = 1_000;

/** Node's socket while a request is on it; `_httpMessage._headerSent` is how Node's own handler tells the same. */
type HttpSocket = Duplex & { _httpMessage?: { headersSent?: boolean } | null };

export function answerClientErrors(server: Server): void {
  // CONNECT (a tunnel through a proxy) is not served; without this Node closes the socket unanswered.
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    socket.end(rawEnvelope({ code: 'METHOD_NOT_ALLOWED', message: 'CONNECT is not supported' }));
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  });
  // An `Expect` other than 100-continue: Node's own answer would be an empty 417.
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    writeEnvelope(response, { code: 'EXPECTATION_FAILED' }, requestIdFrom(request.headers['x-request-id']));
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: HttpSocket) => {
    if (!socket.writable || (error.code === 'ECONNRESET' && !socket.readable)) return socket.destroy();
    // A response already under way cannot be followed by another on the same connection.
    if (socket._httpMessage?.headersSent) return socket.destroy();
    const rejection = REJECTIONS[error.code ?? ''] ?? MALFORMED;
    // A request to the GraphQL endpoint is answered as GraphQL errors, the rest in the envelope.
    socket.end(toGraphQL(error) ? rawGraphQLError(rejection) : rawEnvelope(rejection));
    // end() only closes our side: a client still sending (a slow body) would keep the socket. Destroying at once could reset
    // the connection before the client reads the answer, so it gets a moment first.
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  });
}

/** Whether the refused request's line, as far as it was received, names the GraphQL endpoint. */
function toGraphQL(error: NodeJS.ErrnoException & { rawPacket?: unknown }): boolean {
  if (!Buffer.isBuffer(error.rawPacket)) return false;
  const line = error.rawPacket.subarray(0, 512).toString('latin1');
  return isGraphQLTarget(/^[A-Z]+ (\S+)/.exec(line)?.[1]);
}
