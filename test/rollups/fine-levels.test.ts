// The rollup levels under the UTC day (prisma/migrations/*_fine_rollup_levels, *_day_hour_ends):
// interaction_quarters (every clinic, one row per quarter hour), interaction_day_hours (every clinic,
// one row per UTC day with its running totals at the end of each hour, read here as the hours they
// sum) and interaction_hour_totals (per hour, clinic, channel, type and direction). After every kind of write to `interactions` each level
// equals a GROUP BY over the raw rows, and holds the numbers the test works out by hand.
//
// Everything runs on a database of its own, created and migrated once for the file and dropped
// afterwards: interaction_quarters and interaction_day_hours sum every clinic, other files write into
// the run's database meanwhile, and some tests here TRUNCATE or write with the triggers off. So
// the whole tables are compared, and each test uses its own days for its hand-worked numbers.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { SCHEDULED_OUTCOME, SUCCESSFUL_OUTCOMES } from '../../src/domain/values.js';
import { generateDemoData } from '../../src/seed/generate.js';
import { writeDemoData } from '../../src/seed/seed-database.js';
import { createClinics, expectRollupExact, importRows, insertRows, newId, type Row, waitUntilBlocked } from '../analytics/rollup-support.js';
import { migrateUpTo, withFreshDatabase } from '../helpers/db.js';

const COUNTS = [
  'interactions',
  'calls',
  'conversations',
  'inbound',
  'outbound',
  'with_outcome',
  'successful',
  'booked',
  'timed_calls',
  'duration_sum',
] as const;
const TOTALS = ['interactions', 'with_outcome', 'successful', 'booked', 'timed_calls', 'duration_sum'] as const;
type Counts = Record<(typeof COUNTS)[number], number>;
type Totals = Record<(typeof TOTALS)[number], number>;

/** A level's rows by key (`2025-03-10T10:15` for a bucket; `hour|clinic|channel|type|direction` for hour totals). */
type Level<T> = Record<string, T>;
interface Levels {
  quarters: Level<Counts>;
  hours: Level<Counts>;
  hourTotals: Level<Totals>;
}

const counts = (c: Partial<Counts>): Counts => ({ ...(Object.fromEntries(COUNTS.map((k) => [k, 0])) as Counts), ...c });
const totals = (t: Partial<Totals>): Totals => ({ ...(Object.fromEntries(TOTALS.map((k) => [k, 0])) as Totals), ...t });

/**
 * A UTC instant (a timestamp without time zone, in UTC) as a key: minutes only when the seconds are
 * 0, so a bucket stored off its boundary (10:15:30) shows as such and differs from the reference.
 */
const instant = (t: string) => `regexp_replace(to_char(${t}, 'YYYY-MM-DD"T"HH24:MI:SS.US'), ':00\\.000000$', '')`;

/** The stored rows, without those whose counts are all 0 (kept by design: a key that comes back is likely). */
const STORED = {
  quarters: `SELECT ${instant(`quarter AT TIME ZONE 'UTC'`)} AS key, ${COUNTS.join(', ')} FROM interaction_quarters
             WHERE ${COUNTS.map((c) => `${c} <> 0`).join(' OR ')}`,
  // Hour k - 1 of a day: run k of its running totals minus run k - 1 (none before the first).
  hours: `SELECT * FROM (
            SELECT ${instant(`d.day + (k - 1) * interval '1 hour'`)} AS key,
                   ${COUNTS.map((c, j) => `d.ends[k][${j + 1}] - coalesce(d.ends[k - 1][${j + 1}], 0) AS ${c}`).join(', ')}
            FROM interaction_day_hours AS d CROSS JOIN generate_series(1, 24) AS k
          ) AS hours WHERE ${COUNTS.map((c) => `${c} <> 0`).join(' OR ')}`,
  hourTotals: `SELECT concat_ws('|', ${instant(`hour AT TIME ZONE 'UTC'`)}, clinic_id, channel, type, direction) AS key, ${TOTALS.join(', ')}
               FROM interaction_hour_totals WHERE ${TOTALS.map((c) => `${c} <> 0`).join(' OR ')}`,
};

/**
 * What the levels must hold: GROUP BYs over the raw table, with buckets computed without date_bin
 * (date_trunc of the UTC wall time, plus whole quarters of its minutes) and the metrics' definitions
 * of success and appointments from src/domain/values.ts. $1: successful outcomes, $2: booked.
 */
const WIDE = `count(*) AS interactions, count(*) FILTER (WHERE channel = 'voice') AS calls,
  count(*) FILTER (WHERE channel = 'whatsapp') AS conversations, count(*) FILTER (WHERE direction = 'inbound') AS inbound,
  count(*) FILTER (WHERE direction = 'outbound') AS outbound`;
const NARROW = `count(outcome) AS with_outcome, count(*) FILTER (WHERE outcome = ANY($1::text[])) AS successful,
  count(*) FILTER (WHERE outcome = $2) AS booked, count(duration_seconds) FILTER (WHERE channel = 'voice') AS timed_calls,
  coalesce(sum(duration_seconds) FILTER (WHERE channel = 'voice'), 0) AS duration_sum`;
