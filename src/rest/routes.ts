// A REST route from its query string to the shape of its answer: the route table, the query string
// read strictly and turned into the document's variables, the format an export is asked in, the
// envelope with a list's Link header, and the representations (field tables that shape each answer
// and yield the OpenAPI schemas). The plugin that runs a route is use-rest.ts.
//
// The REST route table: each GET endpoint of the spec maps to a fixed GraphQL document
// (schema/rest/*.graphql, typed by codegen), its query parameters and scope, and the shaping of
// the result into the spec's representation. The parameters are the document's variables under
// their REST names (restVariables, below); their rules are the resolvers'. The OpenAPI document is
// generated from this table.

import { STATUS_CODES } from 'node:http';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { Response } from '@whatwg-node/fetch';
import {
  type DocumentNode,
  type GraphQLEnumType,
  type GraphQLInputType,
  type GraphQLSchema,
  getNullableType,
  isEnumType,
  isListType,
  Kind,
  type OperationDefinitionNode,
  typeFromAST,
} from 'graphql';
import { MAX_DAILY_DAYS } from '../analytics/window-filter.js';
import {
  type RestCampaignFieldsFragment,
  RestCampaignsDocument,
  type RestClinicFieldsFragment,
  RestClinicsDocument,
  type RestDailyFieldsFragment,
  RestDeletedInteractionsDocument,
  type RestDeletedInteractionsQuery,
  RestInteractionDocument,
  type RestInteractionFieldsFragment,
  RestInteractionsByCursorDocument,
  RestInteractionsDocument,
  RestMeDocument,
  type RestMeQuery,
  RestMetricsBreakdownDocument,
  type RestMetricsBreakdownQuery,
  RestMetricsDailyDocument,
  RestMetricsDurationsDocument,
  type RestMetricsDurationsQuery,
  RestMetricsOutcomesDocument,
  type RestMetricsOutcomesQuery,
  RestMetricsSeriesDocument,
  RestMetricsSummaryDocument,
  type RestMetricsSummaryQuery,
  type RestPageInfoFragment,
  type RestSeriesFieldsFragment,
  type RestSummaryFieldsFragment,
} from '../documents/graphql.js';
import { ERRORS, type ErrorCode, retryAfterHeader } from '../domain/error-catalogue.js';
import { hasControlCharacter, type Problems } from '../domain/parameters.js';
import {
  CAMPAIGN_CHANNELS,
  CAMPAIGN_STATUSES,
  CAMPAIGN_TYPES,
  type ChannelValue,
  DIRECTIONS,
  KEY_PREFIXES,
  KEY_TIERS,
  MAX_PAGE_SIZE,
  OUTCOMES,
  SCOPES,
  type Scope,
  TYPES_BY_CHANNEL,
} from '../domain/values.js';
import { type ParameterNames, restNamesOf } from '../filters/interaction-filters.js';
import { mapInSlices, stringifyInSlices, type TimeSlice } from '../limits/admission.js';
import { stateOf } from '../request/state.js';
import { MAX_SERIES_BUCKETS } from '../zones/local-calendar.js';

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
  /** The document's variables are the parameters under their GraphQL names (restVariables maps them). */
  readonly variables?: TVariables;
  /** The envelope's `data` (and `meta`), or null for 404; long lists reshaped in `slice`'s turns. */
  shape(data: TData, query: QueryValues, slice: TimeSlice): RouteResult | null | Promise<RouteResult | null>;
  /** Name of the OpenAPI schema of `data`. */
  dataSchema: string;
  alternative?: RouteAlternative;
}

/** The REST API's index (http/front-door.ts); `/api/v1/` is a 404 like every other trailing slash. */
export const API_INDEX_PATH = '/api/v1';
/** The methods every REST path (and the index) answers; any other is a 405 with `Allow` (useRoutes in http/app-plugins.ts). */
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

// A REST request's query string, read strictly, and its parameters as the variables of its route's
// GraphQL document.
//
// Reading (decisions section 2): a parameter that is not the endpoint's, or one given twice, is an
// error - a typo must never silently widen results. The query string is split and decoded here
// rather than through URLSearchParams, which decodes leniently: a broken escape (`%E0%A4%A`) or
// bytes that are not UTF-8 become U+FFFD and the request would be answered as if the client had
// meant it. Values and problems are kept in prototype-free records, so `__proto__` is a parameter
// name like any other (on a plain object, assigning it sets the prototype and the parameter
// vanishes).
//
// The variables: only names and types are mapped here - the rules every value must follow are the
// resolvers' (graphql/builder.ts `checked`), judged once for REST and GraphQL alike:
//   - each variable is read from the parameter of its REST name (REST_NAMES), or from the path;
//   - an `Int` must be written in decimal digits (a query string has no numbers, only text), a
//     `Boolean` as `true` or `false`;
//   - an enum value is its REST spelling, the value the schema's enum maps it to (`voice` for
//     `VOICE`); a list is comma-separated. A text that is no value of the enum is left for the
//     resolver to judge and name as sent (`unconverted`), with the variable null, and so is a
//     number too large for GraphQL's 32-bit `Int`.

export type QueryValues = Record<string, string>;

/** A record with no prototype: every name, `__proto__` and `constructor` included, is an own key. */
export function emptyRecord(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

/** Sets `name` as an own property even where `problems` is a plain object and `name` is `__proto__`. */
export function report(problems: Problems, name: string, message: string): void {
  Object.defineProperty(problems, name, { value: message, enumerable: true, writable: true, configurable: true });
}

/** `application/x-www-form-urlencoded` decoding as URLSearchParams does it, but failing on malformed input. */
function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

export function readQuery(url: URL, allowed: readonly string[], problems: Problems): QueryValues {
  const values = emptyRecord();
  const seen = new Set<string>();
  for (const pair of url.search.slice(1).split('&')) {
    if (!pair) continue;
    const equals = pair.indexOf('=');
    const rawName = equals === -1 ? pair : pair.slice(0, equals);
    const name = decode(rawName);
    if (name === undefined) {
      report(problems, rawName, 'is not a valid parameter name (malformed percent-encoding or not UTF-8)');
      continue;
    }
    const value = decode(equals === -1 ? '' : pair.slice(equals + 1));
    if (!allowed.includes(name)) {
      report(
        problems,
        name,
        allowed.length ? `is not a parameter of this endpoint (parameters: ${allowed.join(', ')})` : 'is not a parameter of this endpoint (it takes none)',
      );
    } else if (seen.has(name)) report(problems, name, 'is given more than once');
    else if (value === undefined) report(problems, name, 'is not validly encoded (malformed percent-encoding or not UTF-8)');
    else values[name] = value;
    seen.add(name);
  }
  return values;
}

/** A whole number written in decimal digits, or undefined (reported) when it is not one. */
export function readInteger(values: QueryValues, name: string, problems: Problems): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  if (!/^\d{1,15}$/.test(raw)) {
    report(problems, name, 'must be a whole number');
    return undefined;
  }
  return Number(raw);
}

