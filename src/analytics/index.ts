// Aggregated metrics of interactions (docs/concepts.md, Metrics), computed by PostgreSQL from the daily
// rollup (full days) and the raw table (partial days).
export { countInteractions } from '../interactions/read-page.js';
export { type DailyMetric, metricsDaily } from './daily.js';
export type { MetricsFilter } from './filter.js';
export { metricsOutcomes, type OutcomeBreakdown, type OutcomesResult } from './outcomes.js';
export { metricsSummary, type SummaryMetrics } from './summary.js';
