// How a window on started_at is read: its full UTC days from the daily rollup table
// (interaction_daily_rollups, kept exact by triggers), and only the partial days at its edges from
// the raw `interactions` table. A window from 00:00:00.000 of one day to 23:59:59.999 of another is
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

function utcDate(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
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