const UTC = `(SELECT *, started_at AT TIME ZONE 'UTC' AS t FROM interactions) AS raw`;
const GROUPED = {
  quarters: `SELECT ${instant(`date_trunc('hour', t) + floor(extract(minute FROM t) / 15) * interval '15 minutes'`)} AS key, ${WIDE}, ${NARROW}
             FROM ${UTC} GROUP BY 1`,
  hours: `SELECT ${instant(`date_trunc('hour', t)`)} AS key, ${WIDE}, ${NARROW} FROM ${UTC} GROUP BY 1`,
  hourTotals: `SELECT concat_ws('|', ${instant(`date_trunc('hour', t)`)}, clinic_id, channel, type, direction) AS key, count(*) AS interactions, ${NARROW}
               FROM ${UTC} GROUP BY date_trunc('hour', t), clinic_id, channel, type, direction`,
};

function toLevel<T>(rows: Record<string, unknown>[], columns: readonly string[]): Level<T> {
  const level: Level<T> = {};
  for (const row of rows) level[row.key as string] = Object.fromEntries(columns.map((c) => [c, Number(row[c])])) as T;
  return level;
}

/** The stored levels and their GROUP BYs, read in one snapshot. */
async function readLevels(q: pg.Pool | pg.ClientBase): Promise<{ stored: Levels; grouped: Levels }> {
  const client = q instanceof pg.Pool ? await q.connect() : q;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const read = async (sql: string, values: unknown[] = []) => (await client.query(sql, values)).rows;
    const definitions = [[...SUCCESSFUL_OUTCOMES], SCHEDULED_OUTCOME];
    const levels = {
      stored: {
        quarters: toLevel<Counts>(await read(STORED.quarters), COUNTS),
        hours: toLevel<Counts>(await read(STORED.hours), COUNTS),
        hourTotals: toLevel<Totals>(await read(STORED.hourTotals), TOTALS),
      },
      grouped: {
        quarters: toLevel<Counts>(await read(GROUPED.quarters, definitions), COUNTS),
        hours: toLevel<Counts>(await read(GROUPED.hours, definitions), COUNTS),
        hourTotals: toLevel<Totals>(await read(GROUPED.hourTotals, definitions), TOTALS),
      },
    };
    await client.query('COMMIT');
    return levels;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    if (q instanceof pg.Pool) (client as pg.PoolClient).release();
  }
}

/** Asserts that each level equals its GROUP BY over the whole raw table; returns the levels. */
async function expectExact(q: pg.Pool | pg.ClientBase): Promise<Levels> {
  const { stored, grouped } = await readLevels(q);
  expect(stored.quarters, 'interaction_quarters').toEqual(grouped.quarters);
  expect(stored.hours, 'interaction_day_hours').toEqual(grouped.hours);
  expect(stored.hourTotals, 'interaction_hour_totals').toEqual(grouped.hourTotals);
  return stored;
}

/** The rows of `levels` whose key starts with one of `prefixes` (a test's own days). */
function within(levels: Levels, ...prefixes: string[]): Levels {
  const pick = <T>(level: Level<T>) => Object.fromEntries(Object.entries(level).filter(([key]) => prefixes.some((p) => key.startsWith(p))));
  return { quarters: pick(levels.quarters), hours: pick(levels.hours), hourTotals: pick(levels.hourTotals) };
}

/** Sum of a column over a level's rows. */
const sum = (level: Level<Counts>, column: keyof Counts) => Object.values(level).reduce((s, c) => s + c[column], 0);

function row(clinicId: string, startedAt: string, data: Partial<Row> = {}): Row {
  return {
    id: newId(),
    clinicId,
    channel: 'voice',
    type: 'INBOUND',
    startedAt: new Date(startedAt),
    durationSeconds: 60,
    outcome: 'APPOINTMENT_BOOKED',
    ...data,
  };
}

/** The versions (xmin) of every row of the three levels, to see which rows a statement wrote. */
async function versions(q: pg.Pool): Promise<string[]> {
  const { rows } = await q.query<{ v: string }>(
    `SELECT 'q' || quarter || xmin AS v FROM interaction_quarters UNION ALL SELECT 'h' || day || xmin FROM interaction_day_hours
     UNION ALL SELECT concat_ws('|', hour, clinic_id, channel, type, direction, xmin) FROM interaction_hour_totals`,
  );
  return rows.map((r) => r.v).sort();
}

// The file's database: the migrations before the fine levels, rows, then the rest (so that the
// migration's backfill has something to count), kept open until the file's tests are done.
let url = '';
let pool: pg.Pool;
const backfilled: { clinics: string[] } = { clinics: [] };
let release: () => void = () => {};
let closed: Promise<void> | undefined;

