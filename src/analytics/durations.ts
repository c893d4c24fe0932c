// The distribution of voice-call durations over a window: how many calls have a duration, their
// percentiles (as PostgreSQL's percentile_cont computes them) and a histogram, in one statement.
//
// Read from the duration histogram levels (prisma/migrations/*_campaign_and_duration_levels): whole
// months (one the window holds most of read whole, less the days it does not hold) and other full
// UTC days from them, partial days at the window's edges raw, like every metric (rollups/counted.ts). A percentile is interpolated between two order statistics; one that
// falls in a bucket of the histogram is estimated inside the bucket (its calls spread evenly over
// the bucket's whole seconds), so it is within the bucket's width of the exact value, and
// `precisionSeconds` says the largest width used. Calls of an hour or more share one open bucket:
// order statistics there are read exactly from the raw table (a partial index holds those calls).
import type { Db } from '../db/client.js';
import { and, queryRows } from '../db/client.js';
import { directionOfType, type InteractionTypeValue, TYPES_BY_CHANNEL } from '../domain/values.js';
import { Prisma } from '../generated/prisma/client.js';
import { dimensionConditions, dimensionsBeyond, type RollupLevels, rawRangeConditions, rollupParts, splitWindow, UTC_DAY } from '../rollups/counted.js';
import type { MetricsFilter } from './filter.js';

/** One bucket of the histogram: [from, to) seconds; `to` null for the open last bucket. */
export interface DurationBucket {
  fromSeconds: number;
  toSeconds: number | null;
  count: number;
}

export const PERCENTILES = [
  ['p50', 0.5],
  ['p75', 0.75],
  ['p90', 0.9],
  ['p95', 0.95],
  ['p99', 0.99],
] as const;

export type Percentiles = Record<(typeof PERCENTILES)[number][0], number | null>;

export interface DurationsResult {
  /** Voice calls with a duration in the window. */
  count: number;
  /** null when there is no call. */
  percentiles: Percentiles;
  /** From 0 seconds to the last non-empty bucket, every bucket (empty ones too). */
  histogram: DurationBucket[];
  /** Each percentile is within this many seconds of the exact percentile_cont value; 0 when all are exact. */
  precisionSeconds: number;
}

/**
 * The buckets, as the migration's interaction_duration_bucket() numbers them: 10 seconds wide below
 * 600 s (0-59), 60 seconds wide below 3,600 s (60-109), then one open bucket (110).
 */
export const OPEN_BUCKET = 110;
export const LONG_CALL_SECONDS = 3_600;
export function bucketBounds(bucket: number): { from: number; to: number | null } {
  if (bucket < 60) return { from: bucket * 10, to: bucket * 10 + 10 };
  if (bucket < OPEN_BUCKET) return { from: 600 + (bucket - 60) * 60, to: 600 + (bucket - 59) * 60 };
  return { from: LONG_CALL_SECONDS, to: null };
}

const ALL_CLINICS: RollupLevels = {
  day: Prisma.sql`interaction_duration_days_all_clinics`,
  dayAllClinics: Prisma.sql`interaction_duration_days_all_clinics`,
  month: Prisma.sql`interaction_duration_months_all_clinics`,
  monthAllClinics: Prisma.sql`interaction_duration_months_all_clinics`,
};
const PER_CLINIC: RollupLevels = {
  day: Prisma.sql`interaction_duration_days`,
  dayAllClinics: Prisma.sql`interaction_duration_days`,
  month: Prisma.sql`interaction_duration_months`,
  monthAllClinics: Prisma.sql`interaction_duration_months`,
};

/** The voice calls with a duration that the filter selects (the raw table's conditions). */
function callConditions(filter: MetricsFilter): Prisma.Sql[] {
  // (literals, not parameters: the partial index on long calls is matched on its predicate's text)
  return [Prisma.sql`channel = 'voice'`, Prisma.sql`duration_seconds IS NOT NULL`, ...dimensionConditions({ ...filter, channel: undefined })];
}

/**
 * The restrictions the duration levels can answer: their key columns (clinic, campaign, type), the
 * channel, which every row of theirs shares (voice), and the direction, which the type decides
 * (directionOfType; imports refuse any other pairing): a direction is read as its voice types. A
 * filter on anything else is answered from the raw table, over the whole window.
 */
const DURATION_LEVEL_KEYS = ['clinicIds', 'campaignId', 'type', 'channel', 'direction'] as const;

/** The voice types the filter selects (its type, or the types of its direction); undefined = every one. */
function typesOf(filter: MetricsFilter): readonly (InteractionTypeValue | undefined)[] {
  if (filter.direction === undefined) return [filter.type];
  return TYPES_BY_CHANNEL.voice.filter((type) => directionOfType(type) === filter.direction && (filter.type === undefined || type === filter.type));
}

