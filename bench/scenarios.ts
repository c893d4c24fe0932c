// The bench scenarios: one request each, sent over and over at a fixed concurrency, and the check
// that the service and the baseline answer them identically before anything is measured.

import pg from 'pg';
import { CursorCodec } from '../src/interactions/cursor.js';
import { campaignsDocument, GRAPHQL_DOCUMENT } from './baseline/handlers.js';
import { CAMPAIGN_IDS, CLINIC_IDS, type DatasetMeta, REASONS } from './datasets.js';

export type Group = 'interactions' | 'metrics' | 'graphql';

export interface Scenario {
  name: string;
  group: Group;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** Scenarios the targets speak of. */
  target?: 'first-page' | 'search' | 'common-search' | 'deep-page' | 'metrics' | 'limits';
  /** For target 'limits': what its p50 at 10m must meet (each limit given is checked). */
  limits?: Limits;
  /** The scenario is about an empty answer (otherwise one means the dataset does not exercise it). */
  empty?: true;
  /** Request headers of the scenario (If-None-Match). */
  headers?: Record<string, string>;
  /**
   * Measured on the service alone: the baseline has no such thing (signed cursors, the change
   * feed, 304s, /me). Checked for its status and shape instead of against the baseline.
   */
  serviceOnly?: true;
  /** The status every answer must have (default 200). */
  status?: number;
  /** Sent with keys that lack phi:read: the answers' patient data is masked (src/phi). */
  masked?: true;
  /** Completes the scenario from the dataset or the service before it is checked (a cursor, an ETag). */
  resolve?: (context: ResolveContext) => Promise<Partial<Scenario>>;
}

export interface ResolveContext {
  /** The dataset's database. */
  databaseUrl: string;
  /** The service's base URL and a key for it. */
  base: string;
  key: string;
}

/** Targets judged on the p50 at 10m (metrics in local time zones, breakdowns, durations, ...). */
export interface Limits {
  /** At most this many milliseconds. */
  p50Ms?: number;
  /** At most this many times the same scenario's p50 at 100k. */
  growth?: number;
  /** At most this many times the same scenario's p50 at 1m. */
  growthFrom1m?: number;
  /** At most `factor` times the p50 of the scenario named `scenario` (the same request in UTC, or without compare). */
  versus?: { scenario: string; factor: number };
  /** At least `factor` times the requests/s of the scenario named `scenario`. */
  rpsVersus?: { scenario: string; factor: number };
}

const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

