// `COPY (query) TO STDOUT (FORMAT binary)` on one node-postgres connection, read as a stream of
// byte batches with backpressure: what an export of interactions sends (interactions.ts builds the
// statement, rows.ts writes each row).
//
// Why COPY rather than a cursor (pg-cursor, pg-query-stream, DECLARE/FETCH): the rows stream without
// a round trip (and a statement) per batch, and arrive in PostgreSQL's binary format, which the
// service reads field by field in place, never turning a row into a JavaScript object. Why binary
// rather than having PostgreSQL write the text (COPY's CSV, JSON built in SQL): PostgreSQL is the
// export's bottleneck, and its text functions are what cost it most (to_char, to_json and text
// concatenation took 3 of every 4 seconds of its CPU for NDJSON), while the service writes the same
// bytes for a fraction of that, in another process: 1,000,000 rows of NDJSON at 144-150k rows/s
// against 70k, CSV at 278k against 117-161k (bench/results/2026-11-27-exports-design.md).
//
// Backpressure: rows arrive as the socket delivers them and are written into a batch of about
// BATCH_BYTES; with MAX_QUEUED batches waiting for the reader, the connection's socket is paused,
// so PostgreSQL blocks writing to it (TCP flow control) and reads no further rows; `next()` takes a
// batch and resumes the socket. Memory is bounded by the queued batches plus the kernel's socket
// buffers, whatever the size of the export.

/** One batch is about this many bytes (a row larger than a batch is a batch of its own). */
const BATCH_BYTES = 64 * 1024;
/** Batches waiting for the reader before the socket is paused. */
const MAX_QUEUED = 4;
/** "PGCOPY\n\377\r\n\0": the signature that opens COPY's binary format. */
const BINARY_SIGNATURE = Buffer.from([0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00]);
const BINARY_HEADER_BYTES = BINARY_SIGNATURE.length + 8;

/**
 * The fields of one row, in place: field i is `buf[start[i], start[i] + length[i])`, or SQL NULL
 * when `length[i]` is -1. Valid only while the row is being written (the buffer is reused).
 */
export interface Fields {
  buf: Buffer;
  readonly start: Int32Array;
  readonly length: Int32Array;
}

/** Where a row is written: `reserve(n)` guarantees n bytes at `buf[pos]`; the writer advances `pos`. */
export interface Out {
  buf: Buffer;
  pos: number;
  reserve(bytes: number): void;
}

/** Writes one row (`count` fields) to `out`. */
export type RowFormat = (fields: Fields, out: Out) => void;

/** The minimum of node-postgres's connection that a query sees (the socket, to pause it). */
interface Connection {
  query(text: string): void;
  stream: { pause(): void; resume(): void };
}

export interface CopyOutOptions {
  /** The whole `COPY (...) TO STDOUT (FORMAT binary)` statement, values inlined (COPY takes no parameters). */
  statement: string;
  /** Fields per row. */
  columns: number;
  row: RowFormat;
  /** Bytes sent before the rows (a CSV header). */
  preamble?: Buffer;
  /** node-postgres's client-side bound for this query (the pool's default is an API request's). */
  queryTimeoutMs: number;
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
  /**
   * Called when the query ends. node-postgres wraps it to clear its read timeout, and tracing
   * (@opentelemetry/instrumentation-pg) wraps it to end the COPY's span: it looks for it when the
   * query is sent, so it is a function from the start (without one, the span never ended).
   */
  callback: (error: Error | null) => void = () => {};

  /** Rows received so far. */
  rows = 0;
  /** Bytes handed to the reader so far. */
  bytes = 0;
  /** Settles when the first row arrives, or the COPY ends or fails before one did. */
  readonly ready: Promise<void>;

  private readonly options: CopyOutOptions;
  private connection?: Connection;
  private readonly out: Out;
  private readonly queue: Buffer[] = [];
  private paused = false;
  private finished = false;
  private failure?: Error;
  private waiter?: () => void;
  /** The header was read; bytes of an unfinished tuple (copied: the parser reuses its buffer). */
  private headerRead = false;
  private carry?: Buffer;
  private readonly fields: Fields;
  private firstRow!: () => void;
  private firstRowFailed!: (error: Error) => void;

  constructor(options: CopyOutOptions) {
    this.options = options;
    this.text = options.statement;
    this.query_timeout = options.queryTimeoutMs;
    this.fields = { buf: Buffer.alloc(0), start: new Int32Array(options.columns), length: new Int32Array(options.columns) };
    const out: Out = {
      buf: Buffer.allocUnsafe(BATCH_BYTES),
      pos: 0,
      reserve: (bytes) => {
        if (out.pos + bytes <= out.buf.length) return;
        this.seal();
        if (bytes > out.buf.length) out.buf = Buffer.allocUnsafe(bytes);
      },
    };
    this.out = out;
    if (options.preamble) {
      out.reserve(options.preamble.length);
      out.pos += options.preamble.copy(out.buf, out.pos);
    }
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
      if (this.out.pos > 0) {
        // Whatever has arrived, rather than waiting for a full batch: the reader is waiting.
        this.seal();
        continue;
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
      this.parse(message.chunk);
    } catch (error) {
      this.fail(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (this.rows > 0) this.firstRow();
    if (this.queue.length >= MAX_QUEUED && !this.paused) this.setPaused(true);
  }

  handleCommandComplete(): void {}

  handleReadyForQuery(): void {
    if (!this.failure) {
      this.finished = true;
      this.firstRow();
      this.wake();
    }
    this.callback(this.failure ?? null);
    if (this.finished) this.options.onFinished?.();
  }

  handleError(error: Error): void {
    this.fail(error);
    this.callback(error);
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
    if (report) this.options.onFailed?.(error);
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
  }

  /** The batch so far goes to the queue; writing goes on in a fresh one. */
  private seal(): void {
    const out = this.out;
    if (out.pos === 0) return;
    this.queue.push(out.buf.subarray(0, out.pos));
    out.buf = Buffer.allocUnsafe(BATCH_BYTES);
    out.pos = 0;
    this.wake();
  }

  /** The tuples of a CopyData message (PostgreSQL sends one per message, but none is assumed). */
  private parse(received: Buffer): void {
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
    const { fields } = this;
    const { start, length } = fields;
    const columns = this.options.columns;
    fields.buf = chunk;
    while (offset + 2 <= chunk.length) {
      const count = chunk.readInt16BE(offset);
      if (count === -1) {
        // The trailer: nothing follows.
        offset = chunk.length;
        break;
      }
      if (count !== columns) throw new Error(`COPY export: a row of ${count} fields, ${columns} expected`);
      let at = offset + 2;
      let complete = true;
      for (let i = 0; i < count; i++) {
        if (at + 4 > chunk.length) {
          complete = false;
          break;
        }
        const size = chunk.readInt32BE(at);
        at += 4;
        start[i] = at;
        length[i] = size;
        if (size === -1) continue;
        if (at + size > chunk.length) {
          complete = false;
          break;
        }
        at += size;
      }
      if (!complete) break;
      this.options.row(fields, this.out);
      this.rows++;
      offset = at;
    }
    if (offset < chunk.length) this.carry = Buffer.from(chunk.subarray(offset));
  }
}
