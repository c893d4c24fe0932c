// The REST route table: each GET endpoint of the spec maps to a fixed GraphQL document
// (schema/rest/*.graphql, typed by codegen), its query parameters and scope, and the shaping of
// the result into the spec's representation. The parameters are the document's variables under
// their REST names (query-params.ts); their rules are the resolvers'. The OpenAPI document is
// generated from this table.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { MAX_DAILY_DAYS } from '../analytics/window-filter.js';
import {
  RestCampaignsDocument,
  RestClinicsDocument,
  RestDeletedInteractionsDocument,
  RestInteractionDocument,
  RestInteractionsByCursorDocument,
  RestInteractionsDocument,
  RestMeDocument,
  RestMetricsBreakdownDocument,
  RestMetricsDailyDocument,
  RestMetricsDurationsDocument,
  RestMetricsOutcomesDocument,
  RestMetricsSeriesDocument,
  RestMetricsSummaryDocument,
} from '../documents/graphql.js';
import { hasControlCharacter } from '../domain/parameters.js';
import type { Scope } from '../domain/values.js';
import { restNamesOf } from '../filters/interaction-filters.js';
import { mapInSlices, type TimeSlice } from '../limits/time-slices.js';
import { MAX_SERIES_BUCKETS } from '../zones/local-calendar.js';
import type { CursorMeta, PaginationMeta } from './envelope.js';
import type { QueryValues } from './query-params.js';
import {
  toBreakdownGroup,
  toCampaign,
  toClinic,
  toCursorMeta,
  toDailyMetric,
  toDeletedInteraction,
  toDurations,
  toInteraction,
  toMeta,
  toSeriesBucket,
  toSummaryChange,
  toSummaryMetrics,
  toViewer,
} from './representation.js';

export { REST_NAMES } from '../filters/interaction-filters.js';

export interface RouteResult {
  data: unknown;
  meta?: PaginationMeta | CursorMeta;
}

/**
 * Requests of a route's path that another document answers (the cursor list of /interactions):
 * chosen by the query, with parameters of the route that cannot be combined with it.
 */
export interface RouteAlternative<TData = unknown, TVariables = Record<string, unknown>> {
  /** Whether the request is one for this alternative. */
  when(query: QueryValues): boolean;
  /** Parameters of the route refused in this alternative, and why (the 400's message for each). */
  refuses: Readonly<Record<string, string>>;
  document: TypedDocumentNode<TData, TVariables>;
  shape(data: TData, query: QueryValues, slice: TimeSlice): RouteResult | null | Promise<RouteResult | null>;
}

export interface Route<TData = unknown, TVariables = Record<string, unknown>> {
  /** Path pattern; `{name}` matches one path segment. */
  path: string;
  summary: string;
  description: string;
  /** Absent: any valid key may call it (`GET /api/v1/me`: a key may always see itself). */
  scope?: Scope;
  /** Query parameters of the endpoint, in the spec's order. */
  params: readonly string[];
  document: TypedDocumentNode<TData, TVariables>;
  /** The document's variables are the parameters under their GraphQL names (query-params.ts maps them). */
  readonly variables?: TVariables;
  /** The envelope's `data` (and `meta`), or null for 404; long lists reshaped in `slice`'s turns. */
  shape(data: TData, query: QueryValues, slice: TimeSlice): RouteResult | null | Promise<RouteResult | null>;
  /** Name of the OpenAPI schema of `data`. */
  dataSchema: string;
  alternative?: RouteAlternative;
}

/** The REST API's index (http/front-door.ts); `/api/v1/` is a 404 like every other trailing slash. */
export const API_INDEX_PATH = '/api/v1';
/** The methods every REST path (and the index) answers; any other is a 405 with `Allow` (useRoutes in http/app-routes.ts). */
export const READ_METHODS = ['GET', 'HEAD'] as const;

const define = <TData, TVariables>(route: Route<TData, TVariables>) => route as unknown as Route;
const alternative = <TData, TVariables>(alt: RouteAlternative<TData, TVariables>) => alt as unknown as RouteAlternative;

/** Parameters of /interactions, in the order the OpenAPI document lists them. */
const INTERACTION_LIST_PARAMS = ['page', 'limit', 'date_from', 'date_to', ...restNamesOf('lists'), 'order', 'include_total', 'cursor', 'updated_since'];

