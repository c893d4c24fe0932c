// The campaign and duration levels (prisma/migrations/*_campaign_and_duration_levels):
// interaction_campaign_days / _months (the outcome grain with the campaign as one more key, '' for
// none) and the histogram of voice-call durations interaction_duration_days / _months with their
// all-clinics twins; and the campaign totals grain per day, month and UTC quarter hour
// (*_campaign_totals_levels, *_quarter_totals). After every kind of write to `interactions` (INSERT, UPDATE of every counted
// column, cascades from campaigns and clinics, DELETE, the importer's upserts, TRUNCATE, writes with
// the triggers off and the rebuild) each level equals a GROUP BY over the raw rows, and holds the
// numbers worked out here by hand. Also the two CHECKs the migration adds.
//
// Everything runs on a database of its own, created for the file and dropped afterwards: the
// all-clinics twins sum every clinic, other files write into the run's database meanwhile, and the
// last tests TRUNCATE and write with the triggers off. So whole tables are compared; each test uses
// days of its own for its hand-worked numbers.
//
// The reference buckets are spelled independently of interaction_duration_bucket(): 10 s wide below
// 600 (d / 10), 60 s wide below 3600 (60 + (d - 600) / 60 = 50 + d / 60), then 110.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { BatchWriter } from '../../src/importer/write.js';
import { createClinics, expectRollupExact, newId, type Row as PlainRow, toRecord, waitUntilBlocked } from '../analytics/rollup-support.js';
import { migrateUpTo, withFreshDatabase } from '../helpers/db.js';

interface Row extends PlainRow {
  campaignId: string | null;
}

/** One plain multi-row INSERT, campaigns included. */
async function insertRows(q: pg.Pool | pg.ClientBase, rows: readonly Row[]): Promise<void> {
  if (rows.length === 0) return;
  await q.query(
    `INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, campaign_id, started_at, duration_seconds, outcome)
     SELECT id, channel, type, CASE WHEN type = 'INBOUND' THEN 'inbound' ELSE 'outbound' END::"Direction", '+34 600 000 003', clinic_id,
            campaign_id, started_at, duration_seconds, outcome
     FROM unnest($1::text[], $2::"Channel"[], $3::"InteractionType"[], $4::uuid[], $5::text[], $6::timestamptz[], $7::int[], $8::text[])
       AS t(id, channel, type, clinic_id, campaign_id, started_at, duration_seconds, outcome)`,
    [
      rows.map((r) => r.id),
      rows.map((r) => r.channel),
      rows.map((r) => r.type),
      rows.map((r) => r.clinicId),
      rows.map((r) => r.campaignId),
      rows.map((r) => r.startedAt.toISOString()),
      rows.map((r) => r.durationSeconds),
      rows.map((r) => r.outcome),
    ],
  );
}

