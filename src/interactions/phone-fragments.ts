// Folding the phone numbers' pending changes into the fragment counts that give a short phone
// search its total (prisma/migrations/*_interaction_phone_fragments explains both tables). Writes
// only append changes; a total is exact whether or not they are folded, but each pending change is
// a row every short search reads, so the service folds them every few seconds and the importer and
// seeder right after loading. The clinics' data changes (what confirms an ETag: rest/use-rest.ts)
// are kept the same way and folded by the same periodic job.
import type { Db } from '../db/client.js';
import { num, prepared, queryRows } from '../db/client.js';
import { Prisma } from '../generated/prisma/client.js';
import { foldSearchTerms } from './text-search.js';

/** How often the service folds (a write's changes wait at most this long, plus the fold itself). */
export const FOLD_EVERY_MS = 5_000;
/**
 * Most changes folded by one statement: about a second on 2 cores, well inside the service's
 * statement timeout (a million changes at once, after a large import, would not be).
 */
export const FOLD_CHUNK_ROWS = 20_000;

/** Folds the pending changes in chunks until none is left (or another process is folding); returns how many it folded. */
export async function foldPhoneChanges(db: Db, chunkRows = FOLD_CHUNK_ROWS): Promise<number> {
  let total = 0;
  for (;;) {
    const [row] = await queryRows<{ folded: bigint }>(
      db,
      prepared('fold_phone_changes', Prisma.sql`SELECT interaction_phone_changes_fold(${chunkRows}::bigint) AS folded`),
    );
    const folded = num(row?.folded);
    total += folded;
    if (folded < chunkRows) return total;
  }
}

/**
 * Folds the clinics' pending data changes into their counts (prisma/migrations/*_data_change_log):
 * the ETags' confirmation reads the pending ones too, so this only keeps that read short.
 */
export async function foldDataChanges(db: Db): Promise<number> {
  const [row] = await queryRows<{ folded: bigint }>(db, prepared('fold_data_changes', Prisma.sql`SELECT clinic_data_changes_fold() AS folded`));
  return num(row?.folded);
}

/**
 * Folds (phone changes, the clinics' data changes and the search word counts) at once, then every `everyMs` until stopped; a failed fold (the database unreachable, a
 * timeout) is reported and retried at the next tick. stop() waits for a fold under way.
 */
export function foldPeriodically(db: Db, options: { everyMs?: number; onError: (error: unknown) => void }): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  // The next fold is scheduled when one ends: folds never overlap, however long one takes.
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(tick, options.everyMs ?? FOLD_EVERY_MS);
    timer.unref();
  };
  const tick = () => {
    running = Promise.all([foldPhoneChanges(db), foldDataChanges(db), foldSearchTerms(db)])
      .then(
        () => undefined,
        (error: unknown) => {
          if (!stopped) options.onError(error);
        },
      )
      .finally(schedule);
  };
  tick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
