import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import {
  applyRepeatables,
  listMigrations,
  listRepeatables,
  migrate,
  migrationsDir,
  pendingMigrations,
  readSchema,
  snapshotPath,
} from '../../src/db/migrate.js';
import { withSchemaEngine } from '../../src/db/schema-engine.js';

async function withFreshDatabase(fn: (url: string) => Promise<void>): Promise<void> {
  const adminUrl = inject('adminUrl');
  const name = `migrate_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    await fn(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

describe('migrations', () => {
  it('are sent to PostgreSQL whole: semicolons inside function bodies work, and a failing migration leaves nothing behind', async () => {
    await withFreshDatabase(async (url) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
      try {
        fs.copyFileSync(path.join(migrationsDir, 'migration_lock.toml'), path.join(dir, 'migration_lock.toml'));
        const add = (name: string, sql: string) => {
          fs.mkdirSync(path.join(dir, name));
          fs.writeFileSync(path.join(dir, name, 'migration.sql'), sql);
        };
        const apply = () =>
          withSchemaEngine(url, readSchema(), (engine) =>
            engine.applyMigrations({ migrationsList: listMigrations(dir), filters: { externalTables: [], externalEnums: [] } }),
          );
        add(
          '20200101000000_function',
          `CREATE TABLE probe (n int);
CREATE FUNCTION probe_twice(x int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE y int; -- a semicolon in a comment; and in a string: ';'
BEGIN y := x * 2; RETURN y; END
$$;
INSERT INTO probe VALUES (probe_twice(21));`,
        );
        await apply();
        add('20200102000000_fails', 'CREATE TABLE half_done (n int);\nINSERT INTO probe VALUES (1 / 0);');
        await expect(apply()).rejects.toThrow(/division by zero/);
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          const { rows } = await client.query<{ n: number }>('SELECT n FROM probe');
          expect(rows).toEqual([{ n: 42 }]);
          const { rows: tables } = await client.query("SELECT to_regclass('half_done') AS t");
          expect(tables[0].t).toBeNull();
        } finally {
          await client.end();
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it('apply from an empty database, are recorded like `prisma migrate deploy`, and are idempotent', async () => {
    await withFreshDatabase(async (url) => {
      const names = listMigrations().migrationDirectories.map((d) => d.path);
      // The versioned ones in order, then every repeatable file.
      const all = [...names, ...listRepeatables().map((r) => r.label)];
      expect(all.length).toBeGreaterThan(names.length);
      expect(await pendingMigrations(url)).toEqual(all);
      expect(await migrate(url)).toEqual(all);
      expect(await pendingMigrations(url)).toEqual([]);
      expect(await migrate(url)).toEqual([]);

      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const recorded = await client.query('SELECT migration_name, checksum, finished_at FROM _prisma_migrations ORDER BY migration_name');
        expect(recorded.rows.map((r) => r.migration_name)).toEqual(names);
        for (const row of recorded.rows) {
          expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
          expect(row.finished_at).toBeInstanceOf(Date);
        }
        const tables = await client.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`);
        expect(tables.rows.map((r) => r.tablename)).toEqual(
          expect.arrayContaining(['api_keys', 'campaigns', 'clinics', 'interaction_transcripts', 'interactions']),
        );
        const trgm = await client.query(`SELECT indexdef FROM pg_indexes WHERE indexname = 'interactions_phone_number_trgm_idx'`);
        expect(trgm.rows[0]?.indexdef).toContain('gin_trgm_ops');
      } finally {
        await client.end();
      }
    });
  });

  it('that create an index on interactions find it built beforehand by the CONCURRENTLY statement their comment gives', async () => {
    const INDEX_MIGRATION = '20261121185647_clinic_channel_type_index';
    const INDEX = 'interactions_clinic_id_channel_type_started_at_id_idx';
    const script = fs.readFileSync(path.join(migrationsDir, INDEX_MIGRATION, 'migration.sql'), 'utf8');
    // The operator's statement, as the comment prints it ("--   " lines), run outside any transaction.
    const concurrently = script
      .split('\n')
      .filter((line) => line.startsWith('--   '))
      .map((line) => line.slice(5).trim())
      .join(' ');
    expect(concurrently).toMatch(/^CREATE INDEX CONCURRENTLY "interactions_clinic_id_channel_type_started_at_id_idx" ON .*;$/);
    await withFreshDatabase(async (url) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
      const apply = () =>
        withSchemaEngine(url, readSchema(), (engine) =>
          engine.applyMigrations({ migrationsList: listMigrations(dir), filters: { externalTables: [], externalEnums: [] } }),
        );
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        fs.copyFileSync(path.join(migrationsDir, 'migration_lock.toml'), path.join(dir, 'migration_lock.toml'));
        const names = listMigrations().migrationDirectories.map((d) => d.path);
        const copy = (name: string) => fs.cpSync(path.join(migrationsDir, name), path.join(dir, name), { recursive: true });
        for (const name of names.slice(0, names.indexOf(INDEX_MIGRATION))) copy(name);
        await apply();
        await client.query(concurrently);
        for (const name of names.slice(names.indexOf(INDEX_MIGRATION))) copy(name);
        await apply();
        expect((await pendingMigrations(url)).filter((name) => !name.startsWith('prisma/repeatable/'))).toEqual([]);
        const { rows } = await client.query<{ indexname: string; indexdef: string }>(
          `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'interactions' AND indexdef LIKE '%(clinic_id, channel, type, started_at DESC, id DESC)%'`,
        );
        expect(rows.map((r) => r.indexname)).toEqual([INDEX]);
      } finally {
        await client.end();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it('apply a repeatable file when its text changes, once, each in a transaction; a failing one leaves nothing behind and is named', async () => {
    await withFreshDatabase(async (url) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repeatable-'));
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const write = (name: string, sql: string) => fs.writeFileSync(path.join(dir, name), sql);
        const pending = async () => (await pendingMigrations(url, listRepeatables(dir))).filter((name) => name.startsWith('prisma/repeatable/'));
        const answer = async () => (await client.query<{ n: number }>('SELECT probe_answer() AS n')).rows[0]?.n;
        write('a-probe.sql', 'CREATE OR REPLACE FUNCTION probe_answer() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;');
        write('b-other.sql', 'CREATE OR REPLACE FUNCTION probe_other() RETURNS int LANGUAGE sql AS $$ SELECT 7 $$;');
        expect(await pending()).toEqual(['prisma/repeatable/a-probe.sql', 'prisma/repeatable/b-other.sql']);
        expect(await applyRepeatables(url, listRepeatables(dir))).toEqual(['prisma/repeatable/a-probe.sql', 'prisma/repeatable/b-other.sql']);
        expect(await answer()).toBe(1);
        expect(await pending()).toEqual([]);
        expect(await applyRepeatables(url, listRepeatables(dir))).toEqual([]);
        const before = await client.query('SELECT name, applied_at FROM _repeatable_migrations ORDER BY name');

        // Its text changed: applied again, alone; the record moves on.
        write('a-probe.sql', 'CREATE OR REPLACE FUNCTION probe_answer() RETURNS int LANGUAGE sql AS $$ SELECT 2 $$;');
        expect(await pending()).toEqual(['prisma/repeatable/a-probe.sql']);
        expect(await applyRepeatables(url, listRepeatables(dir))).toEqual(['prisma/repeatable/a-probe.sql']);
        expect(await answer()).toBe(2);
        const after = await client.query('SELECT name, applied_at FROM _repeatable_migrations ORDER BY name');
        expect(after.rows[1]).toEqual(before.rows[1]);
        expect(after.rows[0].applied_at.getTime()).toBeGreaterThanOrEqual(before.rows[0].applied_at.getTime());

        // A file that fails: its first statement is undone, its record not written, and the error names it.
        write('a-probe.sql', 'CREATE OR REPLACE FUNCTION probe_answer() RETURNS int LANGUAGE sql AS $$ SELECT 3 $$;\nSELECT 1 / 0;');
        await expect(applyRepeatables(url, listRepeatables(dir))).rejects.toThrow(/prisma\/repeatable\/a-probe\.sql: division by zero/);
        expect(await answer()).toBe(2);
        expect(await pending()).toEqual(['prisma/repeatable/a-probe.sql']);
      } finally {
        await client.end();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it('are up to date with prisma/schema.prisma (run `npm run db:diff -- <name>` after changing it)', () => {
    expect(fs.readFileSync(snapshotPath, 'utf8')).toBe(readSchema().content);
  });
});
