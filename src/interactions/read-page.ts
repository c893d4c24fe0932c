// A page of interactions: how it is read (the strategies below), the deep pages found by the
// rollups' day counts, and its exact count, computed once and shared by whoever asks (`lazy`).
//
// Reading a page of interactions: the one entry point of every root interaction list (REST and
// GraphQL), and the one place that chooses how a page is read. The strategies, cheapest first for
// what each page asks:
//   - search page: a `search` reads its exact total and, when its matches are few enough, the
//     page's ids (or rows) in one statement (phone-search.ts, search-page.ts);
//   - empty page: when the exact count (from the rollups) says the page is past the last match, no
//     row is read (a filter without an index in list order would otherwise walk the whole table);
//   - hand-written page: the interaction's own columns (and transcript) by LIMIT/OFFSET in SQL;
//   - ids first: from IDS_FIRST_FROM on, the page's ids are found alone (an index-only walk) and
//     its rows read by id;
//   - day skipping: from DAY_SKIPPING_FROM on, whole days are skipped by their counts (deepPageIds, below);
//   - a full-text search (`text`) has a path of its own (textPage, text-search.ts);
// and a row's clinic and campaign are read by the GraphQL fields that ask for them (graphql/schema/
// clinic.ts and campaign.ts: in batches by id, from the service's memory of the catalogue).
// Oldest-first pages (`order=asc`) take the plain path (`oldestFirst`), and cursor pages are read
// by cursor-page.ts. Why each threshold is where it is: bench/results/2026-11-23-design-measurements.md.
import { LRUCache } from 'lru-cache';
import type { VisibleClinics } from '../auth/api-keys.js';
import { and, type Db, num, prepared, queryRows } from '../db/client.js';
import { declarationOf, FILTER_KEYS, type Filters, type ListOrder } from '../filters/interaction-filters.js';
import { Prisma } from '../generated/prisma/client.js';
import { countedOutcomes, countedTotals, everyInteractionByDay } from '../rollups/counted.js';
import { countPhoneMatches, isShortSearch, phoneSearchPaging } from './phone-search.js';
import {
  countableByRollups,
  dimensionsOf,
  foundRows,
  type InteractionRow,
  inIdOrder,
  interactionConditions,
  interactionWhere,
  type MatchesPage,
  pageAndTotal,
  pageRows,
  type RowsRead,
  restrictsBeyondClinic,
  rowsById,
} from './rows.js';
import { matchesPage } from './search-page.js';
import { countMatches, countOneWord, type TextScope, textPageIds, walkIsCheaper } from './text-search.js';

/** From this offset on, a page's ids are found first and its rows read by id. */
export const IDS_FIRST_FROM = 1_000;
/** From this offset on, a page's position is found from the rollups' day counts (deepPageIds). */
export const DAY_SKIPPING_FROM = 20_000;
/** Most matches of a search read into one statement with its total; beyond it, paged and counted apart. */
export const SEARCH_MATCHES_MAX = 10_000;

/** The interactions a list selects, in list order (`started_at` descending, then `id` descending). */
export const ORDER_INTERACTIONS: Prisma.InteractionOrderByWithRelationInput[] = [{ startedAt: 'desc' }, { id: 'desc' }];
const ORDER_OLDEST_FIRST: Prisma.InteractionOrderByWithRelationInput[] = [{ startedAt: 'asc' }, { id: 'asc' }];

/**
 * How long a first page's filters are remembered to match something (matchesSeen): a first page
 * with the same filters is then read without its count gate. A combination that stops matching
 * within this time (a purge) is read correctly, only walked as an ungated page would be.
 */
export const MATCHES_SEEN_MS = 60_000;
/** Filter combinations remembered per client at most (a key varying its filters evicts the oldest). */
const MATCHES_SEEN_MAX = 1_000;
const matchesSeenByClient = new WeakMap<Db, LRUCache<string, true>>();

/**
 * The filter combinations (with the key's visible clinics) whose first page or total found a match
 * lately. The count gate (readList: costlyIfEmpty) exists for a combination that matches nothing,
 * which an unindexed filter would walk the table to find out; once one is known to match, the gate
 * (a count from the rollups joined to the page: about a sixth of a filtered page's requests/s)
 * protects nothing, and whatever a page of it costs, it costs gated or not.
 */
