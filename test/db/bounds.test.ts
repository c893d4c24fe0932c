// The database client's bounds (db/client.ts DatabaseBounds) and which real failures count as the
// database being unavailable (db/errors.ts): each error below is produced for real, on a real
// PostgreSQL, through the paths requests take (Prisma model queries, Prisma raw queries,
// `queryRows`), never built by hand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseBounds } from '../../src/db/bounds.js';
import { createPrismaClient, type Db, queryRows } from '../../src/db/client.js';
import { isDatabaseUnavailable } from '../../src/db/errors.js';
import { Prisma } from '../../src/generated/prisma/client.js';
import { databaseUrl, databaseUrlVia, sql, testDb } from '../helpers/db.js';
import { createClinic, uniqueId } from '../helpers/factories.js';
import { createTcpRelay } from '../helpers/server-process.js';

const target = new URL(databaseUrl);
const BOUNDS: DatabaseBounds = { connectTimeoutMs: 1_000, queryTimeoutMs: 1_000, statementTimeoutMs: 500, readyTimeoutMs: 500 };

/** The error `work` fails with (the test fails if it succeeds). */
async function failure(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

/** Terminates the backends named `applicationName` in this run's database (filter first: see database-faults.test.ts). */
async function terminate(applicationName: string): Promise<number> {
  const rows = await sql(
    `WITH mine AS MATERIALIZED (SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = $2)
     SELECT pid FROM mine WHERE pg_terminate_backend(pid)`,
    [applicationName, target.pathname.slice(1)],
  );
  return rows.length;
}

/** Waits until a backend named `applicationName` is running a statement (or waiting for a lock). */
async function untilActive(applicationName: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const rows = await sql("SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND state = 'active'", [applicationName]);
    if (rows.length) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no active backend named ${applicationName}`);
}

const clients: Db[] = [];
function client(url: string, poolSize: number, bounds?: DatabaseBounds): Db {
  const db = createPrismaClient(url, poolSize, { bounds });
  clients.push(db);
  return db;
}
afterAll(async () => {
  await Promise.all(clients.map((db) => db.$disconnect().catch(() => {})));
});

describe('connections terminated by the server (pg_terminate_backend: 57P01) are "unavailable"', () => {
  it('during a Prisma model query (P2039 wrapping the adapter error)', async () => {
    const clinic = await createClinic(testDb());
    const name = uniqueId('bounds-model');
    const db = client(databaseUrlVia({ applicationName: name }), 1);
    // Hold the row so that the model query is in flight, waiting for the lock, when its backend goes.
    const holder = client(databaseUrl, 1);
    const held = holder.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT id FROM clinics WHERE id = ${clinic.id}::uuid FOR UPDATE`;
      const update = db.clinic.update({ where: { id: clinic.id }, data: { name: 'renamed' } });
      const error = failure(update);
      await untilActive(name);
      expect(await terminate(name)).toBe(1);
      return error;
    });
    const error = await held;
    expect(error).toMatchObject({ code: 'P2039' });
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it('during a Prisma raw query (P2010) and a hand-written one (queryRows: the DatabaseError itself)', async () => {
    const name = uniqueId('bounds-raw');
    const db = client(databaseUrlVia({ applicationName: name }), 2);
    const raw = failure(db.$queryRaw`SELECT pg_sleep(10)`);
    const rows = failure(queryRows(db, Prisma.sql`SELECT pg_sleep(10)`));
    await untilActive(name);
    await terminate(name);
    expect(await raw).toMatchObject({ code: 'P2010' });
    expect(await rows).toMatchObject({ code: '57P01' });
    expect(isDatabaseUnavailable(await raw)).toBe(true);
    expect(isDatabaseUnavailable(await rows)).toBe(true);
  });
});

