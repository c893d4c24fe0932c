// A page of interactions filtered by `search` (a substring of the phone number) and its total, in
// one statement. Neither can come from the rollups or from an ordered index walk that stops early:
// both need every match, which only the trigram index finds, and searching it is most of the cost.
// Asked separately (Prisma's findMany and count), PostgreSQL searches it twice per request; here
// once. The matches are materialized (id and started_at only), so the statement is bounded: past
// a maximum of matches (read-page.ts) it gives up and the caller pages and counts the usual way.
import type { VisibleClinics } from '../auth/clinic-scope.js';
import type { Db } from '../db/client.js';
import { and, num, queryRows } from '../db/sql.js';
import { Prisma } from '../generated/prisma/client.js';
import { interactionConditions } from './conditions.js';
import type { Filters } from './filters.js';

export interface MatchesPage {
  /** The page's ids (in no particular order: the caller reads and orders the rows). */
  ids: string[];
  total: number;
}

/** The page and number of matches of a search (with any other filters), or null when more than `max` rows match. */
export async function matchesPage(
  db: Db,
  filters: Filters,
  visible: VisibleClinics,
  { skip, take }: { skip: number; take: number },
  max: number,
): Promise<MatchesPage | null> {
  const conditions = interactionConditions(filters, visible);
  const [row] = await queryRows<{ matched: bigint; ids: string[] }>(
    db,
    Prisma.sql`
    WITH matches AS MATERIALIZED (
      SELECT i.id, i.started_at FROM interactions i
      WHERE ${and(conditions)}
      LIMIT ${max + 1}
    )
    SELECT (SELECT count(*) FROM matches) AS matched,
           coalesce((SELECT array_agg(p.id)
                     FROM (SELECT id FROM matches ORDER BY started_at DESC, id DESC LIMIT ${take} OFFSET ${skip}) AS p),
                    '{}') AS ids`,
  );
  const matched = num(row?.matched);
  return matched > max ? null : { ids: row?.ids ?? [], total: matched };
}
