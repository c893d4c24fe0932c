// Shared by the breakdown, durations, campaign filter and entity metrics tests (not a test file): a
// seeded dataset of two clinics with campaigns, and the metrics computed independently, by SQL
// straight from the `interactions` table (never from the rollups the API reads).
import pg from 'pg';
import { expect } from 'vitest';
import type { Db } from '../../src/db/client.js';
import { databaseUrl } from '../helpers/db.js';
import { createCampaign, createClinic } from '../helpers/factories.js';
import type { Json } from './client.js';

// The references' own connections (not the app's): one pool for the worker's files, which run one
// after another in one module graph; idle, it lets the worker exit.
const pool = new pg.Pool({ connectionString: databaseUrl, max: 3, allowExitOnIdle: true });

async function sql<T extends pg.QueryResultRow = Record<string, Json>>(text: string, values: unknown[] = []): Promise<T[]> {
  return (await pool.query<T>(text, values)).rows;
}

export const DIMENSIONS = ['clinic', 'campaign', 'channel', 'type', 'direction', 'outcome'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** Every breakdown of one dimension, then every pair (in the documented key order): 21. */
export const COMBOS: Dimension[][] = [
  ...DIMENSIONS.map((d) => [d]),
  ...DIMENSIONS.flatMap((d, i) => DIMENSIONS.slice(i + 1).map((e) => [d, e] as Dimension[])),
];

/** The keys a group of a breakdown by `groupBy` has, in the documented order. */
export function keysOf(groupBy: readonly Dimension[]): string[] {
  const keys: string[] = [];
  for (const d of DIMENSIONS) {
    if (!groupBy.includes(d)) continue;
    if (d === 'clinic') keys.push('clinic_id', 'clinic_name');
    else if (d === 'campaign') keys.push('campaign_id', 'campaign_name');
    else keys.push(d);
  }
  return [...keys, ...SUMMARY_KEYS];
}

export const SUMMARY_KEYS = [
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

export const ZERO_SUMMARY = Object.fromEntries(SUMMARY_KEYS.map((k) => [k, 0]));

/** Which interactions a reference reads: the window (inclusive) and the filters. */
export interface Scope {
  from: string;
  to: string;
  /** The clinics the request can see and asks for (the key's clinics, or the one of clinic_id). */
  clinicIds: string[] | 'all';
  campaignId?: string;
  channel?: 'voice' | 'whatsapp';
  type?: string;
  direction?: 'inbound' | 'outbound';
}

function whereOf(scope: Scope, values: unknown[]): string {
  const conditions: string[] = [];
  const add = (text: string, value: unknown) => {
    values.push(value);
    conditions.push(text.replace('?', `$${values.length}`));
  };
  add('i.started_at >= ?::timestamptz', scope.from);
  add('i.started_at <= ?::timestamptz', scope.to);
  if (scope.clinicIds !== 'all') add('i.clinic_id = ANY(?::uuid[])', scope.clinicIds);
  if (scope.campaignId !== undefined) add('i.campaign_id = ?', scope.campaignId);
  if (scope.channel !== undefined) add('i.channel::text = ?', scope.channel);
  if (scope.type !== undefined) add('i.type::text = ?', scope.type);
  if (scope.direction !== undefined) add('i.direction::text = ?', scope.direction);
  return conditions.join(' AND ');
}

/** The nine summary metrics as SQL over `interactions i` (REST names, REST rounding). */
const METRICS_SQL = `
  count(*)::int AS total_interactions,
  count(*) FILTER (WHERE i.channel = 'voice')::int AS total_calls,
  count(*) FILTER (WHERE i.channel = 'whatsapp')::int AS total_conversations,
  count(*) FILTER (WHERE i.direction = 'inbound')::int AS inbound_count,
  count(*) FILTER (WHERE i.direction = 'outbound')::int AS outbound_count,
  coalesce(round(avg(i.duration_seconds) FILTER (WHERE i.channel = 'voice'), 2), 0)::float8 AS avg_duration_seconds,
  coalesce(sum(i.duration_seconds) FILTER (WHERE i.channel = 'voice'), 0)::int AS total_duration_seconds,
  coalesce(round(100.0 * count(*) FILTER (WHERE i.outcome IN ('APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED'))
                 / nullif(count(i.outcome), 0), 2), 0)::float8 AS success_rate,
  count(*) FILTER (WHERE i.outcome = 'APPOINTMENT_BOOKED')::int AS appointments_scheduled`;

const KEY_SQL: Record<Dimension, string[]> = {
  clinic: ['i.clinic_id::text AS clinic_id', 'cl.name AS clinic_name'],
  campaign: ['i.campaign_id AS campaign_id', 'cp.name AS campaign_name'],
  channel: ['i.channel::text AS channel'],
  type: ['i.type::text AS type'],
  direction: ['i.direction::text AS direction'],
  outcome: ['i.outcome AS outcome'],
};

const KEY_COLUMN: Record<Dimension, string> = {
  clinic: 'clinic_id',
  campaign: 'campaign_id',
  channel: 'channel',
  type: 'type',
  direction: 'direction',
  outcome: 'outcome',
};

/** Ascending, nulls last, by UTF-16 code units (for these ASCII keys: bytes, and uuid order). */
export function compareKeys(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

/** The documented order: total_interactions descending, then the keys (in group_by order) ascending, nulls last. */
export function sortGroups(groups: Json[], groupBy: readonly Dimension[]): Json[] {
  return [...groups].sort((x, y) => {
    if (x.total_interactions !== y.total_interactions) return y.total_interactions - x.total_interactions;
    for (const d of groupBy) {
      const c = compareKeys(x[KEY_COLUMN[d]], y[KEY_COLUMN[d]]);
      if (c !== 0) return c;
    }
    return 0;
  });
}

/** The breakdown's groups as REST represents them (keys in the documented order), in the documented order. */
export async function sqlBreakdown(scope: Scope, groupBy: readonly Dimension[]): Promise<Json[]> {
  const values: unknown[] = [];
  const keys = groupBy.flatMap((d) => KEY_SQL[d]);
  const rows = await sql(
    `SELECT ${keys.join(', ')}, ${METRICS_SQL}
     FROM interactions i JOIN clinics cl ON cl.id = i.clinic_id LEFT JOIN campaigns cp ON cp.id = i.campaign_id
     WHERE ${whereOf(scope, values)}
     GROUP BY ${keys.map((_, i) => i + 1).join(', ')}`,
    values,
  );
  const ordered = keysOf(groupBy);
  return sortGroups(
    rows.map((row) => Object.fromEntries(ordered.map((k) => [k, row[k]]))),
    groupBy,
  );
}

/** /metrics/summary's data over the scope. */
export async function sqlSummary(scope: Scope): Promise<Json> {
  const values: unknown[] = [];
  const [row] = await sql(`SELECT ${METRICS_SQL} FROM interactions i WHERE ${whereOf(scope, values)}`, values);
  return Object.fromEntries(SUMMARY_KEYS.map((k) => [k, row![k]]));
}

/** A series bucket's or daily entry's metrics (their REST names) over the scope. */
export async function sqlDayFields(scope: Scope): Promise<Json> {
  return dayFields(await sqlSummary(scope));
}

/** The instant a local date starts in a time zone (PostgreSQL's tz database), as ISO text. */
export async function localMidnight(date: string, zone: string): Promise<string> {
  const [row] = await sql<{ at: Date }>('SELECT ($1::date::timestamp AT TIME ZONE $2) AS at', [date, zone]);
  return row!.at.toISOString();
}

/** The instants of the local days `from`..`to` (inclusive) in a time zone. */
export async function localWindow(from: string, to: string, zone: string): Promise<{ from: string; to: string }> {
  const next = new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  return { from: await localMidnight(from, zone), to: new Date(Date.parse(await localMidnight(next, zone)) - 1).toISOString() };
}

/** An outcome's label: its words capitalized (APPOINTMENT_BOOKED: Appointment Booked). */
const labelOf = (outcome: string) =>
  outcome
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');

/** The daily entries' metrics of the scope by local date (YYYY-MM-DD) in `zone`; dates without interactions are absent. */
export async function sqlDaily(scope: Scope, zone = 'UTC'): Promise<Map<string, Json>> {
  const values: unknown[] = [];
  const where = whereOf(scope, values);
  values.push(zone);
  const rows = await sql(
    `SELECT to_char((i.started_at AT TIME ZONE $${values.length})::date, 'YYYY-MM-DD') AS date, ${METRICS_SQL} FROM interactions i WHERE ${where} GROUP BY 1`,
    values,
  );
  return new Map(rows.map((s) => [s.date, dayFields(s)]));
}

const dayFields = (s: Json) => ({
  total: s.total_interactions,
  calls: s.total_calls,
  conversations: s.total_conversations,
  inbound: s.inbound_count,
  outbound: s.outbound_count,
  appointments_scheduled: s.appointments_scheduled,
  success_rate: s.success_rate,
  avg_duration_seconds: s.avg_duration_seconds,
});

export const ZERO_DAY = dayFields(ZERO_SUMMARY);

/** /metrics/outcomes' data over the scope. */
export async function sqlOutcomes(scope: Scope): Promise<Json> {
  const values: unknown[] = [];
  const rows = await sql<{ outcome: string; count: number }>(
    `SELECT i.outcome, count(*)::int AS count FROM interactions i WHERE ${whereOf(scope, values)} AND i.outcome IS NOT NULL GROUP BY 1`,
    values,
  );
  const total = rows.reduce((s, r) => s + r.count, 0);
  const ratio = (part: number) => Math.floor((200 * 100 * part + total) / (2 * total)) / 100;
  return {
    total,
    outcomes: rows
      .sort((a, b) => b.count - a.count || compareKeys(a.outcome, b.outcome))
      .map((r) => ({ outcome: r.outcome, label: labelOf(r.outcome), count: r.count, percentage: ratio(r.count) })),
  };
}

/** The ids an interaction list of the scope holds, in list order (started_at, then id, descending). */
export async function sqlInteractionIds(scope: Scope, extra = ''): Promise<string[]> {
  const values: unknown[] = [];
  const rows = await sql<{ id: string }>(
    `SELECT i.id FROM interactions i WHERE ${whereOf(scope, values)} ${extra} ORDER BY i.started_at DESC, i.id DESC`,
    values,
  );
  return rows.map((r) => r.id);
}

/** The histogram bucket of a duration, as documented: 10 s wide below 600 s, 60 s below 3,600 s, then one open bucket. */
export function bucketOf(seconds: number): number {
  if (seconds < 600) return Math.floor(seconds / 10);
  if (seconds < 3600) return 60 + Math.floor((seconds - 600) / 60);
  return 110;
}

export function boundsOf(bucket: number): { from_seconds: number; to_seconds: number | null } {
  if (bucket < 60) return { from_seconds: bucket * 10, to_seconds: bucket * 10 + 10 };
  if (bucket < 110) return { from_seconds: 600 + (bucket - 60) * 60, to_seconds: 660 + (bucket - 60) * 60 };
  return { from_seconds: 3600, to_seconds: null };
}

export interface DurationsReference {
  count: number;
  /** PostgreSQL's percentile_cont of the durations; null without calls. */
  exact: Record<'p50' | 'p75' | 'p90' | 'p95' | 'p99', number | null>;
  histogram: Array<{ from_seconds: number; to_seconds: number | null; count: number }>;
}

/** Voice calls with a duration in the scope: count, exact percentiles and the documented histogram. */
export async function sqlDurations(scope: Scope): Promise<DurationsReference> {
  const values: unknown[] = [];
  const where = `${whereOf(scope, values)} AND i.channel = 'voice' AND i.duration_seconds IS NOT NULL`;
  const [row] = await sql<{ count: number; p: number[] | null }>(
    `SELECT count(*)::int AS count,
            percentile_cont(ARRAY[0.5, 0.75, 0.9, 0.95, 0.99]::float8[]) WITHIN GROUP (ORDER BY i.duration_seconds) AS p
     FROM interactions i WHERE ${where}`,
    values,
  );
  const durations = await sql<{ seconds: number; n: number }>(
    `SELECT i.duration_seconds AS seconds, count(*)::int AS n FROM interactions i WHERE ${where} GROUP BY 1`,
    values,
  );
  const counts = new Map<number, number>();
  for (const { seconds, n } of durations) counts.set(bucketOf(seconds), (counts.get(bucketOf(seconds)) ?? 0) + n);
  const last = Math.max(-1, ...counts.keys());
  const histogram = [];
  for (let b = 0; b <= last; b++) histogram.push({ ...boundsOf(b), count: counts.get(b) ?? 0 });
  const p = row!.p;
  return {
    count: row!.count,
    exact: { p50: p?.[0] ?? null, p75: p?.[1] ?? null, p90: p?.[2] ?? null, p95: p?.[3] ?? null, p99: p?.[4] ?? null },
    histogram,
  };
}

export const PERCENTILE_NAMES = ['p50', 'p75', 'p90', 'p95', 'p99'] as const;
const NAMES = PERCENTILE_NAMES;

/** The answer agrees with the SQL reference: count and histogram exactly, each percentile within precision_seconds. */
export function expectDurationsAgree(data: Json, reference: DurationsReference, label: string) {
  expect(Object.keys(data), label).toEqual(['count', 'percentiles', 'histogram', 'precision_seconds']);
  expect(data.count, label).toBe(reference.count);
  expect(data.histogram, label).toEqual(reference.histogram);
  expect([0, 10, 60], label).toContain(data.precision_seconds);
  expect(Object.keys(data.percentiles), label).toEqual([...NAMES]);
  for (const name of NAMES) {
    const exact = reference.exact[name];
    const value = data.percentiles[name];
    if (exact === null) {
      expect(value, `${label} ${name}`).toBeNull();
      continue;
    }
    expect(typeof value, `${label} ${name}`).toBe('number');
    expect(Math.abs(value - exact), `${label} ${name}: ${value} vs percentile_cont ${exact} (precision ${data.precision_seconds})`).toBeLessThanOrEqual(
      data.precision_seconds + 1e-9,
    );
  }
  // Percentiles never decrease.
  const values = NAMES.map((n) => data.percentiles[n]).filter((v) => v !== null) as number[];
  expect(
    [...values].sort((a, b) => a - b),
    label,
  ).toEqual(values);
}

// --- the dataset ---------------------------------------------------------------------------------

/** A small deterministic generator (mulberry32), so every run seeds the same rows. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TYPES: Record<'voice' | 'whatsapp', string[]> = {
  voice: ['INBOUND', 'FORM_OUTBOUND', 'CAMPAIGN_OUTBOUND', 'CAMPAIGN_CALLBACK'],
  whatsapp: ['INBOUND', 'CAMPAIGN_OUTBOUND', 'APPOINTMENT_REMINDER'],
};
const COMMON_OUTCOMES = [
  'APPOINTMENT_BOOKED',
  'APPOINTMENT_MODIFIED',
  'APPOINTMENT_CANCELLED',
  'NO_ANSWER',
  'CALLBACK_REQUESTED',
  'DECISION_PENDING',
  'OPT_OUT',
  'UNREACHABLE',
];
/** Only clinic B has these: a leak of B into a breakdown of A shows as a group of its own. */
export const B_ONLY_OUTCOMES = ['VOICEMAIL_REACHED', 'TRANSFERRED_TO_HUMAN'];
export const B_ONLY_TYPE = 'FORM_OUTBOUND';
const EDGE_DURATIONS = [0, 1, 9, 10, 599, 600, 601, 659, 660, 3599, 3600, 3601, 7200];

/** The span the dataset's interactions are spread over: 2025-02-25 .. 2025-04-05 (UTC). */
export const SPAN = { from: Date.UTC(2025, 1, 25), to: Date.UTC(2025, 3, 5) };

export interface Dataset {
  tag: string;
  A: { id: string; name: string };
  B: { id: string; name: string };
  /** A's campaigns a1, a2; B's b1. */
  campaigns: { a1: { id: string; name: string }; a2: { id: string; name: string }; b1: { id: string; name: string } };
  /** Every interaction id, by clinic. */
  ids: { A: string[]; B: string[] };
}

/**
 * Two clinics, A (3 campaigns' worth of rows: a1, a2 and none) and B (b1 and none, and the only
 * FORM_OUTBOUND calls and VOICEMAIL_REACHED / TRANSFERRED_TO_HUMAN outcomes), `count` interactions
 * over SPAN with every channel, type, direction, outcome (and none), durations (none, bucket edges,
 * calls of over an hour), and some on midnights. The same rows every time (a fixed seed); `shiftMs`
 * moves them all in time (to a year no other test writes to, for keys that see every clinic).
 */
export async function seedDataset(db: Db, tag: string, options: { count?: number; seed?: number; shiftMs?: number } = {}): Promise<Dataset> {
  const { count = 600, seed = 20250301, shiftMs = 0 } = options;
  const A = await createClinic(db, { name: `Breakdown A ${tag}` });
  const B = await createClinic(db, { name: `Breakdown B ${tag}` });
  const a1 = await createCampaign(db, A.id, { id: `cmp_${tag}_a1`, name: `Spring recall ${tag}` });
  const a2 = await createCampaign(db, A.id, { id: `cmp_${tag}_a2`, name: `No-show recovery ${tag}` });
  const b1 = await createCampaign(db, B.id, { id: `cmp_${tag}_b1`, name: `B reactivation ${tag}` });
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const ids: Dataset['ids'] = { A: [], B: [] };
  const rows = [];
  for (let i = 0; i < count; i++) {
    const inA = random() < 0.45;
    const clinicId = inA ? A.id : B.id;
    const r = random();
    const campaignId = inA ? (r < 0.35 ? a1.id : r < 0.6 ? a2.id : null) : r < 0.6 ? b1.id : null;
    const channel = random() < 0.6 ? ('voice' as const) : ('whatsapp' as const);
    let type = pick(TYPES[channel]);
    if (inA && type === B_ONLY_TYPE) type = 'CAMPAIGN_CALLBACK';
    const o = random();
    const outcome = o < 0.15 ? null : !inA && o < 0.3 ? pick(B_ONLY_OUTCOMES) : pick(COMMON_OUTCOMES);
    let durationSeconds: number | null = null;
    if (channel === 'voice') {
      const d = random();
      durationSeconds =
        d < 0.1
          ? null
          : d < 0.18
            ? pick(EDGE_DURATIONS)
            : d < 0.6
              ? Math.floor(random() * 600)
              : d < 0.92
                ? 600 + Math.floor(random() * 3000)
                : 3600 + Math.floor(random() * 4000);
    }
    // Every 25th on a UTC midnight (or the millisecond before), the rest anywhere in the span.
    const startedAt =
      i % 25 === 0
        ? SPAN.from + (1 + Math.floor(random() * 38)) * 86_400_000 - (i % 50 === 0 ? 1 : 0)
        : SPAN.from + Math.floor(random() * (SPAN.to - SPAN.from));
    const id = `bd_${tag}_${String(i).padStart(4, '0')}`;
    ids[inA ? 'A' : 'B'].push(id);
    rows.push({
      id,
      clinicId,
      campaignId,
      channel,
      type: type as 'INBOUND',
      direction: type === 'INBOUND' ? ('inbound' as const) : ('outbound' as const),
      phoneNumber: `+34 600 ${String(i).padStart(6, '0')}`,
      startedAt: new Date(startedAt + shiftMs),
      durationSeconds,
      outcome,
    });
  }
  await db.interaction.createMany({ data: rows });
  const entity = (x: { id: string; name: string }) => ({ id: x.id, name: x.name });
  return { tag, A: entity(A), B: entity(B), campaigns: { a1: entity(a1), a2: entity(a2), b1: entity(b1) }, ids };
}

/** Windows over the dataset, as query parameters and as instants. */
export const WINDOWS = {
  /** Whole days only (a whole month, March, and full days around it): read from the rollup levels. */
  days: { query: 'date_from=2025-02-26&date_to=2025-04-03', from: '2025-02-26T00:00:00.000Z', to: '2025-04-03T23:59:59.999Z' },
  /** Partial days at both ends: the edges read raw. */
  partial: {
    query: 'date_from=2025-02-27T13:17:05.123Z&date_to=2025-04-02T08:00:00Z',
    from: '2025-02-27T13:17:05.123Z',
    to: '2025-04-02T08:00:00.000Z',
  },
  /**
   * Most of March (the 3rd to the 29th, partial days raw on the 2nd and 30th): read as the whole
   * month less its other days, which hold interactions that must not count.
   */
  monthLessDays: {
    query: 'date_from=2025-03-02T10:00:00Z&date_to=2025-03-30T12:00:00Z',
    from: '2025-03-02T10:00:00.000Z',
    to: '2025-03-30T12:00:00.000Z',
  },
  /** Within one day. */
  inDay: { query: 'date_from=2025-03-14T02:00:00Z&date_to=2025-03-14T21:30:00Z', from: '2025-03-14T02:00:00.000Z', to: '2025-03-14T21:30:00.000Z' },
  /** All of the span. */
  all: { query: 'date_from=2025-02-01&date_to=2025-04-30', from: '2025-02-01T00:00:00.000Z', to: '2025-04-30T23:59:59.999Z' },
} as const;