function matchesSeen(db: Db): LRUCache<string, true> {
  let seen = matchesSeenByClient.get(db);
  if (!seen) {
    seen = new LRUCache({ max: MATCHES_SEEN_MAX, ttl: MATCHES_SEEN_MS });
    matchesSeenByClient.set(db, seen);
  }
  return seen;
}

export interface ListRequest {
  filters: Filters;
  visibleClinics: VisibleClinics;
  page: number;
  limit: number;
  /** Default `desc` (newest first). */
  order?: ListOrder;
  /** False: whether a further page exists is found without counting every match when counting costs more. */
  includeTotal?: boolean;
}

export interface InteractionList {
  page: number;
  limit: number;
  /** Exact number of matches; counted once, when first asked. */
  total(): Promise<number>;
  /** Whether a page follows this one. */
  hasMore(): Promise<boolean>;
  /** The page's rows, with what the selection reads of them (RowsRead). */
  rows(read: RowsRead): Promise<InteractionRow[]>;
  /** The full-text search of the list, if any (GraphQL's highlights read it). */
  text?: string;
}

export function listInteractions(db: Db, request: ListRequest): InteractionList {
  const { filters, visibleClinics, page, limit } = request;
  const text = filters.text;
  if (text === undefined) return readList(db, request);
  if (filters.search === undefined) return textPage(db, request, text);
  // Both searches: the text drives when it matches nothing or few (counted without the phone
  // search, from the word counts or the GIN index, reading no interaction); else the phone search
  // does, checking the text row by row. Driven by the phone search, a text that matches nothing
  // (or one row far back) was checked against every row whose number matched.
  const chosen = lazy(async () => {
    const plan = await textPlanOf(db, { ...filters, search: undefined, text }, visibleClinics, (page - 1) * limit, limit);
    return plan.matches === 0 || plan.few ? textPage(db, request, text) : readList(db, request);
  });
  return {
    page,
    limit,
    text,
    total: async () => (await chosen()).total(),
    hasMore: async () => (await chosen()).hasMore(),
    rows: async (read) => (await chosen()).rows(read),
  };
}

