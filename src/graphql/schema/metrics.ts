// Aggregated metrics (decisions section 4), computed by PostgreSQL in src/metrics.
import {
  type DailyMetric,
  type MetricsFilter,
  metricsDaily,
  metricsOutcomes,
  metricsSummary,
  type OutcomeBreakdown,
  type SummaryMetrics,
} from '../../analytics/index.js';
import { checkMetricsFilter, MAX_DAILY_DAYS } from '../../analytics/window-filter.js';
import { SUCCESSFUL_OUTCOMES } from '../../domain/values.js';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import { checked } from '../errors.js';
import { ChannelEnum, InteractionTypeEnum } from './enums.js';

/** An aggregate over a window costs like a page of rows (see builder.ts). */
const METRICS_COST = 500;

const successNote = `Success means one of ${SUCCESSFUL_OUTCOMES.join(', ')}, over interactions that have an outcome.`;

const MetricsSummary = builder.objectRef<SummaryMetrics>('MetricsSummary').implement({
  description: 'Totals over a window of interactions.',
  fields: (t) => ({
    totalInteractions: t.exposeInt('totalInteractions', { description: 'Interactions in the window.' }),
    totalCalls: t.exposeInt('totalCalls', { description: 'Voice calls.' }),
    totalConversations: t.exposeInt('totalConversations', { description: 'WhatsApp conversations.' }),
    inboundCount: t.exposeInt('inboundCount', { description: 'Inbound interactions.' }),
    outboundCount: t.exposeInt('outboundCount', { description: 'Outbound interactions.' }),
    avgDurationSeconds: t.exposeFloat('avgDurationSeconds', { description: 'Mean call duration over calls with a duration, 2 decimals; 0 when none.' }),
    totalDurationSeconds: t.exposeInt('totalDurationSeconds', { description: 'Sum of call durations.' }),
    successRate: t.exposeFloat('successRate', { description: `Percentage of successful outcomes, 0-100, 2 decimals. ${successNote}` }),
    appointmentsScheduled: t.exposeInt('appointmentsScheduled', { description: 'Interactions with outcome APPOINTMENT_BOOKED.' }),
  }),
});

const DailyMetricType = builder.objectRef<DailyMetric>('DailyMetric').implement({
  description: 'Totals of one UTC day.',
  fields: (t) => ({
    date: t.expose('date', { type: 'Date', description: 'The UTC day.' }),
    total: t.exposeInt('total', { description: 'Interactions that day.' }),
    calls: t.exposeInt('calls', { description: 'Voice calls.' }),
    conversations: t.exposeInt('conversations', { description: 'WhatsApp conversations.' }),
    inbound: t.exposeInt('inbound', { description: 'Inbound interactions.' }),
    outbound: t.exposeInt('outbound', { description: 'Outbound interactions.' }),
    appointmentsScheduled: t.exposeInt('appointmentsScheduled', { description: 'Interactions with outcome APPOINTMENT_BOOKED.' }),
    successRate: t.exposeFloat('successRate', { description: `Percentage of successful outcomes, 0-100, 2 decimals. ${successNote}` }),
    avgDurationSeconds: t.exposeFloat('avgDurationSeconds', { description: 'Mean call duration, 2 decimals; 0 when none.' }),
  }),
});

const OutcomeBreakdownType = builder.objectRef<OutcomeBreakdown>('OutcomeBreakdown').implement({
  description: 'How many interactions had one outcome.',
  fields: (t) => ({
    outcome: t.exposeString('outcome', { description: 'The UPPERCASE outcome value.' }),
    label: t.exposeString('label', { description: 'Human-readable name, e.g. `Appointment Booked`.' }),
    count: t.exposeInt('count', { description: 'Interactions with this outcome.' }),
    percentage: t.exposeFloat('percentage', { description: 'Share of `total`, 0-100, 2 decimals.' }),
  }),
});

const OutcomeBreakdownResult = builder.objectRef<{ outcomes: OutcomeBreakdown[]; total: number }>('OutcomeBreakdownResult').implement({
  description: 'Interactions per outcome, most frequent first (ties by outcome name).',
  fields: (t) => ({
    outcomes: t.field({ type: [OutcomeBreakdownType], description: 'One entry per outcome that occurred.', resolve: (r) => r.outcomes }),
    total: t.exposeInt('total', { description: 'Interactions with an outcome, counted in the breakdown.' }),
  }),
});

const windowArgs = builder.args((t) => ({
  dateFrom: t.string({ description: 'Start of the window: `YYYY-MM-DD` (start of that UTC day) or an ISO 8601 date-time. Default: 30 days ago.' }),
  dateTo: t.string({ description: 'End of the window, inclusive: `YYYY-MM-DD` (end of that UTC day) or an ISO 8601 date-time. Default: today.' }),
  clinicId: t.id({ description: 'Only this clinic (UUID).' }),
  channel: t.field({ type: ChannelEnum, description: 'Only this channel.' }),
}));

const typeArg = builder.args((t) => ({
  type: t.field({ type: InteractionTypeEnum, description: 'Only this interaction type; must be valid for `channel` when both are given.' }),
}));

interface WindowArgs {
  dateFrom?: string | null;
  dateTo?: string | null;
  clinicId?: string | number | null;
  channel?: string | null;
  type?: string | null;
}

function metricsFilter(args: WindowArgs, context: GraphQLContext, maxDays?: number): MetricsFilter {
  const raw = { ...args, clinicId: args.clinicId == null ? null : String(args.clinicId) };
  const { visibleClinics, now } = context;
  return checked(context, raw, (values, names, problems) => checkMetricsFilter(values, names, problems, { visibleClinics, now, maxDays }));
}

builder.queryFields((t) => ({
  metricsSummary: t.field({
    complexity: METRICS_COST,
    type: MetricsSummary,
    nullable: true,
    description: 'Totals over a window (default: the last 30 days). Needs scope `metrics:read`.',
    authScopes: { 'metrics:read': true },
    args: windowArgs,
    resolve: (_root, args, context) => metricsSummary(context.db, metricsFilter(args, context)),
  }),
  metricsDaily: t.field({
    complexity: METRICS_COST,
    type: [DailyMetricType],
    nullable: true,
    description: 'One entry per UTC day of the window (default: the last 30 days), zero-filled, oldest first. Needs scope `metrics:read`.',
    authScopes: { 'metrics:read': true },
    args: { ...windowArgs, ...typeArg },
    resolve: (_root, args, context) => metricsDaily(context.db, metricsFilter(args, context, MAX_DAILY_DAYS)),
  }),
  metricsOutcomes: t.field({
    complexity: METRICS_COST,
    type: OutcomeBreakdownResult,
    nullable: true,
    description: 'Interactions per outcome over a window (default: the last 30 days). Needs scope `metrics:read`.',
    authScopes: { 'metrics:read': true },
    args: { ...windowArgs, ...typeArg },
    resolve: (_root, args, context) => metricsOutcomes(context.db, metricsFilter(args, context)),
  }),
}));
