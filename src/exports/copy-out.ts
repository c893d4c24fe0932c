// `COPY (query) TO STDOUT` on one node-postgres connection, read as a stream of byte batches with
// backpressure: what an export of interactions sends (interactions.ts builds the statement).
//
// Why COPY rather than a cursor (pg-cursor, pg-query-stream, DECLARE/FETCH): PostgreSQL then builds
// the text of every row itself (the CSV fields, or the JSON of a line: interactions.ts) and streams
// it without a round trip per batch, and the service only copies bytes - it never turns a row into
// a JavaScript object. Measured on the bench's 1m dataset (bench/results/*-exports-*.md): the
// service's CPU for 1,000,000 lines 1.4-2.2 s with COPY against 5.4-8.1 s with FETCH of the same
// PostgreSQL-built lines, and PostgreSQL's own CPU lower too (no per-batch statement).
//
// Backpressure: rows arrive as the socket delivers them and are appended to a batch of about
// BATCH_BYTES; with MAX_QUEUED batches waiting for the reader, the connection's socket is paused,
// so PostgreSQL blocks writing to it (TCP flow control) and reads no further rows; `next()` takes a
// batch and resumes the socket. Memory is bounded by the queued batches plus the kernel's socket
// buffers, whatever the size of the export.
//
// Framing: PostgreSQL sends each row of COPY TO as one CopyData message (CopySendEndOfRow). CSV rows
// are taken as such (their LF becomes CRLF, RFC 4180); binary tuples are parsed across message
// boundaries all the same.

/** One batch is about this many bytes (a row larger than a batch is a batch of its own). */
const BATCH_BYTES = 64 * 1024;
/** Batches waiting for the reader before the socket is paused. */
const MAX_QUEUED = 4;
const CRLF = Buffer.from('\r\n');
const LF = 0x0a;
/** "PGCOPY\n\377\r\n\0": the signature that opens COPY's binary format. */
const BINARY_SIGNATURE = Buffer.from([0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00]);
const BINARY_HEADER_BYTES = BINARY_SIGNATURE.length + 8;

/** Where a row's bytes go. */
export interface RowWriter {
  bytes(source: Buffer): void;
  text(value: string): void;
}

export type CopyFormat =
  /** `FORMAT csv, HEADER`: each row (the header first) is sent as PostgreSQL wrote it, with CRLF. */
  | { kind: 'csv' }
  /** `FORMAT binary` of text columns: `row` writes each row from its fields (null for SQL NULL). */
  | { kind: 'binary'; row: (fields: ReadonlyArray<Buffer | null>, out: RowWriter) => void };

/** The minimum of node-postgres's connection that a query sees (the socket, to pause it). */
interface Connection {
  query(text: string): void;
  stream: { pause(): void; resume(): void };
}

export interface CopyOutOptions {
  /** The whole `COPY (...) TO STDOUT (...)` statement, values inlined (COPY takes no parameters). */
  statement: string;
  format: CopyFormat;
  /** node-postgres's client-side bound for this query (the pool's default is an API request's). */
  queryTimeoutMs: number;
  /** The socket was paused because the reader took nothing (`true`), or resumed (`false`). */
  onPaused?(paused: boolean): void;
  /** The COPY failed (not called for `abort`). */
  onFailed?(error: Error): void;
  /** Every row has arrived (some may still wait for the reader): the connection is free again. */
  onFinished?(): void;
}

/**
 * A COPY TO STDOUT as a node-postgres query object (a "Submittable", as pg-cursor is): pass it to
 * `client.query()`, then read it with `next()`.
 */
export class CopyOut {
  /** For node-postgres: the text (statement loggers read it) and this query's read timeout. */
  readonly text: string;
  readonly query_timeout: number;
  /** node-postgres calls it when the query ends (it wraps it to clear its read timeout). */
  callback?: (error: Error | null) => void;

  /** Rows sent so far (the CSV header not counted). */
  rows = 0;
  /** Bytes handed to the reader so far. */
  bytes = 0;
  /** The row count PostgreSQL reported (`COPY n`), once it has finished. */
  reportedRows?: number;

  private readonly format: CopyFormat;
  private readonly onPaused?: (paused: boolean) => void;
  private readonly onFailed?: (error: Error) => void;
  private readonly onFinished?: () => void;
  private connection?: Connection;
  private batch = Buffer.allocUnsafe(BATCH_BYTES);
  private used = 0;
  private readonly queue: Buffer[] = [];
  private paused = false;
  private finished = false;
  private failure?: Error;
  private waiter?: () => void;
  private messages = 0;
  /** Binary format: the header was read; bytes of an unfinished tuple (copied: the parser reuses its buffer). */
  private headerRead = false;
  private carry?: Buffer;
  private firstRow!: () => void;
  private firstRowFailed!: (error: Error) => void;
  /** Settles when the first row arrives, or the COPY ends or fails before one did. */
  readonly ready: Promise<void>;

  private readonly writer: RowWriter = {
    bytes: (source) => this.append(source),
    text: (value) => this.appendText(value),
  };

  constructor(options: CopyOutOptions) {
    this.text = options.statement;
    this.query_timeout = options.queryTimeoutMs;
    this.format = options.format;
    this.onPaused = options.onPaused;
    this.onFailed = options.onFailed;
    this.onFinished = options.onFinished;
    this.ready = new Promise<void>((resolve, reject) => {
      this.firstRow = resolve;
      this.firstRowFailed = reject;
    });
    // (a failure after the first row is read through next(); nothing may be left unhandled)
    this.ready.catch(() => {});
  }

