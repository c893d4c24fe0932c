// The daily rollup's triggers: after every kind of write to `interactions`, the rollup rows of the
// test's clinics equal a GROUP BY over their raw rows. Every assertion is restricted to the test's
// own clinics (other files write to the same database at the same time), except on the fresh
// databases of the last block.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { dailyQuery } from '../../src/analytics/daily.js';
import { outcomesQuery } from '../../src/analytics/outcomes.js';
import { summaryQuery } from '../../src/analytics/summary.js';
import { migrate } from '../../src/db/migrate.js';
import type { Prisma } from '../../src/generated/prisma/client.js';
import { countQuery } from '../../src/interactions/read-page.js';
import { generateDemoData } from '../../src/seed/generate.js';
import { writeDemoData } from '../../src/seed/seed-database.js';
import { databaseUrl, migrateUpTo, testDb, withFreshDatabase } from '../helpers/db.js';
import { createInteraction } from '../helpers/factories.js';
import {
  createClinics,
  expectRollupExact,
  importRows,
  insertRows,
  newId,
  type Row,
  rollupRows,
  session,
  testPool,
  waitUntilBlocked,
} from './rollup-support.js';

const db = testDb();
const pool = testPool();
const at = (iso: string) => new Date(iso);

function row(clinicId: string, startedAt: string, data: Partial<Row> = {}): Row {
  return { id: newId(), clinicId, channel: 'voice', type: 'INBOUND', startedAt: at(startedAt), durationSeconds: 60, outcome: 'APPOINTMENT_BOOKED', ...data };
}

