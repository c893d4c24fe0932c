// The PostGraphile peer comparison (`--scenarios peer`; bench/README.md, "PostGraphile peer"): six
// documents asked of the service's GraphQL, of its REST (where it has the request), of the Yoga floor
// (bench/peer/yoga-floor.ts: graphql-yoga and one pg statement per root field, the service's GraphQL
// documents) and of PostGraphile 4 serving the same database (bench/peer/postgraphile.ts), checked
// equal, then measured one after another in the same run. run.ts starts the servers and passes its
// measure().
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../src/config.js';
import { CLINIC_IDS, type DatasetMeta } from './datasets.js';
import { type Server, startServer } from './processes.js';
import type { Measurement } from './run.js';
import { firstDifference, request, type Scenario } from './scenarios.js';

/** `--scenarios peer`, or no --scenarios at all. */
export const peerSelected = (scenarios: readonly string[]) => scenarios.length === 0 || scenarios.includes('peer');

const DEPS = path.join(projectRoot, 'bench', 'peer', 'deps');

/**
 * Installs PostGraphile (bench/peer/deps, a project of its own: its package.json says why) from its
 * lockfile when it is missing or older than the lockfile.
 */
export function installPeerDeps(log: (message: string) => void): void {
  const installed = path.join(DEPS, 'node_modules', '.package-lock.json');
  if (fs.existsSync(installed) && fs.statSync(installed).mtimeMs >= fs.statSync(path.join(DEPS, 'package-lock.json')).mtimeMs) return;
  log('Installing PostGraphile for the peer (npm ci --prefix bench/peer/deps)');
  const result = spawnSync('npm', ['ci', '--prefix', DEPS, '--no-audit', '--no-fund'], { cwd: projectRoot, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm ci --prefix bench/peer/deps failed:\n${result.stdout}${result.stderr}`);
}

export const startPeer = (databaseUrl: string): Promise<Server> => startServer('postgraphile', 'bench/peer/postgraphile.ts', databaseUrl);

/** The Yoga floor: the project's graphql-yoga and pg, nothing of the service's own code. */
export const startFloor = (databaseUrl: string): Promise<Server> => startServer('yoga floor', 'bench/peer/yoga-floor.ts', databaseUrl);

/** The servers of the comparison. */
export interface PeerServers {
  ours: Server;
  floor: Server;
  peer: Server;
}

// ---------------------------------------------------------------------------------------------
// Documents

export type PeerServerName = 'ours GraphQL' | 'ours REST' | 'Yoga floor' | 'PostGraphile';
const SERVERS: readonly PeerServerName[] = ['ours GraphQL', 'ours REST', 'Yoga floor', 'PostGraphile'];

/**
 * What an answer says, in one plain form for every server. `records+total`: the REST list's page,
 * every field of its items (transcript included) and the total.
 */
type Kind = 'rows' | 'rows+total' | 'records+total' | 'count' | 'outcomes';

export interface PeerDocument {
  name: string;
  kind: Kind;
  /**
   * Judged against PostGraphile: parity (req/s and CPU per request), the aggregate's 10x, or none
   * (compared and measured, no target of its own).
   */
  target: 'parity' | 'aggregate' | 'none';
  /** The Yoga floor's request is the service's GraphQL one, for the documents whose fields its schema has. */
  requests: Record<'ours GraphQL' | 'PostGraphile', Scenario> & { 'ours REST'?: Scenario; 'Yoga floor'?: Scenario };
}

const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

export function peerDocuments(meta: DatasetMeta): PeerDocument[] {
  // Explicit UTC days, not "now": the dataset's last 30 and 365 days (meta.lastDay included).
  const end = addDays(meta.lastDay, 1);
  const days = (n: number) => ({ from: addDays(meta.lastDay, 1 - n), to: meta.lastDay });
  const month = days(30);
  const year = days(365);
  const window = (w: { from: string }) => `startedAt: { greaterThanOrEqualTo: "${w.from}T00:00:00Z", lessThan: "${end}T00:00:00Z" }`;
  const ours = 'id startedAt channel type outcome durationSeconds clinic { name } campaign { name }';
  const theirs = 'id startedAt channel type outcome durationSeconds clinicByClinicId { name } campaignByCampaignIdAndClinicId { name }';
  const newest = 'first: 50, orderBy: [STARTED_AT_DESC, ID_DESC]';
  // Every field of a REST list item (schema/rest/interactions.graphql, RestInteractionFields and the transcript).
  const fields = 'id channel type direction phoneNumber clinicId startedAt endedAt durationSeconds outcome summary recordingUrl';
  const record = { ours: `${fields} transcript { role content }`, theirs: `${fields} interactionTranscriptByInteractionId { entries }` };
  const clinic = CLINIC_IDS[0]!;
  const graphql = (name: string, query: string): Scenario => ({ name, group: 'graphql', method: 'POST', path: '/graphql', body: JSON.stringify({ query }) });
  const rest = (name: string, group: 'interactions' | 'metrics', path: string): Scenario => ({ name, group, method: 'GET', path });
  const doc = (name: string, kind: Kind, target: PeerDocument['target'], q: { ours: string; rest?: string; theirs: string; floor?: false }): PeerDocument => {
    const operation = name.replace(/(^|\W+)(\w)/g, (_, _s: string, c: string) => c.toUpperCase());
    return {
      name,
      kind,
      target,
      requests: {
        'ours GraphQL': graphql(`peer ${name}: ours GraphQL`, `query ${operation} { ${q.ours} }`),
        ...(q.rest ? { 'ours REST': rest(`peer ${name}: ours REST`, q.rest.includes('/metrics/') ? 'metrics' : 'interactions', q.rest) } : {}),
        ...(q.floor === false ? {} : { 'Yoga floor': graphql(`peer ${name}: Yoga floor`, `query ${operation} { ${q.ours} }`) }),
        PostGraphile: graphql(`peer ${name}: PostGraphile`, `query ${operation} { ${q.theirs} }`),
      },
    };
  };
  return [
    doc('page', 'rows', 'parity', {
      ours: `interactions(limit: 50) { nodes { ${ours} } }`,
      rest: '/api/v1/interactions?limit=50',
      theirs: `allInteractions(${newest}) { nodes { ${theirs} } }`,
    }),
    // REST counts its total always: the same request as the page's.
    doc('page + total', 'rows+total', 'parity', {
      ours: `interactions(limit: 50) { nodes { ${ours} } pageInfo { total } }`,
      rest: '/api/v1/interactions?limit=50',
      theirs: `allInteractions(${newest}) { totalCount nodes { ${theirs} } }`,
    }),
    doc('one clinic and channel', 'rows', 'parity', {
      ours: `interactions(limit: 50, clinicId: "${clinic}", channel: VOICE) { nodes { ${ours} } }`,
      rest: `/api/v1/interactions?limit=50&clinic_id=${clinic}&channel=voice`,
      theirs: `allInteractions(${newest}, condition: { clinicId: "${clinic}", channel: VOICE }) { nodes { ${theirs} } }`,
    }),
    doc('count of the last 30 days', 'count', 'parity', {
      ours: `metricsSummary(dateFrom: "${month.from}", dateTo: "${month.to}") { totalInteractions }`,
      rest: `/api/v1/metrics/summary?date_from=${month.from}&date_to=${month.to}`,
      theirs: `allInteractions(filter: { ${window(month)} }) { totalCount }`,
    }),
    // pg-aggregates 0.1 declares `keys` as [String!]: a group of a null outcome fails the whole answer
    // ("Cannot return null for non-nullable field"), so the interactions without an outcome are left
    // out, as the service's breakdown leaves them out. 0.1 has no count per group: distinctCount of
    // the primary key is one (count(distinct id) in its SQL).
    doc('by outcome over a year', 'outcomes', 'aggregate', {
      ours: `metricsOutcomes(dateFrom: "${year.from}", dateTo: "${year.to}") { outcomes { outcome count } }`,
      rest: `/api/v1/metrics/outcomes?date_from=${year.from}&date_to=${year.to}`,
      theirs: `allInteractions(filter: { ${window(year)}, outcome: { isNull: false } }) { groupedAggregates(groupBy: OUTCOME) { keys distinctCount { id } } }`,
    }),
    // The REST page's whole content (every field of its items, each one's transcript, the total)
    // asked of PostGraphile; the service's GraphQL asks it as REST does (schema/rest/interactions.graphql).
    // REST's request is the page's (measured once). The Yoga floor's schema has none of these fields.
    doc('page as REST answers it', 'records+total', 'none', {
      ours: `interactions(limit: 50) { nodes { ${record.ours} } pageInfo { total } }`,
      rest: '/api/v1/interactions?limit=50',
      theirs: `allInteractions(${newest}) { totalCount nodes { ${record.theirs} } }`,
      floor: false,
    }),
  ];
}

// ---------------------------------------------------------------------------------------------
// Answers, in one plain form

interface Row {
  id: string;
  startedAt: number;
  channel: string;
  type: string;
  outcome: string | null;
  durationSeconds: number | null;
  /** The clinic's and campaign's names; REST has neither (its rows are compared without them). */
  clinic?: string | null;
  campaign?: string | null;
  /** The rest of a REST list item (`records+total` only). */
  record?: RecordFields;
}

interface RecordFields {
  direction: string;
  phoneNumber: string | null;
  clinicId: string | null;
  endedAt: number | null;
  summary: string | null;
  recordingUrl: string | null;
  /**
   * The transcript's entries, null when the interaction has none. REST's lists carry a WhatsApp
   * conversation's (an empty list when it has none) and no call's: absent from its calls.
   */
  transcript?: Array<{ role: string | null; content: string | null }> | null;
}

interface Value {
  rows?: Row[];
  total?: number;
  count?: number;
  /** Interactions per outcome, by outcome name; no null outcome, no zero count. */
  outcomes?: Record<string, number>;
}

/** The value at `keys` in a JSON answer; throws, naming the path, when a step is missing. */
function at(value: unknown, ...keys: Array<string | number>): unknown {
  let current = value;
  for (const [i, key] of keys.entries()) {
    if (current === null || typeof current !== 'object' || !(key in current)) throw new Error(`no ${keys.slice(0, i + 1).join('.')} in the answer`);
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

function list(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${what} is not a list`);
  return value;
}

const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
const number = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
/** A related row's name: `{ name }` or null. */
const nameOf = (value: unknown): string | null => (value === null || value === undefined ? null : text(at(value, 'name')));

/** An instant in epoch milliseconds (REST and the service spell it with `Z`, PostGraphile with `+00:00`). */
const instant = (value: unknown): number | null => (value === null || value === undefined ? null : Date.parse(String(value)));

/**
 * A transcript's entries as role and content: the service's GraphQL `transcript` (null without one),
 * PostGraphile's `interactionTranscriptByInteractionId` (null without one) `{ entries }`, the
 * table's jsonb as it is; REST's `transcript` (see RecordFields).
 */
function transcript(server: PeerServerName, node: Record<string, unknown>): RecordFields['transcript'] {
  const value = server === 'PostGraphile' ? node.interactionTranscriptByInteractionId : node.transcript;
  if (value === null || value === undefined) return null;
  const entries = server === 'PostGraphile' ? at(value, 'entries') : value;
  return list(entries, 'the transcript').map((entry) => ({ role: text(at(entry, 'role')), content: text(at(entry, 'content')) }));
}

/**
 * The rows of a page; REST spells fields in snake_case, omits null ones and has no names. With
 * `records`, every field of a REST list item too.
 */
function rows(server: PeerServerName, nodes: unknown, records = false): Row[] {
  return list(nodes, 'the rows').map((node) => {
    const field = (camel: string, snake: string) => (node as Record<string, unknown>)[server === 'ours REST' ? snake : camel];
    const row: Row = {
      id: String(at(node, 'id')),
      startedAt: Date.parse(String(field('startedAt', 'started_at'))),
      // The service's GraphQL and PostGraphile spell enum values VOICE, REST voice.
      channel: String(at(node, 'channel')).toLowerCase(),
      type: String(at(node, 'type')),
      outcome: text(field('outcome', 'outcome')),
      durationSeconds: number(field('durationSeconds', 'duration_seconds')),
    };
    if (records) {
      // Enum values: REST spells direction in lower case, the service's GraphQL and PostGraphile in upper.
      row.record = {
        direction: String(at(node, 'direction')).toLowerCase(),
        phoneNumber: text(field('phoneNumber', 'phone_number')),
        clinicId: text(field('clinicId', 'clinic_id')),
        endedAt: instant(field('endedAt', 'ended_at')),
        summary: text(field('summary', 'summary')),
        recordingUrl: text(field('recordingUrl', 'recording_url')),
      };
      if (server !== 'ours REST' || 'transcript' in (node as object)) row.record.transcript = transcript(server, node as Record<string, unknown>);
      // The REST page's content has no names: the other servers' answers are not asked them.
      return row;
    }
    if (server === 'ours GraphQL') return { ...row, clinic: nameOf(at(node, 'clinic')), campaign: nameOf(at(node, 'campaign')) };
    if (server === 'PostGraphile')
      return { ...row, clinic: nameOf(at(node, 'clinicByClinicId')), campaign: nameOf(at(node, 'campaignByCampaignIdAndClinicId')) };
    return row;
  });
}

/** Outcome -> count, sorted by outcome, without the null outcome (the service counts those apart) or empty groups. */
function outcomes(pairs: Array<[string | null, number]>): Record<string, number> {
  return Object.fromEntries(pairs.filter(([outcome, count]) => outcome !== null && count > 0).sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0)));
}

