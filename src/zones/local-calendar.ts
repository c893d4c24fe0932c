// Local calendar arithmetic: bucket boundaries of a series in a zone, and how instants are written.
// A "wall" time is a local date and time held as the milliseconds of the same reading in UTC
// (2026-10-25 02:00 local is Date.UTC(2026, 9, 25, 2)), so the calendar is Date's UTC calendar.
import { DAY, HOUR, type ZoneClock } from './offsets.js';

export const GRANULARITIES = ['hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

/** At most this many buckets in one series. */
export const MAX_SERIES_BUCKETS = 10_000;

/** Date.UTC for any year (Date.UTC reads years 0-99 as 1900-1999). */
function utc(year: number, month: number, day: number): number {
  const date = new Date(Date.UTC(2000, month, day));
  date.setUTCFullYear(year, month, day);
  return date.getTime();
}

/** The start of the calendar unit containing the wall time `wall`. */
export function unitStart(wall: number, unit: Granularity): number {
  const date = new Date(wall);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  switch (unit) {
    case 'hour':
      return Math.floor(wall / HOUR) * HOUR;
    case 'day':
      return Math.floor(wall / DAY) * DAY;
    case 'week': {
      const day = Math.floor(wall / DAY) * DAY;
      // ISO weeks start on Monday; getUTCDay() is 0 for Sunday.
      return day - ((new Date(day).getUTCDay() + 6) % 7) * DAY;
    }
    case 'month':
      return utc(year, month, 1);
    case 'quarter':
      return utc(year, month - (month % 3), 1);
    case 'year':
      return utc(year, 0, 1);
  }
}

/** The start of the unit after the one starting at `start` (a unit start). */
export function nextUnitStart(start: number, unit: Granularity): number {
  if (unit === 'hour') return start + HOUR;
  if (unit === 'day') return start + DAY;
  if (unit === 'week') return start + 7 * DAY;
  const date = new Date(start);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  return unit === 'month' ? utc(year, month + 1, 1) : unit === 'quarter' ? utc(year, month + 3, 1) : utc(year + 1, 0, 1);
}

/** The unit starts strictly after the wall time `after` up to `until` (walls), without a clock: for counting and loading. */
export function unitStartsBetween(after: number, until: number, unit: Granularity, max: number): number[] | undefined {
  const starts: number[] = [];
  for (let wall = nextUnitStart(unitStart(after, unit), unit); wall <= until; wall = nextUnitStart(wall, unit)) {
    if (starts.length >= max) return undefined;
    starts.push(wall);
  }
  return starts;
}

/** The wall times a clock must know to bucket [from, end) by `unit` (ms ranges of instants). */
export function clockRanges(from: number, end: number, unit: Granularity): Array<[number, number]> {
  // Hours, days and weeks meet every offset change of the window; longer units only their edges.
  if (unit === 'hour' || unit === 'day' || unit === 'week') return [[from, end]];
  const ranges: Array<[number, number]> = [
    [from, from],
    [end, end],
  ];
  for (const wall of unitStartsBetween(from - DAY, end + DAY, unit, MAX_SERIES_BUCKETS + 2) ?? []) ranges.push([wall, wall]);
  return ranges;
}

/** Instants [start, end), ms; a bucket is one or more, in order. */
export type Interval = readonly [number, number];

/**
 * The instants whose local time is at or after the wall time `wall`, as disjoint intervals in
 * order (the first may start at -Infinity, the last ends at +Infinity). Usually one: from the
 * instant `wall` names on. A fold that crosses `wall` (America/St_Johns went from 00:01 back to
 * 23:01 until 2011) makes it two: local time passes `wall`, falls back before it, passes it again.
 * Within `window` only: a wall two days or more outside it needs no clock.
 */
function atOrAfter(clock: ZoneClock, wall: number, window: Interval): Interval[] {
  if (wall + 2 * DAY <= window[0]) return [[Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY]];
  if (wall - 2 * DAY >= window[1]) return [];
  // Usually one offset around `wall`: the instant it names, and everything after.
  const steady = clock.steadyOffset(wall - MAX_OFFSET, wall + MAX_OFFSET);
  if (steady !== undefined) return [[wall - steady, Number.POSITIVE_INFINITY]];
  const intervals: Array<[number, number]> = [];
  // Within a segment local time only grows: the part at or after `wall` is a suffix of it.
  for (const { start, end, offset } of clock.segments(wall - MAX_OFFSET, wall + MAX_OFFSET)) {
    const from = Math.max(start, wall - offset);
    if (from >= end) continue;
    const last = intervals[intervals.length - 1];
    if (last && last[1] === from) last[1] = end;
    else intervals.push([from, end]);
  }
  return intervals;
}

/** The instants of `a` that are not in `b`, within [from, end) (both lists disjoint and in order). */
function between(a: readonly Interval[], b: readonly Interval[], from: number, end: number): Interval[] {
  const out: Interval[] = [];
  for (const [aStart, aEnd] of a) {
    let start = Math.max(aStart, from);
    const stop = Math.min(aEnd, end);
    for (const [bStart, bEnd] of b) {
      if (start >= stop) break;
      if (bEnd <= start || bStart >= stop) continue;
      if (bStart > start) out.push([start, bStart]);
      start = Math.max(start, bEnd);
    }
    if (start < stop) out.push([start, stop]);
  }
  return out;
}

/** The greatest offset the tz database has ever had, with margin (about 15:56 in 1844 Manila). */
const MAX_OFFSET = 26 * HOUR;

/**
 * The instants of [from, end) that fall in each local unit from the one starting at `first` to the
 * one starting at `last` (walls), as intervals; a unit may have none.
 */
function unitsBetween(
  clock: ZoneClock,
  from: number,
  end: number,
  first: number,
  last: number,
  unit: Granularity,
): Array<{ wall: number; intervals: Interval[] }> {
  const window: Interval = [from, end];
  const units: Array<{ wall: number; intervals: Interval[] }> = [];
  let lower = atOrAfter(clock, first, window);
  for (let wall = first; wall <= last; ) {
    const next = nextUnitStart(wall, unit);
    const upper = atOrAfter(clock, next, window);
    units.push({ wall, intervals: between(lower, upper, from, end) });
    lower = upper;
    wall = next;
  }
  return units;
}

/**
 * Buckets as flat lists of their intervals: bucket i is intervals `first[i]` to `first[i + 1] - 1`,
 * interval k the instants [lo[k], hi[k]). A bucket may have none (a date a gap skipped whole), and
 * has more than one only in a fold across its edge. Flat because a year of hours with a comparison
 * is 17,520 buckets: as an object and two arrays each, they were a tenth of the request's garbage,
 * alive (and so copied by every collection) until the database answered.
 */
export class BucketIntervals {
  readonly lo: number[] = [];
  readonly hi: number[] = [];
  readonly first: number[] = [0];

  /** The buckets of lists of intervals (a bucket per list). */
  static of(buckets: ReadonlyArray<readonly Interval[]>): BucketIntervals {
    const out = new BucketIntervals();
    for (const intervals of buckets) {
      for (const [lo, hi] of intervals) out.add(lo, hi);
      out.close();
    }
    return out;
  }

  get count(): number {
    return this.first.length - 1;
  }

  /** Adds an interval to the bucket being built. */
  add(lo: number, hi: number): void {
    this.lo.push(lo);
    this.hi.push(hi);
  }

  /** Ends the bucket being built (with the intervals added since the last close). */
  close(): void {
    this.first.push(this.lo.length);
  }

  /** The first instant of bucket i (it must have an interval). */
  start(i: number): number {
    return this.lo[this.first[i]!]!;
  }

  /** The end of bucket i (it must have an interval). */
  end(i: number): number {
    return this.hi[this.first[i + 1]! - 1]!;
  }
}

/**
 * The buckets of [from, end) by local `unit`, cut to the window, in order; a unit without instants
 * (one a gap skipped whole) is left out. Hours are split where the offset changes, so the hour a
 * fold repeats is two buckets and an hour a gap skips is none. undefined when there would be more
 * than `max`.
 */
export function localBuckets(clock: ZoneClock, from: number, end: number, unit: Granularity, max = MAX_SERIES_BUCKETS): BucketIntervals | undefined {
  const buckets = new BucketIntervals();
  if (unit === 'hour') {
    // Within a segment of constant offset local hours follow each other: one interval each.
    for (let start = from; start < end; ) {
      const wall = clock.wallAt(start);
      const stop = Math.min(start + (unitStart(wall, 'hour') + HOUR - wall), clock.nextChange(start, end), end);
      buckets.add(start, stop);
      buckets.close();
      if (buckets.count > max) return undefined;
      start = stop;
    }
    return buckets;
  }
  // From the unit before the one of `from` to the one after that of the window's last instant: in a
  // fold across a unit's edge, instants near the window's edges can belong to those.
  const first = unitStart(unitStart(clock.wallAt(from), unit) - 1, unit);
  const last = nextUnitStart(unitStart(clock.wallAt(end - 1), unit), unit);
  if ((unitStartsBetween(first, last, unit, max + 3) ?? []).length > max + 2) return undefined;
  for (const { intervals } of unitsBetween(clock, from, end, first, last, unit)) {
    if (!intervals.length) continue;
    for (const [lo, hi] of intervals) buckets.add(lo, hi);
    buckets.close();
    if (buckets.count > max) return undefined;
  }
  return buckets;
}

/**
 * Each local date from `firstDay` to `lastDay` (walls of midnights), with its instants within
 * [from, end). A date a gap skipped whole (Pacific/Apia's 2011-12-30) is listed, empty.
 */
export function localDays(clock: ZoneClock, from: number, end: number, firstDay: number, lastDay: number): Array<{ date: string; intervals: Interval[] }> {
  return unitsBetween(clock, from, end, firstDay, lastDay, 'day').map(({ wall, intervals }) => ({ date: wallDate(wall), intervals }));
}

const two = (n: number) => String(n).padStart(2, '0');

/** YYYY-MM-DD of a wall time. */
export function wallDate(wall: number): string {
  const date = new Date(wall);
  return `${String(date.getUTCFullYear()).padStart(4, '0')}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())}`;
}

/** `+01:00`, `-03:30`, `+00:19:32` (seconds only where the offset has them: local mean time). */
export function formatOffset(offsetMs: number): string {
  const sign = offsetMs < 0 ? '-' : '+';
  const seconds = Math.round(Math.abs(offsetMs) / 1000);
  const hms = `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}`;
  return `${sign}${hms}${seconds % 60 ? `:${two(seconds % 60)}` : ''}`;
}

/** '00' to '59': the two digits of a time's fields without padStart (17,520 times for an hourly year). */
const TWO_DIGITS = Array.from({ length: 60 }, (_, n) => two(n));
/** The date and offset text of formatLocal's previous call. */
const last = { midnight: Number.NaN, date: '', offset: Number.NaN, offsetText: '' };

/**
 * An instant as ISO 8601 local date-time with milliseconds and the zone's offset at that instant.
 * Buckets follow each other, so the date and offset of the previous call are kept and reused.
 */
export function formatLocal(clock: ZoneClock, ms: number): string {
  const offset = clock.offsetAt(ms);
  const wall = ms + offset;
  const midnight = Math.floor(wall / DAY) * DAY;
  if (midnight !== last.midnight) {
    last.midnight = midnight;
    last.date = wallDate(midnight);
  }
  if (offset !== last.offset) {
    last.offset = offset;
    last.offsetText = formatOffset(offset);
  }
  const t = wall - midnight;
  const millis = t % 1000;
  const time = `${TWO_DIGITS[Math.floor(t / HOUR)]}:${TWO_DIGITS[Math.floor(t / 60_000) % 60]}:${TWO_DIGITS[Math.floor(t / 1000) % 60]}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}`;
  return `${last.date}T${time}${last.offsetText}`;
}
/** The wall time one calendar year earlier; 29 February becomes 28 February. */
export function yearEarlier(wall: number): number {
  const date = new Date(wall);
  const year = date.getUTCFullYear() - 1;
  const month = date.getUTCMonth();
  const day = Math.min(date.getUTCDate(), month === 1 && !isLeapYear(year) ? 28 : 31);
  return utc(year, month, day) + (wall - unitStart(wall, 'day'));
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
