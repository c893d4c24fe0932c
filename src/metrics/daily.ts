// Daily metrics: one entry per UTC date of the window, zero-filled, ascending, in one query.
import type { Db } from '../db/client.js';
import { Prisma } from '../generated/prisma/client.js';
import type { MetricsFilter } from './filter.js';
import { countedTotals } from './sql.js';
import { NO_TOTALS, SUMS, type SumsRow, totalsOf } from './totals.js';
import { utcDays } from './window.js';

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

/** The sums of each UTC day of the window that has interactions (days without any have no row). */
export function dailyQuery(filter: MetricsFilter): Prisma.Sql {
  // Full days come from the daily totals (never the monthly level: every day is an entry), partial
  // days from the raw table (sql.ts).
  return Prisma.sql`
    WITH counted AS (${countedTotals(filter, { months: false })})
    SELECT to_char(day, 'YYYY-MM-DD') AS date, ${SUMS}
    FROM counted
    GROUP BY day`;
}

export async function metricsDaily(db: Db, filter: MetricsFilter): Promise<DailyMetric[]> {
  const rows = await db.$queryRaw<Array<SumsRow & { date: string }>>(dailyQuery(filter));
  const byDate = new Map(rows.map((row) => [row.date, totalsOf(row)]));
  // The days are listed here, not by the query: zero-filling in SQL (generate_series joined to the
  // sums, then sorted) cost more than the sums themselves.
  return utcDays(filter.from, filter.to).map((date) => {
    const totals = byDate.get(date) ?? NO_TOTALS;
    return {
      date,
      total: totals.total,
      calls: totals.calls,
      conversations: totals.conversations,
      inbound: totals.inbound,
      outbound: totals.outbound,
      appointmentsScheduled: totals.appointmentsScheduled,
      successRate: totals.successRate,
      avgDurationSeconds: totals.avgDurationSeconds,
    };
  });
}
