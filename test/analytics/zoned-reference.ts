// A raw-SQL reference for metrics in a clinic's local time zone: everything zone-dependent is asked
// of PostgreSQL's own `AT TIME ZONE` on the raw `interactions` table (never the rollups, never the
// code under test), and only arithmetic on the answers is done here.
//
// - Buckets of a series are the maximal runs of instants of the window that share a local key: the
//   local wall time truncated to the unit (`date_trunc` of `started_at AT TIME ZONE zone`), and for
//   hours also the UTC offset (a repeated hour of a DST fold is two buckets). Their boundaries are
//   found by sampling the key (every 15 minutes for hours) and bisecting to the millisecond where it changes.
// - A date-only bound is the first instant whose local date is that date or later (bisected too).
// - Sums are GROUP BYs over the same key expression; rates are derived exactly (reference.ts).
import type pg from 'pg';
import { div2, percent2 } from './reference.js';

export type Granularity = 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year';
export const GRANULARITIES: readonly Granularity[] = ['hour', 'day', 'week', 'month', 'quarter', 'year'];

export type Queryable = pg.Pool | pg.ClientBase;

/** Which interactions count, besides the window. */
export interface Dims {
  /** undefined = every clinic (no condition); [] = none. */
  clinicIds?: readonly string[];
  campaignId?: string;
  channel?: string;
  type?: string;
}

/** An inclusive window [from, to] of instants (epoch ms), and the zone that names its local days. */
export interface ZonedWindow extends Dims {
  zone: string;
  from: number;
  to: number;
}

const HOUR = 3_600_000;
const DAY = 86_400_000;
/** How often the key is sampled: a key changes at most once between samples (hours: also at DST changes within the hour). */
const SAMPLE_STEP: Record<Granularity, number> = { hour: 15 * 60_000, day: HOUR, week: HOUR, month: HOUR, quarter: HOUR, year: HOUR };

const iso = (t: number) => new Date(t).toISOString();

// --- local keys of instants ---------------------------------------------------------------------

/** `t` (a timestamptz expression) as the local key of `unit` in the zone `zone` (a text expression). */
function keyExpression(t: string, zone: string, unit: Granularity): string {
  const local = `(${t} AT TIME ZONE ${zone})`;
  const truncated = `to_char(date_trunc('${unit}', ${local}), 'YYYY-MM-DD"T"HH24:MI:SS')`;
  return unit === 'hour' ? `${truncated} || '|' || extract(epoch FROM ${local} - (${t} AT TIME ZONE 'UTC'))::bigint::text` : truncated;
}

export interface LocalTime {
  /** Local wall time with milliseconds, `YYYY-MM-DDTHH:MM:SS.mmm`. */
  wall: string;
  /** The zone's UTC offset at the instant, in seconds. */
  offset: number;
  key: string;
}

/** The local wall time, offset and key of each instant, in the order given. */
export async function localTimes(q: Queryable, zone: string, unit: Granularity, instants: readonly number[]): Promise<LocalTime[]> {
  if (instants.length === 0) return [];
  const { rows } = await q.query<{ wall: string; offset: string; key: string }>(
    `SELECT to_char(x.l, 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS wall,
            extract(epoch FROM x.l - (u.t AT TIME ZONE 'UTC'))::bigint::text AS offset,
            ${keyExpression('u.t', '$2::text', unit)} AS key
     FROM unnest($1::timestamptz[]) WITH ORDINALITY AS u(t, i), LATERAL (SELECT u.t AT TIME ZONE $2::text AS l) AS x
     ORDER BY u.i`,
    [instants.map(iso), zone],
  );
  return rows.map((r) => ({ wall: r.wall, offset: Number(r.offset), key: r.key }));
}

/** `+HH:MM`, or `+HH:MM:SS` when the offset has seconds (historical local mean times). */
export function formatOffset(seconds: number): string {
  const sign = seconds < 0 ? '-' : '+';
  const a = Math.abs(seconds);
  const pad = (n: number) => String(n).padStart(2, '0');
  const hhmm = `${sign}${pad(Math.floor(a / 3600))}:${pad(Math.floor((a % 3600) / 60))}`;
  return a % 60 === 0 ? hhmm : `${hhmm}:${pad(a % 60)}`;
}

