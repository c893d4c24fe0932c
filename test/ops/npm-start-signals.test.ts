// `npm start` under a process manager: docker stop, systemd and `kill %1` send SIGTERM (or SIGINT)
// to npm's process alone; a terminal's Ctrl-C sends SIGINT to the whole process group. Either way
// the server must drain and stop (the embedded PostgreSQL too), npm must exit 0, and no process of
// ours may be left behind. Runs the real `npm start` from the project folder, on the compiled dist/.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/db.js';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// A first start of the embedded PostgreSQL also initialises the cluster and loads 100,000 demo
// interactions: about 80 s alone on 2 cores, and past 150 s beside another test worker's load.
const START_TIMEOUT_MS = 300_000;
/** Processes are read from /proc (Linux): elsewhere these tests say they were skipped. */
const hasProc = fs.existsSync('/proc/self/stat');

interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
}

/** Every process on the machine, from /proc (`ps` is not everywhere). */
function processes(): Proc[] {
  const all: Proc[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    all.push({ pid: Number(entry), ppid: Number(ppid), pgid: Number(pgid), state: state! });
  }
  return all;
}

const isRunning = (pid: number) => processes().some((p) => p.pid === pid && p.state !== 'Z');

function descendants(root: number): number[] {
  const all = processes();
  const found: number[] = [];
  for (let frontier = [root]; frontier.length; ) {
    const children = all.filter((p) => frontier.includes(p.ppid)).map((p) => p.pid);
    found.push(...children);
    frontier = children;
  }
  return found;
}

/** The embedded PostgreSQL's postmaster, from the lock file it keeps in its cluster folder. */
function postmasterPid(dataDir: string): number | undefined {
  try {
    return Number(fs.readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined;
  } catch {
    return undefined;
  }
}

/** The embedded PostgreSQL's server processes: those whose command line names the data folder's cluster. */
function postgresOf(dataDir: string): number[] {
  return processes()
    .filter((p) => p.state !== 'Z')
    .filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').includes(path.join(dataDir, 'postgres'));
      } catch {
        return false; // gone meanwhile
      }
    })
    .map((p) => p.pid);
}

/** Command lines of a process tree, for waiting on a program to be running. */
const commandLines = (pids: number[]) =>
  pids.map((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      return '';
    }
  });

interface NpmStart {
  child: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const started: NpmStart[] = [];
const seen = new Set<number>();

/** `npm start` in a process group of its own (as a shell's job or a service), its output captured. */
function npmStart(env: Record<string, string>, removed: string[] = []): NpmStart {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', REDIS_URL: '', WORKERS: '1', ...env };
  for (const name of removed) delete childEnv[name];
  const child = spawn('npm', ['start'], { cwd: projectRoot, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const run = { child, output: () => output, exited };
  started.push(run);
  return run;
}

async function waitFor(run: NpmStart, pattern: RegExp, timeoutMs = START_TIMEOUT_MS): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(run.output());
    if (match) return match;
    if (run.child.exitCode !== null || run.child.signalCode !== null) throw new Error(`npm start exited before ${pattern}:\n${run.output()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}:\n${run.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function refused(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/health/live`, { signal: AbortSignal.timeout(5_000) });
    return false;
  } catch (error) {
    return (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
  }
}

/** Waits for npm to exit, but not forever: a test that fails here must still clean up. */
async function exitOf(run: NpmStart, timeoutMs = 60_000) {
  return Promise.race([run.exited, new Promise<'still running'>((resolve) => setTimeout(resolve, timeoutMs, 'still running'))]);
}

/** Which processes of a run are still there: its tree (seen while it ran) and its process group. */
function leftovers(run: NpmStart, pids: number[]): number[] {
  const group = processes().filter((p) => p.pgid === run.child.pid && p.state !== 'Z');
  return [...new Set([...pids.filter(isRunning), ...group.map((p) => p.pid)])];
}

const dataDirs: string[] = [];
function tempDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'npm-start-'));
  // Run as root, PostgreSQL runs as the postgres user, which must enter the folder (mkdtemp makes it 700).
  fs.chmodSync(dir, 0o755);
  dataDirs.push(dir);
  return dir;
}

