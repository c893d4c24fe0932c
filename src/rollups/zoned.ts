// Sums of interactions between arbitrary instants (the edges of local days, weeks, hours), read
// from the rollup levels in a bounded number of rows, in one statement.
//
// With C(t) the running total of interactions before instant t, a bucket [a, b) is C(b) - C(a).
// C at every edge of every window is read at once, relative to the first edge's anchor:
//   every interaction, no restriction (the common case): each edge t is rounded to the nearest UTC
//     hour n, on UTC day D. C(n) is the totals of the days before D (one range scan of
//     interaction_day_hours) plus D's running total at n (a slice of D's row of the same scan); the
//     part between n and t (at most 30 minutes) is whole quarter hours of interaction_quarters (at
//     most two rows). A year of local days in Asia/Kathmandu (+05:45) reads 366 day rows and one
//     quarter row per day; a year of hours in Europe/Madrid reads 366 day rows, whatever the
//     table's size;
//   restricted to clinics, a channel or a type: each edge anchored at the nearest UTC midnight, C of
//     the anchors from interaction_day_totals, the rest from interaction_hour_totals (edges on the
//     hour) or as one range of interaction_quarter_totals (edges off it, such as +05:45); an hourly
//     series is anchored at UTC hours (interaction_hour_totals), the quarter hours left as one range;
//   one campaign: days from interaction_campaign_day_totals and the rest of each edge (up to 12
//     hours) as one range of interaction_quarter_totals; an hourly series is anchored at the
//     campaign's quarter hours themselves (each of its rows in the window read once).
// Only offsets that are not multiples of 15 minutes (local mean time, before about 1970) leave a
// remainder under a quarter hour, read from the raw table. So the cost of a request depends on its
// zone's offset only through a few more rows per edge: no raw scan in any zone in use today.
// Rows of hour running totals (interaction_day_hours) replaced rows per hour: a year of local days
// read 8 rows a day in +05:45 (bench/results/archive/2026-11-24-day-hour-ends-100k-1m-10m.md). Running sums at every
// quarter hour were tried before: reads 3.5 times cheaper, imports 2 to 4 times slower (95 rows per
// write), so dropped (bench/results/2026-11-24-zoned-levels-write-cost.md).
//
// The sums are SUM_COLUMNS (summary, daily and series). An outcome breakdown needs no edges inside
// days: analytics/zoned.ts reads its windows as the UTC breakdown does.

import type { Db } from '../db/client.js';
import { and, prepared, queryRows } from '../db/client.js';
import { EARLIEST_INSTANT } from '../domain/parameters.js';
import { Prisma } from '../generated/prisma/client.js';
import { sliced, TimeSlice } from '../limits/admission.js';
import { type Dimensions, dimensionConditions, hasDimensions, RAW_COUNTED_TOTALS, totalsColumns } from './counted.js';
import { forEachNumberRow, MAX_ROW_VALUES } from './number-rows.js';
import { DAY_COLUMN_OF, SUM_COLUMNS, SUM_VALUES } from './sums.js';

const QUARTER = 900_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** No interaction is before 0001-01-01 UTC (the earliest bound a request may give), nor is an edge read there. */
const EARLIEST = EARLIEST_INSTANT;

/** An array parameter as one literal (`{1,2,3}`): numbers need no escaping, and thousands of ISO strings were most of a request. */
const numbers = (values: readonly number[]) => `{${values.join(',')}}`;

/** The instant `ms` milliseconds after the epoch (integer arithmetic: no rounding, no session time zone). */
const instantOf = (ms: Prisma.Sql) => Prisma.sql`(TIMESTAMPTZ 'epoch' + ${ms} * INTERVAL '1 millisecond')`;

/**
 * Pieces of one kind, read by one part of the statement: piece i adds its rows times `sign[i]` to
 * the running total of edge `edge[i]`; `at[i]` is a unit start, or with `until[i]` a range.
 * (Parallel arrays: an hourly series has 17,520 pieces, which as objects were garbage to collect.)
 */