/** The instant as ISO 8601 local time with milliseconds and the zone's offset there. */
export function formatLocal(local: LocalTime): string {
  return `${local.wall}${formatOffset(local.offset)}`;
}

/**
 * The local key of an API bucket, from its `start` (`YYYY-MM-DDTHH:MM:SS.mmm±HH:MM[:SS]`): the wall
 * time truncated to the unit (ISO weeks start on Monday), and for hours the offset in seconds.
 */
export function bucketKeyOf(start: string, unit: Granularity): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})(?:Z|([+-])(\d{2}):(\d{2})(?::(\d{2}))?)$/.exec(start);
  if (!m) throw new Error(`not an ISO local time with offset: ${start}`);
  const [, y, mo, d, h] = m;
  const pad = (n: number) => String(n).padStart(2, '0');
  switch (unit) {
    case 'hour': {
      const offset = m[8] ? (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 3600 + Number(m[10]) * 60 + Number(m[11] ?? 0)) : 0;
      return `${y}-${mo}-${d}T${h}:00:00|${offset}`;
    }
    case 'day':
      return `${y}-${mo}-${d}T00:00:00`;
    case 'week': {
      const date = new Date(0);
      date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
      const monday = new Date(date.getTime() - ((date.getUTCDay() + 6) % 7) * DAY);
      return `${String(monday.getUTCFullYear()).padStart(4, '0')}-${pad(monday.getUTCMonth() + 1)}-${pad(monday.getUTCDate())}T00:00:00`;
    }
    case 'month':
      return `${y}-${mo}-01T00:00:00`;
    case 'quarter':
      return `${y}-${pad(Math.floor((Number(mo) - 1) / 3) * 3 + 1)}-01T00:00:00`;
    case 'year':
      return `${y}-01-01T00:00:00`;
  }
}

/**
 * Instants in (from, to] where the local key changes (the first millisecond of each new key), in
 * order: the key is sampled every hour (every 15 minutes for hours) and at `extraSamples` (the
 * offset changes, and the millisecond before each), then every interval whose ends differ is
 * bisected to the millisecond, all intervals in one query per step.
 */
export async function keyChanges(
  q: Queryable,
  zone: string,
  unit: Granularity,
  from: number,
  to: number,
  extraSamples: readonly number[] = [],
): Promise<number[]> {
  const step = SAMPLE_STEP[unit];
  const regular = [from];
  for (let t = Math.floor(from / step) * step + step; t < to; t += step) regular.push(t);
  if (to > from) regular.push(to);
  const samples = [...new Set([...regular, ...extraSamples.filter((t) => t > from && t < to)])].sort((a, b) => a - b);
  const keys = (await localTimes(q, zone, unit, samples)).map((l) => l.key);
  interface Open {
    lo: number;
    loKey: string;
    hi: number;
    hiKey: string;
    end: number;
    endKey: string;
  }
  let open: Open[] = [];
  for (let i = 1; i < samples.length; i++) {
    if (keys[i] !== keys[i - 1]) open.push({ lo: samples[i - 1]!, loKey: keys[i - 1]!, hi: samples[i]!, hiKey: keys[i]!, end: samples[i]!, endKey: keys[i]! });
  }
  const changes: number[] = [];
  while (open.length > 0) {
    for (let active = open.filter((o) => o.hi - o.lo > 1); active.length > 0; active = open.filter((o) => o.hi - o.lo > 1)) {
      const mids = active.map((o) => Math.floor((o.lo + o.hi) / 2));
      const at = await localTimes(q, zone, unit, mids);
      active.forEach((o, i) => {
        if (at[i]!.key === o.loKey) o.lo = mids[i]!;
        else {
          o.hi = mids[i]!;
          o.hiKey = at[i]!.key;
        }
      });
    }
    // The first change of each interval is found; another may follow before its end.
    changes.push(...open.map((o) => o.hi));
    open = open.filter((o) => o.hiKey !== o.endKey).map((o) => ({ lo: o.hi, loKey: o.hiKey, hi: o.end, hiKey: o.endKey, end: o.end, endKey: o.endKey }));
  }
  return [...new Set(changes)].sort((a, b) => a - b);
}

