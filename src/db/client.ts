// The database as the service uses it: the Prisma client and the node-postgres pool beneath it,
// that pool shared fairly between API keys, and the hand-written SQL helpers that run on it.
//
// The Prisma client, over node-postgres through Prisma 7's driver adapter, with its pool kept
// beside it for the hand-written SQL (below), and the bounds on its connections.

import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { currentRequest } from '../request/state.js';
import type { DatabaseBounds } from './bounds.js';

/**
 * Connections' application_name (pg_stat_activity, the server's logs): operators tell the service's
 * connections from others' by it. An `application_name` parameter in the URL takes precedence.
 */
export const APPLICATION_NAME = 'clinic-analytics-api';

/**
 * A transaction left open and idle this long is ended by PostgreSQL (its locks and snapshot with
 * it). Requests run no transactions; this only bounds the damage of one leaked by a bug.
 */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 10_000;

/**
 * TCP keepalive on every connection: a connection idle in the pool whose peer has vanished (a
 * crashed host, a dropped NAT entry) is found dead by the kernel and closed rather than handed to a
 * request. The first probe goes out after this much silence.
 */
const KEEPALIVE_DELAY_MS = 10_000;

/** node-postgres's error for a query that passed query_timeout. */
const QUERY_TIMEOUT_MESSAGE = 'Query read timeout';

export interface ClientOptions {
  /** Called with the text of every statement sent on the pool (Prisma's and `queryRows`'s): tests count them. */
  onStatement?: (text: string) => void;
  /** Timeouts for a client that serves requests; none by default (the CLI's commands, tests, bench). */
  bounds?: DatabaseBounds;
  /**
   * Keep clinics and campaigns in memory until PostgreSQL says they changed (CatalogCache, below):
   * the service's client. Off by default: a process that writes them and reads them back at once
   * through the same client (a test) would race its own notification.
   */
  catalogCache?: boolean;
}

