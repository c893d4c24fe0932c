// Metrics in a local time zone, and compared with an earlier window: the window's bounds are read
// in the zone, its buckets are local days, weeks, hours..., and their sums come from the rollup
// levels by edges (rollups/zoned.ts). A request without a zone and comparison never comes here:
// it keeps the UTC code (summary.ts, daily.ts, outcomes.ts).
import type { Db } from '../db/client.js';
import { EARLIEST_INSTANT, LATEST_INSTANT } from '../domain/parameters.js';
import { sliced, TimeSlice } from '../limits/admission.js';
import type { Dimensions } from '../rollups/counted.js';
import { SUM_COLUMNS } from '../rollups/sums.js';
import { sumsBetween } from '../rollups/zoned.js';
import {
  BucketIntervals,
  clockRanges,
  formatLocal,
  type Granularity,
  localBuckets,
  localDays,
  MAX_SERIES_BUCKETS,
  unitStart,
  yearEarlier,
} from '../zones/local-calendar.js';
import { DAY, ZoneClock } from '../zones/offsets.js';
import { type DailyMetric, dailyMetric } from './daily.js';
import { metricsOutcomes, type OutcomesResult } from './outcomes.js';
import { type SummaryMetrics, summaryMetrics } from './summary.js';
import { ratio2, totalsAt } from './totals.js';

export const COMPARISONS = ['previous_period', 'previous_year'] as const;
export type Comparison = (typeof COMPARISONS)[number];

/** A window bound as given: a local date (its wall midnight, ms read as UTC) or an instant. */
export type LocalBound = { kind: 'date'; wall: number } | { kind: 'instant'; at: number };

export interface ZonedQuery {
  zone: string;
  /** undefined: the default (the local day 30 days ago). */
  from?: LocalBound;
  /** undefined: the default (the end of the local today). */
  to?: LocalBound;
  dims: Dimensions;
  compare?: Comparison;
  now: Date;
}

/** A window of instants [from, end): `end` is one millisecond after the inclusive `to`. */
export interface Window {
  from: number;
  end: number;
  /** The local dates of its first and last days (walls of midnights), as given or as its instants fall. */
  firstDay: number;
  lastDay: number;
}

/** The window's bounds are out of order once read in the zone (date_from after date_to). */
export class WindowOutOfOrder extends Error {}
/** The comparison window would begin before 0001-01-01, the first day a request may name. */
export class ComparisonOutOfRange extends Error {}
/** A series or daily window with more buckets than allowed. */
export class TooManyBuckets extends Error {}

export interface WithPrevious<T> {
  current: T;
  previous?: T;
}

interface ResolvedWindows {
  clock: ZoneClock;
  current: Window;
  previous?: Window;
}

/** Instants (ms) a bound may need the clock for: its wall time read as UTC, or the instant. */
function guess(bound: LocalBound): number {
  return bound.kind === 'date' ? bound.wall : bound.at;
}

/** The local date bounds of the default window, as walls. */
function defaults(clock: ZoneClock, now: number): { from: LocalBound; to: LocalBound } {
  const today = unitStart(clock.wallAt(now), 'day');
  return { from: { kind: 'date', wall: today - 30 * DAY }, to: { kind: 'date', wall: today } };
}

function startOf(clock: ZoneClock, bound: LocalBound): number {
  return bound.kind === 'date' ? clock.firstAtOrAfter(bound.wall) : bound.at;
}

/** One past the last instant of the bound (date_to is inclusive: a date covers its whole local day). */
function endOf(clock: ZoneClock, bound: LocalBound): number {
  return bound.kind === 'date' ? clock.firstAtOrAfter(bound.wall + DAY) : bound.at + 1;
}

function yearBack(clock: ZoneClock, bound: LocalBound): LocalBound {
  return bound.kind === 'date'
    ? { kind: 'date', wall: yearEarlier(bound.wall) }
    : { kind: 'instant', at: clock.firstAtOrAfter(yearEarlier(clock.wallAt(bound.at))) };
}

/** The window of two bounds. */
function windowOf(clock: ZoneClock, from: LocalBound, to: LocalBound): Window {
  const start = startOf(clock, from);
  const end = endOf(clock, to);
  return {
    from: start,
    end,
    firstDay: from.kind === 'date' ? from.wall : unitStart(clock.wallAt(start), 'day'),
    lastDay: to.kind === 'date' ? to.wall : unitStart(clock.wallAt(end - 1), 'day'),
  };
}

const FIRST_DAY = EARLIEST_INSTANT; // 0001-01-01, as a wall time

/** Reads the window (and the comparison window) of a query in its zone. */
export async function resolveWindows(db: Db, query: ZonedQuery): Promise<ResolvedWindows> {
  const resolved = await windowsIn(db, query);
  if (resolved.previous && resolved.previous.firstDay < FIRST_DAY) throw new ComparisonOutOfRange();
  return resolved;
}

