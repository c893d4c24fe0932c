// The rollups as counts: a window split into whole days and partial edges, and the counts and sums
// read from the levels for those days (the raw table for the edges).
//
// Reading the rollups: the SQL shared by the metrics (src/analytics) and by the exact counts and
// deep pages of interaction lists (src/interactions). Everything is counted and summed by PostgreSQL; JavaScript
// derives the rates from those integer sums (sums.ts, analytics/totals.ts) and converts bigint results to numbers.
//
// Sources: a window's full UTC days are read from rollup tables kept exact by triggers on
// `interactions` (prisma/migrations/*_daily_rollups and *_rollup_levels): whole calendar months from
// a monthly level, other full days from a daily level, and only its partial days at the edges from
// the raw `interactions` table (splitWindow, below). Two grains: TOTALS (day, clinic, channel, type,
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
import { and, columnOf, instant } from '../db/client.js';
import { SCHEDULED_OUTCOME, SUCCESSFUL_OUTCOMES } from '../domain/values.js';
import { declarationOf, type Filters, ROLLUP_FILTER_KEYS, type RollupFilterKey } from '../filters/interaction-filters.js';
import { Prisma } from '../generated/prisma/client.js';

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
 * does not hold are subtracted (splitDaysWithComplement, below): for readers that only sum.
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

// How a window on started_at is read: its full UTC days from the rollup tables (kept exact by
// triggers), whole UTC calendar months among them from the monthly level where the query allows,
// and only the partial days at its edges from the raw `interactions` table. A window from 00:00:00.000 of one day to 23:59:59.999 of another is
// all rollup; a window inside one day is all raw.
//
// A day is full when the window holds every instant a row of that day can have. started_at is a
// timestamptz(3), so the last one is 23:59:59.999: `to` at that millisecond covers the whole day.

const DAY_MS = 86_400_000;

/** A range of started_at read from the raw table: `from` inclusive, then `before` (exclusive) or `to` (inclusive). */
export interface RawRange {
  from?: Date;
  before?: Date;
  to?: Date;
}

export interface WindowSplit {
  /** The full UTC days, as YYYY-MM-DD, inclusive (a missing bound is open); null when there is none. */
  days: { first?: string; last?: string } | null;
  /** At most two ranges (the partial first and last days), or the whole window when no day is full. */
  raw: RawRange[];
}

function checkInstant(value: Date | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new RangeError(`metrics filter: ${name} is not a valid date`);
  }
  return value.getTime();
}

