// The number of interactions matching a list's filters (`meta.total` / `pageInfo.total`), exact
// and without counting every raw row of a long window: when every filter is a column of the rollups
// (dates, clinics, channel, type, outcomes), whole months and other full UTC days are summed from
// the rollup levels (the outcome grain when outcomes are filtered, the narrower totals otherwise)
// and only the partial days at the window's edges are counted raw, in one statement. An undated
// list sums the monthly level: a few hundred rows at any table size. `search` (a substring of the
// phone number) is not in the rollups: then the raw table is counted, as the list itself reads it.

import type { Db } from '../db/client.js';
import { num, prepared, queryRows } from '../db/sql.js';
import type { Filters } from '../filters/parameters.js';
import { clinicScope, interactionWhere, type VisibleClinics } from '../filters/visibility.js';
import { Prisma } from '../generated/prisma/client.js';
import { countPhoneMatches } from '../interactions/phone-search.js'; // phone-search: wiring
import { countedOutcomes, countedTotals } from './sql.js';

/**
 * The interactions matching `filters` that the key may see, as COUNTED rows with `day` and `n`
 * (sql.ts); with `months`, whole months come as one row each. Null when the filters need the raw
 * table (`search`).
 */
export function countedMatches(filters: Filters, visibleClinics: VisibleClinics, options: { months: boolean }): Prisma.Sql | null {
  if (filters.search !== undefined) return null;
  const dimensions = {
    clinicIds: clinicScope(visibleClinics, filters.clinicId),
    channel: filters.channel,
    type: filters.type,
  };
  return filters.outcomes !== undefined
    ? countedOutcomes({ ...dimensions, outcomes: filters.outcomes, from: filters.from, to: filters.to }, options)
    : countedTotals({ ...dimensions, from: filters.from, to: filters.to }, options);
}

/** The count as one SQL statement; null when the filters need the raw table (`search`). */
export function countQuery(filters: Filters, visibleClinics: VisibleClinics): Prisma.Sql | null {
  const counted = countedMatches(filters, visibleClinics, { months: true });
  if (counted === null) return null;
  return Prisma.sql`SELECT coalesce(sum(n), 0)::bigint AS total FROM (${counted}) AS counted`;
}

/** Interactions matching `filters` that the key may see (the list's `where`, counted). */
export async function countInteractions(db: Db, filters: Filters, visibleClinics: VisibleClinics): Promise<number> {
  const query = countQuery(filters, visibleClinics);
  if (query === null) {
    // phone-search: a search restricted by clinics alone is a sum over interaction_phones.
    return (await countPhoneMatches(db, filters, visibleClinics)) ?? db.interaction.count({ where: interactionWhere(filters, visibleClinics) });
  }
  const [row] = await queryRows<{ total: bigint }>(db, prepared('count_interactions', query));
  return num(row?.total);
}