export function createPrismaClient(url: string, poolSize = 10, options: ClientOptions = {}): Db {
  const { bounds } = options;
  // The adapter sends timestamps without an offset, which PostgreSQL reads in the session's time
  // zone: pin it to UTC so stored instants never depend on the server's configuration.
  // No JIT compilation: every statement of the service reads bounded rows of the rollups or one
  // page, but the planner's estimate for a LATERAL run once per bucket edge (8,761 for a year of
  // hours) is thousands of times the rows it reads, and crossed jit_above_cost: LLVM then spent 1.4 s
  // compiling a statement that ran in 0.1 s (a year of hours in Asia/Kathmandu with channel=voice).
  // No parallel workers: one statement then uses at most one core, so the per-key limits on
  // statements in flight (limits/admission.ts, and the fair pool below) bound a key's share of the
  // database's CPU; with workers, one key's costliest request took every core of a 2-core server.
  const settings: pg.PoolConfig = {
    connectionString: url,
    options: '-c TimeZone=UTC -c jit=off -c max_parallel_workers_per_gather=0',
    application_name: APPLICATION_NAME,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    ...(bounds && {
      connectionTimeoutMillis: bounds.connectTimeoutMs,
      query_timeout: bounds.queryTimeoutMs,
      statement_timeout: bounds.statementTimeoutMs,
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    }),
  };
  const pool = new pg.Pool({ ...settings, max: poolSize });
  // Connections are shared between API keys (the fair pool, below); waiting for one is bounded by the
  // connect timeout, as node-postgres's own wait was.
  const gate = new FairGate({ capacity: poolSize, perKey: bounds?.connectionsPerKey ?? 0, queueTimeoutMs: bounds?.connectTimeoutMs ?? 0 });
  shareFairly(pool, gate);
  // A connection handed out through the gate reaches its user a few microtasks later; an error in
  // that window (PostgreSQL ending the session in the same packet that finished the start-up) would
  // be an 'error' event with no listener, fatal to the process. The connection's next query fails
  // instead ("not queryable"), and it is dropped when released with that error.
  pool.on('connect', (connection) => connection.on('error', () => {}));
  // Readiness has a connection of its own, outside the requests' pool and its queues: however busy
  // one key keeps the pool, the probe asks the database itself (http/use-health.ts).
  let probePool: pg.Pool | undefined;
  const probe = (text: string, timeoutMs: number) => {
    if (!probePool) {
      probePool = new pg.Pool({ ...settings, max: 1, connectionTimeoutMillis: timeoutMs, allowExitOnIdle: true });
      probePool.on('error', () => {});
    }
    return probePool.query({ text, query_timeout: timeoutMs } as pg.QueryConfig);
  };
  const catalog = options.catalogCache ? new CatalogCache(settings) : undefined;
  const end = pool.end.bind(pool);
  Object.assign(pool, { end: async () => Promise.all([end(), probePool?.end(), catalog?.close()]).then(() => undefined) });
  // An idle connection that PostgreSQL ends (a restart, the embedded cluster stopping at shutdown)
  // is an 'error' event on the pool, fatal to the process without a listener. The pool drops that
  // connection and opens another when next asked; Prisma's adapter adds its listener only on its
  // first query, and `queryRows` (phone folding from start-up) uses the pool before any.
  pool.on('error', () => {});
  const { onStatement } = options;
  if (onStatement) pool.on('connect', (connection) => reportStatements(connection, onStatement));
  if (bounds?.queryTimeoutMs) pool.on('connect', endOnQueryTimeout);
  const client = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  const sqlPool: SqlPool = {
    query: (config) => pool.query(config),
    connect: () => pool.connect(),
    probe,
    catalog,
    statementName: statementNames(),
    // Requests waiting for a connection wait in the gate's queues, not in node-postgres's.
    stats: {
      get totalCount() {
        return pool.totalCount;
      },
      get idleCount() {
        return pool.idleCount;
      },
      get waitingCount() {
        return pool.waitingCount + gate.stats.waiting;
      },
    },
    bounds,
  };
  // A property of the client rather than a second object passed alongside it: every function that
  // reads the database takes one `db`. Configurable, so that a Proxy around the client (tests inject
  // faults that way) may answer it with another pool.
  Object.defineProperty(client, SQL_POOL, { value: sqlPool, configurable: true });
  return client as Db;
}

/**
 * Closes a connection whose query passed query_timeout. node-postgres fails the query but leaves
 * the connection waiting for its answer: every later query on it queues behind one that, from a
 * hung server, never comes. pool.query (the adapter's queries outside transactions, `queryRows`)
 * releases it with the error, which drops it; but a client released without one (a transaction's
 * commit or rollback, any pool.connect() user) would go back to the pool stuck. end() on a client
 * with a query in flight destroys its socket, and the pool never hands out an ended client.
 */
function endOnQueryTimeout(connection: pg.PoolClient): void {
  const query = connection.query.bind(connection) as (...args: unknown[]) => unknown;
  const endIfTimedOut = (error: unknown) => {
    if (error instanceof Error && error.message === QUERY_TIMEOUT_MESSAGE) connection.end().catch(() => {});
  };
  Object.assign(connection, {
    query: (...args: unknown[]) => {
      const callback = args.at(-1);
      if (typeof callback === 'function') {
        args[args.length - 1] = (error: unknown, result: unknown) => {
          endIfTimedOut(error);
          callback(error, result);
        };
        return query(...args);
      }
      const result = query(...args);
      if (!(result instanceof Promise)) return result;
      return result.catch((error: unknown) => {
        endIfTimedOut(error);
        throw error;
      });
    },
  });
}

function reportStatements(connection: pg.PoolClient, onStatement: (text: string) => void): void {
  const query = connection.query.bind(connection) as (...args: unknown[]) => unknown;
  Object.assign(connection, {
    query: (...args: unknown[]) => {
      const [first] = args;
      onStatement(typeof first === 'string' ? first : String((first as { text?: unknown }).text));
      return query(...args);
    },
  });
}

