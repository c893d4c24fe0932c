// Recognises failures that mean "the database cannot be reached right now" (answered 503 with
// Retry-After) as opposed to bugs (500).
const UNAVAILABLE_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', '57P01', '57P03', '53300']);
const UNAVAILABLE_TEXT = /can't reach database|connection terminated|econnrefused|connection refused|timeout exceeded when trying to connect|the database system is (starting up|shutting down)|too many clients|database not reachable|server closed the connection/i;

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  const e = error as { code?: unknown; message?: unknown; cause?: unknown; originalError?: unknown; kind?: unknown };
  if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
  if (e.kind === 'DatabaseNotReachable' || e.kind === 'ConnectionClosed' || e.kind === 'SocketTimeout') return true;
  if (typeof e.message === 'string' && UNAVAILABLE_TEXT.test(e.message)) return true;
  return isDatabaseUnavailable(e.cause, depth + 1) || isDatabaseUnavailable(e.originalError, depth + 1);
}
