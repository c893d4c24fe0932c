// Retention under load (`node --import tsx bench/purge.ts [--size 1m] [--source DB] [--rows 1000000]
// [--connections 10] [--batch-size 5000] [--out FILE]`): `purge --before <date> --yes` of about
// `--rows` interactions (the oldest) while the service answers the first page of /interactions.
//
// It copies a bench dataset (CREATE DATABASE ... TEMPLATE bench_<size>, built by `npm run bench`),
// starts the service on the copy, measures the first page alone for 10 s (the reference), then
// again for as long as the purge runs, and reports the purge's rows/s, the API's status counts and
// p50/p99 during it, and where PostgreSQL spent the purge's time per trigger function
// (pg_stat_user_functions with track_functions = 'pl' on the copy). The copy is dropped at the end.
// Target (issue 23): >= 20,000 rows/s, no 5xx, first page p99 < 200 ms during the purge.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { projectRoot } from '../src/config.js';
import { migrate } from '../src/db/migrate.js';
import { createBenchKeys, openCluster } from './datasets.js';
import { compile, type Server, startServer, stopServer } from './processes.js';

interface Options {
  size: string;
  /** The database copied; default bench_<size>. */
  source?: string;
  rows: number;
  connections: number;
  batchSize: number;
  out: string;
}

function parseOptions(argv: string[]): Options {
  const options: Options = {
    size: '1m',
    rows: 1_000_000,
    connections: 10,
    batchSize: 5_000,
    out: path.join('bench', 'results', `${new Date().toISOString().slice(0, 10)}-purge.md`),
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--size') options.size = value;
    else if (flag === '--source') options.source = value;
    else if (flag === '--rows') options.rows = Number(value);
    else if (flag === '--connections') options.connections = Number(value);
    else if (flag === '--batch-size') options.batchSize = Number(value);
    else if (flag === '--out') options.out = value;
    else throw new Error(`unknown option ${flag}: --size, --source, --rows, --connections, --batch-size, --out`);
  }
  return options;
}

const log = (message: string) => console.log(message);
const n = (value: number) => Math.round(value).toLocaleString('en-US');

interface LoadResult {
  requests: number;
  statuses: Record<string, number>;
  errors: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Requests for the first page with `connections` clients until `stop` resolves (or for `seconds`). */
async function firstPageLoad(server: Server, key: string, connections: number, until: { seconds?: number; stop?: Promise<unknown> }): Promise<LoadResult> {
  const instance = autocannon({
    url: `${server.base}/api/v1/interactions`,
    connections,
    duration: until.seconds ?? 3_600,
    timeout: 30,
    headers: { authorization: `Bearer ${key}` },
  });
  until.stop?.then(() => (instance as unknown as { stop(): void }).stop());
  const result = await instance;
  const statuses: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = (stats as { count: number }).count;
  return {
    requests: result.requests.total,
    statuses,
    errors: result.errors + result.timeouts,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
  };
}

interface PurgeRun {
  deleted: number;
  batches: number;
  cliSeconds: number;
  wallSeconds: number;
  rowsPerSecond: number;
  stderr: string;
}

function runPurge(url: string, before: string, batchSize: number): Promise<PurgeRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', '--json', 'purge', '--before', before, '--yes', '--batch-size', String(batchSize)],
      { cwd: projectRoot, env: { ...process.env, DATABASE_URL: url }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('exit', (code) => {
      const wallSeconds = (performance.now() - started) / 1000;
      if (code !== 0) return reject(new Error(`purge exited with ${code}:\n${stdout}\n${stderr}`));
      const body = JSON.parse(stdout) as { deleted: number; batches: number; seconds: number; rows_per_second: number };
      resolve({ deleted: body.deleted, batches: body.batches, cliSeconds: body.seconds, wallSeconds, rowsPerSecond: body.rows_per_second, stderr });
    });
  });
}

