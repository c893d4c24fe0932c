// The importer's one database session: named in pg_stat_activity, holding the lock that runs
// imports one at a time, and watched for its loss so that a dying database ends the import with a
// message instead of a crash.
import pg from 'pg';

/** The database connection broke during the import (terminated backend, restart, network). */
export class ImportDatabaseError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ImportDatabaseError';
  }
}

/** How the importer's session shows in pg_stat_activity (an `application_name` in the URL wins). */
export const IMPORT_APPLICATION_NAME = 'clinic-analytics-import';

/**
 * The key of the advisory lock that serializes imports ('clin', 'impt'). Two imports writing the
 * same days in one transaction each would otherwise deadlock: every batch's rollup triggers lock
 * per-day rows (in key order within a statement, but not across the batches of two transactions).
 * Taken before pass 1, so that what pass 1 checked against the database still holds in pass 2.
 */
const IMPORT_LOCK = [0x636c696e, 0x696d7074] as const;

/** PostgreSQL error classes and socket errors that mean the session is gone. */
const LOST_SQLSTATE = /^(08|57P0)/;
const LOST_ERRNO = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH']);

export class ImportSession {
  readonly client: pg.Client;
  private lost: Error | undefined;
  private closing = false;

  constructor(url: string) {
    this.client = new pg.Client({ connectionString: url, application_name: IMPORT_APPLICATION_NAME });
    // node-postgres emits 'error' when the connection breaks while no query runs (the import is then
    // reading its files); without a listener that crashes the process with a stack dump. The loss is
    // noted here; the next query fails and `explain` says why.
    this.client.on('error', (error) => {
      this.lost ??= error;
    });
    this.client.on('end', () => {
      if (!this.closing) this.lost ??= new Error('the connection was closed');
    });
  }

  /** Takes the import lock for the session, calling `onWait` first when another import holds it. */
  async lockImports(onWait: (() => void) | undefined): Promise<void> {
    const tried = await this.client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [...IMPORT_LOCK]);
    if (tried.rows[0]?.locked) return;
    onWait?.();
    await this.client.query('SELECT pg_advisory_lock($1, $2)', [...IMPORT_LOCK]);
  }

  /**
   * `error` as the user should see it: when the connection was lost, an ImportDatabaseError saying
   * so and whether anything was written (`committing`: the loss may have come during COMMIT).
   */
  explain(error: unknown, committing: boolean): unknown {
    if (error instanceof ImportDatabaseError) return error;
    const code = (error as { code?: unknown } | null | undefined)?.code;
    const message = error instanceof Error ? error.message : String(error);
    const lostNow = (typeof code === 'string' && (LOST_SQLSTATE.test(code) || LOST_ERRNO.has(code))) || /Connection terminated|not queryable/.test(message);
    const cause = this.lost?.message ?? (lostNow ? message : undefined);
    if (cause === undefined) return error;
    const outcome = committing
      ? 'it is unknown whether the transaction was committed; check the data or run the import again (it upserts by id)'
      : 'nothing was written (the import is one transaction)';
    return new ImportDatabaseError(`Import failed: the database connection was lost (${cause}); ${outcome}`, { cause: error });
  }

  /** Ends the session, which also releases the import lock; never fails (the session may be gone). */
  async close(): Promise<void> {
    this.closing = true;
    await this.client.end().catch(() => {});
  }
}
