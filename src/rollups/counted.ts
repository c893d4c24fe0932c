// Reading the rollups: the SQL shared by the metrics (src/analytics) and by the exact counts and
// deep pages of interaction lists (src/interactions). Everything is counted and summed by PostgreSQL; JavaScript
// derives the rates from those integer sums (sums.ts, analytics/totals.ts) and converts bigint results to numbers.
//
// Sources: a window's full UTC days are read from rollup tables kept exact by triggers on
// `interactions` (prisma/migrations/*_daily_rollups and *_rollup_levels): whole calendar months from
// a monthly level, other full days from a daily level, and only its partial days at the edges from
// the raw `interactions` table (window.ts). Two grains: TOTALS (day, clinic, channel, type,
// direction, with the outcome folded into counts; about 70 rows a day at most) for summaries, daily
// series and counts, and OUTCOMES (the same plus the outcome) for breakdowns and counts filtered by
// outcome. Each has a twin with the campaign as one more key: CAMPAIGN_TOTALS serves reads filtered
// by a campaign and breakdowns by campaign, CAMPAIGNS (the outcome grain) breakdowns by outcome and
// outcome counts filtered by a campaign (analytics/breakdown.ts).
// Everything is read, in one statement and so one snapshot, as COUNTED rows: the rollup's
// rows as they are, and each raw row as a row counting 1. (One more level, `interaction_days`, is
// already split into a daily metric's sums; only the daily series of everything reads it: daily.ts.)
//
// The day boundaries are UTC: days are `(started_at AT TIME ZONE 'UTC')::date`, and the window's
// instants are bound as ISO 8601 strings with `Z`, so nothing depends on the session's TimeZone.
// (A JS Date bound directly is sent by the pg driver adapter as a wall-clock string without an offset,
// which `::timestamptz` would read in the session's time zone.)
import { and, columnOf, instant } from '../db/sql.js';
import { SCHEDULED_OUTCOME, SUCCESSFUL_OUTCOMES } from '../domain/values.js';
import { declarationOf, type Filters, ROLLUP_FILTER_KEYS, type RollupFilterKey } from '../filters/interaction-filters.js';
import { Prisma } from '../generated/prisma/client.js';
import { type DayRange, type RawRange, splitDays, splitDaysWithComplement, splitWindow } from './window.js';

/** The UTC calendar day of an interaction (the rollup's `day`). */
export const UTC_DAY = Prisma.sql`(started_at AT TIME ZONE 'UTC')::date`;

/** The clinics a query may touch: undefined = every clinic; [] = none. */
export type ClinicScope = readonly string[] | undefined;

/**
 * Restrictions on columns that `interactions` and every rollup level have: the clinics, and each
 * filter declared a rollup key (filters/interaction-filters.ts).
 */
export type Dimensions = {
  /** undefined = every clinic; [] = none. */
  clinicIds?: readonly string[];
} & { [K in Exclude<RollupFilterKey, 'clinicId'>]?: Filters[K] };

/** The dimensions a restriction is given for (clinicIds, and the rollup filters other than the clinic). */
export const DIMENSION_KEYS = ROLLUP_FILTER_KEYS.filter((key): key is Exclude<RollupFilterKey, 'clinicId'> => key !== 'clinicId');

/** Whether any restriction is given: without one, the levels summed over every clinic and key apply. */
export function hasDimensions(d: Dimensions): boolean {
  return (['clinicIds', ...DIMENSION_KEYS] as const).some((key) => d[key] !== undefined);
}

/** The restrictions given that are not among `keys` (the key columns of some level). */
export function dimensionsBeyond(d: Dimensions, keys: readonly (keyof Dimensions)[]): (keyof Dimensions)[] {
  return (['clinicIds', ...DIMENSION_KEYS] as const).filter((key) => d[key] !== undefined && !keys.includes(key));
}

/** What COUNTED rows select: restrictions and a window on started_at (a missing bound is open). */
export type CountedWindow = Dimensions & { from?: Date; to?: Date };

/**
 * Conditions (on unqualified columns, or qualified by `alias`) for the restrictions given; absent
 * ones add no predicate, so the (clinic_id, ...) and (channel, type, ...) indexes of either table apply.
 */