/** The largest value of GraphQL's `Int`. */
const GRAPHQL_INT_MAX = 2_147_483_647;

export interface RestVariables {
  variables: Record<string, unknown>;
  /** Variable name -> the value sent, for values that no variable of its type can hold. */
  unconverted: Record<string, string | string[] | number>;
}

/** The enum value a REST text spells (its internal value), or undefined. */
function enumName(type: GraphQLEnumType, text: string): string | undefined {
  return type.getValues().find((value) => value.value === text)?.name;
}

function operationOf(document: DocumentNode): OperationDefinitionNode {
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (!operation) throw new TypeError('REST document without an operation');
  return operation;
}

export function restVariables(
  schema: GraphQLSchema,
  document: DocumentNode,
  names: ParameterNames,
  input: { query: QueryValues; pathParams: Record<string, string> },
  problems: Problems,
): RestVariables {
  const variables: Record<string, unknown> = {};
  const unconverted: RestVariables['unconverted'] = {};
  for (const definition of operationOf(document).variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const restName = (names as Record<string, string | undefined>)[name] ?? name;
    const text = input.pathParams[restName] ?? input.query[restName];
    const type = getNullableType(typeFromAST(schema, definition.type as never) as GraphQLInputType | undefined);
    if (text === undefined || type === undefined) {
      // A variable with a default takes it (a directive's `if` cannot be null).
      if (!definition.defaultValue) variables[name] = null;
      continue;
    }
    if (isListType(type)) {
      const itemType = getNullableType(type.ofType) as GraphQLInputType;
      const items = text.split(',');
      const converted = isEnumType(itemType) ? items.map((item) => enumName(itemType, item)) : items;
      if (converted.every((item) => item !== undefined)) variables[name] = converted;
      else {
        variables[name] = null;
        unconverted[name] = items;
      }
    } else if (isEnumType(type)) {
      const converted = enumName(type, text);
      variables[name] = converted ?? null;
      if (converted === undefined) unconverted[name] = text;
    } else if (type.name === 'Int') {
      const value = readInteger(input.query, restName, problems);
      // GraphQL's Int is 32-bit: a larger number is the resolver's to refuse, as out of range.
      const fits = value !== undefined && value <= GRAPHQL_INT_MAX;
      variables[name] = fits ? value : null;
      if (value !== undefined && !fits) unconverted[name] = value;
    } else if (type.name === 'Boolean') {
      // `true` or `false`, as written; anything else is the resolver's to name (the default, if
      // any, stands in meanwhile so that the document still executes).
      if (text === 'true' || text === 'false') variables[name] = text === 'true';
      else {
        if (!definition.defaultValue) variables[name] = null;
        unconverted[name] = text;
      }
    } else variables[name] = text;
  }
  return { variables, unconverted };
}

// Which answer a request asks for: today's JSON envelope, one of the two export formats, or none
// the endpoint can give (406).
//
// The query parameter `format` (`json`, `csv`, `ndjson`), on an endpoint that has exports, decides
// on its own: a link in a browser or a spreadsheet's "from web" cannot set Accept, so what the URL
// says wins over any Accept sent with it.
//
// Without it, the Accept header (docs/rest-api.md, Exports). The q of a media type is its own
// range's, else its major type's wildcard's, else `*/*`'s, else 0 (q=0 refuses). Only an explicit
// `text/csv` or `application/x-ndjson` range can select an export over JSON - wildcards (`*/*`,
// `text/*`, `application/*`) never do, so a client that names neither gets today's JSON. Among the
// export types, the one with the highest q wins (equal q: the one listed first); it is chosen only
// when its q is above 0 and strictly above JSON's: a client that weights JSON as high, or higher,
// keeps JSON. When JSON's q is 0, an export a wildcard accepts is answered if the route has one, and
// otherwise nothing the client takes exists: 406 (`text/csv` on an endpoint without exports,
// `application/xml`, `text/html`). A range whose q is not a valid qvalue (RFC 9110: 0 to 1, at
// most three decimals) is ignored, as is one that is no `type/subtype` and every media-range
// parameter other than q; an Accept with no valid range at all counts as absent (JSON).

export type ExportFormat = 'csv' | 'ndjson';

/** The media types of the export formats (their Content-Type without parameters). */
export const EXPORT_TYPES: Readonly<Record<ExportFormat, string>> = { csv: 'text/csv', ndjson: 'application/x-ndjson' };

export const JSON_TYPE = 'application/json';

/** The query parameter that names the answer's format on an endpoint with exports. */
export const FORMAT_PARAM = 'format';

/** The query parameters of a route with these export formats: its own, and `format` when it has exports. */
export function withFormat(params: readonly string[], formats: readonly ExportFormat[]): readonly string[] {
  return formats.length ? [...params, FORMAT_PARAM] : params;
}

/** The values `format` takes on an endpoint with these export formats: `json`, then theirs. */
export function formatValues(formats: readonly ExportFormat[]): string[] {
  return ['json', ...formats];
}

const MEDIA_RANGE = /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/;

const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** One media range of an Accept header: its type (lowercase), its q and its position. */
export interface MediaRange {
  type: string;
  q: number;
  order: number;
}

/** The media ranges of an Accept header, by the rules above (also used by http/front-door.ts). */
export function mediaRanges(accept: string): MediaRange[] {
  const out: MediaRange[] = [];
  accept.split(',').forEach((part, order) => {
    const [media, ...params] = part.split(';');
    const type = media!.trim().toLowerCase();
    if (!type) return;
    let q = 1;
    for (const param of params) {
      const equals = param.indexOf('=');
      if (equals === -1 || param.slice(0, equals).trim().toLowerCase() !== 'q') continue;
      const value = param.slice(equals + 1).trim();
      if (!QVALUE.test(value)) return;
      q = Number(value);
    }
    out.push({ type, q, order });
  });
  return out;
}

/** What a request asks for. */
export type Negotiation =
  /** `format` null: the JSON envelope. `problem`: `format` has a value that is none of formatValues' (a 400 with the query's other problems). */
  | { acceptable: true; format: ExportFormat | null; problem?: string }
  /** Nothing the endpoint gives is acceptable: 406, with the media types it can give. */
  | { acceptable: false; available: readonly string[] };

/** The media types an endpoint with these export formats can answer with. */
export function availableTypes(formats: readonly ExportFormat[]): string[] {
  return [JSON_TYPE, ...formats.map((format) => EXPORT_TYPES[format])];
}

/**
 * The answer a request asks for, on an endpoint that has the export `formats` (none: JSON only,
 * and `format` is not one of its parameters).
 */
