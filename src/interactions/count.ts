// The number of interactions matching a list's filters (`meta.total` / `pageInfo.total`), exact
// and without counting every raw row of a long window: when every filter is a column of the rollups
// (dates, clinics, channel, type, outcomes), whole months and other full UTC days are summed from
// the rollup levels (the outcome grain when outcomes are filtered, the narrower totals otherwise)
// and only the partial days at the window's edges are counted raw, in one statement. An undated
// list sums the monthly level: a few hundred rows at any table size. A `search` (a substring of the
// phone number) restricted by clinics alone is summed from interaction_phones (phone-search.ts).
// Any other filter is not in the rollups: then the raw table is counted, as the list itself reads it.
import type { VisibleClinics } from '../auth/clinic-visibility.js';
import type { Db } from '../db/client.js';
import { num, prepared, queryRows } from '../db/sql.js';
import { declarationOf, FILTER_KEYS, type Filters } from '../filters/interaction-filters.js';
import { Prisma } from '../generated/prisma/client.js';
import { countedOutcomes, countedTotals } from '../rollups/counted.js';
import { countableByRollups, dimensionsOf, interactionConditions, interactionWhere } from './conditions.js';
import { countPhoneMatches } from './phone-search.js';
import { countMatches, countOneWord, type TextScope, walkIsCheaper } from './text-search.js';

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

/** A full-text search's filters as text-search.ts reads them (its count here, its page in read-page.ts). */
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
