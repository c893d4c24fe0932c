// `cli rebuild`: every derived structure the catalogue declares is recomputed from the source
// tables, search documents and phone fragments included, however it was damaged; in a database of
// its own (the rebuild locks the source tables, which would stall the other test files).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DERIVED } from '../../src/db/derived.js';
import { migrate } from '../../src/db/migrate.js';
import { runCli } from '../helpers/cli.js';

let admin: pg.Client;
let client: pg.Client;
let url: string;
let dbName: string;

/** The tables a rebuild recomputes exactly (change logs are emptied by folds; versions only move on). */
const REBUILT_TABLES = DERIVED.filter((structure) => 'functions' in structure.rebuild && structure.name !== 'data versions').flatMap((structure) =>
  structure.tables.filter((table) => table.keys.length > 0),
);

/** Every rebuilt table's rows, in key order, as text. */
async function derivedRows(): Promise<Record<string, string>> {
  const rows: Record<string, string> = {};
  for (const table of REBUILT_TABLES) {
    const order = table.keys.map((key) => `"${key}"`).join(', ');
    const { rows: found } = await client.query<{ rows: string | null }>(`SELECT json_agg(t ORDER BY ${order})::text AS rows FROM "${table.name}" t`);
    rows[table.name] = found[0]?.rows ?? '[]';
  }
  return rows;
}

beforeAll(async () => {
  dbName = `rebuild_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  admin = new pg.Client({ connectionString: inject('adminUrl') });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${dbName}"`);
  const u = new URL(inject('adminUrl'));
  u.pathname = `/${dbName}`;
  url = u.toString();
  await migrate(url);
  const seeded = await runCli(['seed', '--clinics', '3', '--interactions', '400', '--seed', '7'], url);
  expect(seeded.code, seeded.stderr).toBe(0);
  client = new pg.Client({ connectionString: url });
  await client.connect();
}, 120_000);

afterAll(async () => {
  await client?.end();
  await admin?.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await admin?.end();
});

describe('cli rebuild', () => {
  it('recomputes every derived table from the data, search documents and phone fragments included, whatever was lost or added', async () => {
    const exact = await derivedRows();
    for (const table of REBUILT_TABLES) expect({ table: table.name, empty: exact[table.name] === '[]' }).toEqual({ table: table.name, empty: false });

    // Damage every structure as a load with triggers disabled would: rows lost, rows that should not exist.
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    for (const table of REBUILT_TABLES) await client.query(`DELETE FROM "${table.name}" WHERE ctid IN (SELECT ctid FROM "${table.name}" LIMIT 5)`);
    await client.query(`UPDATE interaction_daily_rollups SET interactions = interactions + 1000`);
    await client.query(`DELETE FROM interaction_search_documents`);
    await client.query(`UPDATE interaction_phone_fragments SET interactions = interactions + 7`);
    await client.query('COMMIT');
    const damaged = await derivedRows();
    expect(REBUILT_TABLES.filter((table) => damaged[table.name] === exact[table.name]).map((table) => table.name)).toEqual([]);

    const versionsBefore = await client.query<{ v: string }>('SELECT coalesce(sum(version), 0)::text AS v FROM clinic_data_versions');
    const rebuilt = await runCli(['--json', 'rebuild'], url);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    const result = JSON.parse(rebuilt.stdout) as {
      rebuilt: Array<{ structure: string; rows: Array<{ function: string; rows: number | null }> }>;
      skipped: Array<{ structure: string }>;
    };
    expect(result.rebuilt.map((r) => r.structure)).toEqual(DERIVED.filter((s) => 'functions' in s.rebuild).map((s) => s.name));
    expect(result.skipped.map((s) => s.structure)).toEqual(['tombstones']);
    expect(result.rebuilt.find((r) => r.structure === 'search documents')?.rows).toEqual([{ function: 'interaction_search_rebuild', rows: 400 }]);

    expect(await derivedRows()).toEqual(exact);
    // Every clinic's data version moved on: no cached answer (ETag) survives a rebuild.
    const versionsAfter = await client.query<{ v: string }>('SELECT coalesce(sum(version), 0)::text AS v FROM clinic_data_versions');
    expect(BigInt(versionsAfter.rows[0]!.v)).toBeGreaterThan(BigInt(versionsBefore.rows[0]!.v));
  }, 120_000);

  it('says what it rebuilt, structure by structure, without --json', async () => {
    const rebuilt = await runCli(['rebuild'], url);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    for (const structure of DERIVED) expect(rebuilt.stdout).toContain(`${structure.name}: `);
    expect(rebuilt.stdout).toMatch(/^search documents: 400 rows in [\d,]+ ms$/m);
    expect(rebuilt.stdout).toContain('tombstones: not rebuilt (a record of deletions');
  }, 120_000);
});
