// The bounds on the server's database work, from its configuration: read by the client that applies
// them (client.ts) and by the statements that report them (client.ts).
import type { DatabaseConfig } from '../config.js';

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
  /** Connections one API key may hold at once (client.ts); 0: half the pool. */
  connectionsPerKey?: number;
}

/** The bounds serve.ts puts on the request-serving client, from the DATABASE_*_TIMEOUT_MS variables. */
export function databaseBounds(config: DatabaseConfig): DatabaseBounds {
  return {
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    queryTimeoutMs: config.DATABASE_QUERY_TIMEOUT_MS,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    readyTimeoutMs: config.DATABASE_READY_TIMEOUT_MS,
    connectionsPerKey: config.DATABASE_CONNECTIONS_PER_KEY,
  };
}
