// A zone's UTC offsets, as PostgreSQL knows them. Figures must equal raw SQL with `AT TIME ZONE`,
// so the offsets come from the database's own tz data, not from Node's ICU copy (the two can be of
// different tz database releases). PostgreSQL has no function listing a zone's transitions: they
// are found by probing `AT TIME ZONE` once a UTC day, then hourly inside a day whose offset
// changed, then by the second inside that hour (every transition of the tz database is at a whole
// second). Two changes inside one UTC day that cancel out would be missed; the tz database has none.
//
// Probed per UTC month and kept (a month is ~31 + 25 + 3,600 probes per change, one statement), so
// a zone's recent years cost one query each on first use. The cache is bounded: past
// MAX_CACHED_MONTHS the oldest months are dropped.
import type { Db } from '../db/client.js';
import { queryRows } from '../db/client.js';
import { Prisma } from '../generated/prisma/client.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Enough months for every zone of the tz database over several decades. */
const MAX_CACHED_MONTHS = 200_000;
/** An offset never exceeds this (the widest in the tz database is about 15:56): the reach of a wall time. */
const MAX_OFFSET_MS = 26 * HOUR_MS;
const PROBE_BATCH = 2_000;
/** How far around a range a clock is loaded: wall times of the range's dates and their next days are covered. */
const LOAD_MARGIN_MS = 3 * DAY_MS;

/** The offsets of one zone in one UTC month: the offset at its first instant, then each change. */
interface MonthOffsets {
  /** Offset (ms, local minus UTC) at the month's first instant. */
  first: number;
  /** Instants (ms) where the offset changes inside the month, ascending, with the offset from then on. */
  changes: ReadonlyArray<{ at: number; offset: number }>;
}

const cache = new Map<string, MonthOffsets>();

/**
 * January of year 1: PostgreSQL reads no ISO year 0, and no request reaches before 0001-01-01. A
 * clock asked about an earlier instant (the margin around a window starting then) answers with
 * that month's first offset.
 */
const FIRST_MONTH = 12;

/** An instant as PostgreSQL reads it: ISO 8601 with Z, years past 9999 without the sign and zeros `toISOString` writes. */
export function sqlInstant(ms: number): string {
  return new Date(ms).toISOString().replace(/^\+0*/, '');
}

/** Months since year 0 of the UTC month containing `ms`. */
function monthIndex(ms: number): number {
  const date = new Date(ms);
  return date.getUTCFullYear() * 12 + date.getUTCMonth();
}

function monthStart(index: number): number {
  const year = Math.floor(index / 12);
  const start = new Date(Date.UTC(2000, index - year * 12, 1));
  start.setUTCFullYear(year); // (Date.UTC reads years 0-99 as 1900-1999)
  return start.getTime();
}

function key(zone: string, index: number): string {
  return `${zone}\u0000${index}`;
}

interface ProbeRow {
  month: number;
  first: number;
  /** Text of a JSON array of [instant ms, offset seconds] pairs. */
  changes: string;
}

/** One statement for any set of months: their first offsets and their changes. */
function probeQuery(zone: string, months: readonly number[]): Prisma.Sql {
  const indexes: number[] = [];
  const starts: string[] = [];
  const ends: string[] = [];
  for (const m of months) {
    indexes.push(m);
    starts.push(sqlInstant(monthStart(m)));
    ends.push(sqlInstant(monthStart(m + 1)));
  }
  // `(t AT TIME ZONE zone) - (t AT TIME ZONE 'UTC')` is the offset at t, whatever the session's
  // TimeZone; the steps are '24 hours', never '1 day' (a day added to a timestamptz follows the
  // session's DST).
  const offset = (t: string) => Prisma.raw(`extract(epoch FROM (${t} AT TIME ZONE z.name) - (${t} AT TIME ZONE 'UTC'))::int`);
  return Prisma.sql`
    WITH z AS (SELECT ${zone}::text AS name),
    m AS (SELECT * FROM unnest(${indexes}::int[], ${starts}::timestamptz[], ${ends}::timestamptz[]) AS m(month, start, next)),
    days AS (
      SELECT m.month, d, ${offset('d')} AS off
      FROM z, m, generate_series(m.start, m.next, interval '24 hours') AS d
    ),
    changed_days AS (
      SELECT prev_d, d
      FROM (SELECT d, off, lag(d) OVER w AS prev_d, lag(off) OVER w AS prev_off FROM days WINDOW w AS (PARTITION BY month ORDER BY d)) AS x
      WHERE off <> prev_off
    ),
    hours AS (
      SELECT h, off, lag(off) OVER (ORDER BY h) AS prev_off
      FROM (SELECT DISTINCT h, ${offset('h')} AS off FROM z, changed_days AS c, generate_series(c.prev_d, c.d, interval '1 hour') AS h) AS probed
    ),
    changed_hours AS MATERIALIZED (SELECT h, prev_off FROM hours WHERE off <> prev_off),
    changes AS (
      SELECT min(s) AS at
      FROM z, changed_hours AS c, generate_series(c.h - interval '3599 seconds', c.h, interval '1 second') AS s
      WHERE ${offset('s')} <> c.prev_off
      GROUP BY c.h
    )
    SELECT m.month, ${offset('m.start')} AS first,
           coalesce((
             SELECT '[' || string_agg(concat('[', (extract(epoch FROM c.at) * 1000)::bigint, ',', ${offset('c.at')}, ']'), ',' ORDER BY c.at) || ']'
             FROM changes AS c
             WHERE c.at > m.start AND c.at < m.next
           ), '[]') AS changes
    FROM z, m`;
}