// --- sums ---------------------------------------------------------------------------------------

const AGGREGATES = `
  count(*)::bigint AS total,
  count(*) FILTER (WHERE channel = 'voice')::bigint AS calls,
  count(*) FILTER (WHERE channel = 'whatsapp')::bigint AS conversations,
  count(*) FILTER (WHERE direction = 'inbound')::bigint AS inbound,
  count(*) FILTER (WHERE direction = 'outbound')::bigint AS outbound,
  count(*) FILTER (WHERE outcome = 'APPOINTMENT_BOOKED')::bigint AS booked,
  count(outcome)::bigint AS with_outcome,
  count(*) FILTER (WHERE outcome IN ('APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED'))::bigint AS successful,
  count(duration_seconds) FILTER (WHERE channel = 'voice')::bigint AS timed_calls,
  coalesce(sum(duration_seconds) FILTER (WHERE channel = 'voice'), 0)::bigint AS duration_sum`;

interface Sums {
  total: number;
  calls: number;
  conversations: number;
  inbound: number;
  outbound: number;
  booked: number;
  with_outcome: number;
  successful: number;
  timed_calls: number;
  duration_sum: number;
}

const NO_SUMS: Sums = {
  total: 0,
  calls: 0,
  conversations: 0,
  inbound: 0,
  outbound: 0,
  booked: 0,
  with_outcome: 0,
  successful: 0,
  timed_calls: 0,
  duration_sum: 0,
};

function sumsOf(row: Record<string, string | number> | undefined): Sums {
  if (!row) return NO_SUMS;
  return Object.fromEntries(Object.keys(NO_SUMS).map((k) => [k, Number(row[k])])) as unknown as Sums;
}

/** The conditions of the window and dims, appending their values to `values`. */
function whereOf(w: Omit<ZonedWindow, 'zone'>, values: unknown[]): string {
  const param = (v: unknown) => {
    values.push(v);
    return `$${values.length}`;
  };
  const conditions = [`started_at >= ${param(iso(w.from))}::timestamptz`, `started_at <= ${param(iso(w.to))}::timestamptz`];
  if (w.clinicIds !== undefined) conditions.push(w.clinicIds.length === 0 ? 'FALSE' : `clinic_id = ANY(${param([...w.clinicIds])}::uuid[])`);
  if (w.campaignId !== undefined) conditions.push(`campaign_id = ${param(w.campaignId)}`);
  if (w.channel !== undefined) conditions.push(`channel = ${param(w.channel)}::"Channel"`);
  if (w.type !== undefined) conditions.push(`type = ${param(w.type)}::"InteractionType"`);
  return conditions.join(' AND ');
}

/** The REST fields of a daily entry or series bucket (after `date` or `start`/`end`). */
export function bucketFields(s: Sums) {
  return {
    total: s.total,
    calls: s.calls,
    conversations: s.conversations,
    inbound: s.inbound,
    outbound: s.outbound,
    appointments_scheduled: s.booked,
    success_rate: percent2(s.successful, s.with_outcome),
    avg_duration_seconds: div2(s.duration_sum, s.timed_calls),
  };
}

export type BucketFields = ReturnType<typeof bucketFields>;
export interface SeriesBucket extends BucketFields {
  start: string;
  end: string;
}
export interface DailyEntry extends BucketFields {
  date: string;
}

/** Sums per local key of `unit` over the window's interactions. */
async function sumsByKey(q: Queryable, w: ZonedWindow, unit: Granularity): Promise<Map<string, Sums>> {
  const values: unknown[] = [w.zone];
  const where = whereOf(w, values);
  const { rows } = await q.query<Record<string, string>>(
    `SELECT ${keyExpression('started_at', '$1::text', unit)} AS key, ${AGGREGATES} FROM interactions WHERE ${where} GROUP BY 1`,
    values,
  );
  return new Map(rows.map((r) => [r.key!, sumsOf(r)]));
}