describe('timeouts are "unavailable"', () => {
  it('statement_timeout (57014): the server cancels the statement and the next query is served', async () => {
    const db = client(databaseUrl, 1, BOUNDS);
    const error = await failure(db.$queryRaw`SELECT pg_sleep(3)`);
    expect(error).toMatchObject({ code: 'P2010' });
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(isDatabaseUnavailable(await failure(queryRows(db, Prisma.sql`SELECT pg_sleep(3)`)))).toBe(true);
    expect(await db.$queryRaw`SELECT 1 AS one`).toEqual([{ one: 1 }]);
  });

  it('a hung database: the query, a new connection and the wait for a busy pool each fail within their bound', async () => {
    const relay = await createTcpRelay({ host: target.hostname, port: Number(target.port || 5432) });
    try {
      const db = client(databaseUrlVia({ port: relay.port }), 1, BOUNDS);
      await db.$queryRaw`SELECT 1`;
      relay.freeze();
      const started = Date.now();
      // Whichever gets the pooled connection first gets no answer to its query; the other waits for
      // that connection, the pool's only one.
      const both = await Promise.all([failure(db.clinic.findMany()), failure(queryRows(db, Prisma.sql`SELECT 1`))]);
      expect(both.map((e) => (e as Error).message).sort()).toEqual(['Query read timeout', 'timeout exceeded when trying to connect']);
      // The timed-out connection was closed: the next query needs a new one, whose start-up gets no answer.
      const connecting = await failure(db.$queryRaw`SELECT 1`);
      expect(connecting).toMatchObject({ message: 'Connection terminated due to connection timeout' });
      for (const error of [...both, connecting]) expect(isDatabaseUnavailable(error)).toBe(true);
      expect(Date.now() - started).toBeLessThan(8_000);

      relay.thaw();
      expect(await db.$queryRaw`SELECT 1 AS one`).toEqual([{ one: 1 }]);
    } finally {
      relay.thaw();
      await relay.close();
    }
  }, 20_000);
});

describe('failures that are not the database being unavailable', () => {
  it('stay 500s: a syntax error, a constraint violation, an application error', async () => {
    const db = testDb();
    const syntax = await failure(db.$queryRawUnsafe('SELEC 1'));
    const clinic = await createClinic(db);
    const duplicate = await failure(createClinic(db, { id: clinic.id }));
    const rowsSyntax = await failure(queryRows(db, Prisma.sql`SELEC 1`));
    for (const error of [syntax, duplicate, rowsSyntax, new Error('boom'), new TypeError('x is undefined')]) {
      expect(isDatabaseUnavailable(error), String(error)).toBe(false);
    }
  });
});

describe('a connection whose query timed out', () => {
  it('is closed, not returned to the pool stuck on its unanswered query (a transaction releases it without an error)', async () => {
    const relay = await createTcpRelay({ host: target.hostname, port: Number(target.port || 5432) });
    try {
      const db = client(databaseUrlVia({ port: relay.port }), 1, BOUNDS);
      await db.$queryRaw`SELECT 1`;
      const error = await failure(
        db.$transaction(async (tx) => {
          await tx.$queryRaw`SELECT 1`;
          // Only this connection's path goes silent (a dropped route, a stopped backend): new ones work.
          relay.freezeExisting();
          await tx.$queryRaw`SELECT 2`;
        }),
      );
      expect(isDatabaseUnavailable(error)).toBe(true);
      // Served at once on a new connection, rather than failing after another query timeout on the stuck one.
      const started = Date.now();
      expect(await db.$queryRaw`SELECT 1 AS one`).toEqual([{ one: 1 }]);
      expect(Date.now() - started).toBeLessThan(BOUNDS.queryTimeoutMs);
    } finally {
      relay.thaw();
      await relay.close();
    }
  }, 20_000);
});

describe('connection settings', () => {
  let name: string;
  beforeAll(() => {
    name = uniqueId('bounds-settings');
  });

  it("a bounded client's sessions have the statement and idle-in-transaction timeouts; an unbounded one (CLI) has neither", async () => {
    const bounded = client(databaseUrl, 1, BOUNDS);
    const [settings] = await queryRows<{ statement: string; idle: string; app: string }>(
      bounded,
      Prisma.sql`SELECT current_setting('statement_timeout') AS statement, current_setting('idle_in_transaction_session_timeout') AS idle, current_setting('application_name') AS app`,
    );
    expect(settings).toEqual({ statement: '500ms', idle: '10s', app: 'clinic-analytics-api' });
    const unbounded = client(databaseUrlVia({ applicationName: name }), 1);
    const [plain] = await queryRows<{ statement: string; app: string }>(
      unbounded,
      Prisma.sql`SELECT current_setting('statement_timeout') AS statement, current_setting('application_name') AS app`,
    );
    expect(plain).toEqual({ statement: '0', app: name });
  });
});

describe('session settings', () => {
  it('every connection of the service runs in UTC, without JIT compilation (LLVM cost 1.4 s on a 0.1 s statement of bucket edges) and without parallel workers (one statement, one core)', async () => {
    const db = createPrismaClient(databaseUrl, 1, { bounds: BOUNDS });
    try {
      const rows = await queryRows<{ zone: string; jit: string; workers: string }>(
        db,
        Prisma.sql`SELECT current_setting('TimeZone') AS zone, current_setting('jit') AS jit, current_setting('max_parallel_workers_per_gather') AS workers`,
      );
      expect(rows).toEqual([{ zone: 'UTC', jit: 'off', workers: '0' }]);
    } finally {
      await db.$disconnect();
    }
  });
});
