// `npm run bench [-- options]`: builds (or reuses) the datasets, starts the service and the baseline
// (bench/baseline) as child processes, checks that both answer every scenario identically, then
// measures each scenario on both with autocannon over loopback and writes a markdown report to
// bench/results/<date>-<sizes>.md. See bench/README.md.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { projectRoot } from '../src/config.js';
import { listMigrations } from '../src/db/migrate.js';
import { SCOPES } from '../src/domain/values.js';
import { createBenchKeys, type Dataset, describeDataset, ensureDataset, openCluster, parseSize, type Size, serverVersion } from './datasets.js';
import { type ExportMeasurement, exportScenariosFor, exportTable, exportVerdicts, measureExports, selectedExport } from './exports.js';
import { type IsolationMeasurement, isolationTable, isolationVerdicts, measureIsolation } from './isolation.js';
import {
  checkPeer,
  installPeerDeps,
  measurePeer,
  type PeerMeasurement,
  peerDocuments,
  peerSelected,
  peerServiceRuns,
  peerTable,
  peerVerdicts,
  startFloor,
  startPeer,
} from './peer.js';
import { compile, type Server, sampleRss, startServer, startSettings, stopServer, treeCpu, workerPids } from './processes.js';
import { summarizeProfile } from './profile.js';
import { RESULTS_DIR, updateResultsIndex } from './results-index.js';
import { checkAnswers, request, type Scenario, scenariosFor } from './scenarios.js';

// ---------------------------------------------------------------------------------------------
// Options

interface Options {
  sizes: Size[];
  duration: number;
  warmup: number;
  connections: number;
  keys: number;
  scenarios: string[];
  rebuild: boolean;
  buildOnly: boolean;
  profile: boolean;
  out?: string;
}

const HELP = `npm run bench -- [options]
  --sizes LIST        dataset sizes, e.g. 100k,1m,10m (default 100k,1m)
  --duration S        seconds measured per scenario and server (default 10)
  --warmup S          seconds of unmeasured load before each measurement (default 2)
  --connections N     concurrent connections (default 10)
  --keys N            unlimited-tier API keys used in turn (default 200; see bench/README.md)
  --scenarios LIST    groups (interactions, metrics, graphql, exports, isolation, peer) or parts of scenario names (default all)
  --rebuild           rebuild the datasets even when they can be reused
  --build-only        build (or check) the datasets, measure nothing
  --profile           instead of comparing: CPU-profile the service per scenario (slower under the profiler)
  --out FILE          report path (default bench/results/<date>-<sizes>[-<scenarios>].md)
Environment: BENCH_DATABASE_URL (default: embedded PostgreSQL in .data/bench), WORKERS (passed to both servers).`;

