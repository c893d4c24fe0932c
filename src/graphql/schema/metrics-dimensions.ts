// Metrics by dimension: breakdowns of the summary by one or two dimensions, and the distribution of
// call durations (analytics/breakdown.ts, analytics/durations.ts).
import { type BreakdownGroup, type BreakdownPage, DIMENSIONS, type Dimension, MAX_GROUP_BY, metricsBreakdown } from '../../analytics/breakdown.js';
import { bucketBounds, type DurationBucket, type DurationsResult, metricsDurations, OPEN_BUCKET, type Percentiles } from '../../analytics/durations.js';
import type { MetricsFilter } from '../../analytics/filter.js';
import { zonedInstants } from '../../analytics/zoned.js';
import { checkPaging, type Paging, type Problems } from '../../domain/parameters.js';
import type { ParameterNames } from '../../filters/interaction-filters.js';
import type { GraphQLContext } from '../builder.js';
import { builder, PageInfo, type PageInfoShape, pagingArgs } from '../builder.js';
import { Campaign } from './campaign.js';
import { Clinic } from './clinic.js';
import { ChannelEnum, DirectionEnum, InteractionTypeEnum } from './enums.js';
import {
  answering,
  checkMetricsWith,
  METRICS_COST,
  type MetricsRequest,
  MetricsSummary,
  timezoneArg,
  tooManyDays,
  windowArgs,
  zonedQueryOf,
} from './metrics.js';

const DIMENSION_MEANINGS: Record<Dimension, string> = {
  clinic: 'The clinic (keys `clinic`, `clinicId`, `clinicName`).',
  campaign: 'The campaign; interactions without one form one group whose campaign is null.',
  channel: 'The channel.',
  type: 'The interaction type.',
  direction: 'The direction.',
  outcome: 'The outcome; interactions without one form one group whose outcome is null.',
};

export const MetricsDimensionEnum = builder.enumType('MetricsDimension', {
  description: 'What a breakdown groups interactions by.',
  values: Object.fromEntries(DIMENSIONS.map((d) => [d.toUpperCase(), { value: d, description: `${DIMENSION_MEANINGS[d]} (REST \`${d}\`).` }])) as Record<
    string,
    { value: Dimension; description: string }
  >,
});

type GroupShape = BreakdownGroup & { groupBy: readonly Dimension[] };

const MetricsGroup = builder.objectRef<GroupShape>('MetricsGroup').implement({
  description: 'One group of a breakdown: its keys (those of the dimensions grouped by; the others are null) and the summary of its interactions.',
  fields: (t) => ({
    clinicId: t.id({ nullable: true, description: 'The clinic (UUID); null unless grouped by clinic.', resolve: (g) => g.clinicId ?? null }),
    // The groups' keys, read by id for the whole page (context.entities): inside the breakdown's unit.
    clinicName: t.string({
      databaseCost: { readsDatabase: true, countedBy: 'parent' },
      nullable: true,
      description: "The clinic's name; null unless grouped by clinic.",
      resolve: async (g, _args, context) => (g.clinicId ? ((await context.entities.clinic.load(g.clinicId))?.name ?? null) : null),
    }),
    clinic: t.field({
      databaseCost: { readsDatabase: true, countedBy: 'parent' },
      type: Clinic,
      nullable: true,
      description: 'The clinic, as an object (needs scope `clinics:read`); null unless grouped by clinic.',
      authScopes: { 'clinics:read': true },
      resolve: (g, _args, context) => (g.clinicId ? context.entities.clinic.load(g.clinicId) : null),
    }),
    campaignId: t.id({
      nullable: true,
      description: 'The campaign id; null unless grouped by campaign, and for the group of interactions without a campaign.',
      resolve: (g) => g.campaignId ?? null,
    }),
    campaignName: t.string({
      databaseCost: { readsDatabase: true, countedBy: 'parent' },
      nullable: true,
      description: "The campaign's name; null unless grouped by campaign, and for the group of interactions without a campaign.",
      resolve: async (g, _args, context) => (g.campaignId ? ((await context.entities.campaign.load(g.campaignId))?.name ?? null) : null),
    }),
    campaign: t.field({
      databaseCost: { readsDatabase: true, countedBy: 'parent' },
      type: Campaign,
      nullable: true,
      description: 'The campaign, as an object (needs scope `campaigns:read`); null unless grouped by campaign, and for interactions without one.',
      authScopes: { 'campaigns:read': true },
      resolve: (g, _args, context) => (g.campaignId ? context.entities.campaign.load(g.campaignId) : null),
    }),
    channel: t.field({ type: ChannelEnum, nullable: true, description: 'The channel; null unless grouped by channel.', resolve: (g) => g.channel ?? null }),
    type: t.field({
      type: InteractionTypeEnum,
      nullable: true,
      description: 'The interaction type; null unless grouped by type.',
      resolve: (g) => g.type ?? null,
    }),
    direction: t.field({
      type: DirectionEnum,
      nullable: true,
      description: 'The direction; null unless grouped by direction.',
      resolve: (g) => g.direction ?? null,
    }),
    outcome: t.string({
      nullable: true,
      description: 'The UPPERCASE outcome; null unless grouped by outcome, and for the group of interactions without an outcome.',
      resolve: (g) => g.outcome ?? null,
    }),
    metrics: t.field({ type: MetricsSummary, description: "The summary of the group's interactions.", resolve: (g) => g.metrics }),
  }),
});