class Pieces {
  readonly edge: number[] = [];
  readonly sign: number[] = [];
  readonly at: number[] = [];
  readonly until: number[] = [];
  get count(): number {
    return this.edge.length;
  }
  add(edge: number, sign: 1 | -1, at: number, until = at): void {
    this.edge.push(edge);
    this.sign.push(sign);
    this.at.push(at);
    this.until.push(until);
  }
}

/**
 * The pieces of every kind: rows of interaction_quarters and of interaction_hour_totals (one unit
 * each), and ranges of interaction_quarter_totals and of the raw table.
 */
interface AllPieces {
  quarters: Pieces;
  hourTotals: Pieces;
  quarterTotals: Pieces;
  raw: Pieces;
}

/**
 * A level finer than the anchors: its unit, and the pieces its whole units fill (one piece per unit,
 * or with `range` one piece for all of them: a range scan rather than one lookup per unit).
 */
type Level = { size: number; pieces: keyof AllPieces; range?: boolean };

/**
 * How the running totals at the edges are read for one filter and grain: `dayHours` (every
 * interaction, totals) from interaction_day_hours, `anchored` from a grouped coarse level.
 */
type Plan =
  | { kind: 'dayHours'; levels: readonly Level[] }
  | {
      kind: 'anchored';
      /** The coarse level: a FROM item exposing `unit` (date or timestamptz), grouped per unit by `sums`. */
      from: Prisma.Sql;
      sums: Prisma.Sql;
      unit: number;
      levels: readonly Level[];
    };

/** The quarter hours between an anchor and an edge, as one range of interaction_quarter_totals. */
const QUARTER_TOTALS: Level = { size: QUARTER, pieces: 'quarterTotals', range: true };

function planOf(dims: Dimensions, hourly: boolean, offHour: boolean): Plan {
  const everything = !hasDimensions(dims);
  const allClinics = dims.clinicIds === undefined;
  if (everything) return { kind: 'dayHours', levels: [{ size: QUARTER, pieces: 'quarters' }] };
  if (dims.campaignId !== undefined) {
    if (hourly) {
      // Anchored at the campaign's own quarter hours: every row of the window read once, where day
      // anchors would read each quarter row once per edge of its day (about 6 times on average).
      return {
        kind: 'anchored',
        from: Prisma.sql`(SELECT quarter AS unit, *, interactions AS n FROM interaction_quarter_totals) AS t`,
        sums: SUM_VALUES,
        unit: QUARTER,
        levels: [],
      };
    }
    return {
      kind: 'anchored',
      from: Prisma.sql`(SELECT day AS unit, clinic_id, campaign_id, type, ${totalsColumns(1)} FROM interaction_campaign_day_totals) AS t`,
      sums: SUM_VALUES,
      unit: DAY,
      levels: [QUARTER_TOTALS],
    };
  }
  if (hourly) {
    return {
      kind: 'anchored',
      from: Prisma.sql`(SELECT hour AS unit, *, interactions AS n FROM interaction_hour_totals) AS t`,
      sums: SUM_VALUES,
      unit: HOUR,
      levels: [QUARTER_TOTALS],
    };
  }
  return {
    kind: 'anchored',
    from: Prisma.raw(`(SELECT day AS unit, *, interactions AS n FROM ${allClinics ? 'interaction_day_totals_all_clinics' : 'interaction_day_totals'}) AS t`),
    sums: SUM_VALUES,
    unit: DAY,
    // Edges off the hour (+05:45): one range of quarter hours per edge (up to 12 hours' worth) costs
    // less than the hour rows plus a range for the rest (36 against 54 ms for a year of local days
    // with channel=voice at 1m); edges on the hour keep the hour rows (12 against 17 ms).
    levels: offHour ? [QUARTER_TOTALS] : [{ size: HOUR, pieces: 'hourTotals' }, QUARTER_TOTALS],
  };
}

