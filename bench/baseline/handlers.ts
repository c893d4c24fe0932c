// The baseline's endpoints: the bench scenarios' REST routes (and the GraphQL documents the bench
// sends) answered with hand-written SQL over a pg Pool, in the same representations, ordering and
// metric rules as the service (docs/rest-api.md "How the service implements these rules", decisions sections 3-4). Independent of
// src/ on purpose: the bench checks that both answer identically, so a rule drifting on either side
// shows up as a loud mismatch rather than as a silent change in the figures.
import type pg from 'pg';

export type Query = Record<string, string>;
export type Problems = Record<string, string>;

export class BadRequest extends Error {
  constructor(readonly problems: Problems) {
    super('Invalid query parameters');
  }
}

export interface Principal {
  id: string;
  scopes: string[];
  /** null = every clinic */
  clinicIds: string[] | null;
}

export interface Result {
  data: unknown;
  meta?: { page: number; limit: number; total: number; total_pages: number; has_more: boolean };
}

const CHANNELS = ['voice', 'whatsapp'];
const TYPES_BY_CHANNEL: Record<string, string[]> = {
  voice: ['INBOUND', 'FORM_OUTBOUND', 'CAMPAIGN_OUTBOUND', 'CAMPAIGN_CALLBACK'],
  whatsapp: ['INBOUND', 'CAMPAIGN_OUTBOUND', 'APPOINTMENT_REMINDER'],
};
const ALL_TYPES = ['INBOUND', 'FORM_OUTBOUND', 'CAMPAIGN_OUTBOUND', 'CAMPAIGN_CALLBACK', 'APPOINTMENT_REMINDER'];
const LABELS: Record<string, string> = {
  APPOINTMENT_BOOKED: 'Appointment Booked',
  APPOINTMENT_MODIFIED: 'Appointment Modified',
  APPOINTMENT_CANCELLED: 'Appointment Cancelled',
  NO_ANSWER: 'No Answer',
  VOICEMAIL_REACHED: 'Voicemail Reached',
  CALLBACK_REQUESTED: 'Callback Requested',
  DECISION_PENDING: 'Decision Pending',
  OPT_OUT: 'Opt Out',
  UNREACHABLE: 'Unreachable',
};
const OUTCOMES = Object.keys(LABELS);
const SUCCESSFUL = ['APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;
const DAY = 86_400_000;

const label = (outcome: string) =>
  LABELS[outcome] ??
  outcome
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');

// --- Parameters --------------------------------------------------------------------------------

function integer(query: Query, name: string, fallback: number, max: number, problems: Problems): number {
  const raw = query[name];
  if (raw === undefined) return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max) problems[name] = `must be an integer from 1 to ${max}`;
  return n;
}

function dateBound(raw: string, bound: 'from' | 'to'): Date | undefined {
  const m = DATE_ONLY.exec(raw);
  if (m) {
    const d = new Date(0);
    d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    if (Number(m[1]) < 1 || d.getUTCMonth() !== Number(m[2]) - 1 || d.getUTCDate() !== Number(m[3])) return undefined;
    return new Date(bound === 'from' ? d.getTime() : d.getTime() + DAY - 1);
  }
  if (!DATE_TIME.test(raw)) return undefined;
  const t = new Date(raw);
  return Number.isNaN(t.getTime()) ? undefined : t;
}

interface Filters {
  from?: Date;
  to?: Date;
  channel?: string;
  type?: string;
  outcomes?: string[];
  clinicId?: string;
  campaignId?: string;
  search?: string;
}

function filters(query: Query, problems: Problems): Filters {
  const f: Filters = {};
  if (query.date_from !== undefined) {
    f.from = dateBound(query.date_from, 'from');
    if (!f.from) problems.date_from = 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time with Z or an offset';
  }
  if (query.date_to !== undefined) {
    f.to = dateBound(query.date_to, 'to');
    if (!f.to) problems.date_to = 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time with Z or an offset';
  }
  if (f.from && f.to && f.from > f.to) problems.date_from = 'must not be later than date_to';
  if (query.channel !== undefined) {
    if (CHANNELS.includes(query.channel)) f.channel = query.channel;
    else problems.channel = `must be one of: ${CHANNELS.join(', ')}`;
  }
  if (query.type !== undefined) {
    const allowed = f.channel ? TYPES_BY_CHANNEL[f.channel]! : ALL_TYPES;
    if (allowed.includes(query.type)) f.type = query.type;
    else problems.type = `must be one of: ${allowed.join(', ')}`;
  }
  if (query.outcome !== undefined) {
    const list = query.outcome.split(',');
    if (list.some((o) => !OUTCOMES.includes(o))) problems.outcome = `must be a comma-separated list of: ${OUTCOMES.join(', ')} (UPPERCASE)`;
    else f.outcomes = [...new Set(list)];
  }
  if (query.clinic_id !== undefined) {
    if (UUID.test(query.clinic_id)) f.clinicId = query.clinic_id.toLowerCase();
    else problems.clinic_id = 'must be a UUID';
  }
  if (query.campaign_id !== undefined) {
    // Any text of 1 to 255 characters without control characters (campaign ids are not UUIDs).
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    if (query.campaign_id.length === 0 || [...query.campaign_id].length > 255 || /[\u0000-\u001f\u007f]/.test(query.campaign_id))
      problems.campaign_id = 'must be 1 to 255 characters without control characters';
    else f.campaignId = query.campaign_id;
  }
  if (query.search !== undefined) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    if (query.search.length === 0 || query.search.length > 64 || /[\u0000-\u001f\u007f]/.test(query.search))
      problems.search = 'must be 1 to 64 characters without control characters';
    else f.search = query.search;
  }
  return f;
}

