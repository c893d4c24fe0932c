// The Prisma client, over node-postgres through Prisma 7's driver adapter, and the hand-written
// read SQL run on that client's own pool (`queryRows`).
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import { Prisma, PrismaClient } from '../generated/prisma/client.js';

/** The node-postgres pool beneath a client, on which `queryRows` runs hand-written SQL. */
export interface SqlPool {
  /** `query_timeout`: node-postgres's client-side bound for this query alone (readiness sets its own). */
  query(config: pg.QueryConfig & { query_timeout?: number }): Promise<pg.QueryResult>;
  /** The name to prepare a text under (`prepared`), or undefined to run it unnamed. */
  statementName(text: string): string | undefined;
  /** The pool's live counts (for the pool metrics). */
  readonly stats: Pick<pg.Pool, 'totalCount' | 'idleCount' | 'waitingCount'>;
  /** The bounds its connections were opened with; undefined: unbounded (a CLI's or a test's client). */
  readonly bounds?: DatabaseBounds;
}

export const SQL_POOL = Symbol('sqlPool');

/** The Prisma client with the pool beneath it (made by createPrismaClient). */
export type Db = PrismaClient & { readonly [SQL_POOL]: SqlPool };

/** How a statement kept prepared begins (see `prepared`). */
const PREPARED_MARK = '/* prepared */';

/** At most this many distinct statements are kept prepared on each connection. */
const PREPARED_STATEMENTS_MAX = 200;

/**
 * `sql`, marked to be kept prepared on each connection that runs it: node-postgres then parses it
 * once per connection and afterwards sends only its parameters, and PostgreSQL skips parsing and
 * analysing its text and, once its plan cache has settled on a generic plan (after five runs), planning
 * it. For the metrics statements that was 0.3-0.6 ms of PostgreSQL's CPU per request, as much as
 * executing a summary.
 *
 * Only for statements whose plan does not depend on the values bound: the metrics SQL reads the
 * small rollup tables and at most a day or two of the raw table by `started_at`, and rows looked up
 * by primary key are found the same way whatever the key. The other statements, Prisma's own queries
 * included, stay unnamed (planned for their values on every run): a generic plan for a page filtered
 * on a rare outcome, or for a LIMIT and OFFSET it cannot see, can be far worse than the custom one.
 * Marked statements run through `queryRows`.
 */
export function prepared(sql: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`${Prisma.raw(PREPARED_MARK)} ${sql}`;
}

/**
 * Statement names: one per distinct text marked by `prepared`, none for the rest
 * (node-postgres's unnamed statement). The metrics SQL comes in a bounded number of shapes (lists
 * are bound as one array parameter); past `max` texts further ones also run unnamed, so that
 * neither this map nor each connection's statements can grow without bound.
 */
export function statementNames(max = PREPARED_STATEMENTS_MAX): (text: string) => string | undefined {
  const names = new Map<string, string>();
  return (text) => {
    if (!text.startsWith(PREPARED_MARK)) return undefined;
    let name = names.get(text);
    if (name === undefined && names.size < max) {
      name = `prepared_${names.size + 1}`;
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
    return pg.types.getTypeParser(oid, format);
  },
} as const;

/**
 * How long the server's database work may take before the database counts as unavailable (the
 * request is answered 503 with Retry-After; db/errors.ts). Without them a hung PostgreSQL (stopped,
 * or a network path that silently drops packets) held every request, and readiness, until it came
 * back. Each is in milliseconds; 0 turns it off (PostgreSQL's and node-postgres's meaning of 0).
 */
export interface DatabaseBounds {
  /**
   * Getting a connection (node-postgres's connectionTimeoutMillis, which bounds both): waiting for
   * a free one when all `poolSize` are busy, or opening a new one (TCP connect, start-up, auth).
   */
  connectTimeoutMs: number;
  /**
   * A query unanswered this long on the client's clock fails (node-postgres's query_timeout) and
   * its connection is closed (`endOnQueryTimeout`): it catches what the server cannot, a server
   * that does not answer at all.
   */
  queryTimeoutMs: number;
  /**
   * PostgreSQL cancels a statement that runs longer (statement_timeout, SQLSTATE 57014), and its
   * backend stops working on it (the client-side bound alone would leave it running). Below
   * queryTimeoutMs, a slow statement is cancelled and answered by the server; only an unanswering
   * server reaches the client-side bound. It includes time spent waiting for locks, so no separate
   * lock_timeout: requests only read, and a read blocked behind a migration's lock is bounded by
   * this all the same.
   */
  statementTimeoutMs: number;
  /** How long /health/ready waits for the database (http/use-health.ts). */
  readyTimeoutMs: number;
}

/** The bounds serve.ts puts on the request-serving client, from the DATABASE_*_TIMEOUT_MS variables. */
export function databaseBounds(config: DatabaseConfig): DatabaseBounds {
  return {
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    queryTimeoutMs: config.DATABASE_QUERY_TIMEOUT_MS,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    readyTimeoutMs: config.DATABASE_READY_TIMEOUT_MS,
  };
}

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
}

export function createPrismaClient(url: string, poolSize = 10, options: ClientOptions = {}): Db {
  const { bounds } = options;
  // The adapter sends timestamps without an offset, which PostgreSQL reads in the session's time
  // zone: pin it to UTC so stored instants never depend on the server's configuration.
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    options: '-c TimeZone=UTC',
    application_name: APPLICATION_NAME,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    ...(bounds && {
      connectionTimeoutMillis: bounds.connectTimeoutMs,
      query_timeout: bounds.queryTimeoutMs,
      statement_timeout: bounds.statementTimeoutMs,
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    }),
  });
  const { onStatement } = options;
  if (onStatement) pool.on('connect', (connection) => reportStatements(connection, onStatement));
  if (bounds?.queryTimeoutMs) pool.on('connect', endOnQueryTimeout);
  const client = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  const sqlPool: SqlPool = { query: (config) => pool.query(config), statementName: statementNames(), stats: pool, bounds };
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

/**
 * The rows of hand-written SQL (`Prisma.sql`), run by node-postgres on the client's pool rather than
 * by `$queryRaw`. Prisma's raw queries go through its query interpreter and map every value of
 * every row into tagged values and back: for a page of 25 interactions that was 0.43 ms of the
 * service's CPU against 0.25 ms here, and 0.08 against 0.04 ms for a one-row count (10,000,000-row
 * bench database; the statements are the same). Values come back as `$queryRaw` gives them
 * (PRISMA_LIKE_TYPES). A text marked by `prepared` runs as a named statement.
 */
export async function queryRows<T>(db: Db, sql: Prisma.Sql): Promise<T[]> {
  const pool = db[SQL_POOL];
  const result = await pool.query({ text: sql.text, values: sql.values as unknown[], name: pool.statementName(sql.text), types: PRISMA_LIKE_TYPES });
  return result.rows as T[];
}