export function negotiate(url: URL, accept: string | null, formats: readonly ExportFormat[]): Negotiation {
  if (formats.length) {
    // Its own reading, by the query string's strict rules (a repeated or malformed `format` is
    // reported with the other parameters' problems where the query is read as a whole).
    const scratch: Problems = {};
    const value = readQuery(url, [FORMAT_PARAM], scratch)[FORMAT_PARAM];
    if (value !== undefined) {
      if (value === 'json') return { acceptable: true, format: null };
      const format = formats.find((f) => f === value);
      if (format) return { acceptable: true, format };
      return { acceptable: true, format: null, problem: `must be one of ${formatValues(formats).join(', ')}` };
    }
  }
  // A range that is not `type/subtype` names nothing (`garbage`); a header of none is as absent.
  const all = accept ? mediaRanges(accept).filter((range) => MEDIA_RANGE.test(range.type)) : [];
  if (!all.length) return { acceptable: true, format: null };
  const qOf = (type: string) => all.filter((r) => r.type === type).reduce<number | undefined>((q, r) => Math.max(q ?? 0, r.q), undefined);
  // The q of a media type: its own range's, else its major type's wildcard, else `*/*`'s, else 0.
  const qFor = (type: string) => qOf(type) ?? qOf(`${type.slice(0, type.indexOf('/'))}/*`) ?? qOf('*/*') ?? 0;
  const json = qFor(JSON_TYPE);
  let best: { format: ExportFormat; q: number } | undefined;
  for (const range of all) {
    const format = formats.find((f) => EXPORT_TYPES[f] === range.type);
    if (format && range.q > 0 && (!best || range.q > best.q)) best = { format, q: range.q };
  }
  if (best && best.q > json) return { acceptable: true, format: best.format };
  if (json > 0) return { acceptable: true, format: null };
  // JSON refused: an export that a wildcard accepts (`text/*`, `*/*` beside `application/json;q=0`) rather than nothing.
  const fallback = formats.map((format) => ({ format, q: qFor(EXPORT_TYPES[format]) })).filter((f) => f.q > 0);
  fallback.sort((a, b) => b.q - a.q);
  if (fallback[0]) return { acceptable: true, format: fallback[0].format };
  return { acceptable: false, available: availableTypes(formats) };
}

// The response envelope of the spec, for successes and errors (decisions section 1), and the `Link`
// header a list answer's `meta` gives it.

// openapi.ts still imports the code type from here; the catalogue is its home.

export interface PaginationMeta {
  page: number;
  limit: number;
  /** Null with `include_total=false`. */
  total: number | null;
  total_pages: number | null;
  has_more: boolean;
}

/** The `meta` of a list read by cursor. */
export interface CursorMeta {
  limit: number;
  total: number | null;
  has_more: boolean;
  next_cursor: string | null;
}

export interface ApiError {
  code: ErrorCode;
  message: string;
  details?: Problems | Record<string, unknown>;
}

/** What an error answer says beyond its code; the catalogue supplies the rest. */
export interface FailureOptions {
  /** Default: the catalogue's message for the code. */
  message?: string;
  details?: ApiError['details'];
  /** Only for a code answered with several statuses (REQUEST_TOO_LARGE); default: the catalogue's. */
  status?: number;
  /** Retry-After in seconds when it is known more exactly than the catalogue's (a quota's reset). */
  retryAfterSeconds?: number;
  headers?: Record<string, string>;
}

/** The type of every JSON answer's body (an export's formats are negotiated above). */
const JSON_BODY_TYPE = 'application/json; charset=utf-8';

/**
 * The envelope as a response. Built with the Fetch API implementation that Yoga's server adapter
 * uses (@whatwg-node/fetch), not Node's global Response: the adapter writes a string body of its
 * own Response straight to the socket, while it reads a global Response's body as a web stream,
 * chunk by chunk (about a tenth of the service's CPU on a list page).
 */
function respond(request: Request, status: number, body: Record<string, unknown>, headers: Record<string, string>): Response {
  const requestId = stateOf(request).id;
  const text = JSON.stringify({ ...body, request_id: requestId, timestamp: new Date().toISOString() });
  return new Response(request.method === 'HEAD' ? null : text, {
    status,
    // The reason phrase, which a Response leaves empty ("HTTP/1.1 200 ").
    statusText: STATUS_CODES[status],
    headers: {
      'Content-Type': JSON_BODY_TYPE,
      // Known in advance, so the body goes out as it is, in one write, rather than chunked (a
      // chunked body ends with a second write of its last chunk); also the length of a HEAD's body.
      'Content-Length': String(Buffer.byteLength(text)),
      'X-Request-Id': requestId,
      'Cache-Control': 'no-store',
      ...headers,
    },
  });
}

export function success(request: Request, data: unknown, meta?: PaginationMeta | CursorMeta, headers: Record<string, string> = {}): Response {
  return respond(request, 200, meta ? { success: true, data, meta } : { success: true, data }, headers);
}

/** The text of a success envelope without `request_id` and `timestamp`: what an ETag is computed over. */
export function successPayload(data: unknown, meta?: PaginationMeta | CursorMeta): string {
  return JSON.stringify(meta ? { success: true, data, meta } : { success: true, data });
}

/**
 * successPayload's text as UTF-8 parts, serialized and encoded in time slices (a year of hourly
 * buckets is 3-4 MB of JSON). Bytes rather than text: the ETag's hash, the length and the socket
 * each turned the text into bytes again, and a flat copy of it was made for the body, 20 MB of
 * the JavaScript heap per such answer where these bytes are 4 MB outside it.
 */
export async function successPayloadParts(data: unknown, meta: PaginationMeta | CursorMeta | undefined, slice: TimeSlice): Promise<Buffer[]> {
  const texts = await stringifyInSlices(meta ? { success: true, data, meta } : { success: true, data }, slice);
  const parts: Buffer[] = new Array(texts.length);
  for (let i = 0; i < texts.length; i++) {
    parts[i] = Buffer.from(texts[i]!);
    if (i % 64 === 63) await slice.pause();
  }
  return parts;
}

/**
 * A 200 from its payload text (successPayload), completed with the request id and timestamp: the
 * same bytes `success` writes, serialized once although the ETag needs the text too.
 */
export function successFromPayload(request: Request, payload: string | readonly Buffer[], headers: Record<string, string>): Response {
  const requestId = stateOf(request).id;
  const tail = `,"request_id":${JSON.stringify(requestId)},"timestamp":"${new Date().toISOString()}"}`;
  // The payload's closing brace gives way to the tail.
  const body: Buffer<ArrayBuffer> = typeof payload === 'string' ? Buffer.from(`${payload.slice(0, -1)}${tail}`) : joinedBefore(payload, 1, tail);
  return new Response(request.method === 'HEAD' ? null : body, {
    status: 200,
    statusText: STATUS_CODES[200],
    headers: {
      'Content-Type': JSON_BODY_TYPE,
      'Content-Length': String(body.length),
      'X-Request-Id': requestId,
      ...headers,
    },
  });
}