afterEach(async () => {
  // Whatever a failed test left running: the runs' groups, every process they started, postmasters.
  for (const run of started.splice(0)) {
    try {
      process.kill(-run.child.pid!, 'SIGKILL');
    } catch {
      // The group is gone.
    }
  }
  for (const pid of seen) {
    if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  }
  seen.clear();
  for (const dir of dataDirs) {
    const pid = postmasterPid(dir);
    // SIGQUIT: PostgreSQL's immediate shutdown (its children go too).
    if (pid && isRunning(pid)) process.kill(pid, 'SIGQUIT');
  }
});

afterAll(() => {
  for (const dir of dataDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

beforeAll(() => {
  if (!hasProc) return;
  // Compiled once here, so that each start below only checks that dist/ is current.
  const result = spawnSync('npm', ['run', '-s', 'build'], { cwd: projectRoot, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm run build failed:\n${result.stdout}${result.stderr}`);
}, START_TIMEOUT_MS);

type Target = 'npm' | 'group';

/**
 * Starts `npm start`, checks that it serves, sends `signal` to npm's pid (or its whole group), and
 * checks the stop: drained through the server's own handler, npm exit 0, port closed, nothing left.
 */
async function startAndStop(options: { signal: NodeJS.Signals; target: Target; env: Record<string, string>; removed?: string[]; dataDir?: string }) {
  const run = npmStart(options.env, options.removed);
  const port = Number((await waitFor(run, /listening on http:\/\/[^:]+:(\d+)/))[1]);
  expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(200);
  const tree = descendants(run.child.pid!);
  for (const pid of tree) seen.add(pid);
  const postmaster = options.dataDir ? postmasterPid(options.dataDir) : undefined;
  if (options.dataDir) {
    expect(postmaster).toBeDefined();
    expect(isRunning(postmaster!)).toBe(true);
    seen.add(postmaster!);
  }

  process.kill(options.target === 'npm' ? run.child.pid! : -run.child.pid!, options.signal);
  const exit = await exitOf(run);

  expect(exit, run.output()).toEqual({ code: 0, signal: null });
  expect(run.output()).toContain(`${options.signal} received`);
  expect(await refused(port)).toBe(true);
  expect(leftovers(run, tree)).toEqual([]);
  if (options.dataDir) {
    expect(isRunning(postmaster!)).toBe(false);
    expect(postmasterPid(options.dataDir)).toBeUndefined();
    expect(postgresOf(options.dataDir)).toEqual([]);
    expect(run.output()).toContain('Stopping embedded PostgreSQL');
  }
  return run;
}

describe.skipIf(!hasProc)('npm start with DATABASE_URL', () => {
  const env = () => ({ DATABASE_URL: databaseUrl });

  it.each([
    ['SIGTERM', 'npm'],
    ['SIGINT', 'npm'],
    ['SIGTERM', 'group'],
    ['SIGINT', 'group'],
  ] as const)(
    '%s to %s: the server drains, npm exits 0, nothing is left',
    async (signal, target) => {
      await startAndStop({ signal, target, env: env() });
    },
    START_TIMEOUT_MS,
  );

  it(
    'with WORKERS=2, SIGTERM to npm: the workers drain, npm exits 0, nothing is left',
    async () => {
      const run = await startAndStop({ signal: 'SIGTERM', target: 'npm', env: { ...env(), WORKERS: '2' } });
      expect(run.output()).toContain('(2 workers)');
    },
    START_TIMEOUT_MS,
  );

  it(
    "runs the server with the start script's memory settings; a variable the caller set wins",
    async () => {
      const run = npmStart({ ...env(), MALLOC_ARENA_MAX: '3' }, ['GLIBC_TUNABLES']);
      await waitFor(run, /listening on http:\/\/[^:]+:(\d+)/);
      const tree = descendants(run.child.pid!);
      for (const pid of tree) seen.add(pid);
      const server = tree.find((pid) => commandLines([pid])[0]!.includes('scripts/start.mjs'));
      expect(server, commandLines(tree).join('\n')).toBeDefined();
      const environment = fs.readFileSync(`/proc/${server}/environ`, 'utf8').split('\0');
      expect(environment).toContain('GLIBC_TUNABLES=glibc.malloc.mmap_threshold=32768');
      expect(environment).toContain('MALLOC_ARENA_MAX=3');
      expect(commandLines([server!])[0]).toContain('--max-semi-space-size=8');
      process.kill(run.child.pid!, 'SIGTERM');
      expect(await exitOf(run), run.output()).toEqual({ code: 0, signal: null });
    },
    START_TIMEOUT_MS,
  );

  it(
    'compiles nothing when dist/ is current',
    async () => {
      const compiled = path.join(projectRoot, 'dist', 'src', 'server.js');
      const before = fs.statSync(compiled).mtimeMs;
      await startAndStop({ signal: 'SIGTERM', target: 'npm', env: env() });
      expect(fs.statSync(compiled).mtimeMs).toBe(before);
    },
    START_TIMEOUT_MS,
  );

  // Last of this group: dist/ is left to be compiled by the next start.
  it(
    'SIGTERM to npm while compiling: the compiler stops, npm exits 0, nothing is left',
    async () => {
      // dist/ no longer known to be current: the start compiles.
      fs.rmSync(path.join(projectRoot, 'dist', '.build-manifest.json'), { force: true });
      const run = npmStart(env());
      await waitFor(run, /Compiling into dist\//, 30_000);
      // bin/tsc is a launcher for the compiler proper (typescript-<platform>/lib/tsc): both must go.
      let tree: number[] = [];
      for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
        tree = descendants(run.child.pid!);
        if (commandLines(tree).some((line) => /typescript-[^/]+\/lib\/tsc /.test(line))) break;
      }
      for (const pid of tree) seen.add(pid);
      expect(commandLines(tree).some((line) => /typescript-[^/]+\/lib\/tsc /.test(line))).toBe(true);

      process.kill(run.child.pid!, 'SIGTERM');

      expect(await exitOf(run), run.output()).toEqual({ code: 0, signal: null });
      expect(run.output()).toContain('SIGTERM received while compiling');
      expect(run.output()).not.toContain('listening on');
      expect(leftovers(run, tree)).toEqual([]);
    },
    START_TIMEOUT_MS,
  );
});

describe.skipIf(!hasProc)('npm start with the embedded PostgreSQL (DATABASE_URL unset)', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = tempDataDir();
  });

  // The first start of a data folder initialises the cluster and loads the demo data; the later ones reuse them.
  it.each([
    ['SIGTERM', 'npm'],
    ['SIGINT', 'npm'],
    ['SIGINT', 'group'],
  ] as const)(
    '%s to %s: the server drains, stops PostgreSQL, npm exits 0, nothing is left',
    async (signal, target) => {
      await startAndStop({ signal, target, env: { DATA_DIR: dataDir }, removed: ['DATABASE_URL'], dataDir });
    },
    START_TIMEOUT_MS,
  );

  it(
    'SIGTERM to npm during start-up: the start stops after its current step, PostgreSQL is stopped, npm exits 0',
    async () => {
      const run = npmStart({ DATA_DIR: dataDir }, ['DATABASE_URL']);
      await waitFor(run, /Starting embedded PostgreSQL/);
      // The server is not listening yet: starting PostgreSQL, migrations and loading the app take longer than this.
      process.kill(run.child.pid!, 'SIGTERM');
      const exit = await exitOf(run);

      expect(exit, run.output()).toEqual({ code: 0, signal: null });
      expect(run.output()).toContain('SIGTERM received');
      expect(run.output()).not.toContain('listening on');
      expect(postgresOf(dataDir)).toEqual([]);
      expect(postmasterPid(dataDir)).toBeUndefined();
      expect(leftovers(run, [])).toEqual([]);
    },
    START_TIMEOUT_MS,
  );
});
