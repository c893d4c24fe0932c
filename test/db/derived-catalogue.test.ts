// The catalogue of derived structures (src/db/derived.ts) against the migrated database: every
// table is a source, a service table or declared derived with its primary key; every trigger is
// declared with its table, events and function; every function of ours belongs to a structure.
// A migration that adds a derived table, trigger or function without declaring it fails here.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DERIVED,
  DERIVED_TABLES,
  OTHER_FUNCTIONS,
  repeatableFile,
  SERVICE_TABLES,
  SOURCE_TABLES,
  structuresMarkdown,
  type WriteEvent,
  writeEffectsMarkdown,
} from '../../src/db/derived.js';
import { listMigrations, listRepeatables } from '../../src/db/migrate.js';
import { sql } from '../helpers/db.js';

describe('the catalogue of derived structures', () => {
  it('names every table of the database, with the primary key it has', async () => {
    const rows = await sql<{ name: string; keys: string[] | null }>(
      `SELECT c.relname AS name,
              (SELECT array_agg(a.attname::text ORDER BY k.ord)
                 FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
                 JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                WHERE i.indrelid = c.oid AND i.indisprimary) AS keys
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
        ORDER BY 1`,
    );
    const actual = Object.fromEntries(rows.map((row) => [row.name, row.keys ?? []]));
    const declared = Object.fromEntries(DERIVED.flatMap((structure) => structure.tables.map((table) => [table.name, [...table.keys]])));
    const derived = rows
      .map((row) => row.name)
      .filter((name) => !(SOURCE_TABLES as readonly string[]).includes(name) && !(SERVICE_TABLES as readonly string[]).includes(name));
    expect(derived.sort()).toEqual([...DERIVED_TABLES].sort());
    for (const name of DERIVED_TABLES) expect({ name, keys: actual[name] }).toEqual({ name, keys: declared[name] });
  });

  it('declares every trigger: its table, events and function', async () => {
    const rows = await sql<{ name: string; on: string; events: WriteEvent[]; fn: string; statement: boolean; after: boolean }>(
      `SELECT t.tgname AS name, t.tgrelid::regclass::text AS on, p.proname AS fn,
              array_remove(ARRAY[CASE WHEN t.tgtype & 4 > 0 THEN 'INSERT' END, CASE WHEN t.tgtype & 16 > 0 THEN 'UPDATE' END,
                                 CASE WHEN t.tgtype & 8 > 0 THEN 'DELETE' END, CASE WHEN t.tgtype & 32 > 0 THEN 'TRUNCATE' END], NULL) AS events,
              t.tgtype & 1 = 0 AS statement, t.tgtype & 2 = 0 AS after
         FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
        WHERE NOT t.tgisinternal
        ORDER BY 1`,
    );
    // Statement-level AFTER triggers only: each sees a statement's rows at once (transition tables).
    expect(rows.filter((row) => !row.statement || !row.after).map((row) => row.name)).toEqual([]);
    const actual = rows.map((row) => ({ name: row.name, on: row.on, events: row.events, function: row.fn }));
    const declared = DERIVED.flatMap((structure) => structure.triggers.map((trigger) => ({ ...trigger, events: [...trigger.events] })));
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect(actual.sort(byName)).toEqual(declared.sort(byName));
  });

  it('gives every function of ours to a structure, and declares none that does not exist', async () => {
    const rows = await sql<{ name: string }>(
      `SELECT DISTINCT p.proname AS name
         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = current_schema()
          -- (extensions' functions: pg_trgm's and unaccent's)
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
        ORDER BY 1`,
    );
    const declared = [...DERIVED.flatMap((structure) => structure.functions), ...OTHER_FUNCTIONS.map((f) => f.name)];
    expect(new Set(declared).size).toBe(declared.length);
    expect(rows.map((row) => row.name)).toEqual([...declared].sort());
    // What a structure's triggers, fold and rebuild call is one of its own functions.
    for (const structure of DERIVED) {
      const called = [
        ...structure.triggers.map((t) => t.function),
        ...(structure.fold ? [structure.fold] : []),
        ...('functions' in structure.rebuild ? structure.rebuild.functions : []),
      ];
      const foreign = called.filter((fn) => !structure.functions.includes(fn));
      expect({ structure: structure.name, foreign }).toEqual({ structure: structure.name, foreign: [] });
    }
  });

  it('rebuilds every structure that can be, the data versions last (no cached answer survives a rebuild)', () => {
    const rebuilt = DERIVED.filter((structure) => 'functions' in structure.rebuild);
    expect(rebuilt.map((structure) => structure.name).at(-1)).toBe('data versions');
    expect(DERIVED.filter((structure) => 'none' in structure.rebuild).map((structure) => structure.name)).toEqual(['tombstones']);
  });
});

