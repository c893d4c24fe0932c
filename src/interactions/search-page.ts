// A page of interactions filtered by `search` (a substring of the phone number) and its total, in
// one statement. Neither can come from the rollups or from an ordered index walk that stops early:
// both need every match, which only the trigram index finds, and searching it is most of the cost.
// Asked separately (Prisma's findMany and count), PostgreSQL searches it twice per request; here
// once. The matches are materialized (id and started_at only), so the statement is bounded: past
// a maximum of matches (read-page.ts) it gives up and the caller pages and counts the usual way.
import type { VisibleClinics } from '../auth/api-keys.js';
import type { Db } from '../db/client.js';
import { and, num, prepared, queryRows } from '../db/client.js';
import type { Filters } from '../filters/interaction-filters.js';
import { Prisma } from '../generated/prisma/client.js';
import { countsByPhone } from './phone-search.js';
import { INTERACTION_COLUMNS, interactionConditions, type MatchesPage, type RawRow, sqlRows, TRANSCRIPT_TEXT } from './rows.js';

/** A row of the statement: the count, and the page's columns (null when the page is empty). */
type MatchRow = RawRow & { matched: bigint };

/**
 * The page of a search (with any other filters), its rows and its number of matches, or null when
 * more than `max` rows match. One statement: a rare fragment's few matches, their total, and the
 * page's rows with their transcripts (a second statement for the rows cost a rare search at 100k
 * about a fifth of its requests/s: bench/results/2026-11-24-one-home-closing.md).
 * Prepared when the search is restricted by clinics alone (what a receptionist's search is): its
 * plan is then the trigram index's whatever the fragment; with a date window or other filters it is
 * planned for its values.
 */
export async function matchesPage(
  db: Db,
  filters: Filters,
  visible: VisibleClinics,
  { skip, take }: { skip: number; take: number },
  max: number,
): Promise<MatchesPage | null> {
  const conditions = interactionConditions(filters, visible);
  const statement = Prisma.sql`
    WITH matches AS MATERIALIZED (
      SELECT i.id, i.started_at FROM interactions i
      WHERE ${and(conditions)}
      LIMIT ${max + 1}
    ),
    counted AS (SELECT count(*) AS matched FROM matches),
    page AS (SELECT id FROM matches ORDER BY started_at DESC, id DESC LIMIT ${take}::bigint OFFSET ${skip}::bigint)
    SELECT c.matched, ${INTERACTION_COLUMNS}, ${TRANSCRIPT_TEXT}
    FROM counted c
    LEFT JOIN (page p JOIN interactions i ON i.id = p.id LEFT JOIN interaction_transcripts t ON t.interaction_id = i.id)
      ON c.matched <= ${max}::bigint
    ORDER BY i.started_at DESC, i.id DESC`;
  const found = await queryRows<MatchRow>(db, countsByPhone(filters) ? prepared('search_matches', statement) : statement);
  const matched = num(found[0]?.matched);
  if (matched > max) return null;
  const rows = sqlRows(
    found.filter((row) => row.id != null).map(({ matched: _matched, ...row }) => row),
    true,
  );
  return { ids: rows.map((row) => row.id), total: matched, rows };
}
