// Sums of interactions between arbitrary instants (the edges of local days, weeks, hours), read
// from the rollup levels in a bounded number of rows.
//
// With C(t) the running total up to instant t, a bucket [a, b) is C(b) - C(a). Each edge t is
// anchored at the nearest coarse boundary A (a UTC midnight, or a UTC hour for hourly series):
// C(t) = C(A) +/- the sums between A and t. C at the anchors comes from one range scan of the coarse
// level grouped by the gaps between anchors (width_bucket); the part between anchor and edge (at
// most 12 hours) from whole UTC hours, then whole quarter hours, then the raw table for what is left
// (offsets that are not multiples of 15 minutes: local mean time before the zone's standard time).
// So a year of local days reads 365 day rows plus a few hour and quarter rows per day, whatever the
// table's size, in one statement.
//
// Two kinds of vectors: TOTALS (SUM_COLUMNS, for summary, daily and series) and OUTCOMES (a count
// per outcome, then none: the outcome breakdown). Which tables hold them depends on the filter:
//   no clinic, channel or type restriction, totals: interaction_days / _hours / _quarters (one row
//     per unit);
//   otherwise, totals: interaction_day_totals (or its all-clinics sum) and interaction_hour_totals,
//     raw below the hour;
//   outcomes: interaction_daily_rollups (or its all-clinics sum), raw below the day.

import { SUM_COLUMNS, SUMS, WIDE_SUMS } from '../analytics/totals.js';
import type { Db } from '../db/client.js';
import { and, queryRows } from '../db/sql.js';
import { OUTCOMES } from '../domain/values.js';
import { Prisma } from '../generated/prisma/client.js';
import { sqlInstant } from '../zones/offsets.js';
import { type Dimensions, dimensionConditions, RAW_COUNTED_TOTALS } from './counted.js';

const QUARTER = 900_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

export type Grain = 'totals' | 'outcomes';

/** The outcomes of an OUTCOMES vector, in order; '' is "no outcome". */
export const OUTCOME_KEYS: readonly string[] = [...OUTCOMES, ''];

/** Numbers per vector. */
export function vectorLength(grain: Grain): number {
  return grain === 'totals' ? SUM_COLUMNS.length : OUTCOME_KEYS.length;
}

/** Where a grain's rows are, for one filter. */
interface Source {
  /** The coarse level by day: table, its unit column, the sums, and whether it is filtered by dimensions. */
  day: Level;
  /** The hour level (coarse for hourly series, else fine), if the grain has one. */
  hour?: Level;
  quarter?: Level;
  /** Sums over raw interactions `i`. */
  raw: Prisma.Sql;
}

interface Level {
  /** FROM item exposing `unit` and the columns `sums` reads. */
  from: Prisma.Sql;
  sums: Prisma.Sql;
  filtered: boolean;
}

const OUTCOME_SUMS = (count: string) =>
  Prisma.raw(OUTCOME_KEYS.map((outcome) => `coalesce(sum(${count}) FILTER (WHERE outcome = '${outcome}'), 0)::bigint`).join(', '));

function sourceOf(grain: Grain, dims: Dimensions): Source {
  const everything = dims.clinicIds === undefined && dims.channel === undefined && dims.type === undefined;
  const allClinics = dims.clinicIds === undefined;
  if (grain === 'outcomes') {
    return {
      day: {
        from: allClinics
          ? Prisma.sql`(SELECT day AS unit, channel, type, direction, outcome, interactions FROM interaction_day_outcomes_all_clinics) AS t`
          : Prisma.sql`(SELECT day AS unit, clinic_id, channel, type, direction, outcome, interactions FROM interaction_daily_rollups) AS t`,
        sums: OUTCOME_SUMS('interactions'),
        filtered: true,
      },
      raw: Prisma.sql`SELECT coalesce(outcome, '') AS outcome, 1 AS interactions`,
    };
  }
  const raw = Prisma.sql`SELECT ${RAW_COUNTED_TOTALS}`;
  if (everything) {
    const wide = (table: string, unit: string) => ({ from: Prisma.raw(`(SELECT ${unit} AS unit, * FROM ${table}) AS t`), sums: WIDE_SUMS, filtered: false });
    return { day: wide('interaction_days', 'day'), hour: wide('interaction_hours', 'hour'), quarter: wide('interaction_quarters', 'quarter'), raw };
  }
  const keyed = (table: string, unit: string) => ({
    from: Prisma.raw(`(SELECT ${unit} AS unit, *, interactions AS n FROM ${table}) AS t`),
    sums: SUMS,
    filtered: true,
  });
  return {
    day: keyed(allClinics ? 'interaction_day_totals_all_clinics' : 'interaction_day_totals', 'day'),
    hour: keyed('interaction_hour_totals', 'hour'),
    raw,
  };
}

