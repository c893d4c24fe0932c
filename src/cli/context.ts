// What every CLI command shares: the database, output mode and a consistent way to fail.
import { loadDatabaseConfig } from '../config.js';
import { createPrismaClient, type Db } from '../db/client.js';
import { locateDatabase } from '../db/database.js';
import { migrate, pendingMigrations } from '../db/migrate.js';

export interface Output {
  json: boolean;
  /** Human-readable line on stdout; suppressed with --json (stdout then carries one JSON document). */
  info(message: string): void;
  /** The result: printed as JSON with --json, otherwise via `human`. */
  result(value: unknown, human: () => void): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    info: (message) => {
      if (!json) console.log(message);
    },
    result: (value, human) => {
      if (json) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
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

export interface DatabaseContext {
  url: string;
  embedded: boolean;
  db: Db;
}

/**
 * Runs `fn` against the configured database. The embedded database is migrated on the way in
 * (as `npm start` does); an external one must have been migrated with `migrate` first, so that a
 * data command never changes the schema of a production database as a side effect.
 */
export async function withDatabase<T>(fn: (ctx: DatabaseContext) => Promise<T>, options: { migrated?: boolean } = {}): Promise<T> {
  const config = loadDatabaseConfig();
  const location = await locateDatabase(config, (m) => console.error(m));
  try {
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
      await db.$disconnect();
    }
  } finally {
    await location.release();
  }
}