interface BreakdownShape {
  groupBy: readonly Dimension[];
  groups: GroupShape[];
  pageInfo: PageInfoShape;
}

const MetricsBreakdown = builder.objectRef<BreakdownShape>('MetricsBreakdown').implement({
  description:
    'The summary metrics per group of interactions, largest group first (`totalInteractions` descending), then by the keys ascending (nulls last); groups without interactions are not listed.',
  fields: (t) => ({
    groupBy: t.field({ type: [MetricsDimensionEnum], description: 'The dimensions grouped by, in the order given.', resolve: (b) => [...b.groupBy] }),
    groups: t.field({ type: [MetricsGroup], description: 'The groups on this page.', resolve: (b) => b.groups }),
    pageInfo: t.field({ type: PageInfo, description: 'Paging information; `total` counts groups.', resolve: (b) => b.pageInfo }),
  }),
});

const DurationPercentiles = builder.objectRef<Percentiles>('DurationPercentiles').implement({
  description:
    'Percentiles of call durations in seconds, as PostgreSQL percentile_cont computes them (interpolated between the two nearest calls); each within `precisionSeconds` of that value. null when there is no call.',
  fields: (t) => ({
    p50: t.exposeFloat('p50', { nullable: true, description: 'Median.' }),
    p75: t.exposeFloat('p75', { nullable: true, description: '75th percentile.' }),
    p90: t.exposeFloat('p90', { nullable: true, description: '90th percentile.' }),
    p95: t.exposeFloat('p95', { nullable: true, description: '95th percentile.' }),
    p99: t.exposeFloat('p99', { nullable: true, description: '99th percentile.' }),
  }),
});

const bounds = (bucket: number) => bucketBounds(bucket);
const LAST_FINITE = bounds(OPEN_BUCKET - 1);

const DurationBucketType = builder.objectRef<DurationBucket>('DurationBucket').implement({
  description: `Calls whose duration is in [fromSeconds, toSeconds). Buckets are ${bounds(0).to} seconds wide below ${bounds(60).from} s, ${bounds(60).to! - bounds(60).from} seconds wide below ${LAST_FINITE.to} s, then one bucket for ${LAST_FINITE.to} s and more.`,
  fields: (t) => ({
    fromSeconds: t.exposeInt('fromSeconds', { description: 'Shortest duration in the bucket, seconds (inclusive).' }),
    toSeconds: t.exposeInt('toSeconds', { nullable: true, description: 'End of the bucket, seconds (exclusive); null for the last, open bucket.' }),
    count: t.exposeInt('count', { description: 'Calls in the bucket.' }),
  }),
});

const MetricsDurations = builder.objectRef<DurationsResult>('MetricsDurations').implement({
  description: 'The distribution of the durations of voice calls that have one.',
  fields: (t) => ({
    count: t.exposeInt('count', { description: 'Voice calls with a duration in the window.' }),
    percentiles: t.field({ type: DurationPercentiles, description: 'Percentiles of their durations.', resolve: (d) => d.percentiles }),
    histogram: t.field({
      type: [DurationBucketType],
      description: 'Every bucket from 0 seconds to the last one holding a call, empty ones included; empty when there is no call.',
      resolve: (d) => d.histogram,
    }),
    precisionSeconds: t.exposeInt('precisionSeconds', {
      description: 'Each percentile is within this many seconds of the exact value (the widest histogram bucket it was read from); 0 when all are exact.',
    }),
  }),
});