export function dimensionConditions(d: Dimensions, alias?: string): Prisma.Sql[] {
  const column = columnOf(alias);
  const conditions: Prisma.Sql[] = [];
  if (d.clinicIds !== undefined) {
    conditions.push(
      // (one clinic is an equality, not `= ANY` of one element: only then may PostgreSQL walk a
      // (clinic_id, ..., started_at) index in started_at order; an ANY scan counts as unordered)
      d.clinicIds.length === 0
        ? Prisma.sql`FALSE` // no clinic: the planner answers without reading the table
        : d.clinicIds.length === 1
          ? Prisma.sql`${column('clinic_id')} = ${d.clinicIds[0]}::uuid`
          : Prisma.sql`${column('clinic_id')} = ANY(${[...d.clinicIds]}::uuid[])`,
    );
  }
  for (const key of DIMENSION_KEYS) {
    const value = d[key];
    const condition = declarationOf(key).condition;
    if (value !== undefined && condition) conditions.push(...condition(value, { alias, column, clinicIds: d.clinicIds }));
  }
  return conditions;
}

/** A raw range of started_at, as plain comparisons so the started_at indexes apply. */
export function rawRangeConditions(range: RawRange, alias?: string): Prisma.Sql[] {
  const startedAt = columnOf(alias)('started_at');
  return [
    ...(range.from ? [Prisma.sql`${startedAt} >= ${instant(range.from, 'from')}`] : []),
    ...(range.before ? [Prisma.sql`${startedAt} < ${instant(range.before, 'before')}`] : []),
    ...(range.to ? [Prisma.sql`${startedAt} <= ${instant(range.to, 'to')}`] : []),
  ];
}

/**
 * The rollup tables of one grain: a daily one and a monthly one (`month` for `day`), each also
 * summed over every clinic (no clinic_id column: for queries without a clinic restriction).
 */
export interface RollupLevels {
  day: Prisma.Sql;
  dayAllClinics: Prisma.Sql;
  month: Prisma.Sql;
  monthAllClinics: Prisma.Sql;
}

/** (day, clinic, channel, type, direction) with the outcome folded into counts: summary, daily, counts. */
export const TOTALS: RollupLevels = {
  day: Prisma.sql`interaction_day_totals`,
  dayAllClinics: Prisma.sql`interaction_day_totals_all_clinics`,
  month: Prisma.sql`interaction_month_totals`,
  monthAllClinics: Prisma.sql`interaction_month_totals_all_clinics`,
};
/** (day, clinic, channel, type, direction, outcome): outcome breakdowns, counts filtered by outcome. */
const OUTCOMES: RollupLevels = {
  day: Prisma.sql`interaction_daily_rollups`,
  dayAllClinics: Prisma.sql`interaction_day_outcomes_all_clinics`,
  month: Prisma.sql`interaction_month_outcomes`,
  monthAllClinics: Prisma.sql`interaction_month_outcomes_all_clinics`,
};

/**
 * (day, clinic, campaign, channel, type, direction, outcome), campaign and outcome '' for none: what
 * a campaign filter and a breakdown by campaign or outcome read. No all-clinics twin: a campaign
 * belongs to one clinic.
 */
export const CAMPAIGNS: RollupLevels = {
  day: Prisma.sql`interaction_campaign_days`,
  dayAllClinics: Prisma.sql`interaction_campaign_days`,
  month: Prisma.sql`interaction_campaign_months`,
  monthAllClinics: Prisma.sql`interaction_campaign_months`,
};

/**
 * The totals grain with the campaign as a key, outcome folded into counts (campaign '' for none):
 * every read filtered by a campaign and breakdowns by campaign without the outcome. No all-clinics
 * twin: a campaign belongs to one clinic.
 */
export const CAMPAIGN_TOTALS: RollupLevels = {
  day: Prisma.sql`interaction_campaign_day_totals`,
  dayAllClinics: Prisma.sql`interaction_campaign_day_totals`,
  month: Prisma.sql`interaction_campaign_month_totals`,
  monthAllClinics: Prisma.sql`interaction_campaign_month_totals`,
};

/** Minus signs for subtracted rows (rollupParts' `negated`): the measures of a select list times `sign`. */
type Sign = 1 | -1;
const signed = (sign: Sign, column: string) => (sign === 1 ? column : `-${column}`);