/** The Yoga floor answers as the service's GraphQL does (its schema spells the same fields alike). */
function plainValue(document: PeerDocument, asked: PeerServerName, body: unknown): Value {
  const { kind } = document;
  const server = asked === 'Yoga floor' ? 'ours GraphQL' : asked;
  const records = kind === 'records+total';
  if (server === 'ours REST') {
    if (kind === 'rows') return { rows: rows(server, at(body, 'data', 'interactions')) };
    if (kind === 'rows+total' || records) return { rows: rows(server, at(body, 'data', 'interactions'), records), total: Number(at(body, 'meta', 'total')) };
    if (kind === 'count') return { count: Number(at(body, 'data', 'total_interactions')) };
    return { outcomes: outcomes(list(at(body, 'data', 'outcomes'), 'outcomes').map((o) => [text(at(o, 'outcome')), Number(at(o, 'count'))])) };
  }
  if (server === 'ours GraphQL') {
    if (kind === 'rows') return { rows: rows(server, at(body, 'data', 'interactions', 'nodes')) };
    if (kind === 'rows+total' || records)
      return {
        rows: rows(server, at(body, 'data', 'interactions', 'nodes'), records),
        total: Number(at(body, 'data', 'interactions', 'pageInfo', 'total')),
      };
    if (kind === 'count') return { count: Number(at(body, 'data', 'metricsSummary', 'totalInteractions')) };
    return {
      outcomes: outcomes(list(at(body, 'data', 'metricsOutcomes', 'outcomes'), 'outcomes').map((o) => [text(at(o, 'outcome')), Number(at(o, 'count'))])),
    };
  }
  const connection = at(body, 'data', 'allInteractions');
  if (kind === 'rows') return { rows: rows(server, at(connection, 'nodes')) };
  if (kind === 'rows+total' || records) return { rows: rows(server, at(connection, 'nodes'), records), total: Number(at(connection, 'totalCount')) };
  if (kind === 'count') return { count: Number(at(connection, 'totalCount')) };
  // distinctCount is a BigInt: a string in JSON.
  return {
    outcomes: outcomes(list(at(connection, 'groupedAggregates'), 'groups').map((g) => [text(at(g, 'keys', 0)), Number(at(g, 'distinctCount', 'id'))])),
  };
}