/**
 * The series of the window in `unit` buckets: one per local key (local calendar unit, and for hours
 * the offset) that instants of the window have, with the sums of a GROUP BY on that key. A bucket is
 * the run of instants with its key, from `start` to `end` (exclusive): local calendar units cut to
 * the window, the first starting at `from`, the last ending at `to` + 1 ms, zero-filled.
 *
 * Where a fold takes the local date back across midnight (America/St_Johns' 00:01 fall-backs until
 * 2011: 00:00:59 on the 28th, then 23:01 on the 27th again), a key has two runs; the contract leaves
 * this open, and the reference follows the API's reading: one bucket per key, the exact set of its
 * instants, `start` its first instant and `end` the instant after its last (such buckets overlap).
 */
export async function referenceSeries(q: Queryable, w: ZonedWindow, unit: Granularity): Promise<Array<SeriesBucket & { key: string }>> {
  const transitions = (await offsetTransitions(q, w.zone, w.from - DAY, w.to + DAY)).filter((t) => t > w.from && t <= w.to);
  const changes = await keyChanges(
    q,
    w.zone,
    unit,
    w.from,
    w.to,
    transitions.flatMap((t) => [t - 1, t]),
  );
  const boundaries = [w.from, ...changes, w.to + 1];
  const locals = await localTimes(q, w.zone, unit, boundaries);
  const sums = await sumsByKey(q, w, unit);
  // Runs of one key: the first starts the key's bucket, the last ends it.
  const byKey = new Map<string, { start: number; end: number }>();
  for (let i = 0; i < boundaries.length - 1; i++) {
    const key = locals[i]!.key;
    const seen = byKey.get(key);
    if (seen) seen.end = i + 1;
    else byKey.set(key, { start: i, end: i + 1 });
  }
  for (const key of sums.keys()) if (!byKey.has(key)) throw new Error(`reference: rows with key ${key} outside every bucket`);
  return [...byKey.entries()].map(([key, run]) => ({
    key,
    start: formatLocal(locals[run.start]!),
    end: formatLocal(locals[run.end]!),
    ...bucketFields(sums.get(key) ?? NO_SUMS),
  }));
}

/**
 * The local dates a daily series lists: from the date of a date-only date_from (also one a gap
 * skips entirely, as Pacific/Apia's 2011-12-30), else the local date of `from`; to the date of a
 * date-only date_to, else the local date of `to`.
 */
export async function dailyDates(q: Queryable, zone: string, w: { from: number; to: number; fromBound: Bound; toBound: Bound }) {
  const [first, last] = await localDates(q, zone, [w.from, w.to]);
  return {
    first: w.fromBound.kind === 'date' ? w.fromBound.date : first!,
    last: w.toBound.kind === 'date' ? w.toBound.date : last!,
  };
}

/** Every calendar date from `dates.first` to `dates.last` (none skipped), zero-filled, with the sums of the rows of that local date. */
export async function referenceDaily(q: Queryable, w: ZonedWindow, dates: { first: string; last: string }): Promise<DailyEntry[]> {
  const values: unknown[] = [w.zone];
  const where = whereOf(w, values);
  const first = values.push(dates.first);
  const last = values.push(dates.last);
  const { rows } = await q.query<Record<string, string>>(
    `WITH days AS (
       SELECT d::date AS day
       FROM generate_series($${first}::date::timestamp, $${last}::date::timestamp, interval '1 day') AS d
     ),
     per_day AS (
       SELECT (started_at AT TIME ZONE $1::text)::date AS day, ${AGGREGATES} FROM interactions WHERE ${where} GROUP BY 1
     )
     SELECT to_char(days.day, 'YYYY-MM-DD') AS date, a.*
     FROM days LEFT JOIN per_day AS a ON a.day = days.day
     ORDER BY days.day`,
    values,
  );
  return rows.map((r) => ({ date: r.date!, ...bucketFields(r.total === null ? NO_SUMS : sumsOf(r)) }));
}

export const SUMMARY_FIELDS = [
  'total_interactions',
  'total_calls',
  'total_conversations',
  'inbound_count',
  'outbound_count',
  'avg_duration_seconds',
  'total_duration_seconds',
  'success_rate',
  'appointments_scheduled',
] as const;
export type SummaryData = Record<(typeof SUMMARY_FIELDS)[number], number>;

