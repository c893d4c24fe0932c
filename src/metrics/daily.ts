// Daily metrics: one entry per UTC date of the window, zero-filled, ascending, in one query.
import { type Db, prepared } from '../db/client.js';
import { Prisma } from '../generated/prisma/client.js';
import type { MetricsFilter } from './filter.js';
import { countedTotals } from './sql.js';
import { NO_TOTALS, SUM_COLUMNS, SUMS, sumsRow, type Totals, totalsOf } from './totals.js';
import { utcDays } from './window.js';

/** The totals of one UTC day (`date`: YYYY-MM-DD); the daily series has no total call duration. */
export type DailyMetric = { date: string } & Omit<Totals, 'totalDurationSeconds'>;

/**
 * The sums of each UTC day of the window that has interactions (days without any are left out), as
 * one JSON array of arrays `[date, ...SUM_COLUMNS]` in one row.
 */
export function dailyQuery(filter: MetricsFilter): Prisma.Sql {
  // Full days come from the daily totals (never the monthly level: every day is an entry), partial
  // days from the raw table (sql.ts). One JSON value rather than a row per day: a year is 365 rows
  // of 11 columns, and reading them field by field (driver, then Prisma's value mapping) cost
  // several times what JSON.parse of the same data does (arrays: names repeated 365 times cost
  // more to write and to parse).
  return Prisma.sql`
    WITH counted AS (${countedTotals(filter, { months: false })}),
    per_day AS (
      SELECT to_char(day, 'YYYY-MM-DD') AS date, ${SUMS}
      FROM counted
      GROUP BY day
    )
    SELECT coalesce(json_agg(json_build_array(date, ${Prisma.raw(SUM_COLUMNS.join(', '))})), '[]'::json) AS days FROM per_day`;
}

export async function metricsDaily(db: Db, filter: MetricsFilter): Promise<DailyMetric[]> {
  const [row] = await db.$queryRaw<Array<{ days: Array<[string, ...number[]]> }>>(prepared(dailyQuery(filter)));
  if (!row) throw new Error('metrics daily: the aggregate query returned no row');
  const byDate = new Map(row.days.map(([date, ...sums]) => [date, totalsOf(sumsRow(sums))]));
  // The days are listed here, not by the query: zero-filling in SQL (generate_series joined to the
  // sums, then sorted) cost more than the sums themselves.
  return utcDays(filter.from, filter.to).map((date) => {
    const { totalDurationSeconds: _, ...totals } = byDate.get(date) ?? NO_TOTALS;
    return { date, ...totals };
  });
}