/**
 * The reference as REST says it: rows without the clinic's and campaign's names, and (the REST
 * page's content) transcripts as its lists carry them: a WhatsApp conversation's, an empty list when
 * it has none, and none for calls.
 */
const asRest = (value: Value): Value =>
  value.rows
    ? {
        ...value,
        rows: value.rows.map(({ clinic: _c, campaign: _p, ...row }) => {
          if (!row.record) return row;
          const { transcript: entries, ...record } = row.record;
          return { ...row, record: row.channel === 'voice' ? record : { ...record, transcript: entries ?? [] } };
        }),
      }
    : value;

const serverOf = (name: PeerServerName, servers: PeerServers) =>
  name === 'PostGraphile' ? servers.peer : name === 'Yoga floor' ? servers.floor : servers.ours;

/**
 * Asks every document of each server once; returns the problems: an answer that is not a success,
 * that says nothing (50 rows, a count, some outcomes are expected), or the first difference between
 * the service's answer (GraphQL and REST) and PostGraphile's, or between the Yoga floor's and the
 * service's GraphQL one.
 */
export async function checkPeer(documents: readonly PeerDocument[], servers: PeerServers, key: string): Promise<string[]> {
  const problems: string[] = [];
  for (const document of documents) {
    const values = new Map<PeerServerName, Value>();
    for (const name of SERVERS) {
      const scenario = document.requests[name];
      if (!scenario) continue;
      const answer = await request(serverOf(name, servers).base, scenario, key);
      const body = answer.body as Record<string, unknown> | undefined;
      const failed = answer.status !== 200 || (scenario.group === 'graphql' ? body?.errors !== undefined : body?.success !== true);
      if (failed) {
        problems.push(`${scenario.name}: answered ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
        continue;
      }
      try {
        values.set(name, plainValue(document, name, answer.body));
      } catch (error) {
        problems.push(`${scenario.name}: ${error instanceof Error ? error.message : String(error)}: ${JSON.stringify(answer.body).slice(0, 300)}`);
      }
    }
    const reference = values.get('PostGraphile');
    if (!reference) continue;
    const empty = reference.rows
      ? reference.rows.length < 50
      : reference.count !== undefined
        ? reference.count === 0
        : !Object.keys(reference.outcomes ?? {}).length;
    if (empty) problems.push(`peer ${document.name}: PostGraphile answered too little to measure (${JSON.stringify(reference).slice(0, 200)})`);
    for (const name of ['ours GraphQL', 'ours REST'] as const) {
      const value = values.get(name);
      if (!value) continue;
      const difference = firstDifference(value, name === 'ours REST' ? asRest(reference) : reference);
      if (difference) problems.push(`peer ${document.name}: ${name} and PostGraphile differ at ${difference}`);
    }
    // The floor against the service's GraphQL (equal to PostGraphile's, checked above), or against
    // PostGraphile's when the service's failed.
    const floor = values.get('Yoga floor');
    if (floor) {
      const versus = values.has('ours GraphQL') ? 'ours GraphQL' : 'PostGraphile';
      const difference = firstDifference(floor, values.get(versus));
      if (difference) problems.push(`peer ${document.name}: Yoga floor and ${versus} differ at ${difference}`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Measuring

export interface PeerRow {
  document: string;
  server: PeerServerName;
  figures: Measurement;
  /** REST's page + total is the page's request (REST always counts): its figures, measured once. */
  sameRequestAs?: string;
}

export interface PeerMeasurement {
  /** Each document's requests as sent (GraphQL bodies and REST paths), for the record. */
  documents: Array<{ name: string; target: PeerDocument['target']; requests: Partial<Record<PeerServerName, string>> }>;
  rows: PeerRow[];
}

export interface PeerMeasuring {
  /** run.ts's measure(): warm-up, then the measured run. */
  measure: (server: Server, scenario: Scenario) => Promise<Measurement>;
  /** Unmeasured load for the warm-up time. */
  warm: (server: Server, scenario: Scenario) => Promise<void>;
  log: (message: string) => void;
}

export async function measurePeer(documents: readonly PeerDocument[], servers: PeerServers, { measure, warm, log }: PeerMeasuring): Promise<PeerMeasurement> {
  // Every request warmed up once before the first is measured: with `--scenarios peer` alone the
  // service is fresh, and its first runs served up to a third fewer requests/s than the same request
  // a minute later (the page below the page with its total, which asks more), despite the warm-up
  // before each run.
  for (const document of documents) {
    for (const name of SERVERS) {
      const scenario = document.requests[name];
      if (scenario) await warm(serverOf(name, servers), scenario);
    }
  }
  const out: PeerMeasurement = { documents: [], rows: [] };
  const measured = new Map<string, { document: string; figures: Measurement }>();
  for (const document of documents) {
    const requests: Partial<Record<PeerServerName, string>> = {};
    for (const name of SERVERS) {
      const scenario = document.requests[name];
      if (!scenario) continue;
      requests[name] = scenario.body ? (JSON.parse(scenario.body) as { query: string }).query : scenario.path;
      const same = name === 'ours REST' ? measured.get(scenario.path) : undefined;
      if (same) {
        out.rows.push({ document: document.name, server: name, figures: same.figures, sameRequestAs: same.document });
        continue;
      }
      const figures = await measure(serverOf(name, servers), scenario);
      if (name === 'ours REST') measured.set(scenario.path, { document: document.name, figures });
      out.rows.push({ document: document.name, server: name, figures });
      log(
        `  ${scenario.name.padEnd(52)} ${f1(figures.rps).padStart(7)} req/s p50 ${f1(figures.p50).padStart(6)} ms p99 ${f1(figures.p99).padStart(6)} ms` +
          ` | CPU ms/req ${figures.serverCpuMs?.toFixed(2) ?? '?'}+${figures.databaseCpuMs?.toFixed(2) ?? '?'} | RSS ${figures.peakRssMb} MB` +
          (failures(figures) ? ` | FAILED ${failures(figures)}` : ''),
      );
    }
    out.documents.push({ name: document.name, target: document.target, requests });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Report

const f1 = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const failures = (m: Measurement) => m.non2xx + m.mismatches + m.errors;
const times = (a: number | undefined, b: number | undefined) => (a !== undefined && b ? `${(a / b).toFixed(2)}x` : '-');

export function peerTable(measurement: PeerMeasurement): string {
  const lines = [
    '| Document | Server | req/s | p50 ms | p99 ms | server CPU ms/request | PostgreSQL CPU ms/request | req/s vs PostGraphile | CPU vs PostGraphile | peak RSS MB | non-2xx or failed | stolen CPU % |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const row of measurement.rows) {
    const m = row.figures;
    const theirs = measurement.rows.find((r) => r.document === row.document && r.server === 'PostGraphile')?.figures;
    const versus = row.server !== 'PostGraphile' && theirs;
    lines.push(
      `| ${[
        row.document,
        row.sameRequestAs ? `${row.server} (the ${row.sameRequestAs} request)` : row.server,
        m.requests < 20 ? `${f1(m.rps)} (n=${m.requests})` : f1(m.rps),
        f1(m.p50),
        f1(m.p99),
        m.serverCpuMs?.toFixed(2) ?? '?',
        m.databaseCpuMs?.toFixed(2) ?? '?',
        versus ? times(m.rps, theirs.rps) : '-',
        versus ? times(m.serverCpuMs, theirs.serverCpuMs) : '-',
        m.peakRssMb,
        failures(m),
        m.stolenCpu,
      ].join(' | ')} |`,
    );
  }
  const peak = (servers: PeerServerName[]) => Math.max(0, ...measurement.rows.filter((r) => servers.includes(r.server)).map((r) => r.figures.peakRssMb));
  lines.push(
    '',
    `Peak RSS: the service ${peak(['ours GraphQL', 'ours REST'])} MB, the Yoga floor ${peak(['Yoga floor'])} MB, PostGraphile ${peak(['PostGraphile'])} MB.`,
  );
  const cancelled = measurement.rows.filter((r) => r.figures.cancelled && !r.sameRequestAs);
  if (cancelled.length) lines.push('', `Cancelled after the run: ${cancelled.map((r) => `${r.document}, ${r.server}: ${r.figures.cancelled}`).join('; ')}.`);
  return lines.join('\n');
}

/** The service's runs in the comparison, for the RSS target (run.ts). */
export const peerServiceRuns = (measurement: PeerMeasurement | undefined): Measurement[] =>
  measurement?.rows.filter((r) => (r.server === 'ours GraphQL' || r.server === 'ours REST') && !r.sameRequestAs).map((r) => r.figures) ?? [];

interface Verdict {
  target: string;
  status: 'met' | 'missed' | 'not measured';
  detail: string;
}

/**
 * Per size: documents 1-4, the service's GraphQL at >= 1.0x PostGraphile's req/s and <= 1.2x its
 * server CPU per request; the aggregate at >= 10x its req/s; the REST page at >= 1.0x PostGraphile's
 * req/s on the page. No verdict for the REST page's content (target none) nor for the Yoga floor.
 */
export function peerVerdicts(reports: ReadonlyArray<{ label: string; peer?: PeerMeasurement }>): Verdict[] {
  const out: Verdict[] = [];
  for (const { label, peer } of reports) {
    if (!peer) continue;
    const find = (document: string, server: PeerServerName) => peer.rows.find((r) => r.document === document && r.server === server)?.figures;
    for (const document of peer.documents) {
      const ours = find(document.name, 'ours GraphQL');
      const theirs = find(document.name, 'PostGraphile');
      if (!ours || !theirs || document.target === 'none') continue;
      const rps = ours.rps / theirs.rps;
      if (document.target === 'aggregate') {
        out.push({
          target: `PostGraphile peer, ${document.name} at ${label}: ours GraphQL >= 10x PostGraphile's req/s`,
          status: rps >= 10 ? 'met' : 'missed',
          detail: `${rps.toFixed(2)}x (${f1(ours.rps)} vs ${f1(theirs.rps)} req/s)`,
        });
        continue;
      }
      const cpu = ours.serverCpuMs !== undefined && theirs.serverCpuMs ? ours.serverCpuMs / theirs.serverCpuMs : undefined;
      out.push({
        target: `PostGraphile peer, ${document.name} at ${label}: ours GraphQL >= 1.0x PostGraphile's req/s and server CPU/request <= 1.2x`,
        status: cpu === undefined ? 'not measured' : rps >= 1 && cpu <= 1.2 ? 'met' : 'missed',
        detail: `${rps.toFixed(2)}x req/s (${f1(ours.rps)} vs ${f1(theirs.rps)}), ${cpu === undefined ? '?' : cpu.toFixed(2)}x CPU/request (${ours.serverCpuMs?.toFixed(2) ?? '?'} vs ${theirs.serverCpuMs?.toFixed(2) ?? '?'} ms)`,
      });
    }
    const page = peer.documents[0]!.name;
    const rest = find(page, 'ours REST');
    const theirs = find(page, 'PostGraphile');
    if (rest && theirs) {
      const rps = rest.rps / theirs.rps;
      out.push({
        target: `PostGraphile peer, ${page} at ${label}: ours REST >= 1.0x PostGraphile's req/s`,
        status: rps >= 1 ? 'met' : 'missed',
        detail: `${rps.toFixed(2)}x (${f1(rest.rps)} vs ${f1(theirs.rps)} req/s)`,
      });
    }
  }
  return out;
}
