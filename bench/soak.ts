// `npm run soak [-- options]`: a bad day in production, compressed. Two instances of the service
// share one Redis and one PostgreSQL under mixed REST and GraphQL load, while Redis is stopped and
// resumed (SIGSTOP/SIGCONT of a private redis-server) and dropped, PostgreSQL terminates the
// service's connections, one key sends hostile documents and requests, and one address tries bogus
// keys. The report says whether any response was other than 200/304/4xx/503, whether the quotas of
// the well-behaved keys stayed exact, the latency of well-behaved requests and of /health/live, and
// the instances' resident memory at the start and the end. See bench/README.md.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createApiKey } from '../src/auth/api-keys.js';
import { projectRoot } from '../src/config.js';
import { createPrismaClient } from '../src/db/client.js';
import { ensureDataset, openCluster, parseSize } from './datasets.js';
import { compile, freePort, rssOfTree, type Server, startServer, stopServer } from './processes.js';
import { RESULTS_DIR, updateResultsIndex } from './results-index.js';

const HELP = `npm run soak -- [options]
  --minutes N     how long the load runs (default 10); the faults are spread over it
  --size S        dataset size (default 100k; built as by npm run bench)
  --bulk N        connections sending back-to-back requests with unlimited keys (default 2)
  --out FILE      report path (default bench/results/<date>-soak.md, raw figures in .json beside it)`;