/** The parts as one buffer without their last `drop` bytes, followed by `tail`: one copy. */
function joinedBefore(parts: readonly Buffer[], drop: number, tail: string): Buffer<ArrayBuffer> {
  const length = parts.reduce((n, part) => n + part.length, 0) - drop;
  const body = Buffer.allocUnsafe(length + Buffer.byteLength(tail));
  let at = 0;
  for (const part of parts) at += part.copy(body, at, 0, Math.min(part.length, length - at));
  body.write(tail, at);
  return body;
}

/** 304 Not Modified: no body; the validator and caching headers a 200 would carry. */
export function notModified(request: Request, headers: Record<string, string>): Response {
  return new Response(null, { status: 304, statusText: STATUS_CODES[304], headers: { 'X-Request-Id': stateOf(request).id, ...headers } });
}

/** The error envelope for `code`: its status, default message and Retry-After come from the catalogue. */
export function failure(request: Request, code: ErrorCode, options: FailureOptions = {}): Response {
  const error: ApiError = { code, message: options.message ?? ERRORS[code].message, details: options.details };
  const headers = { ...options.headers, ...retryAfterHeader(code, options.retryAfterSeconds) };
  return respond(request, options.status ?? ERRORS[code].status, { success: false, error }, headers);
}

/** 403 INSUFFICIENT_SCOPE for `scope` (`details.required_scope`), with the WWW-Authenticate header of RFC 6750. */
export function insufficientScope(request: Request, scope: string, message: string): Response {
  return failure(request, 'INSUFFICIENT_SCOPE', {
    message,
    details: { required_scope: scope },
    headers: { 'WWW-Authenticate': `Bearer realm="api", error="insufficient_scope", scope="${scope}"` },
  });
}

// The `Link` header of list answers (RFC 8288): `first`, `prev`, `next`, `last` for pages, `next`
// for cursors. Targets are relative references (path and query), so they hold behind any proxy or
// host name; the client's other parameters are kept as it wrote them.

/** The `Link` header of a list answer with this `meta`, if it has links. */
export function listLinks(url: URL, meta: PaginationMeta | CursorMeta): string | undefined {
  return 'page' in meta ? pageLinks(url, meta) : cursorLinks(url, meta);
}

/** The request's query with `name` set to `value` (replaced where it was, else added). */
function withParameter(url: URL, name: string, value: string): string {
  const pairs = url.search.slice(1).split('&').filter(Boolean);
  const encoded = `${name}=${encodeURIComponent(value)}`;
  let replaced = false;
  const kept = pairs.map((pair) => {
    const key = pair.split('=', 1)[0];
    if (key !== name) return pair;
    replaced = true;
    return encoded;
  });
  if (!replaced) kept.push(encoded);
  return `${url.pathname}?${kept.join('&')}`;
}

const link = (target: string, rel: string) => `<${target}>; rel="${rel}"`;

/** Links of a page (`last` only when the total is known). */
function pageLinks(url: URL, meta: { page: number; total_pages: number | null; has_more: boolean }): string {
  const links = [link(withParameter(url, 'page', '1'), 'first')];
  if (meta.page > 1) {
    // A page past the last points back to the last one (or the first when nothing matches).
    const previous = meta.total_pages !== null && meta.page > meta.total_pages ? Math.max(meta.total_pages, 1) : meta.page - 1;
    links.push(link(withParameter(url, 'page', String(previous)), 'prev'));
  }
  if (meta.has_more) links.push(link(withParameter(url, 'page', String(meta.page + 1)), 'next'));
  if (meta.total_pages !== null) links.push(link(withParameter(url, 'page', String(Math.max(meta.total_pages, 1))), 'last'));
  return links.join(', ');
}

/** The link to the next page of a cursor list, if there is one. */
function cursorLinks(url: URL, meta: { next_cursor: string | null }): string | undefined {
  return meta.next_cursor === null ? undefined : link(withParameter(url, 'cursor', meta.next_cursor), 'next');
}

// From GraphQL results to the REST representations of the spec: snake_case fields in the spec's
// order, lowercase enum values, and the per-channel field rules of decisions section 3.
//
// Each representation is a table of fields (REST name, the GraphQL field it is read from, the JSON
// schema of its value, and when it is present). The same table shapes the responses here and gives
// the OpenAPI document its component schemas (openapi.ts), so the published shape cannot drift from
// the served one. A field's description is its GraphQL field's, unless REST differs.

export type JsonSchema = Readonly<Record<string, unknown>>;

/** One REST field: typed against the GraphQL result it is read from. */
export type RestField<TSource, TVariant = undefined> = {
  [K in keyof TSource & string]: {
    /** The REST name. */
    name: string;
    /** The GraphQL field it is read from; its description documents the REST field. */
    from: K;
    /** JSON schema of the REST value (no description). A nullable type also turns a missing value into null. */
    schema: JsonSchema | ((variant: TVariant) => JsonSchema);
    /** Only where the REST field means something the GraphQL description does not say. */
    description?: string;
    /** From the GraphQL value to the REST value; default: as it is. */
    convert?: (value: TSource[K]) => unknown;
    /** Whether the field is present in a variant; default: always. */
    when?: (variant: TVariant) => boolean;
  };
}[keyof TSource & string];

export interface Representation<TSource, TVariant = undefined> {
  /** Name of its OpenAPI component schema, for references from other representations. */
  name: string;
  /** The GraphQL type whose fields it reads. */
  graphqlType: string;
  /** The object's description where REST says more than the GraphQL type's. */
  description?: string;
  fields: ReadonlyArray<RestField<TSource, TVariant>>;
}

/** A field's JSON schema in a variant. */
export function fieldSchema<TSource, TVariant>(field: RestField<TSource, TVariant>, variant: TVariant): JsonSchema {
  return typeof field.schema === 'function' ? field.schema(variant) : field.schema;
}

/** The fields of a representation present in a variant, in order. */
export function fieldsOf<TSource, TVariant>(representation: Representation<TSource, TVariant>, variant: TVariant): RestField<TSource, TVariant>[] {
  return representation.fields.filter((field) => field.when?.(variant) ?? true);
}

const isNullable = (schema: JsonSchema) => Array.isArray(schema.type) && schema.type.includes('null');

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The shaping function of one variant, compiled once from the table into one object literal, as a
 * hand-written function would be: shaping runs per item of every list (a daily series over a year
 * is 365 items), and building the object key by key in a loop over the table cost about ten times
 * as much (up to a microsecond per interaction). Only names from the tables above, checked and
 * quoted, go into the code.
 */
