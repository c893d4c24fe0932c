// Applies the committed migrations in prisma/migrations, recording them in `_prisma_migrations`
// exactly as `prisma migrate deploy` does, so the Prisma CLI can take over on the same database;
// then the repeatable files of prisma/repeatable (the current text of the derived structures'
// functions and triggers), each whenever its checksum changed, recorded in
// `_repeatable_migrations`. The idea is Flyway's repeatable migrations: a function's body has one
// place, its file, instead of being re-stated whole by every versioned migration that changes it.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { DiffTarget, MigrationList } from '@prisma/schema-engine-wasm';
import pg from 'pg';
import { projectRoot } from '../config.js';
import { withSchemaEngine } from './schema-engine.js';

export const schemaPath = path.join(projectRoot, 'prisma', 'schema.prisma');
export const migrationsDir = path.join(projectRoot, 'prisma', 'migrations');
export const repeatableDir = path.join(projectRoot, 'prisma', 'repeatable');
/** Where applied repeatable files are recorded, by name, with the checksum of the text applied. */
export const REPEATABLE_TABLE = '_repeatable_migrations';
/** How a repeatable file is named among the migrations pending or applied. */
const REPEATABLE_LABEL_PREFIX = 'prisma/repeatable/';
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

export interface Repeatable {
  /** Its file name in prisma/repeatable, which is also its name in `_repeatable_migrations`. */
  name: string;
  /** `prisma/repeatable/<name>`: how migrate and the pending check name it beside the versioned migrations. */
  label: string;
  sql: string;
  checksum: string;
}

/** The repeatable files, in name order (each one's functions exist before any file's triggers name them: the versioned migrations created them all). */
export function listRepeatables(dir = repeatableDir): Repeatable[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name), 'utf8');
      return { name, label: `${REPEATABLE_LABEL_PREFIX}${name}`, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/** The checksum last applied of each repeatable file (none before the first). */
async function appliedChecksums(client: pg.ClientBase): Promise<Map<string, string>> {
  try {
    const { rows } = await client.query<{ name: string; checksum: string }>(`SELECT name, checksum FROM "${REPEATABLE_TABLE}"`);
    return new Map(rows.map((row) => [row.name, row.checksum]));
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return new Map();
    throw error;
  }
}

/** How long the check for pending migrations waits to connect, and then for its answer. */
const CHECK_TIMEOUT_MS = 10_000;

/**
 * Names of committed migrations that the database has not finished applying, then the repeatable
 * files whose text it has not applied (as `prisma/repeatable/<file>`).
 */
export async function pendingMigrations(url: string, repeatables = listRepeatables()): Promise<string[]> {
  // Bounded, so that a database that accepts connections but answers nothing (a stopped server, a
  // dead network path) is "unreachable" after seconds: the server then starts listening, answers
  // 503 and retries (server.ts), instead of waiting for as long as the database hangs.
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CHECK_TIMEOUT_MS, query_timeout: CHECK_TIMEOUT_MS });
  // A connection that breaks while idle would otherwise crash the process; its query fails anyway.
  client.on('error', () => {});
  await client.connect();
  try {
    let versioned: string[];
    try {
      const { rows } = await client.query<{ name: string }>(
        `SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
      );
      const applied = new Set(rows.map((r) => r.name));
      versioned = listMigrations()
        .migrationDirectories.map((d) => d.path)
        .filter((name) => !applied.has(name));
    } catch (error) {
      if ((error as { code?: string }).code !== '42P01') throw error;
      versioned = listMigrations().migrationDirectories.map((d) => d.path);
    }
    const checksums = await appliedChecksums(client);
    return [...versioned, ...repeatables.filter((r) => checksums.get(r.name) !== r.checksum).map((r) => r.label)];
  } finally {
    // Ending waits for the server's goodbye, which a hung server never sends.
    await Promise.race([client.end().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
  }
}

/**
 * Applies the repeatable files whose text the database has not applied, each in its own
 * transaction with its record, under an advisory lock (two servers starting at once apply each
 * file once). A file that fails leaves nothing behind and stops the rest. Returns their names.
 */
export async function applyRepeatables(url: string, repeatables = listRepeatables()): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query(
      `CREATE TABLE IF NOT EXISTS "${REPEATABLE_TABLE}" (name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    for (const repeatable of repeatables) {
      await client.query('BEGIN');
      try {
        // (one lock for every file: the key is this table's name)
        await client.query(`SELECT pg_advisory_xact_lock(hashtext('${REPEATABLE_TABLE}'))`);
        if ((await appliedChecksums(client)).get(repeatable.name) === repeatable.checksum) {
          await client.query('COMMIT');
          continue;
        }
        await client.query(repeatable.sql);
        await client.query(
          `INSERT INTO "${REPEATABLE_TABLE}" (name, checksum) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
          [repeatable.name, repeatable.checksum],
        );
        await client.query('COMMIT');
        applied.push(repeatable.label);
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw new Error(`${repeatable.label}: ${(error as Error).message}`, { cause: error });
      }
    }
    return applied;
  } finally {
    await client.end();
  }
}

/**
 * Applies pending migrations; returns the names of those just applied. When none is pending (every
 * start but the first after a deploy) the schema engine is not loaded: once instantiated, its
 * WebAssembly module (compiled code and memory) stays resident for the life of the process, about
 * tens of megabytes that it would carry under load (bench/results/2026-11-23-design-measurements.md).
 */
export async function migrate(url: string): Promise<string[]> {
  const pending = await pendingMigrations(url);
  if (pending.length === 0) return [];
  const versioned = pending.some((name) => !name.startsWith(REPEATABLE_LABEL_PREFIX))
    ? await withSchemaEngine(url, readSchema(), async (engine) => {
        const { appliedMigrationNames } = await engine.applyMigrations({ migrationsList: listMigrations(), filters: noFilters });
        return appliedMigrationNames;
      })
    : [];
  return [...versioned, ...(await applyRepeatables(url))];
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
