// The API's error envelope for answers written below Yoga (straight to Node's response or to the
// socket): requests refused before they reach the app, and failures of the adapter itself.
import { type ServerResponse, STATUS_CODES } from 'node:http';
import { ERRORS, type ErrorCode } from '../domain/error-catalogue.js';
import { newRequestId } from '../request/state.js';

/** An answer below the app: its code, and what it says beyond the catalogue's defaults. */
export interface EdgeError {
  code: ErrorCode;
  /** Default: the catalogue's message for the code. */
  message?: string;
  /** Only for a code answered with several statuses (REQUEST_TOO_LARGE); default: the catalogue's. */
  status?: number;
}

const JSON_TYPE = 'application/json; charset=utf-8';

const statusOf = (error: EdgeError) => error.status ?? ERRORS[error.code].status;

export function envelopeText(error: EdgeError, requestId: string): string {
  const body = { success: false, error: { code: error.code, message: error.message ?? ERRORS[error.code].message } };
  return JSON.stringify({ ...body, request_id: requestId, timestamp: new Date().toISOString() });
}

/** Writes the envelope as the whole response and closes the connection after it. */
export function writeEnvelope(response: ServerResponse, error: EdgeError, requestId: string): void {
  const status = statusOf(error);
  const body = envelopeText(error, requestId);
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

/**
 * The refusal as a GraphQL error document in `contentType` (the GraphQL endpoint's answers are
 * never the REST envelope), as the whole response, closing the connection after it.
 */
export function writeGraphQLError(response: ServerResponse, error: EdgeError, requestId: string, contentType: string): void {
  const status = statusOf(error);
  const body = graphQLErrorText(error);
  response.shouldKeepAlive = false;
  response.writeHead(status, STATUS_CODES[status], {
    'Content-Type': `${contentType}; charset=utf-8`,
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': requestId,
    'Cache-Control': 'no-store',
    Connection: 'close',
  });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}

function graphQLErrorText(error: EdgeError): string {
  return JSON.stringify({ errors: [{ message: error.message ?? ERRORS[error.code].message, extensions: { code: error.code } }] });
}

/** The envelope as raw HTTP/1.1 bytes, for a socket that has no response object (yet). */
export function rawEnvelope(error: EdgeError, requestId = newRequestId()): string {
  const status = statusOf(error);
  const body = envelopeText(error, requestId);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${JSON_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * The same refusal as a GraphQL error document (raw HTTP/1.1 bytes), for requests to the GraphQL
 * endpoint. As `application/json`: the request's headers could not be read (they were what was too
 * large), and GraphQL over HTTP reads a request without `Accept` as asking for it.
 */
export function rawGraphQLError(error: EdgeError, requestId = newRequestId()): string {
  const status = statusOf(error);
  const body = graphQLErrorText(error);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${JSON_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`
  );
}