export function durationsQuery(filter: MetricsFilter): Prisma.Sql {
  const levels = filter.clinicIds === undefined && filter.campaignId === undefined ? ALL_CLINICS : PER_CLINIC;
  const split =
    dimensionsBeyond(filter, DURATION_LEVEL_KEYS).length > 0
      ? { days: null, raw: [{ from: filter.from, to: filter.to }] }
      : splitWindow(filter.from, filter.to);
  // One part per type: the types of a direction are disjoint rows of the levels.
  const parts = split.days
    ? typesOf(filter).flatMap((type) =>
        rollupParts(
          split.days!,
          levels,
          Prisma.sql`bucket, calls`,
          { clinicIds: filter.clinicIds, campaignId: filter.campaignId, type },
          {
            negated: Prisma.sql`bucket, -calls AS calls`,
          },
        ),
      )
    : [];
  for (const range of split.raw) {
    parts.push(Prisma.sql`
      SELECT ${UTC_DAY} AS day, interaction_duration_bucket(duration_seconds) AS bucket, 1::bigint AS calls
      FROM interactions
      WHERE ${and([...rawRangeConditions(range), ...callConditions(filter)])}`);
  }
  const fractions = PERCENTILES.map(([, p]) => p);
  // The ranks (0-based) that the percentiles interpolate between, as percentile_cont takes them;
  // those in the open bucket are read from the raw table, in the same snapshot.
  return Prisma.sql`
    WITH counted AS (${Prisma.join(parts, '\n      UNION ALL')}),
    histogram AS (
      SELECT bucket, sum(calls)::bigint AS calls FROM counted GROUP BY bucket HAVING sum(calls) <> 0
    ),
    sizes AS (
      SELECT coalesce(sum(calls), 0)::bigint AS total, coalesce(sum(calls) FILTER (WHERE bucket < ${OPEN_BUCKET}), 0)::bigint AS below FROM histogram
    ),
    long_ranks AS (
      SELECT DISTINCT v.r FROM sizes
      CROSS JOIN unnest(${fractions}::float8[]) AS p(fraction)
      CROSS JOIN LATERAL (VALUES (floor(p.fraction * (sizes.total - 1))::bigint), (floor(p.fraction * (sizes.total - 1))::bigint + 1)) AS v(r)
      WHERE sizes.total > 0 AND v.r < sizes.total AND v.r >= sizes.below
    )
    SELECT
      (SELECT coalesce(json_agg(json_build_array(bucket, calls) ORDER BY bucket), '[]') FROM histogram)::text AS histogram,
      (SELECT coalesce(json_agg(json_build_array(l.r, x.seconds)), '[]') FROM long_ranks AS l CROSS JOIN sizes
        CROSS JOIN LATERAL (
          SELECT duration_seconds AS seconds FROM interactions
          WHERE ${and([
            Prisma.sql`channel = 'voice'`,
            Prisma.raw(`duration_seconds >= ${LONG_CALL_SECONDS}`),
            ...rawRangeConditions({ from: filter.from, to: filter.to }),
            ...dimensionConditions({ ...filter, channel: undefined }),
          ])}
          ORDER BY duration_seconds OFFSET l.r - sizes.below LIMIT 1
        ) AS x)::text AS long_calls`;
}

export async function metricsDurations(db: Db, filter: MetricsFilter): Promise<DurationsResult> {
  if (filter.channel === 'whatsapp' || (filter.clinicIds && filter.clinicIds.length === 0)) return durationsOf([], new Map());
  // Unnamed, planned for its values every time: the generic plan of this statement misjudges how many
  // histogram rows a window holds (46 for 4,421 over a year at 10,000,000 interactions) and reads
  // them with parallel workers, three times the custom plan's cost (bench/results/2026-11-25-*).
  const [row] = await queryRows<{ histogram: string; long_calls: string }>(db, durationsQuery(filter));
  if (!row) throw new Error('metrics durations: the query returned no row');
  const histogram = JSON.parse(row.histogram) as Array<[number, number]>;
  const long = new Map((JSON.parse(row.long_calls) as Array<[number, number]>).map(([rank, seconds]) => [rank, seconds]));
  return durationsOf(histogram, long);
}

/** The result from the histogram's non-empty buckets (ascending) and the exact long calls by rank. */
export function durationsOf(histogram: ReadonlyArray<readonly [number, number]>, long: ReadonlyMap<number, number>): DurationsResult {
  const count = histogram.reduce((sum, [, calls]) => sum + calls, 0);
  const counts = new Map(histogram);
  const last = histogram.length ? histogram[histogram.length - 1]![0] : -1;
  const buckets: DurationBucket[] = [];
  for (let bucket = 0; bucket <= last; bucket++) {
    const { from, to } = bucketBounds(bucket);
    buckets.push({ fromSeconds: from, toSeconds: to, count: counts.get(bucket) ?? 0 });
  }
  let precision = 0;
  /** The order statistic of rank k (0-based): exact in the open bucket, else estimated in its bucket. */
  const orderStatistic = (k: number): { value: number; exact: boolean } => {
    let before = 0;
    for (const [bucket, calls] of histogram) {
      if (k < before + calls) {
        if (bucket === OPEN_BUCKET) {
          const seconds = long.get(k);
          if (seconds === undefined) throw new Error(`metrics durations: no long call of rank ${k}`);
          return { value: seconds, exact: true };
        }
        const { from, to } = bucketBounds(bucket);
        const width = to! - from;
        precision = Math.max(precision, width);
        // Whole seconds from `from` to `to - 1`, the bucket's calls spread evenly over them.
        return { value: from + ((width - 1) * (k - before + 0.5)) / calls, exact: false };
      }
      before += calls;
    }
    throw new Error(`metrics durations: rank ${k} beyond ${count} calls`);
  };
  const percentiles = {} as Percentiles;
  for (const [name, fraction] of PERCENTILES) {
    if (count === 0) {
      percentiles[name] = null;
      continue;
    }
    const h = fraction * (count - 1);
    const lo = Math.floor(h);
    const low = orderStatistic(lo);
    const high = h > lo ? orderStatistic(lo + 1) : low;
    const value = low.value + (h - lo) * (high.value - low.value);
    percentiles[name] = low.exact && high.exact ? value : Math.round(value * 100) / 100;
  }
  return { count, percentiles, histogram: buckets, precisionSeconds: precision };
}
