// Aggregated metrics (decisions section 4), computed by PostgreSQL in src/metrics.
import {
  type DailyMetric,
  type MetricsFilter,
  metricsDaily,
  metricsOutcomes,
  metricsSummary,
  type OutcomeBreakdown,
  type OutcomesResult,
  type SummaryMetrics,
} from '../../analytics/index.js';
import { checkMetricsFilter, MAX_DAILY_DAYS } from '../../analytics/window-filter.js';
import {
  ComparisonOutOfRange,
  type SeriesBucket,
  type SummaryChange,
  summaryChange,
  TooManyBuckets,
  WindowOutOfOrder,
  type ZonedQuery,
  zonedDaily,
  zonedOutcomes,
  zonedSeries,
  zonedSummary,
} from '../../analytics/zoned.js';
import type { Problems } from '../../domain/parameters.js';
import { SUCCESSFUL_OUTCOMES } from '../../domain/values.js';
import type { ParameterNames } from '../../filters/interaction-filters.js';
import { handInSlices } from '../../limits/admission.js';
import { type Granularity, MAX_SERIES_BUCKETS } from '../../zones/local-calendar.js';
import { knownZoneNames } from '../../zones/zone-names.js';
import type { GraphQLContext } from '../builder.js';
import { type ArgumentUnits, builder, checked, rejected } from '../builder.js';
import { GranularityEnum, MetricsComparisonEnum } from './enums.js';
import { type FilterArgValues, filterArgs, sentFilters } from './interaction.js';
import { type CheckedZoneArguments, checkZoneArguments, type ZoneArguments, zonedQuery } from './zone-arguments.js';

/** An aggregate over a window costs like a page of rows (see builder.ts). */
export const METRICS_COST = 500;

const successNote = `Success means one of ${SUCCESSFUL_OUTCOMES.join(', ')}, over interactions that have an outcome.`;

type SummaryResult = SummaryMetrics & { previous?: SummaryMetrics; change?: SummaryChange };

export const MetricsSummary = builder.objectRef<SummaryResult>('MetricsSummary');

const MetricsChange = builder.objectRef<SummaryChange>('MetricsChange').implement({
  description:
    'Relative change from the comparison window to the window, per figure of MetricsSummary: (current - previous) / previous x 100, from the figures as reported, 2 decimals; null where the previous figure is 0.',
  fields: (t) => ({
    totalInteractions: t.exposeFloat('totalInteractions', { nullable: true, description: 'Change of totalInteractions, percent.' }),
    totalCalls: t.exposeFloat('totalCalls', { nullable: true, description: 'Change of totalCalls, percent.' }),
    totalConversations: t.exposeFloat('totalConversations', { nullable: true, description: 'Change of totalConversations, percent.' }),
    inboundCount: t.exposeFloat('inboundCount', { nullable: true, description: 'Change of inboundCount, percent.' }),
    outboundCount: t.exposeFloat('outboundCount', { nullable: true, description: 'Change of outboundCount, percent.' }),
    avgDurationSeconds: t.exposeFloat('avgDurationSeconds', { nullable: true, description: 'Change of avgDurationSeconds, percent.' }),
    totalDurationSeconds: t.exposeFloat('totalDurationSeconds', { nullable: true, description: 'Change of totalDurationSeconds, percent.' }),
    successRate: t.exposeFloat('successRate', { nullable: true, description: 'Change of successRate (relative, not in points), percent.' }),
    appointmentsScheduled: t.exposeFloat('appointmentsScheduled', { nullable: true, description: 'Change of appointmentsScheduled, percent.' }),
  }),
});

MetricsSummary.implement({
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
    previous: t.field({
      type: MetricsSummary,
      nullable: true,
      description: 'The same totals over the comparison window (`compare`); null without one.',
      resolve: (r) => r.previous ?? null,
    }),
    change: t.field({
      type: MetricsChange,
      nullable: true,
      description: 'Change from `previous`, per figure, in percent; null without `compare`.',
      resolve: (r) => r.change ?? null,
    }),
  }),
});