export async function referenceSummary(q: Queryable, w: Omit<ZonedWindow, 'zone'>): Promise<SummaryData> {
  const values: unknown[] = [];
  const where = whereOf(w, values);
  const { rows } = await q.query<Record<string, string>>(`SELECT ${AGGREGATES} FROM interactions WHERE ${where}`, values);
  const s = sumsOf(rows[0]);
  return {
    total_interactions: s.total,
    total_calls: s.calls,
    total_conversations: s.conversations,
    inbound_count: s.inbound,
    outbound_count: s.outbound,
    avg_duration_seconds: div2(s.duration_sum, s.timed_calls),
    total_duration_seconds: s.duration_sum,
    success_rate: percent2(s.successful, s.with_outcome),
    appointments_scheduled: s.booked,
  };
}

export const OUTCOME_LABELS: Record<string, string> = {
  APPOINTMENT_BOOKED: 'Appointment Booked',
  APPOINTMENT_MODIFIED: 'Appointment Modified',
  APPOINTMENT_CANCELLED: 'Appointment Cancelled',
  NO_ANSWER: 'No Answer',
  VOICEMAIL_REACHED: 'Voicemail Reached',
  CALLBACK_REQUESTED: 'Callback Requested',
  DECISION_PENDING: 'Decision Pending',
  OPT_OUT: 'Opt Out',
  UNREACHABLE: 'Unreachable',
  FOLLOW_UP: 'Follow Up',
  NOTE: 'Note',
  WRONG_NUMBER: 'Wrong Number',
};

export type OutcomesData = {
  outcomes: Array<{ outcome: string; label: string; count: number; percentage: number }>;
  total: number;
};

export async function referenceOutcomes(q: Queryable, w: Omit<ZonedWindow, 'zone'>): Promise<OutcomesData> {
  const values: unknown[] = [];
  const where = whereOf(w, values);
  const { rows } = await q.query<{ outcome: string; count: string }>(
    `SELECT outcome, count(*)::bigint AS count FROM interactions WHERE ${where} AND outcome IS NOT NULL GROUP BY outcome
     ORDER BY count(*) DESC, outcome COLLATE "C"`,
    values,
  );
  const total = rows.reduce((s, r) => s + Number(r.count), 0);
  return {
    outcomes: rows.map((r) => {
      const label = OUTCOME_LABELS[r.outcome];
      if (label === undefined) throw new Error(`reference: no label for ${r.outcome}`);
      return { outcome: r.outcome, label, count: Number(r.count), percentage: percent2(Number(r.count), total) };
    }),
    total,
  };
}

/** summary.change: per field the relative change in percent of the reported values, 2 decimals; null when the previous value is 0. */
export function referenceChange(current: SummaryData, previous: SummaryData): Record<keyof SummaryData, number | null> {
  const hundredths = (v: number) => Math.round(v * 100);
  return Object.fromEntries(
    SUMMARY_FIELDS.map((f) => {
      const c = hundredths(current[f]);
      const p = hundredths(previous[f]);
      return [f, p === 0 ? null : div2((c - p) * 100, p)];
    }),
  ) as Record<keyof SummaryData, number | null>;
}

// --- windows ------------------------------------------------------------------------------------

/** A bound as a request gives it: a local date, or an instant (given as some ISO text). */
export type Bound = { kind: 'date'; date: string } | { kind: 'instant'; t: number };

/** `date` (YYYY-MM-DD) plus `days` calendar days. */
export function addDays(date: string, days: number): string {
  const d = new Date(0);
  d.setUTCFullYear(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)) + days);
  return d.toISOString().slice(0, 10);
}

/** The same month and day a year earlier; 29 February becomes 28 February. */
export function yearEarlier(date: string): string {
  const y = String(Number(date.slice(0, 4)) - 1).padStart(4, '0');
  const md = date.slice(5, 10) === '02-29' ? '02-28' : date.slice(5, 10);
  return `${y}-${md}`;
}

/**
 * The first instant of each local date (its local midnight, or the first instant after it that
 * exists): the least t whose local date is that date or later. That instant is where the wall
 * clock passes midnight (the date's midnight read at an offset in force nearby) or where an offset
 * change jumps past it, so it is the least of those candidates at which PostgreSQL says the date
 * has come (a bisection could land on a later crossing where a fold takes the date back).
 */