describe('interaction_daily_rollups, maintained by triggers', () => {
  it('counts inserts per UTC day and key: outcome "" for none, durations of voice calls only', async () => {
    const [c] = await createClinics(pool, 1);
    const clinic = c!;
    // One row at a time through Prisma (single-row INSERTs) ...
    await createInteraction(db, { clinicId: clinic, startedAt: at('2025-04-01T00:00:00.000Z'), durationSeconds: 10 });
    await createInteraction(db, { clinicId: clinic, startedAt: at('2025-04-01T23:59:59.999Z'), durationSeconds: 20 });
    await createInteraction(db, { clinicId: clinic, startedAt: at('2025-04-02T00:00:00.000Z'), durationSeconds: null });
    // ... and one multi-row INSERT.
    await insertRows(pool, [
      row(clinic, '2025-04-01T12:00:00.000Z', { outcome: null, durationSeconds: 5 }),
      row(clinic, '2025-04-01T13:00:00.000Z', { outcome: null, durationSeconds: 7 }),
      row(clinic, '2025-04-01T14:00:00.000Z', { channel: 'whatsapp', type: 'APPOINTMENT_REMINDER', outcome: 'NO_ANSWER', durationSeconds: 500 }),
    ]);
    expect(await expectRollupExact(pool, [clinic])).toEqual([
      `2025-04-01|${clinic}|voice|INBOUND|inbound|APPOINTMENT_BOOKED|2|2|30`,
      `2025-04-01|${clinic}|voice|INBOUND|inbound||2|2|12`,
      `2025-04-01|${clinic}|whatsapp|APPOINTMENT_REMINDER|outbound|NO_ANSWER|1|0|0`,
      `2025-04-02|${clinic}|voice|INBOUND|inbound|APPOINTMENT_BOOKED|1|0|0`,
    ]);
  });

  it('moves counts between keys on UPDATEs of started_at, outcome, channel, type, direction, clinic and duration', async () => {
    const [a, b] = (await createClinics(pool, 2)) as [string, string];
    const rows = [
      row(a, '2025-04-10T08:00:00.000Z'),
      row(a, '2025-04-10T09:00:00.000Z', { outcome: null }),
      row(a, '2025-04-11T23:59:59.999Z', { durationSeconds: null }),
      row(a, '2025-04-12T00:00:00.000Z', { channel: 'whatsapp', type: 'CAMPAIGN_OUTBOUND', durationSeconds: null }),
    ];
    await insertRows(pool, rows);
    await expectRollupExact(pool, [a, b]);
    const [r0, r1, r2, r3] = rows.map((r) => r.id) as [string, string, string, string];
    const updates: Array<[string, unknown[]]> = [
      // to another day, then by one millisecond across midnight, then within the same day
      ['UPDATE interactions SET started_at = $2 WHERE id = $1', [r0, '2025-04-15T08:00:00.000Z']],
      ['UPDATE interactions SET started_at = $2 WHERE id = $1', [r2, '2025-04-12T00:00:00.000Z']],
      ['UPDATE interactions SET started_at = $2 WHERE id = $1', [r2, '2025-04-12T23:00:00.000Z']],
      // outcome: null -> value, value -> null, value -> other value
      ['UPDATE interactions SET outcome = $2 WHERE id = $1', [r1, 'NO_ANSWER']],
      ['UPDATE interactions SET outcome = NULL WHERE id = $1', [r0]],
      ['UPDATE interactions SET outcome = $2 WHERE id = $1', [r3, 'OPT_OUT']],
      // channel and type: a call becomes a conversation (its duration no longer counts), and back
      ["UPDATE interactions SET channel = 'whatsapp', type = 'APPOINTMENT_REMINDER', direction = 'outbound' WHERE id = $1", [r1]],
      ["UPDATE interactions SET channel = 'voice', type = 'CAMPAIGN_CALLBACK' WHERE id = $1", [r3]],
      ["UPDATE interactions SET direction = 'inbound' WHERE id = $1", [r3]],
      // duration: set, changed, removed
      ['UPDATE interactions SET duration_seconds = 2147483647 WHERE id = $1', [r2]],
      ['UPDATE interactions SET duration_seconds = 2147483647 WHERE id = $1', [r3]],
      ['UPDATE interactions SET duration_seconds = 5 WHERE id = $1', [r2]],
      ['UPDATE interactions SET duration_seconds = NULL WHERE id = $1', [r0]],
      // another clinic
      ['UPDATE interactions SET clinic_id = $2 WHERE id = $1', [r2, b]],
      // several key columns of several rows in one statement
      [
        `UPDATE interactions SET started_at = started_at + interval '1 day' - interval '1 millisecond',
                                 outcome = CASE WHEN outcome IS NULL THEN 'DECISION_PENDING' END
         WHERE id = ANY($1::text[])`,
        [[r0, r1, r2, r3]],
      ],
    ];
    for (const [text, values] of updates) {
      await pool.query(text, values);
      await expectRollupExact(pool, [a, b]);
    }
  });

  it('writes no rollup row for an UPDATE that changes no key column and no duration', async () => {
    const [c] = (await createClinics(pool, 1)) as [string];
    const rows = [row(c, '2025-04-20T08:00:00.000Z'), row(c, '2025-04-20T09:00:00.000Z'), row(c, '2025-04-21T09:00:00.000Z')];
    await insertRows(pool, rows);
    const versions = async () =>
      (await pool.query<{ v: string }>('SELECT xmin::text AS v FROM interaction_daily_rollups WHERE clinic_id = $1 ORDER BY day', [c])).rows;
    const before = await versions();
    await pool.query(`UPDATE interactions SET summary = 'changed', phone_number = '+1 555 0199', ended_at = started_at WHERE clinic_id = $1`, [c]);
    // Moving two rows within their day changes no key either.
    await pool.query(`UPDATE interactions SET started_at = started_at + interval '1 hour' WHERE clinic_id = $1`, [c]);
    expect(await versions()).toEqual(before);
    await expectRollupExact(pool, [c]);
  });

  it('subtracts DELETEd rows and deletes the rollup rows that reach 0', async () => {
    const [c] = (await createClinics(pool, 1)) as [string];
    const rows = [
      row(c, '2025-04-25T08:00:00.000Z'),
      row(c, '2025-04-25T09:00:00.000Z'),
      row(c, '2025-04-26T09:00:00.000Z', { outcome: null }),
      row(c, '2025-04-27T09:00:00.000Z'),
    ];
    await insertRows(pool, rows);
    await pool.query('DELETE FROM interactions WHERE id = $1', [rows[0]!.id]);
    expect(await expectRollupExact(pool, [c])).toHaveLength(3);
    await pool.query('DELETE FROM interactions WHERE id = ANY($1::text[])', [[rows[1]!.id, rows[2]!.id]]);
    expect(await expectRollupExact(pool, [c])).toEqual([`2025-04-27|${c}|voice|INBOUND|inbound|APPOINTMENT_BOOKED|1|1|60`]);
    await pool.query('DELETE FROM interactions WHERE clinic_id = $1', [c]);
    expect(await rollupRows(pool, [c])).toEqual([]);
  });

  it("follows the importer's multi-row INSERT ... ON CONFLICT DO UPDATE: new, changed and unchanged rows in one statement", async () => {
    const [a, b] = (await createClinics(pool, 2)) as [string, string];
    const day = (n: number, h = 8) => new Date(Date.UTC(2025, 4, n, h));
    const first: Row[] = Array.from({ length: 60 }, (_, i) =>
      row(i % 3 === 0 ? b : a, day(1 + (i % 5), i % 24).toISOString(), {
        outcome: i % 4 === 0 ? null : i % 4 === 1 ? 'NO_ANSWER' : 'APPOINTMENT_BOOKED',
        durationSeconds: i % 6 === 0 ? null : i * 7,
        ...(i % 5 === 0 ? { channel: 'whatsapp' as const, type: 'CAMPAIGN_OUTBOUND' as const, durationSeconds: null } : {}),
      }),
    );
    await importRows(pool, first, 25);
    await expectRollupExact(pool, [a, b]);

    // Re-import: a third unchanged, a third moved to other days / outcomes / channels, plus new rows.
    const second: Row[] = first.map((r, i) =>
      i % 3 === 0
        ? r
        : i % 3 === 1
          ? { ...r, startedAt: day(10 + (i % 4), 23), outcome: r.outcome === null ? 'OPT_OUT' : null }
          : { ...r, channel: 'whatsapp', type: 'INBOUND', durationSeconds: null, clinicId: r.clinicId === a ? b : a },
    );
    second.push(...Array.from({ length: 15 }, (_, i) => row(a, day(2, i).toISOString(), { durationSeconds: i })));
    await importRows(pool, second, 25);
    await expectRollupExact(pool, [a, b]);

    // The same file again changes nothing.
    const before = await rollupRows(pool, [a, b]);
    await importRows(pool, second, 25);
    expect(await rollupRows(pool, [a, b])).toEqual(before);
  });

  it("follows the seeder's bulk statement, also when a re-seed with another end date moves every row", async () => {
    const seed = `rollup-${randomUUID()}`;
    const seedWith = async (endDate: string) => {
      const data = generateDemoData({ seed, clinics: 2, interactions: 3_000, days: 12, endDate: at(endDate) });
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query('BEGIN');
        await writeDemoData(client, data);
        await client.query('COMMIT');
      } finally {
        await client.end();
      }
      return data.clinics.map((c) => c.id);
    };
    const clinics = await seedWith('2025-06-15T10:00:00.000Z');
    const rollup = await expectRollupExact(pool, clinics);
    expect(rollup.length).toBeGreaterThan(12);
    expect(await seedWith('2025-06-16T22:30:00.000Z')).toEqual(clinics); // same ids, later instants
    expect(await expectRollupExact(pool, clinics)).not.toEqual(rollup);
    const { rows } = await pool.query<{ n: string }>('SELECT sum(interactions)::text AS n FROM interaction_daily_rollups WHERE clinic_id = ANY($1::uuid[])', [
      clinics,
    ]);
    expect(rows[0]?.n).toBe('3000');
  });
});

