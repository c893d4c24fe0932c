// The export scenarios of `npm run bench` (src/rest/exports): an export of ~1,000,000 interactions (the
// whole table at 100k and 1m, the last 73 days at 10m) as CSV and as NDJSON, and two metrics
// exports. Unlike the request scenarios they are measured by what they stream, not by requests per
// second: rows/s and MB/s of whole exports run one after another for `--duration` seconds (at
// least one), the CPU per 1,000,000 rows of the service and of PostgreSQL, and the service's peak
// resident memory (VmRSS sampled every 200 ms, as for the other scenarios, and VmHWM). The
// baseline has no exports. Before measuring, one export of each is read and parsed whole (every
// NDJSON line with JSON.parse, every CSV record by RFC 4180 with the header's width) and its rows
// counted against PostgreSQL's count, or, for metrics, compared with the JSON answer's.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import type pg from 'pg';
import { parseCsv } from './csv.js';
import type { DatasetMeta, Size } from './datasets.js';
import { type Server, sampleRss, treeCpu } from './processes.js';

export interface ExportScenario {
  name: string;
  path: string;
  accept: 'text/csv' | 'application/x-ndjson';
  /** Interactions: a long stream (rows/s); metrics: a small file (requests/s). */
  kind: 'interactions' | 'metrics';
  /** The JSON answer the metrics export must equal (row for row), and where its rows are. */
  json?: { path: string; rows: (body: { data: Record<string, unknown> }) => Array<Record<string, unknown>> };
  /** SQL counting the interactions the export must hold. */
  count?: string;
}

export interface ExportMeasurement {
  scenario: ExportScenario;
  /** What the verification read: rows and a problem, if any. */
  verified: { rows: number; problem?: string };
  exports: number;
  rows: number;
  bytes: number;
  seconds: number;
  /** First byte of the first measured export, ms. */
  firstByteMs: number;
  /** Metrics exports: p50 latency over the requests, ms. */
  p50Ms?: number;
  serverCpuS: number;
  databaseCpuS?: number;
  peakRssMb: number;
  /** VmHWM of the server process after the scenario (its peak since it started). */
  hwmMb: number;
  stolenCpu: number;
}

const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

export function exportScenariosFor(meta: DatasetMeta, size: Size): ExportScenario[] {
  // About 1,000,000 interactions: the whole table up to 1m, the last 73 of the 730 days at 10m.
  const window = size.rows > 1_000_000 ? `date_from=${addDays(meta.lastDay, -Math.round((730 * 1_000_000) / size.rows) + 1)}` : '';
  const countWhere = window ? `started_at >= '${window.slice('date_from='.length)}T00:00:00Z'` : 'TRUE';
  const interactions = (accept: ExportScenario['accept'], label: string): ExportScenario => ({
    name: `export interactions ${label}${window ? ', last 73 days' : ''}`,
    path: `/api/v1/interactions${window ? `?${window}` : ''}`,
    accept,
    kind: 'interactions',
    count: `SELECT count(*)::int AS n FROM interactions WHERE ${countWhere}`,
  });
  const year = `date_from=${addDays(meta.lastDay, -364)}&date_to=${meta.lastDay}`;
  return [
    interactions('text/csv', 'CSV'),
    interactions('application/x-ndjson', 'NDJSON'),
    {
      name: 'export metrics daily 1 year CSV',
      path: `/api/v1/metrics/daily?${year}`,
      accept: 'text/csv',
      kind: 'metrics',
      json: { path: `/api/v1/metrics/daily?${year}`, rows: (body) => body.data.daily as Array<Record<string, unknown>> },
    },
    {
      name: 'export metrics breakdown by campaign,outcome 1 year CSV',
      path: `/api/v1/metrics/breakdown?group_by=campaign,outcome&${year}`,
      accept: 'text/csv',
      kind: 'metrics',
      json: {
        path: `/api/v1/metrics/breakdown?group_by=campaign,outcome&${year}&limit=500`,
        rows: (body) => body.data.groups as Array<Record<string, unknown>>,
      },
    },
  ];
}