describe('docs/architecture.md', () => {
  const page = readFileSync(path.resolve(import.meta.dirname, '../../docs/architecture.md'), 'utf8');
  const between = (name: string) => {
    const match = new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)<!-- ${name}:end -->`).exec(page);
    if (!match) throw new Error(`docs/architecture.md has no ${name} section`);
    return match[1];
  };

  it('shows the catalogue as it is: every structure, its tables and keys, fold and rebuild', () => {
    expect(between('derived-structures')).toBe(structuresMarkdown());
  });

  it('shows what one INSERT, UPDATE, DELETE and TRUNCATE does, table by table, in the order PostgreSQL fires the triggers', () => {
    const text = between('write-effects');
    expect(text).toBe(writeEffectsMarkdown());
    for (const event of ['INSERT', 'UPDATE', 'DELETE', 'TRUNCATE']) expect(text).toContain(`#### ${event} on \`interactions\``);
  });

  it('counts the derived tables as the catalogue does', () => {
    const words = ['Twenty-eight', 'Twenty-nine', 'Thirty', 'Thirty-one', 'Thirty-two'];
    expect(page).toContain(`${words[DERIVED_TABLES.length - 28]} tables are computed from four`);
  });
});

describe('the functions and triggers of the derived structures', () => {
  const files = new Map(listRepeatables().map((r) => [r.name, r.sql]));
  const defined = (sql: string, kind: 'FUNCTION' | 'TRIGGER') => [...sql.matchAll(new RegExp(`^CREATE OR REPLACE ${kind} (\\w+)`, 'gm'))].map((m) => m[1]);

  it('have their text in one repeatable file per structure: its own functions and triggers, nothing else', () => {
    const declared = [
      ...DERIVED.map((s) => ({ file: repeatableFile(s.name), functions: [...s.functions], triggers: s.triggers.map((t) => t.name) })),
      ...OTHER_FUNCTIONS.map((f) => ({ file: repeatableFile(f.name), functions: [f.name as string], triggers: [] as string[] })),
    ];
    expect([...files.keys()].sort()).toEqual(declared.map((d) => d.file).sort());
    for (const { file, functions, triggers } of declared) {
      const sql = files.get(file) ?? '';
      expect({ file, functions: defined(sql, 'FUNCTION'), triggers: defined(sql, 'TRIGGER') }).toEqual({ file, functions, triggers });
    }
  });

  it('are in the migrated database exactly as their files say', async () => {
    const [current] = await sql<{ schema: string }>('SELECT current_schema() AS schema');
    const schema = current!.schema;
    const unqualified = (text: string) => text.replace(`FUNCTION ${schema}.`, 'FUNCTION ').replace(` ON ${schema}.`, ' ON ');
    const functions = await sql<{ name: string; text: string }>(
      `SELECT p.proname AS name, pg_get_functiondef(p.oid) AS text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = current_schema() AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')`,
    );
    const triggers = await sql<{ name: string; text: string }>(`SELECT tgname AS name, pg_get_triggerdef(oid) AS text FROM pg_trigger WHERE NOT tgisinternal`);
    const all = [...files.values()].join('\n');
    const missing = [
      ...functions.filter((f) => !all.includes(`${unqualified(f.text).trimEnd()};\n`)).map((f) => `function ${f.name}`),
      ...triggers
        .filter((t) => !all.includes(`${unqualified(t.text).replace(/^CREATE TRIGGER /, 'CREATE OR REPLACE TRIGGER ')};\n`))
        .map((t) => `trigger ${t.name}`),
    ];
    expect(missing).toEqual([]);
  });

  it('are never re-stated by a versioned migration newer than the repeatable files', () => {
    // The last migration written before the files existed; every later one creates tables, columns and indexes only.
    const LAST_WITH_BODIES = '20261128090838_quarter_totals';
    const restating = listMigrations()
      .migrationDirectories.filter((m) => m.path > LAST_WITH_BODIES)
      .filter((m) => m.migrationFile.content.tag === 'ok' && /CREATE\s+(OR\s+REPLACE\s+)?(FUNCTION|TRIGGER)\b/i.test(m.migrationFile.content.value))
      .map((m) => m.path);
    expect(restating).toEqual([]);
    expect(listMigrations().migrationDirectories.some((m) => m.path === LAST_WITH_BODIES)).toBe(true);
  });
});
