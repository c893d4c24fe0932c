// Exports: `Accept: text/csv` or `Accept: application/x-ndjson` (or `format=csv`, `format=ndjson`)
// on GET /api/v1/interactions, /metrics/daily, /metrics/series and /metrics/breakdown (routes.ts)
// answers every matching row as a file, streamed, for one quota unit. The REST facade
// (rest/use-rest.ts) chooses the format (routes.ts) and asks `answer` once a request is admitted
// and its key has the route's scope.
//
// Interactions: one connection of the pool for the export's whole duration, one `COPY ... TO
// STDOUT` on it (copy-out.ts), read only as fast as the client takes the body (backpressure). It
// ends, and nothing of it is left running in PostgreSQL, when the client goes away (the request's
// abort signal, or the body's cancel()), or after `timeoutMs` (statement_timeout). A client that
// reads nothing is cut off by the node listener's stall bound (http/node-listener.ts), which closes
// the response and so aborts the request's signal. At most `concurrency` run at once in a process, at most
// `concurrencyPerKey` of them for one key (slots.ts): past the key's share the answer is 429
// RATE_LIMITED, past the process's 503 SERVICE_UNAVAILABLE, both with Retry-After, so ordinary
// requests keep their connections and one key cannot take every export slot.
import type pg from 'pg';
import type { ApiKeyPrincipal } from '../../auth/api-keys.js';
import { PHI_SCOPE, readsPhi, visibleClinicsOf } from '../../auth/api-keys.js';
import type { Db } from '../../db/client.js';
import { SQL_POOL } from '../../db/client.js';
import { isDatabaseUnavailable } from '../../db/errors.js';
import type { Problems } from '../../domain/parameters.js';
import { phiArgumentsOf, phiScopeError } from '../../filters/interaction-filters.js';
import { feedHorizon } from '../../interactions/change-feed.js';
import type { Logger } from '../../logging/logger.js';
import { stateOf } from '../../request/state.js';
import { type ExportFormat, FORMAT_PARAM, failure, insufficientScope, REST_NAMES, type Route, readQuery } from '../routes.js';
import { CopyOut } from './copy-out.js';
import { csvRecord } from './csv.js';
import { checkInteractionExport, exportStatement, INTERACTION_EXPORT_PARAMS, rowFormat } from './interactions.js';
import { type Execution, metricsExportOf, metricsRows } from './metrics.js';
import { type ExportSource, exportResponse, fileName, pulledStream } from './response.js';
import { INTERACTIONS_PATH } from './routes.js';
import { ExportSlots } from './slots.js';

export interface ExportLimits {
  /** Exports of interactions running at once in this process (each holds a database connection). Default 2. */
  concurrency?: number;
  /** Of those, how many one key may hold (never all of them when there are more than one). Default 1. */
  concurrencyPerKey?: number;
  /** An export of interactions may run this long in PostgreSQL (its statement_timeout). Default 1 h. */
  timeoutMs?: number;
}

export interface ExportOptions extends ExportLimits {
  db: Db;
  logger: Logger;
  now: () => Date;
  /** Where an unexpected failure is reported (as the REST facade reports its own). */
  onError: (error: unknown, request: Request) => void;
}

export interface ExportRequest {
  request: Request;
  url: URL;
  route: Route;
  key: ApiKeyPrincipal;
  /** How the route's document is executed (metrics exports). */
  execution: Execution;
  /** The format asked for, one of the route's (routes.ts). */
  format: ExportFormat;
}

export interface Exports {
  /** The export's answer (the route has one in that format: routes.ts). */
  answer(input: ExportRequest): Promise<Response>;
  /** Exports of interactions running now. */
  readonly running: number;
}

export const DEFAULT_EXPORT_LIMITS: Required<ExportLimits> = { concurrency: 2, concurrencyPerKey: 1, timeoutMs: 3_600_000 };

/** Retry-After of the answer when no export slot is given: exports take seconds to minutes. */
const BUSY_RETRY_AFTER_SECONDS = 10;
/** How often PostgreSQL looks whether the client of a running export has gone (PostgreSQL 14+). */
const CONNECTION_CHECK_MS = 1_000;

