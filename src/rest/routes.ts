// The REST route table: each GET endpoint of the spec maps to a fixed GraphQL document
// (schema/rest/*.graphql, typed by codegen), its query parameters and scope, and the shaping of
// the result into the spec's representation. The OpenAPI document is generated from this table.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import {
  RestCampaignsDocument,
  RestClinicsDocument,
  RestInteractionDocument,
  RestInteractionsDocument,
  RestMetricsDailyDocument,
  RestMetricsOutcomesDocument,
  RestMetricsSummaryDocument,
} from '../documents/graphql.js';
import { CAMPAIGN_STATUSES, type Scope } from '../domain/values.js';
import { checkMetricsFilter, MAX_DAILY_DAYS } from '../filters/metrics-window.js';
import { checkFilters, checkPaging, type FilterNames, hasControlCharacter, isUuid, type Problems } from '../filters/parameters.js';
import type { PaginationMeta } from './envelope.js';
import { type QueryValues, readInteger } from './query-params.js';
import { toCampaign, toClinic, toDailyMetric, toInteraction, toMeta, toSummaryMetrics } from './representation.js';

/** REST names of the shared filters, for error details. */
export const REST_NAMES: FilterNames = {
  dateFrom: 'date_from',
  dateTo: 'date_to',
  channel: 'channel',
  type: 'type',
  outcomes: 'outcome',
  clinicId: 'clinic_id',
  search: 'search',
  status: 'status',
};

export interface RouteInput {
  query: QueryValues;
  pathParams: Record<string, string>;
  now: Date;
}

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
  /** Checks the parameters (problems under their REST names) and builds the document's variables. */
  variables(input: RouteInput, problems: Problems): TVariables;
  /** The envelope's `data` (and `meta`), or null for 404. */
  shape(data: TData): RouteResult | null;
  /** Name of the OpenAPI schema of `data`. */
  dataSchema: string;
}

const upper = <T extends string>(value: T | undefined) => (value ? (value.toUpperCase() as Uppercase<T>) : undefined);

function pagingOf(query: QueryValues, problems: Problems) {
  const page = readInteger(query, 'page', problems);
  const limit = readInteger(query, 'limit', problems);
  const paging = checkPaging({ page, limit }, { page: 'page', limit: 'limit' }, problems);
  return { page: paging.page, limit: paging.limit };
}

function filtersOf(query: QueryValues, problems: Problems) {
  return checkFilters(
    {
      dateFrom: query.date_from,
      dateTo: query.date_to,
      channel: query.channel,
      type: query.type,
      outcomes: query.outcome === undefined ? undefined : query.outcome.split(','),
      clinicId: query.clinic_id,
      search: query.search,
    },
    REST_NAMES,
    problems,
  );
}

function metricsVariables(input: RouteInput, problems: Problems, maxDays?: number) {
  const { query } = input;
  const filter = checkMetricsFilter(
    { dateFrom: query.date_from, dateTo: query.date_to, channel: query.channel, type: query.type, clinicId: query.clinic_id },
    REST_NAMES,
    problems,
    { visibleClinics: null, now: input.now, maxDays },
  );
  return {
    dateFrom: query.date_from ?? null,
    dateTo: query.date_to ?? null,
    clinicId: query.clinic_id ?? null,
    channel: upper(filter.channel) ?? null,
    type: filter.type ?? null,
  };
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
    variables: ({ query }, problems) => {
      const paging = pagingOf(query, problems);
      const f = filtersOf(query, problems);
      return {
        ...paging,
        dateFrom: query.date_from ?? null,
        dateTo: query.date_to ?? null,
        channel: upper(f.channel) ?? null,
        type: f.type ?? null,
        outcomes: (f.outcomes as never) ?? null,
        clinicId: f.clinicId ?? null,
        search: f.search ?? null,
      };
    },
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
    variables: ({ pathParams }) => ({ id: pathParams.id! }),
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
    variables: ({ query }, problems) => pagingOf(query, problems),
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
    variables: ({ query }, problems) => {
      const paging = pagingOf(query, problems);
      if (query.clinic_id !== undefined && !isUuid(query.clinic_id)) problems.clinic_id = 'must be a UUID';
      const status = query.status;
      if (status !== undefined && !(CAMPAIGN_STATUSES as readonly string[]).includes(status)) {
        problems.status = `must be one of: ${CAMPAIGN_STATUSES.join(', ')}`;
      }
      return { ...paging, clinicId: query.clinic_id ?? null, status: (upper(status) as never) ?? null };
    },
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
    variables: (input, problems) => {
      const { type: _type, ...variables } = metricsVariables(input, problems);
      return variables;
    },
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
    variables: (input, problems) => metricsVariables(input, problems, MAX_DAILY_DAYS),
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
    variables: (input, problems) => metricsVariables(input, problems),
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
