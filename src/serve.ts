// One HTTP server with its own connections to the database (and Redis, for shared quotas): what
// a process that serves runs (server.ts: the only process, or each cluster worker). Its stop()
// drains gracefully: readiness turns 503 at once, new connections are refused, in-flight requests
// finish, then its connections close.
import { createServer } from 'node:http';
import net from 'node:net';
import type { Redis } from 'ioredis';
import { createApp } from './app.js';
import type { Config } from './config.js';
import { databaseBounds } from './db/bounds.js';
import { createPrismaClient, SQL_POOL } from './db/client.js';
import { answerClientErrors } from './http/client-errors.js';
import { reportDroppedConnections } from './http/connection-limit.js';
import { countHeaderFields } from './http/header-fields.js';
import { Lifecycle } from './http/lifecycle.js';
import { createNodeListener } from './http/node-listener.js';
import { foldPeriodically } from './interactions/phone-fragments.js';
import { FallbackQuotaStore } from './limits/fallback-store.js';
import { HeavyLane } from './limits/heavy-lane.js';
import { MemoryQuotaStore } from './limits/memory-store.js';
import { redisBreaker } from './limits/redis-breaker.js';
import { createRedisClient, whenReady } from './limits/redis-client.js';
import { RedisQuotaStore } from './limits/redis-store.js';
import type { QuotaStore } from './limits/windows.js';
import { createLogger, loggerOptions } from './logging/logger.js';
import { startTracing } from './observability/tracing.js';

const log = (message: string) => console.log(message);
/** After shutdown begins, how long a just-opened connection has to deliver its request. */
const DRAIN_GRACE_MS = 1_000;

export interface Serving {
  port: number;
  stop(): Promise<void>;
}

/** Listens on config.PORT (0: any free port) and serves the app. */
export async function serve(config: Config, databaseUrl: string, demoKey: string | undefined): Promise<Serving> {
  const logger = createLogger(loggerOptions(config));
  // Before the database client: its connections must find pg already patched (tracing.ts).
  const tracing = await startTracing(config, { logger });
  const db = createPrismaClient(databaseUrl, config.DATABASE_POOL_SIZE, { bounds: databaseBounds(config), catalogCache: config.CATALOG_CACHE === 'on' });
  let quotaStore: QuotaStore = new MemoryQuotaStore();
  let redis: Redis | undefined;
  if (config.REDIS_URL) {
    redis = createRedisClient(config.REDIS_URL);
    redisBreaker(redis, {
      commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
      failureThreshold: config.REDIS_BREAKER_FAILURES,
      cooldownMs: config.REDIS_BREAKER_COOLDOWN_MS,
      warn: (m) => logger.warn(m),
    });
    if (!(await whenReady(redis))) logger.warn('Redis is not reachable yet; quotas are counted in memory until it is');
    quotaStore = new FallbackQuotaStore(new RedisQuotaStore(redis), new MemoryQuotaStore(), (m) => logger.warn(m));
  }
  // The phone numbers' changes since the last fold: folded at once (a process that starts after an
  // import or a crash), then every few seconds (interactions/phone-fragments.ts).
  const folding = foldPeriodically(db, { onError: (error) => logger.warn({ err: error }, 'Folding the phone-number changes failed; retrying') });
  const lifecycle = new Lifecycle();
  // Heavy requests in a worker thread of their own (limits/heavy-lane.ts), started before listening.
  const heavyLane =
    config.HEAVY_LANE_CONNECTIONS > 0
      ? new HeavyLane(
          {
            databaseUrl,
            connections: config.HEAVY_LANE_CONNECTIONS,
            bounds: databaseBounds(config),
            catalogCache: config.CATALOG_CACHE === 'on',
            nice: config.HEAVY_LANE_NICE,
            logger: { level: config.LOG_LEVEL, pretty: config.LOG_FORMAT === 'pretty' },
          },
          (message) => logger.warn(message),
        )
      : undefined;
  await heavyLane?.start();
  const app = createApp({
    heavyLane,
    db,
    demoKey,
    quotaStore,
    redis,
    lifecycle,
    logger,
    metricsToken: config.METRICS_TOKEN,
    keyConcurrency: { standard: config.KEY_CONCURRENCY_STANDARD, premium: config.KEY_CONCURRENCY_PREMIUM, unlimited: config.KEY_CONCURRENCY_UNLIMITED },
    tracing,
    trustProxy: config.TRUST_PROXY,
    dbPool: db[SQL_POOL].stats,
    exportLimits: {
      concurrency: config.EXPORT_CONCURRENCY,
      concurrencyPerKey: config.EXPORT_CONCURRENCY_PER_KEY,
      timeoutMs: config.EXPORT_TIMEOUT_MS,
    },
  });
  const server = createServer(
    {
      // Deliberate limits on slow clients (Node's defaults let a request body trickle in for 300 s).
      requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeout: Math.min(config.HTTP_HEADERS_TIMEOUT_MS, config.HTTP_REQUEST_TIMEOUT_MS),
      keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      // Node checks those two timeouts on this interval (default 30 s, which would let a 10 s
      // limit run to 40 s); a check walks the open connections, cheap at once a second.
      connectionsCheckingInterval: Math.min(1_000, Math.floor(config.HTTP_HEADERS_TIMEOUT_MS / 4)),
      // A missing Host is refused by the Host guard (http/request-target.ts), in the envelope.
      requireHostHeader: false,
    },
    createNodeListener(app, { logger, trustProxy: config.TRUST_PROXY, stallTimeoutMs: config.EXPORT_STALL_TIMEOUT_MS }),
  );
  // Beyond it Node closes new connections at once, before reading a byte: no answer is possible.
  server.maxConnections = config.HTTP_MAX_CONNECTIONS;
  // Node would drop the fields after its limit silently; over ours, a request is answered 431.
  countHeaderFields(server);
  reportDroppedConnections(server, logger);
  answerClientErrors(server);
  server.on('request', (_request, response) => {
    if (lifecycle.draining) response.setHeader('Connection', 'close');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, resolve);
  });
  const address = server.address();

  return {
    port: typeof address === 'object' && address ? address.port : config.PORT,
    async stop() {
      lifecycle.startDraining();
      // Stop accepting at once, but not via http's close(), which also drops connections whose
      // request is still arriving (a client that connected a moment ago would see a reset). While
      // draining, responses say `Connection: close`; after a short grace, idle sockets are closed.
      const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
      const sweeper = setTimeout(function sweep() {
        server.closeIdleConnections();
        sweeper.refresh();
      }, DRAIN_GRACE_MS);
      const timeout = new Promise<'timeout'>((resolve) => setTimeout(resolve, config.SHUTDOWN_TIMEOUT_MS, 'timeout').unref());
      if ((await Promise.race([closed, timeout])) === 'timeout') {
        log(`Requests still running after ${config.SHUTDOWN_TIMEOUT_MS} ms; closing their connections.`);
        server.closeAllConnections();
        await closed;
      }
      clearTimeout(sweeper);
      await folding.stop();
      await heavyLane?.stop();
      await app.dispose();
      await quotaStore.close();
      await db.$disconnect();
      // Last: the spans of the requests that just finished are sent before the process exits.
      await tracing?.shutdown();
    },
  };
}