export function createExports(options: ExportOptions): Exports {
  const limits = { ...DEFAULT_EXPORT_LIMITS, ...definedOnly(options) };
  const slots = new ExportSlots(limits.concurrency, limits.concurrencyPerKey);

  return {
    get running() {
      return slots.inUse;
    },
    async answer(input) {
      const { format } = input;
      if (input.route.path === INTERACTIONS_PATH) return interactions(input, format);
      const spec = metricsExportOf(input.route.path);
      if (!spec) throw new Error(`${input.route.path} has no export`);
      const outcome = await metricsRows(input.request, input.url, input.route, spec, input.execution);
      if (!outcome.ok)
        return outcome.code === 'VALIDATION_ERROR' ? failure(input.request, outcome.code, { details: outcome.details }) : failure(input.request, outcome.code);
      const name = fileName(outcome.name, format, options.now());
      if (input.request.method === 'HEAD') return exportResponse(input.request, format, name, null);
      return exportResponse(input.request, format, name, pulledStream(rowsSource(format, outcome.columns, outcome.rows)));
    },
  };

  async function interactions({ request, url, route, key, execution }: ExportRequest, format: ExportFormat): Promise<Response> {
    const problems: Problems = {};
    // `format` chose this answer (routes.ts); the rest are the export's parameters.
    const query = readQuery(url, [...new Set([...route.params, ...INTERACTION_EXPORT_PARAMS, FORMAT_PARAM])], problems);
    // As for the JSON list: a filter that reads patient data needs phi:read, before any value is judged.
    const refused = phiScopeError({ key, parameters: { names: REST_NAMES } }, phiArgumentsOf(query, REST_NAMES));
    if (refused) return insufficientScope(request, PHI_SCOPE, refused.message);
    const checked = checkInteractionExport(query, problems);
    if (Object.keys(problems).length) return failure(request, 'VALIDATION_ERROR', { details: problems });
    const name = fileName('interactions', format, options.now());
    if (request.method === 'HEAD') return exportResponse(request, format, name, null);

    const slot = slots.take(key.id);
    if ('refused' in slot) {
      if (slot.refused === 'key') {
        return failure(request, 'RATE_LIMITED', {
          message: `This key already has ${slots.perKey} export${slots.perKey === 1 ? '' : 's'} running on this server, its share; retry when one ends`,
          details: { limit: 'export_concurrency', max_exports: slots.perKey, in_flight_exports: slots.heldBy(key.id) },
          retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS,
        });
      }
      return failure(request, 'SERVICE_UNAVAILABLE', {
        message: `${slots.capacity} exports are already running on this server; retry later`,
        retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS,
      });
    }
    // The node response beneath (node-listener.ts passes it as `res`; none in-process): an export
    // that ends early breaks its transfer off at once, rather than when the client reads again.
    const response = (execution.serverContext as { res?: { destroy(): void } }).res;
    const run = new InteractionExport(options, limits, request, key, format, slot.release, () => response?.destroy());
    try {
      // The clinics the key may see, by the rule of every GraphQL context (its environment's).
      const visible = await visibleClinicsOf(options.db, key);
      const horizon = checked.order === 'feed' ? await feedHorizon(options.db) : undefined;
      await run.start(exportStatement(format, checked, visible, horizon, stateOf(request).id));
    } catch (error) {
      run.close(error);
      // (a client that went away meanwhile reads no answer)
      if (run.aborted) return failure(request, 'SERVICE_UNAVAILABLE', { message: 'The export ended before it began' });
      // Before the first byte: the usual envelopes, the failure logged once (a database that cannot answer: 503).
      options.onError(error, request);
      return failure(request, isDatabaseUnavailable(error) ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_ERROR');
    }
    return exportResponse(request, format, name, pulledStream(run));
  }
}

function definedOnly(limits: ExportLimits): ExportLimits {
  return Object.fromEntries(Object.entries(limits).filter(([name, value]) => name in DEFAULT_EXPORT_LIMITS && value !== undefined));
}

/** The rows of a computed export (metrics), written in batches as the client reads. */
function rowsSource(format: ExportFormat, columns: readonly string[], rows: ReadonlyArray<Record<string, unknown>>): ExportSource {
  let next = 0;
  let headerSent = format !== 'csv';
  const ROWS_PER_BATCH = 1_000;
  return {
    async next() {
      let text = '';
      if (!headerSent) {
        text = csvRecord(columns);
        headerSent = true;
      }
      const end = Math.min(rows.length, next + ROWS_PER_BATCH);
      for (; next < end; next++) {
        const row = rows[next]!;
        text += format === 'csv' ? csvRecord(columns.map((column) => row[column])) : `${JSON.stringify(row)}\n`;
      }
      return text === '' ? null : Buffer.from(text);
    },
    cancel() {},
  };
}

/**
 * One export of interactions: its connection, its COPY, and how it ends. Every way it ends comes to
 * `close`, once: the slot is given back, and the connection is returned to the pool (finished) or
 * closed (failed or aborted: a COPY cut off leaves the connection mid-protocol).
 */
class InteractionExport implements ExportSource {
  aborted = false;
  /** The first row arrived: the answer is (being) sent. */
  private started = false;
  private client?: pg.PoolClient;
  private copy?: CopyOut;
  private closed = false;
  private readonly startedAt = performance.now();
  private readonly onSignal = () => this.abort('the client went away');
  /** The connection failed (its socket): as a failure of the COPY, or, before it, of start(). */
  private readonly onClientError = (error: Error) => (this.started ? this.failed(error) : this.close(error));

  constructor(
    private readonly options: ExportOptions,
    private readonly limits: Required<ExportLimits>,
    private readonly request: Request,
    private readonly key: ApiKeyPrincipal,
    private readonly format: ExportFormat,
    private readonly releaseSlot: () => void,
    private readonly cutOff: () => void,
  ) {}

  async start(statement: string): Promise<void> {
    const { db } = this.options;
    this.request.signal.addEventListener('abort', this.onSignal);
    if (this.request.signal.aborted) throw new Error('the client went away');
    const client = await db[SQL_POOL].connect();
    if (this.closed) {
      // Ended while it waited for the connection, which nothing has used: back to the pool.
      client.release();
      throw new Error('the export ended while it waited for a connection');
    }
    this.client = client;
    client.on('error', this.onClientError);
    // The export's own bounds, for this transaction only: its COPY may run for `timeoutMs` (the
    // pool's statement_timeout is an API request's), on one core (no parallel workers taken from
    // the requests), and PostgreSQL notices a client that went away even while it computes rather
    // than sends (client_connection_check_interval, PostgreSQL 14 and later).
    await client.query(
      `BEGIN READ ONLY; SET LOCAL statement_timeout = ${Math.trunc(this.limits.timeoutMs)}; SET LOCAL max_parallel_workers_per_gather = 0;
       SELECT set_config('client_connection_check_interval', '${CONNECTION_CHECK_MS}', true) WHERE current_setting('server_version_num')::int >= 140000`,
    );
    const copy = new CopyOut({
      statement,
      ...rowFormat(this.format, { masked: !readsPhi(this.key) }),
      // The client-side bound stays above PostgreSQL's, which answers first.
      queryTimeoutMs: this.limits.timeoutMs + 30_000,
      onFailed: (error) => this.failed(error),
      onFinished: () => this.finish(),
    });
    this.copy = copy;
    client.query(copy as never);
    // The first row (or the end) before the answer's status: what fails before it is an envelope.
    await copy.ready;
    this.started = true;
  }

  async next(): Promise<Uint8Array | null> {
    const copy = this.copy!;
    try {
      return await copy.next();
    } catch (error) {
      this.failed(error);
      throw error;
    }
  }

  /**
   * The COPY failed after the answer began (a statement timeout, a connection lost): its status is
   * sent, so the transfer is broken off, and the failure logged. Before the first row, start()
   * rejects instead and the answer is an envelope.
   */
  private failed(error: unknown): void {
    if (!this.started || this.closed) return;
    this.options.onError(error, this.request);
    this.close(error);
    this.cutOff();
  }

  cancel(): void {
    this.abort('the client cancelled the body');
  }

  /** Ends the export early: PostgreSQL stops at once (its connection is closed, its statement cancelled). */
  abort(reason: string): void {
    if (this.closed) return;
    this.aborted = true;
    const error = new Error(`export aborted: ${reason}`);
    this.copy?.abort(error);
    this.options.logger.info(this.facts({ reason }), 'export ended early');
    this.close(error);
    // Whatever is left of the transfer is broken off, never ended cleanly (a client that went away has none).
    if (this.started) this.cutOff();
  }

  /** Gives the slot back and the connection to the pool (no error) or closes it (an error). */
  close(error?: unknown): void {
    if (this.closed) return;
    this.closed = true;
    this.request.signal.removeEventListener('abort', this.onSignal);
    this.releaseSlot();
    const client = this.client;
    if (!client) return;
    if (error === undefined) {
      client
        .query('COMMIT')
        .then(
          () => undefined,
          (commitError: unknown) => commitError,
        )
        .then((commitError) => {
          client.off('error', this.onClientError);
          client.release(commitError instanceof Error ? commitError : undefined);
        });
      return;
    }
    const copyRunning = this.copy !== undefined && !this.copy.done;
    if (copyRunning || this.aborted) {
      // The backend may be computing rather than sending (a sort before the first row), when a
      // closed socket goes unnoticed until it sends: cancel its statement from another connection.
      // (node-postgres keeps the backend's pid from BackendKeyData; @types/pg does not declare it)
      const pid = (client as unknown as { processID: number }).processID;
      this.options.db[SQL_POOL]
        .query({ text: 'SELECT pg_cancel_backend($1)', values: [pid] })
        .catch((cancelError: unknown) =>
          this.options.logger.warn({ err: cancelError, request_id: stateOf(this.request).id }, 'export: cancelling its statement failed'),
        );
    }
    // Closed, not returned to the pool; destroyed, since a paused COPY never reads a Terminate.
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    client.off('error', this.onClientError);
    client.release(error instanceof Error ? error : new Error(String(error)));
  }

  /** Every row has arrived from PostgreSQL (the last batches may still be on their way to the client). */
  private finish(): void {
    if (this.closed) return;
    this.options.logger.info(this.facts({}), 'export finished');
    this.close();
  }

  private facts(extra: Record<string, unknown>): Record<string, unknown> {
    return {
      request_id: stateOf(this.request).id,
      key_id: this.key.id,
      export: `interactions.${this.format}`,
      rows: this.copy?.rows ?? 0,
      bytes: this.copy?.bytes ?? 0,
      duration_ms: Math.round(performance.now() - this.startedAt),
      ...extra,
    };
  }
}