describe('the metrics and count queries', () => {
  /** The tables a query's plan reads. */
  async function tablesRead(query: Prisma.Sql): Promise<string[]> {
    const { rows } = await pool.query({ text: `EXPLAIN (FORMAT JSON) ${query.text}`, values: query.values as unknown[] });
    const names = new Set<string>();
    const walk = (node: Record<string, unknown>) => {
      if (typeof node['Relation Name'] === 'string') names.add(node['Relation Name']);
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
    };
    walk(rows[0]['QUERY PLAN'][0].Plan);
    return [...names].sort();
  }

  it('read whole months from the monthly level, other full days from the daily level, a window inside a day raw, and all three otherwise', async () => {
    const clinicIds = [randomUUID()];
    const year = { from: at('2025-01-01T00:00:00.000Z'), to: at('2025-12-31T23:59:59.999Z'), clinicIds };
    const days = { from: at('2025-01-02T00:00:00.000Z'), to: at('2025-01-30T23:59:59.999Z'), clinicIds };
    const inside = { from: at('2025-01-01T08:00:00.000Z'), to: at('2025-01-01T20:00:00.000Z'), clinicIds };
    const both = { from: at('2025-01-01T08:00:00.000Z'), to: at('2025-12-31T20:00:00.000Z'), clinicIds };
    // Summary: totals grain, with months.
    expect(await tablesRead(summaryQuery(year))).toEqual(['interaction_month_totals']);
    expect(await tablesRead(summaryQuery(days))).toEqual(['interaction_day_totals']);
    expect(await tablesRead(summaryQuery(inside))).toEqual(['interactions']);
    expect(await tablesRead(summaryQuery(both))).toEqual(['interaction_day_totals', 'interaction_month_totals', 'interactions']);
    // Daily series: one entry per day, so never the monthly level.
    expect(await tablesRead(dailyQuery(year))).toEqual(['interaction_day_totals']);
    expect(await tablesRead(dailyQuery(inside))).toEqual(['interactions']);
    expect(await tablesRead(dailyQuery(both))).toEqual(['interaction_day_totals', 'interactions']);
    // Outcomes: outcome grain.
    expect(await tablesRead(outcomesQuery(year))).toEqual(['interaction_month_outcomes']);
    expect(await tablesRead(outcomesQuery(days))).toEqual(['interaction_daily_rollups']);
    expect(await tablesRead(outcomesQuery(both))).toEqual(['interaction_daily_rollups', 'interaction_month_outcomes', 'interactions']);
    // Without a clinic restriction, full days come from the all-clinics sums.
    const everyClinic = { from: days.from, to: days.to };
    expect(await tablesRead(summaryQuery(everyClinic))).toEqual(['interaction_day_totals_all_clinics']);
    expect(await tablesRead(dailyQuery({ from: year.from, to: year.to, channel: 'voice' }))).toEqual(['interaction_day_totals_all_clinics']);
    // ... and a daily series of everything (no clinic, channel or type) from one row per day.
    expect(await tablesRead(dailyQuery({ from: year.from, to: year.to }))).toEqual(['interaction_days']);
    expect(await tablesRead(dailyQuery({ from: both.from, to: both.to }))).toEqual(['interaction_days', 'interactions']);
    expect(await tablesRead(dailyQuery({ from: inside.from, to: inside.to }))).toEqual(['interactions']);
    expect(await tablesRead(outcomesQuery(everyClinic))).toEqual(['interaction_day_outcomes_all_clinics']);
    expect(await tablesRead(outcomesQuery({ from: both.from, to: both.to }))).toEqual([
      'interaction_day_outcomes_all_clinics',
      'interaction_month_outcomes_all_clinics',
      'interactions',
    ]);
    expect(await tablesRead(summaryQuery({ from: year.from, to: year.to }))).toEqual(['interaction_month_totals_all_clinics']);
    // Counts: the outcome grain only when outcomes are filtered; an undated list reads the monthly level only.
    expect(await tablesRead(countQuery({ from: year.from, to: year.to, outcomes: ['NO_ANSWER'] }, clinicIds)!)).toEqual(['interaction_month_outcomes']);
    expect(await tablesRead(countQuery({ from: both.from, to: both.to, channel: 'voice' }, clinicIds)!)).toEqual([
      'interaction_day_totals',
      'interaction_month_totals',
      'interactions',
    ]);
    expect(await tablesRead(countQuery({}, null)!)).toEqual(['interaction_month_totals_all_clinics']);
    expect(await tablesRead(countQuery({ outcomes: ['NO_ANSWER'] }, null)!)).toEqual(['interaction_month_outcomes_all_clinics']);
    expect(await tablesRead(countQuery({}, clinicIds)!)).toEqual(['interaction_month_totals']);
    expect(await tablesRead(countQuery({ from: inside.from, to: inside.to, channel: 'voice' }, clinicIds)!)).toEqual(['interactions']);
    expect(countQuery({ search: '600' }, clinicIds)).toBeNull(); // not a rollup column: Prisma counts the raw rows
  });
});