// Shares the connection pool fairly between API keys. Every user of the pool (Prisma's queries,
// `queryRows`, an export's COPY) takes a connection through pool.connect, which this gate wraps:
// - a key holds at most `perKey` connections at once, so the others always find some free (the
//   rest of its work waits in the key's own queue);
// - a freed connection goes to the keys that wait in turn (round robin), never to whoever asked
//   first: one key's queue never holds another key's request;
// - a request waits at most `queueTimeoutMs`, then fails as node-postgres's own pool timeout does
//   (db/errors.ts: 503 with Retry-After). Its own key's work is what it waited behind, unless the
//   whole pool is busy with many keys.
// Work outside any request's document (start-up, the CLI, authentication) shares one lane, not
// capped. A request's work before its document runs (the key's clinics, exports) is in a lane of its
// key that is not capped either, but is served in turn with the others: a burst of one key's
// requests (sixty at the top of a minute) must not queue every other key's first statement behind
// its own sixty.

export interface FairShare {
  /** Connections handed out at once: the pool's size. */
  capacity: number;
  /** Connections one lane (API key) may hold at once; 0: half the capacity, at least 1. */
  perKey: number;
  /** Longest wait for a connection, in milliseconds; 0: no limit. */
  queueTimeoutMs: number;
}

const lanes = new WeakMap<Request, string>();

/**
 * Puts the rest of a request's database work in its key's lane. Called once the request has been
 * admitted to run its document (limits/admission.ts): what comes before (authentication, the
 * key's clinics) is in the shared lane, so a key whose lane is full still gets its 429 at once
 * rather than waiting behind its own work to be told.
 */
export function bindLane(request: Request, keyId: string): void {
  lanes.set(request, `key:${keyId}`);
}

/**
 * Puts a request's work in its key's uncapped lane once the key is known (limits/admission.ts),
 * until bindLane moves it to the capped one.
 */
export function bindKey(request: Request, keyId: string): void {
  if (!lanes.has(request)) lanes.set(request, laneBeforeAdmission(keyId));
}

/** The lane of a key's work before its document is admitted. */
export function laneBeforeAdmission(keyId: string): string {
  return `${UNCAPPED_PREFIX}${keyId}`;
}

/** Lanes of a key's work before its document is admitted: served in turn, never capped. */
const UNCAPPED_PREFIX = 'pre:';

/** The lane of the calling async context: its request's key once bound, or the shared lane. */
export function currentLane(): string {
  const request = currentRequest();
  return (request && lanes.get(request)) ?? SHARED_LANE;
}

/** The lane of work done for no key. */
export const SHARED_LANE = '';

/** node-postgres's message for a pool that found no connection in time (db/errors.ts knows it). */
const QUEUE_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect';

interface Waiter {
  grant: () => void;
  timer?: NodeJS.Timeout;
}

/** The round-robin gate itself, independent of node-postgres (tests drive it directly). */
export class FairGate {
  private active = 0;
  private readonly held = new Map<string, number>();
  /** Lanes with waiters, in serving order: a lane served goes to the back. */
  private readonly queues = new Map<string, Waiter[]>();
  readonly perKey: number;

  constructor(private readonly share: FairShare) {
    this.perKey = share.perKey > 0 ? Math.min(share.perKey, share.capacity) : Math.max(1, Math.floor(share.capacity / 2));
  }

