// Summary metrics of a window (decisions.md section 4), computed in one aggregate query.
import type { Db } from '../db/client.js';
import { Prisma } from '../generated/prisma/client.js';
import type { MetricsFilter } from './filter.js';
import { AGGREGATES, countedTotals, DERIVED, type DerivedRow, num } from './sql.js';

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
  // Whole months and other full days from the rollup levels, partial days raw (sql.ts). An
  // aggregate without GROUP BY always yields exactly one row, also over no rows.
  return Prisma.sql`
    WITH counted AS (${countedTotals(filter, { months: true })})
    SELECT ${DERIVED}
    FROM (SELECT ${AGGREGATES} FROM counted) AS a`;
}

export async function metricsSummary(db: Db, filter: MetricsFilter): Promise<SummaryMetrics> {
  const [row] = await db.$queryRaw<DerivedRow[]>(summaryQuery(filter));
  if (!row) throw new Error('metrics summary: the aggregate query returned no row');
  return {
    totalInteractions: num(row.total),
    totalCalls: num(row.calls),
    totalConversations: num(row.conversations),
    inboundCount: num(row.inbound),
    outboundCount: num(row.outbound),
    avgDurationSeconds: num(row.avg_duration_seconds),
    totalDurationSeconds: num(row.total_duration_seconds),
    successRate: num(row.success_rate),
    appointmentsScheduled: num(row.appointments_scheduled),
  };
}