export function scenariosFor(meta: DatasetMeta): Scenario[] {
  const yearFrom = addDays(meta.lastDay, -364);
  const year = `date_from=${yearFrom}&date_to=${meta.lastDay}`;
  const get = (name: string, group: Group, path: string, target?: Scenario['target']): Scenario => ({ name, group, method: 'GET', path, target });
  const metrics = (['summary', 'daily', 'outcomes'] as const).flatMap((m) => [
    get(`metrics ${m} 30 days`, 'metrics', `/api/v1/metrics/${m}`, 'metrics'),
    get(`metrics ${m} 1 year`, 'metrics', `/api/v1/metrics/${m}?${year}`, 'metrics'),
  ]);
  // Metrics in local time zones (names say "tz": `--scenarios tz` selects them). The zones: +05:45
  // all year, two with DST (each year window holds a gap and a fold), and +05:30 for one clinic.
  const zoned = (name: string, path: string, limits?: Limits, serviceOnly = false): Scenario => ({
    ...get(name, 'metrics', path, limits ? 'limits' : undefined),
    ...(limits ? { limits } : {}),
    ...(serviceOnly ? { serviceOnly } : {}),
  });
  // A comparison reads a second window: at most twice the cost of the answer without it.
  const withCompare = (scenario: Scenario): Scenario[] => [
    scenario,
    zoned(
      `${scenario.name}, compare previous_year`,
      `${scenario.path}&compare=previous_year`,
      { versus: { scenario: scenario.name, factor: 2 } },
      scenario.serviceOnly,
    ),
  ];
  // The same filtered request in Europe/Madrid (whole hours) and Asia/Kathmandu (+05:45): the
  // second within 2x of the first, and its comparison within 2x of it.
  const filteredZoned = (): Scenario[] => {
    const filters = [
      { label: 'channel voice', query: 'channel=voice', serviceOnly: false },
      { label: 'one clinic', query: `clinic_id=${CLINIC_IDS[0]}`, serviceOnly: false },
      // (the baseline has no campaign filter on metrics)
      { label: 'one campaign', query: `campaign_id=${CAMPAIGN_IDS[1]}`, serviceOnly: true },
    ];
    const requests = [
      { label: 'series hour 1 year', path: `/api/v1/metrics/series?granularity=hour&${year}` },
      { label: 'daily 1 year', path: `/api/v1/metrics/daily?${year}` },
    ];
    return filters.flatMap((f) =>
      requests.flatMap((r) => {
        const base = `metrics ${r.label}, ${f.label}, tz Europe/Madrid`;
        return [
          zoned(base, `${r.path}&${f.query}&timezone=Europe/Madrid`, undefined, f.serviceOnly),
          ...withCompare(
            zoned(
              `metrics ${r.label}, ${f.label}, tz Asia/Kathmandu`,
              `${r.path}&${f.query}&timezone=Asia/Kathmandu`,
              {
                versus: { scenario: base, factor: 2 },
              },
              f.serviceOnly,
            ),
          ),
        ];
      }),
    );
  };
  // A year of local days or weeks: p50 <= 15 ms, within 1.5x of 100k, within 2x of the UTC daily.
  const zonedDaily: Limits = { p50Ms: 15, growth: 1.5, versus: { scenario: 'metrics daily 1 year', factor: 2 } };
  const zonedMetrics = [
    ...withCompare(zoned('metrics daily 1 year, tz Asia/Kathmandu', `/api/v1/metrics/daily?${year}&timezone=Asia/Kathmandu`, zonedDaily)),
    ...withCompare(
      zoned('metrics series week 1 year, tz America/New_York', `/api/v1/metrics/series?granularity=week&${year}&timezone=America/New_York`, zonedDaily),
    ),
    // 8,760 buckets, two of them for the repeated hour of October's fold, none for March's gap.
    zoned('metrics series hour 1 year, tz Europe/Madrid', `/api/v1/metrics/series?granularity=hour&${year}&timezone=Europe/Madrid`, { p50Ms: 100 }),
    ...withCompare(zoned('metrics summary 1 year, tz Europe/Madrid', `/api/v1/metrics/summary?${year}&timezone=Europe/Madrid`)),
    zoned('metrics outcomes 1 year, tz America/New_York', `/api/v1/metrics/outcomes?${year}&timezone=America/New_York`),
    zoned(
      'metrics series month 1 year, one clinic, tz Asia/Kolkata',
      `/api/v1/metrics/series?granularity=month&${year}&clinic_id=${CLINIC_IDS[0]}&timezone=Asia/Kolkata`,
    ),
    // The series in UTC: what the zoned series cost beyond the series itself.
    zoned('metrics series day 1 year', `/api/v1/metrics/series?granularity=day&${year}`),
    // With a filter, a zone whose offset is not whole hours costs what a whole-hour zone does
    // (within 2x): no raw reads at the bucket edges (they were 16 s at 100k before the quarter level).
    ...filteredZoned(),
  ];
  // Metrics by dimension over a year (`--scenarios breakdown` or `durations` selects them): the
  // summary per group, the first page of 25 (by campaign: 90 campaigns with interactions that year
  // and the group without one), and the distribution of call durations.
  const breakdownLimits: Limits = { p50Ms: 20, growth: 1.5 };
  const byDimension = [
    zoned('metrics breakdown by campaign 1 year', `/api/v1/metrics/breakdown?group_by=campaign&${year}`, breakdownLimits),
    zoned('metrics breakdown by campaign,outcome 1 year', `/api/v1/metrics/breakdown?group_by=campaign,outcome&${year}`, breakdownLimits),
    zoned('metrics breakdown by clinic,channel 1 year', `/api/v1/metrics/breakdown?group_by=clinic,channel&${year}`, breakdownLimits),
    zoned('metrics durations 1 year', `/api/v1/metrics/durations?${year}`, { p50Ms: 15 }),
    zoned('metrics durations 1 year, one clinic', `/api/v1/metrics/durations?${year}&clinic_id=${CLINIC_IDS[0]}`),
  ];
  // `direction` (`--scenarios direction`): a rollup key like the channel for the summary, daily and
  // a page; the duration histograms have no direction, so its durations are read from the raw table.
  // (The baseline has no direction filter: the service alone.)
  const byDirection: Scenario[] = [
    zoned('metrics summary 1 year, direction outbound', `/api/v1/metrics/summary?${year}&direction=outbound`, undefined, true),
    zoned(
      'metrics daily 1 year, direction inbound, tz Europe/Madrid',
      `/api/v1/metrics/daily?${year}&direction=inbound&timezone=Europe/Madrid`,
      undefined,
      true,
    ),
    zoned('metrics durations 1 year, direction inbound', `/api/v1/metrics/durations?${year}&direction=inbound`, undefined, true),
    zoned(
      'metrics durations 1 year, direction outbound, one clinic',
      `/api/v1/metrics/durations?${year}&direction=outbound&clinic_id=${CLINIC_IDS[0]}`,
      undefined,
      true,
    ),
    {
      ...get('interactions filtered, direction outbound, one clinic', 'interactions', `/api/v1/interactions?direction=outbound&clinic_id=${CLINIC_IDS[0]}`),
      serviceOnly: true as const,
    },
  ];
  // Beyond the baseline (`--scenarios cursor`, `feed`, `304`, `me`): the service alone.
  const serviceOnly = (name: string, group: Group, path: string, extra: Partial<Scenario> = {}): Scenario => ({
    ...get(name, group, path),
    serviceOnly: true,
    ...extra,
  });
  const integrators = [
    // The row the 2000th page of 25 starts after, by cursor: what a mirror walking the list pays per page.
    serviceOnly('interactions cursor page after 50,000 rows', 'interactions', '/api/v1/interactions', {
      resolve: async ({ databaseUrl }) => ({ path: `/api/v1/interactions?cursor=${await cursorAt(databaseUrl, 'desc', 49_975)}` }),
    }),
    serviceOnly('interactions cursor first page, include_total=false', 'interactions', '/api/v1/interactions?cursor=&include_total=false'),
    // The change feed from the start (a mirror's first sync) and deep in it.
    serviceOnly('change feed first page, include_total=false', 'interactions', '/api/v1/interactions', {
      resolve: async ({ databaseUrl }) => ({ path: `/api/v1/interactions?include_total=false&updated_since=${await firstUpdate(databaseUrl)}` }),
    }),
    serviceOnly('change feed page after 50,000 rows, include_total=false', 'interactions', '/api/v1/interactions', {
      resolve: async ({ databaseUrl }) => {
        const since = await firstUpdate(databaseUrl);
        return { path: `/api/v1/interactions?include_total=false&updated_since=${since}&cursor=${await cursorAt(databaseUrl, 'feed', 49_975, since)}` };
      },
    }),
    // A dashboard polling a year of daily metrics with the ETag of its last answer.
    serviceOnly('metrics daily 1 year, If-None-Match (304)', 'metrics', `/api/v1/metrics/daily?${year}`, {
      status: 304,
      target: 'limits',
      limits: { rpsVersus: { scenario: 'metrics daily 1 year', factor: 2 } },
      resolve: async ({ base, key }) => {
        const response = await fetch(`${base}/api/v1/metrics/daily?${year}`, { headers: { authorization: `Bearer ${key}` } });
        await response.arrayBuffer();
        const etag = response.headers.get('etag');
        if (!etag) throw new Error('the service sent no ETag for metrics daily');
        return { headers: { 'if-none-match': etag } };
      },
    }),
    serviceOnly('key and quota /me', 'interactions', '/api/v1/me'),
    // The REST index (src/http/front-door.ts): no key read, nothing counted, an answer built once
    // (`--scenarios index` selects it; the keys the bench sends are ignored).
    serviceOnly('REST index /api/v1', 'interactions', '/api/v1'),
    // Tombstones for mirroring clients (/interactions/deleted): the datasets get one per 100
    // interactions (benchTombstones), as after purges; the first page, and the page after 5,000.
    serviceOnly('tombstones first page /interactions/deleted', 'interactions', '/api/v1/interactions/deleted', {
      resolve: async ({ databaseUrl }) => {
        await benchTombstones(databaseUrl, meta.rows / 100);
        return {};
      },
    }),
    serviceOnly('tombstones page after 5,000 /interactions/deleted', 'interactions', '/api/v1/interactions/deleted', {
      resolve: async ({ databaseUrl, base, key }) => {
        await benchTombstones(databaseUrl, meta.rows / 100);
        let cursor = '';
        for (let read = 0; read < 5_000; read += 500) {
          const response = await fetch(`${base}/api/v1/interactions/deleted?limit=500&include_total=false&cursor=${encodeURIComponent(cursor)}`, {
            headers: { authorization: `Bearer ${key}` },
          });
          const body = (await response.json()) as { meta?: { next_cursor?: string | null } };
          if (!body.meta?.next_cursor) throw new Error('tombstones: fewer than 5,000 in the dataset');
          cursor = body.meta.next_cursor;
        }
        return { path: `/api/v1/interactions/deleted?cursor=${encodeURIComponent(cursor)}` };
      },
    }),
  ];
  // The masking of patient data (src/phi): the same first page read by keys with phi:read and by
  // keys without it, a page of calls and one of WhatsApp conversations (transcripts in lists).
  // Target: masking costs at most 10% of requests/s. Names say "masking" (`--scenarios masking`).
  const masking = [
    ['first page', '/api/v1/interactions'],
    ['WhatsApp first page', '/api/v1/interactions?channel=whatsapp'],
  ].flatMap(([what, path]) => [
    serviceOnly(`masking: ${what}, key with phi:read`, 'interactions', path!),
    serviceOnly(`masking: ${what}, key without phi:read`, 'interactions', path!, {
      masked: true,
      target: 'limits',
      limits: { rpsVersus: { scenario: `masking: ${what}, key with phi:read`, factor: 0.9 } },
    }),
  ]);
  // Full-text search of summaries and transcripts (the datasets' summaries name a reason: REASONS),
  // first page with its exact total. Names say "full-text" (`--scenarios full-text` selects them).
  const textLimits = (p50Ms: number): Partial<Scenario> => ({ target: 'limits', limits: { p50Ms, growthFrom1m: 1.5 } });
  const textSearch = [
    serviceOnly(`full-text q, a word in 1% ("${REASONS.rare}")`, 'interactions', `/api/v1/interactions?q=${REASONS.rare}`, textLimits(50)),
    serviceOnly(`full-text q, a word in 30% ("${REASONS.common}")`, 'interactions', `/api/v1/interactions?q=${REASONS.common}`, textLimits(150)),
    // Two words: no word count applies, every match is counted through the index.
    serviceOnly(`full-text q, two words ("${REASONS.rare} appointment")`, 'interactions', `/api/v1/interactions?q=${REASONS.rare}%20appointment`),
    serviceOnly(
      `full-text q, a word in 1%, one clinic, voice`,
      'interactions',
      `/api/v1/interactions?q=${REASONS.rare}&channel=voice&clinic_id=${CLINIC_IDS[0]}`,
    ),
    {
      ...serviceOnly(`full-text GraphQL text + highlights, limit 20 ("${REASONS.rare}")`, 'graphql', '/graphql'),
      method: 'POST' as const,
      body: JSON.stringify({
        query: `{ interactions(text: "${REASONS.rare}", limit: 20) { nodes { id startedAt summary highlights } pageInfo { total } } }`,
      }),
    },
  ];
  return [
    get('interactions first page', 'interactions', '/api/v1/interactions', 'first-page'),
    get(
      'interactions filtered',
      'interactions',
      `/api/v1/interactions?channel=voice&type=CAMPAIGN_OUTBOUND&outcome=APPOINTMENT_BOOKED,CALLBACK_REQUESTED&clinic_id=${CLINIC_IDS[0]}`,
      'first-page',
    ),
    // A combination no row has (WhatsApp conversations have no NO_ANSWER outcome): the exact count
    // from the rollups says so, and no page is read.
    { ...get('interactions filtered, no match', 'interactions', '/api/v1/interactions?channel=whatsapp&outcome=NO_ANSWER'), empty: true },
    get(`phone search "${meta.search}"`, 'interactions', `/api/v1/interactions?search=${encodeURIComponent(meta.search)}`, 'search'),
    // What a person types first: 3 digits in many numbers (datasets.ts), where the exact total is the cost.
    ...(meta.commonSearch === undefined
      ? []
      : [
          get(
            `phone search, common "${meta.commonSearch}"`,
            'interactions',
            `/api/v1/interactions?search=${encodeURIComponent(meta.commonSearch)}`,
            'common-search',
          ),
        ]),
    get('deep page (2000 x 25)', 'interactions', '/api/v1/interactions?page=2000&limit=25', 'deep-page'),
    ...integrators,
    ...masking,
    ...textSearch,
    ...metrics,
    ...zonedMetrics,
    ...byDimension,
    ...byDirection,
    {
      name: 'GraphQL interactions(limit: 50) + relations',
      group: 'graphql',
      method: 'POST',
      path: '/graphql',
      body: JSON.stringify({ query: GRAPHQL_DOCUMENT }),
    },
    // Every campaign of the dataset (10 per clinic) with the summary of its year, batched by the
    // service into one breakdown by campaign for the page.
    {
      name: 'GraphQL campaigns(limit: 100) + metrics 1 year',
      group: 'graphql',
      method: 'POST',
      path: '/graphql',
      body: JSON.stringify({ query: campaignsDocument(yearFrom, meta.lastDay) }),
      target: 'limits',
      limits: { p50Ms: 30 },
    },
  ];
}