interface Options {
  minutes: number;
  size: string;
  bulk: number;
  out?: string;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { minutes: 10, size: '100k', bulk: 2 };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i];
    const value = argv[i + 1];
    const number = () => {
      const n = Number(value);
      if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} takes a positive number`);
      i++;
      return n;
    };
    if (name === '--minutes') options.minutes = number();
    else if (name === '--bulk') options.bulk = Math.floor(number());
    else if (name === '--size' && value) options.size = argv[++i]!;
    else if (name === '--out' && value) options.out = argv[++i]!;
    else if (name === '--help') {
      console.log(HELP);
      process.exit(0);
    } else throw new Error(`Unknown option ${name}\n${HELP}`);
  }
  return options;
}

const log = (message: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${message}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// A private Redis that the soak may stop (the machine's own is never touched)

interface PrivateRedis {
  url: string;
  process: ChildProcess;
  stop(): void;
  resume(): void;
  close(): Promise<void>;
}

async function startRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const failed = new Promise<never>((_, reject) =>
    child.once('error', (e) => reject(new Error(`cannot start redis-server (${e.message}); the soak needs it on PATH`))),
  );
  failed.catch(() => {}); // reported through the race below when it happens while starting
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 100 });
  probe.on('error', () => {});
  await Promise.race([
    failed,
    (async () => {
      for (let i = 0; i < 50; i++) {
        try {
          await probe.connect().catch(() => {});
          if ((await probe.ping()) === 'PONG') return;
        } catch {}
        await sleep(100);
      }
      throw new Error('redis-server did not answer');
    })(),
  ]);
  probe.disconnect();
  return {
    url,
    process: child,
    stop: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    close: async () => {
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// What is sent

type Kind = 'paced' | 'bulk' | 'quota' | 'hostile' | 'bogus-key' | 'health';

interface Sample {
  kind: Kind;
  what: string;
  instance: number;
  /** ms since the soak started, when the request was sent. */
  at: number;
  ms: number;
  /** HTTP status, or 0 when no response came (reset, timeout). */
  status: number;
  error?: string;
  /** The key's admission counted this request (rate-limit headers on a non-429 answer). */
  admitted?: boolean;
  keyIndex?: number;
}

const REST_PATHS = [
  '/api/v1/interactions?limit=25',
  '/api/v1/interactions?channel=voice&type=CAMPAIGN_OUTBOUND&limit=10',
  '/api/v1/interactions?search=%2B34&limit=10',
  '/api/v1/clinics',
  '/api/v1/campaigns?status=active',
  '/api/v1/metrics/summary',
  '/api/v1/metrics/daily',
  '/api/v1/metrics/outcomes?channel=whatsapp',
];
const GRAPHQL_DOCUMENTS = [
  '{ metricsSummary { totalInteractions successRate appointmentsScheduled } }',
  '{ interactions(limit: 20) { nodes { id channel outcome clinic { name } campaign { name } } pageInfo { total } } }',
  '{ clinics(limit: 5) { nodes { name campaigns(limit: 3) { nodes { name status } } } } }',
];

interface Call {
  what: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

const wellBehaved = (n: number): Call => {
  const all = REST_PATHS.length + GRAPHQL_DOCUMENTS.length;
  const i = n % all;
  if (i < REST_PATHS.length) return { what: REST_PATHS[i]!.split('?')[0]!, method: 'GET', path: REST_PATHS[i]! };
  const query = GRAPHQL_DOCUMENTS[i - REST_PATHS.length]!;
  return { what: `graphql ${i - REST_PATHS.length + 1}`, method: 'POST', path: '/graphql', body: JSON.stringify({ query }) };
};

const repeat = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(' ');
const today = () => new Date().toISOString().slice(0, 10);
const yearAgo = () => new Date(Date.now() - 364 * 86_400_000).toISOString().slice(0, 10);
const HOSTILE_CALLS: Call[] = [
  {
    what: '6,000 operations',
    method: 'POST',
    path: '/graphql',
    body: JSON.stringify({ query: repeat(6_000, (i) => `query O${i} { metricsSummary { totalInteractions } }`), operationName: 'O1' }),
  },
  {
    what: 'one field 300 times',
    method: 'POST',
    path: '/graphql',
    body: JSON.stringify({ query: `{ ${repeat(300, () => 'metricsSummary { totalInteractions }')} }` }),
  },
  { what: '__typename aliases', method: 'POST', path: '/graphql', body: JSON.stringify({ query: `{ ${repeat(20_000, (i) => `a${i}:__typename`)} }` }) },
  {
    what: 'introspection aliases',
    method: 'POST',
    path: '/graphql',
    body: JSON.stringify({ query: `{ __schema { types { fields { ${repeat(2_000, (i) => `t${i}:__typename`)} } } } }` }),
  },
  { what: 'then alias', method: 'POST', path: '/graphql', body: JSON.stringify({ query: '{ interactions(limit: 100) { nodes { then: id } } }' }) },
  {
    what: 'deep page of everything',
    method: 'POST',
    path: '/graphql',
    body: JSON.stringify({ query: '{ interactions(limit: 500, page: 150) { nodes { id transcript { role content } } } }' }),
  },
  // The largest answer the document limits allow: 1,360 transcripts, just under the cost limit.
  {
    what: 'transcripts at the cost limit',
    method: 'POST',
    path: '/graphql',
    body: JSON.stringify({
      query: `{ ${[500, 500, 360].map((limit, i) => `p${i}: interactions(limit: ${limit}, page: ${i + 1}) { nodes { id transcript { role content } } }`).join(' ')} }`,
    }),
  },
  // The costliest requests the API allows (capacity isolation): many aliases of the database-reading
  // fields, metrics in a zone whose offset is not whole hours with a filter, and a search word that
  // matches nothing walked by cursor. They may be refused (429) or answered; never at others' cost.
  ...(['metricsSeries', 'metricsDailyReport'] as const).map(
    (field): Call => ({
      what: `15 aliases of ${field} in Kathmandu`,
      method: 'POST',
      path: '/graphql',
      body: JSON.stringify({
        query: `{ ${repeat(15, (i) => `a${i}: ${field}(${field === 'metricsSeries' ? 'granularity: HOUR, ' : ''}timezone: "Asia/Kathmandu", channel: VOICE, compare: PREVIOUS_YEAR, dateFrom: "${yearAgo()}", dateTo: "${today()}") { __typename }`)} }`,
      }),
    }),
  ),
  {
    what: '15 aliases of a text search matching nothing',
    method: 'POST',
    path: '/graphql',
    body: JSON.stringify({ query: `{ ${repeat(15, (i) => `a${i}: interactionsConnection(text: "zzqqxx", first: 100) { edges { cursor } }`)} }` }),
  },
  {
    what: 'hourly year in Kathmandu with channel',
    method: 'GET',
    path: `/api/v1/metrics/series?granularity=hour&timezone=Asia/Kathmandu&channel=voice&compare=previous_year&date_from=${yearAgo()}&date_to=${today()}`,
  },
  { what: 'q matching nothing, by cursor', method: 'GET', path: '/api/v1/interactions?q=zzqqxx&cursor=&limit=500' },
  { what: 'phone in Arabic-Indic digits', method: 'GET', path: `/api/v1/interactions?search=${encodeURIComponent('٣٤٦')}&limit=10` },
  { what: '__proto__ parameter', method: 'GET', path: '/api/v1/interactions?__proto__=1' },
  { what: 'bad percent-encoding', method: 'GET', path: '/api/v1/interactions?search=%E0%A4%A' },
  { what: 'limit 501', method: 'GET', path: '/api/v1/interactions?limit=501' },
];
/** Sent only now and then: building and sending it is the client's cost too. */
const HUGE_ALIASES: Call = {
  what: '400,000 __typename aliases',
  method: 'POST',
  path: '/graphql',
  body: JSON.stringify({ query: `{ ${repeat(400_000, (i) => `a${i}:__typename`)} }` }),
};

async function send(base: string, call: Call, key: string | undefined, timeoutMs = 30_000): Promise<{ status: number; headers?: Headers; error?: string }> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (call.body) headers['content-type'] = 'application/json';
  try {
    const response = await fetch(`${base}${call.path}`, { method: call.method, headers, body: call.body, signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return { status: response.status, headers: response.headers };
  } catch (error) {
    return { status: 0, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

/** A request fetch would refuse to send (a hostile Host header), over a raw socket; the status line's code. */
function rawStatus(port: number, payload: string, timeoutMs = 15_000): Promise<{ status: number; error?: string }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(payload));
    let answer = '';
    const done = (error?: string) => {
      socket.destroy();
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1] ?? 0);
      resolve(status ? { status } : { status: 0, error: error ?? 'no status line' });
    };
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (/\r\n\r\n/.test(answer)) done();
    });
    socket.on('error', (e) => done(e.message));
    socket.on('close', () => done('closed'));
    socket.setTimeout(timeoutMs, () => done('timeout'));
  });
}

/**
 * A request whose body arrives one byte a second and never completes: the server must give up on
 * it by its own timeout. Resolves with how long the connection stayed open (capped at `capMs`).
 */
function slowBody(port: number, key: string, capMs: number): Promise<number> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(
        `POST /graphql HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
      );
    });
    const drip = setInterval(() => socket.write(' '), 1_000);
    const done = () => {
      clearInterval(drip);
      clearTimeout(cap);
      socket.destroy();
      resolve(Date.now() - started);
    };
    const cap = setTimeout(done, capMs);
    socket.on('data', () => {});
    socket.on('error', done);
    socket.on('close', done);
  });
}