const DailyMetricType = builder.objectRef<DailyMetric>('DailyMetric').implement({
  description: 'Totals of one day: a UTC day, or a local day with `timezone`.',
  fields: (t) => ({
    date: t.expose('date', { type: 'Date', description: 'The day (UTC, or local with `timezone`).' }),
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

type OutcomesReport = OutcomesResult & { previous?: OutcomesResult };

const OutcomeBreakdownResult = builder.objectRef<OutcomesReport>('OutcomeBreakdownResult');
OutcomeBreakdownResult.implement({
  description: 'Interactions per outcome, most frequent first (ties by outcome name).',
  fields: (t) => ({
    outcomes: t.field({ type: [OutcomeBreakdownType], description: 'One entry per outcome that occurred.', resolve: (r) => r.outcomes }),
    total: t.exposeInt('total', { description: 'Interactions with an outcome, counted in the breakdown.' }),
    previous: t.field({
      type: OutcomeBreakdownResult,
      nullable: true,
      description: 'The breakdown of the comparison window (`compare`); null without one.',
      resolve: (r) => r.previous ?? null,
    }),
  }),
});

const MetricsDailyReport = builder.objectRef<{ daily: DailyMetric[]; previous?: DailyMetric[] }>('MetricsDailyReport').implement({
  description: 'A daily series and, with `compare`, the same series over the comparison window.',
  fields: (t) => ({
    daily: t.field({ type: [DailyMetricType], description: 'One entry per day of the window, zero-filled, oldest first.', resolve: (r) => r.daily }),
    previous: t.field({
      type: [DailyMetricType],
      nullable: true,
      description: 'One entry per day of the comparison window; null without `compare`.',
      resolve: (r) => r.previous ?? null,
    }),
  }),
});

const SeriesBucketType = builder.objectRef<SeriesBucket>('SeriesBucket').implement({
  description: 'Totals of one local calendar unit (hour, day, week, month, quarter or year), cut to the window.',
  fields: (t) => ({
    start: t.exposeString('start', {
      description: "First instant of the bucket: ISO 8601 local date-time with the zone's offset at that instant, e.g. `2026-10-25T02:00:00.000+01:00`.",
    }),
    end: t.exposeString('end', { description: 'The instant after the bucket (exclusive), written like `start`.' }),
    total: t.exposeInt('total', { description: 'Interactions in the bucket.' }),
    calls: t.exposeInt('calls', { description: 'Voice calls.' }),
    conversations: t.exposeInt('conversations', { description: 'WhatsApp conversations.' }),
    inbound: t.exposeInt('inbound', { description: 'Inbound interactions.' }),
    outbound: t.exposeInt('outbound', { description: 'Outbound interactions.' }),
    appointmentsScheduled: t.exposeInt('appointmentsScheduled', { description: 'Interactions with outcome APPOINTMENT_BOOKED.' }),
    successRate: t.exposeFloat('successRate', { description: `Percentage of successful outcomes, 0-100, 2 decimals. ${successNote}` }),
    avgDurationSeconds: t.exposeFloat('avgDurationSeconds', { description: 'Mean call duration, 2 decimals; 0 when none.' }),
  }),
});

const MetricsSeries = builder.objectRef<{ series: SeriesBucket[]; previous?: SeriesBucket[] }>('MetricsSeries').implement({
  description: 'A series of local calendar buckets and, with `compare`, the same over the comparison window.',
  fields: (t) => ({
    // Completed by the executor in time slices: a year of hours is 8,760 buckets a list.
    series: t.field({
      type: [SeriesBucketType],
      description: 'Every bucket of the window, zero-filled, oldest first.',
      resolve: (r) => handInSlices(r.series),
    }),
    previous: t.field({
      type: [SeriesBucketType],
      nullable: true,
      description: 'The buckets of the comparison window; null without `compare`.',
      resolve: (r) => (r.previous ? handInSlices(r.previous) : null),
    }),
  }),
});

/** The window of every metrics field (and of the metrics of a clinic or campaign). */
export const metricsWindowArgs = builder.args((t) => ({
  dateFrom: t.string({
    description: 'Start of the window: `YYYY-MM-DD` (start of that day: UTC, or local with `timezone`) or an ISO 8601 date-time. Default: 30 days ago.',
  }),
  dateTo: t.string({
    description: 'End of the window, inclusive: `YYYY-MM-DD` (end of that day: UTC, or local with `timezone`) or an ISO 8601 date-time. Default: today.',
  }),
}));

/** The window and filters of the metrics fields (the summary takes fewer filters: summaryArgs). */
export const windowArgs = { ...metricsWindowArgs, ...filterArgs('metrics') };
const summaryArgs = { ...metricsWindowArgs, ...filterArgs('summary') };

export const timezoneArg = builder.args((t) => ({
  timezone: t.string({
    description:
      "Time zone of the window's dates and of the buckets: an IANA tz database name as spelled there (`Europe/Madrid`, `Asia/Kathmandu`), or `clinic` for the time zone of the clinic the request is restricted to (which it then must name). Default `UTC`.",
  }),
}));

const compareArg = builder.args((t) => ({
  compare: t.field({ type: MetricsComparisonEnum, description: 'Also compute the figures of this earlier window (`previous`).' }),
}));

export type WindowArgs = { dateFrom?: string | null; dateTo?: string | null } & FilterArgValues;

export interface MetricsRequest {
  filter: MetricsFilter;
  zone: CheckedZoneArguments;
  sent: WindowArgs & ZoneArguments;
  series: boolean;
}

/**
 * The arguments of a metrics field, checked before anything is read. Synchronous, so a request
 * that is only being checked (the REST facade with problems of its own, the OpenAPI examples) gets
 * its problems at once.
 */
export function checkMetrics(args: WindowArgs & ZoneArguments, context: GraphQLContext, options: { maxDays?: number; series?: boolean } = {}): MetricsRequest {
  return checkMetricsWith(args, context, options, () => undefined).request;
}

/**
 * checkMetrics with the checks of a field's own further arguments (`more`), so that one
 * VALIDATION_ERROR names every bad argument. `more` sees the arguments as sent.
 */
export function checkMetricsWith<A extends WindowArgs & ZoneArguments, T>(
  args: A,
  context: GraphQLContext,
  options: { maxDays?: number; series?: boolean },
  more: (values: A, names: ParameterNames, problems: Problems) => T,
): { request: MetricsRequest; more: T } {
  const raw = sentFilters(args);
  const { visibleClinics, now } = context;
  return checked(context, raw, (values, names, problems) => ({
    request: {
      filter: checkMetricsFilter(values, names, problems, {
        visibleClinics,
        now,
        maxDays: options.maxDays,
        inZone: values.timezone != null && values.timezone !== 'UTC',
      }),
      zone: checkZoneArguments(values, names, problems, { granularity: options.series ? 'required' : undefined, knownZones: knownZoneNames(context.db) }),
      sent: values,
      series: options.series ?? false,
    },
    more: more(values, names, problems),
  }));
}

/**
 * The zoned query of a checked request with a time zone other than UTC or a comparison (always for
 * a series); undefined for the others, which today's UTC code answers.
 */
export async function zonedQueryOf(request: MetricsRequest, context: GraphQLContext): Promise<ZonedQuery | undefined> {
  const query = await zonedQuery(context, request.sent, request.filter, request.zone, request.series);
  return query && (request.series || query.zone !== 'UTC' || query.compare) ? query : undefined;
}

/** Turns the zoned code's refusals into the caller's VALIDATION_ERROR. */
export async function answering<T>(
  context: GraphQLContext,
  query: ZonedQuery,
  work: () => Promise<T>,
  tooMany: (names: ParameterNames) => Record<string, string>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof WindowOutOfOrder) {
      throw rejected(context, (names) => ({ [names.dateFrom]: `is later than ${names.dateTo} in time zone ${query.zone}` }));
    }
    if (error instanceof TooManyBuckets) throw rejected(context, tooMany);
    if (error instanceof ComparisonOutOfRange) {
      throw rejected(context, (names) => ({ [names.compare]: 'the comparison window would begin before 0001-01-01' }));
    }
    throw error;
  }
}

export const tooManyDays = (names: ParameterNames) => ({ [names.dateTo]: `the daily series covers at most ${MAX_DAILY_DAYS} days` });

/** Buckets of a series per unit of the key's concurrency limit: a year of hours with a comparison (17,520) is 4. */
export const SERIES_BUCKETS_PER_UNIT = 5_000;

const DAY_MS = 86_400_000;
/** Buckets a day of the window makes, roughly (a bound, not the answer: units are a coarse cost). */
const BUCKETS_PER_DAY: Record<Granularity, number> = { hour: 24, day: 1, week: 1 / 7, month: 1 / 28, quarter: 1 / 90, year: 1 / 365 };

/**
 * A series' units by the buckets it asks for, read from its arguments before it runs: the window's
 * days (as given, or the defaults) times the granularity's buckets per day, twice with `compare`.
 * Most of a long series' cost is building and writing its answer on the service's one thread.
 */
const SERIES_UNITS: ArgumentUnits = {
  text: `1 per ${SERIES_BUCKETS_PER_UNIT.toLocaleString('en-US')} buckets`,
  of: (args, nowMs) => {
    const instant = (value: unknown) => (typeof value === 'string' ? Date.parse(value) : Number.NaN);
    const to = Number.isFinite(instant(args.dateTo)) ? instant(args.dateTo) : nowMs;
    const from = Number.isFinite(instant(args.dateFrom)) ? instant(args.dateFrom) : to - 30 * DAY_MS;
    const days = Math.max(1, (to - from) / DAY_MS + 1);
    const perDay = BUCKETS_PER_DAY[String(args.granularity).toLowerCase() as Granularity] ?? 1;
    const buckets = Math.min(MAX_SERIES_BUCKETS, Math.ceil(days * perDay)) * (args.compare ? 2 : 1);
    return Math.ceil(buckets / SERIES_BUCKETS_PER_UNIT);
  },
};

builder.queryFields((t) => ({
  metricsSummary: t.field({
    databaseCost: { readsDatabase: true, units: 1, perSecond: 10 },
    complexity: METRICS_COST,
    type: MetricsSummary,
    nullable: true,
    description: 'Totals over a window (default: the last 30 days), optionally in a time zone and against an earlier window. Needs scope `metrics:read`.',
    authScopes: { 'metrics:read': true },
    args: { ...summaryArgs, ...timezoneArg, ...compareArg },
    resolve: (_root, args, context) => summaryReport(checkMetrics(args, context), context),
  }),
  metricsDaily: t.field({
    databaseCost: { readsDatabase: true, units: 1, perSecond: 10 },
    complexity: METRICS_COST,
    type: [DailyMetricType],
    nullable: true,
    description:
      'One entry per day of the window (default: the last 30 days), zero-filled, oldest first: UTC days, or local days with `timezone`. Needs scope `metrics:read`. `metricsDailyReport` adds a comparison.',
    authScopes: { 'metrics:read': true },
    args: { ...windowArgs, ...timezoneArg },
    resolve: (_root, args, context) => dailyReport(checkMetrics(args, context, { maxDays: MAX_DAILY_DAYS }), context).then((report) => report.daily),
  }),
  metricsDailyReport: t.field({
    databaseCost: { readsDatabase: true, units: 1, perSecond: 10 },
    complexity: METRICS_COST,
    type: MetricsDailyReport,
    nullable: true,
    description: 'The daily series of `metricsDaily` and, with `compare`, the same over the comparison window. Needs scope `metrics:read`.',
    authScopes: { 'metrics:read': true },
    args: { ...windowArgs, ...timezoneArg, ...compareArg },
    resolve: (_root, args, context) => dailyReport(checkMetrics(args, context, { maxDays: MAX_DAILY_DAYS }), context),
  }),
  metricsSeries: t.field({
    databaseCost: { readsDatabase: true, units: SERIES_UNITS, perSecond: 10 },
    complexity: METRICS_COST,
    type: MetricsSeries,
    nullable: true,
    description: `Totals per local hour, day, ISO week, month, quarter or year of the window (default: the last 30 days), in a time zone (default UTC), zero-filled, oldest first; at most ${MAX_SERIES_BUCKETS} buckets. Needs scope \`metrics:read\`.`,
    authScopes: { 'metrics:read': true },
    args: {
      ...windowArgs,
      ...timezoneArg,
      ...compareArg,
      granularity: t.arg({ type: GranularityEnum, description: 'The calendar unit of the buckets. Required.' }),
    },
    resolve: (_root, args, context) => seriesReport(checkMetrics(args, context, { series: true }), context),
  }),
  metricsOutcomes: t.field({
    databaseCost: { readsDatabase: true, units: 1, perSecond: 10 },
    complexity: METRICS_COST,
    type: OutcomeBreakdownResult,
    nullable: true,
    description:
      'Interactions per outcome over a window (default: the last 30 days), optionally in a time zone and against an earlier window. Needs scope `metrics:read`.',
    authScopes: { 'metrics:read': true },
    args: { ...windowArgs, ...timezoneArg, ...compareArg },
    resolve: (_root, args, context) => outcomesReport(checkMetrics(args, context), context),
  }),
}));

async function summaryReport(request: MetricsRequest, context: GraphQLContext): Promise<SummaryResult> {
  const query = await zonedQueryOf(request, context);
  if (!query) return metricsSummary(context.db, request.filter);
  const { current, previous } = await answering(context, query, () => zonedSummary(context.db, query), tooManyDays);
  return previous ? { ...current, previous, change: summaryChange(current, previous) } : current;
}

async function dailyReport(request: MetricsRequest, context: GraphQLContext): Promise<{ daily: DailyMetric[]; previous?: DailyMetric[] }> {
  const query = await zonedQueryOf(request, context);
  if (!query) return { daily: await metricsDaily(context.db, request.filter) };
  const { current, previous } = await answering(context, query, () => zonedDaily(context.db, query, MAX_DAILY_DAYS), tooManyDays);
  return previous ? { daily: current, previous } : { daily: current };
}

async function seriesReport(request: MetricsRequest, context: GraphQLContext): Promise<{ series: SeriesBucket[]; previous?: SeriesBucket[] }> {
  const query = (await zonedQueryOf(request, context))!;
  const granularity = request.zone.granularity!;
  const { current, previous } = await answering(
    context,
    query,
    () => zonedSeries(context.db, query, granularity),
    (names) => ({
      [names.granularity]: `gives more than ${MAX_SERIES_BUCKETS} buckets over this window; choose a coarser one or a shorter window`,
    }),
  );
  return previous ? { series: current, previous } : { series: current };
}

async function outcomesReport(request: MetricsRequest, context: GraphQLContext): Promise<OutcomesReport> {
  const query = await zonedQueryOf(request, context);
  if (!query) return metricsOutcomes(context.db, request.filter);
  const { current, previous } = await answering(context, query, () => zonedOutcomes(context.db, query), tooManyDays);
  return previous ? { ...current, previous } : current;
}