  /** Resolves with the function that gives the slot back, once the lane may hold one more. */
  acquire(lane: string): Promise<() => void> {
    if (!this.queues.has(lane) && this.fits(lane)) return Promise.resolve(this.take(lane));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { grant: () => resolve(this.take(lane)) };
      if (this.share.queueTimeoutMs > 0) {
        waiter.timer = setTimeout(() => {
          this.remove(lane, waiter);
          reject(new Error(QUEUE_TIMEOUT_MESSAGE));
        }, this.share.queueTimeoutMs);
        waiter.timer.unref?.();
      }
      const queue = this.queues.get(lane);
      if (queue) queue.push(waiter);
      else this.queues.set(lane, [waiter]);
    });
  }

  /** Counts for tests and metrics. */
  get stats(): { active: number; waiting: number; lanes: number } {
    let waiting = 0;
    for (const queue of this.queues.values()) waiting += queue.length;
    return { active: this.active, waiting, lanes: this.queues.size };
  }

  heldBy(lane: string): number {
    return this.held.get(lane) ?? 0;
  }

  private fits(lane: string): boolean {
    // The shared lane (no key) is not capped: it is the CLI's and start-up's only lane; nor is a
    // key's work before its document is admitted (the concurrency limit answers it at once).
    return this.active < this.share.capacity && (lane === SHARED_LANE || lane.startsWith(UNCAPPED_PREFIX) || this.heldBy(lane) < this.perKey);
  }

  private take(lane: string): () => void {
    this.active += 1;
    this.held.set(lane, this.heldBy(lane) + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.active -= 1;
      const left = this.heldBy(lane) - 1;
      if (left > 0) this.held.set(lane, left);
      else this.held.delete(lane);
      this.serve();
    };
  }

  /** Grants freed slots to waiting lanes in turn. */
  private serve(): void {
    for (let granted = true; granted && this.active < this.share.capacity; ) {
      granted = false;
      for (const [lane, queue] of this.queues) {
        if (!this.fits(lane)) continue;
        const waiter = queue.shift() as Waiter;
        clearTimeout(waiter.timer);
        // To the back of the line (or out of it when it has no more waiters).
        this.queues.delete(lane);
        if (queue.length) this.queues.set(lane, queue);
        waiter.grant();
        granted = true;
        break;
      }
    }
  }

  private remove(lane: string, waiter: Waiter): void {
    const queue = this.queues.get(lane);
    if (!queue) return;
    const index = queue.indexOf(waiter);
    if (index >= 0) queue.splice(index, 1);
    if (!queue.length) this.queues.delete(lane);
  }
}

