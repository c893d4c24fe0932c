// `migrate` on the run's test database, which global setup has migrated: in-process through `run`,
// and once as an operator runs it (`npm run cli -- migrate`, a child process).
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.js';

describe('npm run cli -- migrate (a process)', () => {
  it('says the database is up to date, exit 0', async () => {
    const run = await spawnCli(['migrate']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('The database is up to date.\n');
    expect(run.stderr).toBe('');
  });
});

describe('migrate', () => {
  it('applies nothing to a migrated database, and says so as JSON with --json', async () => {
    const run = await runCli(['--json', 'migrate']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ applied: [] });
    expect(run.stderr).toBe('');
  });

  it('refuses an invalid configuration with exit 2, before touching a database', async () => {
    const run = await runCli(['migrate'], 'mysql://localhost/clinics');
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('Invalid configuration:\n  - DATABASE_URL: must be a postgresql:// URL\n');
  });
});