async function windowsIn(db: Db, query: ZonedQuery): Promise<ResolvedWindows> {
  const now = query.now.getTime();
  // The instants the bounds may fall on: given ones, or the default window's (today and 30 days before).
  const near: Array<[number, number]> = [
    [now - 31 * DAY, now],
    ...[query.from, query.to].flatMap((b): Array<[number, number]> => (b ? [[guess(b), guess(b)]] : [])),
  ];
  let clock = await ZoneClock.load(db, query.zone, near);
  const given = defaults(clock, now);
  const from = query.from ?? given.from;
  const to = query.to ?? given.to;
  // (A window of one local date that a gap skipped whole is empty, not out of order.)
  // Two dates are in order as dates (a single date a gap skipped whole is an empty window, not a
  // reversed one); otherwise date_from's first instant must not be after date_to's last.
  const reversed = from.kind === 'date' && to.kind === 'date' ? from.wall > to.wall : startOf(clock, from) > endOf(clock, to) - 1;
  if (reversed) throw new WindowOutOfOrder();
  const current = windowOf(clock, from, to);
  if (!query.compare) return { clock, current };

  if (query.compare === 'previous_year') {
    clock = await ZoneClock.load(db, query.zone, [...near, ...[guess(from), guess(to)].map((t): [number, number] => [t - 367 * DAY, t - 363 * DAY])]);
    const previousFrom = yearBack(clock, from);
    const previousTo = yearBack(clock, to);
    return { clock, current, previous: windowOf(clock, previousFrom, previousTo) };
  }
  if (from.kind === 'date' && to.kind === 'date') {
    const days = Math.round((to.wall - from.wall) / DAY) + 1;
    const previousFrom = from.wall - days * DAY;
    const previousTo = to.wall - days * DAY;
    clock = await ZoneClock.load(db, query.zone, [...near, [previousFrom, previousTo + DAY]]);
    return { clock, current, previous: windowOf(clock, { kind: 'date', wall: previousFrom }, { kind: 'date', wall: previousTo }) };
  }
  const length = current.end - current.from;
  clock = await ZoneClock.load(db, query.zone, [...near, [current.from - length, current.end - length]]);
  return {
    clock,
    current,
    previous: windowOf(clock, { kind: 'instant', at: current.from - length }, { kind: 'instant', at: current.end - 1 - length }),
  };
}

/**
 * The sums of each bucket of each window, one run of SUM_COLUMNS per bucket for each window; all in
 * one statement.
 */
async function bucketSums(db: Db, query: ZonedQuery, windows: readonly BucketIntervals[], hourly: boolean, slice = new TimeSlice()): Promise<Float64Array[]> {
  const total = windows.reduce((n, buckets) => n + buckets.lo.length, 0);
  const lo = new Float64Array(total);
  const hi = new Float64Array(total);
  let at = 0;
  for (const buckets of windows) {
    lo.set(buckets.lo, at);
    hi.set(buckets.hi, at);
    at += buckets.lo.length;
  }
  await slice.pause();
  const sums = await sumsBetween(db, lo, hi, query.dims, hourly, slice);
  const width = SUM_COLUMNS.length;
  let next = 0;
  const out: Float64Array[] = [];
  for (const buckets of windows) {
    const vector = new Float64Array(buckets.count * width);
    await sliced(slice, buckets.count, (i) => {
      for (let n = buckets.first[i + 1]! - buckets.first[i]!; n > 0; n--) {
        for (let c = 0; c < width; c++) vector[i * width + c]! += sums[next * width + c]!;
        next++;
      }
    });
    out.push(vector);
  }
  return out;
}

function windowsOf(resolved: ResolvedWindows): Window[] {
  return resolved.previous ? [resolved.current, resolved.previous] : [resolved.current];
}

function pair<T>(values: T[]): WithPrevious<T> {
  return values.length > 1 ? { current: values[0]!, previous: values[1]! } : { current: values[0]! };
}

export async function zonedSummary(db: Db, query: ZonedQuery): Promise<WithPrevious<SummaryMetrics>> {
  const resolved = await resolveWindows(db, query);
  const sums = await bucketSums(
    db,
    query,
    windowsOf(resolved).map((w) => BucketIntervals.of([w.end > w.from ? [[w.from, w.end]] : []])),
    false,
  );
  return pair(sums.map((vector) => summaryMetrics(totalsAt(vector, 0))));
}

export async function zonedDaily(db: Db, query: ZonedQuery, maxDays: number): Promise<WithPrevious<DailyMetric[]>> {
  const resolved = await resolveWindows(db, query);
  const clock = await ZoneClock.load(
    db,
    query.zone,
    windowsOf(resolved).map((w) => [w.from, w.end]),
  );
  const days = windowsOf(resolved).map((w) => localDays(clock, w.from, w.end, w.firstDay, w.lastDay));
  if (days.some((list) => list.length > maxDays)) throw new TooManyBuckets();
  const sums = await bucketSums(
    db,
    query,
    days.map((list) => BucketIntervals.of(list.map((day) => day.intervals))),
    false,
  );
  return pair(
    days.map((list, w) =>
      list.map((day, i) => {
        return dailyMetric(day.date, totalsAt(sums[w]!, i * SUM_COLUMNS.length));
      }),
    ),
  );
}

