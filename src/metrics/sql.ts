// SQL shared by the metrics queries. Everything is aggregated by PostgreSQL; JavaScript only renames
// columns and converts bigint / numeric results to numbers.
//
// Rounding is done in SQL with numeric round(), which rounds half away from zero (binary floating
// point in JavaScript would turn 10.005 into 10.00).
//
// The day boundaries are UTC: days are `(started_at AT TIME ZONE 'UTC')::date`, and the window's
// instants are bound as ISO 8601 strings with `Z`, so nothing depends on the session's TimeZone.
// (A JS Date bound directly is sent by the pg driver adapter as a wall-clock string without an offset,
// which `::timestamptz` would read in the session's time zone.)
import { SCHEDULED_OUTCOME, SUCCESSFUL_OUTCOMES } from '../domain/values.js';
import { Prisma } from '../generated/prisma/client.js';
import type { MetricsFilter } from './filter.js';

/** A timestamptz parameter for an instant, independent of the session's TimeZone. */
export function instant(value: Date, name: string): Prisma.Sql {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new RangeError(`metrics filter: ${name} is not a valid date`);
  }
  return Prisma.sql`${value.toISOString()}::timestamptz`;
}

/**
 * The WHERE condition (on unqualified columns of "interactions") selecting the filter's rows. Plain
 * comparisons on the bare columns, so the (clinic_id, started_at), (channel, type, started_at) and
 * (started_at) indexes apply; absent restrictions add no predicate at all.
 */
export function interactionsWhere(filter: MetricsFilter): Prisma.Sql {
  const conditions: Prisma.Sql[] = [
    Prisma.sql`started_at >= ${instant(filter.from, 'from')}`,
    Prisma.sql`started_at <= ${instant(filter.to, 'to')}`,
  ];
  if (filter.clinicIds !== undefined) {
    conditions.push(
      filter.clinicIds.length === 0
        ? Prisma.sql`FALSE` // no clinic: the planner answers without reading the table
        : Prisma.sql`clinic_id = ANY(${[...filter.clinicIds]}::uuid[])`,
    );
  }
  if (filter.channel !== undefined) conditions.push(Prisma.sql`channel = ${filter.channel}::"Channel"`);
  if (filter.type !== undefined) conditions.push(Prisma.sql`type = ${filter.type}::"InteractionType"`);
  return Prisma.join(conditions, ' AND ');
}

/** The UTC calendar day of an interaction. */
export const UTC_DAY = Prisma.sql`(started_at AT TIME ZONE 'UTC')::date`;

/**
 * Raw aggregates over a set of interactions (a SELECT list, to be used with GROUP BY or without).
 * Every column is bigint (count, or sum of int4).
 */
export const AGGREGATES = Prisma.sql`
  count(*) AS total,
  count(*) FILTER (WHERE channel = 'voice') AS calls,
  count(*) FILTER (WHERE channel = 'whatsapp') AS conversations,
  count(*) FILTER (WHERE direction = 'inbound') AS inbound,
  count(*) FILTER (WHERE direction = 'outbound') AS outbound,
  count(*) FILTER (WHERE outcome = ${SCHEDULED_OUTCOME}::text) AS appointments_scheduled,
  count(outcome) AS with_outcome,
  count(*) FILTER (WHERE outcome = ANY(${[...SUCCESSFUL_OUTCOMES]}::text[])) AS successful,
  count(duration_seconds) FILTER (WHERE channel = 'voice') AS timed_calls,
  sum(duration_seconds) FILTER (WHERE channel = 'voice') AS duration_sum`;

/**
 * The metrics derived from a row `a` of AGGREGATES columns, which may all be NULL (a day without
 * interactions, LEFT JOINed): counts as bigint, rates as float8 rounded to 2 decimals.
 */
export const DERIVED = Prisma.sql`
  coalesce(a.total, 0)::bigint AS total,
  coalesce(a.calls, 0)::bigint AS calls,
  coalesce(a.conversations, 0)::bigint AS conversations,
  coalesce(a.inbound, 0)::bigint AS inbound,
  coalesce(a.outbound, 0)::bigint AS outbound,
  coalesce(a.appointments_scheduled, 0)::bigint AS appointments_scheduled,
  coalesce(a.duration_sum, 0)::bigint AS total_duration_seconds,
  (CASE WHEN coalesce(a.with_outcome, 0) = 0 THEN 0
        ELSE round(a.successful * 100::numeric / a.with_outcome, 2) END)::float8 AS success_rate,
  (CASE WHEN coalesce(a.timed_calls, 0) = 0 THEN 0
        ELSE round(a.duration_sum::numeric / a.timed_calls, 2) END)::float8 AS avg_duration_seconds`;

/** The row shape of DERIVED as the driver adapter returns it. */
export interface DerivedRow {
  total: bigint;
  calls: bigint;
  conversations: bigint;
  inbound: bigint;
  outbound: bigint;
  appointments_scheduled: bigint;
  total_duration_seconds: bigint;
  success_rate: number;
  avg_duration_seconds: number;
}

/** A bigint / numeric / float result as a JS number (counts stay exact up to 2^53). */
export function num(value: bigint | number | string | null | undefined): number {
  if (value === null || value === undefined) return 0;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new TypeError(`metrics: unexpected numeric value ${String(value)}`);
  return n;
}