async function query<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const cluster = await openCluster(log);
  const source = options.source ?? `bench_${options.size}`;
  const copy = `purge_bench_${options.size}`;
  const adminUrl = cluster.urlFor('postgres');
  const url = cluster.urlFor(copy);
  let server: Server | undefined;
  try {
    log(`Copying ${source} to ${copy}`);
    await query(adminUrl, `DROP DATABASE IF EXISTS "${copy}" WITH (FORCE)`);
    let copied = performance.now();
    await copyDatabase(adminUrl, source, copy);
    log(`  copied in ${((performance.now() - copied) / 1000).toFixed(1)} s`);
    copied = performance.now();
    const applied = await migrate(url);
    if (applied.length) {
      log(`  applied ${applied.join(', ')} in ${((performance.now() - copied) / 1000).toFixed(1)} s; analyzing`);
      await query(url, 'VACUUM (ANALYZE)');
    }
    // Time per trigger function of the purge (plpgsql and SQL functions), on the copy only.
    await query(adminUrl, `ALTER DATABASE "${copy}" SET track_functions = 'pl'`);

    const [{ total }] = (await query<{ total: string }>(url, 'SELECT count(*) AS total FROM interactions')) as [{ total: string }];
    const target = Math.min(options.rows, Number(total));
    // The instant before which the oldest `target` interactions started.
    const [bound] = await query<{ before: Date | null }>(url, `SELECT (SELECT started_at FROM interactions ORDER BY started_at OFFSET $1 LIMIT 1) AS before`, [
      target,
    ]);
    const before = bound?.before ? bound.before.toISOString() : '9999-01-01T00:00:00Z';
    const [{ selected }] = (await query<{ selected: string }>(url, 'SELECT count(*) AS selected FROM interactions WHERE started_at < $1', [before])) as [
      { selected: string },
    ];
    log(`${n(Number(total))} interactions; purging the ${n(Number(selected))} started before ${before}`);

    const [key] = await createBenchKeys(url, 1, { name: 'purge bench' });
    let runtime = 'compiled (dist/)';
    try {
      compile();
      server = await startServer('service-purge', 'src/server.ts', url);
    } catch (error) {
      // Another change in progress may not compile; the service then runs under tsx.
      runtime = `tsx (compiling failed: ${(error as Error).message.split('\n')[1] ?? ''})`;
      log(`  ${runtime}`);
      server = await startTsxServer(url);
    }

    log('First page alone, 10 s');
    const alone = await firstPageLoad(server, key!, options.connections, { seconds: 10 });
    await query(url, 'SELECT pg_stat_reset()');

    log(`Purging under load (${options.connections} connections on the first page)`);
    const purge = runPurge(url, before, options.batchSize);
    const during = await firstPageLoad(server, key!, options.connections, { stop: purge.catch(() => undefined) });
    const result = await purge;
    log(`  deleted ${n(result.deleted)} in ${result.cliSeconds.toFixed(1)} s: ${n(result.rowsPerSecond)} rows/s`);

    const functions = await query<{ funcname: string; calls: string; self_time: number; total_time: number }>(
      url,
      `SELECT funcname, calls, self_time, total_time FROM pg_stat_user_functions ORDER BY self_time DESC`,
    );
    const [left] = await query<{ left: string; tombstones: string }>(
      url,
      `SELECT (SELECT count(*) FROM interactions WHERE started_at < $1) AS left, (SELECT count(*) FROM interaction_tombstones) AS tombstones`,
      [before],
    );
    const summary = await fetch(`${server.base}/api/v1/metrics/summary?date_from=2000-01-01&date_to=2100-01-01`, {
      headers: { authorization: `Bearer ${key}` },
    }).then((r) => r.json() as Promise<{ data: { total_interactions: number } }>);
    const [{ remaining }] = (await query<{ remaining: string }>(url, 'SELECT count(*) AS remaining FROM interactions')) as [{ remaining: string }];

    const report = renderReport({
      options,
      source,
      total: Number(total),
      before,
      selected: Number(selected),
      runtime,
      alone,
      during,
      result,
      functions,
      left: Number(left!.left),
      tombstones: Number(left!.tombstones),
      summaryTotal: summary.data.total_interactions,
      remaining: Number(remaining),
    });
    fs.mkdirSync(path.dirname(options.out), { recursive: true });
    fs.writeFileSync(options.out, report);
    log(`\n${report}\nWritten to ${options.out}`);
  } finally {
    if (server) await stopServer(server);
    await query(adminUrl, `DROP DATABASE IF EXISTS "${copy}" WITH (FORCE)`).catch((error) => log(`could not drop ${copy}: ${error}`));
    await cluster.release();
  }
}

/**
 * CREATE DATABASE ... TEMPLATE needs the source to have no other session: waits (up to 20 minutes)
 * for other users of the dataset (another bench, a developer's psql) to leave.
 */
async function copyDatabase(adminUrl: string, source: string, copy: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await query(adminUrl, `CREATE DATABASE "${copy}" TEMPLATE "${source}"`);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt >= 240) throw error;
      if (attempt % 12 === 0) log(`  ${source} is in use by other sessions; waiting`);
      await new Promise((resolve) => setTimeout(resolve, 5_000));
    }
  }
}

