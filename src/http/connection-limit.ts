// Connections refused for HTTP_MAX_CONNECTIONS are closed by Node before any byte is read, so
// the client gets no answer; the operator gets a warning (at most one a minute, with the count).
import type { Server } from 'node:http';
import type { Logger } from '../logging/logger.js';

const REPORT_EVERY_MS = 60_000;

export function reportDroppedConnections(server: Server, logger: Logger): void {
  let dropped = 0;
  let reportedAt = Number.NEGATIVE_INFINITY;
  server.on('drop', () => {
    dropped++;
    const now = performance.now();
    if (now - reportedAt < REPORT_EVERY_MS) return;
    logger.warn({ dropped, max_connections: server.maxConnections }, 'connection limit reached; new connections are closed unanswered');
    reportedAt = now;
    dropped = 0;
  });
}
