// Requests Node's HTTP parser rejects before any handler runs (headers or URL over the size limit,
// malformed requests) still get a clear 4xx in the API's envelope, never a bare socket reset.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

const REJECTIONS: Record<string, { status: number; reason: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    message: 'The request line and headers are too large (at most 16 KB); shorten the URL or the headers',
  },
  HPE_URI_TOO_LONG: { status: 414, reason: 'URI Too Long', message: 'The URL is too long' },
};

export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || (error.code === 'ECONNRESET' && !socket.readable)) return socket.destroy();
    const rejection = REJECTIONS[error.code ?? ''] ?? { status: 400, reason: 'Bad Request', message: 'The request is malformed' };
    const requestId = `req_${randomUUID().replaceAll('-', '')}`;
    const body = JSON.stringify({
      success: false,
      error: { code: rejection.status === 400 ? 'BAD_REQUEST' : 'REQUEST_TOO_LARGE', message: rejection.message },
      request_id: requestId,
      timestamp: new Date().toISOString(),
    });
    socket.end(
      `HTTP/1.1 ${rejection.status} ${rejection.reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
