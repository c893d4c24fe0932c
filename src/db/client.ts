// The Prisma client, over node-postgres through Prisma 7's driver adapter, with its pool kept
// beside it for the hand-written SQL of sql.ts, and the bounds on its connections.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';
import type { DatabaseBounds } from './bounds.js';
import { FairGate, shareFairly } from './fair-pool.js';
import { type Db, SQL_POOL, type SqlPool, statementNames } from './sql.js';

export { type Db, SQL_POOL, type SqlPool } from './sql.js';

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
  // No JIT compilation: every statement of the service reads bounded rows of the rollups or one
  // page, but the planner's estimate for a LATERAL run once per bucket edge (8,761 for a year of
  // hours) is thousands of times the rows it reads, and crossed jit_above_cost: LLVM then spent 1.4 s
  // compiling a statement that ran in 0.1 s (a year of hours in Asia/Kathmandu with channel=voice).
  // No parallel workers: one statement then uses at most one core, so the per-key limits on
  // statements in flight (limits/concurrency.ts, fair-pool.ts) bound a key's share of the
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
  // Connections are shared between API keys (fair-pool.ts); waiting for one is bounded by the
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
  const end = pool.end.bind(pool);
  Object.assign(pool, { end: async () => Promise.all([end(), probePool?.end()]).then(() => undefined) });
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
