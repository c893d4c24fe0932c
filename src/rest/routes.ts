// The REST route table: each GET endpoint of the spec maps to a fixed GraphQL document
// (schema/rest/*.graphql, typed by codegen), its query parameters and scope, and the shaping of
// the result into the spec's representation. The parameters are the document's variables under
// their REST names (variables.ts); their rules are the resolvers'. The OpenAPI document is
// generated from this table.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { MAX_DAILY_DAYS } from '../analytics/window-filter.js';
import {
  RestCampaignsDocument,
  RestClinicsDocument,
  RestInteractionDocument,
  RestInteractionsDocument,
  RestMetricsDailyDocument,
  RestMetricsOutcomesDocument,
  RestMetricsSummaryDocument,
} from '../documents/graphql.js';
import { hasControlCharacter } from '../domain/parameters.js';
import type { Scope } from '../domain/values.js';
import type { ParameterNames } from '../interactions/filters.js';
import type { PaginationMeta } from './envelope.js';
import { toCampaign, toClinic, toDailyMetric, toInteraction, toMeta, toSummaryMetrics } from './representation.js';

/** The REST name of each GraphQL argument a parameter maps to (the names problems are reported under). */
export const REST_NAMES: ParameterNames = {
  page: 'page',
  limit: 'limit',
  dateFrom: 'date_from',
  dateTo: 'date_to',
  channel: 'channel',
  type: 'type',
  outcomes: 'outcome',
  clinicId: 'clinic_id',
  search: 'search',
  status: 'status',
};

export interface RouteResult {
  data: unknown;
  meta?: PaginationMeta;
}

export interface Route<TData = unknown, TVariables = Record<string, unknown>> {
  /** Path pattern; `{name}` matches one path segment. */
  path: string;
  summary: string;
  description: string;
  scope: Scope;
  /** Query parameters of the endpoint, in the spec's order. */
  params: readonly string[];
  document: TypedDocumentNode<TData, TVariables>;
  /** The document's variables are the parameters under their GraphQL names (variables.ts maps them). */
  readonly variables?: TVariables;
  /** The envelope's `data` (and `meta`), or null for 404. */
  shape(data: TData): RouteResult | null;
  /** Name of the OpenAPI schema of `data`. */
  dataSchema: string;
}

const define = <TData, TVariables>(route: Route<TData, TVariables>) => route as unknown as Route;

export const routes: readonly Route[] = [
  define({
    path: '/api/v1/interactions',
    summary: 'List interactions',
    description: 'Voice calls and WhatsApp conversations, newest first (`started_at` descending, then `id` descending). Filters combine: all must hold.',
    scope: 'interactions:read',
    params: ['page', 'limit', 'date_from', 'date_to', 'channel', 'type', 'outcome', 'clinic_id', 'search'],
    document: RestInteractionsDocument,
    dataSchema: 'InteractionList',
    shape: (data) =>
      data.interactions && {
        data: { interactions: data.interactions.nodes.map((node) => toInteraction(node, 'list')) },
        meta: toMeta(data.interactions.pageInfo),
      },
  }),
  define({
    path: '/api/v1/interactions/{id}',
    summary: 'Get one interaction',
    description: 'One interaction with its transcript (both channels). 404 when it does not exist or belongs to a clinic the key may not see.',
    scope: 'interactions:read',
    params: [],
    document: RestInteractionDocument,
    dataSchema: 'InteractionDetail',
    shape: (data) => (data.interaction ? { data: { interaction: toInteraction(data.interaction, 'detail') } } : null),
  }),
  define({
    path: '/api/v1/clinics',
    summary: 'List clinics',
    description: 'The clinics this API key may see, by name (then id).',
    scope: 'clinics:read',
    params: ['page', 'limit'],
    document: RestClinicsDocument,
    dataSchema: 'ClinicList',
    shape: (data) => data.clinics && { data: { clinics: data.clinics.nodes.map(toClinic) }, meta: toMeta(data.clinics.pageInfo) },
  }),
  define({
    path: '/api/v1/campaigns',
    summary: 'List campaigns',
    description: 'Campaigns of the clinics this key may see, newest first (`created_at` descending, then `id` descending).',
    scope: 'campaigns:read',
    params: ['page', 'limit', 'clinic_id', 'status'],
    document: RestCampaignsDocument,
    dataSchema: 'CampaignList',
    shape: (data) => data.campaigns && { data: { campaigns: data.campaigns.nodes.map(toCampaign) }, meta: toMeta(data.campaigns.pageInfo) },
  }),
  define({
    path: '/api/v1/metrics/summary',
    summary: 'Summary metrics',
    description: 'Totals over a window of interactions (default: from the start of the UTC day 30 days ago to the end of today).',
    scope: 'metrics:read',
    params: ['date_from', 'date_to', 'clinic_id', 'channel'],
    document: RestMetricsSummaryDocument,
    dataSchema: 'SummaryMetrics',
    shape: (data) => data.metricsSummary && { data: toSummaryMetrics(data.metricsSummary) },
  }),
  define({
    path: '/api/v1/metrics/daily',
    summary: 'Daily metrics',
    description: `One entry per UTC day of the window, zero-filled, sorted by date ascending (at most ${MAX_DAILY_DAYS} days).`,
    scope: 'metrics:read',
    params: ['date_from', 'date_to', 'clinic_id', 'channel', 'type'],
    document: RestMetricsDailyDocument,
    dataSchema: 'DailyMetrics',
    shape: (data) => data.metricsDaily && { data: { daily: data.metricsDaily.map(toDailyMetric) } },
  }),
  define({
    path: '/api/v1/metrics/outcomes',
    summary: 'Outcome breakdown',
    description: 'Interactions per outcome, most frequent first (ties by outcome), with their share of the total.',
    scope: 'metrics:read',
    params: ['date_from', 'date_to', 'clinic_id', 'channel', 'type'],
    document: RestMetricsOutcomesDocument,
    dataSchema: 'OutcomeBreakdown',
    shape: (data) => data.metricsOutcomes && { data: { outcomes: data.metricsOutcomes.outcomes, total: data.metricsOutcomes.total } },
  }),
];

/**
 * The route for a path and its path parameters, or undefined. Paths match exactly: a trailing slash
 * is another path (404), so `/interactions/.` - which URL parsing turns into `/interactions/` - is
 * never mistaken for the list.
 */
export function matchRoute(pathname: string): { route: Route; pathParams: Record<string, string> } | undefined {
  const segments = pathname.split('/');
  for (const route of routes) {
    const pattern = route.path.split('/');
    if (pattern.length !== segments.length) continue;
    const pathParams: Record<string, string> = {};
    const matches = pattern.every((part, i) => {
      const segment = segments[i]!;
      if (part.startsWith('{')) {
        if (!segment) return false;
        let value: string;
        try {
          value = decodeURIComponent(segment);
        } catch {
          return false;
        }
        // No id holds a control character, and PostgreSQL refuses NUL in text: such a path names nothing.
        if (hasControlCharacter(value)) return false;
        pathParams[part.slice(1, -1)] = value;
        return true;
      }
      return part === segment;
    });
    if (matches) return { route, pathParams };
  }
  return undefined;
}
