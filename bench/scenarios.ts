// The bench scenarios: one request each, sent over and over at a fixed concurrency, and the check
// that the service and the baseline answer them identically before anything is measured.
import { GRAPHQL_DOCUMENT } from './baseline/handlers.js';
import { CLINIC_IDS, type DatasetMeta } from './datasets.js';

export type Group = 'interactions' | 'metrics' | 'graphql';

export interface Scenario {
  name: string;
  group: Group;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** Scenarios the targets speak of. */
  target?: 'first-page' | 'search' | 'common-search' | 'deep-page' | 'metrics';
  /** The scenario is about an empty answer (otherwise one means the dataset does not exercise it). */
  empty?: true;
}

const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

export function scenariosFor(meta: DatasetMeta): Scenario[] {
  const year = `date_from=${addDays(meta.lastDay, -364)}&date_to=${meta.lastDay}`;
  const get = (name: string, group: Group, path: string, target?: Scenario['target']): Scenario => ({ name, group, method: 'GET', path, target });
  const metrics = (['summary', 'daily', 'outcomes'] as const).flatMap((m) => [
    get(`metrics ${m} 30 days`, 'metrics', `/api/v1/metrics/${m}`, 'metrics'),
    get(`metrics ${m} 1 year`, 'metrics', `/api/v1/metrics/${m}?${year}`, 'metrics'),
  ]);
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
    ...metrics,
    {
      name: 'GraphQL interactions(limit: 50) + relations',
      group: 'graphql',
      method: 'POST',
      path: '/graphql',
      body: JSON.stringify({ query: GRAPHQL_DOCUMENT }),
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
    headers: { authorization: `Bearer ${key}`, ...(scenario.body ? { 'content-type': 'application/json' } : {}) },
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
  if (ours.status !== 200) problems.push(`service answered ${ours.status}: ${JSON.stringify(ours.body).slice(0, 300)}`);
  else if (scenario.group === 'graphql' ? body?.errors !== undefined : body?.success !== true)
    problems.push(`service answered ${JSON.stringify(ours.body).slice(0, 300)}`);
  else {
    const data = body.data as Record<string, unknown> | undefined;
    const empty =
      (scenario.name.startsWith('interactions') && !(data?.interactions as unknown[] | undefined)?.length) ||
      (scenario.name.startsWith('metrics summary') && !(data as { total_interactions?: number } | undefined)?.total_interactions);
    if (empty && !scenario.empty) problems.push('service answered an empty result: the dataset does not exercise this scenario');
    if (!empty && scenario.empty) problems.push('service answered a non-empty result where none was expected');
  }
  if (baseline) {
    const difference = firstDifference(comparable(scenario, ours), comparable(scenario, baseline));
    if (difference) problems.push(`service and baseline differ at ${difference}`);
  }
  return problems;
}