export interface Answer {
  status: number;
  body: unknown;
}

export async function request(base: string, scenario: Scenario, key: string): Promise<Answer> {
  const response = await fetch(base + scenario.path, {
    method: scenario.method,
    headers: { authorization: `Bearer ${key}`, ...scenario.headers, ...(scenario.body ? { 'content-type': 'application/json' } : {}) },
    body: scenario.body,
    signal: AbortSignal.timeout(120_000),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: response.status, body };
}

/** What must be equal: `data` and `meta` of the REST envelope, `data` and `errors` of GraphQL. */
function comparable(scenario: Scenario, answer: Answer): unknown {
  const body = answer.body as Record<string, unknown>;
  if (scenario.group === 'graphql') return { status: answer.status, data: body?.data, errors: body?.errors };
  return { status: answer.status, success: body?.success, data: body?.data, meta: body?.meta, error: body?.error };
}

/** The first path where two JSON values differ, with both values there. */
export function firstDifference(a: unknown, b: unknown, path = '$'): string | undefined {
  if (JSON.stringify(a) === JSON.stringify(b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    if (Array.isArray(a) !== Array.isArray(b)) return `${path}: array vs object`;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.join() !== kb.join()) return `${path}: keys [${ka.join(', ')}] vs [${kb.join(', ')}]`;
    for (const k of ka) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], Array.isArray(a) ? `${path}[${k}]` : `${path}.${k}`);
      if (d) return d;
    }
  }
  const show = (v: unknown) => JSON.stringify(v)?.slice(0, 300);
  return `${path}: ${show(a)} vs ${show(b)}`;
}

