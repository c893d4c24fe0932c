// Summary metrics of a window (docs/concepts.md, Metrics), computed in one aggregate query.
import type { Db } from '../db/client.js';
import { prepared, queryRows } from '../db/client.js';
import { Prisma } from '../generated/prisma/client.js';
import { countedTotals } from '../rollups/counted.js';
import { SUMS, type SumsRow } from '../rollups/sums.js';
import type { MetricsFilter } from './filter.js';
import { type Totals, totalsOf } from './totals.js';

export interface SummaryMetrics {
  totalInteractions: number;
  totalCalls: number;
  totalConversations: number;
  inboundCount: number;
  outboundCount: number;
  avgDurationSeconds: number;
  totalDurationSeconds: number;
  successRate: number;
  appointmentsScheduled: number;
}

export function summaryQuery(filter: MetricsFilter): Prisma.Sql {
  // Whole months and other full days from the rollup levels, partial days raw (client.ts). An
  // aggregate without GROUP BY always yields exactly one row, also over no rows.
  return Prisma.sql`
    WITH counted AS (${countedTotals(filter, { months: true })})
    SELECT ${SUMS} FROM counted`;
}

export async function metricsSummary(db: Db, filter: MetricsFilter): Promise<SummaryMetrics> {
  const [row] = await queryRows<SumsRow>(db, prepared('metrics_summary', summaryQuery(filter)));
  if (!row) throw new Error('metrics summary: the aggregate query returned no row');
  return summaryMetrics(totalsOf(row));
}

/** The summary's figures of a window's totals (also in a time zone: zoned.ts). */
export function summaryMetrics(totals: Totals): SummaryMetrics {
  return {
    totalInteractions: totals.total,
    totalCalls: totals.calls,
    totalConversations: totals.conversations,
    inboundCount: totals.inbound,
    outboundCount: totals.outbound,
    avgDurationSeconds: totals.avgDurationSeconds,
    totalDurationSeconds: totals.totalDurationSeconds,
    successRate: totals.successRate,
    appointmentsScheduled: totals.appointmentsScheduled,
  };
}