/** A list read by its filters in SQL or Prisma: every list but a full-text search driven by its text (listInteractions). */
function readList(db: Db, request: ListRequest): InteractionList {
  const { filters, visibleClinics, page, limit } = request;
  const skip = (page - 1) * limit;
  const take = limit;
  if (request.order === 'asc') return oldestFirst(db, request);
  const probeInsteadOfCount = request.includeTotal === false && countQuery(filters, visibleClinics) === null;
  let known: () => Promise<MatchesPage | null>;
  let total: () => Promise<number>;
  /** The page's rows read with its total (pairedRead), when the list allows it. */
  let pairedRows: ((read: RowsRead) => Promise<InteractionRow[]>) | undefined;
  if (filters.search !== undefined) {
    // Shared by the rows and the total: one statement for both. A short search (1 to 3 characters,
    // usually common) restricted by clinics alone has its exact total summed from interaction_phones,
    // read with the page's rows when its matches are few (phone-search.ts). A longer one is usually
    // rare: its matches are read with their total when there are few enough (search-page.ts), else
    // the page walks the newest rows and the total is summed from interaction_phones (countInteractions, below).
    // (Its total first, as for short ones, cost a rare search at 1m about a sixth of its
    // requests/s: the two trigram scans cost more than the one that finds its few matches.)
    const byPhone = isShortSearch(filters.search) ? phoneSearchPaging(db, filters, visibleClinics, { skip, take }, SEARCH_MATCHES_MAX) : null;
    known = byPhone?.matches ?? lazy(() => matchesPage(db, filters, visibleClinics, { skip, take }, SEARCH_MATCHES_MAX));
    total = byPhone?.total ?? lazy(async () => (await known())?.total ?? countInteractions(db, filters, visibleClinics));
  } else {
    // A first page of filters lately seen to match: no gate (matchesSeen); what it finds is remembered.
    const gateable = restrictsBeyondClinic(filters) && skip === 0;
    const seenKey = gateable ? JSON.stringify([filters, visibleClinics]) : undefined;
    const seen = seenKey === undefined ? undefined : matchesSeen(db);
    const remember = (found: number) => {
      if (seenKey !== undefined && found > 0) seen?.set(seenKey, true);
    };
    const counted = lazy(async () => {
      const n = await countInteractions(db, filters, visibleClinics);
      remember(n);
      return n;
    });
    total = counted;
    // Counted first (from the rollups) when the page could be empty at a high price: a filter on
    // a rollup dimension (channel, type, outcome, ...) has no index in (started_at, id) order, so a combination that
    // nothing matches would be walked through the whole table; past page 1, a page after the last
    // would be walked through every match to find none left. A campaign too: one the key may not
    // see counts 0 (its lookup gates the count: api-keys.ts, campaignVisible), so no row is
    // read whichever way the page would be (Prisma's queries carry no such gate).
    const knownToMatch = seenKey !== undefined && seen?.has(seenKey) === true;
    const costlyIfEmpty = (gateable && !knownToMatch) || skip > 0;
    // A page near the start whose total the rollups count: the page and its total in one statement
    // when both are asked for in the same turn (GraphQL asks for a page's nodes and its pageInfo at
    // once), and the count-first page (costlyIfEmpty) always in one.
    // (Its SQL is built only when the read pairs them: a page of nodes alone never needs it.
    // countQuery is null exactly when countableByRollups is false.)
    if (skip < IDS_FIRST_FROM && countableByRollups(filters)) {
      const countSql = () => countQuery(filters, visibleClinics) as Prisma.Sql;
      const pair = pairedRead(db, countSql, interactionConditions(filters, visibleClinics), skip, take, costlyIfEmpty, counted);
      total = async () => {
        const n = await pair.total();
        remember(n);
        return n;
      };
      pairedRows = async (read) => {
        const found = await pair.rows(read);
        remember(found.length);
        return found;
      };
    }
    known = costlyIfEmpty
      ? lazy(async () => {
          const n = await total();
          return skip >= n ? { ids: [], total: n } : null;
        })
      : async () => null;
  }

  async function rows(read: RowsRead): Promise<InteractionRow[]> {
    const { transcript } = read;
    if (pairedRows) return pairedRows(read);
    // (Between finding a page's ids and reading its rows a row may be deleted: the page is then
    // one row short, as it would be a moment later anyway.)
    const byIds = (ids: string[]) => rowsById(db, ids, transcript);
    const found = await known();
    const searched = foundRows(found, transcript);
    if (searched) return searched;
    if (found) return byIds(found.ids);
    if (skip < IDS_FIRST_FROM) return pageRows(db, interactionConditions(filters, visibleClinics), skip, take, read);
    const paged = { where: interactionWhere(filters, visibleClinics), orderBy: ORDER_INTERACTIONS, skip, take };
    // A deep page: PostgreSQL reads and discards `skip` rows before the page. Selecting whole rows
    // makes each of those a heap fetch; selecting only the ids lets it walk the (started_at, id)
    // index alone (an index-only scan when unfiltered). Deeper still, whole days are skipped.
    const skipped = skip >= DAY_SKIPPING_FROM ? await deepPageIds(db, filters, visibleClinics, skip, take) : null;
    if (skipped) return byIds(skipped);
    const ids = await db.interaction.findMany({ ...paged, select: { id: true } });
    return byIds(ids.map((row) => row.id));
  }

  return {
    page,
    limit,
    total,
    // Without a total, a list the rollups cannot count (a phone search) asks only whether one
    // match lies beyond the page; otherwise the count is as cheap as the question.
    hasMore: probeInsteadOfCount ? () => matchBeyond(db, filters, visibleClinics, skip + take, false) : async () => page < Math.ceil((await total()) / limit),
    rows,
    text: filters.text,
  };
}

/** Resolves after the current turn's promise jobs, as DataLoader batches: the calls made meanwhile join. */
const afterThisTurn = () => Promise.resolve().then(() => new Promise<void>((resolve) => process.nextTick(resolve)));

/**
 * A page's rows and its total, read together when asked for in the same turn (or when the page must
 * be gated by its count): one statement (rows.ts, pageAndTotal) instead of two. Either asked alone
 * is read alone; one asked after the other was read is read then.
 */