/** Probes and caches every month of `zone` overlapping the ranges that is not cached yet. */
async function loadMonths(db: Db, zone: string, ranges: ReadonlyArray<readonly [number, number]>): Promise<void> {
  const missing = new Set<number>();
  for (const [from, to] of ranges) {
    const last = monthIndex(to + LOAD_MARGIN_MS);
    for (let m = Math.max(monthIndex(from - LOAD_MARGIN_MS), FIRST_MONTH); m <= last; m++) if (!cache.has(key(zone, m))) missing.add(m);
  }
  const months = [...missing].sort((a, b) => a - b);
  // In statements of at most PROBE_BATCH months (a month probes ~31 days, more where it changes).
  for (let i = 0; i < months.length; i += PROBE_BATCH) {
    const batch = months.slice(i, i + PROBE_BATCH);
    const rows = await queryRows<ProbeRow>(db, probeQuery(zone, batch));
    for (const row of rows) {
      const pairs = JSON.parse(row.changes) as Array<[number, number]>;
      remember(key(zone, row.month), { first: row.first * 1000, changes: pairs.map(([at, offset]) => ({ at, offset: offset * 1000 })) });
    }
    for (const m of batch) if (!cache.has(key(zone, m))) throw new Error(`zone offsets: no probe for month ${m} of ${zone}`);
  }
}

function remember(k: string, value: MonthOffsets): void {
  if (cache.size >= MAX_CACHED_MONTHS) {
    // Maps iterate in insertion order: drop the oldest tenth.
    let drop = MAX_CACHED_MONTHS / 10;
    for (const old of cache.keys()) {
      cache.delete(old);
      if (--drop <= 0) break;
    }
  }
  cache.set(k, value);
}

/** The offsets of one zone over the ranges it was loaded for. */
export class ZoneClock {
  /**
   * The loaded months as runs of consecutive months [runStart, runEnd) (ms), and within them every
   * offset change in order: `changeAt[i]` starts `changeOffset[i]`. `changeAt[0]` is the start of
   * the first run. Flat arrays and binary search: an hourly series asks ~26,000 times a request.
   */
  private constructor(
    readonly zone: string,
    private readonly runStart: readonly number[],
    private readonly runEnd: readonly number[],
    private readonly changeAt: readonly number[],
    private readonly changeOffset: readonly number[],
  ) {}

  /**
   * The clock of `zone` (a name PostgreSQL knows) for instants in `ranges` (ms, inclusive), and for
   * wall times that fall in them.
   */
  static async load(db: Db, zone: string, ranges: ReadonlyArray<readonly [number, number]>): Promise<ZoneClock> {
    await loadMonths(db, zone, ranges);
    const indexes = new Set<number>();
    for (const [from, to] of ranges) {
      const last = monthIndex(to + LOAD_MARGIN_MS);
      for (let m = Math.max(monthIndex(from - LOAD_MARGIN_MS), FIRST_MONTH); m <= last; m++) indexes.add(m);
    }
    const runStart: number[] = [];
    const runEnd: number[] = [];
    const changeAt: number[] = [];
    const changeOffset: number[] = [];
    let previous = Number.NaN;
    for (const m of [...indexes].sort((x, y) => x - y)) {
      const offsets = cache.get(key(zone, m));
      if (!offsets) throw new Error(`zone clock: month ${m} of ${zone} was not loaded`);
      const start = monthStart(m);
      if (m === previous + 1) runEnd[runEnd.length - 1] = monthStart(m + 1);
      else {
        runStart.push(start);
        runEnd.push(monthStart(m + 1));
      }
      // A month's first offset is a change only where it differs (or after a gap between runs).
      if (m !== previous + 1 || changeOffset[changeOffset.length - 1] !== offsets.first) {
        changeAt.push(start);
        changeOffset.push(offsets.first);
      }
      for (const change of offsets.changes) {
        changeAt.push(change.at);
        changeOffset.push(change.offset);
      }
      previous = m;
    }
    return new ZoneClock(zone, runStart, runEnd, changeAt, changeOffset);
  }