/**
 * `--scenarios`: every export without a filter; with filters, only those that say `export`
 * (`exports`, or a part of a name such as `export interactions`), so that a filter meant for the
 * request scenarios (`metrics`, `metrics daily 1 year`) never starts an export.
 */
export function selectedExport(filters: readonly string[], scenario: ExportScenario): boolean {
  return filters.length === 0 || filters.some((f) => f === 'exports' || (f.includes('export') && scenario.name.toLowerCase().includes(f)));
}

// ---------------------------------------------------------------------------------------------
// Reading an export

interface Read {
  status: number;
  bytes: number;
  newlines: number;
  firstByteMs: number;
  ms: number;
  body?: Buffer;
}

/** One export over HTTP, counting its bytes and line feeds (keeping the body, or handing each chunk to `onChunk`, when asked). */
function readExport(base: string, scenario: ExportScenario, key: string, keep: boolean, onChunk?: (chunk: Buffer) => void): Promise<Read> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.get(
      `${base}${scenario.path}`,
      { headers: { authorization: `Bearer ${key}`, accept: scenario.accept, 'accept-encoding': 'identity' }, agent: false },
      (response) => {
        const read: Read = { status: response.statusCode ?? 0, bytes: 0, newlines: 0, firstByteMs: 0, ms: 0 };
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => {
          if (read.bytes === 0) read.firstByteMs = performance.now() - started;
          read.bytes += chunk.length;
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) read.newlines++;
          if (keep) chunks.push(chunk);
          onChunk?.(chunk);
        });
        response.on('end', () => {
          read.ms = performance.now() - started;
          if (keep) read.body = Buffer.concat(chunks);
          resolve(read);
        });
        response.on('error', reject);
        response.on('aborted', () => reject(new Error(`${scenario.name}: the transfer broke off`)));
      },
    );
    request.on('error', reject);
  });
}

/**
 * Checks a stream of CSV as it arrives (RFC 4180: quoted fields, doubled quotes, CRLF after every
 * record) without keeping it: counts records and checks that each has the header's width.
 */
function csvChecker() {
  let inQuotes = false;
  let afterQuote = false;
  let pendingCr = false;
  let fields = 1;
  let width = 0;
  let records = 0;
  let problem: string | undefined;
  const fail = (why: string) => {
    problem ??= `record ${records + 1}: ${why}`;
  };
  return {
    write(text: string) {
      for (let i = 0; i < text.length && !problem; i++) {
        const c = text.charCodeAt(i);
        if (pendingCr) {
          pendingCr = false;
          if (c !== 10) fail('CR without LF');
          if (width === 0) width = fields;
          else if (fields !== width) fail(`${fields} fields, the header ${width}`);
          records++;
          fields = 1;
          continue;
        }
        if (inQuotes) {
          if (c === 34) {
            inQuotes = false;
            afterQuote = true;
          }
          continue;
        }
        if (c === 34) {
          // An opening quote (a field's first character), or the second of a doubled one.
          if (afterQuote) {
            inQuotes = true;
            afterQuote = false;
          } else inQuotes = true;
          continue;
        }
        afterQuote = false;
        if (c === 44) fields++;
        else if (c === 13) pendingCr = true;
        else if (c === 10) fail('LF without CR');
      }
    },
    end(): { rows: number; problem?: string } {
      if (inQuotes || pendingCr || fields !== 1) fail('the last record is not terminated by CRLF');
      return { rows: Math.max(0, records - 1), ...(problem ? { problem } : {}) };
    },
  };
}

