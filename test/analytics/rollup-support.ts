// Checks of the rollups (the daily one and its coarser levels) against the raw table, restricted to a test's own clinics, and the
// bulk write paths of the importer and the seeder, as the rollup's triggers see them.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, expect } from 'vitest';
import { directionOfType, SCHEDULED_OUTCOME, SUCCESSFUL_OUTCOMES } from '../../src/domain/values.js';
import type { InteractionRecord } from '../../src/importer/records.js';
import { BatchWriter } from '../../src/importer/write.js';
import { databaseUrl } from '../helpers/db.js';

let pool: pg.Pool | undefined;

/** The file's node-postgres pool on the test database; closed after the file's tests. */
export function testPool(): pg.Pool {
  if (!pool) {
    const current = new pg.Pool({ connectionString: databaseUrl, max: 4 });
    pool = current;
    afterAll(async () => {
      await current.end();
      pool = undefined;
    });
  }
  return pool;
}

const KEY = `day, clinic_id, channel, type, direction, outcome`;

/** The rollup's rows of these clinics, as comparable strings in byte (JavaScript) order. */
export async function rollupRows(q: pg.Pool | pg.ClientBase, clinicIds: readonly string[]): Promise<string[]> {
  const { rows } = await q.query<{ row: string }>(
    `SELECT concat_ws('|', ${KEY}, interactions, timed_calls, duration_sum) AS row
     FROM interaction_daily_rollups WHERE clinic_id = ANY($1::uuid[])`,
    [clinicIds],
  );
  return rows.map((r) => r.row).sort();
}

/** What the rollup must hold for these clinics: a GROUP BY over the raw table. */
export async function groupedRows(q: pg.Pool | pg.ClientBase, clinicIds: readonly string[]): Promise<string[]> {
  const { rows } = await q.query<{ row: string }>(
    `SELECT concat_ws('|', day, clinic_id, channel, type, direction, outcome, interactions, timed_calls, duration_sum) AS row
     FROM (
       SELECT (started_at AT TIME ZONE 'UTC')::date AS day, clinic_id, channel, type, direction, coalesce(outcome, '') AS outcome,
              count(*) AS interactions,
              count(duration_seconds) FILTER (WHERE channel = 'voice') AS timed_calls,
              coalesce(sum(duration_seconds) FILTER (WHERE channel = 'voice'), 0) AS duration_sum
       FROM interactions WHERE clinic_id = ANY($1::uuid[])
       GROUP BY 1, 2, 3, 4, 5, 6
     ) AS g`,
    [clinicIds],
  );
  return rows.map((r) => r.row).sort();
}

/**
 * The coarser levels (interaction_day_totals, interaction_month_totals, interaction_month_outcomes)
 * of these clinics as comparable strings, one list per table, without the rows whose counts are all
 * 0 (kept by design: they add nothing to a sum).
 */
async function levelRows(q: pg.Pool | pg.ClientBase, clinicIds: readonly string[]): Promise<string[][]> {
  const totals = (table: string, period: string) =>
    q.query<{ row: string }>(
      `SELECT concat_ws('|', ${period}, clinic_id, channel, type, direction, interactions, with_outcome, successful, booked, timed_calls, duration_sum) AS row
       FROM ${table} WHERE clinic_id = ANY($1::uuid[]) AND (interactions <> 0 OR timed_calls <> 0 OR duration_sum <> 0)`,
      [clinicIds],
    );
  const outcomes = q.query<{ row: string }>(
    `SELECT concat_ws('|', month, clinic_id, channel, type, direction, outcome, interactions) AS row
     FROM interaction_month_outcomes WHERE clinic_id = ANY($1::uuid[]) AND interactions <> 0`,
    [clinicIds],
  );
  const results = await Promise.all([totals('interaction_day_totals', 'day'), totals('interaction_month_totals', 'month'), outcomes]);
  return results.map(({ rows }) => rows.map((r) => r.row).sort());
}

/**
 * What the coarser levels must hold: GROUP BYs over the raw table, with the metrics' definitions of
 * success and appointments taken from src/domain/values.ts (so a change there that the migration's
 * trigger does not follow fails here).
 */
