// The heavy lane's worker thread (limits/heavy-lane.ts): the same app as the main thread's, with
// its own database connections, serving the heavy requests the main thread hands it. The main
// thread has authenticated them and taken their quota and concurrency units, so this app counts
// nothing again: its admission is the one attached to each request, its per-key limits are off.
import { parentPort, workerData } from 'node:worker_threads';
import { Request } from '@whatwg-node/fetch';
import pLimit from 'p-limit';
import { createApp } from './app.js';
import { createPrismaClient } from './db/client.js';
import type { Admission } from './limits/admission.js';
import { presetAdmitter, runWithoutSlices } from './limits/admission.js';
import { type FromWorker, type HeavyLaneSettings, lowerThreadPriority, type ToWorker } from './limits/heavy-lane.js';
import { createLogger } from './logging/logger.js';

const settings = workerData as HeavyLaneSettings;
if (!parentPort) throw new Error('heavy-lane-worker.ts runs as a worker thread (limits/heavy-lane.ts starts it)');
const port = parentPort;

const priority = lowerThreadPriority(settings.nice);
// Every request here is long work, and the main thread's requests never wait on this thread.
runWithoutSlices();
// Request lines are the main thread's (it logs every request once); warnings and errors are kept.
const quiet = ['trace', 'debug', 'info'].includes(settings.logger.level ?? 'info');
const logger = createLogger({ ...settings.logger, level: quiet ? 'warn' : settings.logger.level });
const db = createPrismaClient(settings.databaseUrl, settings.connections, { bounds: settings.bounds, catalogCache: settings.catalogCache });
const admissions = new WeakMap<Request, Admission>();
const app = createApp({
  db,
  logger,
  admitter: presetAdmitter((request) => admissions.get(request)),
  // Counted by the main thread before the request was handed over.
  keyConcurrency: { standard: 0, premium: 0, unlimited: 0 },
  fieldRateLimits: [],
});

// Two requests at once (fewer with fewer connections): one building its answer while the other
// waits for the database. A heavy answer is built in this thread's memory (a year of hours: 8,760
// rows read, as many objects completed, 2 MB of JSON and its bytes), so ten served at once held ten
// of each: peak RSS 347-404 MB for the bench's hourly series at 10 connections, 219-269 MB two at a
// time, with more requests/s (a year of hours in Madrid: 6.6 to 8.7, the baseline 9.0),
// since the thread is one CPU whatever it interleaves. The others wait their turn, in order.
const inTurn = pLimit(Math.max(1, Math.min(2, settings.connections)));

port.on('message', (message: ToWorker) => {
  if ('stop' in message) {
    // In a worker, process.exit ends this thread only: whatever timers the app keeps do not hold it.
    void (async () => {
      await app.dispose();
      await db.$disconnect();
    })().finally(() => process.exit(0));
    return;
  }
  void inTurn(() => serve(message.id, message.request));
});

async function serve(id: number, lane: Extract<ToWorker, { id: number }>['request']): Promise<void> {
  let reply: FromWorker;
  try {
    const request = new Request(lane.url, { method: lane.method, headers: lane.headers, body: lane.body });
    admissions.set(request, { ok: true, key: lane.key, quota: lane.quota });
    const response = await app.fetch(request);
    const body = response.body ? new Uint8Array(await response.arrayBuffer()) : null;
    reply = { id, answer: { status: response.status, headers: [...response.headers], body } };
    port.postMessage(reply, body ? [body.buffer] : []);
  } catch (error) {
    logger.error({ err: error }, 'heavy lane: a request failed outside the app');
    reply = { id, error: error instanceof Error ? error.message : String(error) };
    port.postMessage(reply);
  }
}

port.postMessage({ ready: true, priority } satisfies FromWorker);
