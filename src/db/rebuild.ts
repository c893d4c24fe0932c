// Recomputes every derived structure from the source tables, in the catalogue's order
// (db/derived.ts): for data loaded with triggers disabled (session_replication_role = replica, a
// restore without them) or a structure that is suspected wrong. One transaction, after a SHARE
// lock on the source tables: writers wait until it commits, readers go on reading the old rows, and
// every structure is computed from the same data.
import pg from 'pg';
import { DERIVED, SOURCE_TABLES } from './derived.js';

export interface RebuiltStructure {
  structure: string;
  /** Rows each rebuild function reported writing, in the catalogue's order (null: it reports none). */
  rows: Array<{ function: string; rows: number | null }>;
  ms: number;
}

export interface RebuildResult {
  rebuilt: RebuiltStructure[];
  /** Structures with nothing to rebuild them from, and why. */
  skipped: Array<{ structure: string; why: string }>;
  /** Change-log rows each fold applied after the rebuild. */
  folded: Array<{ function: string; rows: number | null }>;
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
const asRows = (value: unknown): number | null => (value === null || value === undefined || value === '' ? null : Number(value));

/** Rebuilds every structure; `progress` hears each one as it starts. */
export async function rebuildDerived(url: string, progress: (structure: string) => void = () => {}): Promise<RebuildResult> {
  const client = new pg.Client({ connectionString: url, application_name: 'clinic-analytics-rebuild' });
  await client.connect();
  try {
    const result: RebuildResult = { rebuilt: [], skipped: [], folded: [] };
    await client.query('BEGIN');
    try {
      await client.query(`LOCK TABLE ${SOURCE_TABLES.map(quoted).join(', ')} IN SHARE MODE`);
      for (const structure of DERIVED) {
        if ('none' in structure.rebuild) {
          result.skipped.push({ structure: structure.name, why: structure.rebuild.none });
          continue;
        }
        progress(structure.name);
        const started = performance.now();
        const rows: RebuiltStructure['rows'] = [];
        for (const fn of structure.rebuild.functions) {
          const { rows: answer } = await client.query<{ n: string | null }>(`SELECT ${quoted(fn)}()::text AS n`);
          rows.push({ function: fn, rows: asRows(answer[0]?.n) });
        }
        result.rebuilt.push({ structure: structure.name, rows, ms: Math.round(performance.now() - started) });
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
    // Folded after the commit, each in its own transaction, as the service folds them.
    for (const structure of DERIVED) {
      if (!structure.fold) continue;
      const { rows: answer } = await client.query<{ n: string | null }>(`SELECT ${quoted(structure.fold)}()::text AS n`);
      result.folded.push({ function: structure.fold, rows: asRows(answer[0]?.n) });
    }
    return result;
  } finally {
    await client.end();
  }
}