describe('interaction_daily_rollups under concurrent writers', () => {
  it('stays exact when two transactions change the same interaction (started_at, outcome) one after the other', async () => {
    const [c] = (await createClinics(pool, 1)) as [string];
    const target = row(c, '2025-07-01T10:00:00.000Z');
    await insertRows(pool, [target, row(c, '2025-07-02T10:00:00.000Z')]);
    const [first, second] = await Promise.all([session(), session()]);
    try {
      await first.query('BEGIN');
      await first.query('UPDATE interactions SET started_at = $2 WHERE id = $1', [target.id, '2025-07-02T11:00:00.000Z']);
      // The second writer blocks on the row, then updates the version the first one committed.
      const blocked = second.query(`UPDATE interactions SET started_at = started_at + interval '2 days', outcome = NULL WHERE id = $1`, [target.id]);
      await waitUntilBlocked(pool, second.pid);
      await first.query('COMMIT');
      await blocked;
      expect(await expectRollupExact(pool, [c])).toEqual([
        `2025-07-02|${c}|voice|INBOUND|inbound|APPOINTMENT_BOOKED|1|1|60`,
        `2025-07-04|${c}|voice|INBOUND|inbound||1|1|60`,
      ]);
    } finally {
      await Promise.all([first.end(), second.end()]);
    }
  });

  it('stays exact when concurrent transactions create the same new key, or refill a key another one empties', async () => {
    const [c] = (await createClinics(pool, 1)) as [string];
    const [first, second] = await Promise.all([session(), session()]);
    try {
      // Both insert into a key that does not exist yet: the second waits on the first's rollup row.
      await first.query('BEGIN');
      await insertRows(first, [row(c, '2025-07-10T10:00:00.000Z')]);
      const blocked = insertRows(second, [row(c, '2025-07-10T11:00:00.000Z')]);
      await waitUntilBlocked(pool, second.pid);
      await first.query('COMMIT');
      await blocked;
      expect(await expectRollupExact(pool, [c])).toEqual([`2025-07-10|${c}|voice|INBOUND|inbound|APPOINTMENT_BOOKED|2|2|120`]);

      // One empties the key (its rollup row is deleted) while another inserts into it.
      await first.query('BEGIN');
      await first.query('DELETE FROM interactions WHERE clinic_id = $1', [c]);
      const refill = insertRows(second, [row(c, '2025-07-10T12:00:00.000Z')]);
      await waitUntilBlocked(pool, second.pid);
      await first.query('COMMIT');
      await refill;
      expect(await expectRollupExact(pool, [c])).toEqual([`2025-07-10|${c}|voice|INBOUND|inbound|APPOINTMENT_BOOKED|1|1|60`]);
    } finally {
      await Promise.all([first.end(), second.end()]);
    }
  });
});