export async function localDayStarts(q: Queryable, zone: string, dates: readonly string[]): Promise<number[]> {
  if (dates.length === 0) return [];
  const midnights = dates.map((d) => {
    const x = new Date(0);
    x.setUTCFullYear(Number(d.slice(0, 4)), Number(d.slice(5, 7)) - 1, Number(d.slice(8, 10)));
    return x.getTime();
  });
  const REACH = 31 * HOUR; // beyond any offset
  const transitions = await offsetTransitions(q, zone, Math.min(...midnights) - REACH - DAY, Math.max(...midnights) + REACH + DAY);
  const offsets = [...new Set((await localTimes(q, zone, 'hour', [Math.min(...midnights) - REACH, ...transitions])).map((l) => l.offset))];
  const candidates = midnights.map((m) => [...new Set([...offsets.map((o) => m - o * 1000), ...transitions.filter((t) => t >= m - REACH && t <= m + REACH)])]);
  const flat = candidates.flatMap((list, i) => list.map((t) => ({ i, t })));
  const { rows } = await q.query<{ ok: boolean }>(
    `SELECT (u.t AT TIME ZONE $2::text)::date >= u.d::date AS ok
     FROM unnest($1::timestamptz[], $3::text[]) WITH ORDINALITY AS u(t, d, i) ORDER BY u.i`,
    [flat.map((c) => iso(c.t)), zone, flat.map((c) => dates[c.i]!)],
  );
  const starts = dates.map(() => Number.POSITIVE_INFINITY);
  flat.forEach((c, k) => {
    if (rows[k]!.ok && c.t < starts[c.i]!) starts[c.i] = c.t;
  });
  starts.forEach((t, i) => {
    if (!Number.isFinite(t)) throw new Error(`reference: no start of ${dates[i]} in ${zone}`);
  });
  return starts;
}

/** The local date of each instant. */
export async function localDates(q: Queryable, zone: string, instants: readonly number[]): Promise<string[]> {
  return (await localTimes(q, zone, 'day', instants)).map((l) => l.wall.slice(0, 10));
}

/**
 * The inclusive window [from, to] of a request in `zone`: a date-only date_from is the first instant
 * of that local day, a date-only date_to the last millisecond before the next local day; instants
 * are themselves; absent bounds are local today minus 30 days and the end of local today.
 */
export interface ResolvedWindow {
  from: number;
  to: number;
  fromBound: Bound;
  toBound: Bound;
}

export async function resolveWindow(q: Queryable, zone: string, from: Bound | undefined, to: Bound | undefined, now?: number): Promise<ResolvedWindow> {
  let today: string | undefined;
  if (from === undefined || to === undefined) {
    if (now === undefined) throw new Error('resolveWindow: a default bound needs now');
    [today] = await localDates(q, zone, [now]);
  }
  const fromBound: Bound = from ?? { kind: 'date', date: addDays(today!, -30) };
  const toBound: Bound = to ?? { kind: 'date', date: today! };
  const dates = [fromBound.kind === 'date' ? fromBound.date : undefined, toBound.kind === 'date' ? addDays(toBound.date, 1) : undefined];
  const starts = await localDayStarts(
    q,
    zone,
    dates.filter((d): d is string => d !== undefined),
  );
  const fromT = fromBound.kind === 'date' ? starts.shift()! : fromBound.t;
  const toT = toBound.kind === 'date' ? starts.shift()! - 1 : toBound.t;
  return { from: fromT, to: toT, fromBound, toBound };
}

/**
 * The instant at which the zone's clocks show `wall` (YYYY-MM-DDTHH:MM:SS.mmm), or undefined when
 * they never do (a gap) or do twice (a fold): which instant is meant is then not for a test to say.
 */