/** Upserts exactly as `cli import` does (multi-row INSERT ... ON CONFLICT (id) DO UPDATE), campaigns included. */
async function importRows(p: pg.Pool, rows: readonly Row[], batchSize: number): Promise<void> {
  const client = await p.connect();
  try {
    await client.query('BEGIN');
    const writer = new BatchWriter(client, 'interactions', batchSize);
    for (const row of rows) {
      writer.push({ ...toRecord(row), campaign_id: row.campaignId });
      if (writer.full) await writer.send();
    }
    await writer.finish();
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** `n` campaigns of a clinic, created with plain SQL. */
async function createCampaigns(q: pg.Pool | pg.ClientBase, clinicId: string, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => `cmp_dim_${randomUUID().replaceAll('-', '').slice(0, 12)}`);
  await q.query(
    `INSERT INTO campaigns (id, name, description, type, channel, status, clinic_id)
     SELECT id, 'Dimension levels test', 'made by a test', 'reactivation', 'voice', 'active', $2 FROM unnest($1::text[]) AS id`,
    [ids, clinicId],
  );
  return ids;
}

function row(clinicId: string, campaignId: string | null, startedAt: string, data: Partial<Row> = {}): Row {
  return {
    id: newId(),
    clinicId,
    campaignId,
    channel: 'voice',
    type: 'INBOUND',
    startedAt: new Date(startedAt),
    durationSeconds: 60,
    outcome: 'APPOINTMENT_BOOKED',
    ...data,
  };
}

/** The whatsapp conversation of a row (a duration that must count nowhere, unless given null). */
const whatsapp = (data: Partial<Row> = {}): Partial<Row> => ({ channel: 'whatsapp', type: 'APPOINTMENT_REMINDER', durationSeconds: null, ...data });

interface Measures {
  interactions: number;
  timed_calls: number;
  duration_sum: number;
}
/** A row of the campaign totals levels (the outcome folded into counts). */
interface TotalsMeasures extends Measures {
  with_outcome: number;
  successful: number;
  booked: number;
}
/** A level's rows by key: `day|clinic|campaign|channel|type|direction|outcome` (measures) or `day|clinic|campaign|type|bucket` (calls). */
type Level<T> = Record<string, T>;
interface Levels {
  campaignDays: Level<Measures>;
  campaignMonths: Level<Measures>;
  durationDays: Level<number>;
  durationMonths: Level<number>;
  durationDaysAll: Level<number>;
  durationMonthsAll: Level<number>;
  campaignDayTotals: Level<TotalsMeasures>;
  campaignMonthTotals: Level<TotalsMeasures>;
  quarterTotals: Level<TotalsMeasures>;
}
const LEVEL_NAMES: Record<keyof Levels, string> = {
  campaignDays: 'interaction_campaign_days',
  campaignMonths: 'interaction_campaign_months',
  durationDays: 'interaction_duration_days',
  durationMonths: 'interaction_duration_months',
  durationDaysAll: 'interaction_duration_days_all_clinics',
  durationMonthsAll: 'interaction_duration_months_all_clinics',
  campaignDayTotals: 'interaction_campaign_day_totals',
  campaignMonthTotals: 'interaction_campaign_month_totals',
  quarterTotals: 'interaction_quarter_totals',
};

const m = (interactions: number, timed_calls = 0, duration_sum = 0): Measures => ({ interactions, timed_calls, duration_sum });

const date = (column: string) => `to_char(${column}, 'YYYY-MM-DD')`;

/** A UTC wall time to the second: a quarter stored off its boundary (10:15:30) differs from the reference. */
const quarterKey = (column: string) => `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS')`;

const STORED_TOTALS = 'interactions, with_outcome, successful, booked, timed_calls, duration_sum';
const TOTALS_NONZERO = 'interactions <> 0 OR with_outcome <> 0 OR successful <> 0 OR booked <> 0 OR timed_calls <> 0 OR duration_sum <> 0';

/** The stored rows, without those whose measures are all 0 (kept by design). */
const STORED: Record<keyof Levels, string> = {
  campaignDays: `SELECT concat_ws('|', ${date('day')}, clinic_id, campaign_id, channel, type, direction, outcome) AS key, interactions, timed_calls, duration_sum
                 FROM interaction_campaign_days WHERE interactions <> 0 OR timed_calls <> 0 OR duration_sum <> 0`,
  campaignMonths: `SELECT concat_ws('|', ${date('month')}, clinic_id, campaign_id, channel, type, direction, outcome) AS key, interactions, timed_calls, duration_sum
                   FROM interaction_campaign_months WHERE interactions <> 0 OR timed_calls <> 0 OR duration_sum <> 0`,
  durationDays: `SELECT concat_ws('|', ${date('day')}, clinic_id, campaign_id, type, bucket) AS key, calls FROM interaction_duration_days WHERE calls <> 0`,
  durationMonths: `SELECT concat_ws('|', ${date('month')}, clinic_id, campaign_id, type, bucket) AS key, calls FROM interaction_duration_months WHERE calls <> 0`,
  durationDaysAll: `SELECT concat_ws('|', ${date('day')}, type, bucket) AS key, calls FROM interaction_duration_days_all_clinics WHERE calls <> 0`,
  durationMonthsAll: `SELECT concat_ws('|', ${date('month')}, type, bucket) AS key, calls FROM interaction_duration_months_all_clinics WHERE calls <> 0`,
  campaignDayTotals: `SELECT concat_ws('|', ${date('day')}, clinic_id, campaign_id, channel, type, direction) AS key, ${STORED_TOTALS}
                      FROM interaction_campaign_day_totals WHERE ${TOTALS_NONZERO}`,
  campaignMonthTotals: `SELECT concat_ws('|', ${date('month')}, clinic_id, campaign_id, channel, type, direction) AS key, ${STORED_TOTALS}
                        FROM interaction_campaign_month_totals WHERE ${TOTALS_NONZERO}`,
  quarterTotals: `SELECT concat_ws('|', ${quarterKey(`quarter AT TIME ZONE 'UTC'`)}, clinic_id, campaign_id, channel, type, direction) AS key, ${STORED_TOTALS}
                  FROM interaction_quarter_totals WHERE ${TOTALS_NONZERO}`,
};

/** What the levels must hold: GROUP BYs over the raw table (UTC days and months, '' for no campaign or outcome). */
const RAW = `(SELECT *, (started_at AT TIME ZONE 'UTC')::date AS d, date_trunc('month', started_at AT TIME ZONE 'UTC')::date AS mo,
                     coalesce(campaign_id, '') AS cmp, coalesce(outcome, '') AS oc,
                     CASE WHEN duration_seconds >= 3600 THEN 110 WHEN duration_seconds >= 600 THEN 50 + duration_seconds / 60
                          ELSE duration_seconds / 10 END AS b
              FROM interactions) AS raw`;
const MEASURES = `count(*) AS interactions, count(duration_seconds) FILTER (WHERE channel = 'voice') AS timed_calls,
                  coalesce(sum(duration_seconds) FILTER (WHERE channel = 'voice'), 0) AS duration_sum`;
// (the metrics' definitions spelled out again, as a reference: successful = booked, modified or cancelled)
const OUTCOME_COUNTS = `count(outcome) AS with_outcome,
                        count(*) FILTER (WHERE outcome IN ('APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED')) AS successful,
                        count(*) FILTER (WHERE outcome = 'APPOINTMENT_BOOKED') AS booked`;
const CALLS = `FROM ${RAW} WHERE channel = 'voice' AND duration_seconds IS NOT NULL`;
const GROUPED: Record<keyof Levels, string> = {
  campaignDays: `SELECT concat_ws('|', ${date('d')}, clinic_id, cmp, channel, type, direction, oc) AS key, ${MEASURES}
                 FROM ${RAW} GROUP BY d, clinic_id, cmp, channel, type, direction, oc`,
  campaignMonths: `SELECT concat_ws('|', ${date('mo')}, clinic_id, cmp, channel, type, direction, oc) AS key, ${MEASURES}
                   FROM ${RAW} GROUP BY mo, clinic_id, cmp, channel, type, direction, oc`,
  durationDays: `SELECT concat_ws('|', ${date('d')}, clinic_id, cmp, type, b) AS key, count(*) AS calls ${CALLS} GROUP BY d, clinic_id, cmp, type, b`,
  durationMonths: `SELECT concat_ws('|', ${date('mo')}, clinic_id, cmp, type, b) AS key, count(*) AS calls ${CALLS} GROUP BY mo, clinic_id, cmp, type, b`,
  durationDaysAll: `SELECT concat_ws('|', ${date('d')}, type, b) AS key, count(*) AS calls ${CALLS} GROUP BY d, type, b`,
  durationMonthsAll: `SELECT concat_ws('|', ${date('mo')}, type, b) AS key, count(*) AS calls ${CALLS} GROUP BY mo, type, b`,
  campaignDayTotals: `SELECT concat_ws('|', ${date('d')}, clinic_id, cmp, channel, type, direction) AS key, ${MEASURES}, ${OUTCOME_COUNTS}
                      FROM ${RAW} GROUP BY d, clinic_id, cmp, channel, type, direction`,
  campaignMonthTotals: `SELECT concat_ws('|', ${date('mo')}, clinic_id, cmp, channel, type, direction) AS key, ${MEASURES}, ${OUTCOME_COUNTS}
                        FROM ${RAW} GROUP BY mo, clinic_id, cmp, channel, type, direction`,
  // (the quarter hour without date_bin: the UTC hour plus whole quarters of its minutes)
  quarterTotals: `SELECT concat_ws('|', ${quarterKey('qh')}, clinic_id, cmp, channel, type, direction) AS key, ${MEASURES}, ${OUTCOME_COUNTS}
                  FROM (SELECT *, date_trunc('hour', started_at AT TIME ZONE 'UTC')
                                  + floor(extract(minute FROM started_at AT TIME ZONE 'UTC') / 15) * interval '15 minutes' AS qh
                        FROM ${RAW}) AS quarters
                  GROUP BY qh, clinic_id, cmp, channel, type, direction`,
};

const LEVEL_KEYS = Object.keys(LEVEL_NAMES) as Array<keyof Levels>;

function toLevel(rows: Record<string, unknown>[], measures: boolean, totals: boolean): Level<Measures> | Level<TotalsMeasures> | Level<number> {
  const level: Record<string, Measures | TotalsMeasures | number> = {};
  for (const r of rows) {
    const measured = m(Number(r.interactions), Number(r.timed_calls), Number(r.duration_sum));
    level[r.key as string] = totals
      ? { ...measured, with_outcome: Number(r.with_outcome), successful: Number(r.successful), booked: Number(r.booked) }
      : measures
        ? measured
        : Number(r.calls);
  }
  return level as Level<Measures> | Level<number>;
}

/**
 * The stored levels and their GROUP BYs, read in one snapshot (`inTransaction`: by a client whose
 * transaction is open, which then sees its own writes).
 */
async function readLevels(q: pg.Pool | pg.ClientBase, inTransaction = false): Promise<{ stored: Levels; grouped: Levels }> {
  const client = q instanceof pg.Pool ? await q.connect() : q;
  try {
    if (!inTransaction) await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const stored = {} as Record<keyof Levels, unknown>;
    const grouped = {} as Record<keyof Levels, unknown>;
    for (const level of LEVEL_KEYS) {
      const measures = level.startsWith('campaign');
      const totals = level.endsWith('Totals');
      stored[level] = toLevel((await client.query(STORED[level])).rows, measures, totals);
      grouped[level] = toLevel((await client.query(GROUPED[level])).rows, measures, totals);
    }
    if (!inTransaction) await client.query('COMMIT');
    return { stored: stored as unknown as Levels, grouped: grouped as unknown as Levels };
  } catch (error) {
    if (!inTransaction) await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    if (q instanceof pg.Pool) (client as pg.PoolClient).release();
  }
}

/** Asserts that each level equals its GROUP BY over the whole raw table; returns the levels. */
async function expectExact(q: pg.Pool | pg.ClientBase, step = '', inTransaction = false): Promise<Levels> {
  const { stored, grouped } = await readLevels(q, inTransaction);
  for (const level of LEVEL_KEYS) expect(stored[level], `${LEVEL_NAMES[level]} ${step}`).toEqual(grouped[level]);
  return stored;
}

/** The rows of `levels` whose key starts with one of `prefixes` (a test's own days or months). */
/**
 * The rows of the levels whose key starts with one of `prefixes`. The hand-worked expectations are
 * of the outcome grain and the histograms; the campaign and quarter totals (later migrations) are checked
 * against their GROUP BY by expectExact, and hand-worked once, in the backfill test.
 */
type HandWorked = Omit<Levels, 'campaignDayTotals' | 'campaignMonthTotals' | 'quarterTotals'>;
function within(levels: Levels, ...prefixes: string[]): HandWorked {
  const pick = <T>(level: Level<T>) => Object.fromEntries(Object.entries(level).filter(([key]) => prefixes.some((p) => key.startsWith(p))));
  const { campaignDayTotals: _days, campaignMonthTotals: _months, quarterTotals: _quarters, ...handWorked } = levels;
  return Object.fromEntries(Object.entries(handWorked).map(([k, level]) => [k, pick(level as Level<unknown>)])) as unknown as HandWorked;
}

const EMPTY: Levels = {
  campaignDays: {},
  campaignMonths: {},
  durationDays: {},
  durationMonths: {},
  durationDaysAll: {},
  durationMonthsAll: {},
  campaignDayTotals: {},
  campaignMonthTotals: {},
  quarterTotals: {},
};

/** The versions (xmin) of every row of the levels (all by default), to see which rows a statement wrote. */
async function versions(q: pg.Pool, levels: ReadonlyArray<keyof Levels> = LEVEL_KEYS): Promise<string[]> {
  const parts = levels.map((k) => `SELECT '${k}' || (t.*)::text || t.xmin::text AS v FROM ${LEVEL_NAMES[k]} AS t`);
  const { rows } = await q.query<{ v: string }>(parts.join(' UNION ALL '));
  return rows.map((r) => r.v).sort();
}

async function levelRowCount(q: pg.Pool | pg.ClientBase): Promise<number> {
  const { rows } = await q.query<{ n: string }>(`SELECT (${LEVEL_KEYS.map((k) => `(SELECT count(*) FROM ${LEVEL_NAMES[k]})`).join(' + ')})::text AS n`);
  return Number(rows[0]!.n);
}

// The file's database: the migrations before this one, rows, then the migration (its backfill counts them).
let url = '';
let pool: pg.Pool;
const backfilled: { clinics: string[]; campaigns: string[] } = { clinics: [], campaigns: [] };
let release: () => void = () => {};
let closed: Promise<void> | undefined;

beforeAll(async () => {
  let opened!: () => void;
  const ready = new Promise<void>((resolve) => {
    opened = resolve;
  });
  closed = withFreshDatabase('dimension_levels', async (freshUrl, client) => {
    const rest = await migrateUpTo(freshUrl, '_campaign_and_duration_levels');
    await client.connect();
    const [a, b] = (await createClinics(client, 2)) as [string, string];
    const [ca1, ca2] = (await createCampaigns(client, a, 2)) as [string, string];
    const [cb1] = (await createCampaigns(client, b, 1)) as [string];
    backfilled.clinics = [a, b];
    backfilled.campaigns = [ca1, ca2, cb1];
    await insertRows(client, [
      // The year's last millisecond and the next year's first one.
      row(a, ca1, '2024-12-31T23:59:59.999Z', { durationSeconds: 0 }),
      row(a, null, '2025-01-01T00:00:00.000Z', { type: 'CAMPAIGN_OUTBOUND', durationSeconds: 3600, outcome: null }),
      row(b, cb1, '2025-01-01T00:00:00.000Z', whatsapp({ outcome: 'NO_ANSWER' })),
      row(a, ca2, '2025-01-01T12:00:00.000Z', { type: 'CAMPAIGN_CALLBACK', durationSeconds: 599 }),
      // Many days of November.
      ...Array.from({ length: 300 }, (_, i) =>
        row(i % 3 ? a : b, i % 3 ? [ca1, ca2, null][i % 3]! : i % 2 ? cb1 : null, new Date(Date.UTC(2024, 10, 1) + i * 7_919_000).toISOString(), {
          outcome: i % 4 === 0 ? null : i % 4 === 1 ? 'NO_ANSWER' : 'APPOINTMENT_MODIFIED',
          durationSeconds: i % 5 === 0 ? null : i * 17,
          ...(i % 7 === 0 ? whatsapp({ type: 'CAMPAIGN_OUTBOUND' }) : {}),
        }),
      ),
    ]);
    const applied = await migrate(freshUrl);
    expect(applied).toEqual(rest);
    expect(applied[0]).toMatch(/_campaign_and_duration_levels$/);
    url = freshUrl;
    pool = new pg.Pool({ connectionString: freshUrl, max: 4 });
    opened();
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    await pool.end();
  });
  await Promise.race([ready, closed]);
  if (!url) throw new Error('the database of the file was not set up');
});

afterAll(async () => {
  release();
  await closed;
});

/** A connection of its own to the file's database (a concurrent writer), with its backend pid. */
async function session(options?: string): Promise<pg.Client & { pid: number }> {
  const client = new pg.Client({ connectionString: url, ...(options ? { options } : {}) });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return Object.assign(client, { pid: rows[0]!.pid });
}

describe('the campaign and duration levels, maintained by triggers', () => {
  it("are backfilled by their migration from the rows already there, across a year's last and first milliseconds", async () => {
    const [a, b] = backfilled.clinics as [string, string];
    const [ca1, ca2, cb1] = backfilled.campaigns as [string, string, string];
    const levels = await expectExact(pool);
    const inNovember = within(levels, '2024-11');
    expect(Object.values(inNovember.campaignDays).reduce((s, x) => s + x.interactions, 0)).toBe(300);
    expect(Object.keys(inNovember.durationDays).length).toBeGreaterThan(100);
    expect(within(levels, '2024-12', '2025-01')).toEqual({
      campaignDays: {
        [`2024-12-31|${a}|${ca1}|voice|INBOUND|inbound|APPOINTMENT_BOOKED`]: m(1, 1, 0),
        [`2025-01-01|${a}||voice|CAMPAIGN_OUTBOUND|outbound|`]: m(1, 1, 3600),
        [`2025-01-01|${b}|${cb1}|whatsapp|APPOINTMENT_REMINDER|outbound|NO_ANSWER`]: m(1),
        [`2025-01-01|${a}|${ca2}|voice|CAMPAIGN_CALLBACK|outbound|APPOINTMENT_BOOKED`]: m(1, 1, 599),
      },
      campaignMonths: {
        [`2024-12-01|${a}|${ca1}|voice|INBOUND|inbound|APPOINTMENT_BOOKED`]: m(1, 1, 0),
        [`2025-01-01|${a}||voice|CAMPAIGN_OUTBOUND|outbound|`]: m(1, 1, 3600),
        [`2025-01-01|${b}|${cb1}|whatsapp|APPOINTMENT_REMINDER|outbound|NO_ANSWER`]: m(1),
        [`2025-01-01|${a}|${ca2}|voice|CAMPAIGN_CALLBACK|outbound|APPOINTMENT_BOOKED`]: m(1, 1, 599),
      },
      durationDays: {
        [`2024-12-31|${a}|${ca1}|INBOUND|0`]: 1,
        [`2025-01-01|${a}||CAMPAIGN_OUTBOUND|110`]: 1,
        [`2025-01-01|${a}|${ca2}|CAMPAIGN_CALLBACK|59`]: 1,
      },
      durationMonths: {
        [`2024-12-01|${a}|${ca1}|INBOUND|0`]: 1,
        [`2025-01-01|${a}||CAMPAIGN_OUTBOUND|110`]: 1,
        [`2025-01-01|${a}|${ca2}|CAMPAIGN_CALLBACK|59`]: 1,
      },
      durationDaysAll: { '2024-12-31|INBOUND|0': 1, '2025-01-01|CAMPAIGN_OUTBOUND|110': 1, '2025-01-01|CAMPAIGN_CALLBACK|59': 1 },
      durationMonthsAll: { '2024-12-01|INBOUND|0': 1, '2025-01-01|CAMPAIGN_OUTBOUND|110': 1, '2025-01-01|CAMPAIGN_CALLBACK|59': 1 },
    });
    // The campaign totals (the next migration's backfill): the outcome folded into counts.
    const totals = (level: Level<TotalsMeasures>, ...prefixes: string[]) =>
      Object.fromEntries(Object.entries(level).filter(([key]) => prefixes.some((p) => key.startsWith(p))));
    const t = (interactions: number, timed: number, duration: number, withOutcome: number, successful: number, booked: number): TotalsMeasures => ({
      ...m(interactions, timed, duration),
      with_outcome: withOutcome,
      successful,
      booked,
    });
    expect(totals(levels.campaignDayTotals, '2024-12', '2025-01')).toEqual({
      [`2024-12-31|${a}|${ca1}|voice|INBOUND|inbound`]: t(1, 1, 0, 1, 1, 1),
      [`2025-01-01|${a}||voice|CAMPAIGN_OUTBOUND|outbound`]: t(1, 1, 3600, 0, 0, 0),
      [`2025-01-01|${b}|${cb1}|whatsapp|APPOINTMENT_REMINDER|outbound`]: t(1, 0, 0, 1, 0, 0),
      [`2025-01-01|${a}|${ca2}|voice|CAMPAIGN_CALLBACK|outbound`]: t(1, 1, 599, 1, 1, 1),
    });
    expect(totals(levels.campaignMonthTotals, '2024-12', '2025-01')).toEqual({
      [`2024-12-01|${a}|${ca1}|voice|INBOUND|inbound`]: t(1, 1, 0, 1, 1, 1),
      [`2025-01-01|${a}||voice|CAMPAIGN_OUTBOUND|outbound`]: t(1, 1, 3600, 0, 0, 0),
      [`2025-01-01|${b}|${cb1}|whatsapp|APPOINTMENT_REMINDER|outbound`]: t(1, 0, 0, 1, 0, 0),
      [`2025-01-01|${a}|${ca2}|voice|CAMPAIGN_CALLBACK|outbound`]: t(1, 1, 599, 1, 1, 1),
    });
    const november = totals(levels.campaignMonthTotals, '2024-11');
    expect(Object.values(november).reduce((sum, x) => sum + x.interactions, 0)).toBe(300);
    expect(Object.values(november).reduce((sum, x) => sum + x.successful, 0)).toBe(150); // i % 4 in {2, 3}: APPOINTMENT_MODIFIED
    // The other levels, after this migration's backfill, too.
    await expectRollupExact(pool, backfilled.clinics);
  });

  it("count INSERTs per UTC day and month whatever the writer's TimeZone, with every bucket edge (0, 9, 10, 599, 600, 659, 660, 3599, 3600, 2^31 - 1) and voice durations only", async () => {
    const [a, b] = (await createClinics(pool, 2)) as [string, string];
    const [ca] = (await createCampaigns(pool, a, 1)) as [string];
    const [cb] = (await createCampaigns(pool, b, 1)) as [string];
    const writer = await session('-c TimeZone=Pacific/Chatham'); // +13:45 in March: local days and months are not UTC ones
    try {
      await insertRows(writer, [
        ...[0, 9, 10, 599, 600, 659, 660, 3599, 3600].map((d) => row(a, ca, '2025-03-31T23:59:59.999Z', { durationSeconds: d })),
        // Two of the longest calls: their sum needs more than 32 bits.
        row(a, ca, '2025-03-31T12:00:00.000Z', { durationSeconds: 2147483647 }),
        row(b, cb, '2025-03-31T00:00:00.000Z', { durationSeconds: 2147483647, outcome: null }),
        // No duration: counted, not timed, in no bucket.
        row(a, null, '2025-04-01T00:00:00.000Z', { type: 'FORM_OUTBOUND', durationSeconds: null, outcome: 'NO_ANSWER' }),
        // A conversation's duration counts nowhere.
        row(b, null, '2025-04-01T00:00:00.000Z', whatsapp({ durationSeconds: 500 })),
        row(b, cb, '2025-04-01T08:00:00.000Z', { type: 'CAMPAIGN_OUTBOUND', durationSeconds: 10 }),
      ]);
      await expectExact(pool);
      // One more row into existing keys, written as a local time (2025-04-01T08:00:00.000Z).
      await writer.query(
        `INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, campaign_id, started_at, duration_seconds, outcome)
         VALUES ($1, 'voice', 'CAMPAIGN_OUTBOUND', 'outbound', '+34 600 000 002', $2, $3, '2025-04-01 21:45:00', 19, 'APPOINTMENT_BOOKED')`,
        [newId(), b, cb],
      );
    } finally {
      await writer.end();
    }
    const levels = within(await expectExact(pool), '2025-03', '2025-04');
    const booked = 'APPOINTMENT_BOOKED';
    expect(levels.campaignDays).toEqual({
      [`2025-03-31|${a}|${ca}|voice|INBOUND|inbound|${booked}`]: m(10, 10, 0 + 9 + 10 + 599 + 600 + 659 + 660 + 3599 + 3600 + 2147483647),
      [`2025-03-31|${b}|${cb}|voice|INBOUND|inbound|`]: m(1, 1, 2147483647),
      [`2025-04-01|${a}||voice|FORM_OUTBOUND|outbound|NO_ANSWER`]: m(1),
      [`2025-04-01|${b}||whatsapp|APPOINTMENT_REMINDER|outbound|${booked}`]: m(1),
      [`2025-04-01|${b}|${cb}|voice|CAMPAIGN_OUTBOUND|outbound|${booked}`]: m(2, 2, 29),
    });
    expect(levels.campaignMonths).toEqual({
      [`2025-03-01|${a}|${ca}|voice|INBOUND|inbound|${booked}`]: m(10, 10, 2147483647 + 9736),
      [`2025-03-01|${b}|${cb}|voice|INBOUND|inbound|`]: m(1, 1, 2147483647),
      [`2025-04-01|${a}||voice|FORM_OUTBOUND|outbound|NO_ANSWER`]: m(1),
      [`2025-04-01|${b}||whatsapp|APPOINTMENT_REMINDER|outbound|${booked}`]: m(1),
      [`2025-04-01|${b}|${cb}|voice|CAMPAIGN_OUTBOUND|outbound|${booked}`]: m(2, 2, 29),
    });
    expect(levels.durationDays).toEqual({
      [`2025-03-31|${a}|${ca}|INBOUND|0`]: 2, // 0 and 9
      [`2025-03-31|${a}|${ca}|INBOUND|1`]: 1, // 10
      [`2025-03-31|${a}|${ca}|INBOUND|59`]: 1, // 599
      [`2025-03-31|${a}|${ca}|INBOUND|60`]: 2, // 600 and 659
      [`2025-03-31|${a}|${ca}|INBOUND|61`]: 1, // 660
      [`2025-03-31|${a}|${ca}|INBOUND|109`]: 1, // 3599
      [`2025-03-31|${a}|${ca}|INBOUND|110`]: 2, // 3600 and 2^31 - 1
      [`2025-03-31|${b}|${cb}|INBOUND|110`]: 1,
      [`2025-04-01|${b}|${cb}|CAMPAIGN_OUTBOUND|1`]: 2, // 10 and 19
    });
    expect(levels.durationMonths).toEqual(
      Object.fromEntries(Object.entries(levels.durationDays).map(([key, calls]) => [key.replace(/^2025-03-31/, '2025-03-01'), calls])),
    );
    expect(levels.durationDaysAll).toEqual({
      '2025-03-31|INBOUND|0': 2,
      '2025-03-31|INBOUND|1': 1,
      '2025-03-31|INBOUND|59': 1,
      '2025-03-31|INBOUND|60': 2,
      '2025-03-31|INBOUND|61': 1,
      '2025-03-31|INBOUND|109': 1,
      '2025-03-31|INBOUND|110': 3,
      '2025-04-01|CAMPAIGN_OUTBOUND|1': 2,
    });
    expect(levels.durationMonthsAll).toEqual(
      Object.fromEntries(Object.entries(levels.durationDaysAll).map(([key, calls]) => [key.replace(/^2025-03-31/, '2025-03-01'), calls])),
    );
  });

  it('move counts between keys on UPDATEs of started_at (across days and months), campaign, outcome, duration, channel, type and clinic', async () => {
    const [a, b] = (await createClinics(pool, 2)) as [string, string];
    const [ca1, ca2] = (await createCampaigns(pool, a, 2)) as [string, string];
    const [cb] = (await createCampaigns(pool, b, 1)) as [string];
    const rows = [
      row(a, ca1, '2025-05-31T23:59:59.999Z', { durationSeconds: 45 }),
      row(a, null, '2025-05-15T10:00:00.000Z', { durationSeconds: 3600, outcome: null }),
      row(a, ca2, '2025-05-15T10:00:00.000Z', whatsapp({ outcome: 'NO_ANSWER' })),
      row(b, cb, '2025-06-01T00:00:00.000Z', { type: 'CAMPAIGN_CALLBACK', durationSeconds: null }),
    ];
    await insertRows(pool, rows);
    await expectExact(pool);
    const [r0, r1, r2, r3] = rows.map((r) => r.id) as [string, string, string, string];
    const updates: Array<[string, unknown[]]> = [
      // Across a month by one millisecond and back, then across a day within the month.
      ['UPDATE interactions SET started_at = $2 WHERE id = $1', [r0, '2025-06-01T00:00:00.000Z']],
      ['UPDATE interactions SET started_at = $2 WHERE id = $1', [r0, '2025-05-31T23:59:59.999Z']],
      ['UPDATE interactions SET started_at = $2 WHERE id = $1', [r1, '2025-05-16T00:00:00.000Z']],
      // Campaign: to another one, to none, from none.
      ['UPDATE interactions SET campaign_id = $2 WHERE id = $1', [r0, ca2]],
      ['UPDATE interactions SET campaign_id = NULL WHERE id = $1', [r2]],
      ['UPDATE interactions SET campaign_id = $2 WHERE id = $1', [r1, ca1]],
      // Outcome: none to some, some to none, one to another.
      ["UPDATE interactions SET outcome = 'APPOINTMENT_CANCELLED' WHERE id = $1", [r1]],
      ['UPDATE interactions SET outcome = NULL WHERE id = $1', [r0]],
      ["UPDATE interactions SET outcome = 'OPT_OUT' WHERE id = $1", [r2]],
      // Duration: within a bucket (45 -> 49), across buckets (-> 600, -> 3599, -> 2^31 - 1), to none and back.
      ['UPDATE interactions SET duration_seconds = 49 WHERE id = $1', [r0]],
      ['UPDATE interactions SET duration_seconds = 600 WHERE id = $1', [r0]],
      ['UPDATE interactions SET duration_seconds = 3599 WHERE id = $1', [r0]],
      ['UPDATE interactions SET duration_seconds = 2147483647 WHERE id = $1', [r1]],
      ['UPDATE interactions SET duration_seconds = NULL WHERE id = $1', [r1]],
      ['UPDATE interactions SET duration_seconds = 0 WHERE id = $1', [r1]],
      // A conversation becomes a call with a duration; a timed call becomes a conversation (its duration stays but stops counting).
      ["UPDATE interactions SET channel = 'voice', type = 'INBOUND', direction = 'inbound', duration_seconds = 30 WHERE id = $1", [r2]],
      ["UPDATE interactions SET channel = 'whatsapp', type = 'APPOINTMENT_REMINDER', direction = 'outbound' WHERE id = $1", [r0]],
      // Type only.
      ["UPDATE interactions SET type = 'FORM_OUTBOUND', direction = 'outbound' WHERE id = $1", [r2]],
      // Another clinic: with no campaign, and with a campaign of the new clinic in the same statement.
      ['UPDATE interactions SET clinic_id = $2 WHERE id = $1', [r2, b]],
      ['UPDATE interactions SET clinic_id = $2, campaign_id = $3 WHERE id = $1', [r1, b, cb]],
      ['UPDATE interactions SET duration_seconds = 700 WHERE id = $1', [r3]],
      // Every row one month later, in one statement.
      [
        `UPDATE interactions SET started_at = ((started_at AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC' WHERE id = ANY($1::text[])`,
        [[r0, r1, r2, r3]],
      ],
    ];
    for (const [i, [text, values]] of updates.entries()) {
      await pool.query(text, values);
      await expectExact(pool, `after update ${i}: ${text}`);
    }
    const expected: HandWorked = {
      campaignDays: {
        [`2025-06-30|${a}|${ca2}|whatsapp|APPOINTMENT_REMINDER|outbound|`]: m(1),
        [`2025-06-16|${b}|${cb}|voice|INBOUND|inbound|APPOINTMENT_CANCELLED`]: m(1, 1, 0),
        [`2025-06-15|${b}||voice|FORM_OUTBOUND|outbound|OPT_OUT`]: m(1, 1, 30),
        [`2025-07-01|${b}|${cb}|voice|CAMPAIGN_CALLBACK|outbound|APPOINTMENT_BOOKED`]: m(1, 1, 700),
      },
      campaignMonths: {
        [`2025-06-01|${a}|${ca2}|whatsapp|APPOINTMENT_REMINDER|outbound|`]: m(1),
        [`2025-06-01|${b}|${cb}|voice|INBOUND|inbound|APPOINTMENT_CANCELLED`]: m(1, 1, 0),
        [`2025-06-01|${b}||voice|FORM_OUTBOUND|outbound|OPT_OUT`]: m(1, 1, 30),
        [`2025-07-01|${b}|${cb}|voice|CAMPAIGN_CALLBACK|outbound|APPOINTMENT_BOOKED`]: m(1, 1, 700),
      },
      durationDays: {
        [`2025-06-16|${b}|${cb}|INBOUND|0`]: 1,
        [`2025-06-15|${b}||FORM_OUTBOUND|3`]: 1,
        [`2025-07-01|${b}|${cb}|CAMPAIGN_CALLBACK|61`]: 1,
      },
      durationMonths: {
        [`2025-06-01|${b}|${cb}|INBOUND|0`]: 1,
        [`2025-06-01|${b}||FORM_OUTBOUND|3`]: 1,
        [`2025-07-01|${b}|${cb}|CAMPAIGN_CALLBACK|61`]: 1,
      },
      durationDaysAll: { '2025-06-16|INBOUND|0': 1, '2025-06-15|FORM_OUTBOUND|3': 1, '2025-07-01|CAMPAIGN_CALLBACK|61': 1 },
      durationMonthsAll: { '2025-06-01|INBOUND|0': 1, '2025-06-01|FORM_OUTBOUND|3': 1, '2025-07-01|CAMPAIGN_CALLBACK|61': 1 },
    };
    expect(within(await expectExact(pool), '2025-05', '2025-06', '2025-07')).toEqual(expected);

    // Columns no level counts and a duration change within a bucket of a conversation write no
    // level row at all; a move within the day, no row of the day and month levels.
    const before = await versions(pool);
    await pool.query(`UPDATE interactions SET summary = 'changed', phone_number = '+1 555 0199', ended_at = started_at WHERE id = ANY($1::text[])`, [
      [r0, r1, r2, r3],
    ]);
    await pool.query('UPDATE interactions SET duration_seconds = 3598 WHERE id = $1', [r0]);
    expect(await versions(pool)).toEqual(before);
    const byDay = LEVEL_KEYS.filter((k) => k !== 'quarterTotals');
    const beforeMove = await versions(pool, byDay);
    await pool.query(`UPDATE interactions SET started_at = started_at + interval '3 hours' WHERE id = $1`, [r2]);
    expect(await versions(pool, byDay)).toEqual(beforeMove);
    expect(within(await expectExact(pool), '2025-05', '2025-06', '2025-07')).toEqual(expected);
  });

  it('follow the cascades of a campaign renamed, a campaign moved to another clinic, and a clinic renamed (ON UPDATE CASCADE)', async () => {
    const [a, b] = (await createClinics(pool, 2)) as [string, string];
    const [ca] = (await createCampaigns(pool, a, 1)) as [string];
    await insertRows(pool, [
      row(a, ca, '2025-08-04T10:00:00.000Z', { durationSeconds: 42 }),
      row(a, ca, '2025-08-04T11:00:00.000Z', whatsapp()),
      row(a, null, '2025-08-04T12:00:00.000Z', { durationSeconds: 4000 }),
    ]);
    await expectExact(pool);
    const renamed = `${ca}_renamed`;
    await pool.query('UPDATE campaigns SET id = $2 WHERE id = $1', [ca, renamed]);
    await expectExact(pool, 'after the campaign was renamed');
    // The campaign (and so its interactions) moves to clinic b.
    await pool.query('UPDATE campaigns SET clinic_id = $2 WHERE id = $1', [renamed, b]);
    await expectExact(pool, 'after the campaign moved');
    const c = randomUUID();
    await pool.query('UPDATE clinics SET id = $2 WHERE id = $1', [a, c]);
    const levels = within(await expectExact(pool, 'after the clinic was renamed'), '2025-08');
    expect(levels.campaignDays).toEqual({
      [`2025-08-04|${b}|${renamed}|voice|INBOUND|inbound|APPOINTMENT_BOOKED`]: m(1, 1, 42),
      [`2025-08-04|${b}|${renamed}|whatsapp|APPOINTMENT_REMINDER|outbound|APPOINTMENT_BOOKED`]: m(1),
      [`2025-08-04|${c}||voice|INBOUND|inbound|APPOINTMENT_BOOKED`]: m(1, 1, 4000),
    });
    expect(levels.durationDays).toEqual({ [`2025-08-04|${b}|${renamed}|INBOUND|4`]: 1, [`2025-08-04|${c}||INBOUND|110`]: 1 });
    expect(levels.durationDaysAll).toEqual({ '2025-08-04|INBOUND|4': 1, '2025-08-04|INBOUND|110': 1 });
  });

  it('subtract DELETEd rows, one and several per statement, down to nothing', async () => {
    const [a, b] = (await createClinics(pool, 2)) as [string, string];
    const [ca] = (await createCampaigns(pool, a, 1)) as [string];
    const rows = [
      row(a, ca, '2025-09-30T23:59:59.999Z', { durationSeconds: 5 }),
      row(a, ca, '2025-09-30T10:00:00.000Z', { durationSeconds: 5 }),
      row(b, null, '2025-10-01T00:00:00.000Z', { durationSeconds: 3600, outcome: null }),
      row(b, null, '2025-10-01T00:00:00.000Z', whatsapp()),
    ];
    await insertRows(pool, rows);
    await pool.query('DELETE FROM interactions WHERE id = $1', [rows[0]!.id]);
    await expectExact(pool);
    await pool.query('DELETE FROM interactions WHERE id = ANY($1::text[])', [[rows[2]!.id, rows[3]!.id]]);
    expect(within(await expectExact(pool), '2025-09', '2025-10')).toEqual({
      campaignDays: { [`2025-09-30|${a}|${ca}|voice|INBOUND|inbound|APPOINTMENT_BOOKED`]: m(1, 1, 5) },
      campaignMonths: { [`2025-09-01|${a}|${ca}|voice|INBOUND|inbound|APPOINTMENT_BOOKED`]: m(1, 1, 5) },
      durationDays: { [`2025-09-30|${a}|${ca}|INBOUND|0`]: 1 },
      durationMonths: { [`2025-09-01|${a}|${ca}|INBOUND|0`]: 1 },
      durationDaysAll: { '2025-09-30|INBOUND|0': 1 },
      durationMonthsAll: { '2025-09-01|INBOUND|0': 1 },
    });
    await pool.query('DELETE FROM interactions WHERE clinic_id = ANY($1::uuid[])', [[a, b]]);
    const { campaignDayTotals: _days, campaignMonthTotals: _months, quarterTotals: _quarters, ...emptyHandWorked } = EMPTY;
    expect(within(await expectExact(pool), '2025-09', '2025-10')).toEqual(emptyHandWorked);
  });

  it('net to nothing for a row inserted, changed and deleted in one transaction, and keep nothing of a rolled-back one', async () => {
    const [a] = (await createClinics(pool, 1)) as [string];
    const [ca] = (await createCampaigns(pool, a, 1)) as [string];
    const client = await session();
    try {
      for (const end of ['COMMIT', 'ROLLBACK']) {
        const r = row(a, ca, '2025-10-20T10:00:00.000Z', { durationSeconds: 100 });
        await client.query('BEGIN');
        await insertRows(client, [r]);
        await client.query(`UPDATE interactions SET duration_seconds = 4000, campaign_id = NULL, started_at = '2025-11-03T00:00:00Z' WHERE id = $1`, [r.id]);
        await expectExact(client, `inside the transaction (${end})`, true);
        await client.query('DELETE FROM interactions WHERE id = $1', [r.id]);
        await client.query(end);
      }
      await insertRows(client, [row(a, ca, '2025-10-21T10:00:00.000Z', { durationSeconds: 100 })]);
      await client.query('BEGIN');
      await client.query('DELETE FROM interactions WHERE clinic_id = $1', [a]);
      await client.query('ROLLBACK');
    } finally {
      await client.end();
    }
    expect(within(await expectExact(pool), '2025-10-2', '2025-11-03').durationDays).toEqual({ [`2025-10-21|${a}|${ca}|INBOUND|10`]: 1 });
  });

  it("follow the importer's batches (INSERT ... ON CONFLICT DO UPDATE): new, moved and unchanged rows, and a re-import that writes nothing", async () => {
    const [a, b] = (await createClinics(pool, 2)) as [string, string];
    const [ca1, ca2] = (await createCampaigns(pool, a, 2)) as [string, string];
    const [cb] = (await createCampaigns(pool, b, 1)) as [string];
    const campaignOf = (clinic: string, i: number) => (clinic === a ? [ca1, ca2, null][i % 3]! : i % 2 ? cb : null);
    // 90 rows, 7 hours apart from 2025-11-25 (so into December), in batches of 25.
    const first: Row[] = Array.from({ length: 90 }, (_, i) => {
      const clinic = i % 4 === 0 ? b : a;
      return row(clinic, campaignOf(clinic, i), new Date(Date.UTC(2025, 10, 25) + i * 25_200_000).toISOString(), {
        outcome: i % 4 === 1 ? null : i % 4 === 2 ? 'NO_ANSWER' : 'APPOINTMENT_BOOKED',
        durationSeconds: i % 6 === 0 ? null : i * 53,
        ...(i % 5 === 0 ? whatsapp({ type: 'CAMPAIGN_OUTBOUND' }) : {}),
      });
    });
    await importRows(pool, first, 25);
    expect(Object.values(within(await expectExact(pool), '2025-11-2', '2025-11-3', '2025-12').campaignDays).reduce((s, x) => s + x.interactions, 0)).toBe(90);

    // A third unchanged, a third one millisecond earlier with another campaign and duration, a third
    // moved to the other clinic (campaign dropped); and new rows.
    const second: Row[] = first.map((r, i) =>
      i % 3 === 0
        ? r
        : i % 3 === 1
          ? {
              ...r,
              startedAt: new Date(r.startedAt.getTime() - 1),
              campaignId: campaignOf(r.clinicId, i + 1),
              durationSeconds: r.channel === 'voice' ? (i * 211) % 5000 : null,
            }
          : { ...r, clinicId: r.clinicId === a ? b : a, campaignId: null },
    );
    second.push(...Array.from({ length: 12 }, (_, i) => row(a, ca1, `2025-12-31T23:${String(i * 5).padStart(2, '0')}:00.000Z`, { durationSeconds: i * 600 })));
    await importRows(pool, second, 25);
    const levels = within(await expectExact(pool), '2025-11-2', '2025-11-3', '2025-12');
    expect(Object.values(levels.campaignDays).reduce((s, x) => s + x.interactions, 0)).toBe(102);
    expect(levels.durationDays[`2025-12-31|${a}|${ca1}|INBOUND|110`]).toBe(6); // 3600 to 6600

    // The same file again changes no interaction, so no level row either.
    const before = await versions(pool);
    await importRows(pool, second, 25);
    expect(await versions(pool)).toEqual(before);
  });

  it('stay exact, without deadlocks, when two sessions insert, move and delete rows of the same days and buckets in opposite orders at the same time', async () => {
    const [a, b] = (await createClinics(pool, 2)) as [string, string];
    const [ca] = (await createCampaigns(pool, a, 1)) as [string];
    const [cb] = (await createCampaigns(pool, b, 1)) as [string];
    const sessions = await Promise.all([session(), session()]);
    const dayOf = (i: number) => new Date(Date.UTC(2026, 0, 29) + (i % 8) * 43_200_000 + (i % 3) * 60_000); // over a month's end
    try {
      const work = async (s: pg.Client, clinic: string, campaign: string, descending: boolean, round: number) => {
        const rows = Array.from({ length: 16 }, (_, i) =>
          row(clinic, i % 3 ? campaign : null, dayOf(i + round).toISOString(), {
            durationSeconds: (i % 4) * 1100, // 0, 1100, 2200, 3300, then 3600 minus those: the all-clinics keys are shared
            outcome: i % 2 ? 'NO_ANSWER' : 'APPOINTMENT_BOOKED',
          }),
        );
        await insertRows(s, descending ? rows.reverse() : rows);
        await s.query(
          `UPDATE interactions SET started_at = started_at + interval '12 hours', duration_seconds = 3600 - duration_seconds,
                                   campaign_id = CASE WHEN campaign_id IS NULL THEN $2 END
           WHERE clinic_id = $1`,
          [clinic, campaign],
        );
        await s.query('DELETE FROM interactions WHERE id = ANY($1::text[])', [rows.slice(0, 4).map((r) => r.id)]);
      };
      for (let round = 0; round < 6; round++) {
        await Promise.all([work(sessions[0], a, ca, false, round), work(sessions[1], b, cb, true, round)]);
      }
    } finally {
      await Promise.all(sessions.map((s) => s.end()));
    }
    const levels = within(await expectExact(pool), '2026-01', '2026-02');
    expect(Object.values(levels.campaignMonths).reduce((s, x) => s + x.interactions, 0)).toBe(2 * 6 * 12);
    expect(Object.values(levels.durationMonthsAll).reduce((s, n) => s + n, 0)).toBe(2 * 6 * 12);
  });

  it('let a writer wait for another on shared all-clinics keys and stay exact (statements over the same keys in opposite orders do not deadlock)', async () => {
    const [a, b, c] = (await createClinics(pool, 3)) as [string, string, string];
    const days = Array.from({ length: 6 }, (_, i) => new Date(Date.UTC(2026, 2, 10 + i, 9)).toISOString());
    const [third, first, second] = await Promise.all([session(), session(), session()]);
    try {
      await third.query('BEGIN');
      await insertRows(third, [row(c, null, days[3]!, { durationSeconds: 7 })]);
      const ascending = insertRows(
        first,
        days.map((d) => row(a, null, d, { durationSeconds: 7 })),
      );
      await waitUntilBlocked(pool, first.pid);
      const descending = insertRows(
        second,
        [...days].reverse().map((d) => row(b, null, d, { durationSeconds: 7 })),
      );
      await waitUntilBlocked(pool, second.pid);
      await third.query('COMMIT');
      await Promise.all([ascending, descending]);
    } finally {
      await Promise.all([third.end(), first.end(), second.end()]);
    }
    const levels = within(await expectExact(pool), '2026-03');
    expect(levels.durationDaysAll).toEqual(Object.fromEntries(days.map((d, i) => [`${d.slice(0, 10)}|INBOUND|0`, i === 3 ? 3 : 2])));
    expect(levels.durationMonthsAll).toEqual({ '2026-03-01|INBOUND|0': 13 });
  });
});

describe('the CHECKs on interactions that the levels rely on', () => {
  it("refuse '' as a campaign (even with a campaign of that id) and a negative duration, on INSERT and UPDATE; 0 seconds is a duration", async () => {
    const [a] = (await createClinics(pool, 1)) as [string];
    // A campaign whose id is '', so that only the CHECK (not the foreign key) can refuse it.
    await pool.query(
      `INSERT INTO campaigns (id, name, description, type, channel, status, clinic_id)
       VALUES ('', 'Empty id', 'made by a test', 'recall', 'voice', 'active', $1)`,
      [a],
    );
    const refused = async (statement: Promise<unknown>, constraint: string) => {
      const error = (await statement.then(
        () => undefined,
        (e: unknown) => e,
      )) as (Error & { code?: string; constraint?: string }) | undefined;
      expect(error, `${constraint} must refuse the row`).toBeInstanceOf(Error);
      expect({ code: error?.code, constraint: error?.constraint }).toEqual({ code: '23514', constraint });
    };
    const levelsBefore = await levelRowCount(pool);
    await refused(insertRows(pool, [row(a, '', '2026-04-01T10:00:00.000Z')]), 'interactions_campaign_not_empty');
    await refused(insertRows(pool, [row(a, null, '2026-04-01T10:00:00.000Z', { durationSeconds: -1 })]), 'interactions_duration_not_negative');
    await refused(
      insertRows(pool, [row(a, null, '2026-04-01T10:00:00.000Z', whatsapp({ durationSeconds: -2147483648 }))]),
      'interactions_duration_not_negative',
    );

    const ok = row(a, null, '2026-04-01T10:00:00.000Z', { durationSeconds: 0 });
    await insertRows(pool, [ok]);
    await refused(pool.query(`UPDATE interactions SET campaign_id = '' WHERE id = $1`, [ok.id]), 'interactions_campaign_not_empty');
    await refused(pool.query('UPDATE interactions SET duration_seconds = duration_seconds - 1 WHERE id = $1', [ok.id]), 'interactions_duration_not_negative');
    // The importer's upsert too.
    await refused(importRows(pool, [{ ...ok, durationSeconds: -5 }], 10), 'interactions_duration_not_negative');
    await refused(importRows(pool, [{ ...ok, campaignId: '' }], 10), 'interactions_campaign_not_empty');

    const { rows } = await pool.query('SELECT campaign_id, duration_seconds FROM interactions WHERE clinic_id = $1', [a]);
    expect(rows).toEqual([{ campaign_id: null, duration_seconds: 0 }]);
    expect(within(await expectExact(pool), '2026-04').durationDays).toEqual({ [`2026-04-01|${a}||INBOUND|0`]: 1 });
    expect(await levelRowCount(pool)).toBe(levelsBefore + 9); // one row in each of the nine levels
  });
});

describe('interaction_duration_bucket()', () => {
  it('numbers 10-second buckets below 600 s, minute buckets below 3600 s and one open bucket, as the reference spelling does', async () => {
    const { rows } = await pool.query<{ s: number; bucket: number; reference: number }>(
      `SELECT s, interaction_duration_bucket(s) AS bucket,
              CASE WHEN s >= 3600 THEN 110 WHEN s >= 600 THEN 50 + s / 60 ELSE s / 10 END AS reference
       FROM (SELECT generate_series(0, 4000) AS s UNION ALL SELECT unnest(ARRAY[86400, 2147483647])) AS t ORDER BY s`,
    );
    expect(rows).toHaveLength(4003);
    for (const r of rows) if (r.bucket !== r.reference) expect(r).toEqual({ ...r, bucket: r.reference });
    const at = (s: number) => rows.find((r) => r.s === s)!.bucket;
    expect([0, 9, 10, 599, 600, 659, 660, 3599, 3600, 2147483647].map(at)).toEqual([0, 0, 1, 59, 60, 60, 61, 109, 110, 110]);
  });
});

describe('the levels after TRUNCATE and writes without triggers', () => {
  it('are emptied by TRUNCATE, left behind by writes in replica mode, and recomputed by interaction_dimension_levels_rebuild(), interaction_campaign_totals_rebuild(), interaction_quarter_totals_rebuild() and interaction_rollups_rebuild()', async () => {
    await pool.query('TRUNCATE interactions CASCADE');
    expect(await levelRowCount(pool)).toBe(0);

    const clinics = (await createClinics(pool, 2)) as [string, string];
    const campaigns = [...(await createCampaigns(pool, clinics[0], 2)), ...(await createCampaigns(pool, clinics[1], 1))];
    const rows: Row[] = Array.from({ length: 200 }, (_, i) => {
      const clinic = clinics[i % 2]!;
      const campaign = i % 5 === 0 ? null : clinic === clinics[0] ? campaigns[i % 4 < 2 ? 0 : 1]! : campaigns[2]!;
      return row(clinic, campaign, new Date(Date.UTC(2026, 4, 31, 20) + i * 211_111).toISOString(), {
        outcome: i % 3 === 0 ? null : i % 3 === 1 ? 'APPOINTMENT_CANCELLED' : 'APPOINTMENT_BOOKED',
        durationSeconds: i % 4 === 0 ? null : (i * 97) % 4000,
        ...(i % 7 === 0 ? whatsapp({ type: 'INBOUND' }) : {}),
      });
    });
    const replica = new pg.Pool({ connectionString: url, max: 1, options: '-c session_replication_role=replica' });
    try {
      await importRows(replica, rows, 50);
      await replica.query(
        `UPDATE interactions SET started_at = started_at + interval '5 hours', duration_seconds = duration_seconds + 600, campaign_id = NULL
         WHERE id = ANY($1::text[])`,
        [rows.filter((_, i) => i % 7 === 1).map((r) => r.id)],
      );
      await replica.query('DELETE FROM interactions WHERE id = ANY($1::text[])', [rows.filter((_, i) => i % 11 === 0).map((r) => r.id)]);
    } finally {
      await replica.end();
    }
    const stale = await readLevels(pool);
    expect(stale.stored).toEqual(EMPTY);
    expect(Object.values(stale.grouped.campaignDays).reduce((s, x) => s + x.interactions, 0)).toBe(200 - 19);

    // In a session whose TimeZone is not UTC (days and months must not depend on it).
    const rebuilder = await session('-c TimeZone=America/St_Johns');
    try {
      const { rows: rebuilt } = await rebuilder.query<{ n: string }>(
        'SELECT (interaction_dimension_levels_rebuild() + interaction_campaign_totals_rebuild() + interaction_quarter_totals_rebuild())::text AS n',
      );
      expect(Number(rebuilt[0]?.n)).toBe(await levelRowCount(rebuilder));
      await expectExact(
        rebuilder,
        'after interaction_dimension_levels_rebuild(), interaction_campaign_totals_rebuild() and interaction_quarter_totals_rebuild()',
      );
      // Written behind again (across the month's end), then the rebuild of every level.
      await rebuilder.query('SET session_replication_role = replica');
      await rebuilder.query(`UPDATE interactions SET started_at = started_at - interval '1 day', duration_seconds = 3600 WHERE clinic_id = $1`, [clinics[0]]);
      await rebuilder.query('SET session_replication_role = DEFAULT');
      await rebuilder.query('SELECT interaction_rollups_rebuild()');
    } finally {
      await rebuilder.end();
    }
    const levels = await expectExact(pool, 'after interaction_rollups_rebuild()');
    expect(Object.values(levels.campaignMonths).reduce((s, x) => s + x.interactions, 0)).toBe(181);
    expect(Object.keys(levels.campaignMonths).some((k) => k.startsWith('2026-05-01'))).toBe(true);
    expect(Object.keys(levels.campaignMonths).some((k) => k.startsWith('2026-06-01'))).toBe(true);
    await expectRollupExact(pool, clinics); // the other levels too

    // The triggers take over again from the rebuilt rows.
    await insertRows(pool, [row(clinics[0], campaigns[0]!, '2026-05-31T23:59:59.999Z'), row(clinics[1], null, '2026-06-01T00:00:00.000Z')]);
    expect(Object.values((await expectExact(pool)).campaignDays).reduce((s, x) => s + x.interactions, 0)).toBe(183);
  });
});
