// Daily metrics: one entry per UTC date of the window, zero-filled, ascending, in one query.
import type { Db } from '../db/client.js';
import { prepared, queryRows } from '../db/client.js';
import { Prisma } from '../generated/prisma/client.js';
import { countedTotals, everyInteractionByDay, hasDimensions, utcDayNumber, utcDays } from '../rollups/counted.js';
import { DAY_SUMS, SUM_COLUMNS, SUMS } from '../rollups/sums.js';
import type { MetricsFilter } from './filter.js';
import { NO_TOTALS, type Totals, totalsAt } from './totals.js';

/** The totals of one UTC day (`date`: YYYY-MM-DD); the daily series has no total call duration. */
export type DailyMetric = { date: string } & Omit<Totals, 'totalDurationSeconds'>;

/** Numbers per day in the query's answer: the day, then the sums. */
const STRIDE = 1 + SUM_COLUMNS.length;

/**
 * The sums of each UTC day of the window that has interactions (days without any are left out), as
 * one row whose `days` is the text of a flat JSON array of numbers: for each day, its number (days
 * since 1970-01-01) followed by SUM_COLUMNS.
 */
export function dailyQuery(filter: MetricsFilter): Prisma.Sql {
  // One flat array of numbers rather than a row per day: a year is 365 rows of 11 columns, and
  // reading them field by field (driver, then Prisma's value mapping) cost several times what
  // JSON.parse of the same data does; built with string_agg rather than json_agg(json_build_array)
  // and with day numbers rather than to_char (both measurably cheaper in PostgreSQL:
  // bench/results/2026-11-23-design-measurements.md).
  return Prisma.sql`
    WITH per_day AS (${perDay(filter)})
    SELECT '[' || coalesce(string_agg(concat_ws(',', day - DATE '1970-01-01', ${Prisma.raw(SUM_COLUMNS.join(', '))}), ','), '') || ']' AS days
    FROM per_day`;
}

/** `(day, ...SUM_COLUMNS)`, one row per day of the window that has interactions, in any order. */
function perDay(filter: MetricsFilter): Prisma.Sql {
  if (hasDimensions(filter)) {
    // Full days from the daily totals (never the monthly level: every day is an entry), partial
    // days from the raw table (client.ts).
    return Prisma.sql`SELECT day, ${SUMS} FROM (${countedTotals(filter, { months: false })}) AS counted GROUP BY day`;
  }
  // Everything: full days are one row each in interaction_days, read as they are (grouping the
  // all-clinics totals by day was most of the query); the partial days at the edges, which are
  // other days, are grouped from the raw table.
  return everyInteractionByDay(filter, { days: DAY_SUMS, raw: SUMS });
}

export async function metricsDaily(db: Db, filter: MetricsFilter): Promise<DailyMetric[]> {
  const [row] = await queryRows<{ days: string }>(db, prepared('metrics_daily', dailyQuery(filter)));
  if (!row) throw new Error('metrics daily: the aggregate query returned no row');
  const values: unknown = JSON.parse(row.days);
  if (!isNumbers(values) || values.length % STRIDE !== 0) throw new Error('metrics daily: unexpected answer from the query');
  // The days are listed here, not by the query: zero-filling in SQL (generate_series joined to the
  // sums, then sorted) cost more than the sums themselves.
  const dates = utcDays(filter.from, filter.to);
  const first = utcDayNumber(filter.from, 'from');
  const series: Array<DailyMetric | undefined> = new Array(dates.length);
  for (let i = 0; i < values.length; i += STRIDE) {
    const at = values[i]! - first;
    if (!(at >= 0 && at < dates.length) || series[at]) throw new Error(`metrics daily: unexpected day ${values[i]} in the answer`);
    series[at] = dailyMetric(dates[at]!, totalsAt(values, i + 1));
  }
  for (let at = 0; at < dates.length; at++) series[at] ??= dailyMetric(dates[at]!, NO_TOTALS);
  return series as DailyMetric[];
}

function isNumbers(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'number');
}

/** Written out rather than spread: a year builds 365 of these (also in a time zone: zoned.ts). */
export function dailyMetric(date: string, totals: Totals): DailyMetric {
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
}