function shaper<TSource, TVariant>(representation: Representation<TSource, TVariant>, variant: TVariant): (source: TSource) => Record<string, unknown> {
  const fields = fieldsOf(representation, variant);
  const converts = fields.map((field) => field.convert);
  const entries = fields.map((field, i) => {
    if (!NAME.test(field.name) || !NAME.test(field.from)) throw new Error(`representation: bad field name ${field.name} / ${field.from}`);
    const read = `source[${JSON.stringify(field.from)}]`;
    const value = field.convert ? `converts[${i}](${read})` : read;
    // A nullable field is null, never missing (JSON.stringify would drop an undefined value).
    return `${JSON.stringify(field.name)}: ${isNullable(fieldSchema(field, variant)) ? `${value} ?? null` : value}`;
  });
  const compile = new Function('converts', `return (source) => ({ ${entries.join(', ')} });`);
  return compile(converts) as (source: TSource) => Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// JSON schema building blocks

/** `toISOString()` output: UTC with milliseconds and `Z` (decisions section 1). */
const TIMESTAMP_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';
export const timestampSchema: JsonSchema = { type: 'string', format: 'date-time', pattern: TIMESTAMP_PATTERN };
const nullableTimestamp: JsonSchema = { type: ['string', 'null'], format: 'date-time', pattern: TIMESTAMP_PATTERN };
const string: JsonSchema = { type: 'string' };
const nullableString: JsonSchema = { type: ['string', 'null'] };
const uuid: JsonSchema = { type: 'string', format: 'uuid' };
const count: JsonSchema = { type: 'integer', minimum: 0 };
const percentage: JsonSchema = { type: 'number', minimum: 0, maximum: 100 };
const seconds: JsonSchema = { type: 'number', minimum: 0 };
const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const arrayOf = (name: string): JsonSchema => ({ type: 'array', items: ref(name) });
const lowercase = (value: string) => value.toLowerCase();

const code = (text: string) => `\`${text}\``;
const list = (values: readonly string[]) => values.map(code).join(', ');

/** What a REST outcome holds: the vocabulary, but stored as text. */
const OUTCOME_VALUES = `UPPERCASE outcome, usually one of ${list(OUTCOMES)}. Outcomes are stored as text, so other UPPERCASE values can occur`;

// ---------------------------------------------------------------------------------------------
// Interactions

type TranscriptEntry = { role: string; content: string };
type InteractionSource = RestInteractionFieldsFragment & { transcript?: TranscriptEntry[] | null; updatedAt?: string };

/**
 * Interactions have several shapes: by channel, and for calls, listed (no transcript) or read by id;
 * the change feed (`updated_since`) lists them with their `updated_at`.
 */
export interface InteractionVariant {
  channel: ChannelValue;
  view: 'list' | 'detail' | 'feed';
}

export const TRANSCRIPT_ENTRY: Representation<TranscriptEntry> = {
  name: 'TranscriptEntry',
  graphqlType: 'TranscriptEntry',
  fields: [
    { name: 'role', from: 'role', schema: { type: 'string', examples: ['assistant', 'user'] } },
    { name: 'content', from: 'content', schema: string },
  ],
};

const toTranscriptEntry = shaper(TRANSCRIPT_ENTRY, undefined);
const voice = (variant: InteractionVariant) => variant.channel === 'voice';

export const INTERACTION: Representation<InteractionSource, InteractionVariant> = {
  name: 'Interaction',
  graphqlType: 'Interaction',
  fields: [
    { name: 'id', from: 'id', schema: string },
    {
      name: 'channel',
      from: 'channel',
      schema: ({ channel }) => ({ type: 'string', const: channel }),
      description: 'Channel of the interaction, lowercase; discriminates the two shapes.',
      convert: lowercase,
    },
    { name: 'type', from: 'type', schema: ({ channel }) => ({ type: 'string', enum: [...TYPES_BY_CHANNEL[channel]] }) },
    { name: 'direction', from: 'direction', schema: { type: 'string', enum: [...DIRECTIONS] }, convert: lowercase },
    {
      name: 'phone_number',
      from: 'phoneNumber',
      schema: string,
      description:
        "The patient's phone number. For a key without `phi:read`, masked: the `+` (or `00`) and country calling code and the national number's first digit are kept, every other digit but the last two is `*`, separators are kept (`+34 6** *** *89`); a number stored without an international prefix keeps only its last two digits (`** ** ** ** 78`).",
    },
    { name: 'clinic_id', from: 'clinicId', schema: uuid },
    { name: 'started_at', from: 'startedAt', schema: timestampSchema },
    { name: 'ended_at', from: 'endedAt', schema: nullableTimestamp },
    // WhatsApp conversations have no duration or recording; voice calls carry no transcript in lists.
    {
      name: 'duration_seconds',
      from: 'durationSeconds',
      schema: { type: ['integer', 'null'], minimum: 0 },
      description: 'Call duration in seconds; null when not recorded.',
      when: voice,
    },
    { name: 'outcome', from: 'outcome', schema: nullableString, description: `${OUTCOME_VALUES}; null when the interaction has no outcome.` },
    {
      name: 'transcript',
      from: 'transcript',
      schema: arrayOf(TRANSCRIPT_ENTRY.name),
      description:
        'The conversation in order; an empty array when none was recorded. For a key without `phi:read`, phone numbers and e-mail addresses in each `content` are replaced by `[phone]` and `[email]`.',
      convert: (transcript) => (transcript ?? []).map(toTranscriptEntry),
      when: (variant) => !voice(variant) || variant.view === 'detail',
    },
    {
      name: 'summary',
      from: 'summary',
      schema: nullableString,
      description: 'AI-generated summary. For a key without `phi:read`, phone numbers and e-mail addresses are replaced by `[phone]` and `[email]`.',
    },
    {
      name: 'recording_url',
      from: 'recordingUrl',
      schema: nullableString,
      description: 'Location of the call recording; null when there is none, and always null for a key without `phi:read`.',
      when: voice,
    },
    {
      name: 'updated_at',
      from: 'updatedAt',
      schema: timestampSchema,
      description:
        'When the interaction was stored or last changed by an import (its transcript included). Only in change-feed responses (`updated_since`) and exports.',
      when: (variant) => variant.view === 'feed',
    },
  ],
};

const interactionShapers = {
  voice: {
    list: shaper(INTERACTION, { channel: 'voice', view: 'list' }),
    detail: shaper(INTERACTION, { channel: 'voice', view: 'detail' }),
    feed: shaper(INTERACTION, { channel: 'voice', view: 'feed' }),
  },
  whatsapp: {
    list: shaper(INTERACTION, { channel: 'whatsapp', view: 'list' }),
    detail: shaper(INTERACTION, { channel: 'whatsapp', view: 'detail' }),
    feed: shaper(INTERACTION, { channel: 'whatsapp', view: 'feed' }),
  },
};

export function toInteraction(node: InteractionSource, view: InteractionVariant['view']): Record<string, unknown> {
  return interactionShapers[node.channel === 'VOICE' ? 'voice' : 'whatsapp'][view](node);
}

// ---------------------------------------------------------------------------------------------
// Tombstones of deleted interactions

type DeletedInteractionSource = NonNullable<RestDeletedInteractionsQuery['deletedInteractions']>['nodes'][number];

export const DELETED_INTERACTION: Representation<DeletedInteractionSource> = {
  name: 'DeletedInteraction',
  graphqlType: 'DeletedInteraction',
  fields: [
    { name: 'id', from: 'id', schema: string },
    { name: 'clinic_id', from: 'clinicId', schema: uuid },
    { name: 'deleted_at', from: 'deletedAt', schema: timestampSchema },
  ],
};

export const toDeletedInteraction: (node: DeletedInteractionSource) => Record<string, unknown> = shaper(DELETED_INTERACTION, undefined);

// ---------------------------------------------------------------------------------------------
// Clinics and campaigns

export const CLINIC: Representation<RestClinicFieldsFragment> = {
  name: 'Clinic',
  graphqlType: 'Clinic',
  fields: [
    { name: 'id', from: 'id', schema: uuid },
    { name: 'name', from: 'name', schema: string },
    { name: 'address', from: 'address', schema: string },
    { name: 'phone', from: 'phone', schema: string },
    { name: 'email', from: 'email', schema: string },
    { name: 'timezone', from: 'timezone', schema: { type: 'string', examples: ['Europe/Madrid'] } },
    { name: 'created_at', from: 'createdAt', schema: timestampSchema },
  ],
};

export const toClinic: (node: RestClinicFieldsFragment) => Record<string, unknown> = shaper(CLINIC, undefined);

/** The REST name of the campaign settings' schema (GraphQL has only `JSON`). */
export const CAMPAIGN_SETTINGS_SCHEMA = 'CampaignSettings';

export const CAMPAIGN: Representation<RestCampaignFieldsFragment> = {
  name: 'Campaign',
  graphqlType: 'Campaign',
  fields: [
    { name: 'id', from: 'id', schema: string },
    { name: 'name', from: 'name', schema: string },
    { name: 'description', from: 'description', schema: string },
    {
      name: 'type',
      from: 'type',
      schema: { type: 'string', enum: [...CAMPAIGN_TYPES] },
      // The spec's meaning of each type, which the GraphQL enum does not spell out.
      description:
        '`no_show_recovery` contacts patients who missed appointments; `reactivation` re-engages inactive patients; `appointment_reminder` sends reminders; ' +
        '`follow_up` is post-appointment follow-up; `recall` is periodic health-check reminders; `custom` is any custom type.',
      convert: lowercase,
    },
    { name: 'channel', from: 'channel', schema: { type: 'string', enum: [...CAMPAIGN_CHANNELS] }, convert: lowercase },
    { name: 'status', from: 'status', schema: { type: 'string', enum: [...CAMPAIGN_STATUSES] }, convert: lowercase },
    { name: 'clinic_id', from: 'clinicId', schema: uuid },
    { name: 'created_at', from: 'createdAt', schema: timestampSchema },
    { name: 'updated_at', from: 'updatedAt', schema: timestampSchema },
    { name: 'settings', from: 'settings', schema: ref(CAMPAIGN_SETTINGS_SCHEMA) },
  ],
};

export const toCampaign: (node: RestCampaignFieldsFragment) => Record<string, unknown> = shaper(CAMPAIGN, undefined);

// ---------------------------------------------------------------------------------------------
// Pagination

/** A page's position as the REST documents read it (`total` and `totalPages` are not read with `include_total=false`). */
type PageInfoSource = Omit<RestPageInfoFragment, 'total' | 'totalPages'> & { total?: number | null; totalPages?: number | null };

const nullableCount: JsonSchema = { type: ['integer', 'null'], minimum: 0 };

export const PAGINATION_META: Representation<PageInfoSource> = {
  name: 'PaginationMeta',
  graphqlType: 'PageInfo',
  description: 'Pagination of a list. A page beyond the last is a 200 with an empty list and `has_more: false`.',
  fields: [
    { name: 'page', from: 'page', schema: { type: 'integer', minimum: 1 } },
    { name: 'limit', from: 'limit', schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE } },
    { name: 'total', from: 'total', schema: nullableCount, description: 'Total items matching the filters; null with `include_total=false` (interactions).' },
    {
      name: 'total_pages',
      from: 'totalPages',
      schema: nullableCount,
      description: 'Number of pages (0 when nothing matches); null with `include_total=false` (interactions).',
    },
    { name: 'has_more', from: 'hasMore', schema: { type: 'boolean' }, description: 'True when a further page exists (exact, also without a total).' },
  ],
};

