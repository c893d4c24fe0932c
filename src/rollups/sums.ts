// What PostgreSQL sums over a set of COUNTED TOTALS rows (counted.ts), and the columns of
// interaction_days that hold the same sums for a day: integer sums only, one column each, in one
// order (SUM_COLUMNS). The counts and the two rates are derived from them in analytics/totals.ts.
//
// Why not in SQL: a year of daily metrics is 365 rows, and deriving them in the query (numeric
// division and round(), zero-filled days joined from generate_series, then sorted) took about
// half of its execution time. Integer sums grouped by day are all PostgreSQL has to produce.
import { Prisma } from '../generated/prisma/client.js';

/** What each column of SUMS sums over COUNTED TOTALS rows, in the order of the columns. */
const SUM_OF = {
  total: 'sum(n)',
  calls: "sum(n) FILTER (WHERE channel = 'voice')",
  conversations: "sum(n) FILTER (WHERE channel = 'whatsapp')",
  inbound: "sum(n) FILTER (WHERE direction = 'inbound')",
  outbound: "sum(n) FILTER (WHERE direction = 'outbound')",
  appointments_scheduled: 'sum(booked)',
  with_outcome: 'sum(with_outcome)',
  successful: 'sum(successful)',
  timed_calls: 'sum(timed_calls)',
  duration_sum: 'sum(duration_sum)',
} as const;

/** A row of SUMS, as the driver adapter returns bigint columns (the daily series reads numbers: totalsAt). */
export type SumsRow = Record<keyof typeof SUM_OF, bigint>;

/** The columns of SUMS, in order. */
export const SUM_COLUMNS = Object.keys(SUM_OF) as ReadonlyArray<keyof SumsRow>;

/** Sums over COUNTED TOTALS rows, as bigint, 0 over no rows (a SELECT list, with GROUP BY or without). */
export const SUMS = Prisma.raw(SUM_COLUMNS.map((column) => `coalesce(${SUM_OF[column]}, 0)::bigint AS ${column}`).join(',\n  '));

/** SUMS without names: arguments of a function (a row written as text). */
export const SUM_VALUES = Prisma.raw(SUM_COLUMNS.map((column) => `coalesce(${SUM_OF[column]}, 0)::bigint`).join(', '));

/** The column of `interaction_days` that holds each sum of a day (the table is split the same way). */
export const DAY_COLUMN_OF: Record<keyof SumsRow, string> = {
  total: 'interactions',
  calls: 'calls',
  conversations: 'conversations',
  inbound: 'inbound',
  outbound: 'outbound',
  appointments_scheduled: 'booked',
  with_outcome: 'with_outcome',
  successful: 'successful',
  timed_calls: 'timed_calls',
  duration_sum: 'duration_sum',
};

/** The columns of `interaction_days` as the columns of SUMS, in the same order (a SELECT list). */
export const DAY_SUMS = Prisma.raw(SUM_COLUMNS.map((column) => `${DAY_COLUMN_OF[column]} AS ${column}`).join(', '));
