// Sums of interactions between arbitrary instants (the edges of local days, weeks, hours), read
// from the rollup levels in a bounded number of rows, in one statement.
//
// With C(t) the running total of interactions before instant t, a bucket [a, b) is C(b) - C(a).
// C at every edge of every window is read at once: each edge t is ANCHORED at the nearest coarse
// boundary A(t) (a UTC midnight, or a UTC hour for hourly series); C(A) comes from one range scan of
// the coarse level, and the part between A(t) and t (at most 12 hours) from finer rows, signed:
//   every interaction, no restriction (the common case): whole UTC hours from interaction_hours,
//     then whole quarter hours from interaction_quarters (one row each), then the raw table for
//     what is left (only offsets that are not multiples of 15 minutes: local mean time). A year of
//     local days in Asia/Kathmandu (+05:45) reads 365 day rows and 5 hour and 3 quarter rows per
//     day, whatever the table's size;
//   restricted to clinics, a channel or a type: whole hours from interaction_hour_totals, the rest
//     raw;
//   outcome counts: the rest raw.
// Running sums within each UTC day (one row per edge) were tried: reads about 3.5 times cheaper in
// PostgreSQL, imports 2 to 4 times slower (a write rewrote up to 95 rows of its day), so dropped
// (bench/results/2026-11-24-zoned-levels-write-cost.md).
//
// Two kinds of vectors: TOTALS (SUM_COLUMNS, for summary, daily and series) and OUTCOMES (a count
// per outcome met, '' for none: the outcome breakdown).
import { SUM_COLUMNS, SUMS, WIDE_COLUMNS, WIDE_SUMS } from '../analytics/totals.js';
import type { Db } from '../db/client.js';
import { and, queryRows } from '../db/sql.js';
import { EARLIEST_INSTANT } from '../domain/parameters.js';
import { OUTCOMES } from '../domain/values.js';
import { Prisma } from '../generated/prisma/client.js';
import { type Dimensions, dimensionConditions, RAW_COUNTED_TOTALS } from './counted.js';

const QUARTER = 900_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** No interaction is before 0001-01-01 UTC (the earliest bound a request may give), nor is an edge read there. */
const EARLIEST = EARLIEST_INSTANT;

export type Grain = 'totals' | 'outcomes';

/** The outcomes an OUTCOMES vector starts with, in order ('' is "no outcome"); others met follow. */
export const OUTCOME_KEYS: readonly string[] = [...OUTCOMES, ''];

/** An array parameter as one literal (`{1,2,3}`): numbers need no escaping, and thousands of ISO strings were most of a request. */
const numbers = (values: readonly number[]) => `{${values.join(',')}}`;

/** The instant `ms` milliseconds after the epoch (integer arithmetic: no rounding, no session time zone). */
const instantOf = (ms: Prisma.Sql) => Prisma.sql`(TIMESTAMPTZ 'epoch' + ${ms} * INTERVAL '1 millisecond')`;

/** What a part of the statement adds to one edge's running total: its rows times `sign`. */
interface Piece {
  edge: number;
  sign: 1 | -1;
}

/** Pieces of one kind, read by one part of the statement: `at` is a unit start, or a raw range. */
class Pieces {
  readonly list: Piece[] = [];
  readonly at: number[] = [];
  readonly until: number[] = [];
  add(edge: number, sign: 1 | -1, at: number, until = at): void {
    this.list.push({ edge, sign });
    this.at.push(at);
    this.until.push(until);
  }
}

/** The pieces of every kind: unit rows of interaction_hours and _quarters, of interaction_hour_totals, and raw ranges. */
interface AllPieces {
  hours: Pieces;
  quarters: Pieces;
  hourTotals: Pieces;
  raw: Pieces;
}

/** How the running totals at the edges are read for one filter and grain. */
interface Plan {
  /** The coarse level: a FROM item exposing `unit` (date or timestamptz), and its select list of sums per unit. */
  coarse: { from: Prisma.Sql; sums: Prisma.Sql; grouped: boolean; filtered: boolean };
  unit: number;
  /** The whole units of finer levels between an edge and its anchor, largest first, each with the pieces it fills. */
  levels: ReadonlyArray<{ size: number; pieces: keyof AllPieces }>;
}