/** The pieces of [lo, hi): whole units of each level (largest first), then raw ranges for the rest. */
function split(lo: number, hi: number, levels: readonly Level[], level: number, edge: number, sign: 1 | -1, pieces: AllPieces): void {
  if (lo >= hi) return;
  if (level === levels.length) {
    pieces.raw.add(edge, sign, lo, hi);
    return;
  }
  const { size, pieces: kind, range } = levels[level]!;
  const first = Math.ceil(lo / size) * size;
  const last = Math.floor(hi / size) * size;
  if (first >= last) {
    split(lo, hi, levels, level + 1, edge, sign, pieces);
    return;
  }
  split(lo, first, levels, level + 1, edge, sign, pieces);
  if (range) pieces[kind].add(edge, sign, first, last);
  else for (let unit = first; unit < last; unit += size) pieces[kind].add(edge, sign, unit);
  split(last, hi, levels, level + 1, edge, sign, pieces);
}

/** The rows of interaction_day_hours: a 24 x 10 array, run k (the sums of the day's first k hours) in row k. */
const RUN = SUM_COLUMNS.length;
/** The order of the sums in a run (the columns of interaction_days), and where each of SUM_COLUMNS is in it. */
const RUN_ORDER = ['interactions', 'calls', 'conversations', 'inbound', 'outbound', 'with_outcome', 'successful', 'booked', 'timed_calls', 'duration_sum'];
const IN_RUN = Int8Array.from(SUM_COLUMNS, (column) => RUN_ORDER.indexOf(DAY_COLUMN_OF[column]));
const DAY_TOTAL = Prisma.raw('d.ends[24:24]');
/** A row of interaction_quarters `t` as SUM_COLUMNS (a list of values). */
const QUARTER_VALUES = Prisma.raw(SUM_COLUMNS.map((column) => `t.${DAY_COLUMN_OF[column]}`).join(', '));

/**
 * The sums of the interactions of each interval [lo[i], hi[i]) (ms) under the restrictions `dims`:
 * one run of SUM_COLUMNS per interval. `hourly` (a series of hours) anchors restricted reads at UTC
 * hours rather than UTC midnights. One statement for all intervals, whatever windows they come
 * from (a comparison costs rows, not a round trip).
 * Typed arrays throughout: an hourly series has 8,761 edges.
 */