type ConnectCallback = (error: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;

/**
 * Puts `gate` in front of the pool's connect (pg.Pool#query takes its connection through it too).
 * The slot is given back when the connection is released, however that happens.
 */
export function shareFairly(pool: pg.Pool, gate: FairGate, laneOf: () => string = currentLane): void {
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const gated = async (): Promise<pg.PoolClient> => {
    const giveBack = await gate.acquire(laneOf());
    let client: pg.PoolClient;
    try {
      client = await connect();
    } catch (error) {
      giveBack();
      throw error;
    }
    const release = client.release.bind(client);
    client.release = (error?: Error | boolean) => {
      giveBack();
      return release(error);
    };
    return client;
  };
  Object.assign(pool, {
    connect(callback?: ConnectCallback) {
      if (!callback) return gated();
      gated().then(
        (client) => callback(undefined, client, (error) => client.release(error as Error | undefined)),
        (error: Error) => callback(error, undefined, () => {}),
      );
      return undefined;
    },
  });
}

// Hand-written SQL: running it on the Prisma client's own pool (`queryRows`), keeping it prepared
// under a stable name (`prepared`), and the small builders every statement uses (`and`, `instant`,
// `num`). Nothing here knows a table: the statements live with what they read (src/interactions,
// src/analytics, src/auth).

/** The node-postgres pool beneath a client, on which `queryRows` runs hand-written SQL. */
export interface SqlPool {
  /** `query_timeout`: node-postgres's client-side bound for this query alone (readiness sets its own). */
  query(config: pg.QueryConfig & { query_timeout?: number }): Promise<pg.QueryResult>;
  /**
   * A statement on the readiness probe's own connection, outside the requests' pool and its queues
   * (`timeoutMs` bounds both getting the connection and the answer).
   */
  probe(text: string, timeoutMs: number): Promise<pg.QueryResult>;
  /** Clinics and campaigns kept in memory until they change; undefined: read every time. */
  readonly catalog?: CatalogCache;
  /** The name to prepare a text under (`prepared`), or undefined to run it unnamed. */
  statementName(text: string): string | undefined;
  /**
   * A connection of the pool for the caller alone, for work that spans statements or streams (an
   * export: src/rest/exports). Release it when done; released with an error, it is closed, not reused.
   */
  connect(): Promise<pg.PoolClient>;
  /** The pool's live counts (for the pool metrics). */
  readonly stats: Pick<pg.Pool, 'totalCount' | 'idleCount' | 'waitingCount'>;
  /** The bounds its connections were opened with; undefined: unbounded (a CLI's or a test's client). */
  readonly bounds?: DatabaseBounds;
}

export const SQL_POOL = Symbol('sqlPool');

/** The Prisma client with the pool beneath it (made by createPrismaClient, above). */
export type Db = PrismaClient & { readonly [SQL_POOL]: SqlPool };

/** How a statement kept prepared begins: `/* prepared <label> *\/` (see `prepared`). */
const PREPARED_MARK = /^\/\* prepared ([a-z][a-z0-9_]*) \*\//;

/** At most this many distinct statements are kept prepared on each connection. */
const PREPARED_STATEMENTS_MAX = 200;

/**
 * `sql`, marked to be kept prepared on each connection that runs it: node-postgres then parses it
 * once per connection and afterwards sends only its parameters, and PostgreSQL skips parsing and
 * analysing its text and, once its plan cache has settled on a generic plan (after five runs),
 * planning it. For the metrics statements that was about as much of PostgreSQL's CPU per request
 * as executing a summary (bench/results/2026-11-23-design-measurements.md).
 *
 * `label` (lower case, digits, `_`) says what the statement is for: the text begins with it as a
 * comment, so `pg_stat_statements` shows it, and the statement's name in `pg_prepared_statements` is
 * the label and a hash of the text (`count_interactions_1f0c9a2e`): the same in every process and
 * after every restart, and distinct for each shape of a statement (a window split into more parts
 * is another text).
 *
 * Only for statements whose plan does not depend on the values bound: the metrics SQL reads the
 * small rollup tables and at most a day or two of the raw table by `started_at`, and rows looked up
 * by primary key are found the same way whatever the key. The other statements, Prisma's own queries
 * included, stay unnamed (planned for their values on every run): a generic plan for a page filtered
 * on a rare outcome, or for a LIMIT and OFFSET it cannot see, can be far worse than the custom one.
 */
export function prepared(label: string, sql: Prisma.Sql): Prisma.Sql {
  if (!/^[a-z][a-z0-9_]*$/.test(label)) throw new TypeError(`prepared: ${label} is not a statement label`);
  return Prisma.sql`${Prisma.raw(`/* prepared ${label} */`)} ${sql}`;
}

/**
 * Statement names: one per distinct text marked by `prepared`, none for the rest (node-postgres's
 * unnamed statement). The statements come in a bounded number of shapes (lists are bound as one
 * array parameter); past `max` texts further ones also run unnamed, so that neither this map nor
 * each connection's statements can grow without bound.
 */
export function statementNames(max = PREPARED_STATEMENTS_MAX): (text: string) => string | undefined {
  const names = new Map<string, string>();
  return (text) => {
    const label = PREPARED_MARK.exec(text)?.[1];
    if (label === undefined) return undefined;
    let name = names.get(text);
    if (name === undefined && names.size < max) {
      name = `${label}_${createHash('sha1').update(text).digest('hex').slice(0, 8)}`;
      names.set(text, name);
    }
    return name;
  };
}

/**
 * How node-postgres converts the columns of hand-written SQL: as Prisma's `$queryRaw` would, so that
 * queries read the same whichever runs them. int8 (counts and sums) as bigint, exact beyond 2^53;
 * a date as midnight UTC of that day (node-postgres's own parser reads it in the process's time
 * zone). The other types keep node-postgres's parsers: int4 and float8 as numbers, timestamptz as a
 * Date (read with its offset), arrays as arrays.
 */
const PRISMA_LIKE_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8) return (value: string) => BigInt(value);
    if (oid === pg.types.builtins.DATE) return (value: string) => new Date(`${value}T00:00:00.000Z`);
    if (oid === pg.types.builtins.TIMESTAMPTZ && format !== 'binary') return parseTimestamptz;
    return pg.types.getTypeParser(oid, format);
  },
} as const;