const shapeMeta = shaper(PAGINATION_META, undefined);

export function toMeta(pageInfo: PageInfoSource): PaginationMeta {
  // The table has exactly the five fields of PaginationMeta (a test checks the served meta against it).
  return shapeMeta(pageInfo) as unknown as PaginationMeta;
}

type CursorPageInfoSource = { limit: number; total?: number | null; hasMore: boolean; nextCursor?: string | null };

export const CURSOR_META: Representation<CursorPageInfoSource> = {
  name: 'CursorMeta',
  graphqlType: 'CursorPageInfo',
  description: 'Position in a list read by cursor (`cursor`, `updated_since`).',
  fields: [
    { name: 'limit', from: 'limit', schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE } },
    {
      name: 'total',
      from: 'total',
      schema: nullableCount,
      description: 'Total items matching the filters (the whole list, not what is left); null with `include_total=false`.',
    },
    { name: 'has_more', from: 'hasMore', schema: { type: 'boolean' }, description: 'True when more items follow this page.' },
    {
      name: 'next_cursor',
      from: 'nextCursor',
      schema: nullableString,
      description: 'Pass as `cursor` (with the same other parameters) to read the next page; null on the last page. Opaque.',
    },
  ],
};

const shapeCursorMeta = shaper(CURSOR_META, undefined);

export function toCursorMeta(pageInfo: CursorPageInfoSource): CursorMeta {
  return shapeCursorMeta(pageInfo) as unknown as CursorMeta;
}

// ---------------------------------------------------------------------------------------------
// Metrics

type SummaryMetrics = RestSummaryFieldsFragment;
type SummaryChange = NonNullable<NonNullable<RestMetricsSummaryQuery['metricsSummary']>['change']>;
type DailyMetric = RestDailyFieldsFragment;
type OutcomeBreakdown = NonNullable<RestMetricsOutcomesQuery['metricsOutcomes']>;
type OutcomeBreakdownEntry = OutcomeBreakdown['outcomes'][number];

