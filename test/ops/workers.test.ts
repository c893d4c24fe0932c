// WORKERS=2 as an operator runs it: the real server process with two node:cluster workers. Both
// answer requests (each worker's request log lines carry its pid), one dying leaves the other
// serving, SIGTERM stops them all; with REDIS_URL a key's quota is exact across the two workers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../helpers/app.js';
import { databaseUrl, testDb } from '../helpers/db.js';
import { createClinic } from '../helpers/factories.js';
import { redisUrl, requireRedis } from '../helpers/redis.js';
import { type Answer, getOnOwnConnection, type ServerProcess, startServer } from '../helpers/server-process.js';

const redisAvailable = await requireRedis('WORKERS=2 sharing quotas through Redis');

/** The pids in the server's request log lines (JSON, one object a line) from `offset` on. */
function requestLogPids(server: ServerProcess, offset = 0): number[] {
  const pids: number[] = [];
  for (const line of server.output().slice(offset).split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; pid?: number; route?: string };
    if (entry.msg === 'request' && entry.route === '/api/v1/clinics' && entry.pid !== undefined) pids.push(entry.pid);
  }
  return pids;
}

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Log lines are written after the response; wait until every answered request has its line. */
async function logged(server: ServerProcess, count: number, offset = 0): Promise<number[]> {
  await until(`${count} request log lines`, () => requestLogPids(server, offset).length >= count);
  return requestLogPids(server, offset);
}

let key: string;
beforeAll(async () => {
  const db = testDb();
  key = await createKey(db, { clinicIds: [(await createClinic(db)).id] });
});

describe('WORKERS=2', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({ DATABASE_URL: databaseUrl, WORKERS: '2', LOG_LEVEL: 'info', LOG_FORMAT: 'json', REDIS_URL: '' });
  });
  afterAll(async () => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
  });

  it('starts two workers and says that, without REDIS_URL, each counts quotas on its own', () => {
    expect(server.output()).toMatch(/listening on http:\/\/\S+ \(2 workers\)/);
    expect(server.output()).toMatch(/2 workers without REDIS_URL count quotas per worker/);
  });

  it('both workers answer requests; when one dies the other serves every request; SIGTERM stops both', async () => {
    // One connection after another: the primary hands each to the worker that has waited longest,
    // so they alternate (a burst of connections goes to whichever worker is free first: uneven).
    const first: Answer[] = [];
    for (let i = 0; i < 20; i++) first.push(await getOnOwnConnection(server, '/api/v1/clinics', key));
    expect(first.map((a) => a.status)).toEqual(Array(20).fill(200));
    const pids = await logged(server, 20);
    const workers = [...new Set(pids)];
    // Two processes, neither of them the primary, each serving a real share of the connections.
    expect(workers).toHaveLength(2);
    expect(workers).not.toContain(server.child.pid);
    for (const pid of workers) expect(pids.filter((p) => p === pid).length).toBeGreaterThanOrEqual(5);

    const [dead, survivor] = workers as [number, number];
    process.kill(dead, 'SIGKILL');
    await until('the primary to notice the dead worker', () => server.output().includes(`Worker ${dead} exited`));
    const offset = server.output().length;
    const after = await Promise.all(Array.from({ length: 10 }, () => getOnOwnConnection(server, '/api/v1/clinics', key)));
    expect(after.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(new Set(await logged(server, 10, offset))).toEqual(new Set([survivor]));

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.output()).toMatch(/SIGTERM received: workers finish in-flight requests, then stop/);
    expect(() => process.kill(survivor, 0)).toThrow();
  });
});

describe.skipIf(!redisAvailable)('WORKERS=2 with REDIS_URL', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    // The burst below is about the quotas: 60 requests at once would also meet the key's
    // concurrency limit (per process, test/limits/concurrency.test.ts), turned off here.
    server = await startServer({
      DATABASE_URL: databaseUrl,
      WORKERS: '2',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      REDIS_URL: redisUrl,
      KEY_CONCURRENCY_STANDARD: '0',
    });
  });
  afterAll(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });

  it("a standard key's 60 requests a minute are exact across both workers: 60 of 80 admitted, the rest 429", async () => {
    const db = testDb();
    const standard = await createKey(db, { tier: 'standard', clinicIds: [(await createClinic(db)).id] });
    // The minute window is aligned to UTC minutes: keep the burst clear of a boundary.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 55_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
    const offset = server.output().length;
    // Twenty one after another (both workers count some: they alternate), then sixty at once.
    const answers: Answer[] = [];
    for (let i = 0; i < 20; i++) answers.push(await getOnOwnConnection(server, '/api/v1/clinics', standard));
    answers.push(...(await Promise.all(Array.from({ length: 60 }, () => getOnOwnConnection(server, '/api/v1/clinics', standard)))));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(60);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(20);
    expect(limited.every((a) => a.body.error?.code === 'RATE_LIMITED')).toBe(true);
    // Both workers admitted requests: the count was shared, not one worker's alone.
    expect(new Set(await logged(server, 80, offset)).size).toBe(2);
  });
});
