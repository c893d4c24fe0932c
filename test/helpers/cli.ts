// The operator CLI two ways, on the run's test database unless told otherwise: in-process (`run`
// with streams that collect), for every behaviour; and as an operator runs it (`npm run cli -- ...`
// in a child process), for one smoke test per command that keeps the process wiring tested.
import { execFile } from 'node:child_process';
import { Writable } from 'node:stream';
import { run } from '../../src/cli/run.js';
import { projectRoot } from '../../src/config.js';
import { databaseUrl as workerDatabaseUrl } from './db.js';

export interface CliRun {
  /** Exit code; null when the process was ended by a signal. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A stream that keeps what is written to it, as text. */
function collector(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      callback();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** `cli <args>` in this process, with only DATABASE_URL in its environment. */
export function runCli(args: string[], databaseUrl: string = workerDatabaseUrl): Promise<CliRun> {
  return runCliWithEnv(args, { DATABASE_URL: databaseUrl });
}

/** `cli <args>` in this process, with exactly `env` as its environment (DATA_DIR without DATABASE_URL: the embedded database). */
export async function runCliWithEnv(args: string[], env: Record<string, string>): Promise<CliRun> {
  const stdout = collector();
  const stderr = collector();
  const code = await run(args, { stdout: stdout.stream, stderr: stderr.stream, env });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/**
 * `npm run cli -- <args>` in a child process. `--silent` keeps npm's own lines (the script banner on
 * stdout, its notices on stderr) out of the output, which is then exactly the CLI's.
 */
export function spawnCli(args: string[], databaseUrl: string = workerDatabaseUrl): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '--silent', 'cli', '--', ...args],
      { cwd: projectRoot, env: { ...process.env, DATABASE_URL: databaseUrl, DEBUG: '' }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