async function groupedLevelRows(q: pg.Pool | pg.ClientBase, clinicIds: readonly string[]): Promise<string[][]> {
  const totals = (period: string) =>
    q.query<{ row: string }>(
      `SELECT concat_ws('|', p, clinic_id, channel, type, direction, n, with_outcome, successful, booked, timed, duration) AS row
       FROM (
         SELECT ${period} AS p, clinic_id, channel, type, direction, count(*) AS n, count(outcome) AS with_outcome,
                count(*) FILTER (WHERE outcome = ANY($2::text[])) AS successful,
                count(*) FILTER (WHERE outcome = $3) AS booked,
                count(duration_seconds) FILTER (WHERE channel = 'voice') AS timed,
                coalesce(sum(duration_seconds) FILTER (WHERE channel = 'voice'), 0) AS duration
         FROM interactions WHERE clinic_id = ANY($1::uuid[])
         GROUP BY 1, 2, 3, 4, 5
       ) AS g`,
      [clinicIds, [...SUCCESSFUL_OUTCOMES], SCHEDULED_OUTCOME],
    );
  const month = `date_trunc('month', started_at AT TIME ZONE 'UTC')::date`;
  const outcomes = q.query<{ row: string }>(
    `SELECT concat_ws('|', m, clinic_id, channel, type, direction, o, n) AS row
     FROM (
       SELECT ${month} AS m, clinic_id, channel, type, direction, coalesce(outcome, '') AS o, count(*) AS n
       FROM interactions WHERE clinic_id = ANY($1::uuid[])
       GROUP BY 1, 2, 3, 4, 5, 6
     ) AS g`,
    [clinicIds],
  );
  const results = await Promise.all([totals(`(started_at AT TIME ZONE 'UTC')::date`), totals(month), outcomes]);
  return results.map(({ rows }) => rows.map((r) => r.row).sort());
}

/**
 * Asserts that the all-clinics levels (interaction_{day,month}_totals_all_clinics,
 * interaction_{day,month}_outcomes_all_clinics, interaction_days) equal GROUP BYs over the whole raw table. Other
 * test files write concurrently, so both sides are read in one REPEATABLE READ snapshot (the
 * triggers write in the writer's transaction: every snapshot must agree).
 */
async function expectAllClinicsLevelsExact(q: pg.Pool | pg.ClientBase): Promise<void> {
  const client = q instanceof pg.Pool ? await q.connect() : q;
  const day = `(started_at AT TIME ZONE 'UTC')::date`;
  const month = `date_trunc('month', started_at AT TIME ZONE 'UTC')::date`;
  const levels = [
    { totals: 'interaction_day_totals_all_clinics', outcomes: 'interaction_day_outcomes_all_clinics', key: 'day', of: day },
    { totals: 'interaction_month_totals_all_clinics', outcomes: 'interaction_month_outcomes_all_clinics', key: 'month', of: month },
  ];
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    const read = async (sql: string, values: unknown[] = []) => (await client.query<{ row: string }>(sql, values)).rows.map((r) => r.row).sort();
    const compared: Array<{ level: string; stored: string[]; grouped: string[] }> = [];
    for (const level of levels) {
      compared.push({
        level: level.totals,
        stored: await read(
          `SELECT concat_ws('|', ${level.key}, channel, type, direction, interactions, with_outcome, successful, booked, timed_calls, duration_sum) AS row
           FROM ${level.totals} WHERE interactions <> 0 OR timed_calls <> 0 OR duration_sum <> 0`,
        ),
        grouped: await read(
          `SELECT concat_ws('|', k, channel, type, direction, n, with_outcome, successful, booked, timed, duration) AS row
           FROM (
             SELECT ${level.of} AS k, channel, type, direction, count(*) AS n, count(outcome) AS with_outcome,
                    count(*) FILTER (WHERE outcome = ANY($1::text[])) AS successful,
                    count(*) FILTER (WHERE outcome = $2) AS booked,
                    count(duration_seconds) FILTER (WHERE channel = 'voice') AS timed,
                    coalesce(sum(duration_seconds) FILTER (WHERE channel = 'voice'), 0) AS duration
             FROM interactions GROUP BY 1, 2, 3, 4
           ) AS g`,
          [[...SUCCESSFUL_OUTCOMES], SCHEDULED_OUTCOME],
        ),
      });
      compared.push({
        level: level.outcomes,
        stored: await read(
          `SELECT concat_ws('|', ${level.key}, channel, type, direction, outcome, interactions) AS row
           FROM ${level.outcomes} WHERE interactions <> 0`,
        ),
        grouped: await read(
          `SELECT concat_ws('|', ${level.of}, channel, type, direction, coalesce(outcome, ''), count(*)) AS row
           FROM interactions GROUP BY ${level.of}, channel, type, direction, coalesce(outcome, '')`,
        ),
      });
    }
    compared.push({
      level: 'interaction_days',
      stored: await read(
        `SELECT concat_ws('|', day, interactions, calls, conversations, inbound, outbound, with_outcome, successful, booked, timed_calls, duration_sum) AS row
         FROM interaction_days WHERE interactions <> 0 OR timed_calls <> 0 OR duration_sum <> 0`,
      ),
      grouped: await read(
        `SELECT concat_ws('|', ${day}, count(*), count(*) FILTER (WHERE channel = 'voice'), count(*) FILTER (WHERE channel = 'whatsapp'),
                count(*) FILTER (WHERE direction = 'inbound'), count(*) FILTER (WHERE direction = 'outbound'), count(outcome),
                count(*) FILTER (WHERE outcome = ANY($1::text[])), count(*) FILTER (WHERE outcome = $2),
                count(duration_seconds) FILTER (WHERE channel = 'voice'), coalesce(sum(duration_seconds) FILTER (WHERE channel = 'voice'), 0)) AS row
         FROM interactions GROUP BY ${day}`,
        [[...SUCCESSFUL_OUTCOMES], SCHEDULED_OUTCOME],
      ),
    });
    await client.query('COMMIT');
    for (const { level, stored, grouped } of compared) expect(stored, level).toEqual(grouped);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    if (q instanceof pg.Pool) (client as pg.PoolClient).release();
  }
}

