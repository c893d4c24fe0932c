// Two imports into one database at the same time. Each writes in one transaction, batch after
// batch, and every batch's rollup triggers lock the rows of its days: two imports covering the same
// days in different orders used to deadlock (PostgreSQL then aborted one of them).
import { describe, expect, it } from 'vitest';
import { importFiles } from '../../src/importer/import.js';
import { databaseUrl, sql, testDb } from '../helpers/db.js';
import { createClinic } from '../helpers/factories.js';
import { voiceLine, writeLines } from './files.js';

const DAYS = 12;
const PER_DAY = 5;

/** PER_DAY calls on each of DAYS days (a year no other test uses), in the order of `days`. */
function calls(clinicId: string, days: number[]) {
  return days.flatMap((day) =>
    Array.from({ length: PER_DAY }, (_, i) => {
      const start = new Date(Date.UTC(2011, 4, 1 + day, 9, i));
      return voiceLine(clinicId, { started_at: start.toISOString(), ended_at: new Date(start.getTime() + 60_000).toISOString(), duration_seconds: 60 });
    }),
  );
}

describe('concurrent imports', () => {
  it('over the same days both succeed, one after the other, with exact rollups', async () => {
    const clinic = await createClinic(testDb());
    const ascending = Array.from({ length: DAYS }, (_, d) => d);
    const first = calls(clinic.id, ascending);
    const second = calls(clinic.id, [...ascending].reverse());
    let waited = 0;
    // One day per batch: the two transactions take the days' rows in opposite orders.
    const run = (lines: object[]) =>
      importFiles({ files: { interactions: writeLines('interactions.ndjson', lines) }, url: databaseUrl, batchSize: PER_DAY, onWait: () => waited++ });

    const reports = await Promise.allSettled([run(first), run(second)]);

    expect(reports.map((r) => (r.status === 'fulfilled' ? r.value.resources.interactions?.written : String(r.reason)))).toEqual([
      DAYS * PER_DAY,
      DAYS * PER_DAY,
    ]);
    expect(waited).toBeGreaterThanOrEqual(1);
    const ids = [...first, ...second].map((l) => l.id);
    expect((await sql<{ n: number }>('SELECT count(*)::int AS n FROM interactions WHERE id = ANY($1)', [ids]))[0]!.n).toBe(2 * DAYS * PER_DAY);
    const rollups = await sql<{ day: string; interactions: number; duration: number }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(interactions)::int AS interactions, sum(duration_sum)::int AS duration
         FROM interaction_daily_rollups WHERE clinic_id = $1 GROUP BY day ORDER BY day`,
      [clinic.id],
    );
    expect(rollups).toEqual(
      ascending.map((d) => ({ day: `2011-05-${String(1 + d).padStart(2, '0')}`, interactions: 2 * PER_DAY, duration: 2 * PER_DAY * 60 })),
    );
  });
});