const parseTimestamptzAnyForm = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => Date;
const digit = (text: string, at: number) => text.charCodeAt(at) - 48;
const digits = (text: string, from: number, to: number) => {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = digit(text, i);
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
};

/**
 * A timestamptz as PostgreSQL writes it in the UTC session every connection has (createPrismaClient):
 * `2026-12-06 10:00:00.12+00`, read by position. node-postgres's parser (postgres-date) runs
 * three regular expressions per value, which was 3-4% of the service's CPU for a page of 50 rows
 * with four timestamps each; anything else (another offset, a year beyond 9999, BC, infinity) is
 * left to it, and a property test keeps the two equal.
 */
export function parseTimestamptz(text: string): Date {
  const length = text.length;
  if (length >= 22 && text.charCodeAt(4) === 45 && text.charCodeAt(10) === 32 && text.charCodeAt(length - 3) === 43 && text.endsWith('+00')) {
    const year = digits(text, 0, 4);
    const month = digits(text, 5, 7);
    const day = digits(text, 8, 10);
    const hour = digits(text, 11, 13);
    const minute = digits(text, 14, 16);
    const second = digits(text, 17, 19);
    let ms = 0;
    let valid =
      year >= 100 &&
      month >= 0 &&
      day >= 0 &&
      hour >= 0 &&
      minute >= 0 &&
      second >= 0 &&
      text.charCodeAt(7) === 45 &&
      text.charCodeAt(13) === 58 &&
      text.charCodeAt(16) === 58;
    if (length > 22) {
      // A fraction: `.` and 1 to 6 digits, of which milliseconds keep the first three (as postgres-date).
      valid &&= text.charCodeAt(19) === 46 && length <= 29;
      for (let i = 20, scale = 100; valid && i < length - 3; i++, scale /= 10) {
        const d = digit(text, i);
        if (d < 0 || d > 9) valid = false;
        else if (scale >= 1) ms += d * scale;
      }
    } else valid &&= length === 22;
    if (valid) {
      const date: TextDate = new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms));
      date[SOURCE_TEXT] = text;
      return date;
    }
  }
  return parseTimestamptzAnyForm(text);
}

/** The text a Date of parseTimestamptz's fast form was read from. */
const SOURCE_TEXT = Symbol('timestamptz text');
type TextDate = Date & { [SOURCE_TEXT]?: string };

/**
 * A Date as ISO 8601 with milliseconds (`toISOString`'s form), from the text PostgreSQL sent when
 * it was read by parseTimestamptz: its date and time by position and the Date's milliseconds,
 * about a third of `toISOString`'s cost, which every timestamp of every answer pays (a page of 50
 * writes 50 to 150). Others are formatted by `toISOString`. (Rows' Dates are never changed in
 * place: a Date that was would be written as it was read.)
 */
export function isoOf(date: Date): string {
  const text = (date as TextDate)[SOURCE_TEXT];
  if (text === undefined) return date.toISOString();
  const ms = date.getUTCMilliseconds();
  return `${text.slice(0, 10)}T${text.slice(11, 19)}${ms < 10 ? '.00' : ms < 100 ? '.0' : '.'}${ms}Z`;
}

/**
 * The rows of hand-written SQL (`Prisma.sql`), run by node-postgres on the client's pool rather than
 * by `$queryRaw`. Prisma's raw queries go through its query interpreter and map every value of
 * every row into tagged values and back, about twice the service's CPU for a page of 25
 * interactions (bench/results/2026-11-23-design-measurements.md). Values come back as `$queryRaw` gives them
 * (PRISMA_LIKE_TYPES). A text marked by `prepared` runs as a named statement.
 */
