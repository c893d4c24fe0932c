// A Prisma client on the run's test database, and raw SQL access for assertions.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { createPrismaClient, type Db, SQL_POOL, type SqlPool } from '../../src/db/client.js';
import { listMigrations, listRepeatables, migrationsDir, readSchema } from '../../src/db/migrate.js';
import { withSchemaEngine } from '../../src/db/schema-engine.js';

/**
 * This worker's database: a copy of the run's migrated template (test/global-setup.ts), made by the
 * worker's first file. Workers (VITEST_POOL_ID, 1 to maxWorkers) never share one, so one file's open
 * transaction cannot hold back another worker's change feed, nor its locks another's writes.
 */
async function workerDatabaseUrl(): Promise<string> {
  const adminUrl = inject('adminUrl');
  const template = inject('templateDatabase');
  const name = `${template}_w${process.env.VITEST_POOL_ID ?? '1'}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export const databaseUrl = await workerDatabaseUrl();

/** The test database's URL, through `port` on this machine (a relay) if given, with connections named `applicationName`. */
export function databaseUrlVia(options: { port?: number; applicationName?: string }): string {
  const u = new URL(databaseUrl);
  if (options.port) {
    u.hostname = '127.0.0.1';
    u.port = String(options.port);
  }
  if (options.applicationName) u.searchParams.set('application_name', options.applicationName);
  return u.toString();
}

let client: Db | undefined;

/** The file's shared Prisma client; disconnected after the file's tests. */
export function testDb(): Db {
  if (!client) {
    client = createPrismaClient(databaseUrl, 5);
    const current = client;
    afterAll(async () => {
      await current.$disconnect();
      client = undefined;
    });
  }
  return client;
}

/** Runs one SQL statement on the test database with a short-lived connection. */
export async function sql<T extends pg.QueryResultRow = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    return (await c.query<T>(text, values)).rows;
  } finally {
    await c.end();
  }
}

/**
 * `db` whose reads of the `interactions` table fail with an unexpected (non-database) error whose
 * message must never reach a client: Prisma's findMany and count, and hand-written statements
 * (`queryRows`) that read the table itself, as a REST page does. Everything else works: clinics,
 * campaigns, API keys, and the list counts, which read the rollups.
 */
export function failingInteractions(db: Db): Db {
  const boom = () => Promise.reject(new Error('boom: SELECT secret FROM internals'));
  const interaction = new Proxy(db.interaction, {
    get: (target, prop, receiver) => (prop === 'findMany' || prop === 'count' ? boom : Reflect.get(target, prop, receiver)),
  });
  const pool = db[SQL_POOL];
  const sqlPool: SqlPool = { ...pool, query: (config) => (/\bFROM interactions\b/.test(config.text) ? boom() : pool.query(config)) };
  return new Proxy(db, {
    get: (target, prop, receiver) => (prop === 'interaction' ? interaction : prop === SQL_POOL ? sqlPool : Reflect.get(target, prop, receiver)),
  });
}

/**
 * Runs `fn` on a database of its own (created on the test server, dropped afterwards), for tests of
 * migrations; `client` is not yet connected.
 */
export async function withFreshDatabase(prefix: string, fn: (url: string, client: pg.Client) => Promise<void>): Promise<void> {
  const adminUrl = inject('adminUrl');
  const name = `${prefix}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  try {
    await fn(url.toString(), client);
  } finally {
    await client.end().catch(() => {});
    // Wait (up to 5 s) for the test's connections to finish closing: one that FORCE terminates while
    // its client is still open raises an error in this process that nothing may be listening for
    // (seen once under load, from a pool whose end() had not completed).
    for (let i = 0; i < 100; i++) {
      const { rows } = await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
      if (rows[0]!.n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

/**
 * Applies to `url` the migrations before the one whose name ends with `suffix` (so a test can load
 * data for its backfill); returns the names of the rest, in order.
 */
export async function migrateUpTo(url: string, suffix: string): Promise<string[]> {
  const all = listMigrations().migrationDirectories.map((d) => d.path);
  const index = all.findIndex((name) => name.endsWith(suffix));
  if (index <= 0) throw new Error(`no migration ending with ${suffix} after the first`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
  try {
    for (const name of all.slice(0, index)) fs.cpSync(path.join(migrationsDir, name), path.join(dir, name), { recursive: true });
    fs.copyFileSync(path.join(migrationsDir, 'migration_lock.toml'), path.join(dir, 'migration_lock.toml'));
    await withSchemaEngine(url, readSchema(), (engine) =>
      engine.applyMigrations({ migrationsList: listMigrations(dir), filters: { externalTables: [], externalEnums: [] } }),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  // (the repeatable files come after every versioned migration: migrate() applies them all)
  return [...all.slice(index), ...listRepeatables().map((r) => r.label)];
}
