// The bench's child processes: compiling the project, starting a server on a free loopback port
// and waiting for it to be ready, stopping it, and reading its resident memory from /proc. Shared by
// the load bench (run.ts) and the soak (soak.ts).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { projectRoot } from '../src/config.js';

const log = (message: string) => console.log(message);

/**
 * How `npm start` runs the server, read from package.json's start script so that the bench runs
 * it the same way without a second list: the variables it sets unless the caller's environment
 * has them (`NAME=${NAME:-value}`) and the flags it passes to node.
 */
export function startSettings(): { env: Record<string, string>; nodeFlags: string[] } {
  const manifest = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const script = manifest.scripts.start ?? '';
  const env = Object.fromEntries([...script.matchAll(/(\w+)=\$\{\1:-([^}]*)\}/g)].map((m) => [m[1]!, m[2]!]));
  const nodeFlags = /\bexec node ((?:--\S+ )*)/.exec(script)?.[1]?.trim().split(' ').filter(Boolean) ?? [];
  return { env, nodeFlags };
}
// ---------------------------------------------------------------------------------------------
// Servers

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Server {
  name: string;
  base: string;
  child: ChildProcess;
  logFile: string;
}

/**
 * Compiles the project with `tsc` (into dist/, as `npm start` does), so that both servers run as
 * plain JavaScript: what production runs, without tsx's loader (about 45 MB of RSS and its own
 * thread) in the measurements.
 */
export function compile(): void {
  log('Compiling (tsc -> dist/)');
  const tsc = path.join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: projectRoot, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`tsc failed:\n${result.stdout}${result.stderr}`);
}

/** The compiled form of a source file: src/server.ts -> dist/src/server.js. */
export function compiled(script: string): string {
  return path.join('dist', script.replace(/\.ts$/, '.js'));
}

export interface StartOptions {
  nodeFlags?: string[];
  /** Variables set for the server beyond the defaults below (the soak's REDIS_URL, for one). */
  env?: Record<string, string>;
}

export async function startServer(name: string, script: string, databaseUrl: string, options: StartOptions = {}): Promise<Server> {
  const port = await freePort();
  const logDir = path.join(projectRoot, '.data', 'bench', 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${name}.log`);
  const out = fs.openSync(logFile, 'w');
  const settings = startSettings();
  const env: NodeJS.ProcessEnv = {
    // As `npm start` runs the service (package.json): its malloc settings, unless the caller set them.
    ...settings.env,
    ...process.env,
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
  };
  // Quotas and field limits in memory, as on a single instance: a REDIS_URL of the caller's shell is
  // not passed on (the soak passes its own through options.env).
  delete env.REDIS_URL;
  Object.assign(env, options.env);
  // As `npm start` runs the service: its node flags (package.json).
  const flags = [...settings.nodeFlags, ...(options.nodeFlags ?? [])];
  const child = spawn(process.execPath, [...flags, compiled(script)], { cwd: projectRoot, env, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} while starting:\n${tail(logFile)}`);
    try {
      const response = await fetch(`${base}/health/ready`, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) break;
    } catch {}
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not become ready in 90 s:\n${tail(logFile)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { name, base, child, logFile };
}

export const tail = (file: string) => {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-30).join('\n');
  } catch {
    return '';
  }
};

export async function stopServer(server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.child.once('exit', () => resolve()));
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------------------------------------
// Resident memory of a server: its process and its node descendants (cluster workers), from /proc

export function children(pid: number): number[] {
  const result: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return result;
  }
  for (const tid of tasks) {
    try {
      for (const child of fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/)) if (child) result.push(Number(child));
    } catch {}
  }
  return result;
}

/** Name of a process (`node` for the servers and their workers), undefined once it has exited. */
function processName(pid: number): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** utime + stime of a process tree in clock ticks; with `reaped`, also what its exited children used (cutime + cstime). */
export function treeCpu(root: number, reaped: boolean): number {
  let total = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat
        .slice(stat.lastIndexOf(')') + 2)
        .split(' ')
        .map(Number);
      // fields[0] is the state (field 3): utime is field 14, stime 15, cutime 16, cstime 17.
      total += fields[11]! + fields[12]! + (reaped && pid === root ? fields[13]! + fields[14]! : 0);
    } catch {}
    stack.push(...children(pid));
  }
  return total;
}

/** The node:cluster workers of a server: its node child processes (none when it serves from one process). */
export function workerPids(server: number): number[] {
  return children(server).filter((pid) => processName(pid) === 'node');
}

export function rssOfTree(root: number): { totalKb: number; largestKb: number; processes: number } {
  let totalKb = 0;
  let largestKb = 0;
  let processes = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const name = /^Name:\s+(\S+)/m.exec(status)?.[1];
      // tsx's esbuild service is the loader's, not the server's; count node processes only.
      if (pid === root || name === 'node') {
        const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
        totalKb += kb;
        largestKb = Math.max(largestKb, kb);
        processes++;
      }
    } catch {}
    stack.push(...children(pid));
  }
  return { totalKb, largestKb, processes };
}

export function sampleRss(pid: number): { stop(): { peakMb: number; peakProcessMb: number; processes: number } } {
  let peak = 0;
  let peakProcess = 0;
  let processes = 0;
  const sample = () => {
    const r = rssOfTree(pid);
    peakProcess = Math.max(peakProcess, r.largestKb);
    if (r.totalKb > peak) {
      peak = r.totalKb;
      processes = r.processes;
    }
  };
  sample();
  const timer = setInterval(sample, 200);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { peakMb: Math.round(peak / 1024), peakProcessMb: Math.round(peakProcess / 1024), processes };
    },
  };
}
