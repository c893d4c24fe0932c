// The metrics as they were computed before the daily rollup: one aggregate query over the raw
// `interactions` table only. Kept here as a reference that the rollup-based queries (src/metrics)
// must equal, row for row, for any data, window and filter.
import type { DailyMetric } from '../../src/analytics/daily.js';
import type { MetricsFilter } from '../../src/analytics/filter.js';
import type { OutcomeBreakdown } from '../../src/analytics/outcomes.js';
import type { SummaryMetrics } from '../../src/analytics/summary.js';
import type { Db } from '../../src/db/client.js';
import { instant, num } from '../../src/db/client.js';
import { outcomeLabel, SCHEDULED_OUTCOME, SUCCESSFUL_OUTCOMES } from '../../src/domain/values.js';
import { Prisma } from '../../src/generated/prisma/client.js';

function rawWhere(filter: MetricsFilter): Prisma.Sql {
  const conditions: Prisma.Sql[] = [Prisma.sql`started_at >= ${instant(filter.from, 'from')}`, Prisma.sql`started_at <= ${instant(filter.to, 'to')}`];
  if (filter.clinicIds !== undefined) {
    conditions.push(filter.clinicIds.length === 0 ? Prisma.sql`FALSE` : Prisma.sql`clinic_id = ANY(${[...filter.clinicIds]}::uuid[])`);
  }
  if (filter.channel !== undefined) conditions.push(Prisma.sql`channel = ${filter.channel}::"Channel"`);
  if (filter.type !== undefined) conditions.push(Prisma.sql`type = ${filter.type}::"InteractionType"`);
  return Prisma.join(conditions, ' AND ');
}

const RAW_AGGREGATES = Prisma.sql`
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

/** The row shape of RAW_DERIVED as the driver adapter returns it. */
interface DerivedRow {
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

const RAW_DERIVED = Prisma.sql`
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

export function rawSummaryQuery(filter: MetricsFilter): Prisma.Sql {
  return Prisma.sql`SELECT ${RAW_DERIVED} FROM (SELECT ${RAW_AGGREGATES} FROM interactions WHERE ${rawWhere(filter)}) AS a`;
}

export function rawDailyQuery(filter: MetricsFilter): Prisma.Sql {
  const firstDay = Prisma.sql`(${instant(filter.from, 'from')} AT TIME ZONE 'UTC')::date`;
  const lastDay = Prisma.sql`(${instant(filter.to, 'to')} AT TIME ZONE 'UTC')::date`;
  return Prisma.sql`
    WITH days AS (
      SELECT b.first_day + i AS day
      FROM (SELECT ${firstDay} AS first_day, ${lastDay} AS last_day) AS b, generate_series(0, b.last_day - b.first_day) AS i
    ),
    per_day AS (
      SELECT (started_at AT TIME ZONE 'UTC')::date AS day, ${RAW_AGGREGATES}
      FROM interactions WHERE ${rawWhere(filter)} GROUP BY 1
    )
    SELECT to_char(days.day, 'YYYY-MM-DD') AS date, ${RAW_DERIVED}
    FROM days LEFT JOIN per_day AS a ON a.day = days.day
    ORDER BY days.day`;
}

export function rawOutcomesQuery(filter: MetricsFilter): Prisma.Sql {
  return Prisma.sql`
    SELECT o.outcome, o.count, o.total::bigint AS total, round(o.count * 100::numeric / o.total, 2)::float8 AS percentage
    FROM (
      SELECT outcome, count(*) AS count, sum(count(*)) OVER () AS total
      FROM interactions WHERE ${rawWhere(filter)} AND outcome IS NOT NULL GROUP BY outcome
    ) AS o
    ORDER BY o.count DESC, o.outcome COLLATE "C" ASC`;
}

export async function rawSummary(db: Db, filter: MetricsFilter): Promise<SummaryMetrics> {
  const [row] = await db.$queryRaw<DerivedRow[]>(rawSummaryQuery(filter));
  if (!row) throw new Error('no row');
  return {
    totalInteractions: num(row.total),
    totalCalls: num(row.calls),
    totalConversations: num(row.conversations),
    inboundCount: num(row.inbound),
    outboundCount: num(row.outbound),
    avgDurationSeconds: num(row.avg_duration_seconds),
    totalDurationSeconds: num(row.total_duration_seconds),
    successRate: num(row.success_rate),
    appointmentsScheduled: num(row.appointments_scheduled),
  };
}

export async function rawDaily(db: Db, filter: MetricsFilter): Promise<DailyMetric[]> {
  const rows = await db.$queryRaw<Array<DerivedRow & { date: string }>>(rawDailyQuery(filter));
  return rows.map((row) => ({
    date: row.date,
    total: num(row.total),
    calls: num(row.calls),
    conversations: num(row.conversations),
    inbound: num(row.inbound),
    outbound: num(row.outbound),
    appointmentsScheduled: num(row.appointments_scheduled),
    successRate: num(row.success_rate),
    avgDurationSeconds: num(row.avg_duration_seconds),
  }));
}

export async function rawOutcomes(db: Db, filter: MetricsFilter): Promise<{ outcomes: OutcomeBreakdown[]; total: number }> {
  const rows = await db.$queryRaw<Array<{ outcome: string; count: bigint; total: bigint; percentage: number }>>(rawOutcomesQuery(filter));
  return {
    outcomes: rows.map((row) => ({ outcome: row.outcome, label: outcomeLabel(row.outcome), count: num(row.count), percentage: num(row.percentage) })),
    total: num(rows[0]?.total),
  };
}
