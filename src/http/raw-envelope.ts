// The API's error envelope for answers written below Yoga (straight to Node's response or to the
// socket): requests refused before they reach the app, and failures of the adapter itself.
import { type ServerResponse, STATUS_CODES } from 'node:http';
import { newRequestId } from './request-id.js';

export type EdgeErrorCode = 'BAD_REQUEST' | 'REQUEST_TOO_LARGE' | 'REQUEST_TIMEOUT' | 'EXPECTATION_FAILED' | 'METHOD_NOT_ALLOWED' | 'INTERNAL_ERROR';

const JSON_TYPE = 'application/json; charset=utf-8';

export function envelopeText(code: EdgeErrorCode, message: string, requestId: string): string {
  return JSON.stringify({ success: false, error: { code, message }, request_id: requestId, timestamp: new Date().toISOString() });
}

/** Writes the envelope as the whole response and closes the connection after it. */
export function writeEnvelope(response: ServerResponse, status: number, code: EdgeErrorCode, message: string, requestId: string): void {
  const body = envelopeText(code, message, requestId);
  response.shouldKeepAlive = false;
  response.writeHead(status, STATUS_CODES[status], {
    'Content-Type': JSON_TYPE,
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': requestId,
    'Cache-Control': 'no-store',
    Connection: 'close',
  });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}

/** The envelope as raw HTTP/1.1 bytes, for a socket that has no response object (yet). */
export function rawEnvelope(status: number, code: EdgeErrorCode, message: string, requestId = newRequestId()): string {
  const body = envelopeText(code, message, requestId);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${JSON_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`
  );
}