function pairedRead(
  db: Db,
  countSql: () => Prisma.Sql,
  conditions: Prisma.Sql[],
  skip: number,
  take: number,
  gated: boolean,
  counted: () => Promise<number>,
): { rows: (read: RowsRead) => Promise<InteractionRow[]>; total: () => Promise<number> } {
  let rowsAsked: RowsRead | undefined;
  let totalAsked = false;
  let read: Promise<{ rows?: InteractionRow[]; total?: number }> | undefined;
  /** Whether the read has begun: what is asked after that is read on its own. */
  let begun = false;
  const together = (read: RowsRead) => pageAndTotal(db, countSql(), conditions, skip, take, read, gated);
  const flush = () => {
    read ??= afterThisTurn().then(async () => {
      begun = true;
      if (rowsAsked === undefined) return { total: await counted() };
      if (totalAsked || gated) return together(rowsAsked);
      return { rows: await pageRows(db, conditions, skip, take, rowsAsked) };
    });
    return read;
  };
  return {
    rows: async (read) => {
      if (!begun) rowsAsked ??= read;
      return (await flush()).rows ?? (await together(read)).rows;
    },
    total: async () => {
      if (!begun) totalAsked = true;
      return (await flush()).total ?? counted();
    },
  };
}

/**
 * A page of a full-text search (text-search.ts), in either order. Its total comes first (from the
 * word counts when it can) with the number of interactions in its clinics and window (from the
 * rollups), and they say how to find the page: every match through the GIN index, then sorted, or
 * the documents walked in list order (read-page's other strategies assume an index in list order
 * that the search cannot use). Counted also when `includeTotal` is false: the choice needs it.
 */
function textPage(db: Db, { filters, visibleClinics, page, limit, order }: ListRequest, text: string): InteractionList {
  const skip = (page - 1) * limit;
  const plan = lazy(() => textPlanOf(db, { ...filters, text }, visibleClinics, skip, limit));
  const total = lazy(async () => (await plan()).matches);
  const ids = lazy(async (): Promise<string[]> => {
    const { scope, matches, few } = await plan();
    if (skip >= matches) return [];
    const found = await textPageIds(db, scope, { skip, take: limit, ascending: order === 'asc', fewMatches: few });
    return found.map((match) => match.id);
  });
  async function rows({ transcript }: RowsRead): Promise<InteractionRow[]> {
    const found = await ids();
    return inIdOrder(found, await rowsById(db, found, transcript));
  }
  return { page, limit, total, hasMore: async () => page < Math.ceil((await total()) / limit), rows, text };
}

/** Whether a match lies at offset `offset` or beyond. */
async function matchBeyond(db: Db, filters: Filters, visibleClinics: VisibleClinics, offset: number, ascending: boolean): Promise<boolean> {
  const order = ascending ? Prisma.sql`ORDER BY started_at, id` : Prisma.sql`ORDER BY started_at DESC, id DESC`;
  const rows = await queryRows<{ id: string }>(
    db,
    Prisma.sql`SELECT id FROM interactions WHERE ${and(interactionConditions(filters, visibleClinics))} ${order} LIMIT 1 OFFSET ${offset}`,
  );
  return rows.length > 0;
}

/**
 * A page of the list oldest first (`order=asc`): the same rows in the other direction, read by
 * plain LIMIT/OFFSET (ids first for deep pages). The shortcuts of the newest-first path (searches
 * read with their totals, days skipped by their counts) are built for that direction; a client
 * walking far in this order is better served by cursors (cursor-page.ts).
 */
function oldestFirst(db: Db, { filters, visibleClinics, page, limit, includeTotal }: ListRequest): InteractionList {
  const skip = (page - 1) * limit;
  const total = lazy(() => countInteractions(db, filters, visibleClinics));
  const probe = includeTotal === false && countQuery(filters, visibleClinics) === null;
  const paged = { where: interactionWhere(filters, visibleClinics), orderBy: ORDER_OLDEST_FIRST, skip, take: limit };
  async function rows(read: RowsRead): Promise<InteractionRow[]> {
    // A campaign is counted first, as newest first (listInteractions): one the key may not see reads no row.
    if (filters.campaignId !== undefined && skip >= (await total())) return [];
    if (skip < IDS_FIRST_FROM) return pageRows(db, interactionConditions(filters, visibleClinics), skip, limit, read, true);
    const ids = (await db.interaction.findMany({ ...paged, select: { id: true } })).map((row) => row.id);
    return inIdOrder(ids, await rowsById(db, ids, read.transcript));
  }
  return {
    page,
    limit,
    total,
    hasMore: probe ? () => matchBeyond(db, filters, visibleClinics, skip + limit, true) : async () => page < Math.ceil((await total()) / limit),
    rows,
  };
}