/** Checks a stream of NDJSON as it arrives: every line parses as JSON (an object), and the last ends with LF. */
function ndjsonChecker() {
  let carry = '';
  let lines = 0;
  let problem: string | undefined;
  return {
    write(text: string) {
      if (problem) return;
      const all = carry + text;
      let from = 0;
      for (let end = all.indexOf('\n'); end !== -1; end = all.indexOf('\n', from)) {
        try {
          const value = JSON.parse(all.slice(from, end)) as unknown;
          if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
        } catch (error) {
          problem = `line ${lines + 1}: ${(error as Error).message}`;
          return;
        }
        lines++;
        from = end + 1;
      }
      carry = all.slice(from);
    },
    end(): { rows: number; problem?: string } {
      return { rows: lines, ...(problem ? { problem } : carry ? { problem: 'the last line has no LF' } : {}) };
    },
  };
}

/** Reads one export whole, parses it, and compares it with what it must hold; returns its rows and a problem, if any. */
async function verify(server: Server, scenario: ExportScenario, key: string, monitor: pg.Client): Promise<{ rows: number; problem?: string }> {
  if (scenario.kind === 'interactions') {
    const checker = scenario.accept === 'text/csv' ? csvChecker() : ndjsonChecker();
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let decodeProblem: string | undefined;
    const read = await readExport(server.base, scenario, key, false, (chunk) => {
      if (decodeProblem) return;
      try {
        checker.write(decoder.decode(chunk, { stream: true }));
      } catch (error) {
        decodeProblem = `not UTF-8: ${(error as Error).message}`;
      }
    });
    if (read.status !== 200) return { rows: 0, problem: `answered ${read.status}` };
    const checked = checker.end();
    if (decodeProblem || checked.problem) return { rows: checked.rows, problem: decodeProblem ?? checked.problem };
    const expected = (await monitor.query<{ n: number }>(scenario.count!)).rows[0]!.n;
    return { rows: checked.rows, ...(checked.rows === expected ? {} : { problem: `${checked.rows} rows, PostgreSQL counts ${expected}` }) };
  }
  const read = await readExport(server.base, scenario, key, true);
  const text = read.body!.toString('utf8');
  if (read.status !== 200) return { rows: 0, problem: `answered ${read.status}: ${text.slice(0, 300)}` };
  let rows: Array<Record<string, unknown>>;
  try {
    if (scenario.accept === 'application/x-ndjson') {
      rows = text
        .slice(0, -1)
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    } else {
      const [header, ...records] = parseCsv(text);
      if (!header) return { rows: 0, problem: 'no header' };
      const bad = records.findIndex((r) => r.length !== header.length);
      if (bad !== -1) return { rows: records.length, problem: `record ${bad + 2} has ${records[bad]!.length} fields, the header ${header.length}` };
      rows = records.map((r) => Object.fromEntries(header.map((name, i) => [name, r[i]])));
    }
  } catch (error) {
    return { rows: 0, problem: `does not parse: ${(error as Error).message}` };
  }
  const expected: Array<Record<string, unknown>> = [];
  // A paged answer (its path has a limit) is read page by page.
  const paged = scenario.json!.path.includes('limit=');
  for (let page = 1; ; page++) {
    const answer = await fetch(`${server.base}${scenario.json!.path}${paged ? `&page=${page}` : ''}`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await answer.json()) as { data: Record<string, unknown>; meta?: { has_more: boolean } };
    expected.push(...scenario.json!.rows(body));
    if (!body.meta?.has_more) break;
  }
  // CSV fields are text: compared as text (null as an empty field).
  const asText = (row: Record<string, unknown>) => Object.values(row).map((v) => (v === null ? '' : String(v)));
  const same = rows.length === expected.length && rows.every((row, i) => JSON.stringify(asText(row)) === JSON.stringify(asText(expected[i]!)));
  return { rows: rows.length, ...(same ? {} : { problem: `differs from the JSON answer (${rows.length} rows, JSON ${expected.length})` }) };
}

// ---------------------------------------------------------------------------------------------
// Measuring

const CLOCK_TICKS = 100;