/**
 * Asserts that every rollup level of these clinics, and the all-clinics levels, equal GROUP BYs of
 * the raw rows; returns the daily rollup's rows.
 */
export async function expectRollupExact(q: pg.Pool | pg.ClientBase, clinicIds: readonly string[]): Promise<string[]> {
  const [rollup, grouped, levels, groupedLevels] = await Promise.all([
    rollupRows(q, clinicIds),
    groupedRows(q, clinicIds),
    levelRows(q, clinicIds),
    groupedLevelRows(q, clinicIds),
  ]);
  expect(rollup).toEqual(grouped);
  expect(levels).toEqual(groupedLevels);
  await expectAllClinicsLevelsExact(q);
  return rollup;
}

/** Clinics created with plain SQL (ids only matter here). */
export async function createClinics(q: pg.Pool | pg.ClientBase, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => randomUUID());
  await q.query(
    `INSERT INTO clinics (id, name, address, phone, email, timezone)
     SELECT id, 'Rollup test clinic', '1 Test Street', '+1 555 0100', 'rollup@example.test', 'UTC' FROM unnest($1::uuid[]) AS id`,
    [ids],
  );
  return ids;
}

export interface Row {
  id: string;
  clinicId: string;
  channel: 'voice' | 'whatsapp';
  type: 'INBOUND' | 'FORM_OUTBOUND' | 'CAMPAIGN_OUTBOUND' | 'CAMPAIGN_CALLBACK' | 'APPOINTMENT_REMINDER';
  startedAt: Date;
  durationSeconds: number | null;
  outcome: string | null;
}

export function newId(): string {
  return `int_rollup_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
}

/** The importer's representation of a row. */
export function toRecord(row: Row): InteractionRecord {
  return {
    id: row.id,
    channel: row.channel,
    type: row.type,
    direction: directionOfType(row.type),
    phone_number: '+34 600 000 000',
    clinic_id: row.clinicId,
    campaign_id: null,
    started_at: row.startedAt.toISOString(),
    ended_at: null,
    duration_seconds: row.durationSeconds,
    outcome: row.outcome,
    summary: 'Rollup test',
    recording_url: null,
  };
}

/** Upserts rows exactly as `cli import` does: multi-row INSERT ... ON CONFLICT (id) DO UPDATE, in one transaction. */
export async function importRows(p: pg.Pool, rows: readonly Row[], batchSize = 500): Promise<void> {
  const client = await p.connect();
  try {
    await client.query('BEGIN');
    const writer = new BatchWriter(client, 'interactions', batchSize);
    for (const row of rows) {
      writer.push(toRecord(row));
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

/** One plain multi-row INSERT (no ON CONFLICT). */
export async function insertRows(q: pg.Pool | pg.ClientBase, rows: readonly Row[]): Promise<void> {
  if (rows.length === 0) return;
  await q.query(
    `INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, started_at, duration_seconds, outcome)
     SELECT id, channel, type, CASE WHEN type = 'INBOUND' THEN 'inbound' ELSE 'outbound' END::"Direction", '+34 600 000 001', clinic_id,
            started_at, duration_seconds, outcome
     FROM unnest($1::text[], $2::"Channel"[], $3::"InteractionType"[], $4::uuid[], $5::timestamptz[], $6::int[], $7::text[])
       AS t(id, channel, type, clinic_id, started_at, duration_seconds, outcome)`,
    [
      rows.map((r) => r.id),
      rows.map((r) => r.channel),
      rows.map((r) => r.type),
      rows.map((r) => r.clinicId),
      rows.map((r) => r.startedAt.toISOString()),
      rows.map((r) => r.durationSeconds),
      rows.map((r) => r.outcome),
    ],
  );
}

/** A connection of its own (a concurrent writer), with its backend pid for waitUntilBlocked. */
export async function session(): Promise<pg.Client & { pid: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return Object.assign(client, { pid: rows[0]!.pid });
}

/** Waits until the backend `pid` waits for a lock (so a test knows a statement is blocked). */
export async function waitUntilBlocked(q: pg.Pool, pid: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await q.query<{ wait: string | null }>('SELECT wait_event_type AS wait FROM pg_stat_activity WHERE pid = $1', [pid]);
    if (rows[0]?.wait === 'Lock') return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`backend ${pid} never waited for a lock`);
}