/** WHERE conditions (numbered $1...) and their parameters. */
function where(f: Filters, visible: string[] | null): { sql: string; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(sql(`$${params.length}`));
  };
  if (visible) add((n) => `clinic_id = ANY(${n}::uuid[])`, visible);
  if (f.clinicId) add((n) => `clinic_id = ${n}::uuid`, f.clinicId);
  if (f.campaignId) add((n) => `campaign_id = ${n}`, f.campaignId);
  if (f.from) add((n) => `started_at >= ${n}::timestamptz`, f.from.toISOString());
  if (f.to) add((n) => `started_at <= ${n}::timestamptz`, f.to.toISOString());
  if (f.channel) add((n) => `channel = ${n}::"Channel"`, f.channel);
  if (f.type) add((n) => `type = ${n}::"InteractionType"`, f.type);
  if (f.outcomes) add((n) => `outcome = ANY(${n}::text[])`, f.outcomes);
  if (f.search) add((n) => `phone_number ILIKE ${n}`, `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  return { sql: conditions.length ? conditions.join(' AND ') : 'TRUE', params };
}

// --- Interactions ------------------------------------------------------------------------------

interface InteractionRow {
  id: string;
  channel: string;
  type: string;
  direction: string;
  phone_number: string;
  clinic_id: string;
  started_at: Date;
  ended_at: Date | null;
  duration_seconds: number | null;
  outcome: string | null;
  summary: string | null;
  recording_url: string | null;
  entries: Array<{ role: string; content: string }> | null;
}

function interaction(row: InteractionRow): Record<string, unknown> {
  const voice = row.channel === 'voice';
  const body: Record<string, unknown> = {
    id: row.id,
    channel: row.channel,
    type: row.type,
    direction: row.direction,
    phone_number: row.phone_number,
    clinic_id: row.clinic_id,
    started_at: row.started_at.toISOString(),
    ended_at: row.ended_at ? row.ended_at.toISOString() : null,
  };
  if (voice) body.duration_seconds = row.duration_seconds;
  body.outcome = row.outcome;
  if (!voice) body.transcript = (row.entries ?? []).map(({ role, content }) => ({ role, content }));
  body.summary = row.summary;
  if (voice) body.recording_url = row.recording_url;
  return body;
}

export async function listInteractions(pool: pg.Pool, query: Query, key: Principal): Promise<Result> {
  const problems: Problems = {};
  const page = integer(query, 'page', 1, 2_147_483_647, problems);
  const limit = integer(query, 'limit', 25, 500, problems);
  const f = filters(query, problems);
  if (Object.keys(problems).length) throw new BadRequest(problems);
  const w = where(f, key.clinicIds);
  const n = w.params.length;
  // The page first, then the transcripts of its WhatsApp conversations (calls show none in lists).
  const pageSql = `
    SELECT p.id, p.channel, p.type, p.direction, p.phone_number, p.clinic_id, p.started_at, p.ended_at,
           p.duration_seconds, p.outcome, p.summary, p.recording_url, t.entries
    FROM (
      SELECT id, channel::text, type::text, direction::text, phone_number, clinic_id::text, started_at, ended_at,
             duration_seconds, outcome, summary, recording_url
      FROM interactions WHERE ${w.sql}
      ORDER BY started_at DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}
    ) AS p
    LEFT JOIN interaction_transcripts t ON p.channel = 'whatsapp' AND t.interaction_id = p.id
    ORDER BY p.started_at DESC, p.id DESC`;
  const [rows, count] = await Promise.all([
    pool.query<InteractionRow>(pageSql, [...w.params, limit, (page - 1) * limit]),
    pool.query<{ total: string }>(`SELECT count(*) AS total FROM interactions WHERE ${w.sql}`, w.params),
  ]);
  const total = Number(count.rows[0]!.total);
  const totalPages = Math.ceil(total / limit);
  return {
    data: { interactions: rows.rows.map(interaction) },
    meta: { page, limit, total, total_pages: totalPages, has_more: page < totalPages },
  };
}

// --- Metrics -----------------------------------------------------------------------------------

const COMPARES = ['previous_period', 'previous_year'];
/** Series granularities and the step between the local starts of their buckets. */
const STEPS: Record<string, string> = { hour: '1 hour', day: '1 day', week: '1 week', month: '1 month', quarter: '3 months', year: '1 year' };

/** Appends a parameter and returns its placeholder ($n). */
const bind = (params: unknown[], value: unknown) => `$${params.push(value)}`;

/** One window of a metrics answer: its instants (both inclusive), their local dates and the WHERE of its rows. */
interface Window {
  from: Date;
  to: Date;
  /** Local dates (YYYY-MM-DD) of `from` and `to` in the zone. */
  fromDay: string;
  toDay: string;
  sql: string;
  params: unknown[];
}

interface Windows {
  /** A zone name for `AT TIME ZONE` ('UTC' by default and for a clinic the key does not see). */
  zone: string;
  current: Window;
  /** The comparison window, when `compare` was given. */
  previous?: Window;
}

interface WindowRow {
  from_at: Date;
  to_at: Date;
  from_day: string;
  to_day: string;
  previous_from: Date;
  previous_to: Date;
  previous_from_day: string;
  previous_to_day: string;
}

// The windows in a zone and the comparison windows, in PostgreSQL's calendar (`AT TIME ZONE`, date
// and interval arithmetic), as the contract states them. $1 zone, $2/$3 date_from as a local date or
// an instant (the other null), $4/$5 the same for date_to, $6 compare. `fd`/`td` are the local dates
// of date-only or defaulted bounds. The session time zone is UTC (see server.ts), so interval days
// added to instants are 24 hours.
const WINDOWS_SQL = `
  SELECT b.from_at, b.to_at, p.previous_from, p.previous_to,
         to_char(b.from_at AT TIME ZONE $1::text, 'YYYY-MM-DD') AS from_day,
         to_char(b.to_at AT TIME ZONE $1::text, 'YYYY-MM-DD') AS to_day,
         to_char(p.previous_from AT TIME ZONE $1::text, 'YYYY-MM-DD') AS previous_from_day,
         to_char(p.previous_to AT TIME ZONE $1::text, 'YYYY-MM-DD') AS previous_to_day
  FROM (SELECT coalesce($2::date, (now() AT TIME ZONE $1::text)::date - 30) AS fd,
               coalesce($4::date, (now() AT TIME ZONE $1::text)::date) AS td) AS d
  CROSS JOIN LATERAL (
    SELECT coalesce($3::timestamptz, d.fd::timestamp AT TIME ZONE $1::text) AS from_at,
           coalesce($5::timestamptz, ((d.td + 1)::timestamp AT TIME ZONE $1::text) - interval '1 millisecond') AS to_at
  ) AS b
  CROSS JOIN LATERAL (
    SELECT CASE
             -- the N local days before
             WHEN $6::text = 'previous_period' AND $3::timestamptz IS NULL AND $5::timestamptz IS NULL
               THEN (d.fd - (d.td - d.fd + 1))::timestamp AT TIME ZONE $1::text
             -- the window shifted back by its length
             WHEN $6::text = 'previous_period' THEN b.from_at - (b.to_at - b.from_at + interval '1 millisecond')
             -- previous_year: the local date a year earlier (date - interval clamps 29 February to the 28th)
             WHEN $3::timestamptz IS NULL THEN (d.fd - interval '1 year')::date::timestamp AT TIME ZONE $1::text
             -- or the local wall-clock time a year earlier
             ELSE ((b.from_at AT TIME ZONE $1::text) - interval '1 year') AT TIME ZONE $1::text
           END AS previous_from,
           CASE
             WHEN $6::text = 'previous_period' THEN b.from_at - interval '1 millisecond'
             WHEN $5::timestamptz IS NULL
               THEN (((d.td - interval '1 year')::date + 1)::timestamp AT TIME ZONE $1::text) - interval '1 millisecond'
             ELSE ((b.to_at AT TIME ZONE $1::text) - interval '1 year') AT TIME ZONE $1::text
           END AS previous_to
  ) AS p`;

const localDays = (w: { fromDay: string; toDay: string }) => (Date.parse(w.toDay) - Date.parse(w.fromDay)) / DAY + 1;

async function metricsWindows(pool: pg.Pool, query: Query, allowed: string[], key: Principal, maxDays?: number): Promise<Windows> {
  const problems: Problems = {};
  const f = filters(query, problems);
  if (f.type && !allowed.includes('type')) problems.type = 'unknown parameter';
  const compare = query.compare;
  if (compare !== undefined && !COMPARES.includes(compare)) problems.compare = `must be one of: ${COMPARES.join(', ')}`;
  if (query.timezone === 'clinic' && !f.clinicId) problems.timezone = 'clinic needs clinic_id';
  let visible = key.clinicIds;
  if (f.clinicId) visible = visible === null || visible.includes(f.clinicId) ? [f.clinicId] : [];
  const window = (from: Date, to: Date, fromDay: string, toDay: string): Window => ({
    from,
    to,
    fromDay,
    toDay,
    ...where({ from, to, channel: f.channel, type: f.type, campaignId: f.campaignId }, visible),
  });
  const check = (w: Window) => {
    if (!problems.date_from && !problems.date_to && w.from > w.to) problems.date_from = 'is later than date_to';
    if (maxDays && localDays(w) > maxDays) problems.date_to = `the daily series covers at most ${maxDays} days`;
    if (Object.keys(problems).length) throw new BadRequest(problems);
  };

  if ((query.timezone ?? 'UTC') === 'UTC' && compare === undefined) {
    // Today's answers, unchanged: UTC days computed here, no query for the window.
    const now = new Date();
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const from = f.from ?? new Date(today - 30 * DAY);
    const to = f.to ?? new Date(today + DAY - 1);
    const current = window(from, to, from.toISOString().slice(0, 10), to.toISOString().slice(0, 10));
    check(current);
    return { zone: 'UTC', current };
  }
  if (Object.keys(problems).length) throw new BadRequest(problems);

  let zone = query.timezone ?? 'UTC';
  if (zone === 'clinic') {
    // The clinic's own zone; one the key does not see (or that does not exist) counts as UTC, and
    // none of its rows is read anyway (`visible` is empty or matches nothing).
    const { rows } = visible?.length ? await pool.query<{ timezone: string }>('SELECT timezone FROM clinics WHERE id = $1::uuid', [f.clinicId]) : { rows: [] };
    zone = rows[0]?.timezone ?? 'UTC';
  }
  const localDate = (raw: string | undefined) => (raw !== undefined && DATE_ONLY.test(raw) ? raw : null);
  const instant = (raw: string | undefined, parsed: Date | undefined) => (raw !== undefined && !DATE_ONLY.test(raw) ? parsed!.toISOString() : null);
  let row: WindowRow;
  try {
    const { rows } = await pool.query<WindowRow>(WINDOWS_SQL, [
      zone,
      localDate(query.date_from),
      instant(query.date_from, f.from),
      localDate(query.date_to),
      instant(query.date_to, f.to),
      compare ?? null,
    ]);
    row = rows[0]!;
  } catch (error) {
    // 22023: time zone "..." not recognized
    if ((error as { code?: string }).code === '22023') throw new BadRequest({ timezone: 'must be a time zone name (IANA) or clinic' });
    throw error;
  }
  const current = window(row.from_at, row.to_at, row.from_day, row.to_day);
  check(current);
  const previous = compare ? window(row.previous_from, row.previous_to, row.previous_from_day, row.previous_to_day) : undefined;
  return { zone, current, previous };
}

/** The current window's answer and, with `compare`, the previous one's, in parallel. */
const both = <T>(m: Windows, answer: (w: Window) => Promise<T>) => Promise.all([answer(m.current), m.previous ? answer(m.previous) : undefined]);

/** Per-set aggregates; $a..$b are the successful outcomes and the scheduled one. */
const aggregates = (succ: string, booked: string) => `
  count(*) AS total,
  count(*) FILTER (WHERE channel = 'voice') AS calls,
  count(*) FILTER (WHERE channel = 'whatsapp') AS conversations,
  count(*) FILTER (WHERE direction = 'inbound') AS inbound,
  count(*) FILTER (WHERE direction = 'outbound') AS outbound,
  count(*) FILTER (WHERE outcome = ${booked}) AS appointments_scheduled,
  count(outcome) AS with_outcome,
  count(*) FILTER (WHERE outcome = ANY(${succ}::text[])) AS successful,
  count(duration_seconds) FILTER (WHERE channel = 'voice') AS timed_calls,
  sum(duration_seconds) FILTER (WHERE channel = 'voice') AS duration_sum`;

/** The aggregates of a window's rows, with its parameters. */
function aggregatesOf(w: Window): { select: string; params: unknown[] } {
  const params = [...w.params];
  return { select: aggregates(bind(params, SUCCESSFUL), bind(params, 'APPOINTMENT_BOOKED')), params };
}

const derived = `
  coalesce(a.total, 0)::int8 AS total,
  coalesce(a.calls, 0)::int8 AS calls,
  coalesce(a.conversations, 0)::int8 AS conversations,
  coalesce(a.inbound, 0)::int8 AS inbound,
  coalesce(a.outbound, 0)::int8 AS outbound,
  coalesce(a.appointments_scheduled, 0)::int8 AS appointments_scheduled,
  coalesce(a.duration_sum, 0)::int8 AS total_duration_seconds,
  (CASE WHEN coalesce(a.with_outcome, 0) = 0 THEN 0 ELSE round(a.successful * 100::numeric / a.with_outcome, 2) END)::float8 AS success_rate,
  (CASE WHEN coalesce(a.timed_calls, 0) = 0 THEN 0 ELSE round(a.duration_sum::numeric / a.timed_calls, 2) END)::float8 AS avg_duration_seconds`;

type Derived = Record<'total' | 'calls' | 'conversations' | 'inbound' | 'outbound' | 'appointments_scheduled' | 'total_duration_seconds', string> & {
  success_rate: number;
  avg_duration_seconds: number;
};

/** The figures of one day or series bucket. */
const bucketFigures = (r: Derived) => ({
  total: Number(r.total),
  calls: Number(r.calls),
  conversations: Number(r.conversations),
  inbound: Number(r.inbound),
  outbound: Number(r.outbound),
  appointments_scheduled: Number(r.appointments_scheduled),
  success_rate: r.success_rate,
  avg_duration_seconds: r.avg_duration_seconds,
});

async function summaryOf(pool: pg.Pool, w: Window): Promise<Record<string, number>> {
  const a = aggregatesOf(w);
  const { rows } = await pool.query<Derived>(`SELECT ${derived} FROM (SELECT ${a.select} FROM interactions WHERE ${w.sql}) AS a`, a.params);
  return summaryFigures(rows[0]!);
}

/** The figures of a summary (and of a breakdown's group). */
function summaryFigures(r: Derived): Record<string, number> {
  return {
    total_interactions: Number(r.total),
    total_calls: Number(r.calls),
    total_conversations: Number(r.conversations),
    inbound_count: Number(r.inbound),
    outbound_count: Number(r.outbound),
    avg_duration_seconds: r.avg_duration_seconds,
    total_duration_seconds: Number(r.total_duration_seconds),
    success_rate: r.success_rate,
    appointments_scheduled: Number(r.appointments_scheduled),
  };
}

/**
 * The relative change in percent from `previous` to `current` (reported values, 2 decimals at
 * most), rounded to 2 decimals half away from zero; null when `previous` is 0. Computed exactly in
 * hundredths with BigInt: in floating point a true x.xx5 can come out as x.xx4999... and round down.
 */
function relativeChange(current: number, previous: number): number | null {
  const c = BigInt(Math.round(current * 100));
  const p = BigInt(Math.round(previous * 100));
  if (p === 0n) return null;
  // (c - p) / p in hundredths of a percent is n / p; p > 0 (counts, rates and means are never negative).
  const n = (c - p) * 10_000n;
  const magnitude = (2n * (n < 0n ? -n : n) + p) / (2n * p);
  return Number(n < 0n ? -magnitude : magnitude) / 100;
}

export async function metricsSummary(pool: pg.Pool, query: Query, key: Principal): Promise<Result> {
  const m = await metricsWindows(pool, query, ['date_from', 'date_to', 'clinic_id', 'channel'], key);
  const [current, previous] = await both(m, (w) => summaryOf(pool, w));
  if (!previous) return { data: current };
  const change = Object.fromEntries(Object.entries(current).map(([k, v]) => [k, relativeChange(v, previous[k]!)]));
  return { data: { ...current, previous, change } };
}

async function dailyOf(pool: pg.Pool, zone: string, w: Window) {
  const a = aggregatesOf(w);
  const z = bind(a.params, zone);
  const fromDay = bind(a.params, w.fromDay);
  const toDay = bind(a.params, w.toDay);
  const { rows } = await pool.query<Derived & { date: string }>(
    `WITH per_day AS (
       SELECT (started_at AT TIME ZONE ${z}::text)::date AS day, ${a.select}
       FROM interactions WHERE ${w.sql} GROUP BY 1
     )
     SELECT to_char(d.day, 'YYYY-MM-DD') AS date, ${derived}
     FROM generate_series(0, ${toDay}::date - ${fromDay}::date) AS i
     CROSS JOIN LATERAL (SELECT ${fromDay}::date + i AS day) AS d
     LEFT JOIN per_day AS a ON a.day = d.day
     ORDER BY d.day`,
    a.params,
  );
  return rows.map((r) => ({ date: r.date, ...bucketFigures(r) }));
}

export async function metricsDaily(pool: pg.Pool, query: Query, key: Principal): Promise<Result> {
  const m = await metricsWindows(pool, query, ['date_from', 'date_to', 'clinic_id', 'channel', 'type'], key, 3_700);
  const [daily, previous] = await both(m, (w) => dailyOf(pool, m.zone, w));
  return { data: previous ? { daily, previous: { daily: previous } } : { daily } };
}

async function outcomesOf(pool: pg.Pool, w: Window) {
  const { rows } = await pool.query<{ outcome: string; count: string; total: string; percentage: number }>(
    `SELECT outcome, count, total, round(count * 100::numeric / total, 2)::float8 AS percentage
     FROM (SELECT outcome, count(*) AS count, sum(count(*)) OVER ()::int8 AS total
           FROM interactions WHERE ${w.sql} AND outcome IS NOT NULL GROUP BY outcome) AS o
     ORDER BY count DESC, outcome COLLATE "C"`,
    w.params,
  );
  return {
    outcomes: rows.map((r) => ({ outcome: r.outcome, label: label(r.outcome), count: Number(r.count), percentage: r.percentage })),
    total: rows.length ? Number(rows[0]!.total) : 0,
  };
}

export async function metricsOutcomes(pool: pg.Pool, query: Query, key: Principal): Promise<Result> {
  const m = await metricsWindows(pool, query, ['date_from', 'date_to', 'clinic_id', 'channel', 'type'], key);
  const [current, previous] = await both(m, (w) => outcomesOf(pool, w));
  return { data: previous ? { ...current, previous } : current };
}

/** An instant in ISO 8601 with the zone's offset at it: 2026-10-25T02:00:00.000+01:00. */
function localIso(at: Date, offsetSeconds: number): string {
  const wall = new Date(at.getTime() + offsetSeconds * 1000).toISOString().slice(0, 23);
  const abs = Math.abs(offsetSeconds);
  const hh = String(Math.floor(abs / 3600)).padStart(2, '0');
  const mm = String(Math.floor((abs % 3600) / 60)).padStart(2, '0');
  return `${wall}${offsetSeconds < 0 ? '-' : '+'}${hh}:${mm}`;
}

async function seriesOf(pool: pg.Pool, zone: string, granularity: string, w: Window) {
  const a = aggregatesOf(w);
  const z = bind(a.params, zone);
  const from = bind(a.params, w.from.toISOString());
  const to = bind(a.params, w.to.toISOString());
  // Each row's bucket is keyed by `edge`, an instant or a local time the bucket list has too;
  // buckets are cut to [from, to + 1 ms).
  let perBucket: string;
  let buckets: string;
  if (granularity === 'hour') {
    // Hours as instants: a row's hour starts at its instant minus its minutes and seconds on the
    // local clock, and the hours of the window follow each other every 60 minutes of UTC. So a
    // repeated local hour (DST fold) is two buckets and a skipped one (gap) none. Exact for zones
    // whose offsets differ by whole hours and change on a local hour, as the bench's zones do
    // (Asia/Kathmandu is always +05:45, and its hours start at :15 UTC).
    perBucket = `
      SELECT started_at - (l.local_at - date_trunc('hour', l.local_at)) AS edge, ${a.select}
      FROM interactions CROSS JOIN LATERAL (SELECT started_at AT TIME ZONE ${z}::text AS local_at) AS l
      WHERE ${w.sql} GROUP BY 1`;
    buckets = `
      SELECT e AS edge, greatest(${from}::timestamptz, e) AS start_at, least(${to}::timestamptz + interval '1 millisecond', e + interval '1 hour') AS end_at
      FROM generate_series(
        ${from}::timestamptz - ((${from}::timestamptz AT TIME ZONE ${z}::text) - date_trunc('hour', ${from}::timestamptz AT TIME ZONE ${z}::text)),
        ${to}::timestamptz, interval '1 hour') AS e`;
  } else {
    // Calendar units as local times: every local midnight of the bench's zones exists, so a unit's
    // local start `AT TIME ZONE` is its first instant. date_trunc('week') starts on Monday (ISO).
    const unit = bind(a.params, granularity);
    const step = bind(a.params, STEPS[granularity]);
    perBucket = `
      SELECT date_trunc(${unit}::text, started_at AT TIME ZONE ${z}::text) AS edge, ${a.select}
      FROM interactions WHERE ${w.sql} GROUP BY 1`;
    buckets = `
      SELECT s AS edge, greatest(${from}::timestamptz, s AT TIME ZONE ${z}::text) AS start_at,
             least(${to}::timestamptz + interval '1 millisecond', (s + ${step}::interval) AT TIME ZONE ${z}::text) AS end_at
      FROM generate_series(
        date_trunc(${unit}::text, ${from}::timestamptz AT TIME ZONE ${z}::text), ${to}::timestamptz AT TIME ZONE ${z}::text, ${step}::interval) AS s`;
  }
  const offset = (instant: string) => `extract(epoch FROM (${instant} AT TIME ZONE ${z}::text) - (${instant} AT TIME ZONE 'UTC'))::int4`;
  const { rows } = await pool.query<Derived & { start_at: Date; end_at: Date; start_offset: number; end_offset: number }>(
    `WITH per_bucket AS (${perBucket}), buckets AS (${buckets})
     SELECT b.start_at, b.end_at, ${offset('b.start_at')} AS start_offset, ${offset('b.end_at')} AS end_offset, ${derived}
     FROM buckets AS b LEFT JOIN per_bucket AS a ON a.edge = b.edge
     WHERE b.start_at < b.end_at
     ORDER BY b.start_at`,
    a.params,
  );
  return rows.map((r) => ({ start: localIso(r.start_at, r.start_offset), end: localIso(r.end_at, r.end_offset), ...bucketFigures(r) }));
}

export async function metricsSeries(pool: pg.Pool, query: Query, key: Principal): Promise<Result> {
  const granularity = query.granularity;
  if (granularity === undefined || !Object.hasOwn(STEPS, granularity)) {
    throw new BadRequest({ granularity: `${granularity === undefined ? 'is required: ' : 'must be '}one of: ${Object.keys(STEPS).join(', ')}` });
  }
  const m = await metricsWindows(pool, query, ['date_from', 'date_to', 'clinic_id', 'channel', 'type'], key);
  const [series, previous] = await both(m, (w) => seriesOf(pool, m.zone, granularity, w));
  return { data: previous ? { series, previous: { series: previous } } : { series } };
}

// --- Breakdowns --------------------------------------------------------------------------------

/** The dimensions of a breakdown: the column of each one's key, and how its keys are ordered. */
const DIMENSIONS: Record<string, { column: string; order: (k: string) => string }> = {
  clinic: { column: 'clinic_id', order: (k) => `${k} ASC` },
  campaign: { column: 'campaign_id', order: (k) => `${k} COLLATE "C" ASC NULLS LAST` },
  channel: { column: 'channel::text', order: (k) => `${k} COLLATE "C" ASC NULLS LAST` },
  type: { column: 'type::text', order: (k) => `${k} COLLATE "C" ASC NULLS LAST` },
  direction: { column: 'direction::text', order: (k) => `${k} COLLATE "C" ASC NULLS LAST` },
  outcome: { column: 'outcome', order: (k) => `${k} COLLATE "C" ASC NULLS LAST` },
};
/** The order of a group's keys in the answer, whatever the order of group_by. */
const KEY_ORDER = ['clinic', 'campaign', 'channel', 'type', 'direction', 'outcome'];

function groupByOf(query: Query, problems: Problems): string[] {
  const allowed = `one or two distinct of: ${KEY_ORDER.join(', ')} (comma-separated)`;
  if (query.group_by === undefined || query.group_by === '') {
    problems.group_by = `is required: ${allowed}`;
    return [];
  }
  const list = query.group_by.split(',');
  if (list.some((d) => !Object.hasOwn(DIMENSIONS, d)) || new Set(list).size !== list.length || list.length > 2) problems.group_by = `must be ${allowed}`;
  return list;
}

export async function metricsBreakdown(pool: pg.Pool, query: Query, key: Principal): Promise<Result> {
  const problems: Problems = {};
  const groupBy = groupByOf(query, problems);
  const page = integer(query, 'page', 1, 2_147_483_647, problems);
  const limit = integer(query, 'limit', 25, 500, problems);
  if (Object.keys(problems).length) throw new BadRequest(problems);
  const m = await metricsWindows(pool, query, ['date_from', 'date_to', 'clinic_id', 'channel', 'type'], key);
  const a = aggregatesOf(m.current);
  const keys = groupBy.map((d, i) => `${DIMENSIONS[d]!.column} AS k${i}`).join(', ');
  const grouped = groupBy.map((_, i) => String(i + 1)).join(', ');
  const order = ['a.total DESC', ...groupBy.map((d, i) => DIMENSIONS[d]!.order(`a.k${i}`))].join(', ');
  const clinicKey = groupBy.indexOf('clinic');
  const campaignKey = groupBy.indexOf('campaign');
  const take = bind(a.params, limit);
  const skip = bind(a.params, (page - 1) * limit);
  // Every group of the window (the GROUP BY lists only those with rows), largest first, its names
  // joined once the page is cut.
  const { rows } = await pool.query<
    Derived & { k0: string | null; k1: string | null; clinic_name: string | null; campaign_name: string | null; groups: string }
  >(
    `SELECT p.*, ${clinicKey < 0 ? 'NULL' : 'c.name'} AS clinic_name, ${campaignKey < 0 ? 'NULL' : 'k.name'} AS campaign_name
     FROM (
       SELECT a.k0${groupBy.length > 1 ? ', a.k1' : ', NULL AS k1'}, ${derived}, count(*) OVER () AS groups
       FROM (SELECT ${keys}, ${a.select} FROM interactions WHERE ${m.current.sql} GROUP BY ${grouped}) AS a
       ORDER BY ${order}
       LIMIT ${take} OFFSET ${skip}
     ) AS p
     ${clinicKey < 0 ? '' : `LEFT JOIN clinics c ON c.id = p.k${clinicKey}::uuid`}
     ${campaignKey < 0 ? '' : `LEFT JOIN campaigns k ON k.id = p.k${campaignKey}`}
     ORDER BY ${order.replace(/\ba\./g, 'p.')}`,
    a.params,
  );
  let total = rows.length ? Number(rows[0]!.groups) : 0;
  if (!rows.length && page > 1) {
    // A page past the last: count the groups on their own.
    const { rows: counted } = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM interactions WHERE ${m.current.sql} GROUP BY ${groupBy.map((d) => DIMENSIONS[d]!.column).join(', ')}) AS g`,
      m.current.params,
    );
    total = Number(counted[0]!.n);
  }
  const groups = rows.map((r) => {
    const value = (d: string) => {
      const i = groupBy.indexOf(d);
      return i === 0 ? r.k0 : r.k1;
    };
    const group: Record<string, unknown> = {};
    for (const d of KEY_ORDER) {
      if (!groupBy.includes(d)) continue;
      if (d === 'clinic') Object.assign(group, { clinic_id: value(d), clinic_name: r.clinic_name });
      else if (d === 'campaign') Object.assign(group, { campaign_id: value(d), campaign_name: r.campaign_name });
      else group[d] = value(d);
    }
    return { ...group, ...summaryFigures(r) };
  });
  const totalPages = Math.ceil(total / limit);
  return { data: { groups }, meta: { page, limit, total, total_pages: totalPages, has_more: page < totalPages } };
}