/** utime + stime of a process tree in seconds (processes.ts treeCpu counts clock ticks). */
const treeCpuSeconds = (root: number, reaped: boolean) => treeCpu(root, reaped) / CLOCK_TICKS;

function steal(): number {
  return Number(fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/)[8] ?? 0);
}

const hwmMb = (pid: number) => {
  try {
    return Math.round(Number(/^VmHWM:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
};

export interface ExportOptions {
  scenarios: readonly ExportScenario[];
  keys: readonly string[];
  seconds: number;
  connections: number;
  postmaster?: number;
  monitor: pg.Client;
  log: (message: string) => void;
}

export async function measureExports(server: Server, options: ExportOptions): Promise<ExportMeasurement[]> {
  const out: ExportMeasurement[] = [];
  const pid = server.child.pid!;
  let k = 0;
  const key = () => options.keys[k++ % options.keys.length]!;
  for (const scenario of options.scenarios) {
    const verified = await verify(server, scenario, key(), options.monitor);
    const rss = sampleRss(pid);
    const server0 = treeCpuSeconds(pid, false);
    const database0 = options.postmaster === undefined ? undefined : treeCpuSeconds(options.postmaster, true);
    const steal0 = steal();
    const started = performance.now();
    const deadline = started + options.seconds * 1000;
    let exports = 0;
    let rows = 0;
    let bytes = 0;
    let firstByteMs = 0;
    const latencies: number[] = [];
    if (scenario.kind === 'interactions') {
      // Whole exports one after another (at least one), as long as the run lasts.
      do {
        const read = await readExport(server.base, scenario, key(), false);
        if (read.status !== 200) throw new Error(`${scenario.name}: answered ${read.status}`);
        if (exports === 0) firstByteMs = read.firstByteMs;
        exports++;
        rows += read.newlines - (scenario.accept === 'text/csv' ? 1 : 0);
        bytes += read.bytes;
      } while (performance.now() < deadline);
    } else {
      // Small files: `connections` clients, each one export after another.
      await Promise.all(
        Array.from({ length: options.connections }, async () => {
          while (performance.now() < deadline) {
            const read = await readExport(server.base, scenario, key(), false);
            if (read.status !== 200) throw new Error(`${scenario.name}: answered ${read.status}`);
            latencies.push(read.ms);
            exports++;
            rows += read.newlines - (scenario.accept === 'text/csv' ? 1 : 0);
            bytes += read.bytes;
          }
        }),
      );
      firstByteMs = Math.min(...latencies);
    }
    const seconds = (performance.now() - started) / 1000;
    const { peakMb } = rss.stop();
    latencies.sort((a, b) => a - b);
    const measurement: ExportMeasurement = {
      scenario,
      verified,
      exports,
      rows,
      bytes,
      seconds,
      firstByteMs,
      ...(latencies.length ? { p50Ms: latencies[Math.floor(latencies.length / 2)]! } : {}),
      serverCpuS: treeCpuSeconds(pid, false) - server0,
      ...(database0 === undefined ? {} : { databaseCpuS: treeCpuSeconds(options.postmaster!, true) - database0 }),
      peakRssMb: peakMb,
      hwmMb: hwmMb(pid),
      stolenCpu: Math.round((100 * (steal() - steal0)) / CLOCK_TICKS / seconds / os.cpus().length),
    };
    out.push(measurement);
    options.log(`  ${scenario.name.padEnd(56)} ${describe(measurement)}`);
  }
  return out;
}

const n0 = (n: number) => Math.round(n).toLocaleString('en-US');
const perMillion = (cpu: number | undefined, rows: number) => (cpu === undefined || rows === 0 ? '?' : (cpu / (rows / 1_000_000)).toFixed(1));
/** Interactions: CPU seconds per 1,000,000 rows; metrics (small files): CPU milliseconds per export. */
const cpuOf = (m: ExportMeasurement, cpu: number | undefined) =>
  m.scenario.kind === 'interactions' ? perMillion(cpu, m.rows) : cpu === undefined ? '?' : ((1000 * cpu) / m.exports).toFixed(1);

function describe(m: ExportMeasurement): string {
  return (
    `${n0(m.rows / m.seconds)} rows/s, ${(m.bytes / 1e6 / m.seconds).toFixed(1)} MB/s (${m.exports} export${m.exports === 1 ? '' : 's'}, ${n0(m.rows)} rows in ${m.seconds.toFixed(1)} s)` +
    `${m.p50Ms === undefined ? '' : `, p50 ${m.p50Ms.toFixed(1)} ms`} | CPU ${m.scenario.kind === 'interactions' ? 's per 1m rows' : 'ms per export'} server ${cpuOf(m, m.serverCpuS)} + PG ${cpuOf(m, m.databaseCpuS)}` +
    ` | RSS peak ${m.peakRssMb} MB (HWM ${m.hwmMb}) | ${m.verified.problem ? `NOT VERIFIED: ${m.verified.problem}` : `verified ${n0(m.verified.rows)} rows`}`
  );
}

/** The report's table of one size. */
export function exportTable(measurements: readonly ExportMeasurement[]): string {
  return [
    '| Export | verified (parsed whole) | exports in the run | rows/s | MB/s | first byte ms (metrics: fastest) | p50 ms | CPU server + PG: s per 1,000,000 rows (metrics: ms per export) | peak RSS MB (HWM) | stolen CPU % |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...measurements.map(
      (m) =>
        `| ${m.scenario.name} | ${m.verified.problem ? `**no**: ${m.verified.problem}` : `yes, ${n0(m.verified.rows)} rows`} | ${m.exports} | ${n0(m.rows / m.seconds)} | ${(m.bytes / 1e6 / m.seconds).toFixed(1)} | ${m.firstByteMs.toFixed(0)} | ${m.p50Ms === undefined ? '-' : m.p50Ms.toFixed(1)} | ${cpuOf(m, m.serverCpuS)} + ${cpuOf(m, m.databaseCpuS)} | ${m.peakRssMb} (${m.hwmMb}) | ${m.stolenCpu} |`,
    ),
  ].join('\n');
}

/** The issue's targets: an export of ~1,000,000 interactions at 50,000 rows/s or more with the service under 250 MB. */
export function exportVerdicts(reports: ReadonlyArray<{ label: string; rows: number; exports?: readonly ExportMeasurement[] }>) {
  const out: Array<{ target: string; status: 'met' | 'missed' | 'not measured'; detail: string }> = [];
  const big = reports.filter((r) => r.rows >= 1_000_000);
  for (const format of ['CSV', 'NDJSON']) {
    const runs = big.flatMap((r) =>
      (r.exports ?? []).filter((m) => m.scenario.kind === 'interactions' && m.scenario.name.includes(format)).map((m) => ({ r, m })),
    );
    if (!runs.length) {
      // (no verdict for a run that left the interaction exports out)
      const ran = reports.some((r) => (r.exports ?? []).some((m) => m.scenario.kind === 'interactions' && m.scenario.name.includes(format)));
      if (ran)
        out.push({
          target: `export of ~1,000,000 interactions as ${format}: >= 50,000 rows/s, service RSS < 250 MB`,
          status: 'not measured',
          detail: 'no size of 1m or more run',
        });
      continue;
    }
    for (const { r, m } of runs) {
      const rate = m.rows / m.seconds;
      const met = rate >= 50_000 && m.peakRssMb < 250 && !m.verified.problem;
      out.push({
        target: `export of ~1,000,000 interactions as ${format} at ${r.label}: >= 50,000 rows/s, service RSS < 250 MB, parses whole`,
        status: met ? 'met' : 'missed',
        detail: `${n0(rate)} rows/s, peak RSS ${m.peakRssMb} MB${m.verified.problem ? `, not verified: ${m.verified.problem}` : `, ${n0(m.verified.rows)} rows parsed`}`,
      });
    }
  }
  return out;
}