export async function queryRows<T>(db: Db, sql: Prisma.Sql): Promise<T[]> {
  const pool = db[SQL_POOL];
  const result = await pool.query({ text: sql.text, values: sql.values as unknown[], name: pool.statementName(sql.text), types: PRISMA_LIKE_TYPES });
  return result.rows as T[];
}

/** The conditions joined by AND; TRUE when there are none. */
export function and(conditions: readonly Prisma.Sql[]): Prisma.Sql {
  return conditions.length ? Prisma.join(conditions, ' AND ') : Prisma.sql`TRUE`;
}

/** A column, qualified by its table's alias when the statement names the table so. */
export function columnOf(alias: string | undefined): (name: string) => Prisma.Sql {
  return (name) => Prisma.raw(alias ? `${alias}.${name}` : name);
}

/**
 * A timestamptz parameter for an instant, independent of the session's TimeZone: bound as an ISO
 * 8601 string with `Z`. (A JS Date bound directly is sent by the pg driver adapter as a wall-clock
 * string without an offset, which `::timestamptz` would read in the session's time zone.)
 */
export function instant(value: Date, name: string): Prisma.Sql {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new RangeError(`sql: ${name} is not a valid date`);
  }
  return Prisma.sql`${value.toISOString()}::timestamptz`;
}

/** A bigint / numeric / float result as a JS number (counts stay exact up to 2^53). */
export function num(value: bigint | number | string | null | undefined): number {
  if (value === null || value === undefined) return 0;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new TypeError(`sql: unexpected numeric value ${String(value)}`);
  return n;
}

// The catalogue in memory: clinics and campaigns, a few rows that change only when an operator
// imports, seeds or purges, yet read by nearly every request (which clinics a key's environment
// may see; the clinic and campaign of each row of a page). A statement is the largest cost of a
// small request in this process (the driver's work and a socket write each, about 0.1-0.2 ms of
// CPU), so they are kept here and dropped when PostgreSQL says they changed: the data versions'
// triggers (prisma/repeatable/data-versions.sql) NOTIFY `catalog_changed` in the writer's
// transaction, delivered when it commits.
//
// Correctness rests on three rules. Nothing is served from memory unless this process is
// LISTENing (a lost connection clears the memory and reads go to the database until it listens
// again). A read is kept only if the process was already listening when it began and no
// notification arrived while it ran (a generation count), so an answer read before a commit is
// never kept after the commit's notification. And the memory is bounded (cleared when full).
// The window left is the one any read has: a request served between a commit and the arrival of
// its notification (microseconds on one machine) sees the catalogue as it was just before.
// No library: caches with invalidation by LISTEN (pg-listen, for one) handle the connection but
// not the read-versus-notification race, which is the part that matters here.

const CATALOG_CHANNEL = 'catalog_changed';
/** Entries kept at most; past it the memory starts again (a catalogue of this many rows is not small). */
const CATALOG_MAX_ENTRIES = 50_000;
/** After a lost listening connection, the next attempt waits this long. */
const CATALOG_RETRY_MS = 1_000;

export class CatalogCache {
  readonly #settings: pg.ClientConfig;
  /** By kind, then id (reads by key under kind ''): no key string is built per lookup (a page looks up 100). */
  readonly #entries = new Map<string, Map<string, unknown>>();
  #size = 0;
  #generation = 0;
  #listening = false;
  #client: pg.Client | undefined;
  #retryAt = 0;
  #closed = false;

  constructor(settings: pg.ClientConfig) {
    this.#settings = settings;
  }

  /** Whether reads are served from memory now (tests wait for it). */
  get listening(): boolean {
    return this.#listening;
  }