/** [lo, hi) split into whole units of `sizes` (largest first), then raw ranges. */
function decompose(lo: number, hi: number, sizes: readonly number[], out: { units: number[][]; raw: Array<[number, number]> }, level = 0): void {
  if (lo >= hi) return;
  if (level === sizes.length) {
    out.raw.push([lo, hi]);
    return;
  }
  const size = sizes[level]!;
  const a = Math.ceil(lo / size) * size;
  const b = Math.floor(hi / size) * size;
  if (a >= b) {
    decompose(lo, hi, sizes, out, level + 1);
    return;
  }
  decompose(lo, a, sizes, out, level + 1);
  for (let unit = a; unit < b; unit += size) out.units[level]!.push(unit);
  decompose(b, hi, sizes, out, level + 1);
}

const iso = sqlInstant;

/** No interaction is before 0001-01-01 UTC (the earliest bound a request may give), nor an edge read. */
const EARLIEST = Date.UTC(2000, 0, 1) - 730_119 * DAY;

/**
 * The sums of each bucket [edges[i], edges[i + 1]) (ms, ascending) under the restrictions `dims`,
 * as vectors of `vectorLength(grain)` numbers. `hourly` anchors edges at UTC hours (a series of
 * hours) rather than UTC midnights.
 */
export async function sumsBetween(db: Db, given: readonly number[], dims: Dimensions, grain: Grain, hourly = false): Promise<number[][]> {
  const edges = given.map((edge) => Math.max(edge, EARLIEST));
  for (let i = 1; i < edges.length; i++) if (!(edges[i]! >= edges[i - 1]!)) throw new RangeError('zoned sums: edges out of order');
  const source = sourceOf(grain, dims);
  const coarse = hourly && source.hour ? source.hour : source.day;
  const unitMs = coarse === source.day ? DAY : HOUR;
  const fineLevels = [...(coarse === source.day && source.hour ? [source.hour] : []), ...(source.quarter ? [source.quarter] : [])];
  const fineSizes = fineLevels.map((level) => (level === source.hour ? HOUR : QUARTER));

  const anchorOf = edges.map((t) => Math.round(t / unitMs) * unitMs);
  const anchors = [...new Set(anchorOf)].sort((a, b) => a - b);
  const fine = { units: fineSizes.map(() => [] as number[]), raw: [] as Array<[number, number]> };
  const unitKeys: number[][] = fineSizes.map(() => []);
  const rawKeys: number[] = [];
  edges.forEach((t, k) => {
    const before = { units: fineSizes.map(() => [] as number[]), raw: [] as Array<[number, number]> };
    decompose(Math.min(t, anchorOf[k]!), Math.max(t, anchorOf[k]!), fineSizes, before);
    before.units.forEach((units, level) => {
      fine.units[level]!.push(...units);
      for (const _ of units) unitKeys[level]!.push(k);
    });
    fine.raw.push(...before.raw);
    for (const _ of before.raw) rawKeys.push(k);
  });

  const conditions = dimensionConditions(dims);
  const unitLiteral = (ms: number) => (unitMs === DAY ? iso(ms).slice(0, 10) : iso(ms));
  const unitType = Prisma.raw(unitMs === DAY ? 'date' : 'timestamptz');
  const parts: Prisma.Sql[] = [];
  if (anchors.length > 1) {
    parts.push(Prisma.sql`
      SELECT 0 AS part, width_bucket(unit, ${anchors.map(unitLiteral)}::${unitType}[]) AS k, ${coarse.sums}
      FROM ${coarse.from}
      WHERE ${and([
        Prisma.sql`unit >= ${unitLiteral(anchors[0]!)}::${unitType}`,
        Prisma.sql`unit < ${unitLiteral(anchors[anchors.length - 1]!)}::${unitType}`,
        ...(coarse.filtered ? conditions : []),
      ])}
      GROUP BY 2`);
  }
  fineLevels.forEach((level, i) => {
    if (!fine.units[i]!.length) return;
    parts.push(Prisma.sql`
      SELECT ${Prisma.raw(String(i + 1))} AS part, p.k, ${level.sums}
      FROM unnest(${fine.units[i]!.map(iso)}::timestamptz[], ${unitKeys[i]}::int[]) AS p(at, k)
      JOIN ${level.from} ON t.unit = p.at${level.filtered && conditions.length ? Prisma.sql` AND ${and(conditions)}` : Prisma.empty}
      GROUP BY p.k`);
  });
  if (fine.raw.length) {
    const sums = grain === 'totals' ? SUMS : OUTCOME_SUMS('interactions');
    parts.push(Prisma.sql`
      SELECT ${Prisma.raw(String(fineLevels.length + 1))} AS part, p.k, ${sums}
      FROM unnest(${fine.raw.map(([lo]) => iso(lo))}::timestamptz[], ${fine.raw.map(([, hi]) => iso(hi))}::timestamptz[], ${rawKeys}::int[]) AS p(lo, hi, k)
      CROSS JOIN LATERAL (${source.raw} FROM interactions WHERE ${and([Prisma.sql`started_at >= p.lo`, Prisma.sql`started_at < p.hi`, ...conditions])}) AS r
      GROUP BY p.k`);
  }
  const width = vectorLength(grain);
  const buckets = edges.slice(1).map(() => new Array<number>(width).fill(0));
  if (!parts.length) return buckets;

  // One flat JSON array of numbers (part, k, then the sums), as the daily series reads its answer (daily.ts).
  const sumNames = Prisma.raw(Array.from({ length: width }, (_, i) => `s${i}`).join(', '));
  const named = parts.map((part) => Prisma.sql`SELECT * FROM (${part}) AS x(part, k, ${sumNames})`);
  const [row] = await queryRows<{ values: string }>(
    db,
    Prisma.sql`SELECT '[' || coalesce(string_agg(concat_ws(',', part, k, ${sumNames}), ','), '') || ']' AS values
               FROM (${Prisma.join(named, ' UNION ALL ')}) AS parts`,
  );
  const values = JSON.parse(row!.values) as number[];

  // Running totals at the anchors, then at the edges.
  const gaps = anchors.map(() => new Array<number>(width).fill(0));
  const atEdge = edges.map(() => new Array<number>(width).fill(0));
  for (let i = 0; i < values.length; i += width + 2) {
    const part = values[i]!;
    const k = values[i + 1]!;
    const target = part === 0 ? gaps[k]! : atEdge[k]!;
    for (let c = 0; c < width; c++) target[c]! += values[i + 2 + c]!;
  }
  const running = new Map<number, number[]>();
  const sum = new Array<number>(width).fill(0);
  anchors.forEach((anchor, j) => {
    // width_bucket numbers the gap [anchors[j-1], anchors[j]) as j.
    if (j > 0) for (let c = 0; c < width; c++) sum[c]! += gaps[j]![c]!;
    running.set(anchor, [...sum]);
  });
  const cumulative = edges.map((t, k) => {
    const base = running.get(anchorOf[k]!)!;
    const sign = t >= anchorOf[k]! ? 1 : -1;
    return base.map((value, c) => value + sign * atEdge[k]![c]!);
  });
  for (let i = 0; i < buckets.length; i++) {
    for (let c = 0; c < width; c++) buckets[i]![c] = cumulative[i + 1]![c]! - cumulative[i]![c]!;
  }
  return buckets;
}