export const SUMMARY_METRICS: Representation<SummaryMetrics> = {
  name: 'SummaryMetrics',
  graphqlType: 'MetricsSummary',
  fields: [
    { name: 'total_interactions', from: 'totalInteractions', schema: count },
    { name: 'total_calls', from: 'totalCalls', schema: count },
    { name: 'total_conversations', from: 'totalConversations', schema: count },
    { name: 'inbound_count', from: 'inboundCount', schema: count },
    { name: 'outbound_count', from: 'outboundCount', schema: count },
    { name: 'avg_duration_seconds', from: 'avgDurationSeconds', schema: seconds },
    { name: 'total_duration_seconds', from: 'totalDurationSeconds', schema: count },
    { name: 'success_rate', from: 'successRate', schema: percentage },
    { name: 'appointments_scheduled', from: 'appointmentsScheduled', schema: count },
  ],
};

export const toSummaryMetrics: (summary: SummaryMetrics) => Record<string, unknown> = shaper(SUMMARY_METRICS, undefined);

/** A relative change in percent; null where the previous figure is 0. */
const change: JsonSchema = { type: ['number', 'null'] };

export const SUMMARY_CHANGE: Representation<SummaryChange> = {
  name: 'SummaryChange',
  graphqlType: 'MetricsChange',
  fields: [
    { name: 'total_interactions', from: 'totalInteractions', schema: change },
    { name: 'total_calls', from: 'totalCalls', schema: change },
    { name: 'total_conversations', from: 'totalConversations', schema: change },
    { name: 'inbound_count', from: 'inboundCount', schema: change },
    { name: 'outbound_count', from: 'outboundCount', schema: change },
    { name: 'avg_duration_seconds', from: 'avgDurationSeconds', schema: change },
    { name: 'total_duration_seconds', from: 'totalDurationSeconds', schema: change },
    { name: 'success_rate', from: 'successRate', schema: change },
    { name: 'appointments_scheduled', from: 'appointmentsScheduled', schema: change },
  ],
};

export const toSummaryChange: (change: SummaryChange) => Record<string, unknown> = shaper(SUMMARY_CHANGE, undefined);

export const DAILY_METRIC: Representation<DailyMetric> = {
  name: 'DailyMetric',
  graphqlType: 'DailyMetric',
  fields: [
    { name: 'date', from: 'date', schema: { type: 'string', format: 'date' } },
    { name: 'total', from: 'total', schema: count },
    { name: 'calls', from: 'calls', schema: count },
    { name: 'conversations', from: 'conversations', schema: count },
    { name: 'inbound', from: 'inbound', schema: count },
    { name: 'outbound', from: 'outbound', schema: count },
    { name: 'appointments_scheduled', from: 'appointmentsScheduled', schema: count },
    { name: 'success_rate', from: 'successRate', schema: percentage },
    { name: 'avg_duration_seconds', from: 'avgDurationSeconds', schema: seconds },
  ],
};

export const toDailyMetric: (day: DailyMetric) => Record<string, unknown> = shaper(DAILY_METRIC, undefined);

/** An instant written with the zone's offset, as series buckets carry them. */
const localDateTime: JsonSchema = { type: 'string', format: 'date-time' };

export const SERIES_BUCKET: Representation<RestSeriesFieldsFragment> = {
  name: 'SeriesBucket',
  graphqlType: 'SeriesBucket',
  fields: [
    { name: 'start', from: 'start', schema: localDateTime },
    { name: 'end', from: 'end', schema: localDateTime },
    { name: 'total', from: 'total', schema: count },
    { name: 'calls', from: 'calls', schema: count },
    { name: 'conversations', from: 'conversations', schema: count },
    { name: 'inbound', from: 'inbound', schema: count },
    { name: 'outbound', from: 'outbound', schema: count },
    { name: 'appointments_scheduled', from: 'appointmentsScheduled', schema: count },
    { name: 'success_rate', from: 'successRate', schema: percentage },
    { name: 'avg_duration_seconds', from: 'avgDurationSeconds', schema: seconds },
  ],
};

export const toSeriesBucket: (bucket: RestSeriesFieldsFragment) => Record<string, unknown> = shaper(SERIES_BUCKET, undefined);

/**
 * The outcome breakdown's entries. GraphQL already names them as REST does, so the route passes the
 * result through; the table documents them and a test checks that served entries match it.
 */
export const OUTCOME_BREAKDOWN_ENTRY: Representation<OutcomeBreakdownEntry> = {
  name: 'OutcomeBreakdownEntry',
  graphqlType: 'OutcomeBreakdown',
  fields: [
    { name: 'outcome', from: 'outcome', schema: string, description: `${OUTCOME_VALUES}.` },
    { name: 'label', from: 'label', schema: string },
    { name: 'count', from: 'count', schema: { type: 'integer', minimum: 1 } },
    { name: 'percentage', from: 'percentage', schema: percentage },
  ],
};

export const OUTCOME_BREAKDOWN: Representation<OutcomeBreakdown> = {
  name: 'OutcomeBreakdown',
  graphqlType: 'OutcomeBreakdownResult',
  fields: [
    { name: 'outcomes', from: 'outcomes', schema: arrayOf(OUTCOME_BREAKDOWN_ENTRY.name) },
    { name: 'total', from: 'total', schema: count },
  ],
};

// ---------------------------------------------------------------------------------------------
// Breakdowns and durations

type BreakdownGroupSource = Omit<NonNullable<RestMetricsBreakdownQuery['metricsBreakdown']>['groups'][number], 'metrics'>;

/** A breakdown's groups have the keys of the dimensions grouped by (REST spelling), in the spec's order. */
export type BreakdownVariant = readonly string[];

const grouped = (dimension: string) => (variant: BreakdownVariant) => variant.includes(dimension);

