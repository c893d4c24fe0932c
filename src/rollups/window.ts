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
