// The operator CLI as an operator runs it: `node --import tsx src/cli/main.ts ...` in a child
// process, on the run's test database unless told otherwise.
import { execFile } from 'node:child_process';
import { inject } from 'vitest';
import { projectRoot } from '../../src/config.js';

export interface CliRun {
  /** Exit code; null when the process was ended by a signal. */
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], databaseUrl: string = inject('databaseUrl')): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', ...args],
      { cwd: projectRoot, env: { ...process.env, DATABASE_URL: databaseUrl, DEBUG: '' }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
