// A page of interactions and the number of matches, from one statement that reads every match
// (id and started_at only, materialized), bounded: past MATCHES_PAGE_MAX matches it gives up and
// the caller pages by walking the (started_at, id) order as usual.
//
// Used where walking that order is the wrong plan:
// - `search` (a substring of the phone number): neither the page nor the total can come from the
//   rollups or from an ordered walk that stops early; only the trigram index finds the matches, and
//   searching it is most of the cost. Asked separately (Prisma's findMany and count), PostgreSQL
//   searches it twice per request; here once.
// - filters on channel, type or outcome that few rows match (the rollups count them first): walking
//   the newest rows until a page is full then reads most of the table (seconds at 10,000,000 rows
//   for a combination that matches nothing); planned without ORDER BY ... LIMIT, PostgreSQL reads
//   only the matches, from the indexes on those columns.
import type { Db } from '../db/client.js';
import type { Filters } from '../filters/parameters.js';
import type { VisibleClinics } from '../filters/visibility.js';
import { and, num } from '../metrics/sql.js';
import { interactionConditions } from './loaders.js';

/** Most matches read into one statement; beyond it, a list is paged (and counted) separately. */
export const MATCHES_PAGE_MAX = 10_000;

export interface MatchesPage {
  /** The page's ids (in no particular order: the caller reads and orders the rows). */
  ids: string[];
  total: number;
}

/** The page and number of matches of the filters, or null when more than MATCHES_PAGE_MAX rows match. */
export async function matchesPage(
  db: Db,
  filters: Filters,
  visible: VisibleClinics,
  { skip, take }: { skip: number; take: number },
): Promise<MatchesPage | null> {
  const conditions = interactionConditions(filters, visible);
  const [row] = await db.$queryRaw<Array<{ matched: bigint; ids: string[] }>>`
    WITH matches AS MATERIALIZED (
      SELECT i.id, i.started_at FROM interactions i
      WHERE ${and(conditions)}
      LIMIT ${MATCHES_PAGE_MAX + 1}
    )
    SELECT (SELECT count(*) FROM matches) AS matched,
           coalesce((SELECT array_agg(p.id)
                     FROM (SELECT id FROM matches ORDER BY started_at DESC, id DESC LIMIT ${take} OFFSET ${skip}) AS p),
                    '{}') AS ids`;
  const matched = num(row?.matched);
  return matched > MATCHES_PAGE_MAX ? null : { ids: row?.ids ?? [], total: matched };
}
