// The REST route table: each GET endpoint of the spec maps to a fixed GraphQL document
// (schema/rest/*.graphql, typed by codegen), its query parameters and scope, and the shaping of
// the result into the spec's representation. The parameters are the document's variables under
// their REST names (query-params.ts); their rules are the resolvers'. The OpenAPI document is
// generated from this table.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
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
import { hasControlCharacter, type Problems } from '../domain/parameters.js';
import type { Scope } from '../domain/values.js';
import { type ParameterNames, restNamesOf } from '../filters/interaction-filters.js';
import { mapInSlices, type TimeSlice } from '../limits/admission.js';
import { MAX_SERIES_BUCKETS } from '../zones/local-calendar.js';
import type { CursorMeta, PaginationMeta } from './envelope.js';
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
} from './envelope.js';

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
// resolvers' (graphql/errors.ts `checked`), judged once for REST and GraphQL alike:
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
