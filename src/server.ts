// Starts the service: database (embedded when DATABASE_URL is unset), migrations, demo data on a
// fresh embedded database, then the HTTP server - in this process, or in WORKERS processes sharing
// the port (node:cluster). Stops gracefully on SIGINT/SIGTERM: readiness turns 503 at once, new
// connections are refused, in-flight requests finish, then the database (if embedded) stops; a
// signal during start-up stops it at the end of the step in progress. Exit code 0 either way.
import cluster from 'node:cluster';
import v8 from 'node:v8';
import { type Config, ConfigError, loadConfig } from './config.js';
import { createPrismaClient } from './db/client.js';
import { type DatabaseLocation, locateDatabase } from './db/database.js';
import { isDatabaseUnavailable } from './db/errors.js';
import { migrate } from './db/migrate.js';
import { ensureDemoSetup } from './demo.js';
import type { Serving } from './serve.js';

// V8 sizes the old generation for throughput: after each full collection it lets the heap grow to
// a multiple of what survived (up to 4x when collections are fast), and keeps those pages: several
// times the service's live heap. Growing by 20% instead keeps the heap near its live size, with no
// fixed ceiling to run out of as --max-old-space-size would set; the price is more frequent full
// collections, and 50% did not stay under the memory target (figures:
// bench/results/2026-11-23-design-measurements.md). The flag is read at every collection, so
// setting it here works however node was started.
v8.setFlagsFromString('--heap-growing-percent=20');

const log = (message: string) => console.log(message);
/** Set by the primary for its workers: the demo key to show in GraphiQL. */
const DEMO_KEY_ENV = 'CLINIC_ANALYTICS_DEMO_KEY';

const MIGRATE_RETRY_MS = 2_000;

const firstLine = (error: unknown) => (error instanceof Error ? error.message.split('\n')[0] : String(error));

/**
 * Applies migrations; while the database is unreachable, keeps retrying in the background instead:
 * the server starts anyway, answers 503 (readiness too), and becomes ready by itself once the
 * database is back. Any other migration failure stops the process.
 */
async function migrateWhenReachable(url: string): Promise<void> {
  const attempt = async (): Promise<boolean> => {
    try {
      const applied = await migrate(url);
      if (applied.length) log(`Applied migrations: ${applied.join(', ')}`);
      return true;
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      return false;
    }
  };
  if (await attempt()) return;
  log(`Warning: the database is unreachable; serving 503 and retrying every ${MIGRATE_RETRY_MS / 1000} s.`);
  const retry = () =>
    attempt().then(
      (done) => (done ? log('The database is reachable again.') : setTimeout(retry, MIGRATE_RETRY_MS).unref()),
      (error: unknown) => {
        console.error(`Migrations failed: ${firstLine(error)}`);
        process.exit(1);
      },
    );
  setTimeout(retry, MIGRATE_RETRY_MS).unref();
}

/** Database, migrations and (embedded only) demo data: done once, by the primary. */
async function prepareDatabase(config: Config, signals: Signals): Promise<{ database: DatabaseLocation; demoKey?: string }> {
  const database = await locateDatabase(config, log);
  await signals.between(() => database.release());
  if (!database.embedded) {
    await migrateWhenReachable(database.url);
    return { database };
  }
  const db = createPrismaClient(database.url, 2);
  try {
    const applied = await migrate(database.url);
    if (applied.length) log(`Applied migrations: ${applied.join(', ')}`);
    await signals.between(async () => {
      await db.$disconnect();
      await database.release();
    });
    const demo = await ensureDemoSetup(db, database.url, config.DATA_DIR, log);
    return { database, demoKey: demo.key };
  } catch (error) {
    await database.release();
    throw error;
  } finally {
    await db.$disconnect();
  }
}

function banner(config: Config, port: number, embedded: boolean, demoKey: string | undefined): void {
  const host = config.HOST === '0.0.0.0' || config.HOST === '127.0.0.1' ? 'localhost' : config.HOST;
  const base = `http://${host}:${port}`;
  log('');
  log(`Clinic analytics API listening on ${base}${config.WORKERS > 1 ? ` (${config.WORKERS} workers)` : ''}`);
  log(`  Start here          ${base}/  (links to everything below)`);
  log(`  GraphQL + GraphiQL  ${base}/graphql`);
  log(`  REST API            ${base}/api/v1  (reference: ${base}/docs)`);
  log(`  Health              ${base}/health/ready`);
  log(embedded ? '  Database            embedded PostgreSQL (DATABASE_URL unset)' : '  Database            DATABASE_URL');
  if (demoKey) log(`  Demo API key        ${demoKey}`);
  log('');
}

