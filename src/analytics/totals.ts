// The totals of a set of COUNTED TOTALS rows, shared by the summary and the daily series: from
// their integer sums (rollups/sums.ts), the counts and the two rates are derived here.
//
// The rates are computed from those integers exactly (integer arithmetic in doubles while that is
// exact, BigInt beyond), rounded half away from zero as numeric round() does (dividing in binary
// floating point first would turn 10.005 into 10.00).
import { num } from '../db/client.js';
import { SUM_COLUMNS, type SumsRow } from '../rollups/sums.js';

export interface Totals {
  total: number;
  calls: number;
  conversations: number;
  inbound: number;
  outbound: number;
  appointmentsScheduled: number;
  totalDurationSeconds: number;
  /** Successful outcomes per 100 interactions with an outcome, 2 decimals; 0 when none has one. */
  successRate: number;
  /** Mean duration of the calls that have one, 2 decimals; 0 when none has. */
  avgDurationSeconds: number;
}

/** The totals of no interactions (a day without any). */
export const NO_TOTALS: Totals = {
  total: 0,
  calls: 0,
  conversations: 0,
  inbound: 0,
  outbound: 0,
  appointmentsScheduled: 0,
  totalDurationSeconds: 0,
  successRate: 0,
  avgDurationSeconds: 0,
};

/** Below this, products and sums of integers are exact in binary floating point (2^53 / 256). */
const EXACT_IN_DOUBLES = 2 ** 45;

/**
 * numerator / denominator to 2 decimals, half away from zero, exactly; 0 when the denominator is 0.
 * The result is the double nearest to that decimal, as PostgreSQL's round(...)::float8 gives it.
 */
export function ratio2(numerator: bigint | number, denominator: bigint | number): number {
  if (typeof numerator === 'number' && typeof denominator === 'number' && Math.abs(numerator) < EXACT_IN_DOUBLES && Math.abs(denominator) < EXACT_IN_DOUBLES) {
    return ratio2OfSmall(numerator, denominator);
  }
  return ratio2OfBig(BigInt(numerator), BigInt(denominator));
}

/**
 * ratio2 for integers whose magnitudes are under EXACT_IN_DOUBLES, without BigInt (a year of daily
 * metrics computes 730 rates, and BigInt's allocations were a visible part of the request).
 */
function ratio2OfSmall(numerator: number, denominator: number): number {
  if (denominator === 0) return 0;
  const negative = numerator < 0 !== denominator < 0;
  const n = Math.abs(numerator);
  const d = Math.abs(denominator);
  // floor((n * 200 + d) / (2 * d)), as in ratio2OfBig. Dividend and divisor are exact integers, and
  // flooring their rounded quotient is exact: a quotient just short of an integer k falls short by
  // at least 1 / divisor, and rounding moves it by at most k * 2^-53, less than that because
  // k * divisor < dividend + divisor < 203 * 2^45 < 2^53.
  const hundredths = Math.floor((n * 200 + d) / (2 * d));
  // (-0 would print as 0 but is not PostgreSQL's 0.)
  return (negative && hundredths !== 0 ? -hundredths : hundredths) / 100;
}

function ratio2OfBig(numerator: bigint, denominator: bigint): number {
  if (denominator === 0n) return 0;
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  // floor(n / d * 100 + 1/2): hundredths, the half rounded up (away from zero, the sign aside).
  const hundredths = (n * 200n + d) / (2n * d);
  return Number(negative ? -hundredths : hundredths) / 100;
}

export function totalsOf(row: SumsRow): Totals {
  return {
    total: num(row.total),
    calls: num(row.calls),
    conversations: num(row.conversations),
    inbound: num(row.inbound),
    outbound: num(row.outbound),
    appointmentsScheduled: num(row.appointments_scheduled),
    totalDurationSeconds: num(row.duration_sum),
    successRate: ratio2(row.successful * 100n, row.with_outcome),
    avgDurationSeconds: ratio2(row.duration_sum, row.timed_calls),
  };
}

/** Where each sum is in a run of SUM_COLUMNS.length values (SUM_COLUMNS order). */
const AT = Object.fromEntries(SUM_COLUMNS.map((column, i) => [column, i])) as Record<keyof SumsRow, number>;

/**
 * totalsOf the sums at `values[offset]` on, in SUM_COLUMNS order, without a SumsRow in between (a
 * daily series over a year reads 365 runs of one flat array).
 */
export function totalsAt(values: ArrayLike<number>, offset: number): Totals {
  if (values.length - offset < SUM_COLUMNS.length)
    throw new TypeError(`metrics: expected ${SUM_COLUMNS.length} sums at ${offset}, got ${values.length - offset}`);
  const sum = (column: keyof SumsRow) => values[offset + AT[column]]!;
  return {
    total: sum('total'),
    calls: sum('calls'),
    conversations: sum('conversations'),
    inbound: sum('inbound'),
    outbound: sum('outbound'),
    appointmentsScheduled: sum('appointments_scheduled'),
    totalDurationSeconds: sum('duration_sum'),
    successRate: ratio2(sum('successful') * 100, sum('with_outcome')),
    avgDurationSeconds: ratio2(sum('duration_sum'), sum('timed_calls')),
  };
}