export const routes: readonly Route[] = [
  define({
    path: '/api/v1/interactions',
    summary: 'List interactions',
    description:
      'Voice calls and WhatsApp conversations, newest first (`started_at` descending, then `id` descending; `order=asc` for oldest first). Filters combine: all must hold. Paged by `page`, or by `cursor` (start with an empty `cursor`, continue with `meta.next_cursor`; `meta` is then the cursor meta). With `updated_since`, the change feed: interactions stored or changed since then, each with its `updated_at`, ordered by `updated_at` then `id`, cursor-paged.',
    scope: 'interactions:read',
    params: INTERACTION_LIST_PARAMS,
    document: RestInteractionsDocument,
    dataSchema: 'InteractionList',
    shape: (data) =>
      data.interactions && {
        data: { interactions: data.interactions.nodes.map((node) => toInteraction(node, 'list')) },
        meta: toMeta(data.interactions.pageInfo),
      },
    alternative: alternative({
      when: (query) => query.cursor !== undefined || query.updated_since !== undefined,
      refuses: { page: 'cannot be combined with cursor or updated_since (a cursor list continues from its cursor; omit page)' },
      document: RestInteractionsByCursorDocument,
      shape: (data, query) => {
        const list = data.interactionsConnection;
        if (!list) return null;
        const view = query.updated_since === undefined ? 'list' : 'feed';
        return { data: { interactions: list.nodes.map((node) => toInteraction(node, view)) }, meta: toCursorMeta(list.pageInfo) };
      },
    }),
  }),
  // Before /interactions/{id}, which would otherwise take `deleted` for an id.
  define({
    path: '/api/v1/interactions/deleted',
    summary: 'List deleted interactions (tombstones)',
    description:
      'The interactions deleted by an operator (a patient erased, or a retention period applied), as tombstones: `id`, `clinic_id`, `deleted_at`, no patient data. A client that mirrors the interactions deletes these ids from its copy. Ordered by `deleted_at`, then `id`; read by cursor (start with an absent or empty `cursor`, continue with `meta.next_cursor`). Later, resume with `since` set to the largest `deleted_at` seen: deletions still being committed are held back until they commit, so resuming never skips one.',
    scope: 'interactions:read',
    params: ['since', 'limit', 'cursor', 'include_total'],
    document: RestDeletedInteractionsDocument,
    dataSchema: 'DeletedInteractionList',
    shape: (data) => {
      const list = data.deletedInteractions;
      if (!list) return null;
      return { data: { deleted_interactions: list.nodes.map(toDeletedInteraction) }, meta: toCursorMeta(list.pageInfo) };
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
    description:
      'Totals over a window of interactions (default: from the start of the day 30 days ago to the end of today, in UTC or in `timezone`). With `compare`, also the totals of the comparison window (`previous`) and the relative change of each figure (`change`).',
    scope: 'metrics:read',
    params: ['date_from', 'date_to', ...restNamesOf('summary'), 'timezone', 'compare'],
    document: RestMetricsSummaryDocument,
    dataSchema: 'SummaryMetrics',
    shape: ({ metricsSummary: summary }) =>
      summary && {
        data: {
          ...toSummaryMetrics(summary),
          ...(summary.previous ? { previous: toSummaryMetrics(summary.previous) } : {}),
          ...(summary.change ? { change: toSummaryChange(summary.change) } : {}),
        },
      },
  }),
  define({
    path: '/api/v1/metrics/daily',
    summary: 'Daily metrics',
    description: `One entry per day of the window (UTC days, or local days with \`timezone\`), zero-filled, sorted by date ascending (at most ${MAX_DAILY_DAYS} days). With \`compare\`, also the days of the comparison window (\`previous\`).`,
    scope: 'metrics:read',
    params: ['date_from', 'date_to', ...restNamesOf('metrics'), 'timezone', 'compare'],
    document: RestMetricsDailyDocument,
    dataSchema: 'DailyMetrics',
    shape: ({ metricsDailyReport: report }) =>
      report && {
        data: {
          daily: report.daily.map(toDailyMetric),
          ...(report.previous ? { previous: { daily: report.previous.map(toDailyMetric) } } : {}),
        },
      },
  }),
  define({
    path: '/api/v1/metrics/series',
    summary: 'Metrics series',
    description: `Totals per local hour, day, ISO week (from Monday), month, quarter or year of the window, in \`timezone\` (default UTC): every bucket, zero-filled, oldest first, the first and last cut to the window (at most ${MAX_SERIES_BUCKETS} buckets). Each bucket's \`start\` and \`end\` (exclusive) carry the zone's offset at that instant. With \`compare\`, also the buckets of the comparison window (\`previous\`).`,
    scope: 'metrics:read',
    params: ['date_from', 'date_to', ...restNamesOf('metrics'), 'timezone', 'compare', 'granularity'],
    document: RestMetricsSeriesDocument,
    dataSchema: 'SeriesMetrics',
    shape: async ({ metricsSeries: series }, _query, slice) =>
      series && {
        data: {
          series: await mapInSlices(series.series, toSeriesBucket, slice),
          ...(series.previous ? { previous: { series: await mapInSlices(series.previous, toSeriesBucket, slice) } } : {}),
        },
      },
  }),
  define({
    path: '/api/v1/metrics/outcomes',
    summary: 'Outcome breakdown',
    description:
      'Interactions per outcome, most frequent first (ties by outcome), with their share of the total. With `compare`, also the breakdown of the comparison window (`previous`).',
    scope: 'metrics:read',
    params: ['date_from', 'date_to', ...restNamesOf('metrics'), 'timezone', 'compare'],
    document: RestMetricsOutcomesDocument,
    dataSchema: 'OutcomeBreakdown',
    shape: ({ metricsOutcomes: outcomes }) =>
      outcomes && {
        data: {
          outcomes: outcomes.outcomes,
          total: outcomes.total,
          ...(outcomes.previous ? { previous: { outcomes: outcomes.previous.outcomes, total: outcomes.previous.total } } : {}),
        },
      },
  }),
  define({
    path: '/api/v1/metrics/breakdown',
    summary: 'Metrics by dimension',
    description:
      'The summary metrics per group of interactions, for one or two dimensions (`group_by`): e.g. per campaign, per campaign and outcome, per clinic and channel. Largest group first (`total_interactions` descending), then by the keys ascending (nulls last); groups without interactions are not listed. Paged like lists.',
    scope: 'metrics:read',
    params: ['date_from', 'date_to', ...restNamesOf('metrics'), 'timezone', 'group_by', 'page', 'limit'],
    document: RestMetricsBreakdownDocument,
    dataSchema: 'MetricsBreakdown',
    shape: ({ metricsBreakdown: breakdown }) => {
      if (!breakdown) return null;
      const groupBy = breakdown.groupBy.map((d) => d.toLowerCase());
      return { data: { groups: breakdown.groups.map((group) => toBreakdownGroup(group, groupBy)) }, meta: toMeta(breakdown.pageInfo) };
    },
  }),
  define({
    path: '/api/v1/metrics/durations',
    summary: 'Call durations',
    description:
      'How long voice calls last: the number of calls with a duration, their percentiles and a histogram. Percentiles are read from the histogram, each within `precision_seconds` of the exact value (0 when exact).',
    scope: 'metrics:read',
    params: ['date_from', 'date_to', ...restNamesOf('metrics'), 'timezone'],
    document: RestMetricsDurationsDocument,
    dataSchema: 'DurationMetrics',
    shape: ({ metricsDurations: durations }) => durations && { data: toDurations(durations) },
  }),
  define({
    path: '/api/v1/me',
    summary: 'The calling API key',
    description:
      'The API key that made the request: its id, name, display prefix (never the key itself), environment, scopes, clinic restriction, tier and expiry, and its quotas as this request left them (the figures of its rate-limit headers; this request counts like any other). Needs no scope.',
    params: [],
    document: RestMeDocument,
    dataSchema: 'CurrentApiKey',
    shape: ({ viewer }) => ({ data: toViewer(viewer) }),
  }),
];

/** A route a path names, with the values of its path parameters (`{id}`). */
export interface MatchedRoute {
  route: Route;
  pathParams: Record<string, string>;
}

/**
 * The route for a path and its path parameters, or undefined. Paths match exactly: a trailing slash
 * is another path (404), so `/interactions/.` - which URL parsing turns into `/interactions/` - is
 * never mistaken for the list.
 */
export function matchRoute(pathname: string): MatchedRoute | undefined {
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