  /** The value kept under `key`, or `load()`'s, kept when it is safe to (see above). */
  async read<T>(key: string, load: () => Promise<T>): Promise<T> {
    const kept = this.#listening ? this.#entries.get('') : undefined;
    if (kept?.has(key)) return kept.get(key) as T;
    const keep = this.#startRead();
    const value = await load();
    keep((): void => this.#put('', key, value));
    return value;
  }

  /** A row kept by `byIds` under `kind`: the row, null (known absent), or undefined (not in memory). */
  peek<T>(kind: string, id: string): T | null | undefined {
    return this.#listening ? (this.#entries.get(kind)?.get(id) as T | null | undefined) : undefined;
  }

  /**
   * Rows by id: those in memory, and the others read by `load` in one call. An id `load` does not
   * return is kept as absent. `keyOf` gives the id as the rows spell it (a uuid's lower case).
   */
  async byIds<T extends { id: string }>(
    kind: string,
    ids: readonly string[],
    load: (missing: string[]) => Promise<T[]>,
    keyOf = (id: string) => id,
  ): Promise<T[]> {
    const found: T[] = [];
    const missing: string[] = [];
    const kept = this.#listening ? this.#entries.get(kind) : undefined;
    for (const id of ids) {
      const row = kept?.get(keyOf(id)) as T | null | undefined;
      if (row === undefined) missing.push(id);
      else if (row !== null) found.push(row);
    }
    if (missing.length === 0) return found;
    const keep = this.#startRead();
    const loaded = await load(missing);
    keep(() => {
      const byKey = new Map(loaded.map((row) => [keyOf(row.id), Object.freeze(row)]));
      for (const id of missing) this.#put(kind, keyOf(id), byKey.get(keyOf(id)) ?? null);
    });
    return found.concat(loaded);
  }

  /**
   * Resolves once every change committed before the call has dropped what it made stale: a round
   * trip on the listening connection, before whose answer PostgreSQL sends the notifications it holds.
   */
  async settled(): Promise<void> {
    await this.#client?.query('SELECT 1').catch(() => {});
  }

  /** Ends the listening connection; reads go to the database from now on. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#forget();
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
  }

  /** Begins a read: returns how to keep its answer, which does nothing unless keeping it is safe. */
  #startRead(): (put: () => void) => void {
    if (!this.#listening) {
      this.#listen();
      return () => {};
    }
    const generation = this.#generation;
    return (put) => {
      if (this.#listening && generation === this.#generation) put();
    };
  }

  #put(kind: string, key: string, value: unknown): void {
    if (this.#size >= CATALOG_MAX_ENTRIES) this.#clear();
    let entries = this.#entries.get(kind);
    if (!entries) {
      entries = new Map();
      this.#entries.set(kind, entries);
    }
    if (!entries.has(key)) this.#size++;
    entries.set(key, value);
  }

  #clear(): void {
    this.#entries.clear();
    this.#size = 0;
  }

  /** Something changed: nothing kept is served again, nor is any read begun before now kept. */
  #invalidate(): void {
    this.#generation++;
    this.#clear();
  }

  /** Not listening any more: as after a change, and nothing is kept until listening again. */
  #forget(): void {
    this.#listening = false;
    this.#invalidate();
  }

  #listen(): void {
    if (this.#client || this.#closed || Date.now() < this.#retryAt) return;
    // Named apart from the pool's connections, so that operators tell it in pg_stat_activity.
    const client = new pg.Client({ ...this.#settings, application_name: `${this.#settings.application_name ?? APPLICATION_NAME} catalog listener` });
    this.#client = client;
    const lost = () => {
      if (this.#client !== client) return;
      this.#client = undefined;
      this.#retryAt = Date.now() + CATALOG_RETRY_MS;
      this.#forget();
      client.end().catch(() => {});
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (message) => {
      if (message.channel === CATALOG_CHANNEL) this.#invalidate();
    });
    client
      .connect()
      .then(() => {
        // The listening connection alone must not keep a process alive (a CLI command, a test).
        (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
        return client.query(`LISTEN ${CATALOG_CHANNEL}`);
      })
      .then(() => {
        if (this.#client === client && !this.#closed) this.#listening = true;
      })
      .catch(lost);
  }
}
