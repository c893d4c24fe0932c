// Local calendar arithmetic: bucket boundaries of a series in a zone, and how instants are written.
// A "wall" time is a local date and time held as the milliseconds of the same reading in UTC
// (2026-10-25 02:00 local is Date.UTC(2026, 9, 25, 2)), so the calendar is Date's UTC calendar.
import { DAY, HOUR, type ZoneClock } from './offsets.js';

export const GRANULARITIES = ['hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

/** At most this many buckets in one series. */
export const MAX_SERIES_BUCKETS = 10_000;

/** A bucket: instants [start, end), ms. */
export interface Bucket {
  start: number;
  end: number;
}

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
  const date = new Date(start);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  switch (unit) {
    case 'hour':
      return start + HOUR;
    case 'day':
      return start + DAY;
    case 'week':
      return start + 7 * DAY;
    case 'month':
      return utc(year, month + 1, 1);
    case 'quarter':
      return utc(year, month + 3, 1);
    case 'year':
      return utc(year + 1, 0, 1);
  }
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
  // Hours and days meet every offset change of the window; longer units only their edges.
  if (unit === 'hour' || unit === 'day' || unit === 'week') return [[from, end]];
  const ranges: Array<[number, number]> = [
    [from, from],
    [end, end],
  ];
  for (const wall of unitStartsBetween(from - DAY, end + DAY, unit, MAX_SERIES_BUCKETS + 2) ?? []) ranges.push([wall, wall]);
  return ranges;
}

/**
 * The buckets of [from, end) by local `unit`, cut to the window, in order; zero-length buckets (a
 * unit a gap skipped whole) are left out. Hours are split where the offset changes, so the hour a
 * fold repeats is two buckets and an hour a gap skips is none. undefined when there would be more
 * than `max`.
 */
export function localBuckets(clock: ZoneClock, from: number, end: number, unit: Granularity, max = MAX_SERIES_BUCKETS): Bucket[] | undefined {
  const buckets: Bucket[] = [];
  const push = (start: number, stop: number) => {
    if (stop > start) buckets.push({ start, end: stop });
    return buckets.length <= max;
  };
  if (unit === 'hour') {
    for (let start = from; start < end; ) {
      const wall = clock.wallAt(start);
      const stop = Math.min(start + (unitStart(wall, 'hour') + HOUR - wall), clock.nextChange(start, end), end);
      if (!push(start, stop)) return undefined;
      start = stop;
    }
    return buckets;
  }
  let start = from;
  for (let wall = nextUnitStart(unitStart(clock.wallAt(from), unit), unit); start < end; wall = nextUnitStart(wall, unit)) {
    // (max() keeps the edges in order where a fold crossing a boundary would put one before the
    // last; a boundary two days past the window's end is surely after it: no clock needed there)
    const stop = wall - 2 * DAY >= end ? end : Math.min(Math.max(clock.firstAtOrAfter(wall), start), end);
    if (!push(start, stop)) return undefined;
    start = stop;
  }
  return buckets;
}

/**
 * Each local date from `firstDay` to `lastDay` (walls of midnights), with its instants cut to
 * [from, end). A date a gap skipped whole (Pacific/Apia's 2011-12-30) is listed, empty.
 */
export function localDays(clock: ZoneClock, from: number, end: number, firstDay: number, lastDay: number): Array<{ date: string; start: number; end: number }> {
  const days: Array<{ date: string; start: number; end: number }> = [];
  let start = from;
  for (let wall = firstDay; wall <= lastDay; wall += DAY) {
    const stop = wall === lastDay ? end : Math.min(Math.max(clock.firstAtOrAfter(wall + DAY), start), end);
    days.push({ date: wallDate(wall), start, end: Math.max(stop, start) });
    start = Math.max(stop, start);
  }
  return days;
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

/** An instant as ISO 8601 local date-time with milliseconds and the zone's offset at that instant. */
export function formatLocal(clock: ZoneClock, ms: number): string {
  const offset = clock.offsetAt(ms);
  const wall = new Date(ms + offset);
  const time = `${two(wall.getUTCHours())}:${two(wall.getUTCMinutes())}:${two(wall.getUTCSeconds())}.${String(wall.getUTCMilliseconds()).padStart(3, '0')}`;
  return `${wallDate(ms + offset)}T${time}${formatOffset(offset)}`;
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