beforeAll(async () => {
  let opened!: () => void;
  const ready = new Promise<void>((resolve) => {
    opened = resolve;
  });
  closed = withFreshDatabase('fine_levels', async (freshUrl, client) => {
    const rest = await migrateUpTo(freshUrl, '_fine_rollup_levels');
    await client.connect();
    const [a, b] = (await createClinics(client, 2)) as [string, string];
    backfilled.clinics = [a, b];
    await insertRows(client, [
      // The year's last quarter hour, and the first one of the next.
      row(a, '2024-12-31T23:59:59.999Z'),
      row(b, '2025-01-01T00:00:00.000Z', { channel: 'whatsapp', type: 'APPOINTMENT_REMINDER', durationSeconds: null, outcome: 'NO_ANSWER' }),
      row(a, '2025-01-01T00:14:59.999Z', { type: 'CAMPAIGN_OUTBOUND', durationSeconds: 30, outcome: null }),
      // Many buckets of November.
      ...Array.from({ length: 300 }, (_, i) =>
        row(i % 3 ? a : b, new Date(Date.UTC(2024, 10, 1) + i * 7_919_000).toISOString(), {
          outcome: i % 4 === 0 ? null : i % 4 === 1 ? 'NO_ANSWER' : 'APPOINTMENT_MODIFIED',
          durationSeconds: i % 5 === 0 ? null : i,
          ...(i % 7 === 0 ? { channel: 'whatsapp' as const, type: 'CAMPAIGN_OUTBOUND' as const, durationSeconds: null } : {}),
        }),
      ),
    ]);
    const applied = await migrate(freshUrl);
    expect(applied).toEqual(rest);
    expect(applied[0]).toMatch(/_fine_rollup_levels$/);
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

describe('interaction_quarters, interaction_day_hours and interaction_hour_totals, maintained by triggers', () => {
  it("are backfilled by their migration from the rows already there, across a year's last and first quarter hours", async () => {
    const [a, b] = backfilled.clinics as [string, string];
    const levels = await expectExact(pool);
    expect(sum(within(levels, '2024-', '2025-01-01').quarters, 'interactions')).toBe(303);
    expect(Object.keys(levels.quarters).length).toBeGreaterThan(250);
    expect(within(levels, '2024-12-31T23', '2025-01-01')).toEqual({
      quarters: {
        '2024-12-31T23:45': counts({ interactions: 1, calls: 1, inbound: 1, with_outcome: 1, successful: 1, booked: 1, timed_calls: 1, duration_sum: 60 }),
        '2025-01-01T00:00': counts({ interactions: 2, calls: 1, conversations: 1, outbound: 2, with_outcome: 1, timed_calls: 1, duration_sum: 30 }),
      },
      hours: {
        '2024-12-31T23:00': counts({ interactions: 1, calls: 1, inbound: 1, with_outcome: 1, successful: 1, booked: 1, timed_calls: 1, duration_sum: 60 }),
        '2025-01-01T00:00': counts({ interactions: 2, calls: 1, conversations: 1, outbound: 2, with_outcome: 1, timed_calls: 1, duration_sum: 30 }),
      },
      hourTotals: {
        [`2024-12-31T23:00|${a}|voice|INBOUND|inbound`]: totals({
          interactions: 1,
          with_outcome: 1,
          successful: 1,
          booked: 1,
          timed_calls: 1,
          duration_sum: 60,
        }),
        [`2025-01-01T00:00|${b}|whatsapp|APPOINTMENT_REMINDER|outbound`]: totals({ interactions: 1, with_outcome: 1 }),
        [`2025-01-01T00:00|${a}|voice|CAMPAIGN_OUTBOUND|outbound`]: totals({ interactions: 1, timed_calls: 1, duration_sum: 30 }),
      },
    });
  });

  it("counts multi-row and single-row INSERTs per UTC bucket, whatever the writer's TimeZone: :14:59.999 and :15:00.000, day edges, voice durations only", async () => {
    const [a, b] = (await createClinics(pool, 2)) as [string, string];
    // UTC+05:45: a zone whose local quarter hours and days are not UTC ones.
    const writer = await session('-c TimeZone=Asia/Kathmandu');
    try {
      await insertRows(writer, [
        row(a, '2025-03-10T10:14:59.999Z'),
        row(a, '2025-03-10T10:15:00.000Z', { durationSeconds: 40, outcome: 'APPOINTMENT_CANCELLED' }),
        // A conversation's duration counts nowhere.
        row(b, '2025-03-10T10:15:00.000Z', { channel: 'whatsapp', durationSeconds: 500, outcome: 'APPOINTMENT_MODIFIED' }),
        row(a, '2025-03-10T10:59:59.999Z', { type: 'FORM_OUTBOUND', durationSeconds: null, outcome: null }),
        // Two of the longest calls: the sum needs more than 32 bits.
        row(a, '2025-03-10T11:00:00.000Z', { type: 'CAMPAIGN_CALLBACK', durationSeconds: 2147483647 }),
        row(b, '2025-03-10T11:00:00.000Z', { type: 'CAMPAIGN_CALLBACK', durationSeconds: 2147483647 }),
        row(a, '2025-03-10T23:59:59.999Z'),
        row(a, '2025-03-11T00:00:00.000Z'),
      ]);
      await expectExact(pool);
      // One more row into existing keys, with a local time (10:29:59.999 UTC).
      await writer.query(
        `INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, started_at, outcome)
         VALUES ($1, 'whatsapp', 'CAMPAIGN_OUTBOUND', 'outbound', '+34 600 000 002', $2, '2025-03-10 16:14:59.999', 'OPT_OUT')`,
        [newId(), b],
      );
    } finally {
      await writer.end();
    }
    expect(within(await expectExact(pool), '2025-03-10', '2025-03-11')).toEqual({
      quarters: {
        '2025-03-10T10:00': counts({ interactions: 1, calls: 1, inbound: 1, with_outcome: 1, successful: 1, booked: 1, timed_calls: 1, duration_sum: 60 }),
        '2025-03-10T10:15': counts({
          interactions: 3,
          calls: 1,
          conversations: 2,
          inbound: 2,
          outbound: 1,
          with_outcome: 3,
          successful: 2,
          timed_calls: 1,
          duration_sum: 40,
        }),
        '2025-03-10T10:45': counts({ interactions: 1, calls: 1, outbound: 1 }),
        '2025-03-10T11:00': counts({
          interactions: 2,
          calls: 2,
          outbound: 2,
          with_outcome: 2,
          successful: 2,
          booked: 2,
          timed_calls: 2,
          duration_sum: 4294967294,
        }),
        '2025-03-10T23:45': counts({ interactions: 1, calls: 1, inbound: 1, with_outcome: 1, successful: 1, booked: 1, timed_calls: 1, duration_sum: 60 }),
        '2025-03-11T00:00': counts({ interactions: 1, calls: 1, inbound: 1, with_outcome: 1, successful: 1, booked: 1, timed_calls: 1, duration_sum: 60 }),
      },
      hours: {
        '2025-03-10T10:00': counts({
          interactions: 5,
          calls: 3,
          conversations: 2,
          inbound: 3,
          outbound: 2,
          with_outcome: 4,
          successful: 3,
          booked: 1,
          timed_calls: 2,
          duration_sum: 100,
        }),
        '2025-03-10T11:00': counts({
          interactions: 2,
          calls: 2,
          outbound: 2,
          with_outcome: 2,
          successful: 2,
          booked: 2,
          timed_calls: 2,
          duration_sum: 4294967294,
        }),
        '2025-03-10T23:00': counts({ interactions: 1, calls: 1, inbound: 1, with_outcome: 1, successful: 1, booked: 1, timed_calls: 1, duration_sum: 60 }),
        '2025-03-11T00:00': counts({ interactions: 1, calls: 1, inbound: 1, with_outcome: 1, successful: 1, booked: 1, timed_calls: 1, duration_sum: 60 }),
      },
      hourTotals: {
        [`2025-03-10T10:00|${a}|voice|INBOUND|inbound`]: totals({
          interactions: 2,
          with_outcome: 2,
          successful: 2,
          booked: 1,
          timed_calls: 2,
          duration_sum: 100,
        }),
        [`2025-03-10T10:00|${a}|voice|FORM_OUTBOUND|outbound`]: totals({ interactions: 1 }),
        [`2025-03-10T10:00|${b}|whatsapp|INBOUND|inbound`]: totals({ interactions: 1, with_outcome: 1, successful: 1 }),
        [`2025-03-10T10:00|${b}|whatsapp|CAMPAIGN_OUTBOUND|outbound`]: totals({ interactions: 1, with_outcome: 1 }),
        [`2025-03-10T11:00|${a}|voice|CAMPAIGN_CALLBACK|outbound`]: totals({
          interactions: 1,
          with_outcome: 1,
          successful: 1,
          booked: 1,
          timed_calls: 1,
          duration_sum: 2147483647,
        }),
        [`2025-03-10T11:00|${b}|voice|CAMPAIGN_CALLBACK|outbound`]: totals({
          interactions: 1,
          with_outcome: 1,
          successful: 1,
          booked: 1,
          timed_calls: 1,
          duration_sum: 2147483647,
        }),
        [`2025-03-10T23:00|${a}|voice|INBOUND|inbound`]: totals({
          interactions: 1,
          with_outcome: 1,
          successful: 1,
          booked: 1,
          timed_calls: 1,
          duration_sum: 60,
        }),
        [`2025-03-11T00:00|${a}|voice|INBOUND|inbound`]: totals({
          interactions: 1,
          with_outcome: 1,
          successful: 1,
          booked: 1,
          timed_calls: 1,
          duration_sum: 60,
        }),
      },
    });
  });

  it('moves counts between buckets and keys on UPDATEs of started_at, outcome, duration, channel, type, direction and clinic', async () => {
    const [a, b] = (await createClinics(pool, 2)) as [string, string];
    const rows = [
      row(a, '2025-04-07T08:00:00.000Z'),
      row(a, '2025-04-07T08:14:59.999Z', { outcome: null }),
      row(b, '2025-04-07T08:15:00.000Z', { channel: 'whatsapp', type: 'CAMPAIGN_OUTBOUND', durationSeconds: null, outcome: 'NO_ANSWER' }),
      row(a, '2025-04-07T23:59:59.999Z', { durationSeconds: null }),
    ];
    await insertRows(pool, rows);
    await expectExact(pool);
    const [r0, r1, r2, r3] = rows.map((r) => r.id) as [string, string, string, string];
    const updates: Array<[string, unknown[]]> = [
      // Across a quarter within the hour, across an hour by one millisecond, across midnight.
      ['UPDATE interactions SET started_at = $2 WHERE id = $1', [r0, '2025-04-07T08:15:00.000Z']],
      ['UPDATE interactions SET started_at = $2 WHERE id = $1', [r1, '2025-04-07T07:59:59.999Z']],
      ['UPDATE interactions SET started_at = $2 WHERE id = $1', [r3, '2025-04-08T00:00:00.000Z']],
      // Outcome: a success to another success, none to some, some to none.
      ["UPDATE interactions SET outcome = 'APPOINTMENT_MODIFIED' WHERE id = $1", [r0]],
      ["UPDATE interactions SET outcome = 'NO_ANSWER' WHERE id = $1", [r1]],
      ['UPDATE interactions SET outcome = NULL WHERE id = $1', [r2]],
      // A conversation becomes a call, which then gets a duration; a call becomes a conversation (its duration stops counting).
      ["UPDATE interactions SET channel = 'voice', type = 'INBOUND', direction = 'inbound' WHERE id = $1", [r2]],
      ['UPDATE interactions SET duration_seconds = 45 WHERE id = $1', [r2]],
      ["UPDATE interactions SET channel = 'whatsapp', type = 'APPOINTMENT_REMINDER', direction = 'outbound' WHERE id = $1", [r0]],
      // Duration: set to the largest, then changed.
      ['UPDATE interactions SET duration_seconds = 2147483647 WHERE id = $1', [r3]],
      ['UPDATE interactions SET duration_seconds = 30 WHERE id = $1', [r3]],
      // Another clinic.
      ['UPDATE interactions SET clinic_id = $2 WHERE id = $1', [r1, b]],
      // Every row one hour later and its outcome flipped, in one statement.
      [
        `UPDATE interactions SET started_at = started_at + interval '1 hour', outcome = CASE WHEN outcome IS NULL THEN 'APPOINTMENT_BOOKED' END
         WHERE id = ANY($1::text[])`,
        [[r0, r1, r2, r3]],
      ],
    ];
    for (const [text, values] of updates) {
      await pool.query(text, values);
      await expectExact(pool);
    }
    const expected: Levels = {
      quarters: {
        '2025-04-07T08:45': counts({ interactions: 1, calls: 1, inbound: 1, timed_calls: 1, duration_sum: 60 }),
        '2025-04-07T09:15': counts({
          interactions: 2,
          calls: 1,
          conversations: 1,
          inbound: 1,
          outbound: 1,
          with_outcome: 1,
          successful: 1,
          booked: 1,
          timed_calls: 1,
          duration_sum: 45,
        }),
        '2025-04-08T01:00': counts({ interactions: 1, calls: 1, inbound: 1, timed_calls: 1, duration_sum: 30 }),
      },
      hours: {
        '2025-04-07T08:00': counts({ interactions: 1, calls: 1, inbound: 1, timed_calls: 1, duration_sum: 60 }),
        '2025-04-07T09:00': counts({
          interactions: 2,
          calls: 1,
          conversations: 1,
          inbound: 1,
          outbound: 1,
          with_outcome: 1,
          successful: 1,
          booked: 1,
          timed_calls: 1,
          duration_sum: 45,
        }),
        '2025-04-08T01:00': counts({ interactions: 1, calls: 1, inbound: 1, timed_calls: 1, duration_sum: 30 }),
      },
      hourTotals: {
        [`2025-04-07T08:00|${b}|voice|INBOUND|inbound`]: totals({ interactions: 1, timed_calls: 1, duration_sum: 60 }),
        [`2025-04-07T09:00|${a}|whatsapp|APPOINTMENT_REMINDER|outbound`]: totals({ interactions: 1 }),
        [`2025-04-07T09:00|${b}|voice|INBOUND|inbound`]: totals({
          interactions: 1,
          with_outcome: 1,
          successful: 1,
          booked: 1,
          timed_calls: 1,
          duration_sum: 45,
        }),
        [`2025-04-08T01:00|${a}|voice|INBOUND|inbound`]: totals({ interactions: 1, timed_calls: 1, duration_sum: 30 }),
      },
    };
    expect(within(await expectExact(pool), '2025-04-07', '2025-04-08')).toEqual(expected);

    // Columns no level counts, and a move within a quarter, write no level row at all.
    const before = await versions(pool);
    await pool.query(`UPDATE interactions SET summary = 'changed', phone_number = '+1 555 0199', ended_at = started_at WHERE id = ANY($1::text[])`, [
      [r0, r1, r2, r3],
    ]);
    await pool.query(`UPDATE interactions SET started_at = started_at + interval '14 minutes' WHERE id = $1`, [r3]);
    expect(await versions(pool)).toEqual(before);
    expect(within(await expectExact(pool), '2025-04-07', '2025-04-08')).toEqual(expected);
  });

  it('subtracts DELETEd rows, one and several per statement, down to nothing', async () => {
    const [a, b] = (await createClinics(pool, 2)) as [string, string];
    const rows = [
      row(a, '2025-04-20T09:14:59.999Z'),
      row(b, '2025-04-20T09:15:00.000Z', { outcome: 'NO_ANSWER' }),
      row(a, '2025-04-20T09:59:59.999Z', { durationSeconds: null }),
      row(b, '2025-04-20T10:00:00.000Z', { channel: 'whatsapp', type: 'APPOINTMENT_REMINDER', durationSeconds: null }),
    ];
    await insertRows(pool, rows);
    await pool.query('DELETE FROM interactions WHERE id = $1', [rows[0]!.id]);
    await expectExact(pool);
    await pool.query('DELETE FROM interactions WHERE id = ANY($1::text[])', [[rows[1]!.id, rows[3]!.id]]);
    expect(within(await expectExact(pool), '2025-04-20')).toEqual({
      quarters: { '2025-04-20T09:45': counts({ interactions: 1, calls: 1, inbound: 1, with_outcome: 1, successful: 1, booked: 1 }) },
      hours: { '2025-04-20T09:00': counts({ interactions: 1, calls: 1, inbound: 1, with_outcome: 1, successful: 1, booked: 1 }) },
      hourTotals: { [`2025-04-20T09:00|${a}|voice|INBOUND|inbound`]: totals({ interactions: 1, with_outcome: 1, successful: 1, booked: 1 }) },
    });
    await pool.query('DELETE FROM interactions WHERE clinic_id = ANY($1::uuid[])', [[a, b]]);
    expect(within(await expectExact(pool), '2025-04-20')).toEqual({ quarters: {}, hours: {}, hourTotals: {} });
  });

  it("follows the importer's batches (INSERT ... ON CONFLICT DO UPDATE): new, moved and unchanged rows, and a re-import that writes nothing", async () => {
    const [a, b] = (await createClinics(pool, 2)) as [string, string];
    // 96 rows, 7 minutes 30 seconds apart from 2025-05-05T22:00 (so over midnight), in batches of 25.
    const first: Row[] = Array.from({ length: 96 }, (_, i) =>
      row(i % 3 === 0 ? b : a, new Date(Date.UTC(2025, 4, 5, 22) + i * 450_000).toISOString(), {
        outcome: i % 4 === 0 ? null : i % 4 === 1 ? 'NO_ANSWER' : 'APPOINTMENT_BOOKED',
        durationSeconds: i % 6 === 0 ? null : i,
        ...(i % 5 === 0 ? { channel: 'whatsapp' as const, type: 'CAMPAIGN_OUTBOUND' as const, durationSeconds: null } : {}),
      }),
    );
    await importRows(pool, first, 25);
    let levels = within(await expectExact(pool), '2025-05-05', '2025-05-06');
    expect(Object.keys(levels.quarters)).toHaveLength(48); // two rows in each quarter hour of 12 hours
    expect(sum(levels.hours, 'interactions')).toBe(96);

    // A third unchanged, a third one millisecond earlier (into the previous quarter when on its edge) with
    // another outcome, a third turned into conversations of the other clinic; and new rows.
    const second: Row[] = first.map((r, i) =>
      i % 3 === 0
        ? r
        : i % 3 === 1
          ? { ...r, startedAt: new Date(r.startedAt.getTime() - 1), outcome: r.outcome === null ? 'OPT_OUT' : null }
          : { ...r, channel: 'whatsapp', type: 'INBOUND', durationSeconds: null, clinicId: r.clinicId === a ? b : a },
    );
    second.push(...Array.from({ length: 20 }, (_, i) => row(a, `2025-05-06T15:${String(i * 3).padStart(2, '0')}:00.000Z`, { durationSeconds: i })));
    await importRows(pool, second, 25);
    levels = within(await expectExact(pool), '2025-05-05', '2025-05-06');
    expect(sum(levels.hours, 'interactions')).toBe(116);
    expect(levels.quarters['2025-05-06T15:00']).toEqual(
      counts({ interactions: 5, calls: 5, inbound: 5, with_outcome: 5, successful: 5, booked: 5, timed_calls: 5, duration_sum: 0 + 1 + 2 + 3 + 4 }),
    );

    // The same file again changes no interaction, so no level row either.
    const before = await versions(pool);
    await importRows(pool, second, 25);
    expect(await versions(pool)).toEqual(before);
  });

  it("follows the seeder's bulk statement, also when a re-seed with another end date moves every row", async () => {
    const seed = `fine-levels-${randomUUID()}`;
    const seedWith = async (endDate: string) => {
      const client = await session();
      try {
        await client.query('BEGIN');
        await writeDemoData(client, generateDemoData({ seed, clinics: 2, interactions: 1_500, days: 3, endDate: new Date(endDate) }));
        await client.query('COMMIT');
      } finally {
        await client.end();
      }
    };
    await seedWith('2025-05-20T10:00:00.000Z');
    const seeded = within(await expectExact(pool), '2025-05-1', '2025-05-2');
    expect(sum(seeded.quarters, 'interactions')).toBe(1_500);
    await seedWith('2025-05-21T22:40:00.000Z'); // same ids, later instants
    const moved = within(await expectExact(pool), '2025-05-1', '2025-05-2');
    expect(sum(moved.hours, 'interactions')).toBe(1_500);
    expect(moved.quarters).not.toEqual(seeded.quarters);
  });
});

describe('the fine levels under concurrent writers', () => {
  it('stay exact when two transactions write the same hour, quarter and keys, one waiting for the other', async () => {
    const [c] = (await createClinics(pool, 1)) as [string];
    const [first, second] = await Promise.all([session(), session()]);
    try {
      // Both create the same new keys: the second waits for the first's level rows.
      await first.query('BEGIN');
      await insertRows(first, [row(c, '2025-06-02T10:00:00.000Z'), row(c, '2025-06-02T11:59:59.999Z')]);
      const blocked = insertRows(second, [row(c, '2025-06-02T11:45:00.000Z'), row(c, '2025-06-02T10:14:59.999Z')]);
      await waitUntilBlocked(pool, second.pid);
      await first.query('COMMIT');
      await blocked;
      const booked = { with_outcome: 2, successful: 2, booked: 2, timed_calls: 2, duration_sum: 120 };
      expect(within(await expectExact(pool), '2025-06-02')).toEqual({
        quarters: {
          '2025-06-02T10:00': counts({ interactions: 2, calls: 2, inbound: 2, ...booked }),
          '2025-06-02T11:45': counts({ interactions: 2, calls: 2, inbound: 2, ...booked }),
        },
        hours: {
          '2025-06-02T10:00': counts({ interactions: 2, calls: 2, inbound: 2, ...booked }),
          '2025-06-02T11:00': counts({ interactions: 2, calls: 2, inbound: 2, ...booked }),
        },
        hourTotals: {
          [`2025-06-02T10:00|${c}|voice|INBOUND|inbound`]: totals({ interactions: 2, ...booked }),
          [`2025-06-02T11:00|${c}|voice|INBOUND|inbound`]: totals({ interactions: 2, ...booked }),
        },
      });

      // One empties the hours while the other adds to them; the second statement of the first
      // transaction touches the same rows again and does not deadlock with the waiting one.
      await first.query('BEGIN');
      await first.query('DELETE FROM interactions WHERE clinic_id = $1', [c]);
      const refill = insertRows(second, [row(c, '2025-06-02T11:59:59.999Z'), row(c, '2025-06-02T10:00:00.000Z', { outcome: null })]);
      await waitUntilBlocked(pool, second.pid);
      await insertRows(first, [row(c, '2025-06-02T10:05:00.000Z', { channel: 'whatsapp', durationSeconds: null })]);
      await first.query('COMMIT');
      await refill;
      expect(within(await expectExact(pool), '2025-06-02')).toEqual({
        quarters: {
          '2025-06-02T10:00': counts({
            interactions: 2,
            calls: 1,
            conversations: 1,
            inbound: 2,
            with_outcome: 1,
            successful: 1,
            booked: 1,
            timed_calls: 1,
            duration_sum: 60,
          }),
          '2025-06-02T11:45': counts({ interactions: 1, calls: 1, inbound: 1, with_outcome: 1, successful: 1, booked: 1, timed_calls: 1, duration_sum: 60 }),
        },
        hours: {
          '2025-06-02T10:00': counts({
            interactions: 2,
            calls: 1,
            conversations: 1,
            inbound: 2,
            with_outcome: 1,
            successful: 1,
            booked: 1,
            timed_calls: 1,
            duration_sum: 60,
          }),
          '2025-06-02T11:00': counts({ interactions: 1, calls: 1, inbound: 1, with_outcome: 1, successful: 1, booked: 1, timed_calls: 1, duration_sum: 60 }),
        },
        hourTotals: {
          [`2025-06-02T10:00|${c}|voice|INBOUND|inbound`]: totals({ interactions: 1, timed_calls: 1, duration_sum: 60 }),
          [`2025-06-02T10:00|${c}|whatsapp|INBOUND|inbound`]: totals({ interactions: 1, with_outcome: 1, successful: 1, booked: 1 }),
          [`2025-06-02T11:00|${c}|voice|INBOUND|inbound`]: totals({
            interactions: 1,
            with_outcome: 1,
            successful: 1,
            booked: 1,
            timed_calls: 1,
            duration_sum: 60,
          }),
        },
      });
    } finally {
      await Promise.all([first.end(), second.end()]);
    }
  });

  it('lock the rows of a statement in key order: two statements over the same quarters, in opposite row orders, both waiting for a third writer, do not deadlock', async () => {
    const [a, b, c] = (await createClinics(pool, 3)) as [string, string, string];
    const quarters = Array.from({ length: 8 }, (_, i) => new Date(Date.UTC(2025, 5, 16, 10) + i * 900_000).toISOString());
    const [third, first, second] = await Promise.all([session(), session(), session()]);
    try {
      // The third writer holds the 10:45 rows. The first statement (rows in ascending order) takes
      // 10:00 to 10:30 and waits at 10:45; the second (descending) must then wait at 10:00, holding
      // nothing the first needs. A trigger that took level rows in the order of the statement's rows
      // would let the second take 11:45 down to 11:00 first, and the two would deadlock once the
      // third commits.
      await third.query('BEGIN');
      await insertRows(third, [row(c, quarters[3]!)]);
      const ascending = insertRows(
        first,
        quarters.map((q) => row(a, q)),
      );
      await waitUntilBlocked(pool, first.pid);
      const descending = insertRows(
        second,
        [...quarters].reverse().map((q) => row(b, q)),
      );
      await waitUntilBlocked(pool, second.pid);
      await third.query('COMMIT');
      await Promise.all([ascending, descending]);
    } finally {
      await Promise.all([third.end(), first.end(), second.end()]);
    }
    const call = { calls: 1, inbound: 1, with_outcome: 1, successful: 1, booked: 1, timed_calls: 1, duration_sum: 60 };
    const times = (n: number) => counts(Object.fromEntries(Object.entries({ interactions: 1, ...call }).map(([k, v]) => [k, v * n])));
    const levels = within(await expectExact(pool), '2025-06-16');
    expect(levels.quarters).toEqual(Object.fromEntries(quarters.map((q, i) => [q.slice(0, 16), times(i === 3 ? 3 : 2)])));
    expect(levels.hours).toEqual({ '2025-06-16T10:00': times(9), '2025-06-16T11:00': times(8) });
  });

  it('stay exact, without deadlocks, when two sessions insert, move and delete rows of the same hours in opposite orders at the same time', async () => {
    const [a, b] = (await createClinics(pool, 2)) as [string, string];
    const sessions = await Promise.all([session(), session()]);
    const hourOf = (i: number) => new Date(Date.UTC(2025, 5, 9, 10) + (i % 16) * 900_000 + (i % 3) * 60_000);
    try {
      // Each round, each session: 16 rows over the same 4 hours (ascending in one, descending in
      // the other), then every row of its clinic one quarter later (the last hour's wrapping to the
      // first), then the deletion of 4 of its rows. Statements run on their own (autocommit).
      const work = async (s: pg.Client, clinic: string, descending: boolean, round: number) => {
        const rows = Array.from({ length: 16 }, (_, i) =>
          row(clinic, hourOf(i + round).toISOString(), {
            outcome: i % 2 ? 'NO_ANSWER' : 'APPOINTMENT_BOOKED',
            ...(i % 4 === 0 ? { channel: 'whatsapp' as const, durationSeconds: null } : {}),
          }),
        );
        await insertRows(s, descending ? rows.reverse() : rows);
        await s.query(
          `UPDATE interactions SET started_at = CASE WHEN started_at >= '2025-06-09T13:45:00Z' THEN started_at - interval '3 hours 45 minutes'
                                                    ELSE started_at + interval '15 minutes' END,
                                   outcome = CASE WHEN outcome = 'NO_ANSWER' THEN 'APPOINTMENT_MODIFIED' ELSE 'NO_ANSWER' END
           WHERE clinic_id = $1`,
          [clinic],
        );
        await s.query('DELETE FROM interactions WHERE id = ANY($1::text[])', [rows.slice(0, 4).map((r) => r.id)]);
      };
      for (let round = 0; round < 8; round++) {
        await Promise.all([work(sessions[0], a, false, round), work(sessions[1], b, true, round)]);
      }
      const levels = within(await expectExact(pool), '2025-06-09');
      expect(Object.keys(levels.hours).sort()).toEqual(['2025-06-09T10:00', '2025-06-09T11:00', '2025-06-09T12:00', '2025-06-09T13:00']);
      expect(sum(levels.quarters, 'interactions')).toBe(2 * 8 * 12);
      expect(sum(levels.hours, 'inbound')).toBe(2 * 8 * 12);
    } finally {
      await Promise.all(sessions.map((s) => s.end()));
    }
  });
});

describe('the fine levels after TRUNCATE and writes without triggers', () => {
  it('are emptied by TRUNCATE, left behind by writes in replica mode, and recomputed by interaction_rollups_rebuild()', async () => {
    await pool.query('TRUNCATE interactions CASCADE');
    const { rows: left } = await pool.query<{ n: string }>(
      `SELECT ((SELECT count(*) FROM interaction_quarters) + (SELECT count(*) FROM interaction_day_hours)
              + (SELECT count(*) FROM interaction_hour_totals))::text AS n`,
    );
    expect(left[0]?.n).toBe('0');

    // Writes with every trigger off (session_replication_role = replica): the importer's batches,
    // then an UPDATE across buckets and a DELETE.
    const clinics = (await createClinics(pool, 2)) as [string, string];
    const rows: Row[] = Array.from({ length: 200 }, (_, i) =>
      row(clinics[i % 2]!, new Date(Date.UTC(2025, 6, 1, 23, 30) + i * 211_111).toISOString(), {
        outcome: i % 3 === 0 ? null : i % 3 === 1 ? 'APPOINTMENT_CANCELLED' : 'APPOINTMENT_BOOKED',
        durationSeconds: i % 4 === 0 ? null : i * 3,
        ...(i % 5 === 0 ? { channel: 'whatsapp' as const, type: 'FORM_OUTBOUND' as const, durationSeconds: null } : {}),
      }),
    );
    const replica = new pg.Pool({ connectionString: url, max: 1, options: '-c session_replication_role=replica' });
    try {
      await importRows(replica, rows, 50);
      await replica.query(`UPDATE interactions SET started_at = started_at + interval '7 minutes', outcome = 'NO_ANSWER' WHERE id = ANY($1::text[])`, [
        rows.filter((_, i) => i % 7 === 0).map((r) => r.id),
      ]);
      await replica.query('DELETE FROM interactions WHERE id = ANY($1::text[])', [rows.filter((_, i) => i % 11 === 0).map((r) => r.id)]);
    } finally {
      await replica.end();
    }
    const stale = await readLevels(pool);
    expect(stale.stored).toEqual({ quarters: {}, hours: {}, hourTotals: {} });
    expect(sum(stale.grouped.hours, 'interactions')).toBe(200 - 19);

    // In a session whose TimeZone is not UTC (the buckets must not depend on it).
    const rebuilder = await session('-c TimeZone=America/St_Johns');
    try {
      const { rows: rebuilt } = await rebuilder.query<{ n: string }>('SELECT interaction_fine_levels_rebuild()::text AS n');
      const { rows: written } = await rebuilder.query<{ n: string }>(
        `SELECT ((SELECT count(*) FROM interaction_quarters) + (SELECT count(*) FROM interaction_day_hours)
                + (SELECT count(*) FROM interaction_hour_totals))::text AS n`,
      );
      expect(rebuilt[0]?.n).toBe(written[0]?.n);
      // Written behind again, then the rebuild of every level.
      await rebuilder.query('SET session_replication_role = replica');
      await rebuilder.query(`UPDATE interactions SET started_at = started_at - interval '1 hour' WHERE clinic_id = $1`, [clinics[0]]);
      await rebuilder.query('SET session_replication_role = DEFAULT');
      await rebuilder.query('SELECT interaction_rollups_rebuild()');
    } finally {
      await rebuilder.end();
    }
    const levels = await expectExact(pool);
    expect(sum(levels.quarters, 'interactions')).toBe(181);
    expect(Object.keys(levels.hours)).toEqual(expect.arrayContaining(['2025-07-01T22:00', '2025-07-01T23:00', '2025-07-02T00:00']));
    await expectRollupExact(pool, clinics); // the other levels too

    // The triggers take over again from the rebuilt rows.
    await insertRows(pool, [row(clinics[0], '2025-07-01T22:14:59.999Z'), row(clinics[1], '2025-07-01T22:15:00.000Z')]);
    expect(sum((await expectExact(pool)).hours, 'interactions')).toBe(183);
  });
});
