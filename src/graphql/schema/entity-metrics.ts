// `metrics(...)` on Clinic and Campaign: the summary of each parent's interactions. The parents of
// one field with the same arguments (a page of 500 campaigns) are answered together, by one
// breakdown by clinic or campaign (analytics/breakdown.ts): one statement for the whole page.
import DataLoader from 'dataloader';
import { type Dimension, metricsBreakdown } from '../../analytics/breakdown.js';
import { type SummaryMetrics, summaryMetrics } from '../../analytics/summary.js';
import { NO_TOTALS } from '../../analytics/totals.js';
import { zonedInstants } from '../../analytics/zoned.js';
import type { Campaign as CampaignRow, Clinic as ClinicRow } from '../../generated/prisma/client.js';
import type { GraphQLContext } from '../builder.js';
import { builder, rejected } from '../builder.js';
import { Campaign } from './campaign.js';
import { Clinic } from './clinic.js';
import { filterArgs } from './interaction.js';
import { answering, checkMetrics, type MetricsRequest, MetricsSummary, metricsWindowArgs, timezoneArg, tooManyDays, zonedQueryOf } from './metrics.js';

const ZERO = summaryMetrics(NO_TOTALS);

/**
 * Cost of the field per parent: small, as the parents of a page share one statement (a page of 500
 * campaigns with their metrics stays well under the query cost limit).
 */
const ENTITY_METRICS_COST = 5;

const entityMetricsArgs = { ...metricsWindowArgs, ...filterArgs('parentMetrics') };

interface Parent {
  id: string;
  clinicId: string;
}

/** The loader of one field and set of arguments, shared by every parent the request reaches with them. */
function loaderOf(kind: Dimension & ('clinic' | 'campaign'), request: MetricsRequest, context: GraphQLContext): DataLoader<Parent, SummaryMetrics, string> {
  const key = `${kind}:${JSON.stringify(request.sent)}`;
  let loader = context.metricsBatches.get(key) as DataLoader<Parent, SummaryMetrics, string> | undefined;
  if (!loader) {
    loader = new DataLoader<Parent, SummaryMetrics, string>((parents) => summaries(kind, request, parents, context), {
      cacheKeyFn: (parent) => parent.id,
    });
    context.metricsBatches.set(key, loader);
  }
  return loader;
}

async function summaries(kind: 'clinic' | 'campaign', request: MetricsRequest, parents: readonly Parent[], context: GraphQLContext): Promise<SummaryMetrics[]> {
  let filter = request.filter;
  const query = await zonedQueryOf(request, context);
  if (query) {
    const instants = await answering(context, query, () => zonedInstants(context.db, query), tooManyDays);
    if (!instants) return parents.map(() => ZERO);
    filter = { ...filter, ...instants };
  }
  // The parents' clinics, within what the key may see (a parent is only reached if it may).
  const clinics = [...new Set(parents.map((p) => p.clinicId))].filter((id) => filter.clinicIds === undefined || filter.clinicIds.includes(id));
  const page = await metricsBreakdown(context.db, { ...filter, clinicIds: clinics }, [kind], { skip: 0, take: Number.MAX_SAFE_INTEGER });
  const byKey = new Map(page.groups.map((g) => [kind === 'clinic' ? g.clinicId! : g.campaignId!, g.metrics]));
  return parents.map((p) => byKey.get(p.id) ?? ZERO);
}

function checkedRequest(args: Record<string, unknown>, context: GraphQLContext): MetricsRequest {
  if (args.timezone === 'clinic') {
    throw rejected(context, (names) => ({ [names.timezone]: 'must name a time zone here (`clinic` is for requests restricted to one clinic)' }));
  }
  return checkMetrics(args, context);
}

const description = (noun: string) =>
  `The summary of the ${noun}'s interactions over a window (default: the last 30 days), optionally in a time zone. Needs scope \`metrics:read\`. Every ${noun} of a page asking with the same arguments is answered by one query.`;

builder.objectField(Clinic, 'metrics', (t) =>
  t.field({
    databaseCost: { readsDatabase: true, units: 1 },
    complexity: ENTITY_METRICS_COST,
    type: MetricsSummary,
    nullable: true,
    description: description('clinic'),
    authScopes: { 'metrics:read': true },
    args: { ...entityMetricsArgs, ...timezoneArg },
    resolve: (clinic: ClinicRow, args, context) => loaderOf('clinic', checkedRequest(args, context), context).load({ id: clinic.id, clinicId: clinic.id }),
  }),
);

builder.objectField(Campaign, 'metrics', (t) =>
  t.field({
    databaseCost: { readsDatabase: true, units: 1 },
    complexity: ENTITY_METRICS_COST,
    type: MetricsSummary,
    nullable: true,
    description: description('campaign'),
    authScopes: { 'metrics:read': true },
    args: { ...entityMetricsArgs, ...timezoneArg },
    resolve: (campaign: CampaignRow, args, context) =>
      loaderOf('campaign', checkedRequest(args, context), context).load({ id: campaign.id, clinicId: campaign.clinicId }),
  }),
);