function parseOptions(argv: string[]): Options {
  const options: Options = {
    sizes: ['100k', '1m'].map(parseSize),
    duration: 10,
    warmup: 2,
    connections: 10,
    keys: 200,
    scenarios: [],
    rebuild: false,
    buildOnly: false,
    profile: false,
  };
  const number = (name: string, value: string | undefined, min: number, max: number) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < min || n > max) throw new Error(`${name} must be a number from ${min} to ${max}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--sizes') options.sizes = value().split(',').map(parseSize);
    else if (arg === '--duration') options.duration = number(arg, value(), 1, 600);
    else if (arg === '--warmup') options.warmup = number(arg, value(), 0, 120);
    else if (arg === '--connections') options.connections = Math.round(number(arg, value(), 1, 1000));
    else if (arg === '--keys') options.keys = Math.round(number(arg, value(), 1, 5000));
    else if (arg === '--scenarios')
      options.scenarios = value()
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean);
    else if (arg === '--rebuild') options.rebuild = true;
    else if (arg === '--build-only') options.buildOnly = true;
    else if (arg === '--profile') options.profile = true;
    else if (arg === '--out') options.out = value();
    else if (arg === '--help' || arg === '-h') {
      console.log(HELP);
      process.exit(0);
    } else throw new Error(`Unknown option ${arg}\n${HELP}`);
  }
  return options;
}

const selected = (options: Options, scenario: Scenario) =>
  options.scenarios.length === 0 || options.scenarios.some((s) => s === scenario.group || scenario.name.toLowerCase().includes(s));

const log = (message: string) => console.log(message);

// ---------------------------------------------------------------------------------------------
// CPU used by processes that are not part of the measurement (other work on the machine)

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** The machine's CPU time so far (all cores), in jiffies: the `cpu` line of /proc/stat. */
function machineCpu(): { busy: number; steal: number } {
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = cpu;
  // Busy without steal: time the hypervisor gave to other guests is reported apart (stolenCpu).
  return { busy: user + nice + system + irq + softirq, steal };
}

/** Share of the machine's CPU (0-100) used meanwhile by anything but the bench, its server and its PostgreSQL. */
function foreignCpu(postmaster: number | undefined): { stop(): number | undefined } {
  if (postmaster === undefined) return { stop: () => undefined };
  // The servers are this process's children; the embedded postmaster is a daemon of its own.
  const ours = () => treeCpu(process.pid, true) + treeCpu(postmaster, true);
  const startedAt = Date.now();
  const busy0 = machineCpu().busy;
  const ours0 = ours();
  return {
    stop() {
      const seconds = (Date.now() - startedAt) / 1000;
      const foreign = machineCpu().busy - busy0 - (ours() - ours0);
      return Math.max(0, Math.round((100 * foreign) / CLOCK_TICKS / seconds / os.cpus().length));
    },
  };
}

/**
 * Share of the machine's CPU (0-100) that the hypervisor gave to other guests meanwhile ("steal" in
 * /proc/stat): time the service and PostgreSQL were ready to run but could not. On a shared host it
 * comes and goes within minutes and slows every figure taken meanwhile; "other CPU %" cannot see it.
 */
function stolenCpu(): { stop(): number } {
  const startedAt = Date.now();
  const steal0 = machineCpu().steal;
  return {
    stop() {
      const seconds = (Date.now() - startedAt) / 1000;
      return Math.round((100 * (machineCpu().steal - steal0)) / CLOCK_TICKS / seconds / os.cpus().length);
    },
  };
}

/**
 * CPU time of the server (its process tree) and of PostgreSQL (the postmaster's tree: the
 * backends) between start and stop, in milliseconds. Per request, they say where a request's time
 * goes and compare across machines better than latencies do (p50 at a fixed concurrency is about
 * connections / requests per second, and requests per second is what the two cores can serve).
 */
function cpuTime(server: number, postmaster: number | undefined): { stop(): { serverMs: number; databaseMs?: number } } {
  const server0 = treeCpu(server, false);
  const database0 = postmaster === undefined ? undefined : treeCpu(postmaster, true);
  const ms = (jiffies: number) => (jiffies * 1000) / CLOCK_TICKS;
  return {
    stop: () => ({
      serverMs: ms(treeCpu(server, false) - server0),
      databaseMs: postmaster === undefined || database0 === undefined ? undefined : ms(treeCpu(postmaster, true) - database0),
    }),
  };
}

/**
 * Each worker's share (%) of the CPU time its server's workers used between start and stop, in
 * the order given: with WORKERS=2, whether both workers serve (node:cluster's primary hands each
 * new connection to the next worker, so an even split means both cores do the service's work).
 */
function workerCpuSplit(workers: number[]): { stop(): number[] } {
  const start = workers.map((pid) => treeCpu(pid, false));
  return {
    stop() {
      const used = workers.map((pid, i) => treeCpu(pid, false) - start[i]!);
      const total = used.reduce((a, b) => a + b, 0);
      return used.map((u) => (total > 0 ? Math.round((100 * u) / total) : 0));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Measuring

export interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  /** 2xx answers that were not a success (`success: true`, or GraphQL without `errors`). */
  mismatches: number;
  errors: number;
  /** Peak resident memory of the server's processes together, and of its largest process alone. */
  peakRssMb: number;
  peakProcessRssMb: number;
  processes: number;
  /** With cluster workers: each worker's share (%) of the workers' CPU time during the run. */
  workerCpuShares?: number[];
  /** % of the machine's CPU used by other processes during the run (undefined: unknown, external database). */
  foreignCpu?: number;
  /** % of the machine's CPU taken by the hypervisor for other guests during the run (steal). */
  stolenCpu: number;
  /** CPU milliseconds per answered request: the server's, and PostgreSQL's (undefined: external database). */
  serverCpuMs?: number;
  databaseCpuMs?: number;
  /** Statements of requests still in flight at the end of the run, cancelled after a grace period. */
  cancelled: number;
}

function load(server: Server, scenario: Scenario, keys: string[], seconds: number, connections: number) {
  let next = 0;
  const graphql = scenario.group === 'graphql';
  return autocannon({
    url: server.base,
    connections,
    duration: seconds,
    timeout: 120,
    requests: [
      {
        method: scenario.method,
        path: scenario.path,
        body: scenario.body,
        headers: { ...scenario.headers, ...(scenario.body ? { 'content-type': 'application/json' } : {}) },
        setupRequest: (req) => {
          next = (next + 1) % keys.length;
          return { ...req, headers: { ...req.headers, authorization: `Bearer ${keys[next]}` } };
        },
      },
    ],
    verifyBody: (body) =>
      scenario.status === 304 ? String(body) === '' : graphql ? !String(body).includes('"errors"') : String(body).startsWith('{"success":true'),
  });
}

/**
 * Waits until no statement of the bench database is running, so that one run's load does not spill
 * into the next: autocannon stops at the end of its run, but the statements of the requests still in
 * flight go on in PostgreSQL (seconds each on the large datasets). After `graceMs` they are cancelled
 * (nobody will read their answers). Returns how many were cancelled.
 */
async function settle(monitor: pg.Client | undefined, graceMs = 3_000): Promise<number> {
  if (!monitor) return 0;
  const active = async () =>
    (
      await monitor.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
      )
    ).rows.map((r) => r.pid);
  const deadline = Date.now() + graceMs;
  let pids = await active();
  while (pids.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    pids = await active();
  }
  if (!pids.length) return 0;
  // Cancelled until quiet for a second: a server may hold more requests than its pool has
  // connections (autocannon gives up on a request after 10 s and sends another while the first is
  // still being answered), and each queued one starts its statement once a connection is freed. One
  // round of cancelling let those run into the next scenario (seconds of CPU per statement at 10m).
  let cancelled = 0;
  let quietSince = Date.now();
  for (const stop = Date.now() + 120_000; Date.now() < stop && Date.now() - quietSince < 1_000; ) {
    if (pids.length) {
      await monitor.query('SELECT pg_cancel_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
      cancelled += pids.length;
      quietSince = Date.now();
    }
    await new Promise((r) => setTimeout(r, 100));
    pids = await active();
  }
  return cancelled;
}

async function measure(server: Server, scenario: Scenario, keys: string[], options: Options, postmaster?: number, monitor?: pg.Client): Promise<Measurement> {
  if (options.warmup > 0) {
    await load(server, scenario, keys, options.warmup, options.connections);
    await settle(monitor);
  }
  const rss = sampleRss(server.child.pid!);
  const foreign = foreignCpu(postmaster);
  const stolen = stolenCpu();
  const cpu = cpuTime(server.child.pid!, postmaster);
  const workers = workerPids(server.child.pid!);
  const split = workers.length > 1 ? workerCpuSplit(workers) : undefined;
  const result = await load(server, scenario, keys, options.duration, options.connections);
  const foreignPercent = foreign.stop();
  const stolenPercent = stolen.stop();
  const { serverMs, databaseMs } = cpu.stop();
  const workerCpuShares = split?.stop();
  const perRequest = (ms: number | undefined) => (ms === undefined || result.requests.total === 0 ? undefined : ms / result.requests.total);
  const { peakMb, peakProcessMb, processes } = rss.stop();
  const cancelled = await settle(monitor);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    mismatches: result.mismatches,
    errors: result.errors,
    peakRssMb: peakMb,
    peakProcessRssMb: peakProcessMb,
    processes,
    workerCpuShares,
    foreignCpu: foreignPercent,
    stolenCpu: stolenPercent,
    serverCpuMs: perRequest(serverMs),
    databaseCpuMs: perRequest(databaseMs),
    cancelled,
  };
}

/** The service alone under the profiler for one scenario: the summary of its CPU profile. */
async function profileScenario(dataset: Dataset, scenario: Scenario, keys: string[], options: Options): Promise<string> {
  // One folder per scenario: Node writes a profile per thread (tsx's loader hooks run in a thread of
  // their own), named CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; the main thread's is 0.
  const dir = path.join(projectRoot, '.data', 'bench', 'profiles', `${dataset.size.label}-${scenario.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const server = await startServer('service-profiled', 'src/server.ts', dataset.url, { nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
  let m: Measurement;
  try {
    m = await measure(server, scenario, keys, options);
  } finally {
    await stopServer(server);
  }
  log(`  ${scenario.name}: ${f1(m.rps)} req/s under the profiler`);
  const main = fs.readdirSync(dir).find((f) => new RegExp(`^CPU\\.\\d+\\.\\d+\\.${server.child.pid}\\.0\\.`).test(f));
  if (!main) return `(no profile of the main thread in ${path.relative(projectRoot, dir)})`;
  return `${f1(m.rps)} req/s, p50 ${f1(m.p50)} ms under the profiler; ${summarizeProfile(path.join(dir, main))}`;
}

/** How many of 40 back-to-back requests with one key the service admits (the per-key field limits). */
async function probeSingleKey(server: Server, scenario: Scenario, key: string): Promise<{ ok: number; limited: number }> {
  let ok = 0;
  let limited = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let i = 0; i < 10; i++) {
        const answer = await request(server.base, scenario, key);
        if (answer.status === 200) ok++;
        else if (answer.status === 429) limited++;
      }
    }),
  );
  return { ok, limited };
}

