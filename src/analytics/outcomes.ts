// Outcome breakdown: one entry per non-null outcome, in one query.
import type { Db } from '../db/client.js';
import { num, prepared, queryRows } from '../db/client.js';
import { outcomeLabel } from '../domain/values.js';
import { Prisma } from '../generated/prisma/client.js';
import { countedOutcomes } from '../rollups/counted.js';
import type { MetricsFilter } from './filter.js';

export interface OutcomeBreakdown {
  outcome: string;
  label: string;
  count: number;
  percentage: number;
}

/** A breakdown of a window: its entries and the number of interactions with an outcome. */
export interface OutcomesResult {
  outcomes: OutcomeBreakdown[];
  total: number;
}

export function outcomesQuery(filter: MetricsFilter): Prisma.Sql {
  // Ties are ordered by the outcome's bytes (COLLATE "C"), not by the database's linguistic
  // collation, so the order is the same on every server and equals JavaScript's string order.
  // Whole months and other full days from the rollup levels, partial days raw (client.ts); '' is
  // "no outcome" there. The monthly level keeps keys whose count fell to 0: HAVING drops them.
  return Prisma.sql`
    WITH counted AS (${countedOutcomes(filter, { months: true })})
    SELECT o.outcome, o.count, o.total,
           round(o.count * 100::numeric / o.total, 2)::float8 AS percentage
    FROM (
      SELECT outcome, sum(n)::bigint AS count, (sum(sum(n)) OVER ())::bigint AS total
      FROM counted
      WHERE outcome <> ''
      GROUP BY outcome
      HAVING sum(n) <> 0
    ) AS o
    ORDER BY o.count DESC, o.outcome COLLATE "C" ASC`;
}

interface OutcomeRow {
  outcome: string;
  count: bigint;
  total: bigint;
  percentage: number;
}

export async function metricsOutcomes(db: Db, filter: MetricsFilter): Promise<OutcomesResult> {
  const rows = await queryRows<OutcomeRow>(db, prepared('metrics_outcomes', outcomesQuery(filter)));
  return {
    outcomes: rows.map((row) => ({
      outcome: row.outcome,
      label: outcomeLabel(row.outcome),
      count: num(row.count),
      percentage: num(row.percentage),
    })),
    // Every row carries the window total; no row means nothing had an outcome.
    total: num(rows[0]?.total),
  };
}