  /** The next batch of bytes, or null at the end; throws the COPY's failure (or the abort's reason). */
  async next(): Promise<Buffer | null> {
    for (;;) {
      if (this.failure) throw this.failure;
      const queued = this.queue.shift();
      if (queued) {
        if (this.paused && this.queue.length < MAX_QUEUED) this.setPaused(false);
        this.bytes += queued.length;
        return queued;
      }
      if (this.used > 0) {
        // Whatever has arrived, rather than waiting for a full batch: the reader is waiting.
        const partial = this.batch.subarray(0, this.used);
        this.batch = Buffer.allocUnsafe(BATCH_BYTES);
        this.used = 0;
        this.bytes += partial.length;
        return partial;
      }
      if (this.finished) return null;
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
      });
    }
  }

  /** Ends reading with `reason` (the caller closes the connection: this does not stop PostgreSQL). */
  abort(reason: Error): void {
    if (this.finished || this.failure) return;
    this.fail(reason, false);
  }

  get done(): boolean {
    return this.finished || this.failure !== undefined;
  }

  // ---------------------------------------------------------------------------------------------
  // node-postgres's side

  submit(connection: Connection): void {
    this.connection = connection;
    connection.query(this.text);
  }

  handleCopyData(message: { chunk: Buffer }): void {
    if (this.failure) return;
    // Runs inside the socket's data handler: a throw here would be an uncaught exception.
    try {
      if (this.format.kind === 'csv') this.csvRow(message.chunk);
      else this.binaryRows(message.chunk, this.format.row);
    } catch (error) {
      this.fail(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (this.rows > 0) this.firstRow();
    if (this.queue.length >= MAX_QUEUED && !this.paused) this.setPaused(true);
  }

  handleCommandComplete(message: { text?: string }): void {
    const count = /^COPY (\d+)$/.exec(message.text ?? '')?.[1];
    if (count !== undefined) this.reportedRows = Number(count);
  }

  handleReadyForQuery(): void {
    if (!this.failure) {
      this.finished = true;
      this.firstRow();
      this.wake();
    }
    this.callback?.(this.failure ?? null);
    if (this.finished) this.onFinished?.();
  }

  handleError(error: Error): void {
    this.fail(error);
    this.callback?.(error);
  }

  handleCopyInResponse(): void {
    this.handleError(new Error('COPY export: the server asked for COPY FROM data'));
  }

  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}

  // ---------------------------------------------------------------------------------------------

  private fail(error: Error, report = true): void {
    if (this.failure) return;
    this.failure = error;
    // A paused socket is left paused: the caller closes the connection.
    this.firstRowFailed(error);
    this.wake();
    if (report) this.onFailed?.(error);
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  private setPaused(paused: boolean): void {
    this.paused = paused;
    if (paused) this.connection?.stream.pause();
    else this.connection?.stream.resume();
    this.onPaused?.(paused);
  }

  private seal(): void {
    if (this.used === 0) return;
    this.queue.push(this.batch.subarray(0, this.used));
    this.batch = Buffer.allocUnsafe(BATCH_BYTES);
    this.used = 0;
    this.wake();
  }

  private append(source: Buffer, start = 0, end = source.length): void {
    const length = end - start;
    if (this.used + length > this.batch.length) this.seal();
    if (length > this.batch.length) {
      this.queue.push(Buffer.from(source.subarray(start, end)));
      this.wake();
      return;
    }
    source.copy(this.batch, this.used, start, end);
    this.used += length;
  }

  private appendText(value: string): void {
    const length = Buffer.byteLength(value);
    if (this.used + length > this.batch.length) this.seal();
    if (length > this.batch.length) {
      this.queue.push(Buffer.from(value));
      this.wake();
      return;
    }
    this.used += this.batch.write(value, this.used);
  }

  private csvRow(chunk: Buffer): void {
    const length = chunk.length;
    if (length === 0 || chunk[length - 1] !== LF) throw new Error('COPY export: a CSV row did not arrive as one message ending with LF');
    this.append(chunk, 0, length - 1);
    this.append(CRLF);
    if (this.messages++ > 0) this.rows++;
  }

  private binaryRows(received: Buffer, row: (fields: ReadonlyArray<Buffer | null>, out: RowWriter) => void): void {
    let chunk = received;
    if (this.carry) {
      chunk = Buffer.concat([this.carry, received]);
      this.carry = undefined;
    }
    let offset = 0;
    if (!this.headerRead) {
      if (chunk.length < BINARY_HEADER_BYTES) {
        this.carry = Buffer.from(chunk);
        return;
      }
      if (!chunk.subarray(0, BINARY_SIGNATURE.length).equals(BINARY_SIGNATURE)) throw new Error('COPY export: not COPY binary data');
      const extension = chunk.readUInt32BE(BINARY_SIGNATURE.length + 4);
      if (chunk.length < BINARY_HEADER_BYTES + extension) {
        this.carry = Buffer.from(chunk);
        return;
      }
      offset = BINARY_HEADER_BYTES + extension;
      this.headerRead = true;
    }
    const fields: Array<Buffer | null> = [];
    while (offset + 2 <= chunk.length) {
      const count = chunk.readInt16BE(offset);
      if (count === -1) {
        // The trailer: nothing follows.
        offset = chunk.length;
        break;
      }
      fields.length = 0;
      let at = offset + 2;
      let complete = true;
      for (let i = 0; i < count; i++) {
        if (at + 4 > chunk.length) {
          complete = false;
          break;
        }
        const length = chunk.readInt32BE(at);
        at += 4;
        if (length === -1) {
          fields.push(null);
          continue;
        }
        if (at + length > chunk.length) {
          complete = false;
          break;
        }
        fields.push(chunk.subarray(at, at + length));
        at += length;
      }
      if (!complete) break;
      row(fields, this.writer);
      this.rows++;
      offset = at;
    }
    if (offset < chunk.length) this.carry = Buffer.from(chunk.subarray(offset));
  }
}