function planOf(grain: Grain, dims: Dimensions, hourly: boolean): Plan {
  const everything = dims.clinicIds === undefined && dims.channel === undefined && dims.type === undefined;
  const allClinics = dims.clinicIds === undefined;
  if (grain === 'totals' && everything) {
    return {
      coarse: {
        from: Prisma.raw(hourly ? '(SELECT hour AS unit, * FROM interaction_hours) AS t' : '(SELECT day AS unit, * FROM interaction_days) AS t'),
        sums: WIDE_COLUMNS,
        grouped: false,
        filtered: false,
      },
      unit: hourly ? HOUR : DAY,
      levels: [...(hourly ? [] : [{ size: HOUR, pieces: 'hours' as const }]), { size: QUARTER, pieces: 'quarters' as const }],
    };
  }
  const day =
    grain === 'outcomes'
      ? allClinics
        ? Prisma.sql`(SELECT day AS unit, channel, type, direction, outcome, interactions FROM interaction_day_outcomes_all_clinics) AS t`
        : Prisma.sql`(SELECT day AS unit, clinic_id, channel, type, direction, outcome, interactions FROM interaction_daily_rollups) AS t`
      : Prisma.raw(`(SELECT day AS unit, *, interactions AS n FROM ${allClinics ? 'interaction_day_totals_all_clinics' : 'interaction_day_totals'}) AS t`);
  return {
    coarse: { from: day, sums: grain === 'outcomes' ? Prisma.sql`outcome, sum(interactions)::bigint` : SUMS, grouped: true, filtered: true },
    unit: DAY,
    levels: grain === 'outcomes' ? [] : [{ size: HOUR, pieces: 'hourTotals' }],
  };
}

/** The pieces of [lo, hi): whole units of each level (largest first), then raw ranges for the rest. */
function split(lo: number, hi: number, levels: Plan['levels'], level: number, edge: number, sign: 1 | -1, pieces: AllPieces): void {
  if (lo >= hi) return;
  if (level === levels.length) {
    pieces.raw.add(edge, sign, lo, hi);
    return;
  }
  const { size, pieces: kind } = levels[level]!;
  const first = Math.ceil(lo / size) * size;
  const last = Math.floor(hi / size) * size;
  if (first >= last) {
    split(lo, hi, levels, level + 1, edge, sign, pieces);
    return;
  }
  split(lo, first, levels, level + 1, edge, sign, pieces);
  for (let unit = first; unit < last; unit += size) pieces[kind].add(edge, sign, unit);
  split(last, hi, levels, level + 1, edge, sign, pieces);
}

/**
 * The sums of the interactions of each interval [a, b) (ms) under the restrictions `dims`: one
 * run of numbers per interval in `sums`, for `columns` (SUM_COLUMNS, or outcomes). `hourly` anchors edges at UTC hours (a
 * series of hours) rather than UTC midnights. One statement for all intervals, whatever windows
 * they come from (a comparison costs rows, not a round trip). Typed arrays throughout: an hourly
 * series has 8,761 edges.
 */