export const BREAKDOWN_GROUP_KEYS: Representation<BreakdownGroupSource, BreakdownVariant> = {
  name: 'BreakdownGroupKeys',
  graphqlType: 'MetricsGroup',
  description: 'One group: the keys of the dimensions grouped by (only those), then the summary metrics of its interactions (the fields of SummaryMetrics).',
  fields: [
    { name: 'clinic_id', from: 'clinicId', schema: uuid, description: 'The clinic (with `group_by` clinic).', when: grouped('clinic') },
    { name: 'clinic_name', from: 'clinicName', schema: string, description: "The clinic's name (with `group_by` clinic).", when: grouped('clinic') },
    {
      name: 'campaign_id',
      from: 'campaignId',
      schema: nullableString,
      description: 'The campaign (with `group_by` campaign); null for the interactions without a campaign.',
      when: grouped('campaign'),
    },
    {
      name: 'campaign_name',
      from: 'campaignName',
      schema: nullableString,
      description: "The campaign's name (with `group_by` campaign); null for the interactions without a campaign.",
      when: grouped('campaign'),
    },
    { name: 'channel', from: 'channel', schema: { type: 'string', enum: ['voice', 'whatsapp'] }, convert: (v) => v?.toLowerCase(), when: grouped('channel') },
    {
      name: 'type',
      from: 'type',
      schema: { type: 'string', enum: [...TYPES_BY_CHANNEL.voice, ...TYPES_BY_CHANNEL.whatsapp].filter((t, i, all) => all.indexOf(t) === i) },
      when: grouped('type'),
    },
    { name: 'direction', from: 'direction', schema: { type: 'string', enum: [...DIRECTIONS] }, convert: (v) => v?.toLowerCase(), when: grouped('direction') },
    {
      name: 'outcome',
      from: 'outcome',
      schema: nullableString,
      description: `${OUTCOME_VALUES}; null for the interactions without an outcome (with \`group_by\` outcome).`,
      when: grouped('outcome'),
    },
  ],
};

const breakdownShapers = new Map<string, (source: BreakdownGroupSource) => Record<string, unknown>>();

/** A group of a breakdown by `groupBy` (REST spelling), as REST represents it: its keys, then its summary metrics. */
export function toBreakdownGroup(
  group: NonNullable<RestMetricsBreakdownQuery['metricsBreakdown']>['groups'][number],
  groupBy: BreakdownVariant,
): Record<string, unknown> {
  const key = groupBy.join(',');
  let shape = breakdownShapers.get(key);
  if (!shape) {
    shape = shaper(BREAKDOWN_GROUP_KEYS, groupBy);
    breakdownShapers.set(key, shape);
  }
  const { metrics, ...keys } = group;
  return { ...shape(keys), ...toSummaryMetrics(metrics) };
}

type Durations = NonNullable<RestMetricsDurationsQuery['metricsDurations']>;

export const DURATION_BUCKET: Representation<Durations['histogram'][number]> = {
  name: 'DurationBucket',
  graphqlType: 'DurationBucket',
  fields: [
    { name: 'from_seconds', from: 'fromSeconds', schema: count },
    { name: 'to_seconds', from: 'toSeconds', schema: { type: ['integer', 'null'], minimum: 1 } },
    { name: 'count', from: 'count', schema: count },
  ],
};

const toDurationBucket = shaper(DURATION_BUCKET, undefined);
const percentile: JsonSchema = { type: ['number', 'null'], minimum: 0 };

export const DURATION_PERCENTILES: Representation<Durations['percentiles']> = {
  name: 'DurationPercentiles',
  graphqlType: 'DurationPercentiles',
  fields: [
    { name: 'p50', from: 'p50', schema: percentile },
    { name: 'p75', from: 'p75', schema: percentile },
    { name: 'p90', from: 'p90', schema: percentile },
    { name: 'p95', from: 'p95', schema: percentile },
    { name: 'p99', from: 'p99', schema: percentile },
  ],
};

const toPercentiles = shaper(DURATION_PERCENTILES, undefined);

export const DURATIONS: Representation<Durations> = {
  name: 'DurationMetrics',
  graphqlType: 'MetricsDurations',
  fields: [
    { name: 'count', from: 'count', schema: count },
    { name: 'percentiles', from: 'percentiles', schema: ref(DURATION_PERCENTILES.name), convert: toPercentiles },
    { name: 'histogram', from: 'histogram', schema: arrayOf(DURATION_BUCKET.name), convert: (buckets) => buckets.map(toDurationBucket) },
    { name: 'precision_seconds', from: 'precisionSeconds', schema: count },
  ],
};

export const toDurations: (durations: Durations) => Record<string, unknown> = shaper(DURATIONS, undefined);

// ---------------------------------------------------------------------------------------------
// The calling API key (GET /api/v1/me)

type Viewer = RestMeQuery['viewer'];
type QuotaWindow = Viewer['quota']['minute'];

/** Null for Unlimited-tier keys, which have no quotas. */
const quotaFigure: JsonSchema = { type: ['integer', 'null'], minimum: 0 };

export const QUOTA_WINDOW: Representation<QuotaWindow> = {
  name: 'QuotaWindow',
  graphqlType: 'QuotaWindow',
  fields: [
    { name: 'limit', from: 'limit', schema: { ...quotaFigure, minimum: 1 } },
    { name: 'remaining', from: 'remaining', schema: quotaFigure },
    { name: 'reset_seconds', from: 'resetSeconds', schema: { type: ['integer', 'null'], minimum: 1, maximum: 86_400 } },
  ],
};

const toQuotaWindow = shaper(QUOTA_WINDOW, undefined);

export const VIEWER_QUOTA: Representation<Viewer['quota']> = {
  name: 'Quota',
  graphqlType: 'ViewerQuota',
  fields: [
    { name: 'minute', from: 'minute', schema: ref(QUOTA_WINDOW.name), convert: toQuotaWindow },
    { name: 'hour', from: 'hour', schema: ref(QUOTA_WINDOW.name), convert: toQuotaWindow },
    { name: 'day', from: 'day', schema: ref(QUOTA_WINDOW.name), convert: toQuotaWindow },
  ],
};

const toViewerQuota = shaper(VIEWER_QUOTA, undefined);

export const VIEWER: Representation<Viewer> = {
  name: 'CurrentApiKey',
  graphqlType: 'Viewer',
  fields: [
    { name: 'id', from: 'id', schema: uuid },
    { name: 'name', from: 'name', schema: string },
    { name: 'prefix', from: 'prefix', schema: { type: 'string', examples: [`${KEY_PREFIXES.live}AbCd`] } },
    { name: 'environment', from: 'environment', schema: { type: 'string', enum: Object.keys(KEY_PREFIXES) }, convert: lowercase },
    { name: 'scopes', from: 'scopes', schema: { type: 'array', uniqueItems: true, items: { type: 'string', enum: [...SCOPES] } } },
    { name: 'clinic_ids', from: 'clinicIds', schema: { type: ['array', 'null'], minItems: 1, items: uuid } },
    { name: 'tier', from: 'tier', schema: { type: 'string', enum: [...KEY_TIERS] }, convert: lowercase },
    { name: 'quota', from: 'quota', schema: ref(VIEWER_QUOTA.name), convert: toViewerQuota },
    { name: 'expires_at', from: 'expiresAt', schema: nullableTimestamp },
    { name: 'created_at', from: 'createdAt', schema: timestampSchema },
    { name: 'last_used_at', from: 'lastUsedAt', schema: nullableTimestamp },
  ],
};

export const toViewer: (viewer: Viewer) => Record<string, unknown> = shaper(VIEWER, undefined);