// --- Call durations ----------------------------------------------------------------------------

/**
 * The histogram's lower bounds after the first bucket: every 10 s up to 600 s, every 60 s up to
 * 3,600 s. width_bucket(seconds, BOUNDS) is then the bucket's number: 0-59 the 10-second buckets,
 * 60-109 the minute buckets, 110 the open one from an hour.
 */
const BOUNDS = [...Array.from({ length: 60 }, (_, i) => 10 * (i + 1)), ...Array.from({ length: 50 }, (_, i) => 660 + 60 * i)];
const OPEN = BOUNDS.length;
const bucketStart = (b: number) => (b === 0 ? 0 : BOUNDS[b - 1]!);
const bucketEnd = (b: number) => (b < OPEN ? BOUNDS[b]! : null);
const FRACTIONS = [
  ['p50', 0.5],
  ['p75', 0.75],
  ['p90', 0.9],
  ['p95', 0.95],
  ['p99', 0.99],
] as const;

export async function metricsDurations(pool: pg.Pool, query: Query, key: Principal): Promise<Result> {
  const m = await metricsWindows(pool, query, ['date_from', 'date_to', 'clinic_id', 'channel', 'type'], key);
  const w = m.current;
  const calls = `${w.sql} AND channel = 'voice' AND duration_seconds IS NOT NULL`;
  const params = [...w.params];
  const bounds = bind(params, BOUNDS);
  const { rows } = await pool.query<{ bucket: number; calls: string }>(
    `SELECT width_bucket(duration_seconds, ${bounds}::int4[]) AS bucket, count(*) AS calls FROM interactions WHERE ${calls} GROUP BY 1 ORDER BY 1`,
    params,
  );
  const counts = rows.map((r) => ({ bucket: r.bucket, calls: Number(r.calls) }));
  const n = counts.reduce((sum, r) => sum + r.calls, 0);
  const below = counts.reduce((sum, r) => sum + (r.bucket < OPEN ? r.calls : 0), 0);
  // The ranks each percentile interpolates between; those among the calls of an hour or more are
  // read exactly (the k-th longest of them), in one statement.
  const ranks = n === 0 ? [] : FRACTIONS.flatMap(([, p]) => [Math.floor(p * (n - 1)), Math.floor(p * (n - 1)) + 1]).filter((k) => k < n);
  const long = [...new Set(ranks.filter((k) => k >= below))];
  const exact = new Map<number, number>();
  if (long.length) {
    const longParams = [...w.params];
    const offsets = bind(
      longParams,
      long.map((k) => k - below),
    );
    const { rows: found } = await pool.query<{ k: string; seconds: number }>(
      `SELECT o.k, (SELECT duration_seconds FROM interactions WHERE ${w.sql} AND channel = 'voice' AND duration_seconds >= 3600
                    ORDER BY duration_seconds OFFSET o.k LIMIT 1) AS seconds
       FROM unnest(${offsets}::int8[]) AS o(k)`,
      longParams,
    );
    for (const r of found) exact.set(Number(r.k) + below, r.seconds);
  }
  let precision = 0;
  const orderStatistic = (k: number): { value: number; exact: boolean } => {
    if (k >= below) return { value: exact.get(k)!, exact: true };
    let before = 0;
    for (const { bucket, calls: c } of counts) {
      if (k < before + c) {
        const a = bucketStart(bucket);
        const width = bucketEnd(bucket)! - a;
        precision = Math.max(precision, width);
        return { value: a + ((width - 1) * (k - before + 0.5)) / c, exact: false };
      }
      before += c;
    }
    throw new Error(`no call of rank ${k}`);
  };
  const percentiles: Record<string, number | null> = {};
  for (const [name, p] of FRACTIONS) {
    if (n === 0) {
      percentiles[name] = null;
      continue;
    }
    const h = p * (n - 1);
    const lo = Math.floor(h);
    const x0 = orderStatistic(lo);
    const x1 = h > lo ? orderStatistic(lo + 1) : x0;
    const value = x0.value + (h - lo) * (x1.value - x0.value);
    percentiles[name] = x0.exact && x1.exact ? value : Math.round(value * 100) / 100;
  }
  const byBucket = new Map(counts.map((r) => [r.bucket, r.calls]));
  const last = counts.length ? counts[counts.length - 1]!.bucket : -1;
  const histogram = Array.from({ length: last + 1 }, (_, b) => ({ from_seconds: bucketStart(b), to_seconds: bucketEnd(b), count: byBucket.get(b) ?? 0 }));
  return { data: { count: n, percentiles, histogram, precision_seconds: precision } };
}