export async function sumsBetween(
  db: Db,
  lo: Float64Array,
  hi: Float64Array,
  dims: Dimensions,
  hourly = false,
  slice = new TimeSlice(),
): Promise<Float64Array> {
  const edges = distinctEdges(lo, hi);
  const width = SUM_COLUMNS.length;
  if (edges.length < 2) return new Float64Array(lo.length * width);
  await slice.pause();

  const plan = planOf(
    dims,
    hourly,
    edges.some((edge) => edge % HOUR !== 0),
  );
  const unit = plan.kind === 'dayHours' ? DAY : plan.unit;
  // Anchors in order (edges are sorted), each edge's anchor by index, and (dayHours) the hour of
  // its anchor day it is rounded to.
  const anchors: number[] = [];
  const anchorIndex = new Int32Array(edges.length);
  const edgeHour = new Int8Array(edges.length);
  const pieces: AllPieces = { quarters: new Pieces(), hourTotals: new Pieces(), quarterTotals: new Pieces(), raw: new Pieces() };
  await sliced(slice, edges.length, (k) => {
    const t = edges[k]!;
    let anchor: number;
    let from: number; // where the pieces start: the anchor, or (dayHours) the nearest hour
    if (plan.kind === 'dayHours') {
      from = Math.round(t / HOUR) * HOUR;
      anchor = Math.floor(from / DAY) * DAY;
      edgeHour[k] = (from - anchor) / HOUR;
    } else {
      anchor = Math.round(t / unit) * unit;
      from = anchor;
    }
    if (anchors[anchors.length - 1] !== anchor) anchors.push(anchor);
    anchorIndex[k] = anchors.length - 1;
    if (t >= from) split(from, t, plan.levels, 0, k, 1, pieces);
    else split(t, from, plan.levels, 0, k, -1, pieces);
  });

  const conditions = dimensionConditions(dims);
  const parts: Prisma.Sql[] = [];
  const first = anchors[0]!;
  const last = anchors[anchors.length - 1]!;
  if (plan.kind === 'dayHours') {
    // One row per day from the first anchor day to the last: its total (towards the anchors after
    // it) and, for an anchor day with edges after its midnight, the runs from the first to the last
    // of their hours. Which runs, by the day's position in the range (0: none): arrays indexed by
    // position rather than joined by day, which hashed the 2 kB rows.
    const days = (last - first) / DAY + 1;
    const firstRun = new Int8Array(days);
    const lastRun = new Int8Array(days);
    for (let k = 0; k < edges.length; k++) {
      const hour = edgeHour[k]!;
      if (hour === 0) continue;
      const i = (anchors[anchorIndex[k]!]! - first) / DAY;
      firstRun[i] = firstRun[i] ? Math.min(firstRun[i]!, hour) : hour;
      lastRun[i] = Math.max(lastRun[i]!, hour);
    }
    parts.push(Prisma.sql`
      SELECT '[0,' || (d.day - DATE '1970-01-01') || ',' || array_to_string(${DAY_TOTAL}, ',') || ',' || coalesce(d.kmin, 0)
             || coalesce(',' || array_to_string(d.ends[d.kmin:d.kmax], ','), '') || ']' AS r
      FROM (
        SELECT day, ends, nullif((${numbers([...firstRun])}::int[])[day - r.first + 1], 0) AS kmin, (${numbers([...lastRun])}::int[])[day - r.first + 1] AS kmax
        FROM interaction_day_hours, (SELECT DATE '1970-01-01' + ${first / DAY}::int AS first) AS r
        WHERE day >= r.first AND day <= DATE '1970-01-01' + ${last / DAY}::int
      ) AS d`);
  } else if (anchors.length > 1) {
    const [key, range] =
      unit === DAY
        ? [
            Prisma.sql`unit - DATE '1970-01-01'`,
            [Prisma.sql`unit >= DATE '1970-01-01' + ${first / DAY}::int`, Prisma.sql`unit < DATE '1970-01-01' + ${last / DAY}::int`],
          ]
        : [
            Prisma.sql`(extract(epoch FROM unit) * 1000)::bigint`,
            [Prisma.sql`unit >= ${instantOf(Prisma.sql`${first}::bigint`)}`, Prisma.sql`unit < ${instantOf(Prisma.sql`${last}::bigint`)}`],
          ];
    parts.push(Prisma.sql`
      SELECT '[0,' || concat_ws(',', ${key}, ${plan.sums}) || ']' AS r
      FROM ${plan.from}
      WHERE ${and([...range, ...conditions])}
      GROUP BY unit`);
  }
  // Rows of interaction_quarters, one answer row per piece. One index lookup each: OFFSET 0 keeps
  // the subquery from being flattened into a join, which PostgreSQL planned as a hash of the whole
  // table (11 ms for 366 pieces at 100k, against 0.9).
  await slice.pause();
  if (pieces.quarters.count) {
    parts.push(Prisma.sql`
      SELECT '[2,' || concat_ws(',', p.k, ${QUARTER_VALUES}) || ']' AS r
      FROM unnest(${numbers(pieces.quarters.at)}::bigint[]) WITH ORDINALITY AS p(ms, k)
      CROSS JOIN LATERAL (SELECT * FROM interaction_quarters WHERE quarter = ${instantOf(Prisma.sql`p.ms`)} OFFSET 0) AS t`);
  }
  await slice.pause();
  if (pieces.hourTotals.count) {
    const at = numbers(pieces.hourTotals.at);
    parts.push(Prisma.sql`
      SELECT '[4,' || concat_ws(',', p.k, ${SUM_VALUES}) || ']' AS r
      FROM unnest(${at}::bigint[]) WITH ORDINALITY AS p(ms, k)
      JOIN (
        SELECT *, interactions AS n FROM interaction_hour_totals
        WHERE ${and([Prisma.sql`hour = ANY(ARRAY(SELECT ${instantOf(Prisma.sql`m`)} FROM unnest(${at}::bigint[]) AS m))`, ...conditions])}
      ) AS t ON t.hour = ${instantOf(Prisma.sql`p.ms`)}
      GROUP BY p.k`);
  }
  // Ranges of a level, one answer row per piece: `rows(where)` selects the level's rows in the
  // piece's range of `column` (and the restrictions). The aggregate inside the LATERAL keeps
  // PostgreSQL from flattening it into one join over the whole level: each range is its own index scan.
  const rangeLevel = (part: number, of: Pieces, column: string, rows: (where: Prisma.Sql) => Prisma.Sql) => {
    const at = (bound: string) => instantOf(Prisma.raw(`p.${bound}`));
    const where = and([Prisma.sql`${Prisma.raw(column)} >= ${at('lo')}`, Prisma.sql`${Prisma.raw(column)} < ${at('hi')}`, ...conditions]);
    parts.push(Prisma.sql`
      SELECT '[${Prisma.raw(String(part))},' || concat_ws(',', p.k, ${Prisma.raw(SUM_COLUMNS.map((_, i) => `r.s${i}`).join(', '))}) || ']' AS r
      FROM unnest(${numbers(of.at)}::bigint[], ${numbers(of.until)}::bigint[]) WITH ORDINALITY AS p(lo, hi, k)
      CROSS JOIN LATERAL (
        SELECT * FROM (SELECT ${SUM_VALUES} FROM (${rows(where)}) AS t) AS x(${Prisma.raw(SUM_COLUMNS.map((_, i) => `s${i}`).join(', '))})
      ) AS r`);
  };
  await slice.pause();
  if (pieces.quarterTotals.count) {
    rangeLevel(5, pieces.quarterTotals, 'quarter', (where) => Prisma.sql`SELECT *, interactions AS n FROM interaction_quarter_totals WHERE ${where}`);
  }
  await slice.pause();
  if (pieces.raw.count) rangeLevel(3, pieces.raw, 'started_at', (where) => Prisma.sql`SELECT ${RAW_COUNTED_TOTALS} FROM interactions WHERE ${where}`);

  // The answer as JSON arrays of rows, each [part, key, sums...]; day rows of
  // interaction_day_hours: [0, day, its total, first run, runs...]. In chunks of ROWS_PER_CHUNK
  // rows: a year of hours with a comparison is 35,000 rows, and each chunk is read and added up in
  // a slice of its own (one JSON.parse of all of it took 10-15 ms, and its arrays were garbage:
  // number-rows.ts reads the rows into one buffer).
  let chunks: string[] = [];
  if (parts.length) {
    // Every interaction (a few shapes, all arrays bound as parameters): kept prepared, which saved
    // planning, about a third of PostgreSQL's time for a year of local days. Restricted reads are
    // planned for their values: a generic plan cannot see how many raw ranges or which clinics.
    const statement = Prisma.sql`
      SELECT '[' || string_agg(r, ',') || ']' AS values
      FROM (SELECT r, (row_number() OVER ()) / ${Prisma.raw(String(ROWS_PER_CHUNK))} AS chunk FROM (${Prisma.join(parts, ' UNION ALL ')}) AS parts) AS numbered
      GROUP BY chunk`;
    await slice.pause();
    const answer = await queryRows<{ values: string }>(db, plan.kind === 'dayHours' ? prepared('zoned_day_hours', statement) : statement);
    slice.resume();
    chunks = answer.map((row) => row.values);
  }

  // Running totals at the anchors (relative to the first), then at the edges.
  const running = new Float64Array(anchors.length * width);
  const atEdge = new Float64Array(edges.length * width);
  // Day rows with runs, by day number: the row and where its first run starts.
  const runsOf = new Map<number, { row: Float64Array; firstRun: number }>();
  // Parts 2 (quarters), 3 (raw), 4 (hour totals) and 5 (quarter totals) are keyed by piece (WITH ORDINALITY numbers them from 1).
  const byOrdinal: Array<Pieces | undefined> = [undefined, undefined, pieces.quarters, pieces.raw, pieces.hourTotals, pieces.quarterTotals];
  const onRow = (r: Float64Array, count: number) => {
    const part = r[0]!;
    const key = r[1]!;
    let target: Float64Array;
    let at: number;
    let sign = 1;
    if (part === 0) {
      // A coarse unit (day number or ms) counts towards every anchor after it: gap j, [anchors[j-1], anchors[j]), is added at j.
      const j = upperBound(anchors, unit === DAY ? key * DAY : key);
      if (plan.kind === 'dayHours') {
        // (The buffer is reused for the next row: a day with runs keeps a copy.)
        if (r[2 + RUN]! > 0) runsOf.set(key, { row: r.slice(0, count), firstRun: r[2 + RUN]! });
        if (j < anchors.length) for (let c = 0; c < width; c++) running[j * width + c]! += r[2 + IN_RUN[c]!]!;
        return; // (the last anchor's day: only its runs count)
      }
      target = running;
      at = j * width;
    } else {
      const of = byOrdinal[part]!;
      target = atEdge;
      at = of.edge[key - 1]! * width;
      sign = of.sign[key - 1]!;
    }
    for (let c = 0; c < width; c++) target[at + c]! += sign * r[2 + c]!;
  };
  const row = new Float64Array(MAX_ROW_VALUES);
  for (const chunk of chunks) {
    await slice.pause();
    forEachNumberRow(chunk, onRow, row);
  }
  await slice.pause();
  for (let j = 1; j < anchors.length; j++) for (let c = 0; c < width; c++) running[j * width + c]! += running[(j - 1) * width + c]!;
  const cumulative = atEdge; // the edge's own part, its anchor day's run, and its anchor's running total:
  await sliced(slice, edges.length, (k) => {
    const hour = edgeHour[k]!;
    const runs = hour > 0 ? runsOf.get(anchors[anchorIndex[k]!]! / DAY) : undefined;
    // (No row for the day: nothing happened on it, every run is 0.)
    const start = runs ? 2 + RUN + 1 + (hour - runs.firstRun) * RUN : 0;
    for (let c = 0; c < width; c++) {
      cumulative[k * width + c]! += running[anchorIndex[k]! * width + c]! + (runs ? runs.row[start + IN_RUN[c]!]! : 0);
    }
  });

  const result = new Float64Array(lo.length * width);
  await sliced(slice, lo.length, (i) => {
    const from = lowerBound(edges, Math.max(lo[i]!, EARLIEST)) * width;
    const to = lowerBound(edges, Math.max(hi[i]!, EARLIEST)) * width;
    for (let c = 0; c < width; c++) result[i * width + c] = cumulative[to + c]! - cumulative[from + c]!;
  });
  return result;
}

/** Rows of the statement's answer per JSON text (see sumsBetween). */
const ROWS_PER_CHUNK = 2048;

/** The distinct ends of the intervals (none before EARLIEST), ascending. */
function distinctEdges(lo: Float64Array, hi: Float64Array): Float64Array {
  const all = new Float64Array(lo.length * 2);
  for (let i = 0; i < lo.length; i++) {
    all[2 * i] = Math.max(lo[i]!, EARLIEST);
    all[2 * i + 1] = Math.max(hi[i]!, EARLIEST);
  }
  all.sort();
  let n = 0;
  for (let i = 0; i < all.length; i++) if (n === 0 || all[i] !== all[n - 1]) all[n++] = all[i]!;
  return all.subarray(0, n);
}

/** The index of the first value of the ascending `sorted` that is >= `value`. */
function lowerBound(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The number of values in the ascending `sorted` that are <= `value`. */
function upperBound(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
