// Applies the committed migrations in prisma/migrations, recording them in `_prisma_migrations`
// exactly as `prisma migrate deploy` does, so the Prisma CLI can take over on the same database.
import fs from 'node:fs';
import path from 'node:path';
import type { DiffTarget, MigrationList } from '@prisma/schema-engine-wasm';
import pg from 'pg';
import { projectRoot } from '../config.js';
import { withSchemaEngine } from './schema-engine.js';

export const schemaPath = path.join(projectRoot, 'prisma', 'schema.prisma');
export const migrationsDir = path.join(projectRoot, 'prisma', 'migrations');
const noFilters = { externalTables: [], externalEnums: [] };

export function readSchema(): { path: string; content: string } {
  return { path: schemaPath, content: fs.readFileSync(schemaPath, 'utf8') };
}

export function listMigrations(dir = migrationsDir): MigrationList {
  const lockPath = path.join(dir, 'migration_lock.toml');
  const names = fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort()
    : [];
  return {
    baseDir: dir,
    lockfile: { path: 'migration_lock.toml', content: fs.existsSync(lockPath) ? fs.readFileSync(lockPath, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories: names.map((name) => {
      const file = path.join(dir, name, 'migration.sql');
      return {
        path: name,
        migrationFile: {
          path: 'migration.sql',
          content: fs.existsSync(file) ? { tag: 'ok' as const, value: fs.readFileSync(file, 'utf8') } : { tag: 'error' as const, value: `${file} is missing` },
        },
      };
    }),
  };
}

/** How long the check for pending migrations waits to connect, and then for its answer. */
const CHECK_TIMEOUT_MS = 10_000;

/** Names of committed migrations that the database has not finished applying. */
export async function pendingMigrations(url: string): Promise<string[]> {
  // Bounded, so that a database that accepts connections but answers nothing (a stopped server, a
  // dead network path) is "unreachable" after seconds: the server then starts listening, answers
  // 503 and retries (server.ts), instead of waiting for as long as the database hangs.
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CHECK_TIMEOUT_MS, query_timeout: CHECK_TIMEOUT_MS });
  // A connection that breaks while idle would otherwise crash the process; its query fails anyway.
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const applied = new Set(rows.map((r) => r.name));
    return listMigrations()
      .migrationDirectories.map((d) => d.path)
      .filter((name) => !applied.has(name));
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return listMigrations().migrationDirectories.map((d) => d.path);
    throw error;
  } finally {
    // Ending waits for the server's goodbye, which a hung server never sends.
    await Promise.race([client.end().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
  }
}

/**
 * Applies pending migrations; returns the names of those just applied. When none is pending (every
 * start but the first after a deploy) the schema engine is not loaded: once instantiated, its
 * WebAssembly module (compiled code and memory) stays resident for the life of the process, about
 * tens of megabytes that it would carry under load (bench/results/2026-11-23-design-measurements.md).
 */
export async function migrate(url: string): Promise<string[]> {
  if ((await pendingMigrations(url)).length === 0) return [];
  return withSchemaEngine(url, readSchema(), async (engine) => {
    const { appliedMigrationNames } = await engine.applyMigrations({ migrationsList: listMigrations(), filters: noFilters });
    return appliedMigrationNames;
  });
}

/**
 * The schema as of the newest committed migration. The WebAssembly engine cannot introspect a live
 * database through the driver adapter (it fails on PostgreSQL's `"char"` catalogue columns), so
 * new migrations are computed schema-to-schema from this snapshot, which needs no database.
 */
export const snapshotPath = path.join(migrationsDir, 'schema.snapshot.prisma');

/** The SQL that takes the snapshot (or an empty database) to the state of prisma/schema.prisma. */
export async function diffAgainstSnapshot(url: string): Promise<string> {
  const current = readSchema();
  const from: DiffTarget = fs.existsSync(snapshotPath)
    ? { tag: 'schemaDatamodel', files: [{ path: snapshotPath, content: fs.readFileSync(snapshotPath, 'utf8') }] }
    : { tag: 'empty' };
  // The engine insists on a connection even for a schema-to-schema diff; it reads nothing from it.
  return withSchemaEngine(url, current, async (engine) => {
    const result = await engine.diff({
      from,
      to: { tag: 'schemaDatamodel', files: [current] },
      script: true,
      exitCode: null,
      filters: noFilters,
    });
    return result.stdout ?? '';
  });
}