/**
 * An export whose client reads nothing after the status line (TCP backpressure stops the server's
 * writes). A paused socket does not notice being closed, so after `holdMs` (beyond the server's
 * stall bound) the client reads again: a cut answer ends at once (incomplete), one whose every byte
 * had already been handed to the kernel completes; one that still trickles or hangs is a failure.
 */
function unreadExport(port: number, key: string, accept: string, holdMs: number): Promise<{ status: number; error?: string }> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: { status: number; error?: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(hold);
      clearTimeout(deadline);
      request.destroy();
      resolve(result);
    };
    let deadline: NodeJS.Timeout | undefined;
    let hold: NodeJS.Timeout | undefined;
    const request = http.get(
      { host: '127.0.0.1', port, path: '/api/v1/interactions', headers: { Authorization: `Bearer ${key}`, Accept: accept } },
      (response) => {
        const status = response.statusCode ?? 0;
        response.on('error', () => finish({ status }));
        response.once('close', () => finish({ status }));
        if (status !== 200) {
          response.resume();
          return;
        }
        response.pause();
        hold = setTimeout(() => {
          response.on('data', () => {});
          response.resume();
          deadline = setTimeout(() => finish({ status: 0, error: 'the unread export was neither cut nor ended' }), 15_000);
        }, holdMs);
      },
    );
    request.on('error', (e) => finish({ status: 0, error: e.message }));
  });
}

