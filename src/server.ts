// Starts the service: database (embedded when DATABASE_URL is unset), migrations, demo data on a
// fresh embedded database, then the HTTP server. Stops cleanly on SIGINT/SIGTERM.
import { createServer } from 'node:http';
import { createApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { createPrismaClient } from './db/client.js';
import { locateDatabase } from './db/database.js';
import { migrate } from './db/migrate.js';
import { ensureDemoSetup } from './demo.js';
import { FallbackQuotaStore } from './limits/fallback-store.js';
import { MemoryQuotaStore } from './limits/memory-store.js';
import { createRedisClient, whenReady } from './limits/redis-client.js';
import { RedisQuotaStore } from './limits/redis-store.js';
import type { QuotaStore } from './limits/windows.js';
import type { Redis } from 'ioredis';

const log = (message: string) => console.log(message);

async function main(): Promise<void> {
  const config = loadConfig();
  const database = await locateDatabase(config, log);
  const db = createPrismaClient(database.url, config.DATABASE_POOL_SIZE);
  let demoKey: string | undefined;
  try {
    const applied = await migrate(database.url);
    if (applied.length) log(`Applied migrations: ${applied.join(', ')}`);
    if (database.embedded) {
      const demo = await ensureDemoSetup(db, database.url, config.DATA_DIR, log);
      demoKey = demo.key;
      if (!demo.keyValid) log('Note: the stored demo key has been revoked or has expired; create a key with `npm run cli -- keys create`.');
    }
  } catch (error) {
    await db.$disconnect();
    await database.release();
    throw error;
  }

  let quotaStore: QuotaStore = new MemoryQuotaStore();
  let redis: Redis | undefined;
  if (config.REDIS_URL) {
    redis = createRedisClient(config.REDIS_URL);
    if (!(await whenReady(redis))) log('Warning: Redis is not reachable yet; quotas are counted in memory until it is.');
    quotaStore = new FallbackQuotaStore(new RedisQuotaStore(redis), new MemoryQuotaStore(), (m) => log(`Warning: ${m}`));
  }

  const app = createApp({ db, demoKey, quotaStore, redis, trustProxy: config.TRUST_PROXY });
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const host = config.HOST === '0.0.0.0' || config.HOST === '127.0.0.1' ? 'localhost' : config.HOST;
  const base = `http://${host}:${port}`;
  log('');
  log(`Clinic analytics API listening on ${base}`);
  log(`  GraphQL + GraphiQL  ${base}/graphql`);
  log(`  REST API            ${base}/api/v1  (reference: ${base}/docs)`);
  log(`  Health              ${base}/health/ready`);
  log(database.embedded ? '  Database            embedded PostgreSQL (DATABASE_URL unset)' : '  Database            DATABASE_URL');
  if (demoKey) log(`  Demo API key        ${demoKey}`);
  log('');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal} received: shutting down`);
    const forced = setTimeout(() => {
      console.error('Shutdown took too long; exiting.');
      process.exit(1);
    }, 20_000);
    forced.unref();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await app.dispose();
    await quotaStore.close();
    await db.$disconnect();
    await database.release();
    clearTimeout(forced);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message);
  else console.error(process.env.DEBUG ? error : `Failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
