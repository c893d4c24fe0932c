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
  SERVICE_TABLES,
  SOURCE_TABLES,
  structuresMarkdown,
  type WriteEvent,
  writeEffectsMarkdown,
} from '../../src/db/derived.js';
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