/** One bucket of a series: local boundaries with their offsets, and the totals of its interactions. */
export type SeriesBucket = { start: string; end: string } & Omit<DailyMetric, 'date'>;

/** Buckets a window of [from, end) may have at most, counted without a clock (a wall is within a day of its instant). */
function surelyTooMany(window: Window, granularity: Granularity): boolean {
  const approximate: Record<Granularity, number> = { hour: 3_600_000, day: DAY, week: 7 * DAY, month: 31 * DAY, quarter: 92 * DAY, year: 366 * DAY };
  return (window.end - window.from) / approximate[granularity] > MAX_SERIES_BUCKETS + 2;
}

export async function zonedSeries(db: Db, query: ZonedQuery, granularity: Granularity): Promise<WithPrevious<SeriesBucket[]>> {
  const resolved = await resolveWindows(db, query);
  if (windowsOf(resolved).some((w) => surelyTooMany(w, granularity))) throw new TooManyBuckets();
  const clock = await ZoneClock.load(
    db,
    query.zone,
    windowsOf(resolved).flatMap((w) => clockRanges(w.from, w.end, granularity)),
  );
  // A year of hours with a comparison is 17,520 buckets: built in time slices (limits/admission.ts),
  // so that other keys' requests are served in between.
  const slice = new TimeSlice();
  const lists: BucketIntervals[] = [];
  for (const w of windowsOf(resolved)) {
    await slice.pause();
    const buckets = localBuckets(clock, w.from, w.end, granularity);
    if (buckets === undefined) throw new TooManyBuckets();
    lists.push(buckets);
  }
  const sums = await bucketSums(db, query, lists, granularity === 'hour', slice);
  const built: SeriesBucket[][] = [];
  for (const [w, buckets] of lists.entries()) {
    const list: SeriesBucket[] = new Array(buckets.count);
    // A bucket mostly starts where the one before it ends: that text is shared, not made twice.
    let endMs = Number.NaN;
    let endText = '';
    await sliced(slice, buckets.count, (i) => {
      const totals = totalsAt(sums[w]!, i * SUM_COLUMNS.length);
      const startMs = buckets.start(i);
      const start = startMs === endMs ? endText : formatLocal(clock, startMs);
      endMs = buckets.end(i);
      endText = formatLocal(clock, endMs);
      list[i] = {
        start,
        end: endText,
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
    built.push(list);
  }
  return pair(built);
}

/**
 * An outcome breakdown does not depend on the zone beyond its window's instants: each window is
 * read as the UTC breakdown reads any window (whole months and days from the rollups, the partial
 * days at its edges raw), which beats anchoring at local days (days of outcome rows summed one by
 * one: slower than raw SQL on 100,000 interactions).
 */
export async function zonedOutcomes(db: Db, query: ZonedQuery): Promise<WithPrevious<OutcomesResult>> {
  const resolved = await resolveWindows(db, query);
  const results = await Promise.all(
    windowsOf(resolved).map((w) => {
      const instants = instantsOf(w);
      return instants ? metricsOutcomes(db, { ...query.dims, ...instants }) : Promise.resolve({ outcomes: [], total: 0 });
    }),
  );
  return pair(results);
}

/**
 * A window's instants for the UTC readers, null when it is empty. A local day of year 1 or 9999 can
 * start before 0001-01-01T00:00Z or end after 9999-12-31T23:59:59.999Z, instants PostgreSQL's ISO
 * input does not read; no interaction lies outside those years (the importer keeps them in), so the
 * window is cut to them.
 */
function instantsOf(w: { from: number; end: number }): { from: Date; to: Date } | null {
  const from = Math.max(w.from, EARLIEST_INSTANT);
  const to = Math.min(w.end - 1, LATEST_INSTANT);
  return to >= from ? { from: new Date(from), to: new Date(to) } : null;
}

export type SummaryChange = { [K in keyof SummaryMetrics]: number | null };

/**
 * Per field, the change from `previous` to `current` in percent of `previous`, 2 decimals (half away
 * from zero); null where `previous` is 0. From the figures as reported (the rates to 2 decimals),
 * in hundredths, so the result is exact.
 */
export function summaryChange(current: SummaryMetrics, previous: SummaryMetrics): SummaryChange {
  const change = {} as SummaryChange;
  for (const field of Object.keys(current) as Array<keyof SummaryMetrics>) {
    const now = Math.round(current[field] * 100);
    const before = Math.round(previous[field] * 100);
    change[field] = before === 0 ? null : ratio2((now - before) * 100, before);
  }
  return change;
}

/**
 * The window of a query without comparison as the instants of its bounds read in the zone
 * (breakdowns and durations read any window of instants as the UTC code does); null when a gap
 * skipped it whole.
 */
export async function zonedInstants(db: Db, query: ZonedQuery): Promise<{ from: Date; to: Date } | null> {
  const { current } = await resolveWindows(db, { ...query, compare: undefined });
  return instantsOf(current);
}