/** The COUNTED TOTALS columns (after `day`) of a row of a totals-grain level (TOTALS, CAMPAIGN_TOTALS). */
export function totalsColumns(sign: Sign): Prisma.Sql {
  const m = (column: string) => signed(sign, column);
  return Prisma.raw(
    `channel, direction, ${m('interactions')} AS n, ${m('with_outcome')} AS with_outcome, ${m('successful')} AS successful, ` +
      `${m('booked')} AS booked, ${m('timed_calls')} AS timed_calls, ${m('duration_sum')} AS duration_sum`,
  );
}

/** The COUNTED TOTALS columns (after `day`) of a row of the campaign levels, whose outcome is a key. */
export function campaignCountedTotals(sign: Sign): Prisma.Sql {
  const n = signed(sign, 'interactions');
  return Prisma.sql`channel, direction, ${Prisma.raw(n)} AS n,
             CASE WHEN outcome <> '' THEN ${Prisma.raw(n)} ELSE 0 END AS with_outcome,
             CASE WHEN outcome = ANY(${[...SUCCESSFUL_OUTCOMES]}::text[]) THEN ${Prisma.raw(n)} ELSE 0 END AS successful,
             CASE WHEN outcome = ${SCHEDULED_OUTCOME}::text THEN ${Prisma.raw(n)} ELSE 0 END AS booked,
             ${Prisma.raw(signed(sign, 'timed_calls'))} AS timed_calls, ${Prisma.raw(signed(sign, 'duration_sum'))} AS duration_sum`;
}

/**
 * The SELECTs reading a window's full days from the rollup levels: whole calendar months from the
 * monthly table when `months` is true (their rows carry the month's first day as `day`), the other
 * full days from the daily table; each from its all-clinics sum when there is no clinic restriction.
 * `columns` is the select list after `day`. With `months: { negated }` (the same select list with
 * every summed column negated), a month the window holds most of is read whole and the days it
 * does not hold are subtracted (window.ts splitDaysWithComplement): for readers that only sum.
 */
export function rollupParts(
  days: DayRange,
  levels: RollupLevels,
  columns: Prisma.Sql,
  dimensions: Dimensions,
  months: boolean | { negated: Prisma.Sql },
): Prisma.Sql[] {
  const split =
    months === false ? { months: null, days: [days], minus: [] } : months === true ? { ...splitDays(days), minus: [] } : splitDaysWithComplement(days);
  const conditions = dimensionConditions(dimensions);
  const allClinics = dimensions.clinicIds === undefined;
  const dayTable = allClinics ? levels.dayAllClinics : levels.day;
  const monthTable = allClinics ? levels.monthAllClinics : levels.month;
  const parts: Prisma.Sql[] = [];
  if (split.months) {
    parts.push(Prisma.sql`
      SELECT month AS day, ${columns} FROM ${monthTable}
      WHERE ${and([...rangeConditions(Prisma.sql`month`, split.months), ...conditions])}`);
  }
  const daysPart = (select: Prisma.Sql, range: DayRange) => Prisma.sql`
      SELECT day, ${select} FROM ${dayTable}
      WHERE ${and([...rangeConditions(Prisma.sql`day`, range), ...conditions])}`;
  for (const range of split.days) parts.push(daysPart(columns, range));
  if (typeof months === 'object') for (const range of split.minus) parts.push(daysPart(months.negated, range));
  return parts;
}

function rangeConditions(column: Prisma.Sql, range: DayRange): Prisma.Sql[] {
  return [
    ...(range.first !== undefined ? [Prisma.sql`${column} >= ${range.first}::date`] : []),
    ...(range.last !== undefined ? [Prisma.sql`${column} <= ${range.last}::date`] : []),
  ];
}

/**
 * The interactions of the filter as COUNTED TOTALS rows `(day, channel, direction, n, with_outcome,
 * successful, booked, timed_calls, duration_sum)`: the rollup's rows for full days (with `months`,
 * whole months as one row per key dated the 1st: not for per-day output), and one row per raw
 * interaction (n = 1) for the partial days, with the rollup's definitions. Meant for
 * `WITH counted AS (...)`; the filter has no outcome restriction (the totals have no outcome).
 */
