// The baseline's endpoints: the bench scenarios' REST routes (and the one GraphQL document the bench
// sends) answered with hand-written SQL over a pg Pool, in the same representations, ordering and
// metric rules as the service (README "API behaviour", decisions sections 3-4). Independent of
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

function metricsWindow(query: Query, allowed: string[], key: Principal, maxDays?: number): { sql: string; params: unknown[]; from: Date; to: Date } {
  const problems: Problems = {};
  const f = filters(query, problems);
  if (f.type && !allowed.includes('type')) problems.type = 'unknown parameter';
  const now = new Date();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const from = f.from ?? new Date(today - 30 * DAY);
  const to = f.to ?? new Date(today + DAY - 1);
  if (!problems.date_from && !problems.date_to && from > to) problems.date_from = 'is later than date_to';
  const days =
    Math.floor(
      (Date.UTC(to.getUTCFullYear(), to.getUTCMonth(), to.getUTCDate()) - Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate())) / DAY,
    ) + 1;
  if (maxDays && days > maxDays) problems.date_to = `the daily series covers at most ${maxDays} days`;
  if (Object.keys(problems).length) throw new BadRequest(problems);
  let visible = key.clinicIds;
  if (f.clinicId) visible = visible === null || visible.includes(f.clinicId) ? [f.clinicId] : [];
  return { ...where({ from, to, channel: f.channel, type: f.type }, visible), from, to };
}

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

export async function metricsSummary(pool: pg.Pool, query: Query, key: Principal): Promise<Result> {
  const w = metricsWindow(query, ['date_from', 'date_to', 'clinic_id', 'channel'], key);
  const n = w.params.length;
  const { rows } = await pool.query<Derived>(`SELECT ${derived} FROM (SELECT ${aggregates(`$${n + 1}`, `$${n + 2}`)} FROM interactions WHERE ${w.sql}) AS a`, [
    ...w.params,
    SUCCESSFUL,
    'APPOINTMENT_BOOKED',
  ]);
  const r = rows[0]!;
  return {
    data: {
      total_interactions: Number(r.total),
      total_calls: Number(r.calls),
      total_conversations: Number(r.conversations),
      inbound_count: Number(r.inbound),
      outbound_count: Number(r.outbound),
      avg_duration_seconds: r.avg_duration_seconds,
      total_duration_seconds: Number(r.total_duration_seconds),
      success_rate: r.success_rate,
      appointments_scheduled: Number(r.appointments_scheduled),
    },
  };
}

export async function metricsDaily(pool: pg.Pool, query: Query, key: Principal): Promise<Result> {
  const w = metricsWindow(query, ['date_from', 'date_to', 'clinic_id', 'channel', 'type'], key, 3_700);
  const n = w.params.length;
  const { rows } = await pool.query<Derived & { date: string }>(
    `WITH per_day AS (
       SELECT (started_at AT TIME ZONE 'UTC')::date AS day, ${aggregates(`$${n + 1}`, `$${n + 2}`)}
       FROM interactions WHERE ${w.sql} GROUP BY 1
     )
     SELECT to_char(d.day, 'YYYY-MM-DD') AS date, ${derived}
     FROM generate_series(0, $${n + 4}::date - $${n + 3}::date) AS i
     CROSS JOIN LATERAL (SELECT $${n + 3}::date + i AS day) AS d
     LEFT JOIN per_day AS a ON a.day = d.day
     ORDER BY d.day`,
    [...w.params, SUCCESSFUL, 'APPOINTMENT_BOOKED', w.from.toISOString().slice(0, 10), w.to.toISOString().slice(0, 10)],
  );
  return {
    data: {
      daily: rows.map((r) => ({
        date: r.date,
        total: Number(r.total),
        calls: Number(r.calls),
        conversations: Number(r.conversations),
        inbound: Number(r.inbound),
        outbound: Number(r.outbound),
        appointments_scheduled: Number(r.appointments_scheduled),
        success_rate: r.success_rate,
        avg_duration_seconds: r.avg_duration_seconds,
      })),
    },
  };
}

export async function metricsOutcomes(pool: pg.Pool, query: Query, key: Principal): Promise<Result> {
  const w = metricsWindow(query, ['date_from', 'date_to', 'clinic_id', 'channel', 'type'], key);
  const { rows } = await pool.query<{ outcome: string; count: string; total: string; percentage: number }>(
    `SELECT outcome, count, total, round(count * 100::numeric / total, 2)::float8 AS percentage
     FROM (SELECT outcome, count(*) AS count, sum(count(*)) OVER ()::int8 AS total
           FROM interactions WHERE ${w.sql} AND outcome IS NOT NULL GROUP BY outcome) AS o
     ORDER BY count DESC, outcome COLLATE "C"`,
    w.params,
  );
  return {
    data: {
      outcomes: rows.map((r) => ({ outcome: r.outcome, label: label(r.outcome), count: Number(r.count), percentage: r.percentage })),
      total: rows.length ? Number(rows[0]!.total) : 0,
    },
  };
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
