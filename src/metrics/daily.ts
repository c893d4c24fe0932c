// Daily metrics: one entry per UTC date of the window, zero-filled, ascending, in one query.
import type { Db } from '../db/client.js';
import { Prisma } from '../generated/prisma/client.js';
import type { MetricsFilter } from './filter.js';
import { AGGREGATES, countedTotals, DERIVED, type DerivedRow, instant, num } from './sql.js';

export interface DailyMetric {
  /** YYYY-MM-DD, UTC. */
  date: string;
  total: number;
  calls: number;
  conversations: number;
  inbound: number;
  outbound: number;
  appointmentsScheduled: number;
  successRate: number;
  avgDurationSeconds: number;
}

export function dailyQuery(filter: MetricsFilter): Prisma.Sql {
  const firstDay = Prisma.sql`(${instant(filter.from, 'from')} AT TIME ZONE 'UTC')::date`;
  const lastDay = Prisma.sql`(${instant(filter.to, 'to')} AT TIME ZONE 'UTC')::date`;
  // Days are generated as date + integer (not a timestamp series), so no time zone is involved.
  // Full days come from the daily totals (never the monthly level: every day is an entry), partial
  // days from the raw table (sql.ts).
  return Prisma.sql`
    WITH days AS (
      SELECT b.first_day + i AS day
      FROM (SELECT ${firstDay} AS first_day, ${lastDay} AS last_day) AS b,
           generate_series(0, b.last_day - b.first_day) AS i
    ),
    counted AS (${countedTotals(filter, { months: false })}),
    per_day AS (
      SELECT day, ${AGGREGATES}
      FROM counted
      GROUP BY day
    )
    SELECT to_char(days.day, 'YYYY-MM-DD') AS date, ${DERIVED}
    FROM days LEFT JOIN per_day AS a ON a.day = days.day
    ORDER BY days.day`;
}

export async function metricsDaily(db: Db, filter: MetricsFilter): Promise<DailyMetric[]> {
  const rows = await db.$queryRaw<Array<DerivedRow & { date: string }>>(dailyQuery(filter));
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