// ---------------------------------------------------------------------------------------------
// Report

interface Row {
  scenario: Scenario;
  ours: Measurement;
  baseline?: Measurement;
}

interface SizeReport {
  exports?: ExportMeasurement[];
  isolation?: IsolationMeasurement;
  /** The PostGraphile peer comparison (peer.ts). */
  peer?: PeerMeasurement;
  dataset: Dataset;
  durationSeconds: number;
  facts: Awaited<ReturnType<typeof describeDataset>>;
  rows: Row[];
  probe?: { ok: number; limited: number; scenario: string };
}

const f1 = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const ratio = (a: number, b: number | undefined) => (b ? `${(a / b).toFixed(2)}x` : '-');

/** "1.70+0.85": the server's and PostgreSQL's CPU milliseconds per request. */
function cpuPerRequest(m: Measurement): string {
  if (m.serverCpuMs === undefined) return '-';
  return `${m.serverCpuMs.toFixed(2)}+${m.databaseCpuMs === undefined ? '?' : m.databaseCpuMs.toFixed(2)}`;
}

/** "50/50": each worker's share of the workers' CPU time; '-' when the server ran as one process. */
const workerSplit = (m: Measurement) => (m.workerCpuShares ? m.workerCpuShares.join('/') : '-');

function sizeTable(report: SizeReport): string {
  // With WORKERS > 1, a column shows how the service's work was shared between its workers.
  const withWorkers = report.rows.some((r) => r.ours.workerCpuShares);
  const lines = [
    `| Scenario | ours req/s | ours p50 ms | ours p99 ms | base req/s | base p50 ms | base p99 ms | req/s ours/base | p50 ours/base | non-2xx or failed ours/base | peak RSS MB ours/base | other CPU % ours/base | stolen CPU % ours/base | CPU ms/request server+PG ours / base |${withWorkers ? ' worker CPU % split (ours) |' : ''}`,
    `|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|${withWorkers ? '--:|' : ''}`,
  ];
  for (const { scenario, ours, baseline: b } of report.rows) {
    const bad = (m: Measurement) => m.non2xx + m.mismatches + m.errors;
    // Fewer than 20 answers make the percentiles rough; none at all means every request took longer than the run.
    const rps = (m: Measurement) => (m.requests === 0 ? '0 (none answered)' : m.requests < 20 ? `${f1(m.rps)} (n=${m.requests})` : f1(m.rps));
    const ms = (m: Measurement, v: number) => (m.requests === 0 ? `> ${report.durationSeconds * 1000}` : f1(v));
    const cells = (m: Measurement | undefined) => (m ? [rps(m), ms(m, m.p50), ms(m, m.p99)] : ['-', '-', '-']);
    const answered = (m: Measurement | undefined) => (m && m.requests > 0 ? m : undefined);
    lines.push(
      `| ${[
        scenario.name,
        ...cells(ours),
        ...cells(b),
        answered(b) ? ratio(ours.rps, b!.rps) : '-',
        answered(b) && answered(ours) ? ratio(ours.p50, b!.p50) : '-',
        `${bad(ours)}/${b ? bad(b) : '-'}`,
        `${ours.peakRssMb}/${b ? b.peakRssMb : '-'}`,
        `${ours.foreignCpu ?? '?'}/${b ? (b.foreignCpu ?? '?') : '-'}`,
        `${ours.stolenCpu}/${b ? b.stolenCpu : '-'}`,
        `${cpuPerRequest(ours)} / ${b ? cpuPerRequest(b) : '-'}`,
        ...(withWorkers ? [workerSplit(ours)] : []),
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

interface Verdict {
  target: string;
  status: 'met' | 'missed' | 'not measured';
  detail: string;
}

/** p50 of a run, infinite when nothing was answered during it. */
const p50 = (m: Measurement) => (m.requests > 0 ? m.p50 : Number.POSITIVE_INFINITY);
/** autocannon records latencies in whole milliseconds. */
const LATENCY_RESOLUTION_MS = 1;

function verdicts(reports: SizeReport[]): Verdict[] {
  const out: Verdict[] = [];
  const bySize = (rows: number) => reports.find((r) => r.dataset.size.rows === rows);
  const largest = reports.reduce<SizeReport | undefined>((a, r) => (!a || r.dataset.size.rows > a.dataset.size.rows ? r : a), undefined);
  const at10m = bySize(10_000_000);
  const at100k = bySize(100_000);
  const find = (report: SizeReport | undefined, name: string) => report?.rows.find((r) => r.scenario.name === name);
  const label = (r: SizeReport) => r.dataset.size.label;

  // Metrics at 10M: p50 <= 10 ms and within 1.5x of the 100k figure.
  const metricNames = largest?.rows.filter((r) => r.scenario.target === 'metrics').map((r) => r.scenario.name) ?? [];
  for (const name of metricNames) {
    const big = find(at10m, name);
    const small = find(at100k, name);
    if (!big) {
      const l = find(largest, name)!;
      const base = small ? `, ${(p50(l.ours) / p50(small.ours)).toFixed(1)}x the 100k p50` : '';
      out.push({
        target: `${name}: p50 <= 10 ms at 10m and <= 1.5x its 100k p50`,
        status: 'not measured',
        detail: `10m not run; at ${label(largest!)}: p50 ${f1(p50(l.ours))} ms${base}`,
      });
      continue;
    }
    const growth = small ? p50(big.ours) / p50(small.ours) : undefined;
    // autocannon's latencies are whole milliseconds: 1 -> 2 ms is 2x on paper but within the
    // resolution, so a growth of at most 1 ms also counts as within 1.5x.
    const withinGrowth = small === undefined || growth! <= 1.5 || p50(big.ours) - p50(small.ours) <= LATENCY_RESOLUTION_MS;
    const met = p50(big.ours) <= 10 && withinGrowth;
    out.push({
      target: `${name}: p50 <= 10 ms at 10m and <= 1.5x its 100k p50`,
      status: growth === undefined && met ? 'not measured' : met ? 'met' : 'missed',
      detail: `p50 ${f1(p50(big.ours))} ms at 10m${growth === undefined ? ' (100k not run)' : `, ${growth.toFixed(1)}x the 100k p50 (${f1(p50(small!.ours))} ms)`}`,
    });
  }

  // Metrics in local time zones, breakdowns, durations and the GraphQL page of campaigns with their
  // metrics, judged at 10m: each scenario's limits (scenarios.ts), its p50 against a ceiling,
  // against its own 100k p50 and against the p50 of another scenario.
  for (const row of largest?.rows.filter((r) => r.scenario.target === 'limits') ?? []) {
    const { name, limits = {} } = row.scenario;
    const big = find(at10m, name);
    const checks: Array<{ target: string; met?: boolean; detail?: string }> = [];
    // Within `factor` of `base` (or at most autocannon's resolution above it, as for the growth above).
    const within = (ms: number, base: number, factor: number) => ms <= factor * base || ms - base <= LATENCY_RESOLUTION_MS;
    if (limits.p50Ms !== undefined) {
      checks.push({ target: `p50 <= ${limits.p50Ms} ms`, met: big && p50(big.ours) <= limits.p50Ms });
    }
    if (limits.growth !== undefined) {
      const small = find(at100k, name);
      checks.push({
        target: `<= ${limits.growth}x its 100k p50`,
        met: big && small && within(p50(big.ours), p50(small.ours), limits.growth),
        detail: big && small ? `${(p50(big.ours) / p50(small.ours)).toFixed(1)}x the 100k p50 (${f1(p50(small.ours))} ms)` : '',
      });
    }
    if (limits.growthFrom1m !== undefined) {
      const small = find(bySize(1_000_000), name);
      checks.push({
        target: `<= ${limits.growthFrom1m}x its 1m p50`,
        met: big && small && within(p50(big.ours), p50(small.ours), limits.growthFrom1m),
        detail: big && small ? `${(p50(big.ours) / p50(small.ours)).toFixed(1)}x the 1m p50 (${f1(p50(small.ours))} ms)` : '',
      });
    }
    if (limits.versus) {
      const other = find(at10m, limits.versus.scenario);
      checks.push({
        target: `<= ${limits.versus.factor}x the p50 of "${limits.versus.scenario}"`,
        met: big && other && within(p50(big.ours), p50(other.ours), limits.versus.factor),
        detail: big && other ? `${(p50(big.ours) / p50(other.ours)).toFixed(1)}x "${limits.versus.scenario}" (${f1(p50(other.ours))} ms)` : '',
      });
    }
    if (limits.rpsVersus) {
      const other = find(at10m, limits.rpsVersus.scenario);
      checks.push({
        target: `>= ${limits.rpsVersus.factor}x the req/s of "${limits.rpsVersus.scenario}"`,
        met: big && other && big.ours.rps >= limits.rpsVersus.factor * other.ours.rps,
        detail:
          big && other
            ? `${f1(big.ours.rps)} req/s, ${(big.ours.rps / other.ours.rps).toFixed(1)}x "${limits.rpsVersus.scenario}" (${f1(other.ours.rps)} req/s)`
            : '',
      });
    }
    const measured = checks.every((c) => c.met !== undefined);
    out.push({
      target: `${name} at 10m: ${checks.map((c) => c.target).join(', ')}`,
      status: !measured ? 'not measured' : checks.every((c) => c.met) ? 'met' : 'missed',
      detail: measured
        ? [`p50 ${f1(p50(big!.ours))} ms at 10m`, ...checks.flatMap((c) => (c.detail ? [c.detail] : []))].join(', ')
        : `${at10m ? 'a scenario or size it is compared with was not run' : '10m not run'}; at ${label(largest!)}: p50 ${f1(p50(row.ours))} ms`,
    });
  }

  // First pages: >= 0.8x the baseline's req/s and p50 <= 10 ms, at every size measured.
  for (const report of reports) {
    for (const row of report.rows.filter((r) => r.scenario.target === 'first-page')) {
      const b = row.baseline;
      const r = b ? (b.requests > 0 ? row.ours.rps / b.rps : Number.POSITIVE_INFINITY) : undefined;
      const met = p50(row.ours) <= 10 && r !== undefined && r >= 0.8;
      const versus =
        r === undefined ? 'no baseline' : Number.isFinite(r) ? `${r.toFixed(2)}x baseline req/s` : `baseline answered nothing in ${report.durationSeconds} s`;
      out.push({
        target: `${row.scenario.name} at ${label(report)}: >= 0.8x baseline req/s and p50 <= 10 ms`,
        status: met ? 'met' : 'missed',
        detail: `${versus}, p50 ${f1(p50(row.ours))} ms`,
      });
    }
  }

  // Search and deep page at 10M: p50 <= 50 ms.
  for (const target of ['search', 'deep-page'] as const) {
    const report = at10m ?? largest;
    const row = report?.rows.find((r) => r.scenario.target === target);
    if (!report || !row) continue;
    out.push({
      target: `${row.scenario.name}: p50 <= 50 ms at 10m`,
      status: at10m ? (p50(row.ours) <= 50 ? 'met' : 'missed') : 'not measured',
      detail: `${at10m ? '' : `10m not run; at ${label(report)}: `}p50 ${f1(p50(row.ours))} ms`,
    });
  }

  // Phone search (issue 19): a common 3-digit fragment's exact total, p50 <= 100 ms at 1m and <= 250 ms
  // at 10m; the rare 5-digit fragment at >= 1.0x the baseline's req/s at 100k.
  for (const [rows, limit] of [
    [1_000_000, 100],
    [10_000_000, 250],
  ] as const) {
    const report = bySize(rows);
    const row = report?.rows.find((r) => r.scenario.target === 'common-search');
    out.push({
      target: `phone search, common fragment: p50 <= ${limit} ms at ${rows === 1_000_000 ? '1m' : '10m'}`,
      status: row ? (p50(row.ours) <= limit ? 'met' : 'missed') : 'not measured',
      detail: row ? `${row.scenario.name}: p50 ${f1(p50(row.ours))} ms` : 'size or scenario not run',
    });
  }
  const rare = at100k?.rows.find((r) => r.scenario.target === 'search');
  if (rare?.baseline) {
    const ratio = rare.baseline.requests > 0 ? rare.ours.rps / rare.baseline.rps : Number.POSITIVE_INFINITY;
    out.push({
      target: `${rare.scenario.name} at 100k: >= 1.0x baseline req/s`,
      status: ratio >= 1 ? 'met' : 'missed',
      detail: `${ratio.toFixed(2)}x baseline req/s, p50 ${f1(p50(rare.ours))} ms`,
    });
  }

  // Memory: of each process (with WORKERS > 1, every worker holds its own heap and connections).
  const runs = reports.flatMap((r) => r.rows.map((row) => row.ours));
  // With the service's runs of the PostGraphile comparison.
  const memoryRuns = [...runs, ...reports.flatMap((r) => peerServiceRuns(r.peer))];
  const peakProcess = Math.max(0, ...memoryRuns.map((m) => m.peakProcessRssMb));
  const peakTotal = Math.max(0, ...memoryRuns.map((m) => m.peakRssMb));
  const processes = Math.max(0, ...memoryRuns.map((m) => m.processes));
  if (memoryRuns.length) {
    out.push({
      target: 'Service RSS < 250 MB under load',
      status: peakProcess < 250 ? 'met' : 'missed',
      detail: `peak ${peakProcess} MB${processes > 1 ? ` per process (${peakTotal} MB for the ${processes} processes together)` : ''} (all scenarios, all sizes run)`,
    });
  }

  // WORKERS=2: every worker serves requests. Met when, in every run, each worker did at least half
  // of an even share of the workers' CPU time (25% each for two).
  const splits = runs.flatMap((m, i) => (m.workerCpuShares ? [{ shares: m.workerCpuShares, run: i }] : []));
  if (reports.length && !splits.length) {
    out.push({ target: 'WORKERS=2: both workers serve requests', status: 'not measured', detail: 'the service ran as one process; run with WORKERS=2' });
  } else if (splits.length) {
    const rows = reports.flatMap((r) => r.rows.map((row) => `${row.scenario.name} at ${label(r)}`));
    const least = splits.reduce((a, s) => (Math.min(...s.shares) < Math.min(...a.shares) ? s : a));
    const workers = least.shares.length;
    const floor = 100 / workers / 2;
    out.push({
      target: `WORKERS=${workers}: every worker serves requests`,
      status: splits.every((s) => Math.min(...s.shares) >= floor) ? 'met' : 'missed',
      detail: `least even run: ${rows[least.run]}, worker CPU split ${least.shares.join('/')}% (${splits.length} runs)`,
    });
  }
  return out;
}

function machineFacts(pgVersion: string, where: string): string[] {
  const cpus = os.cpus();
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: projectRoot, encoding: 'utf8' }).trim();
  } catch {}
  return [
    `- CPU: ${cpus.length} cores (${cpus[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB memory, ${os.platform()} ${os.release()}`,
    `- Node.js ${process.version}; PostgreSQL ${pgVersion} (${where})`,
    `- Commit ${commit} (plus the working tree's uncommitted changes); migrations: ${listMigrations()
      .migrationDirectories.map((m) => m.path)
      .join(', ')}`,
    `- Load generator: autocannon in the bench process on the same machine (loopback), so client, service and PostgreSQL share the ${cpus.length} cores.`,
    `- WORKERS=${process.env.WORKERS ?? '(unset)'}; pool size ${process.env.DATABASE_POOL_SIZE ?? '10 (default)'}; heavy lane ${process.env.HEAVY_LANE_CONNECTIONS === '0' ? 'off' : `${process.env.HEAVY_LANE_CONNECTIONS ?? '3 (default)'} connections, nice ${process.env.HEAVY_LANE_NICE ?? '19 (default)'}`}; ${startLine()} (as \`npm start\` sets them) on both servers.`,
  ];
}

/** The variables and node flags `npm start` sets, as each server got them (the caller's environment wins). */
function startLine(): string {
  const { env, nodeFlags } = startSettings();
  const vars = Object.entries(env).map(([name, value]) => `${name}=${process.env[name] ?? value}`);
  return [...vars, ...nodeFlags.map((flag) => `\`${flag}\``)].join(', ');
}

const commandLine = () =>
  `npm run bench -- ${process.argv
    .slice(2)
    .map((a) => (/\s/.test(a) ? `'${a}'` : a))
    .join(' ')}`;

function renderReport(options: Options, reports: SizeReport[], facts: string[], started: Date): string {
  const parts = [
    `# Bench ${started.toISOString().slice(0, 10)}: ${reports.map((r) => r.dataset.size.label).join(', ')}`,
    '',
    `\`${commandLine()}\` (started ${started.toISOString()})`,
    '',
    ...facts,
    `- Each scenario: ${options.warmup} s warm-up, then ${options.duration} s at ${options.connections} connection${options.connections === 1 ? '' : 's'}, service then baseline; ${options.keys} unlimited-tier keys used in turn.`,
    '- Latencies in milliseconds; "non-2xx or failed" counts non-2xx answers, 2xx answers that were not a success, and connection errors/timeouts.',
    '- Peak RSS: VmRSS of the server process (and its node worker processes, together) sampled every 200 ms during the measured run.',
    "- Worker CPU % split (only with WORKERS > 1): each worker's share of the CPU time the service's workers used during the measured run.",
    "- After each run (warm-up included), the statements of requests still in flight are given 3 s, then cancelled (again, as queued requests start theirs, until none has run for a second), so that no run inherits the previous one's load; their numbers are listed below a table when there were any.",
    "- Other CPU %: share of the machine's CPU used during the measured run by processes other than the bench, the server and its PostgreSQL (other work on the machine; figures with a high value are disturbed). `?` when unknown (BENCH_DATABASE_URL).",
    "- Stolen CPU %: share of the machine's CPU the hypervisor gave to other guests during the measured run (steal time in /proc/stat): the service, its PostgreSQL and the load generator were ready to run and could not. Figures with a high value are slowed down by the host, not by the code.",
    "- CPU ms/request: CPU time of the server process (with its workers) and of PostgreSQL (all its processes) during the measured run, divided by the requests answered; `?` when PostgreSQL is external (BENCH_DATABASE_URL). The load generator's own CPU (same machine) is not in it.",
    '',
  ];
  for (const report of reports) {
    const d = report.dataset;
    parts.push(
      `## ${d.size.label}: ${d.size.rows.toLocaleString('en-US')} interactions`,
      '',
      `Database \`${d.database}\`: ${d.meta.firstDay} to ${d.meta.lastDay}, ${report.facts.transcripts.toLocaleString('en-US')} transcripts, ` +
        `interactions table ${report.facts.tableMb} MB + indexes ${report.facts.indexMb} MB; ` +
        `${d.built ? `built in this run in ${d.meta.buildSeconds} s` : `reused (built ${d.meta.builtAt} in ${d.meta.buildSeconds} s)`}; ` +
        `other tables: ${report.facts.rollupTables.length ? report.facts.rollupTables.join(', ') : 'none (no rollup tables)'}.`,
      '',
      report.rows.length ? sizeTable(report) : '(no request scenarios in this run)',
      '',
      ...(report.peer
        ? [
            'PostGraphile peer (bench/peer.ts): the same documents asked of PostGraphile 4 serving this database, without authentication (ours: key checks, scopes, quotas and masking included).' +
              " The Yoga floor is the service's design before any of its own code: the project's graphql-yoga over node:http with an SDL schema of the documents' fields, one pg statement per root field, no authentication, quotas or masking, asked the service's GraphQL documents; its CPU per request is the fixed cost of the Yoga pipeline in ours." +
              " \"page as REST answers it\" asks PostGraphile (and the service's GraphQL) for everything GET /api/v1/interactions?limit=50 answers: every field of each item, its transcript's entries and the total; REST's figures there are the page's request.",
            '',
            peerTable(report.peer),
            '',
          ]
        : []),
      ...(report.exports?.length ? ['Exports (bench/exports.ts; no baseline):', '', exportTable(report.exports), ''] : []),
      ...(report.isolation
        ? [
            'Isolation (bench/isolation.ts): a Standard key at its full quota with the costliest requests and two unread exports a minute, while a Premium key sends 4 cheap requests a second:',
            '',
            isolationTable([{ label: report.dataset.size.label, m: report.isolation }]),
            '',
          ]
        : []),
    );
    const cancelled = report.rows.filter((r) => r.ours.cancelled || r.baseline?.cancelled);
    if (cancelled.length) {
      parts.push(
        `Cancelled after the run (ours/base): ${cancelled.map((r) => `${r.scenario.name} ${r.ours.cancelled}/${r.baseline?.cancelled ?? '-'}`).join('; ')}.`,
        '',
      );
    }
    if (report.probe) {
      parts.push(
        `Single-key probe (${report.probe.scenario}, 40 requests back to back with one unlimited-tier key): ${report.probe.ok} answered 200, ${report.probe.limited} answered 429.`,
        '',
      );
    }
  }
  const v = [
    ...verdicts(reports),
    ...exportVerdicts(reports.map((r) => ({ label: r.dataset.size.label, rows: r.dataset.size.rows, exports: r.exports }))),
    ...isolationVerdicts(reports.flatMap((r) => (r.isolation ? [{ label: r.dataset.size.label, m: r.isolation }] : []))),
    ...peerVerdicts(reports.map((r) => ({ label: r.dataset.size.label, peer: r.peer }))),
  ];
  if (v.length) {
    parts.push('## Targets', '');
    if (options.connections !== 10)
      parts.push(`The targets are stated for 10 connections; this run used ${options.connections}, so these verdicts are only indicative.`, '');
    parts.push('| Target | Status | Detail |', '|---|---|---|', ...v.map((x) => `| ${x.target} | ${x.status} | ${x.detail} |`), '');
  }
  return parts.join('\n');
}

// ---------------------------------------------------------------------------------------------

/** Brings bench/results/README.md up to date with the report just written (results-index.ts). */
function indexResults(): void {
  const moved = updateResultsIndex();
  log(`bench/results/README.md updated${moved.length ? `; superseded reports moved to bench/results/archive/: ${moved.join(', ')}` : ''}`);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const started = new Date();
  const suffix = options.scenarios.length ? `-${options.scenarios.join('+').replace(/[^a-z0-9+]+/g, '_')}` : '';
  const out =
    options.out ??
    path.join(projectRoot, 'bench', 'results', `${started.toISOString().slice(0, 10)}-${options.sizes.map((s) => s.label).join('-')}${suffix}.md`);
  log(`Bench: sizes ${options.sizes.map((s) => s.label).join(', ')}; ${options.duration} s per scenario and server at ${options.connections} connections`);

  if (!options.buildOnly) compile();
  // PostGraphile for the peer comparison, from its own lockfile (peer.ts).
  const peerWanted = !options.buildOnly && !options.profile && peerSelected(options.scenarios);
  if (peerWanted) installPeerDeps(log);
  const cluster = await openCluster(log);
  const reports: SizeReport[] = [];
  const profiles: string[] = [];
  let facts: string[] = [];
  let failed = false;
  try {
    for (const size of options.sizes) {
      log(`\n== ${size.label} ==`);
      const dataset = await ensureDataset(cluster, size, { rebuild: options.rebuild, log });
      if (options.buildOnly) continue;
      if (!facts.length) facts = machineFacts(await serverVersion(dataset.url), cluster.describe);
      const datasetFacts = await describeDataset(dataset.url);
      const keys = await createBenchKeys(dataset.url, options.keys);
      const scenarios = scenariosFor(dataset.meta).filter((s) => selected(options, s));
      // Keys without phi:read, for the scenarios that measure masked answers (scenarios.ts `masked`).
      const maskedKeys = scenarios.some((s) => s.masked)
        ? await createBenchKeys(dataset.url, options.keys, { name: 'bench masked', scopes: SCOPES.filter((scope) => scope !== 'phi:read') })
        : [];
      const keysOf = (scenario: Scenario) => (scenario.masked ? maskedKeys : keys);
      const exportScenarios = options.profile ? [] : exportScenariosFor(dataset.meta, size).filter((s) => selectedExport(options.scenarios, s));
      // The isolation scenario (isolation.ts): an attacker key at its full quota against a victim key.
      const isolation = !options.profile && (options.scenarios.length === 0 || options.scenarios.includes('isolation'));
      if (!scenarios.length && !exportScenarios.length && !isolation && !peerWanted)
        throw new Error(`No scenario matches --scenarios ${options.scenarios.join(',')}`);

      if (options.profile) {
        profiles.push(`## ${size.label}`, '');
        for (const scenario of scenarios) profiles.push(`### ${scenario.name}`, '', await profileScenario(dataset, scenario, keysOf(scenario), options), '');
        continue;
      }

      const servers: Server[] = [];
      const monitor = new pg.Client({ connectionString: dataset.url, application_name: 'bench monitor' });
      await monitor.connect();
      try {
        servers.push(await startServer('service', 'src/server.ts', dataset.url));
        servers.push(await startServer('baseline', 'bench/baseline/server.ts', dataset.url));
        const [ours, baseline] = servers as [Server, Server];
        const peer = peerWanted ? await startPeer(dataset.url) : undefined;
        if (peer) servers.push(peer);
        // The Yoga floor (bench/peer/yoga-floor.ts), measured beside the peer.
        const floor = peerWanted ? await startFloor(dataset.url) : undefined;
        if (floor) servers.push(floor);
        const peerServers = peer && floor ? { ours, floor, peer } : undefined;
        const peerDocs = peer ? peerDocuments(dataset.meta) : [];

        // Both must answer every scenario, and identically, before anything is measured.
        log('  checking that the service and the baseline answer identically');
        let k = 0;
        const problems: string[] = [];
        for (const [i, scenario] of scenarios.entries()) {
          if (scenario.resolve) {
            scenarios[i] = { ...scenario, ...(await scenario.resolve({ databaseUrl: dataset.url, base: ours.base, key: keys[0]! })) };
          }
        }
        for (const scenario of scenarios) {
          const a = await request(ours.base, scenario, keysOf(scenario)[k++ % keys.length]!);
          const b = scenario.serviceOnly ? undefined : await request(baseline.base, scenario, keys[k++ % keys.length]!);
          for (const p of checkAnswers(scenario, a, b)) problems.push(`${scenario.name}: ${p}`);
        }
        if (peerServers) {
          log('  checking that the service, the Yoga floor and PostGraphile answer the peer documents alike');
          problems.push(...(await checkPeer(peerDocs, peerServers, keys[0]!)));
        }
        if (problems.length) {
          failed = true;
          throw new Error(
            `The service and the baseline${peer ? ', the Yoga floor or PostGraphile' : ''} disagree; nothing was measured.\n  ${problems.join('\n  ')}`,
          );
        }

        const report: SizeReport = { dataset, durationSeconds: options.duration, facts: datasetFacts, rows: [] };
        reports.push(report);
        const probeScenario = scenarios.find((s) => s.group === 'metrics') ?? scenarios[0];
        if (probeScenario) {
          report.probe = { ...(await probeSingleKey(ours, probeScenario, keys[0]!)), scenario: probeScenario.name };
          await new Promise((r) => setTimeout(r, 1_100)); // let the probe's one-second window pass
        }

        for (const scenario of scenarios) {
          const row: Row = { scenario, ours: await measure(ours, scenario, keysOf(scenario), options, cluster.postmasterPid(), monitor) };
          if (!scenario.serviceOnly) row.baseline = await measure(baseline, scenario, keys, options, cluster.postmasterPid(), monitor);
          // A scenario about 304s: autocannon counts them as non-2xx; its body check (empty) is what fails.
          if (scenario.status === 304) row.ours.non2xx = 0;
          report.rows.push(row);
          const b = row.baseline;
          log(
            `  ${scenario.name.padEnd(46)} ours ${f1(row.ours.rps).padStart(7)} req/s p50 ${f1(row.ours.p50).padStart(6)} ms p99 ${f1(row.ours.p99).padStart(6)} ms` +
              (b
                ? ` | base ${f1(b.rps).padStart(7)} req/s p50 ${f1(b.p50).padStart(6)} ms | RSS ${row.ours.peakRssMb}/${b.peakRssMb} MB | other CPU ${row.ours.foreignCpu ?? '?'}/${b.foreignCpu ?? '?'}% | stolen ${row.ours.stolenCpu}/${b.stolenCpu}% | CPU ms/req ${cpuPerRequest(row.ours)} / ${cpuPerRequest(b)}`
                : ` | (service only) RSS ${row.ours.peakRssMb} MB | CPU ms/req ${cpuPerRequest(row.ours)}`) +
              (row.ours.workerCpuShares ? ` | workers ${workerSplit(row.ours)}%` : '') +
              (row.ours.non2xx + row.ours.mismatches + row.ours.errors ? ` | FAILED ours ${row.ours.non2xx + row.ours.mismatches + row.ours.errors}` : ''),
          );
        }
        if (peerServers) {
          report.peer = await measurePeer(peerDocs, peerServers, {
            measure: (server, scenario) => measure(server, scenario, keys, options, cluster.postmasterPid(), monitor),
            warm: async (server, scenario) => {
              if (options.warmup > 0) await load(server, scenario, keys, options.warmup, options.connections);
              await settle(monitor);
            },
            log,
          });
          log(peerTable(report.peer));
        }
        // Exports (bench/exports.ts): measured by what they stream, each verified first; the baseline has none.
        if (exportScenarios.length) {
          const exportOptions = { scenarios: exportScenarios, keys, seconds: options.duration, connections: options.connections, monitor, log };
          report.exports = await measureExports(ours, { ...exportOptions, postmaster: cluster.postmasterPid() });
        }
        if (isolation) {
          // As long quiet as under attack: both p99s are then the 3rd slowest of 240 (20 s made the quiet one the slowest of 80).
          report.isolation = await measureIsolation(ours, dataset.url, dataset.meta, { quietSeconds: 60, attackSeconds: 60, log });
          log(isolationTable([{ label: size.label, m: report.isolation }]));
        }
      } finally {
        for (const server of servers) await stopServer(server);
        await monitor.end();
      }
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.writeFileSync(out, renderReport(options, reports, facts, started));
      fs.writeFileSync(out.replace(/\.md$/, '.json'), `${JSON.stringify({ startedAt: started.toISOString(), options, facts, reports }, null, 1)}\n`);
    }
  } finally {
    await cluster.release();
  }
  if (options.buildOnly) return;
  if (options.profile) {
    const file = out.replace(/\.md$/, '-profile.md');
    const text = [
      `# CPU profiles of the service, ${started.toISOString().slice(0, 10)}`,
      '',
      `\`${commandLine()}\``,
      '',
      ...facts,
      `- Each scenario: a fresh service under \`node --cpu-prof\`, ${options.warmup} s + ${options.duration} s at ${options.connections} connections; self time of the service process, idle excluded.`,
      '',
      ...profiles,
    ].join('\n');
    fs.writeFileSync(file, text);
    log(`\n${text}\nWritten to ${path.relative(projectRoot, file)}`);
    return;
  }
  const text = renderReport(options, reports, facts, started);
  fs.writeFileSync(out, text);
  log(`\n${text}`);
  log(`Written to ${path.relative(projectRoot, out)}`);
  if (path.dirname(path.resolve(out)) === RESULTS_DIR) indexResults();
  if (failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(`\nBench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