// --- The bench's GraphQL document --------------------------------------------------------------

/** The one document the baseline answers at /graphql (whitespace-insensitive). */
export const GRAPHQL_DOCUMENT = '{ interactions(limit: 50) { nodes { id outcome clinic { name } campaign { name } } pageInfo { total } } }';
export const normalizeDocument = (text: string) =>
  text
    .replace(/\s+/g, ' ')
    .replace(/\s*([{}():,])\s*/g, '$1')
    .trim();

export async function graphqlInteractions(pool: pg.Pool, key: Principal): Promise<unknown> {
  const w = where({}, key.clinicIds);
  const [rows, count] = await Promise.all([
    pool.query<{ id: string; outcome: string | null; clinic: string; campaign: string | null }>(
      `SELECT p.id, p.outcome, c.name AS clinic, k.name AS campaign
       FROM (SELECT id, outcome, clinic_id, campaign_id, started_at FROM interactions WHERE ${w.sql}
             ORDER BY started_at DESC, id DESC LIMIT 50) AS p
       JOIN clinics c ON c.id = p.clinic_id
       LEFT JOIN campaigns k ON k.id = p.campaign_id
       ORDER BY p.started_at DESC, p.id DESC`,
      w.params,
    ),
    pool.query<{ total: string }>(`SELECT count(*) AS total FROM interactions WHERE ${w.sql}`, w.params),
  ]);
  return {
    data: {
      interactions: {
        nodes: rows.rows.map((r) => ({
          id: r.id,
          outcome: r.outcome,
          clinic: { name: r.clinic },
          campaign: r.campaign === null ? null : { name: r.campaign },
        })),
        pageInfo: { total: Number(count.rows[0]!.total) },
      },
    },
  };
}