/** YYYY-MM-DD of a day number, as PostgreSQL reads it (toISOString writes `+010000-01-01` after 9999). */
function utcDate(day: number): string {
  const date = new Date(day * DAY_MS);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${String(date.getUTCFullYear()).padStart(4, '0')}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())}`;
}

/** The UTC day containing `instant`, as days since 1970-01-01 (PostgreSQL's `day - DATE '1970-01-01'`). */
export function utcDayNumber(instant: Date, name = 'instant'): number {
  return Math.floor(checkInstant(instant, name)! / DAY_MS);
}

/** Every UTC day (YYYY-MM-DD) from the one containing `from` to the one containing `to`, in order. */
export function utcDays(from: Date, to: Date): string[] {
  const first = utcDayNumber(from, 'from');
  const last = utcDayNumber(to, 'to');
  const days: string[] = [];
  for (let day = first; day <= last; day++) days.push(utcDate(day));
  return days;
}

/** Splits the window [from, to] (either bound may be open) into rollup days and raw ranges. */
export function splitWindow(from: Date | undefined, to: Date | undefined): WindowSplit {
  const fromMs = checkInstant(from, 'from');
  const toMs = checkInstant(to, 'to');
  // Day numbers since the epoch: the first day starting at or after `from`, the last day whose last
  // millisecond is at or before `to`.
  const firstFull = fromMs === undefined ? -Infinity : Math.ceil(fromMs / DAY_MS);
  const lastFull = toMs === undefined ? Infinity : Math.floor((toMs + 1) / DAY_MS) - 1;
  if (firstFull > lastFull) return { days: null, raw: [{ from, to }] };

  const raw: RawRange[] = [];
  if (fromMs !== undefined && fromMs < firstFull * DAY_MS) raw.push({ from, before: new Date(firstFull * DAY_MS) });
  if (toMs !== undefined && toMs >= (lastFull + 1) * DAY_MS) raw.push({ from: new Date((lastFull + 1) * DAY_MS), to });
  return {
    days: {
      ...(Number.isFinite(firstFull) ? { first: utcDate(firstFull) } : {}),
      ...(Number.isFinite(lastFull) ? { last: utcDate(lastFull) } : {}),
    },
    raw,
  };
}

/** An inclusive range of UTC days (YYYY-MM-DD); a missing bound is open. */
export interface DayRange {
  first?: string;
  last?: string;
}

export interface DaySplit {
  /** The whole UTC calendar months of the range, as the YYYY-MM-DD of their first days; null when none. */
  months: DayRange | null;
  /** The range's days outside those months (at most two ranges); the whole range when no month is whole. */
  days: DayRange[];
}

function dayNumber(day: string): number {
  return Date.parse(`${day}T00:00:00.000Z`) / DAY_MS;
}

/**
 * Day number of the first day of a month (`month` may run past 11 into the next year). Not
 * Date.UTC, which reads years 0 to 99 as 1900 to 1999 (a window may start in year 1).
 */
function firstOfMonth(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 1);
  return date.getTime() / DAY_MS;
}

/** Day number of the first day of the month after the one containing `day`. */
function nextMonthStart(day: number): number {
  const date = new Date(day * DAY_MS);
  return firstOfMonth(date.getUTCFullYear(), date.getUTCMonth() + 1);
}

/** Day number of the first day of the month containing `day`. */
function monthStart(day: number): number {
  const date = new Date(day * DAY_MS);
  return firstOfMonth(date.getUTCFullYear(), date.getUTCMonth());
}

/**
 * Splits a range of full days into whole calendar months and the days around them, so that a year
 * reads about twelve monthly keys and at most two partial months of daily keys. An open bound makes
 * the months open on that side.
 */
export function splitDays(range: DayRange): DaySplit {
  const first = range.first === undefined ? -Infinity : dayNumber(range.first);
  const last = range.last === undefined ? Infinity : dayNumber(range.last);
  // The first month starting on or after `first`; the last month ending on or before `last`.
  const firstMonth = Number.isFinite(first) ? (monthStart(first) === first ? first : nextMonthStart(first)) : -Infinity;
  const afterLastMonth = Number.isFinite(last) ? (nextMonthStart(last) === last + 1 ? last + 1 : monthStart(last)) : Infinity;
  if (firstMonth >= afterLastMonth) return { months: null, days: [range] };

  const days: DayRange[] = [];
  if (Number.isFinite(first) && first < firstMonth) days.push({ first: utcDate(first), last: utcDate(firstMonth - 1) });
  if (Number.isFinite(last) && afterLastMonth <= last) days.push({ first: utcDate(afterLastMonth), last: utcDate(last) });
  return {
    months: {
      ...(Number.isFinite(firstMonth) ? { first: utcDate(firstMonth) } : {}),
      // The first day of the last whole month.
      ...(Number.isFinite(afterLastMonth) ? { last: utcDate(monthStart(afterLastMonth - 1)) } : {}),
    },
    days,
  };
}

export interface ComplementedSplit extends DaySplit {
  /** Days to subtract: each lies in a month of `months` that the range holds only part of. */
  minus: DayRange[];
}

/**
 * splitDays, but a month the range holds most of is read as the whole month minus the days it
 * does not hold, where that reads fewer daily keys: a year to yesterday reads this month's row and
 * subtracts the days still to come (none of which has rows), not up to 30 days of rows. Exact
 * because a month's row is the sum of its days (the triggers keep both in the same transaction).
 * The months stay one range: a month read this way touches the range's whole months, or is the
 * range's only month.
 */
export function splitDaysWithComplement(range: DayRange): ComplementedSplit {
  const first = range.first === undefined ? -Infinity : dayNumber(range.first);
  const last = range.last === undefined ? Infinity : dayNumber(range.last);
  /** A month the range holds part of: its first and last days and the range's days in it. */
  const partialAt = (day: number) => {
    const start = monthStart(day);
    const end = nextMonthStart(day) - 1;
    return { start, end, from: Math.max(first, start), to: Math.min(last, end) };
  };
  const head = Number.isFinite(first) && monthStart(first) !== first ? partialAt(first) : undefined;
  const tail = Number.isFinite(last) && nextMonthStart(last) !== last + 1 ? partialAt(last) : undefined;
  // The whole months between them (open where the range is); empty when from > until.
  let monthsFrom = head ? head.end + 1 : first;
  let monthsUntil = tail ? tail.start - 1 : last;
  const partials = head && tail && head.start === tail.start ? [head] : [head, tail].filter((p) => p !== undefined);
  const days: DayRange[] = [];
  const minus: DayRange[] = [];
  const daysOf = (from: number, to: number): DayRange => ({ first: utcDate(from), last: utcDate(to) });
  for (const partial of partials) {
    const inside = partial.to - partial.from + 1;
    const outside = partial.end - partial.start + 1 - inside;
    // (a month's rows cost about what one day's rows cost)
    if (1 + outside < inside) {
      if (partial.from > partial.start) minus.push(daysOf(partial.start, partial.from - 1));
      if (partial.to < partial.end) minus.push(daysOf(partial.to + 1, partial.end));
      monthsFrom = Math.min(monthsFrom, partial.start);
      monthsUntil = Math.max(monthsUntil, partial.end);
    } else {
      days.push(daysOf(partial.from, partial.to));
    }
  }
  const months =
    monthsFrom <= monthsUntil
      ? {
          ...(Number.isFinite(monthsFrom) ? { first: utcDate(monthsFrom) } : {}),
          ...(Number.isFinite(monthsUntil) ? { last: utcDate(monthStart(monthsUntil)) } : {}),
        }
      : null;
  return { months, days, minus };
}