/**
 * Checks that an answer is a success worth measuring (200, `success: true`, no GraphQL errors,
 * something in it) and equal to the baseline's. Returns the problems found.
 */
export function checkAnswers(scenario: Scenario, ours: Answer, baseline: Answer | undefined): string[] {
  const problems: string[] = [];
  const body = ours.body as Record<string, unknown>;
  if (scenario.status !== undefined && scenario.status !== 200) {
    if (ours.status !== scenario.status) problems.push(`service answered ${ours.status}, not ${scenario.status}`);
    return problems;
  }
  if (ours.status !== 200) problems.push(`service answered ${ours.status}: ${JSON.stringify(ours.body).slice(0, 300)}`);
  else if (scenario.group === 'graphql' ? body?.errors !== undefined : body?.success !== true)
    problems.push(`service answered ${JSON.stringify(ours.body).slice(0, 300)}`);
  else {
    const data = body.data as Record<string, unknown> | undefined;
    const buckets = (data?.daily ?? data?.series) as Array<{ total: number }> | undefined;
    const campaigns = (data?.campaigns as { nodes?: Array<{ metrics?: { totalInteractions?: number } }> } | undefined)?.nodes;
    const empty =
      (scenario.name.startsWith('interactions') && !(data?.interactions as unknown[] | undefined)?.length) ||
      (scenario.name.includes('breakdown') && !(data?.groups as unknown[] | undefined)?.length) ||
      (scenario.name.includes('durations') && !(data as { count?: number } | undefined)?.count) ||
      // A page of campaigns without any interaction in the window.
      (campaigns !== undefined && !campaigns.some((c) => c.metrics?.totalInteractions)) ||
      (scenario.name.startsWith('metrics summary') && !(data as { total_interactions?: number } | undefined)?.total_interactions) ||
      // A daily or series answer is all zero-filled entries when its window misses the dataset.
      (buckets !== undefined && !buckets.some((b) => b.total > 0));
    if (empty && !scenario.empty) problems.push('service answered an empty result: the dataset does not exercise this scenario');
    if (!empty && scenario.empty) problems.push('service answered a non-empty result where none was expected');
  }
  if (baseline) {
    const difference = firstDifference(comparable(scenario, ours), comparable(scenario, baseline));
    if (difference) problems.push(`service and baseline differ at ${difference}`);
  }
  return problems;
}

