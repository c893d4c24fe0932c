// Full-text search of what was said (`q` / GraphQL `text`): every word must appear in the
// interaction's summary or transcript (what a search text may be and how a document matches it:
// filters/text-filter.ts).
//
// How a page is read depends on how many interactions match, which the total says first:
//   - a one-word search restricted by clinics alone is counted from the per-clinic word counts
//     (interaction_search_terms, plus changes not yet folded): a sum over clinics at any size;
//   - anything else is counted from the GIN index (every match visited: exact, not instant);
//   - none: no page is read at all;
//   - few matches: found through the index and sorted;
//   - many: the documents are walked in list order (they carry their interaction's started_at)
//     and each checked, which stops after the page (a word in 30% of rows is found in about three
//     rows per match); the list's other filters are checked by id for the matching ones only.
// Which is cheaper is decided from the total (read-page.ts, textPlanOf), for every list that searches
// text: numbered pages, cursors and the change feed, and the lists under a clinic or campaign. A
// walk where few or none match would read every document of the window.
import type { VisibleClinics } from '../auth/api-keys.js';
import { clinicScope } from '../auth/api-keys.js';
import type { Db } from '../db/client.js';
import { and, columnOf, instant, num, prepared, queryRows } from '../db/client.js';
import { documentMatches } from '../filters/text-filter.js';
import { Prisma } from '../generated/prisma/client.js';

/**
 * Whether walking the documents in list order costs less than finding every match and sorting
 * them: the walk reads about (skip + take) x inScope / matches documents (the matches spread over
 * the documents in scope), each cheaply (in index order); finding every match reads `matches`
 * documents at random and sorts them, about twice the cost each (measured at 1m: bench/results).
 */
export function walkIsCheaper(matches: number, inScope: number, skip: number, take: number): boolean {
  return matches * matches > ((skip + take) * inScope) / 2;
}

/** What a page or count of a search selects, besides its text. */
export interface TextScope {
  text: string;
  visible: VisibleClinics;
  clinicId?: string;
  from?: Date;
  to?: Date;
  /**
   * The list's other filters as conditions on the columns of `interactions` (rows.ts);
   * empty when there are none. Checked for each matching document, by its interaction's id.
   */
  others: readonly Prisma.Sql[];
  /**
   * The same filters on the document's own columns, when they are all columns it carries (clinic,
   * started_at, channel, type, outcome, campaign): then no interaction is read to check them.
   */
  othersOnDocuments?: readonly Prisma.Sql[];
}

/** Conditions on the search documents `d` (their own columns: clinic, started_at, words). */
function documentConditions({ text, visible, clinicId, from, to, others, othersOnDocuments }: TextScope): Prisma.Sql[] {
  const scope = clinicScope(visible, clinicId);
  return [
    documentMatches(Prisma.sql`d.document`, Prisma.sql`d.clinic_id`, text),
    ...(scope === undefined ? [] : [Prisma.sql`d.clinic_id = ANY(${[...scope]}::uuid[])`]),
    ...(from ? [Prisma.sql`d.started_at >= ${instant(from, 'from')}`] : []),
    ...(to ? [Prisma.sql`d.started_at <= ${instant(to, 'to')}`] : []),
    // Unqualified columns inside resolve to `interactions` (the innermost FROM). A scalar subquery,
    // not EXISTS: PostgreSQL would turn EXISTS into a join and read every interaction the other
    // filters select (447,000 for one clinic's calls at 10m: 0.23 s) to check a page's few dozen
    // matches; this way each matching document's interaction is looked up by id (0.03 s).
    ...(othersOnDocuments
      ? othersOnDocuments
      : others.length === 0
        ? []
        : [Prisma.sql`(SELECT TRUE FROM interactions WHERE interactions.id = d.interaction_id AND ${and(others)})`]),
  ];
}

/**
 * The search as `id IN (the matching documents)`, for a statement that reads every match (an
 * export, a count): the documents are found through the GIN index, within the key's clinics (the
 * index leads with the clinic), rather than checked one by one.
 */
export function textMatchIds(search: TextScope): Prisma.Sql {
  return Prisma.sql`id IN (SELECT d.interaction_id FROM interaction_search_documents d WHERE ${and(documentConditions(search))})`;
}

/**
 * The search as `id = ANY(the matching ids)`, when they are known to be few (counted first): the
 * ids are read through the GIN index by a statement of their own, then bound as an array whose
 * length the planner sees, so the interactions are looked up by primary key. (Within one
 * statement - `IN`, or `= ANY(ARRAY(subquery))` - PostgreSQL does not know how few they are and
 * may walk or bitmap the whole clinic's index to intersect it with them.) `alias`: of `interactions`.
 */
export async function fewTextMatchIds(db: Db, search: TextScope, alias?: string): Promise<Prisma.Sql> {
  const rows = await queryRows<{ id: string }>(
    db,
    Prisma.sql`SELECT d.interaction_id AS id FROM interaction_search_documents d WHERE ${and(documentConditions(search))}`,
  );
  return Prisma.sql`${columnOf(alias)('id')} = ANY(${rows.map((row) => row.id)}::text[])`;
}

/**
 * The exact number of matches of a one-word search restricted by clinics alone, from the word
 * counts; null when the text has more than one word in some clinic's language (then every match
 * must be counted). A text that is only stop words has no word to count: 0, as it matches nothing.
 */
