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
// (read-page.ts has the threshold; figures: bench/results/2026-11-23-design-measurements.md).
import type { VisibleClinics } from '../auth/clinic-visibility.js';
import type { Db } from '../db/client.js';
import { and, queryRows } from '../db/sql.js';
import type { Filters } from '../filters/interaction-filters.js';
import { Prisma } from '../generated/prisma/client.js';
import { everyInteractionByDay } from '../rollups/counted.js';
import { countableByRollups, dimensionsOf, interactionConditions, restrictsBeyondClinic } from './conditions.js';
import { countedMatches } from './count.js';

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
