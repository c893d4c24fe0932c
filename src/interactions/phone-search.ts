// Phone search (`search`: a case-insensitive substring of the phone number) with an exact total
// that does not count the matching interactions one by one. The total of a search restricted only
// by clinics (the key's restriction and `clinic_id`) is a sum over interaction_phones, the exact
// number of interactions per (clinic, phone number) that triggers keep in step with `interactions`
// (prisma/migrations/*_interaction_phones): patients call about 2.5 times each, and those rows are
// narrow, so a fragment in every tenth number sums ~35,000 rows at 1,000,000 interactions where
// counting rechecked ~90,000 wide heap rows.
//
// The same statement also reads the page's ids when the total is small (up to MATCHES_PAGE_MAX): a
// rare fragment's matches are found through the trigram index on `interactions` and sorted, as
// matches-page.ts does, in the same snapshot as the total. When the total is larger the matches
// are not read at all (a one-time filter skips the scan) and the caller walks the (started_at, id)
// order, which finds a page of a common fragment after a few hundred rows. With a date window,
// channel, type or outcome the total is not a sum of this table: those searches go the old way
// (matches-page.ts, then a count of the matching rows).

import type { Db } from '../db/client.js';
import { and, num, queryRows } from '../db/sql.js';
import type { Filters } from '../filters/parameters.js';
import { clinicScope, type VisibleClinics } from '../filters/visibility.js';
import { Prisma } from '../generated/prisma/client.js';
import { interactionConditions } from '../graphql/loaders.js';
import { MATCHES_PAGE_MAX, type MatchesPage } from '../graphql/matches-page.js';

/** The page and total of a search as `interactions` needs them: see `phoneSearchPaging`. */
export interface PhoneSearchPaging {
  total: () => Promise<number>;
  /** The page's ids with the total, or null when the page is to be read in (started_at, id) order. */
  matches: () => Promise<MatchesPage | null>;
}

/** Whether the exact total of `filters` is a sum over interaction_phones: a search restricted by clinics alone. */
export function countsByPhone(filters: Filters): filters is Filters & { search: string } {
  return (
    filters.search !== undefined &&
    filters.from === undefined &&
    filters.to === undefined &&
    filters.channel === undefined &&
    filters.type === undefined &&
    filters.outcomes === undefined
  );
}

/** A LIKE pattern for a substring: `%`, `_` and the escape character are literal. */
function containsPattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The exact total of a search restricted by clinics alone, summed over interaction_phones. */
function phoneTotal(search: string, visible: VisibleClinics, clinicId: string | undefined): Prisma.Sql {
  const scope = clinicScope(visible, clinicId);
  const conditions = [Prisma.sql`p.phone_number ILIKE ${containsPattern(search)}`];
  if (scope !== undefined) conditions.push(Prisma.sql`p.clinic_id = ANY(${[...scope]}::uuid[])`);
  return Prisma.sql`SELECT coalesce(sum(p.interactions), 0)::bigint AS n FROM interaction_phones p WHERE ${and(conditions)}`;
}

/**
 * The total of a search and, when it is at most MATCHES_PAGE_MAX and the page is not past the end,
 * the page's ids (in no particular order); `ids` is null when the matches were not read. Left
 * unnamed (planned for its values): how many numbers a fragment matches decides the plan.
 */
export async function phoneSearch(
  db: Db,
  filters: Filters & { search: string },
  visible: VisibleClinics,
  { skip, take }: { skip: number; take: number },
): Promise<{ total: number; ids: string[] | null }> {
  const [row] = await queryRows<{ total: bigint; ids: string[] | null }>(
    db,
    Prisma.sql`
    WITH total AS MATERIALIZED (${phoneTotal(filters.search, visible, filters.clinicId)}),
    matches AS MATERIALIZED (
      SELECT i.id, i.started_at FROM interactions i
      WHERE ${and(interactionConditions(filters, visible))}
        AND (SELECT n FROM total) <= ${MATCHES_PAGE_MAX} AND (SELECT n FROM total) > ${skip}
      LIMIT ${MATCHES_PAGE_MAX + 1}
    )
    SELECT (SELECT n FROM total) AS total,
           CASE WHEN (SELECT n FROM total) <= ${MATCHES_PAGE_MAX} THEN
             coalesce((SELECT array_agg(p.id)
                       FROM (SELECT id FROM matches ORDER BY started_at DESC, id DESC LIMIT ${take} OFFSET ${skip}) AS p),
                      '{}')
           END AS ids`,
  );
  return { total: num(row?.total), ids: row?.ids ?? null };
}

/**
 * Total and page source of a root `interactions` list filtered by `search`, or null when its total
 * is not a sum of interaction_phones (a date window, channel, type or outcome is given). One
 * statement serves both, asked for by `pageInfo.total` and `nodes` alike.
 */
export function phoneSearchPaging(db: Db, filters: Filters, visible: VisibleClinics, paging: { skip: number; take: number }): PhoneSearchPaging | null {
  if (!countsByPhone(filters)) return null;
  let found: Promise<{ total: number; ids: string[] | null }> | undefined;
  const searched = () => {
    found ??= phoneSearch(db, filters, visible, paging);
    return found;
  };
  return {
    total: async () => (await searched()).total,
    matches: async () => {
      const { total, ids } = await searched();
      if (paging.skip >= total) return { ids: [], total };
      return ids === null ? null : { ids, total };
    },
  };
}

/** The exact total of `filters` when it is a sum over interaction_phones (see `countsByPhone`), else null. */
export async function countPhoneMatches(db: Db, filters: Filters, visible: VisibleClinics): Promise<number | null> {
  if (!countsByPhone(filters)) return null;
  const [row] = await queryRows<{ n: bigint }>(db, phoneTotal(filters.search, visible, filters.clinicId));
  return num(row?.n);
}