export function countedTotals(filter: Omit<CountedWindow, 'outcomes'>, options: { months: boolean }): Prisma.Sql {
  const split = splitWindow(filter.from, filter.to);
  const dimensions = dimensionConditions(filter);
  const byCampaign = filter.campaignId !== undefined;
  const parts = split.days ? rollupParts(split.days, byCampaign ? CAMPAIGN_TOTALS : TOTALS, totalsColumns(1), filter, options.months) : [];
  parts.push(...rawCountedTotals(split.raw, dimensions));
  return Prisma.join(parts, '\n      UNION ALL');
}

/**
 * COUNTED TOTALS rows (see countedTotals) of the raw ranges, one row per interaction (n = 1), with
 * the rollup's definitions; one SELECT per range. `dimensions` from dimensionConditions.
 */
export function rawCountedTotals(ranges: readonly RawRange[], dimensions: readonly Prisma.Sql[]): Prisma.Sql[] {
  return ranges.map(
    (range) => Prisma.sql`
      SELECT ${UTC_DAY} AS day, ${RAW_COUNTED_TOTALS}
      FROM interactions
      WHERE ${and([...rawRangeConditions(range), ...dimensions])}`,
  );
}

/** The COUNTED TOTALS columns of one raw interaction (after `day`), with the rollup's definitions. */
export const RAW_COUNTED_TOTALS = Prisma.sql`channel, direction, 1::bigint AS n,
             (outcome IS NOT NULL)::int::bigint AS with_outcome,
             (outcome = ANY(${[...SUCCESSFUL_OUTCOMES]}::text[]))::int::bigint AS successful,
             (outcome = ${SCHEDULED_OUTCOME}::text)::int::bigint AS booked,
             (channel = 'voice' AND duration_seconds IS NOT NULL)::int::bigint AS timed_calls,
             (CASE WHEN channel = 'voice' THEN coalesce(duration_seconds, 0) ELSE 0 END)::bigint AS duration_sum`;

/**
 * Every interaction of a window (no restriction on clinic, channel, type or outcome), one row per
 * UTC day that has any, in any order: full days are `interaction_days` rows as they are, selected as
 * `day, ${columns.days}`; the partial days at the window's edges are COUNTED TOTALS rows of the raw
 * table grouped by day, selected as `day, ${columns.raw}` (aggregates of those rows).
 */
export function everyInteractionByDay(window: { from?: Date; to?: Date }, columns: { days: Prisma.Sql; raw: Prisma.Sql }): Prisma.Sql {
  const split = splitWindow(window.from, window.to);
  const parts = split.days
    ? [
        Prisma.sql`
      SELECT day, ${columns.days} FROM interaction_days
      WHERE ${and(rangeConditions(Prisma.sql`day`, split.days))}`,
      ]
    : [];
  const raw = rawCountedTotals(split.raw, []);
  if (raw.length) parts.push(Prisma.sql`SELECT day, ${columns.raw} FROM (${Prisma.join(raw, '\n      UNION ALL\n')}) AS counted GROUP BY day`);
  return Prisma.join(parts, '\n      UNION ALL\n');
}

/**
 * The interactions of the filter as COUNTED OUTCOME rows `(day, outcome, n)`, outcome '' for none:
 * whole months from the monthly level (with `months`; otherwise every full day from the daily
 * rollup), other full days from the daily rollup, partial days raw.
 */
export function countedOutcomes(filter: CountedWindow, options: { months: boolean }): Prisma.Sql {
  const split = splitWindow(filter.from, filter.to);
  const dimensions = dimensionConditions(filter);
  const levels = filter.campaignId !== undefined ? CAMPAIGNS : OUTCOMES;
  const parts = split.days ? rollupParts(split.days, levels, Prisma.sql`outcome, interactions AS n`, filter, options.months) : [];
  for (const range of split.raw) {
    parts.push(Prisma.sql`
      SELECT ${UTC_DAY} AS day, coalesce(outcome, '') AS outcome, 1::bigint AS n
      FROM interactions
      WHERE ${and([...rawRangeConditions(range), ...dimensions])}`);
  }
  return Prisma.join(parts, '\n      UNION ALL');
}