// ---------------------------------------------------------------------------------------------
// Faults

interface Fault {
  what: string;
  from: number;
  to: number;
}

async function terminateBackends(admin: pg.Client, database: string): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    `SELECT count(pg_terminate_backend(pid))::text AS n FROM pg_stat_activity
      WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND application_name NOT LIKE 'soak%'`,
    [database],
  );
  return Number(rows[0]?.n ?? 0);
}

// ---------------------------------------------------------------------------------------------
// Figures

const percentile = (values: number[], p: number) => {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const ms = (n: number) => (Number.isNaN(n) ? '-' : n >= 100 ? n.toFixed(0) : n.toFixed(1));

const EXPECTED_STATUS = (status: number) => status === 200 || status === 304 || status === 503 || (status >= 400 && status < 500);

interface QuotaMinute {
  key: number;
  minute: string;
  admitted: number;
  refused: number;
  /** A Redis fault overlapped the minute: each instance may then have counted on its own. */
  degraded: boolean;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const started = new Date();
  const out = options.out ?? path.join(projectRoot, 'bench', 'results', `${started.toISOString().slice(0, 10)}-soak.md`);
  const durationMs = options.minutes * 60_000;
  log(`Soak: ${options.minutes} minutes on two instances sharing a private Redis; dataset ${options.size}`);

  compile();
  const cluster = await openCluster(log);
  const dataset = await ensureDataset(cluster, parseSize(options.size), { rebuild: false, log });
  const redis = await startRedis();
  const db = createPrismaClient(dataset.url, 2);
  const admin = new pg.Client({ connectionString: dataset.url, application_name: 'soak admin' });
  await admin.connect();
  const servers: Server[] = [];
  try {
    await db.apiKey.deleteMany({ where: { name: { startsWith: 'soak ' } } });
    // Live keys: the dataset's clinics are live ones, which test keys do not see.
    const make = async (name: string, tier: 'standard' | 'premium' | 'unlimited') => (await createApiKey(db, { name, tier, environment: 'live' })).key;
    const paced = await Promise.all([1, 2, 3, 4].map((i) => make(`soak paced ${i}`, 'premium')));
    const quota = await Promise.all([1, 2].map((i) => make(`soak quota ${i}`, 'standard')));
    const bulk = await Promise.all(Array.from({ length: options.bulk }, (_, i) => make(`soak bulk ${i + 1}`, 'unlimited')));
    const hostile = await make('soak hostile', 'premium');

    for (const name of ['soak-a', 'soak-b']) servers.push(await startServer(name, 'src/server.ts', dataset.url, { env: { REDIS_URL: redis.url } }));
    const bases = servers.map((s) => s.base);
    const ports = bases.map((b) => Number(new URL(b).port));
    log(`Instances at ${bases.join(' and ')}; Redis ${redis.url}; logs in .data/bench/logs/`);

    const t0 = Date.now();
    const now = () => Date.now() - t0;
    const samples: Sample[] = [];
    const faults: Fault[] = [];
    const slowBodies: number[] = [];
    let running = true;
    const record = (sample: Sample) => samples.push(sample);

    const timed = async (
      kind: Kind,
      what: string,
      instance: number,
      fn: () => Promise<{ status: number; headers?: Headers; error?: string }>,
      keyIndex?: number,
    ) => {
      const at = now();
      const result = await fn();
      const admitted = result.status !== 0 && result.status !== 429 && Boolean(result.headers?.has('x-ratelimit-remaining-minute'));
      record({ kind, what, instance, at, ms: now() - at, status: result.status, error: result.error, admitted, keyIndex });
    };

    const loops: Promise<void>[] = [];
    // Well-behaved, paced below their Premium quota (4 a second = 240 a minute of 300).
    loops.push(
      ...paced.map((key, k) =>
        (async () => {
          for (let n = k; running; n++) {
            const next = Date.now() + 250;
            const call = wellBehaved(n);
            await timed('paced', call.what, n % 2, () => send(bases[n % 2]!, call, key));
            await sleep(Math.max(0, next - Date.now()));
          }
        })(),
      ),
    );
    // Well-behaved, back to back, unlimited: the load everything else runs under.
    loops.push(
      ...bulk.map((key, k) =>
        (async () => {
          for (let n = k * 3; running; n++) {
            const call = wellBehaved(n);
            await timed('bulk', call.what, n % 2, () => send(bases[n % 2]!, call, key));
          }
        })(),
      ),
    );
    // Standard keys at 2 a second, alternating instances: 60 of each minute's ~112 must be admitted.
    // Nothing is sent in the two seconds either side of a minute boundary, so that no request's
    // minute is in doubt.
    loops.push(
      ...quota.map((key, k) =>
        (async () => {
          for (let n = k; running; n++) {
            const next = Date.now() + 500;
            const second = new Date().getUTCSeconds();
            if (second >= 2 && second < 58)
              await timed(
                'quota',
                '/api/v1/metrics/summary',
                n % 2,
                () => send(bases[n % 2]!, { what: 'summary', method: 'GET', path: '/api/v1/metrics/summary' }, key),
                k,
              );
            await sleep(Math.max(0, next - Date.now()));
          }
        })(),
      ),
    );
    // One key's hostile documents and requests, and one address's bogus keys.
    loops.push(
      (async () => {
        for (let n = 0; running; n++) {
          const next = Date.now() + 400;
          const instance = n % 2;
          const slot = n % (HOSTILE_CALLS.length + 3);
          if (n % 150 === 75) await timed('hostile', HUGE_ALIASES.what, instance, () => send(bases[instance]!, HUGE_ALIASES, hostile));
          else if (slot < HOSTILE_CALLS.length) {
            const call = HOSTILE_CALLS[slot]!;
            await timed('hostile', call.what, instance, () => send(bases[instance]!, call, hostile));
          } else if (slot === HOSTILE_CALLS.length && n % 4 === 1) {
            // More headers than the server reads, the key last; then the key twice.
            const many = Array.from({ length: 1_001 }, (_, i) => `h${i}: 1\r\n`).join('');
            const payload =
              n % 8 === 1
                ? `GET /api/v1/clinics HTTP/1.1\r\nHost: localhost\r\n${many}Authorization: Bearer ${hostile}\r\nConnection: close\r\n\r\n`
                : `GET /api/v1/clinics HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${hostile}\r\nAuthorization: Bearer x\r\nConnection: close\r\n\r\n`;
            await timed('hostile', n % 8 === 1 ? '1,001 headers' : 'two Authorization headers', instance, () => rawStatus(ports[instance]!, payload));
          } else if (slot === HOSTILE_CALLS.length) {
            const host = n % 2 ? 'x/graphql?query={clinics{nodes{name}}}&' : '[::1';
            await timed('hostile', `Host: ${host}`, instance, () =>
              rawStatus(
                ports[instance]!,
                `GET /api/v1/interactions HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${hostile}\r\nConnection: close\r\n\r\n`,
              ),
            );
          } else {
            const call: Call = { what: 'bogus key', method: 'GET', path: '/api/v1/clinics' };
            await timed('bogus-key', call.what, instance, () =>
              send(bases[instance]!, call, `svc_live_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x')}`),
            );
          }
          await sleep(Math.max(0, next - Date.now()));
        }
      })(),
    );
    // Two exports at a time left unread by the hostile key (a stalled reader): the server must cut
    // them by its own bound, and others' exports and requests must not wait for them.
    for (let i = 0; i < 2; i++) {
      loops.push(
        (async () => {
          while (running) {
            const format = i ? 'text/csv' : 'application/x-ndjson';
            await timed('hostile', `unread export (${format})`, i, () => unreadExport(ports[i]!, hostile, format, 90_000));
          }
        })(),
      );
    }
    // Two slow bodies at a time, one byte a second.
    for (let i = 0; i < 2; i++) {
      loops.push(
        (async () => {
          while (running) slowBodies.push(await slowBody(ports[i]!, hostile, 120_000));
        })(),
      );
    }
    // Liveness of both instances, four times a second.
    loops.push(
      (async () => {
        for (let n = 0; running; n++) {
          const next = Date.now() + 250;
          const instance = n % 2;
          await timed('health', '/health/live', instance, () =>
            send(bases[instance]!, { what: 'live', method: 'GET', path: '/health/live' }, undefined, 10_000),
          );
          await sleep(Math.max(0, next - Date.now()));
        }
      })(),
    );

    // The faults, spread over the run.
    const at = (fraction: number) => sleep(Math.max(0, fraction * durationMs - now()));
    const rss = { start: [0, 0], end: [0, 0] };
    const rssMb = () => servers.map((s) => Math.round(rssOfTree(s.child.pid!).totalKb / 1024));
    const schedule = (async () => {
      const redisStop = async (seconds: number) => {
        const fault = { what: `Redis stopped (SIGSTOP) for ${seconds} s`, from: now(), to: 0 };
        log(fault.what);
        redis.stop();
        await sleep(seconds * 1_000);
        redis.resume();
        fault.to = now();
        faults.push(fault);
        log('Redis resumed (SIGCONT)');
      };
      const terminate = async (seconds: number) => {
        const fault = { what: `PostgreSQL: the service's connections terminated every second for ${seconds} s`, from: now(), to: 0 };
        log(fault.what);
        let terminated = 0;
        for (let i = 0; i < seconds; i++) {
          terminated += await terminateBackends(admin, dataset.database);
          await sleep(1_000);
        }
        fault.to = now();
        fault.what += ` (${terminated} connections)`;
        faults.push(fault);
        log(`  ${terminated} connections terminated`);
      };
      await sleep(Math.min(60_000, durationMs * 0.1));
      rss.start = rssMb();
      log(`Resident memory at the start: ${rss.start.join(' / ')} MB`);
      await at(0.15);
      await redisStop(30);
      await at(0.35);
      await terminate(30);
      await at(0.5);
      await redisStop(45);
      await at(0.7);
      await terminate(30);
      await at(0.82);
      const drop = { what: 'Redis: every client connection killed (CLIENT KILL TYPE normal)', from: now(), to: now() };
      const killer = new Redis(redis.url, { maxRetriesPerRequest: 0 });
      await killer.call('CLIENT', 'KILL', 'TYPE', 'normal').catch(() => {});
      killer.disconnect();
      faults.push(drop);
      log(drop.what);
      await at(1);
      rss.end = rssMb();
    })();
    await schedule;
    running = false;
    log('Stopping the load');
    await Promise.race([Promise.all(loops), sleep(40_000)]);

    const monitor = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    const redisInfo = await monitor.info('memory');
    const redisMemoryMb = Number(/used_memory:(\d+)/.exec(redisInfo)?.[1] ?? 0) / 1024 / 1024;
    monitor.disconnect();

    // ---- figures
    const unexpected = samples.filter((s) => !EXPECTED_STATUS(s.status));
    const byStatus = new Map<string, number>();
    for (const s of samples) {
      const k = `${s.kind} ${s.status || s.error || 'none'}`;
      byStatus.set(k, (byStatus.get(k) ?? 0) + 1);
    }
    const goodKinds: Kind[] = ['paced', 'bulk'];
    const good = samples.filter((s) => goodKinds.includes(s.kind));
    const goodOk = good.filter((s) => s.status === 200);
    const inFault = (s: Sample) => faults.some((f) => s.at + s.ms >= f.from && s.at <= f.to + 5_000);
    const health = samples.filter((s) => s.kind === 'health');

    // Quotas per key and UTC minute; a minute is degraded when a Redis fault (plus the breaker's
    // way back) overlaps it, or it is the first or last, partial, minute of the run.
    const quotaMinutes: QuotaMinute[] = [];
    const minuteOf = (s: Sample) => Math.floor((t0 + s.at) / 60_000);
    const firstMinute = Math.floor(t0 / 60_000) + 1;
    const lastMinute = Math.floor((t0 + durationMs) / 60_000) - 1;
    for (let k = 0; k < quota.length; k++) {
      for (let m = firstMinute; m <= lastMinute; m++) {
        const inMinute = samples.filter((s) => s.kind === 'quota' && s.keyIndex === k && minuteOf(s) === m);
        const degraded = faults.some((f) => f.what.startsWith('Redis') && f.from <= (m + 1) * 60_000 - t0 && f.to + 30_000 >= m * 60_000 - t0);
        quotaMinutes.push({
          key: k + 1,
          minute: new Date(m * 60_000).toISOString().slice(11, 16),
          admitted: inMinute.filter((s) => s.admitted).length,
          refused: inMinute.filter((s) => s.status === 429).length,
          degraded,
        });
      }
    }
    // What was in flight on the same instance while the slowest liveness probes waited: a long
    // stall names its cause (a hostile document, a fault) or shows it had none.
    const overlapping = (probe: Sample) =>
      samples.filter((s) => s !== probe && s.instance === probe.instance && s.kind === 'hostile' && s.at < probe.at + probe.ms && s.at + s.ms > probe.at);
    const slowestProbes = [...health]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 5)
      .map((probe) => {
        const faultsThen = faults.filter((f) => probe.at + probe.ms >= f.from && probe.at <= f.to).map((f) => f.what);
        const hostileThen = [...new Set(overlapping(probe).map((s) => s.what))];
        return `${(probe.at / 1000).toFixed(1)} s, instance ${probe.instance + 1}: ${ms(probe.ms)} ms; hostile requests in flight on it: ${hostileThen.join(', ') || 'none'}; faults: ${faultsThen.join(', ') || 'none'}`;
      });
    const healthyMinutes = quotaMinutes.filter((q) => !q.degraded);
    const inexact = healthyMinutes.filter((q) => q.admitted !== 60);
    const growth = rss.start.map((s, i) => (s ? ((rss.end[i]! - s) / s) * 100 : 0));

    const verdicts = [
      { ok: unexpected.length === 0, text: `responses other than 200/304/4xx/503 (or no response): ${unexpected.length}` },
      {
        ok: good.filter((s) => !inFault(s) && s.status >= 500).length === 0,
        text: `well-behaved requests answered 5xx outside the faults, while the hostile key sent the costliest requests: ${good.filter((s) => !inFault(s) && s.status >= 500).length}`,
      },
      {
        ok: healthyMinutes.length > 0 && inexact.length === 0,
        text: `quota minutes with Redis healthy that admitted exactly 60: ${healthyMinutes.length - inexact.length} of ${healthyMinutes.length}`,
      },
      {
        ok: growth.every((g) => g <= 10),
        text: `resident memory growth from start to end: ${growth.map((g) => `${g.toFixed(1)}%`).join(' / ')} (at most 10%)`,
      },
      {
        ok:
          percentile(
            health.map((s) => s.ms),
            99,
          ) <= 100,
        text: `/health/live p99 ${ms(
          percentile(
            health.map((s) => s.ms),
            99,
          ),
        )} ms, max ${ms(Math.max(...health.map((s) => s.ms)))} ms (p99 at most 100 ms)`,
      },
      {
        ok: slowBodies.every((d) => d < 60_000),
        text: `slow bodies closed by the server after ${ms(percentile(slowBodies, 50) / 1000)} s (p50), ${ms(Math.max(0, ...slowBodies) / 1000)} s at most (under 60 s)`,
      },
    ];
    const passed = verdicts.every((v) => v.ok);

    const lines = [
      `# Soak, ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      '',
      `\`npm run soak -- ${process.argv.slice(2).join(' ')}\``,
      '',
      `- Machine: ${os.cpus()[0]?.model ?? '?'} x ${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB; ${cluster.describe}; dataset ${dataset.database} (${dataset.meta.rows.toLocaleString('en-US')} interactions).`,
      `- Two instances (\`dist/src/server.js\`, one process each, defaults for every timeout and limit) sharing a private redis-server; ${options.minutes} minutes.`,
      `- Load: ${paced.length} Premium keys at 4 requests/s each and ${bulk.length} unlimited keys back to back (REST and GraphQL mixed, alternating instances); ${quota.length} Standard keys at 2 requests/s (seconds 2-57 of each minute); one Premium key sending hostile documents and requests every 400 ms (${[...HOSTILE_CALLS.map((c) => c.what), HUGE_ALIASES.what, 'malformed Host headers', '1,001 headers', 'two Authorization headers'].join(', ')}) and two exports it never reads; bogus keys from the same address; two request bodies arriving one byte a second; /health/live four times a second.`,
      '',
      '## Verdicts',
      '',
      ...verdicts.map((v) => `- ${v.ok ? 'PASS' : 'FAIL'}: ${v.text}`),
      '',
      '## Faults',
      '',
      ...faults.map((f) => `- ${(f.from / 1000).toFixed(0)}-${(f.to / 1000).toFixed(0)} s: ${f.what}`),
      '',
      '## Well-behaved requests (paced and bulk keys)',
      '',
      '| | requests | 200 | 503 | other | p50 ms | p99 ms |',
      '|---|--:|--:|--:|--:|--:|--:|',
      ...[
        ['all', good],
        ['outside faults', good.filter((s) => !inFault(s))],
        ['during faults', good.filter(inFault)],
      ].map(([label, set]) => {
        const s = set as Sample[];
        const oks = s.filter((x) => x.status === 200).map((x) => x.ms);
        return `| ${label} | ${s.length} | ${oks.length} | ${s.filter((x) => x.status === 503).length} | ${s.filter((x) => x.status !== 200 && x.status !== 503).length} | ${ms(percentile(oks, 50))} | ${ms(percentile(oks, 99))} |`;
      }),
      '',
      `Throughput: ${(goodOk.length / (durationMs / 1000)).toFixed(0)} successful well-behaved requests/s.`,
      '',
      '## Slowest /health/live answers',
      '',
      ...slowestProbes.map((line) => `- ${line}`),
      '',
      '## Quotas (Standard keys, 60 a minute)',
      '',
      '| key | minute (UTC) | admitted | refused (429) | Redis |',
      '|--:|---|--:|--:|---|',
      ...quotaMinutes.map(
        (q) =>
          `| ${q.key} | ${q.minute} | ${q.admitted} | ${q.refused} | ${q.degraded ? 'fault in or near this minute (each instance may count alone)' : 'healthy'} |`,
      ),
      '',
      '## Memory',
      '',
      `- Resident memory per instance at the start (after ${Math.round(Math.min(60, options.minutes * 6))} s) and at the end: ${rss.start.map((s, i) => `${s} -> ${rss.end[i]} MB`).join(', ')}.`,
      `- Redis used memory at the end: ${redisMemoryMb.toFixed(1)} MB.`,
      '',
      '## Every response, by kind and status',
      '',
      '| kind | status | count |',
      '|---|---|--:|',
      ...[...byStatus.entries()].sort().map(([k, n]) => `| ${k.split(' ')[0]} | ${k.split(' ').slice(1).join(' ')} | ${n} |`),
      '',
      ...(unexpected.length
        ? [
            '## Unexpected responses (first 20)',
            '',
            ...unexpected.slice(0, 20).map((s) => `- ${(s.at / 1000).toFixed(1)} s ${s.kind} ${s.what}: ${s.status} ${s.error ?? ''}`),
            '',
          ]
        : []),
    ];
    const text = lines.join('\n');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, text);
    fs.writeFileSync(
      out.replace(/\.md$/, '.json'),
      `${JSON.stringify({ startedAt: started.toISOString(), options, faults, verdicts, quotaMinutes, rss, redisMemoryMb, byStatus: Object.fromEntries(byStatus), slowBodies }, null, 1)}\n`,
    );
    console.log(`\n${text}\nWritten to ${path.relative(projectRoot, out)}`);
    if (path.dirname(path.resolve(out)) === RESULTS_DIR) {
      const moved = updateResultsIndex();
      console.log(`bench/results/README.md updated${moved.length ? `; superseded reports moved to bench/results/archive/: ${moved.join(', ')}` : ''}`);
    }
    if (!passed) process.exitCode = 1;
  } finally {
    for (const server of servers) await stopServer(server);
    await admin.end().catch(() => {});
    await db.$disconnect();
    await redis.close();
    await cluster.release();
  }
}

main().catch((error: unknown) => {
  console.error(`\nSoak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
