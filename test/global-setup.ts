// One freshly migrated database per test run, in the PostgreSQL named by TEST_DATABASE_URL (CI),
// otherwise in an embedded cluster under the system temp folder. Migrations are applied once here,
// to a template: each worker copies it into a database of its own on its first file
// (test/helpers/db.ts), so files of different workers never see each other's transactions (the
// change feed holds back rows newer than the oldest transaction open in its database). Files of
// one worker share its database; every test creates its own rows (random ids), so nothing is reset.
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { useEmbeddedPostgres } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated database every worker's database is copied from (test/helpers/db.ts); no test connects to it. */
    templateDatabase: string;
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

  await migrate(withDatabase(adminUrl, database));
  project.provide('templateDatabase', database);
  project.provide('adminUrl', adminUrl);

  return async () => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2', [
      database,
      `${database}\\_w%`,
    ]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await client.end();
    await cluster?.release();
  };
}