export async function sumsBetween(
  db: Db,
  intervals: ReadonlyArray<readonly [number, number]>,
  dims: Dimensions,
  grain: Grain,
  hourly = false,
): Promise<{ columns: readonly string[]; sums: Float64Array }> {
  const edges = [...new Set(intervals.flat().map((edge) => Math.max(edge, EARLIEST)))].sort((a, b) => a - b);
  if (edges.length < 2) {
    const columns = grain === 'totals' ? SUM_COLUMNS : OUTCOME_KEYS;
    return { columns, sums: new Float64Array(intervals.length * columns.length) };
  }

  const plan = planOf(grain, dims, hourly);
  // Anchors in order (edges are sorted), and each edge's anchor by index.
  const anchors: number[] = [];
  const anchorIndex = new Int32Array(edges.length);
  const edgeSign = new Int8Array(edges.length);
  const pieces: AllPieces = { hours: new Pieces(), quarters: new Pieces(), hourTotals: new Pieces(), raw: new Pieces() };
  for (let k = 0; k < edges.length; k++) {
    const t = edges[k]!;
    const anchor = Math.round(t / plan.unit) * plan.unit;
    if (anchors[anchors.length - 1] !== anchor) anchors.push(anchor);
    anchorIndex[k] = anchors.length - 1;
    edgeSign[k] = t >= anchor ? 1 : -1;
    if (t >= anchor) split(anchor, t, plan.levels, 0, k, 1, pieces);
    else split(t, anchor, plan.levels, 0, k, -1, pieces);
  }

  const conditions = dimensionConditions(dims);
  const parts: Prisma.Sql[] = [];
  if (anchors.length > 1) {
    const first = anchors[0]!;
    const last = anchors[anchors.length - 1]!;
    const { coarse } = plan;
    const [unit, range] =
      plan.unit === DAY
        ? [
            Prisma.sql`unit - DATE '1970-01-01'`,
            [Prisma.sql`unit >= DATE '1970-01-01' + ${first / DAY}::int`, Prisma.sql`unit < DATE '1970-01-01' + ${last / DAY}::int`],
          ]
        : [
            Prisma.sql`(extract(epoch FROM unit) * 1000)::bigint`,
            [Prisma.sql`unit >= ${instantOf(Prisma.sql`${first}::bigint`)}`, Prisma.sql`unit < ${instantOf(Prisma.sql`${last}::bigint`)}`],
          ];
    parts.push(Prisma.sql`
      SELECT 0 AS part, ${unit} AS k, ${coarse.sums}
      FROM ${coarse.from}
      WHERE ${and([...range, ...(coarse.filtered ? conditions : [])])}
      ${coarse.grouped ? (grain === 'outcomes' ? Prisma.sql`GROUP BY unit, outcome` : Prisma.sql`GROUP BY unit`) : Prisma.empty}`);
  }
  // Rows of interaction_hours and interaction_quarters summed per edge in PostgreSQL (an edge's
  // pieces share its sign): a year of local days returns one row per edge and level.
  for (const [part, level, table, unit] of [
    [1, pieces.hours, 'interaction_hours', 'hour'],
    [2, pieces.quarters, 'interaction_quarters', 'quarter'],
  ] as const) {
    if (!level.list.length) continue;
    const at = numbers(level.at);
    parts.push(Prisma.sql`
      SELECT ${Prisma.raw(String(part))} AS part, p.e, ${WIDE_SUMS}
      FROM unnest(${at}::bigint[], ${numbers(level.list.map((piece) => piece.edge))}::int[]) AS p(ms, e)
      JOIN (SELECT * FROM ${Prisma.raw(table)} WHERE ${Prisma.raw(unit)} = ANY(ARRAY(SELECT ${instantOf(Prisma.sql`m`)} FROM unnest(${at}::bigint[]) AS m))) AS t
        ON t.${Prisma.raw(unit)} = ${instantOf(Prisma.sql`p.ms`)}
      GROUP BY p.e`);
  }
  if (pieces.hourTotals.list.length) {
    const at = numbers(pieces.hourTotals.at);
    parts.push(Prisma.sql`
      SELECT 4 AS part, p.k, ${SUMS}
      FROM unnest(${at}::bigint[]) WITH ORDINALITY AS p(ms, k)
      JOIN (
        SELECT *, interactions AS n FROM interaction_hour_totals
        WHERE ${and([Prisma.sql`hour = ANY(ARRAY(SELECT ${instantOf(Prisma.sql`m`)} FROM unnest(${at}::bigint[]) AS m))`, ...conditions])}
      ) AS t ON t.hour = ${instantOf(Prisma.sql`p.ms`)}
      GROUP BY p.k`);
  }
  if (pieces.raw.list.length) {
    const range = and([Prisma.sql`started_at >= ${instantOf(Prisma.sql`p.lo`)}`, Prisma.sql`started_at < ${instantOf(Prisma.sql`p.hi`)}`, ...conditions]);
    // The aggregate inside the LATERAL keeps PostgreSQL from flattening it into one join over the
    // whole table: each range is its own index scan on started_at.
    parts.push(Prisma.sql`
      SELECT 3 AS part, p.k, r.*
      FROM unnest(${numbers(pieces.raw.at)}::bigint[], ${numbers(pieces.raw.until)}::bigint[]) WITH ORDINALITY AS p(lo, hi, k)
      CROSS JOIN LATERAL (${
        grain === 'totals'
          ? Prisma.sql`SELECT ${SUMS} FROM (SELECT ${RAW_COUNTED_TOTALS} FROM interactions WHERE ${range}) AS rows`
          : Prisma.sql`SELECT coalesce(outcome, '') AS outcome, count(*)::bigint FROM interactions WHERE ${range} GROUP BY 1`
      }) AS r`);
  }

  // The answer as one flat JSON array (part, key, then the sums; for outcomes, part, key, outcome,
  // count), as the daily series reads its answer (daily.ts).
  let values: Array<number | string> = [];
  if (parts.length) {
    const columns = grain === 'totals' ? Array.from({ length: SUM_COLUMNS.length }, (_, i) => `s${i}`) : ['outcome', 'n'];
    const named = parts.map((part) => Prisma.sql`SELECT * FROM (${part}) AS x(part, k, ${Prisma.raw(columns.join(', '))})`);
    const listed = grain === 'totals' ? Prisma.raw(columns.join(', ')) : Prisma.sql`to_json(outcome)::text, n`;
    // Not a prepared statement: a generic plan read the prefixes far slower than the plan for the
    // values at hand (which edges, how dense).
    const [row] = await queryRows<{ values: string }>(
      db,
      Prisma.sql`SELECT '[' || coalesce(string_agg(concat_ws(',', part, k, ${listed}), ','), '') || ']' AS values
                 FROM (${Prisma.join(named, ' UNION ALL ')}) AS parts`,
    );
    values = JSON.parse(row!.values) as Array<number | string>;
  }
  // The columns: SUM_COLUMNS, or every outcome met (the nine, none, then others in order met).
  const columnsOut: string[] = grain === 'totals' ? [...SUM_COLUMNS] : [...OUTCOME_KEYS];
  const stride = grain === 'totals' ? SUM_COLUMNS.length + 2 : 4;
  if (grain === 'outcomes') {
    for (let i = 2; i < values.length; i += stride) if (!columnsOut.includes(values[i] as string)) columnsOut.push(values[i] as string);
  }
  const width = columnsOut.length;
  const columnOf = new Map(columnsOut.map((column, c) => [column, c]));

  // Running totals at the anchors (relative to the first), then at the edges.
  const running = new Float64Array(anchors.length * width);
  const atEdge = new Float64Array(edges.length * width);
  // Parts 3 (raw) and 4 (hour totals) are keyed by piece (WITH ORDINALITY numbers them from 1).
  const byOrdinal: Array<Pieces | undefined> = [undefined, undefined, undefined, pieces.raw, pieces.hourTotals];
  for (let i = 0; i < values.length; i += stride) {
    const part = values[i] as number;
    const key = values[i + 1] as number;
    let target: Float64Array;
    let at: number;
    let sign = 1;
    if (part === 0) {
      // A coarse unit (day number or ms) counts towards every anchor after it: gap j, [anchors[j-1], anchors[j]), is added at j.
      target = running;
      at = upperBound(anchors, plan.unit === DAY ? key * DAY : key) * width;
    } else if (part === 1 || part === 2) {
      // Summed per edge (the key), with the edge's sign.
      target = atEdge;
      at = key * width;
      sign = edgeSign[key]!;
    } else {
      const piece = byOrdinal[part]!.list[key - 1]!;
      target = atEdge;
      at = piece.edge * width;
      sign = piece.sign;
    }
    if (grain === 'totals') for (let c = 0; c < width; c++) target[at + c]! += sign * (values[i + 2 + c] as number);
    else target[at + columnOf.get(values[i + 2] as string)!]! += sign * (values[i + 3] as number);
  }
  for (let j = 1; j < anchors.length; j++) for (let c = 0; c < width; c++) running[j * width + c]! += running[(j - 1) * width + c]!;
  const cumulative = atEdge; // the edge's own part, plus its anchor's running total:
  for (let k = 0; k < edges.length; k++) for (let c = 0; c < width; c++) cumulative[k * width + c]! += running[anchorIndex[k]! * width + c]!;

  const result = new Float64Array(intervals.length * width);
  const indexOf = new Map<number, number>();
  for (let k = 0; k < edges.length; k++) indexOf.set(edges[k]!, k);
  intervals.forEach(([a, b], i) => {
    const from = indexOf.get(Math.max(a, EARLIEST))! * width;
    const to = indexOf.get(Math.max(b, EARLIEST))! * width;
    for (let c = 0; c < width; c++) result[i * width + c] = cumulative[to + c]! - cumulative[from + c]!;
  });
  return { columns: columnsOut, sums: result };
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
