// The rules for parameter values that every list and window shares (decisions section 2): ids,
// dates, paging. Callers pass the name under which a problem is reported (`date_from` for REST,
// `dateFrom` for GraphQL), and every problem is collected so a client sees all of them at once.
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './values.js';

/** Parameter name -> message, for `VALIDATION_ERROR` details. */
export type Problems = Record<string, string>;

export class InvalidParameters extends Error {
  constructor(readonly problems: Problems) {
    super('Invalid query parameters');
    this.name = 'InvalidParameters';
  }
}

export function throwIfProblems(problems: Problems): void {
  if (Object.keys(problems).length > 0) throw new InvalidParameters(problems);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;
const DAY_MS = 86_400_000;
/** Largest page number: GraphQL's Int is 32-bit, and the REST facade executes GraphQL documents. */
export const MAX_PAGE = 2_147_483_647;
/** Latest accepted instant: PostgreSQL reads no ISO string of a later one (`+010000-...`). */
export const LATEST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
/** Earliest accepted instant: 0001-01-01T00:00:00Z (an offset could otherwise reach year 0). */
export const EARLIEST_INSTANT = -62_135_596_800_000;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * Whether a string holds a control character (C0, DEL or C1: Unicode's category Cc): never part of
 * an id or a phone number, and PostgreSQL refuses NUL in text.
 */
export function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/** Start of a UTC day as epoch ms, or undefined for an impossible date or year 0 (PostgreSQL has none). */
function utcDayStart(year: number, month: number, day: number): number | undefined {
  if (year < 1) return undefined;
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not.
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day ? d.getTime() : undefined;
}

/**
 * A `date_from`/`date_to` value: `YYYY-MM-DD` or an ISO 8601 date-time with `Z` or an offset.
 * A date-only lower bound is the start of that UTC day, a date-only upper bound its last
 * millisecond, so ranges of days are inclusive.
 */
export function parseDateBound(value: string, bound: 'from' | 'to'): Date | undefined {
  const dateOnly = DATE_ONLY.exec(value);
  if (dateOnly) {
    const start = utcDayStart(Number(dateOnly[1]), Number(dateOnly[2]), Number(dateOnly[3]));
    if (start === undefined) return undefined;
    return new Date(bound === 'from' ? start : start + DAY_MS - 1);
  }
  if (!DATE_TIME.test(value)) return undefined;
  const [y, m, d] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  if (utcDayStart(y, m, d) === undefined) return undefined;
  const parsed = new Date(value);
  const ms = parsed.getTime();
  return Number.isNaN(ms) || ms > LATEST_INSTANT || ms < EARLIEST_INSTANT ? undefined : parsed;
}

export interface Paging {
  page: number;
  limit: number;
}

export function checkPaging(raw: { page?: number | null; limit?: number | null }, names: { page: string; limit: string }, problems: Problems): Paging {
  const page = raw.page ?? 1;
  const limit = raw.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isSafeInteger(page) || page < 1) problems[names.page] = 'must be an integer greater than or equal to 1';
  else if (page > MAX_PAGE) problems[names.page] = `must be an integer from 1 to ${MAX_PAGE}`;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    problems[names.limit] = `must be an integer from 1 to ${MAX_PAGE_SIZE}`;
  }
  return { page, limit };
}

/** Metrics' default window (decisions section 4): from the start of the UTC day 30 days ago to the end of today. */
export function defaultMetricsWindow(now: Date): { from: Date; to: Date } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return { from: new Date(today - 30 * DAY_MS), to: new Date(today + DAY_MS - 1) };
}

export function daysInWindow(from: Date, to: Date): number {
  const start = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate());
  const end = Date.UTC(to.getUTCFullYear(), to.getUTCMonth(), to.getUTCDate());
  return Math.floor((end - start) / DAY_MS) + 1;
}
