// Recognises failures that mean "the database cannot answer right now" (answered 503 with
// Retry-After) as opposed to bugs (500). What reaches the service takes three shapes, all checked:
// - node-postgres's own errors: a DatabaseError with the server's SQLSTATE in `code`, a socket
//   error with a Node `code`, or a plain Error known only by its message (a connection that ended,
//   a client-side timeout);
// - the same, passed through unchanged by Prisma (@prisma/adapter-pg rethrows what it cannot map);
// - Prisma's wrappers: a P1xxx/P2024/P2037 code, or P2039 (a model query) / P2010 (a raw query)
//   whose `meta.driverAdapterError.cause` holds the adapter's `kind` and the SQLSTATE.
const UNAVAILABLE_CODES = new Set([
  // Prisma: can't reach, timed out, operation timed out, connection closed, pool timeout, too many connections.
  'P1001',
  'P1002',
  'P1008',
  'P1017',
  'P2024',
  'P2037',
  // Sockets.
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  // PostgreSQL class 08, connection exceptions.
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  // Operator intervention: admin_shutdown (pg_terminate_backend, a fast shutdown), crash_shutdown,
  // cannot_connect_now (starting up, shutting down, in recovery), idle_session_timeout.
  '57P01',
  '57P02',
  '57P03',
  '57P05',
  // The server ended a session left idle in a transaction (idle_in_transaction_session_timeout).
  '25P03',
  // too_many_connections.
  '53300',
  // query_canceled: statement_timeout (db/client.ts) or a cancel by an operator. A slow statement is
  // not an outage, but the answer a client can act on is the same: nothing is wrong with its
  // request, the database could not answer it in time, retry later. So 503 with Retry-After rather
  // than a 500, which would say the service is broken (and page whoever watches 500s); the request
  // log and the unexpected-errors metric still record each one as a database failure.
  '57014',
]);
const UNAVAILABLE_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
const UNAVAILABLE_TEXT = new RegExp(
  [
    "can't reach database",
    // node-postgres: "Connection terminated unexpectedly", "... due to connection timeout".
    'connection terminated',
    'econnrefused',
    'connection refused',
    // node-postgres's Client (no pool): no connection opened in connectionTimeoutMillis.
    '^timeout expired$',
    // node-postgres's pool: no connection became free, or none could be opened, in connectionTimeoutMillis.
    'timeout exceeded when trying to connect',
    // node-postgres: query_timeout (a query unanswered on the client's clock).
    'query read timeout',
    // node-postgres: a query on a client whose connection has failed or ended.
    'is not queryable',
    'cannot use a pool after calling end',
    'the database system is (starting up|shutting down)',
    'too many clients',
    'database not reachable',
    'server closed the connection',
  ].join('|'),
  'i',
);

const MAX_DEPTH = 6;

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > MAX_DEPTH) return false;
  const e = error as { code?: unknown; originalCode?: unknown; message?: unknown; kind?: unknown; cause?: unknown; originalError?: unknown; meta?: unknown };
  if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
  if (typeof e.originalCode === 'string' && UNAVAILABLE_CODES.has(e.originalCode)) return true;
  if (typeof e.kind === 'string' && UNAVAILABLE_KINDS.has(e.kind)) return true;
  if (typeof e.message === 'string' && UNAVAILABLE_TEXT.test(e.message)) return true;
  const adapterError = e.meta && typeof e.meta === 'object' ? (e.meta as { driverAdapterError?: unknown }).driverAdapterError : undefined;
  const inner = [e.cause, e.originalError, adapterError, ...(error instanceof AggregateError ? error.errors : [])];
  return inner.some((next) => isDatabaseUnavailable(next, depth + 1));
}
