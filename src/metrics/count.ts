// The number of interactions matching a list's filters (`meta.total` / `pageInfo.total`), exact
// and without counting every raw row of a long window: when every filter is a column of the daily
// rollup (dates, clinics, channel, type, outcomes), the full UTC days are summed from
// interaction_daily_rollups and only the partial days at the window's edges are counted raw, in one
// statement. `search` (a substring of the phone number) is not in the rollup: then the raw table is
// counted, as the list itself reads it.
import type { Db } from '../db/client.js';
import type { Filters } from '../filters/parameters.js';
import { clinicScope, interactionWhere, type VisibleClinics } from '../filters/visibility.js';
import { Prisma } from '../generated/prisma/client.js';
import { and, dimensionConditions, num, rawRangeConditions, rollupDayConditions } from './sql.js';
import { splitWindow } from './window.js';

/** The count as one SQL statement; null when the filters need the raw table (`search`). */
export function countQuery(filters: Filters, visibleClinics: VisibleClinics): Prisma.Sql | null {
  if (filters.search !== undefined) return null;
  const dimensions = dimensionConditions({
    clinicIds: clinicScope(visibleClinics, filters.clinicId),
    channel: filters.channel,
    type: filters.type,
    outcomes: filters.outcomes,
  });
  const split = splitWindow(filters.from, filters.to);
  const parts: Prisma.Sql[] = [];
  if (split.days) {
    parts.push(Prisma.sql`(
      SELECT coalesce(sum(interactions), 0) FROM interaction_daily_rollups
      WHERE ${and([...rollupDayConditions(split.days), ...dimensions])})`);
  }
  for (const range of split.raw) {
    parts.push(Prisma.sql`(
      SELECT count(*) FROM interactions
      WHERE ${and([...rawRangeConditions(range), ...dimensions])})`);
  }
  return Prisma.sql`SELECT (${Prisma.join(parts, ' + ')})::bigint AS total`;
}

/** Interactions matching `filters` that the key may see (the list's `where`, counted). */
export async function countInteractions(db: Db, filters: Filters, visibleClinics: VisibleClinics): Promise<number> {
  const query = countQuery(filters, visibleClinics);
  if (query === null) return db.interaction.count({ where: interactionWhere(filters, visibleClinics) });
  const [row] = await db.$queryRaw<Array<{ total: bigint }>>(query);
  return num(row?.total);
}
