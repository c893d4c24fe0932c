// The heavy lane: requests whose work grows with what they ask (a year of hourly buckets is 17,520
// objects to build, complete and write) are served by a second copy of the app in a worker thread,
// and only their finished bytes come back to the thread that serves every other key.
//
// Why a thread and not more slices: the main thread already cuts long work into 4 ms slices
// (admission.ts), but a cheap request that needs five turns of the event loop still waits five
// slices, and the young-generation collections that such answers cause (15-50 ms, while they are
// alive across slices) pause every request of the isolate. A worker has its own isolate, heap and
// collector, and runs at a lower scheduling priority: its work uses the CPU the main thread leaves.
//
// The main thread keeps every decision that is per key: authentication, quotas and the key's
// concurrency units are taken there before a request is handed over, and given back when its answer
// returns. The worker serves it with the decision attached (limits/admission.ts presetAdmitter) and
// its own connections to the database (HEAVY_LANE_CONNECTIONS), so its statements never wait for
// the main pool either.
//
// Written on node:worker_threads directly: the pools on npm (piscina, workerpool) run a function
// per task, and what runs here is a whole app that keeps its schema, caches and connections
// between requests; one long-lived worker and a map of answers in flight is all it needs.
import { readFileSync, readlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Response } from '@whatwg-node/fetch';
import type { ApiKeyPrincipal } from '../auth/api-keys.js';
import type { DatabaseBounds } from '../db/bounds.js';
import type { LoggerOptions } from '../logging/logger.js';
import type { QuotaDecision } from './windows.js';

/** What the worker needs to build its app (structured-cloneable). */
export interface HeavyLaneSettings {
  databaseUrl: string;
  /** Its own connections to the database. */
  connections: number;
  bounds?: DatabaseBounds;
  /** Clinics and campaigns in memory, as the main thread keeps them (CATALOG_CACHE). */
  catalogCache?: boolean;
  /** Its thread's nice value (0-19): how much it yields to the main thread under contention. */
  nice: number;
  /** The worker's logging: its warnings and unexpected errors (request lines are the main thread's). */
  logger: Pick<LoggerOptions, 'level' | 'pretty'>;
}

/** A request handed to the worker, with the main thread's admission of it. */
export interface LaneRequest {
  method: string;
  url: string;
  headers: Array<[string, string]>;
  body?: string;
  key: ApiKeyPrincipal;
  quota?: QuotaDecision;
}

/** The worker's answer: the app's response, its body read in full. */
export interface LaneAnswer {
  status: number;
  headers: Array<[string, string]>;
  body: Uint8Array | null;
}

export type ToWorker = { id: number; request: LaneRequest } | { stop: true };
export type FromWorker = { ready: true; priority: number | undefined } | { id: number; answer: LaneAnswer } | { id: number; error: string };

/** What the app asks of the lane (a test may give its own). */
export interface HeavyWork {
  serve(request: LaneRequest): Promise<Response>;
}

/**
 * A field of at least this many units of database work (builder.ts DatabaseCost: units by
 * arguments) makes its request heavy. One unit is a page or a total: cheaper to serve here than to
 * hand over.
 */
export const HEAVY_FIELD_UNITS = 2;

/** Whether a document's root fields, by their units, make it heavy work. */
export function isHeavy(fieldUnits: readonly number[]): boolean {
  return fieldUnits.some((units) => units >= HEAVY_FIELD_UNITS);
}

/**
 * Starts the worker: the compiled entry beside this file's folder, or under tsx and vitest the
 * TypeScript source, through tsx's loader registered in the worker first (a worker's execArgv
 * cannot carry `--import tsx` on Node 20).
 */
function startWorker(workerData: HeavyLaneSettings): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('../heavy-lane-worker.js', import.meta.url), { workerData });
  const entry = new URL('../heavy-lane-worker.ts', import.meta.url).href;
  // tsx's ESM API, by its package's export map (require.resolve would give its CommonJS build).
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  const tsx = pathToFileURL(path.join(path.dirname(manifest), exports['./esm/api']!.import.default)).href;
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, workerData });
}

export class HeavyLane implements HeavyWork {
  private worker: Worker | undefined;
  private starting: Promise<Worker> | undefined;
  private readonly pending = new Map<number, { resolve: (answer: LaneAnswer) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private stopped = false;
  /** The worker thread's nice value once started (undefined where threads have none: not Linux). */
  priority: number | undefined;

  constructor(
    private readonly settings: HeavyLaneSettings,
    private readonly onExit: (message: string) => void = () => {},
  ) {}

  /** Starts the worker and waits until its app is built (the server starts it before listening). */
  async start(): Promise<void> {
    await this.ready();
  }

  private ready(): Promise<Worker> {
    if (this.worker) return Promise.resolve(this.worker);
    this.starting ??= new Promise<Worker>((resolve, reject) => {
      const worker = startWorker(this.settings);
      worker.on('message', (message: FromWorker) => {
        if ('ready' in message) {
          this.priority = message.priority;
          this.worker = worker;
          this.starting = undefined;
          resolve(worker);
          return;
        }
        const waiting = this.pending.get(message.id);
        if (!waiting) return;
        this.pending.delete(message.id);
        if ('answer' in message) waiting.resolve(message.answer);
        else waiting.reject(new Error(`heavy lane: ${message.error}`));
      });
      worker.on('error', (error) => reject(error));
      worker.on('exit', (code) => {
        if (this.worker === worker) this.worker = undefined;
        this.starting = undefined;
        reject(new Error(`heavy lane worker exited during start-up (code ${code})`));
        // Whatever it was serving fails (500 to those clients); the next heavy request starts a new one.
        for (const [id, waiting] of this.pending) {
          this.pending.delete(id);
          waiting.reject(new Error(`heavy lane worker exited (code ${code})`));
        }
        if (!this.stopped) this.onExit(`The heavy lane's worker exited (code ${code}); a new one starts with the next heavy request.`);
      });
    });
    return this.starting;
  }

  async serve(request: LaneRequest): Promise<Response> {
    if (this.stopped) throw new Error('heavy lane stopped');
    const worker = await this.ready();
    const id = this.nextId++;
    const answer = await new Promise<LaneAnswer>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Exited since it was ready: its exit has already failed what was pending, so this too.
      if (this.worker !== worker) {
        this.pending.delete(id);
        reject(new Error('heavy lane worker exited'));
        return;
      }
      worker.postMessage({ id, request } satisfies ToWorker);
    });
    return new Response(answer.body as BodyInit | null, { status: answer.status, headers: answer.headers });
  }

  /** Waits for the answers in flight (the server drains first), then ends the worker and its connections. */
  async stop(): Promise<void> {
    this.stopped = true;
    const worker = this.worker ?? (await this.starting?.catch(() => undefined));
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ stop: true } satisfies ToWorker);
    const timeout = setTimeout(() => void worker.terminate(), 10_000);
    await exited;
    clearTimeout(timeout);
  }
}

/**
 * Lowers the calling thread's scheduling priority, and says what it is now. Linux keeps a nice value per thread, and
 * setpriority(2) given a thread id changes that thread only; /proc/thread-self names the id.
 * Elsewhere (or without /proc) the thread keeps the process's priority.
 */
export function lowerThreadPriority(nice: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid)) return undefined;
    if (nice > 0) os.setPriority(tid, nice);
    return os.getPriority(tid);
  } catch {
    return undefined;
  }
}