export async function countOneWord(db: Db, text: string, visible: VisibleClinics, clinicId?: string): Promise<number | null> {
  const scope = clinicScope(visible, clinicId);
  if (scope !== undefined && scope.length === 0) return 0;
  const clinics = scope === undefined ? Prisma.sql`TRUE` : Prisma.sql`c.id = ANY(${[...scope]}::uuid[])`;
  const statement = Prisma.sql`
    WITH words AS (
      SELECT c.id AS clinic_id, tsvector_to_array(to_tsvector(interaction_search_config(c.language), ${text}::text)) AS lexemes
      FROM clinics c WHERE ${clinics}
    )
    SELECT coalesce(bool_and(cardinality(w.lexemes) <= 1), TRUE) AS countable,
      coalesce(sum(
        (SELECT coalesce(sum(t.documents), 0) FROM interaction_search_terms t WHERE t.lexeme = w.lexemes[1] AND t.clinic_id = w.clinic_id)
        + (SELECT coalesce(sum(p.documents), 0) FROM interaction_search_term_changes p WHERE p.lexeme = w.lexemes[1] AND p.clinic_id = w.clinic_id)
      ), 0)::bigint AS total
    FROM words w`;
  const [row] = await queryRows<{ countable: boolean; total: bigint }>(db, prepared(scope === undefined ? 'count_text_word' : 'count_text_word_in', statement));
  return row?.countable ? num(row.total) : null;
}

/** The exact number of matches, counted through the GIN index. */
export async function countMatches(db: Db, search: TextScope): Promise<number> {
  const [row] = await queryRows<{ total: bigint }>(
    db,
    Prisma.sql`SELECT count(*) AS total FROM interaction_search_documents d WHERE ${and(documentConditions(search))}`,
  );
  return num(row?.total);
}

export interface TextPageRequest {
  skip: number;
  take: number;
  ascending: boolean;
  /** Every match is found through the index and sorted (few matches), else the list order is walked. */
  fewMatches: boolean;
  /** A cursor's position: only the documents after it in list order. */
  after?: { at: Date; id: string };
}

/** A match's place in list order: its interaction's id and started_at. */
export interface TextPosition {
  id: string;
  at: Date;
}

/**
 * A page's matches (ids and started_at), in list order, after a cursor's position when given. Few matches: all of them found through the GIN index
 * first (MATERIALIZED: PostgreSQL, not knowing how common the words are, would otherwise walk),
 * then sorted. Many: the documents walked in list order (their own (started_at, id) index), each
 * checked, until the page is full.
 */
export async function textPageIds(db: Db, search: TextScope, request: TextPageRequest): Promise<TextPosition[]> {
  const { skip, take, ascending, fewMatches, after } = request;
  const order = ascending ? Prisma.sql`started_at, interaction_id` : Prisma.sql`started_at DESC, interaction_id DESC`;
  const conditions = [
    ...documentConditions(search),
    // A row comparison: the walk starts at the position in the documents' (started_at, id) index.
    ...(after
      ? [
          ascending
            ? Prisma.sql`(d.started_at, d.interaction_id) > (${instant(after.at, 'cursor position')}, ${after.id})`
            : Prisma.sql`(d.started_at, d.interaction_id) < (${instant(after.at, 'cursor position')}, ${after.id})`,
        ]
      : []),
  ];
  const statement = fewMatches
    ? Prisma.sql`WITH matches AS MATERIALIZED (
          SELECT d.interaction_id, d.started_at FROM interaction_search_documents d WHERE ${and(conditions)}
        )
        SELECT interaction_id AS id, started_at AS at FROM matches ORDER BY ${order} LIMIT ${take}::bigint OFFSET ${skip}::bigint`
    : Prisma.sql`SELECT d.interaction_id AS id, d.started_at AS at FROM interaction_search_documents d WHERE ${and(conditions)}
        ORDER BY ${order} LIMIT ${take}::bigint OFFSET ${skip}::bigint`;
  return queryRows<TextPosition>(db, statement);
}

/** Options of ts_headline: up to three fragments of a dozen words, the matched words between `**`. */
const HEADLINE_OPTIONS = 'StartSel=**, StopSel=**, MaxFragments=3, MaxWords=14, MinWords=5, FragmentDelimiter=" … "';

/**
 * The fragments of each interaction's summary and transcript around the search's words, by id:
 * the words as they were written (accents and case kept), between `**`.
 */
export async function highlightsOf(db: Db, text: string, ids: readonly string[]): Promise<Map<string, string[]>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows<{ id: string; headline: string }>(
    db,
    prepared(
      'text_highlights',
      Prisma.sql`SELECT i.id, ts_headline(k.config, interaction_search_text(i.summary, t.entries), plainto_tsquery(k.config, ${text}::text), ${HEADLINE_OPTIONS}) AS headline
        FROM interactions i
        CROSS JOIN LATERAL (SELECT interaction_search_config(c.language) AS config FROM clinics c WHERE c.id = i.clinic_id) AS k
        LEFT JOIN interaction_transcripts t ON t.interaction_id = i.id
        WHERE i.id = ANY(${[...ids]}::text[])`,
    ),
  );
  return new Map(rows.map((row) => [row.id, fragmentsOf(row.headline)]));
}

/** ts_headline's answer split into its fragments; only those that hold a matched word. */
function fragmentsOf(headline: string): string[] {
  return headline
    .split(' … ')
    .map((fragment) => fragment.trim())
    .filter((fragment) => fragment.includes('**'));
}

/** Folds the appended word-count changes into the counts (the service's periodic fold; after imports). */
export async function foldSearchTerms(db: Db): Promise<number> {
  const [row] = await queryRows<{ folded: bigint }>(db, prepared('fold_search_terms', Prisma.sql`SELECT interaction_search_terms_fold() AS folded`));
  return num(row?.folded);
}