/** The service under tsx, for when the tree does not compile. */
async function startTsxServer(url: string): Promise<Server> {
  const port = 30_000 + Math.floor(Math.random() * 20_000);
  const logFile = path.join(projectRoot, '.data', 'bench', 'logs', 'service-purge-tsx.log');
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const out = fs.openSync(logFile, 'w');
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: projectRoot,
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', NODE_ENV: 'production', REDIS_URL: '' },
    stdio: ['ignore', out, out],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 360; i++) {
    try {
      if ((await fetch(`${base}/health/ready`)).ok) return { name: 'service-purge', base, child, logFile };
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  child.kill('SIGKILL');
  throw new Error(`the service did not start; see ${logFile}`);
}

function loadRow(label: string, load: LoadResult): string {
  const fivexx = Object.entries(load.statuses)
    .filter(([code]) => code.startsWith('5'))
    .reduce((sum, [, count]) => sum + count, 0);
  const statuses = Object.entries(load.statuses)
    .map(([code, count]) => `${code}: ${n(count)}`)
    .join(', ');
  return `| ${label} | ${n(load.requests)} | ${statuses || '-'} | ${fivexx} | ${load.errors} | ${load.p50} | ${load.p90} | ${load.p99} | ${load.max} |`;
}

function renderReport(r: {
  options: Options;
  source: string;
  total: number;
  before: string;
  selected: number;
  runtime: string;
  alone: LoadResult;
  during: LoadResult;
  result: PurgeRun;
  functions: Array<{ funcname: string; calls: string; self_time: number; total_time: number }>;
  left: number;
  tombstones: number;
  summaryTotal: number;
  remaining: number;
}): string {
  const fivexx = Object.entries(r.during.statuses).some(([code]) => code.startsWith('5')) || r.during.errors > 0;
  const verdicts = [
    `- rows/s >= 20,000: ${r.result.rowsPerSecond >= 20_000 ? 'met' : 'NOT met'} (${n(r.result.rowsPerSecond)})`,
    `- no 5xx during the purge: ${fivexx ? 'NOT met' : 'met'}`,
    `- first page p99 < 200 ms during the purge: ${r.during.p99 < 200 ? 'met' : 'NOT met'} (${r.during.p99} ms)`,
  ];
  const purgeMs = r.result.cliSeconds * 1000;
  const functionRows = r.functions
    .slice(0, 20)
    .map((f) => `| ${f.funcname} | ${n(Number(f.calls))} | ${n(f.self_time)} | ${((100 * f.self_time) / purgeMs).toFixed(1)}% | ${n(f.total_time)} |`);
  return [
    `# purge --before under load (${r.source})`,
    '',
    `Run ${new Date().toISOString()} by \`node --import tsx bench/purge.ts --size ${r.options.size}${r.options.source ? ` --source ${r.options.source}` : ''} --rows ${r.options.rows} --connections ${r.options.connections} --batch-size ${r.options.batchSize}\`.`,
    `Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), ${Math.round(os.totalmem() / 2 ** 30)} GB; embedded PostgreSQL of the bench; service ${r.runtime}.`,
    '',
    `A copy of ${r.source} (${n(r.total)} interactions): \`purge --before ${r.before} --yes --batch-size ${r.options.batchSize}\` selected ${n(r.selected)} interactions and deleted ${n(r.result.deleted)} in ${n(r.result.batches)} batches.`,
    '',
    '## Verdicts',
    '',
    ...verdicts,
    '',
    '## Purge',
    '',
    '| | |',
    '|---|---|',
    `| deleted | ${n(r.result.deleted)} |`,
    `| batches (one transaction each) | ${n(r.result.batches)} |`,
    `| deletion and fold (the CLI's \`seconds\`) | ${r.result.cliSeconds.toFixed(1)} s |`,
    `| rows/s (the CLI's \`rows_per_second\`) | ${n(r.result.rowsPerSecond)} |`,
    `| the process, start to exit (dry-run count, migrations check included) | ${r.result.wallSeconds.toFixed(1)} s |`,
    `| left before the date afterwards | ${n(r.left)} |`,
    `| tombstones | ${n(r.tombstones)} |`,
    `| interactions left / metrics summary total after | ${n(r.remaining)} / ${n(r.summaryTotal)} |`,
    '',
    `## First page (\`GET /api/v1/interactions\`, ${r.options.connections} connections)`,
    '',
    '| | requests | statuses | 5xx | errors | p50 ms | p90 ms | p99 ms | max ms |',
    '|---|---|---|---|---|---|---|---|---|',
    loadRow('alone, 10 s', r.alone),
    loadRow('during the purge', r.during),
    '',
    "## Where PostgreSQL spent the purge's time (pg_stat_user_functions, track_functions = 'pl')",
    '',
    "Self time of each function over the whole purge, and its share of the purge's wall time (the statements themselves - the batch selection, the DELETE, the cascade to transcripts - are the rest).",
    '',
    '| function | calls | self ms | of the purge | total ms |',
    '|---|---|---|---|---|',
    ...functionRows,
    '',
  ].join('\n');
}

await main();
