// The answer of an export: a 200 whose body is a stream of the file (no Content-Length: it is
// chunked), its content type and file name.
import { STATUS_CODES } from 'node:http';
import { ReadableStream as FetchReadableStream, Response } from '@whatwg-node/fetch';
import { stateOf } from '../../request/state.js';
import type { ExportFormat } from '../routes.js';

export const CONTENT_TYPES: Readonly<Record<ExportFormat, string>> = {
  csv: 'text/csv; charset=utf-8; header=present',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

const EXTENSIONS: Readonly<Record<ExportFormat, string>> = { csv: 'csv', ndjson: 'ndjson' };

/** `interactions-2026-11-27.csv`: what was exported and the UTC day it was (ASCII only). */
export function fileName(what: string, format: ExportFormat, now: Date): string {
  return `${what}-${now.toISOString().slice(0, 10)}.${EXTENSIONS[format]}`;
}

/**
 * The streamed answer. `body` null: a HEAD's answer (the same headers, nothing read). The rate-limit
 * headers are added by graphql/builder.ts like on every answer to a valid key.
 */
export function exportResponse(request: Request, format: ExportFormat, name: string, body: ReadableStream<Uint8Array> | null): Response {
  return new Response(body, {
    status: 200,
    statusText: STATUS_CODES[200],
    headers: {
      'Content-Type': CONTENT_TYPES[format],
      'Content-Disposition': `attachment; filename="${name}"`,
      'Cache-Control': 'no-store',
      'X-Request-Id': stateOf(request).id,
    },
  });
}

/** The source of an export's body: batches of bytes until null, and what to do when the reader goes away. */
export interface ExportSource {
  next(): Promise<Uint8Array | null>;
  cancel(reason: unknown): void;
}

/**
 * A ReadableStream pulling from `source`: the next batch is read only when the reader asks
 * (backpressure). A failure after the first byte cannot change the status any more: the stream
 * errors, and the server breaks the transfer off (no terminating chunk), so that the client sees a
 * truncated download rather than a file that looks complete.
 */
export function pulledStream(source: ExportSource): ReadableStream<Uint8Array> {
  // The Fetch implementation the server adapter uses (as routes.ts's Response): a Node Readable
  // beneath, read by the adapter chunk by chunk as the socket drains.
  return new FetchReadableStream<Uint8Array>({
    async pull(controller) {
      // Never rejects: the stream implementation beneath the response may not handle a rejection.
      try {
        const batch = await source.next();
        if (batch === null) controller.close();
        else controller.enqueue(batch);
      } catch (error) {
        controller.error(error);
      }
    },
    cancel(reason) {
      source.cancel(reason);
    },
  });
}