/** The bench's second document: a page of 100 campaigns with the summary of each over a window (dates as YYYY-MM-DD). */
export const campaignsDocument = (from: string, to: string) =>
  `{ campaigns(limit: 100) { nodes { id name metrics(dateFrom: "${from}", dateTo: "${to}") { totalInteractions totalCalls successRate avgDurationSeconds appointmentsScheduled } } } }`;

export interface GraphqlOperation {
  /** The scopes the document's fields need. */
  scopes: string[];
  answer(pool: pg.Pool, key: Principal): Promise<unknown>;
}

/** What the baseline answers for a document: one of the bench's (whitespace-insensitive), or undefined. */
export function graphqlOperation(document: string): GraphqlOperation | undefined {
  const text = normalizeDocument(document);
  if (text === normalizeDocument(GRAPHQL_DOCUMENT)) return { scopes: ['interactions:read'], answer: graphqlInteractions };
  const dates: string[] = [];
  const shape = text.replace(/"(\d{4}-\d{2}-\d{2})"/g, (_, day: string) => {
    dates.push(day);
    return '"DAY"';
  });
  if (shape === normalizeDocument(campaignsDocument('DAY', 'DAY'))) {
    const from = dateBound(dates[0]!, 'from');
    const to = dateBound(dates[1]!, 'to');
    if (!from || !to || from > to) return undefined;
    return { scopes: ['campaigns:read', 'metrics:read'], answer: (pool, key) => graphqlCampaigns(pool, key, from, to) };
  }
  return undefined;
}