/** The earliest updated_at of the dataset (where a mirror's first sync starts), as an ISO instant. */
/**
 * `count` tombstones in the dataset (ids `bench-deleted-<n>`, of every clinic, one a second from
 * 2026-01-01), as purges would leave them; written once (the table is apart from the generated rows).
 */
async function benchTombstones(databaseUrl: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO interaction_tombstones (id, clinic_id, deleted_at)
       SELECT 'bench-deleted-' || g, ($2::uuid[])[g % cardinality($2::uuid[]) + 1], timestamptz '2026-01-01' + g * interval '1 second'
       FROM generate_series(1, $1::int) AS g
       ON CONFLICT (id) DO NOTHING`,
      [Math.max(5_100, Math.round(count)), CLINIC_IDS],
    );
  } finally {
    await client.end();
  }
}

async function firstUpdate(databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ at: Date }>('SELECT min(updated_at) AS at FROM interactions');
    return rows[0]!.at.toISOString();
  } finally {
    await client.end();
  }
}

/**
 * A cursor continuing after the `offset`-th row (0-based) of every interaction, newest first or in
 * change-feed order, signed with the dataset's own key as the service signs it.
 */
async function cursorAt(databaseUrl: string, order: 'desc' | 'feed', offset: number, updatedSince?: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const orderBy = order === 'desc' ? 'started_at DESC, id DESC' : 'updated_at, id';
    const key = order === 'desc' ? 'started_at' : 'updated_at';
    const { rows } = await client.query<{ id: string; at: Date }>(`SELECT id, ${key} AS at FROM interactions ORDER BY ${orderBy} OFFSET $1 LIMIT 1`, [offset]);
    const secret = await client.query<{ value: string }>(`SELECT value FROM service_secrets WHERE name = 'cursor_hmac'`);
    const codec = new CursorCodec(Buffer.from(secret.rows[0]!.value, 'hex'));
    const list = { filters: {}, order, ...(updatedSince ? { updatedSince: new Date(updatedSince) } : {}) } as const;
    return codec.encode(list, { at: rows[0]!.at.getTime(), id: rows[0]!.id });
  } finally {
    await client.end();
  }
}
