// Phone search (`search`: a case-insensitive substring of the phone number) with an exact total
// that does not count the matching interactions one by one. The total of a search restricted only
// by clinics (the key's restriction and `clinic_id`) comes from tables that triggers keep in step
// with `interactions`: for 1 to 3 characters, the fragment's row per clinic (plus the changes not
// yet folded in: prisma/migrations/*_interaction_phone_fragments); for longer ones, a sum over
// interaction_phones, the exact number of interactions per (clinic, phone number)
// (prisma/migrations/*_interaction_phones): patients call about 2.5 times each, and those rows are
// narrow, so a fragment in every tenth number sums ~35,000 rows at 1,000,000 interactions where
// counting rechecked ~90,000 wide heap rows.
//
// The same statement also reads the page's ids when the total is small (up to a maximum: read-page.ts): a
// rare fragment's matches are found through the trigram index on `interactions` and sorted, as
// matches-page.ts does, in the same snapshot as the total. When the total is larger the matches
// are not read at all (a one-time filter skips the scan) and the caller walks the (started_at, id)
// order, which finds a page of a common fragment after a few hundred rows. With a date window,
// channel, type or outcome the total is not a sum of this table: those searches go the old way
// (matches-page.ts, then a count of the matching rows).

import { clinicScope, type VisibleClinics } from '../auth/api-keys.js';
import type { Db } from '../db/client.js';
import { and, num, prepared, queryRows } from '../db/client.js';
import type { Filters } from '../filters/interaction-filters.js';
import { Prisma } from '../generated/prisma/client.js';
import { INTERACTION_COLUMNS, type InteractionRow, interactionConditions, type MatchesPage, type RawRow, sqlRows, TRANSCRIPT_TEXT } from './rows.js';

/** The page and total of a search as `interactions` needs them: see `phoneSearchPaging`. */
export interface PhoneSearchPaging {
  total: () => Promise<number>;
  /** The page's ids with the total, or null when the page is to be read in (started_at, id) order. */
  matches: () => Promise<MatchesPage | null>;
}

/** Whether the exact total of `filters` is a sum over interaction_phones: a search restricted by clinics alone. */
export function countsByPhone(filters: Filters): filters is Filters & { search: string } {
  // Only what the table's rows are keyed by: a filter added later is not summed here until it is.
  const known: ReadonlySet<keyof Filters> = new Set(['search', 'clinicId']);
  return filters.search !== undefined && (Object.keys(filters) as Array<keyof Filters>).every((name) => filters[name] === undefined || known.has(name));
}

/** Longest search whose total is summed from interaction_phones before its matches are read (read-page.ts). */
const SHORT_SEARCH_MAX_LENGTH = 3;

/**
 * Whether a search is short: 1 to 3 characters (code points, as PostgreSQL counts them). A short
 * fragment is usually common (a 3-digit one is in about one number in ten), so its total is summed
 * first; a longer one is usually rare, and reading its few matches is cheaper.
 */
export function isShortSearch(search: string): boolean {
  return [...search].length <= SHORT_SEARCH_MAX_LENGTH;
}