/** The page of campaigns (newest first) and, for each, the summary of its interactions in [from, to]. */
async function graphqlCampaigns(pool: pg.Pool, key: Principal, from: Date, to: Date): Promise<unknown> {
  const w = where({ from, to }, key.clinicIds);
  const params = [...w.params];
  const select = aggregates(bind(params, SUCCESSFUL), bind(params, 'APPOINTMENT_BOOKED'));
  const visible = key.clinicIds ? `WHERE clinic_id = ANY(${bind(params, key.clinicIds)}::uuid[])` : '';
  const { rows } = await pool.query<Derived & { id: string; name: string }>(
    `WITH page AS (SELECT id, name, created_at FROM campaigns ${visible} ORDER BY created_at DESC, id DESC LIMIT 100)
     SELECT p.id, p.name, ${derived}
     FROM page AS p
     LEFT JOIN (
       SELECT campaign_id, ${select} FROM interactions
       WHERE ${w.sql} AND campaign_id IN (SELECT id FROM page) GROUP BY campaign_id
     ) AS a ON a.campaign_id = p.id
     ORDER BY p.created_at DESC, p.id DESC`,
    params,
  );
  return {
    data: {
      campaigns: {
        nodes: rows.map((r) => ({
          id: r.id,
          name: r.name,
          metrics: {
            totalInteractions: Number(r.total),
            totalCalls: Number(r.calls),
            successRate: r.success_rate,
            avgDurationSeconds: r.avg_duration_seconds,
            appointmentsScheduled: Number(r.appointments_scheduled),
          },
        })),
      },
    },
  };
}