type Stop = (signal: NodeJS.Signals) => Promise<void>;

/**
 * SIGINT/SIGTERM, handled from the first moment: without a handler the signal would kill the
 * process mid-start and leave the embedded PostgreSQL (a daemon) running. One that arrives while
 * starting is kept and acted on between start-up steps, never inside one (a migration cut short
 * would block the next start): `between` undoes what has started and exits 0; `serving` names
 * what a stop does once the server runs. Exit 0 either way: the stop was asked for.
 */
function handleSignals() {
  let received: NodeJS.Signals | undefined;
  let onSignal: Stop | undefined;
  let stopping = false;
  const run = (stop: Stop, signal: NodeJS.Signals) => {
    stopping = true;
    stop(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('Shutdown failed:', error);
        process.exit(1);
      },
    );
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (received) return;
      received = signal;
      if (onSignal) run(onSignal, signal);
      else log(`${signal} received while starting: stopping after the current step`);
    });
  }
  return {
    /** Unless a signal came: then runs `undo` and exits, never resolving. */
    async between(undo: () => Promise<void>): Promise<void> {
      if (!received) return;
      if (!stopping) run(() => undo(), received);
      await new Promise<never>(() => {});
    },
    /** From now on a signal runs `stop`; at once if one came while starting. */
    serving(stop: Stop): void {
      onSignal = stop;
      if (received && !stopping) run(stop, received);
    },
  };
}

type Signals = ReturnType<typeof handleSignals>;

/**
 * One HTTP server in this process (serve.ts). Loaded only by a process that serves: the primary of
 * a cluster (WORKERS > 1) only prepares the database and forwards connections and signals, and
 * without the app (GraphQL schema, Yoga, quotas) it holds markedly less memory.
 */
async function serve(config: Config, databaseUrl: string, demoKey: string | undefined): Promise<Serving> {
  const { serve: serveHttp } = await import('./serve.js');
  return serveHttp(config, databaseUrl, demoKey);
}

async function runWorker(config: Config, signals: Signals): Promise<void> {
  const serving = await serve(config, config.DATABASE_URL!, process.env[DEMO_KEY_ENV] || undefined);
  // The primary relays SIGINT/SIGTERM; a terminal's Ctrl-C reaches every process of the group.
  signals.serving(() => serving.stop());
}

async function runPrimary(config: Config, signals: Signals): Promise<void> {
  const { database, demoKey } = await prepareDatabase(config, signals);

  if (config.WORKERS === 1) {
    const serving = await serve(config, database.url, demoKey).catch(async (error: unknown) => {
      await database.release();
      throw error;
    });
    banner(config, serving.port, database.embedded, demoKey);
    signals.serving(async (signal) => {
      log(`${signal} received: finishing in-flight requests, then stopping`);
      await serving.stop();
      await database.release();
    });
    return;
  }

  if (!config.REDIS_URL) log(`Note: ${config.WORKERS} workers without REDIS_URL count quotas per worker; set REDIS_URL for exact shared quotas.`);
  const env = { DATABASE_URL: database.url, [DEMO_KEY_ENV]: demoKey ?? '' };
  const workers = Array.from({ length: config.WORKERS }, () => cluster.fork(env));
  let stopping = false;
  const ports = await Promise.all(
    workers.map(
      (worker) =>
        new Promise<number>((resolve, reject) => {
          worker.once('listening', (address) => resolve(address.port));
          worker.once('exit', (code) => reject(new Error(`A worker exited during start-up (code ${code})`)));
        }),
    ),
  ).catch(async (error: unknown) => {
    for (const worker of workers) worker.kill();
    await database.release();
    throw error;
  });
  cluster.on('exit', (worker, code) => {
    if (!stopping) log(`Worker ${worker.process.pid} exited (code ${code}); the others keep serving.`);
  });
  banner(config, ports[0] ?? config.PORT, database.embedded, demoKey);
  signals.serving(async (signal) => {
    stopping = true;
    log(`${signal} received: workers finish in-flight requests, then stop`);
    const exited = workers.filter((w) => !w.isDead()).map((w) => new Promise<void>((resolve) => w.once('exit', () => resolve())));
    for (const worker of workers) if (!worker.isDead()) worker.process.kill(signal);
    await Promise.all(exited);
    await database.release();
  });
}

async function main(): Promise<void> {
  const signals = handleSignals();
  const config = loadConfig();
  if (cluster.isWorker) await runWorker(config, signals);
  else await runPrimary(config, signals);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message);
  else console.error(process.env.DEBUG ? error : `Failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
