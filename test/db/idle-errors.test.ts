// A freshly started server had only used its pool through `queryRows` (phone folding) when Ctrl-C
// stopped the embedded PostgreSQL: the idle connection's termination was an unhandled 'error' event,
// and the process died with a stack trace instead of stopping cleanly.
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createPrismaClient, queryRows, SQL_POOL } from '../../src/db/client.js';
import { Prisma } from '../../src/generated/prisma/client.js';
import { databaseUrl } from '../helpers/db.js';

describe('the database pool', () => {
  const db = createPrismaClient(databaseUrl, 2);
  afterAll(() => db.$disconnect());

  it('survives PostgreSQL ending an idle connection before any Prisma query, and answers on a new one', async () => {
    const [before] = await queryRows<{ pid: number }>(db, Prisma.sql`SELECT pg_backend_pid() AS pid`);
    const admin = new pg.Client({ connectionString: inject('adminUrl') });
    await admin.connect();
    const ended = new Promise<unknown>((resolve) => process.once('uncaughtException', resolve));
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [before?.pid]);
    } finally {
      await admin.end();
    }
    // The idle client sees the termination asynchronously; wait until the pool has dropped it.
    const pool = db[SQL_POOL].stats;
    for (let i = 0; i < 100 && pool.totalCount > 0; i++) await new Promise((r) => setTimeout(r, 20));
    const [after] = await queryRows<{ pid: number }>(db, Prisma.sql`SELECT pg_backend_pid() AS pid`);
    expect(after?.pid).not.toBe(before?.pid);
    expect(await Promise.race([ended, Promise.resolve('no uncaught error')])).toBe('no uncaught error');
  });
});