  /** Index of the last change at or before `ms`, after checking that `ms` was loaded. */
  private changeIndex(ms: number): number {
    const run = lastAtOrBefore(this.runStart, ms);
    if (run < 0) {
      // Before year 1 (see FIRST_MONTH): the first loaded offset, when year 1 was loaded.
      if (this.runStart[0] === monthStart(FIRST_MONTH)) return 0;
    } else if (ms < this.runEnd[run]!) {
      return lastAtOrBefore(this.changeAt, ms);
    }
    throw new RangeError(`zone clock: ${new Date(ms).toISOString()} is outside the loaded range of ${this.zone}`);
  }

  /** The one offset of [lo, hi] when it does not change there, else undefined (a shortcut for the common case). */
  steadyOffset(lo: number, hi: number): number | undefined {
    const first = this.changeIndex(lo);
    const last = this.changeIndex(hi);
    for (let i = first + 1; i <= last; i++) if (this.changeOffset[i] !== this.changeOffset[first]) return undefined;
    return this.changeOffset[first];
  }

  /** The offset (ms, local minus UTC) at instant `ms`. */
  offsetAt(ms: number): number {
    return this.changeOffset[this.changeIndex(ms)]!;
  }

  /** The first instant after `ms` where the offset changes; Infinity when none is loaded before `limit`. */
  nextChange(ms: number, limit: number): number {
    this.changeIndex(Math.min(ms, limit));
    for (let i = lastAtOrBefore(this.changeAt, ms) + 1; i < this.changeAt.length && this.changeAt[i]! <= limit; i++) {
      if (this.changeOffset[i] !== this.changeOffset[i - 1]) return this.changeAt[i]!;
    }
    return Number.POSITIVE_INFINITY;
  }

  /**
   * The first instant whose local time is at or after the wall time `wall` (ms of a wall clock read
   * as UTC). For a wall time that exists, the instant it names (the earlier one in a fold); for one
   * skipped by a gap, the instant the gap ends.
   */
  firstAtOrAfter(wall: number): number {
    // The segments [start, end) of constant offset around `wall`: the instant is within an offset of it.
    const lo = wall - MAX_OFFSET_MS;
    const hi = wall + MAX_OFFSET_MS;
    this.changeIndex(hi);
    const first = this.changeIndex(lo);
    let best = Number.POSITIVE_INFINITY;
    for (let i = first; i < this.changeAt.length && this.changeAt[i]! <= hi; i++) {
      // (the segment holding `lo` may start before it; no candidate instant is earlier than `lo`)
      const start = i === first ? Number.NEGATIVE_INFINITY : this.changeAt[i]!;
      const end = i + 1 < this.changeAt.length ? this.changeAt[i + 1]! : Number.POSITIVE_INFINITY;
      const at = Math.max(start, wall - this.changeOffset[i]!);
      if (at < end && at < best) best = at;
    }
    return best;
  }

  /**
   * The segments of constant offset that meet [lo, hi], in order: the first open to the past, the
   * last open to the future.
   */
  segments(lo: number, hi: number): Array<{ start: number; end: number; offset: number }> {
    this.changeIndex(hi);
    const first = this.changeIndex(lo);
    const segments: Array<{ start: number; end: number; offset: number }> = [];
    for (let i = first; i < this.changeAt.length && (i === first || this.changeAt[i]! <= hi); i++) {
      if (i > first && this.changeOffset[i] === this.changeOffset[i - 1]) continue; // (a run's start, no change)
      if (segments.length) segments[segments.length - 1]!.end = this.changeAt[i]!;
      segments.push({ start: segments.length ? this.changeAt[i]! : Number.NEGATIVE_INFINITY, end: Number.POSITIVE_INFINITY, offset: this.changeOffset[i]! });
    }
    return segments;
  }

  /** The wall time (ms read as UTC) at instant `ms`. */
  wallAt(ms: number): number {
    return ms + this.offsetAt(ms);
  }
}

/** Index of the last value <= `value` in the ascending `sorted`; -1 when none. */
function lastAtOrBefore(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

export const DAY = DAY_MS;
export const HOUR = HOUR_MS;