// The ids of a page far from the first, without walking every row before it.
//
// `OFFSET n` makes PostgreSQL read and discard n index entries (page 2,000 of 25: 50,000). The
// rollups already hold, exactly, how many rows each UTC day has for the list's filters (they are
// what `meta.total` is summed from), so whole days can be skipped by arithmetic: find the day in
// which the page begins (the newest day where the matches counted from the newest day on exceed
// `skip`), read only rows that started before the end of that day, and skip only the matches of
// the newer days' remainder. The offset left is at most one day's matches. One statement, so the
// day counts and the rows come from one snapshot.
//
// Reading the day counts costs about as much as skipping ten to twenty thousand index entries (a
// year of daily rollup rows is a few thousand rows), so shallower pages keep the plain offset
// (the threshold is above; figures: bench/results/2026-11-23-design-measurements.md).

/**
 * The ids of the page `skip`/`take` of the list (newest first), found by skipping whole days;
 * null when the filters are not all rollup dimensions (`search`).
 */
export async function deepPageIds(db: Db, filters: Filters, visibleClinics: VisibleClinics, skip: number, take: number): Promise<string[] | null> {
  // Every interaction's days from interaction_days (one row a day, where the all-clinics totals have
  // one per channel, type and direction).
  const counted = everyInteraction(filters, visibleClinics)
    ? everyInteractionByDay(filters, { days: Prisma.sql`interactions AS n`, raw: Prisma.sql`sum(n) AS n` })
    : countedMatches(filters, visibleClinics, { months: false });
  if (counted === null) return null;
  // `newer`: the matches of the days after the page's first day. When `skip` is past the last
  // match, `cut` is empty and so is the page (the bound is NULL).
  const rows = await queryRows<{ id: string }>(
    db,
    Prisma.sql`
    WITH days AS (
      SELECT day, sum(n) AS n FROM (${counted}) AS counted GROUP BY day
    ), cut AS (
      SELECT day, through - n AS newer
      FROM (SELECT day, n, sum(n) OVER (ORDER BY day DESC) AS through FROM days) AS running
      WHERE through > ${skip}::bigint
      ORDER BY day DESC LIMIT 1
    )
    SELECT i.id FROM interactions i
    WHERE ${and(interactionConditions(filters, visibleClinics))}
      AND i.started_at < (SELECT (day + 1)::timestamp AT TIME ZONE 'UTC' FROM cut)
    ORDER BY i.started_at DESC, i.id DESC
    LIMIT ${take} OFFSET (SELECT (${skip}::bigint - newer)::bigint FROM cut)`,
  );
  return rows.map((row) => row.id);
}

/** Whether the list is every interaction of its window (no restriction on a rollup dimension, nothing else). */
function everyInteraction(filters: Filters, visibleClinics: VisibleClinics): boolean {
  return countableByRollups(filters) && dimensionsOf(filters, visibleClinics).clinicIds === undefined && !restrictsBeyondClinic(filters);
}

// The number of interactions matching a list's filters (`meta.total` / `pageInfo.total`), exact
// and without counting every raw row of a long window: when every filter is a column of the rollups
// (dates, clinics, channel, type, outcomes), whole months and other full UTC days are summed from
// the rollup levels (the outcome grain when outcomes are filtered, the narrower totals otherwise)
// and only the partial days at the window's edges are counted raw, in one statement. An undated
// list sums the monthly level: a few hundred rows at any table size. A `search` (a substring of the
// phone number) restricted by clinics alone is summed from interaction_phones (phone-search.ts).
// Any other filter is not in the rollups: then the raw table is counted, as the list itself reads it.

/**
 * A full-text search's total: a one-word search restricted by clinics alone from the word counts,
 * anything else by counting its matches through the GIN index (text-search.ts).
 */
async function countText(db: Db, filters: Filters & { text: string }, visibleClinics: VisibleClinics): Promise<number> {
  const { text, ...others } = filters;
  const byClinicsAlone = Object.entries(others).every(([name, value]) => value === undefined || name === 'clinicId');
  if (byClinicsAlone) {
    const counted = await countOneWord(db, text, visibleClinics, filters.clinicId);
    if (counted !== null) return counted;
  }
  return countMatches(db, textScopeOf(filters, visibleClinics));
}

