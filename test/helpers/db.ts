// A Prisma client on the run's test database, and raw SQL access for assertions.
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { createPrismaClient, type Db } from '../../src/db/client.js';

export const databaseUrl = inject('databaseUrl');

let client: Db | undefined;

/** The file's shared Prisma client; disconnected after the file's tests. */
export function testDb(): Db {
  if (!client) {
    client = createPrismaClient(databaseUrl, 5);
    const current = client;
    afterAll(async () => {
      await current.$disconnect();
      client = undefined;
    });
  }
  return client;
}

/** Runs one SQL statement on the test database with a short-lived connection. */
export async function sql<T extends pg.QueryResultRow = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    return (await c.query<T>(text, values)).rows;
  } finally {
    await c.end();
  }
}