export async function instantOfWall(q: Queryable, zone: string, wall: string): Promise<number | undefined> {
  const asUtc = Date.parse(`${wall}Z`);
  const { rows } = await q.query<{ t: string }>(`SELECT (extract(epoch FROM ($1::timestamp AT TIME ZONE $2::text)) * 1000)::bigint::text AS t`, [wall, zone]);
  const guess = Number(rows[0]!.t);
  const offsets = (await localTimes(q, zone, 'hour', [guess - 26 * HOUR, guess - 6 * HOUR, guess, guess + 6 * HOUR, guess + 26 * HOUR])).map((l) => l.offset);
  const candidates = [...new Set(offsets.map((o) => asUtc - o * 1000))];
  const locals = await localTimes(q, zone, 'hour', candidates);
  const matching = candidates.filter((_, i) => locals[i]!.wall === wall);
  return matching.length === 1 ? matching[0] : undefined;
}

export type Compare = 'previous_period' | 'previous_year';

/**
 * The comparison window of a resolved window, or undefined when it is not for a test to say (a
 * date-time bound moved by a year to a wall time that a gap skips or a fold repeats, or to a window
 * that ends before it starts).
 */
export async function previousWindow(q: Queryable, zone: string, window: ResolvedWindow, compare: Compare): Promise<ResolvedWindow | undefined> {
  const { fromBound, toBound } = window;
  if (compare === 'previous_period') {
    if (fromBound.kind === 'date' && toBound.kind === 'date') {
      const days = Math.round((Date.parse(toBound.date) - Date.parse(fromBound.date)) / DAY) + 1;
      return resolveWindow(q, zone, { kind: 'date', date: addDays(fromBound.date, -days) }, { kind: 'date', date: addDays(fromBound.date, -1) });
    }
    const length = window.to - window.from + 1;
    const [from, to] = [window.from - length, window.to - length];
    return { from, to, fromBound: { kind: 'instant', t: from }, toBound: { kind: 'instant', t: to } };
  }
  const moved = async (bound: Bound): Promise<Bound | undefined> => {
    if (bound.kind === 'date') return { kind: 'date', date: yearEarlier(bound.date) };
    const [local] = await localTimes(q, zone, 'hour', [bound.t]);
    const wall = `${yearEarlier(local!.wall.slice(0, 10))}${local!.wall.slice(10)}`;
    const t = await instantOfWall(q, zone, wall);
    return t === undefined ? undefined : { kind: 'instant', t };
  };
  const [from, to] = [await moved(fromBound), await moved(toBound)];
  if (!from || !to) return undefined;
  const w = await resolveWindow(q, zone, from, to);
  // Two date-times an hour apart across a fold can move to an inverted window: not for a test to say.
  return w.from <= w.to ? w : undefined;
}

/**
 * Instants (epoch ms) in (from, to] where the zone's UTC offset changes, ascending: samples every 24
 * hours (and at `to`), then bisection to the millisecond. Two changes within one sampled day that
 * cancel out would be missed; the tz database has none.
 */
export async function offsetTransitions(q: Queryable, zone: string, from: number, to: number): Promise<number[]> {
  const { rows } = await q.query<{ t: string }>(
    `SELECT (extract(epoch FROM t) * 1000)::bigint::text AS t FROM (
       SELECT t, off, lag(off) OVER (ORDER BY t) AS previous
       FROM (SELECT t, (t AT TIME ZONE $3::text) - (t AT TIME ZONE 'UTC') AS off
             FROM (SELECT generate_series($1::timestamptz, $2::timestamptz, interval '24 hours') UNION SELECT $2::timestamptz) AS g(t)) AS s
     ) AS x WHERE off <> previous`,
    [iso(from), iso(to), zone],
  );
  const his = rows.map((r) => Number(r.t)).sort((a, b) => a - b);
  const los = his.map((t) => t - DAY);
  const offsetAt = async (instants: number[]) => (await localTimes(q, zone, 'hour', instants)).map((l) => l.offset);
  const loOffsets = await offsetAt(los);
  while (los.some((lo, i) => his[i]! - lo > 1)) {
    const mids = los.map((lo, i) => Math.floor((lo + his[i]!) / 2));
    const offsets = await offsetAt(mids);
    mids.forEach((m, i) => {
      if (his[i]! - los[i]! <= 1) return;
      if (offsets[i] === loOffsets[i]) los[i] = m;
      else his[i] = m;
    });
  }
  return his;
}
