// PostgreSQL goes away in the middle of an import (here: its backend is terminated while the import
// is between two batches of its transaction, reading the file). The CLI used to die on an unhandled
// 'error' event with a stack dump; it must say what happened, exit 1 and leave nothing written.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { databaseUrl, sql } from '../helpers/db.js';
import { clinicLine, voiceLine, writeLines } from './files.js';

const LINES = 5_000;

describe('cli import when the database connection is lost', () => {
  it('prints a clean message, exits with 1 and writes nothing', async () => {
    const clinic = clinicLine();
    const lines = Array.from({ length: LINES }, () => voiceLine(clinic.id));
    const clinics = writeLines('clinics.ndjson', [clinic]);
    const interactions = writeLines('interactions.ndjson', lines);
    // This test's own sessions: only they are terminated.
    const applicationName = `import-loss-${randomUUID().slice(0, 8)}`;
    const url = new URL(databaseUrl);
    url.searchParams.set('application_name', applicationName);

    let exited = false;
    const run = spawnCli(['--json', 'import', '--clinics', clinics, '--interactions', interactions], url.toString()).finally(() => {
      exited = true;
    });
    let terminated = 0;
    const watcher = new pg.Client({ connectionString: databaseUrl });
    await watcher.connect();
    try {
      for (let i = 0; i < 6_000 && !exited && terminated === 0; i++) {
        const { rows } = await watcher.query<{ done: boolean }>(
          `SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity
            WHERE application_name = $1 AND datname = current_database() AND state = 'idle in transaction'`,
          [applicationName],
        );
        terminated = rows.filter((r) => r.done).length;
        if (terminated === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      }
    } finally {
      await watcher.end();
    }
    const result = await run;

    expect(terminated, 'the import was never seen inside its transaction').toBe(1);
    expect(result.stderr).not.toMatch(/Unhandled 'error' event|\n\s+at /);
    const message = JSON.parse(result.stdout).error as string;
    expect(message).toMatch(/^Import failed: the database connection was lost \(.+\); nothing was written \(the import is one transaction\)$/);
    expect(result.stderr).toBe(`${message}\n`);
    expect(result.code).toBe(1);
    expect((await sql<{ n: number }>('SELECT count(*)::int AS n FROM clinics WHERE id = $1', [clinic.id]))[0]!.n).toBe(0);
    expect((await sql<{ n: number }>('SELECT count(*)::int AS n FROM interactions WHERE id = ANY($1)', [lines.map((l) => l.id)]))[0]!.n).toBe(0);
  });
});
