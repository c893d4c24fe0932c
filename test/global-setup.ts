// One fresh database per test run: in the PostgreSQL named by TEST_DATABASE_URL (CI), otherwise in
// an embedded cluster under the system temp folder. Migrations are applied once here; every test
// creates its own rows (random ids), so files run in parallel without resetting anything.
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { useEmbeddedPostgres } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    /** URL of the server's maintenance database (for tests that create databases of their own). */
    adminUrl: string;
  }
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  const cluster = process.env.TEST_DATABASE_URL ? undefined : await useEmbeddedPostgres(path.join(os.tmpdir(), `clinic-analytics-test-${uid}`));
  const adminUrl = process.env.TEST_DATABASE_URL ?? cluster!.urlFor('postgres');
  const database = `test_${Date.now()}_${process.pid}`;

  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"`);
  await admin.end();

  const databaseUrl = withDatabase(adminUrl, database);
  await migrate(databaseUrl);
  project.provide('databaseUrl', databaseUrl);
  project.provide('adminUrl', adminUrl);

  return async () => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await client.end();
    await cluster?.release();
  };
}