describe('interaction_daily_rollups on a database of its own', () => {
  it('is backfilled by its migrations (every level), emptied by TRUNCATE, recomputed by rebuild(), and refuses an outcome of ""', async () => {
    await withFreshDatabase('rollups', async (url, client) => {
      // Only the migrations before the rollup, then data, then the rest: the backfill sees the data.
      const rest = await migrateUpTo(url, '_daily_rollups');
      await client.connect();
      const clinics = await createClinics(client, 2);
      const rows: Row[] = Array.from({ length: 400 }, (_, i) =>
        row(clinics[i % 2]!, new Date(Date.UTC(2025, 0, 1) + i * 3_600_000 * 7).toISOString(), {
          outcome: i % 3 === 0 ? null : 'NO_ANSWER',
          durationSeconds: i % 4 === 0 ? null : i,
        }),
      );
      await insertRows(client, rows);
      expect(await migrate(url)).toEqual(rest);
      const backfilled = await expectRollupExact(client, clinics);
      expect(backfilled.length).toBeGreaterThan(100);

      // TRUNCATE (CASCADE: transcripts refer to interactions) empties every level.
      await client.query('TRUNCATE interactions CASCADE');
      expect(await rollupRows(client, clinics)).toEqual([]);
      const { rows: levels } = await client.query<{ n: string }>(
        `SELECT ((SELECT count(*) FROM interaction_day_totals) + (SELECT count(*) FROM interaction_month_totals)
                + (SELECT count(*) FROM interaction_month_outcomes) + (SELECT count(*) FROM interaction_day_totals_all_clinics)
                + (SELECT count(*) FROM interaction_day_outcomes_all_clinics) + (SELECT count(*) FROM interaction_month_totals_all_clinics)
                + (SELECT count(*) FROM interaction_month_outcomes_all_clinics) + (SELECT count(*) FROM interaction_days))::text AS n`,
      );
      expect(levels[0]?.n).toBe('0');

      // A load with the triggers disabled leaves the rollup behind; rebuild() recomputes it.
      await client.query('ALTER TABLE interactions DISABLE TRIGGER USER');
      await insertRows(client, rows);
      await client.query('ALTER TABLE interactions ENABLE TRIGGER USER');
      expect(await rollupRows(client, clinics)).toEqual([]);
      // interaction_rollups_rebuild() recomputes every level (the daily rollup, then the coarser ones).
      const { rows: rebuilt } = await client.query<{ n: string }>('SELECT interaction_rollups_rebuild()::text AS n');
      expect(Number(rebuilt[0]?.n)).toBeGreaterThan(backfilled.length);
      expect(await expectRollupExact(client, clinics)).toEqual(backfilled);

      // '' would be indistinguishable from "no outcome" in the rollup.
      await expect(insertRows(client, [row(clinics[0]!, '2025-02-01T00:00:00.000Z', { outcome: '' })])).rejects.toThrow(/interactions_outcome_not_empty/);
    });
  });
});