/** group_by as sent: one or two distinct dimensions. */
function checkGroupBy(sent: readonly string[] | null | undefined, names: ParameterNames, problems: Problems): Dimension[] {
  const allowed = `one or two distinct of: ${DIMENSIONS.join(', ')} (comma-separated)`;
  if (sent == null || sent.length === 0) {
    problems[names.groupBy] = `is required: ${allowed}`;
    return [];
  }
  const unknown = sent.filter((d) => !(DIMENSIONS as readonly string[]).includes(d));
  if (unknown.length) problems[names.groupBy] = `unknown dimension(s) ${unknown.map((d) => (d === '' ? '(empty)' : d)).join(', ')}; must be ${allowed}`;
  else if (new Set(sent).size !== sent.length) problems[names.groupBy] = `names a dimension twice; must be ${allowed}`;
  else if (sent.length > MAX_GROUP_BY) problems[names.groupBy] = `has ${sent.length} dimensions; must be ${allowed}`;
  return sent as Dimension[];
}

/** The window of a request as instants: read in its zone when it has one; null when empty. */
async function windowOf(request: MetricsRequest, context: GraphQLContext): Promise<MetricsFilter | null> {
  const query = await zonedQueryOf(request, context);
  if (!query) return request.filter;
  const instants = await answering(context, query, () => zonedInstants(context.db, query), tooManyDays);
  return instants && { ...request.filter, ...instants };
}

/** An export's page of groups: every one (a breakdown has at most a few thousand: keys x keys). */
const ALL_GROUPS = 2_147_483_647;

async function breakdownOf(request: MetricsRequest, groupBy: Dimension[], paging: Paging, context: GraphQLContext): Promise<BreakdownShape> {
  const filter = await windowOf(request, context);
  // An export (context.ts `everyRow`) takes every group; the groups are all computed before paging.
  const window = context.parameters.everyRow ? { skip: 0, take: ALL_GROUPS } : { skip: (paging.page - 1) * paging.limit, take: paging.limit };
  const page: BreakdownPage = filter ? await metricsBreakdown(context.db, filter, groupBy, window) : { groups: [], total: 0 };
  return {
    groupBy,
    groups: page.groups.map((group) => ({ ...group, groupBy })),
    pageInfo: { page: paging.page, limit: paging.limit, total: () => Promise.resolve(page.total) },
  };
}

async function durationsOf(request: MetricsRequest, context: GraphQLContext): Promise<DurationsResult> {
  const filter = await windowOf(request, context);
  // (a window a gap skipped whole holds no call)
  return metricsDurations(context.db, filter ?? { ...request.filter, clinicIds: [] });
}

builder.queryFields((t) => ({
  metricsBreakdown: t.field({
    databaseCost: { readsDatabase: true, units: 1, perSecond: 10 },
    complexity: METRICS_COST,
    type: MetricsBreakdown,
    nullable: true,
    description:
      'The summary metrics of a window (default: the last 30 days) per group of one or two dimensions, e.g. per campaign, or per campaign and outcome; paged. Needs scope `metrics:read`.',
    authScopes: { 'metrics:read': true },
    args: {
      ...windowArgs,
      ...timezoneArg,
      ...pagingArgs,
      groupBy: t.arg({ type: [MetricsDimensionEnum], description: `Required: one or two distinct dimensions, e.g. \`[CAMPAIGN, OUTCOME]\`.` }),
    },
    // (checked synchronously: a request that is only being checked gets its problems at once)
    resolve: (_root, args, context) => {
      const { request, more } = checkMetricsWith(args, context, {}, (values, names, problems): { groupBy: Dimension[]; paging: Paging } => ({
        groupBy: checkGroupBy(values.groupBy as readonly string[] | null | undefined, names, problems),
        paging: checkPaging(values, names, problems),
      }));
      return breakdownOf(request, more.groupBy, more.paging, context);
    },
  }),
  metricsDurations: t.field({
    databaseCost: { readsDatabase: true, units: 1, perSecond: 10 },
    complexity: METRICS_COST,
    type: MetricsDurations,
    nullable: true,
    description:
      'Count, percentiles and histogram of the durations of voice calls over a window (default: the last 30 days), optionally in a time zone. Needs scope `metrics:read`.',
    authScopes: { 'metrics:read': true },
    args: { ...windowArgs, ...timezoneArg },
    resolve: (_root, args, context) => durationsOf(checkMetricsWith(args, context, {}, () => undefined).request, context),
  }),
}));