/** A full-text search's filters as text-search.ts reads them (its count here, its page in textPage, above). */
export function textScopeOf(filters: Filters & { text: string }, visibleClinics: VisibleClinics): TextScope {
  const { text, clinicId, from, to, ...rest } = filters;
  const others = Object.values(rest).some((value) => value !== undefined) ? interactionConditions(rest, visibleClinics) : [];
  // Checked on the documents when every other filter is a column of theirs (onSearchDocuments in
  // filters/interaction-filters.ts).
  const onDocuments = FILTER_KEYS.every((key) => rest[key as keyof typeof rest] === undefined || declarationOf(key).onSearchDocuments);
  return { text, visible: visibleClinics, clinicId, from, to, others, othersOnDocuments: onDocuments ? others : undefined };
}

/** How a page of a full-text search is found, from its exact number of matches (text-search.ts). */
export interface TextPlan {
  scope: TextScope;
  /** Exact number of matches: 0 means no page need be read. */
  matches: number;
  /** Few enough to find them all through the GIN index and sort them; else the list order is walked. */
  few: boolean;
}

/**
 * A full-text search's matches counted (from the word counts when it can) with the interactions
 * in its clinics and window (from the rollups), and whether a page of `take` after `skip` is found
 * sooner by finding every match or by walking: the one choice of every list that searches text
 * (numbered pages, cursors, the change feed, the lists under a clinic or campaign). Walking when
 * few or none match would read every row in the window.
 */
export async function textPlanOf(db: Db, filters: Filters & { text: string }, visibleClinics: VisibleClinics, skip: number, take: number): Promise<TextPlan> {
  const scope = textScopeOf(filters, visibleClinics);
  const inScopeFilters = { clinicId: scope.clinicId, from: scope.from, to: scope.to };
  const [matches, inScope] = await Promise.all([countInteractions(db, filters, visibleClinics), countInteractions(db, inScopeFilters, visibleClinics)]);
  return { scope, matches, few: !walkIsCheaper(matches, inScope, skip, take) };
}

/**
 * The interactions matching `filters` that the key may see, as COUNTED rows with `day` and `n`
 * (rollups/counted.ts); with `months`, whole months come as one row each. Null when the filters
 * need the raw table.
 */
export function countedMatches(filters: Filters, visibleClinics: VisibleClinics, options: { months: boolean }): Prisma.Sql | null {
  if (!countableByRollups(filters)) return null;
  const { outcomes, ...dimensions } = dimensionsOf(filters, visibleClinics);
  const window = { from: filters.from, to: filters.to };
  return outcomes !== undefined ? countedOutcomes({ ...dimensions, outcomes, ...window }, options) : countedTotals({ ...dimensions, ...window }, options);
}

/** The count as one SQL statement; null when the filters need the raw table. */
export function countQuery(filters: Filters, visibleClinics: VisibleClinics): Prisma.Sql | null {
  const counted = countedMatches(filters, visibleClinics, { months: true });
  if (counted === null) return null;
  return Prisma.sql`SELECT coalesce(sum(n), 0)::bigint AS total FROM (${counted}) AS counted`;
}

/** Interactions matching `filters` that the key may see (the list's `where`, counted). */
export async function countInteractions(db: Db, filters: Filters, visibleClinics: VisibleClinics): Promise<number> {
  if (filters.text !== undefined) return countText(db, filters as Filters & { text: string }, visibleClinics);
  const query = countQuery(filters, visibleClinics);
  if (query === null)
    return (await countPhoneMatches(db, filters, visibleClinics)) ?? db.interaction.count({ where: interactionWhere(filters, visibleClinics) });
  const [row] = await queryRows<{ total: bigint }>(db, prepared('count_interactions', query));
  return num(row?.total);
}

// Deferred work shared by everyone who asks for it: a page's count serves `total`, `totalPages`
// and `hasMore` (GraphQL page info) and the REST meta alike, and is never run when nobody asks.

/** Runs `load` once, when first asked, for everyone who asks. */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => {
    result ??= load();
    return result;
  };
}