/** A LIKE pattern for a substring: `%`, `_` and the escape character are literal. */
function containsPattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The exact total of a search restricted by clinics alone. A short search (1 to 3 characters) is a
 * fragment: its total is its row per clinic in interaction_phone_fragments plus the matching changes
 * not yet folded into them (interaction_phone_changes: few, as the service folds every few seconds),
 * read in one snapshot (prisma/migrations/*_interaction_phone_fragments). A longer one sums the
 * matching numbers of interaction_phones.
 */
function phoneTotal(search: string, visible: VisibleClinics, clinicId: string | undefined): Prisma.Sql {
  const scope = clinicScope(visible, clinicId);
  const inScope = (alias: string) => (scope === undefined ? [] : [Prisma.sql`${Prisma.raw(alias)}.clinic_id = ANY(${[...scope]}::uuid[])`]);
  const pattern = containsPattern(search);
  if (isShortSearch(search)) {
    return Prisma.sql`SELECT (
        coalesce((SELECT sum(f.interactions) FROM interaction_phone_fragments f WHERE ${and([Prisma.sql`f.fragment = lower(${search})`, ...inScope('f')])}), 0)
      + coalesce((SELECT sum(c.delta) FROM interaction_phone_changes c WHERE ${and([Prisma.sql`c.phone_number ILIKE ${pattern}`, ...inScope('c')])}), 0)
      )::bigint AS n`;
  }
  return Prisma.sql`SELECT coalesce(sum(p.interactions), 0)::bigint AS n FROM interaction_phones p WHERE ${and([Prisma.sql`p.phone_number ILIKE ${pattern}`, ...inScope('p')])}`;
}

/** A row of the statement: the totals' columns, and the page's columns (null when the page is empty). */
type SearchRow = RawRow & { searchTotal: bigint; searchRead: boolean };

/**
 * One statement: the total of a search and, when the matches are read, the page's rows with their
 * transcripts (`rows` null when they are not). The matches are read (through the trigram index on
 * `interactions`, then sorted) when there are at most `max` of them and fewer than the
 * square root of (offset + page size) x the table's row estimate: reading `total` rows then costs
 * less than walking the (started_at, id) order, which visits about (offset + page size) x rows /
 * total rows to fill the page (a table never analyzed has no estimate: then the bound is `max`
 * alone). Otherwise the scan is skipped (a one-time filter) and the caller walks.
 * Prepared when the fragment has a trigram (3 characters or more): its plan is then the same for
 * every fragment (both trigram indexes, the scan gated); shorter fragments are planned each time.
 */
export async function phoneSearch(
  db: Db,
  filters: Filters & { search: string },
  visible: VisibleClinics,
  { skip, take }: { skip: number; take: number },
  max: number,
): Promise<{ total: number; rows: InteractionRow[] | null }> {
  const statement = Prisma.sql`
    WITH total AS MATERIALIZED (${phoneTotal(filters.search, visible, filters.clinicId)}),
    bound AS MATERIALIZED (
      SELECT (SELECT n FROM total) AS n,
             (SELECT n FROM total) <= least(${max}::float8,
               sqrt((${skip}::float8 + ${take}::float8) * (SELECT CASE WHEN reltuples < 0 THEN 'Infinity' ELSE reltuples END FROM pg_class WHERE oid = 'interactions'::regclass)::float8)) AS read
    ),
    matches AS MATERIALIZED (
      SELECT i.id, i.started_at FROM interactions i
      WHERE ${and(interactionConditions(filters, visible))}
        AND (SELECT read FROM bound) AND (SELECT n FROM bound) > ${skip}::bigint
      LIMIT ${max + 1}
    ),
    page AS (SELECT id FROM matches ORDER BY started_at DESC, id DESC LIMIT ${take}::bigint OFFSET ${skip}::bigint)
    SELECT b.n AS "searchTotal", b.read AS "searchRead", ${INTERACTION_COLUMNS}, ${TRANSCRIPT_TEXT}
    FROM bound b
    LEFT JOIN (page p JOIN interactions i ON i.id = p.id LEFT JOIN interaction_transcripts t ON t.interaction_id = i.id) ON TRUE
    ORDER BY i.started_at DESC, i.id DESC`;
  const found = await queryRows<SearchRow>(db, filters.search.length >= 3 ? prepared('phone_search', statement) : statement);
  const first = found[0];
  const rows = first?.searchRead
    ? sqlRows(
        found.filter((r) => r.id != null).map(({ searchTotal: _total, searchRead: _read, ...row }) => row),
        true,
      )
    : null;
  return { total: num(first?.searchTotal), rows };
}

/**
 * Total and page source of a root `interactions` list filtered by `search`, or null when its total
 * is not a sum of interaction_phones (a date window, channel, type or outcome is given). One
 * statement serves both, asked for by `pageInfo.total` and `nodes` alike.
 */
export function phoneSearchPaging(
  db: Db,
  filters: Filters,
  visible: VisibleClinics,
  paging: { skip: number; take: number },
  max: number,
): PhoneSearchPaging | null {
  if (!countsByPhone(filters)) return null;
  let found: Promise<{ total: number; rows: InteractionRow[] | null }> | undefined;
  const searched = () => {
    found ??= phoneSearch(db, filters, visible, paging, max);
    return found;
  };
  return {
    total: async () => (await searched()).total,
    matches: async (): Promise<MatchesPage | null> => {
      const { total, rows } = await searched();
      if (paging.skip >= total) return { ids: [], total, rows: [] };
      return rows === null ? null : { ids: rows.map((r) => r.id), total, rows };
    },
  };
}

/** The exact total of `filters` when it is a sum over interaction_phones (see `countsByPhone`), else null. */
export async function countPhoneMatches(db: Db, filters: Filters, visible: VisibleClinics): Promise<number | null> {
  if (!countsByPhone(filters)) return null;
  const [row] = await queryRows<{ n: bigint }>(db, phoneTotal(filters.search, visible, filters.clinicId));
  return num(row?.n);
}
