// What every CLI command shares: its streams and environment, the database, output mode and a
// consistent way to fail.
import type { Console } from 'node:console';
import path from 'node:path';
import { DEFAULT_DATA_DIR, loadDatabaseConfig } from '../config.js';
import { createPrismaClient, type Db } from '../db/client.js';
import { locateDatabase } from '../db/database.js';
import { otherDataFolders } from '../db/embedded.js';
import { migrate, pendingMigrations } from '../db/migrate.js';

/** A stream a command writes to; on a terminal (`isTTY`) progress bars are drawn and help wraps at `columns`. */
export type CliStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/**
 * Everything a command takes from its process, so that it runs the same in a process (main.ts) and
 * in a test (streams that collect, an environment naming the test database).
 */
export interface CliIo {
  stdout: CliStream;
  stderr: CliStream;
  /** The configuration (DATABASE_URL, DATA_DIR, ...) and DEBUG. */
  env: Readonly<Record<string, string | undefined>>;
}

/** What a command's action is given: the io, its console and output mode, and its exit code. */
export interface CommandContext {
  io: CliIo;
  /** console.log / console.error on the io's streams: the same bytes a process's console writes. */
  console: Console;
  /** The output mode of this run (read when the action runs: --json may follow the command). */
  output(): Output;
  /** A result that is printed in full but still fails the run (import's rejected lines). */
  setExitCode(code: number): void;
}

export interface Output {
  json: boolean;
  /** Human-readable line on stdout; suppressed with --json (stdout then carries one JSON document). */
  info(message: string): void;
  /** The result: printed as JSON with --json, otherwise via `human`. */
  result(value: unknown, human: () => void): void;
}

export function createOutput(json: boolean, io: CliIo, console: Console): Output {
  return {
    json,
    info: (message) => {
      if (!json) console.log(message);
    },
    result: (value, human) => {
      if (json) io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
      else human();
    },
  };
}

/** A failure the user can act on: printed without a stack trace, exit code 1 (or `exitCode`). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * Said when the command made a new embedded database: an operator whose server runs with another
 * data folder (DATA_DIR, another checkout) would otherwise meet an empty one without a word.
 */
function newDatabaseNote(dataDir: string): string[] {
  const others = otherDataFolders(dataDir, [DEFAULT_DATA_DIR]);
  return [
    `Note: this is a new, empty database (the data folder ${path.resolve(dataDir)} had none). ` +
      `The server (\`npm start\`) uses the one of the DATA_DIR it runs with (default ${DEFAULT_DATA_DIR}), or its DATABASE_URL: run the CLI with the same.`,
    ...(others.length ? [`Embedded databases found on this machine: ${others.map((dir) => `DATA_DIR=${dir}`).join(', ')}`] : []),
  ];
}

export interface DatabaseContext {
  url: string;
  embedded: boolean;
  db: Db;
}

/**
 * Runs `fn` against the database `cli.io.env` configures. The embedded database is migrated on the
 * way in (as `npm start` does); an external one must have been migrated with `migrate` first, so
 * that a data command never changes the schema of a production database as a side effect.
 */
export async function withDatabase<T>(cli: CommandContext, fn: (ctx: DatabaseContext) => Promise<T>, options: { migrated?: boolean } = {}): Promise<T> {
  const config = loadDatabaseConfig(cli.io.env);
  const location = await locateDatabase(config, (m) => cli.console.error(m));
  try {
    if (location.created) for (const line of newDatabaseNote(config.DATA_DIR)) cli.console.error(line);
    if (options.migrated !== false) {
      if (location.embedded) await migrate(location.url);
      else {
        const pending = await pendingMigrations(location.url);
        if (pending.length) throw new CliError(`The database lacks migrations ${pending.join(', ')}; run \`npm run cli -- migrate\` first.`);
      }
    }
    const db = createPrismaClient(location.url, config.DATABASE_POOL_SIZE);
    try {
      return await fn({ url: location.url, embedded: location.embedded, db });
    } finally {
      // Prisma ends the pool beneath it only if it opened its adapter: a command that ran nothing
      // but hand-written SQL (queryRows) would leave the process waiting for the pool's idle
      // connections to time out (10 s) unless Prisma connects first.
      await db.$connect().catch(() => {});
      await db.$disconnect();
    }
  } finally {
    await location.release();
  }
}
