// Exports of metrics (GET /metrics/daily, /metrics/series, /metrics/breakdown with an export Accept):
// the route's own GraphQL document, executed as the REST facade executes it (rest/use-rest.ts: same
// parameters, checks, zones, clinic restriction), then one row per day, bucket or group. A
// breakdown's export has every group (context.ts `everyRow`), not a page. These answers are small
// (at most a few thousand rows, what the JSON answer holds), so they are computed first and then
// written out.
import type { ExecutionResult, GraphQLError, GraphQLSchema } from 'graphql';
import type { YogaInitialContext, YogaServerInstance } from 'graphql-yoga';
import type { RestMetricsBreakdownQuery } from '../../documents/graphql.js';
import type { ErrorCode } from '../../domain/error-catalogue.js';
import type { Problems } from '../../domain/parameters.js';
import { CALLER_PARAMETERS, type CallerParameters, type GraphQLContext, REST_EXECUTION } from '../../graphql/builder.js';
import { TimeSlice } from '../../limits/admission.js';
import {
  BREAKDOWN_GROUP_KEYS,
  DAILY_METRIC,
  emptyRecord,
  FORMAT_PARAM,
  fieldsOf,
  type QueryValues,
  REST_NAMES,
  type Route,
  readQuery,
  restVariables,
  SERIES_BUCKET,
  SUMMARY_METRICS,
} from '../routes.js';
import { NOT_FOR_EXPORTS } from './interactions.js';

/** What an export of one metrics route refuses, and where its rows and columns come from. */
interface MetricsExport {
  /** The file name's stem. */
  name: string;
  /** What its rows are and what it refuses, for the OpenAPI document (after the paragraph all metrics exports share). */
  rowsDoc: string;
  /** Parameters of the route that an export refuses, with why. */
  refused: Readonly<Record<string, string>>;
  /** The rows (REST representation) and the CSV columns, from the route's shaped `data` and its raw result. */
  rows(data: Record<string, unknown>, result: Record<string, unknown>): { columns: string[]; rows: Array<Record<string, unknown>> };
}

const names = (fields: ReadonlyArray<{ name: string }>) => fields.map((field) => field.name);

/**
 * `compare` is refused rather than given columns of its own: a comparison window's days or buckets
 * do not pair with the window's one to one (29 February, a DST day of 23 or 25 hours), so a row
 * could not hold both; the comparison window is an export of its own (its date_from and date_to).
 */
const COMPARE = 'does not apply to exports: export the comparison window as its own export (its date_from and date_to)';

const METRICS_EXPORTS: Readonly<Record<string, MetricsExport>> = {
  '/api/v1/metrics/daily': {
    name: 'metrics-daily',
    rowsDoc: 'One row per day; `compare` is refused (export the comparison window on its own).',
    refused: { [REST_NAMES.compare]: COMPARE },
    rows: (data) => ({ columns: names(fieldsOf(DAILY_METRIC, undefined)), rows: data.daily as Array<Record<string, unknown>> }),
  },
  '/api/v1/metrics/series': {
    name: 'metrics-series',
    rowsDoc: 'One row per bucket; `compare` is refused (export the comparison window on its own).',
    refused: { [REST_NAMES.compare]: COMPARE },
    rows: (data) => ({ columns: names(fieldsOf(SERIES_BUCKET, undefined)), rows: data.series as Array<Record<string, unknown>> }),
  },
  '/api/v1/metrics/breakdown': {
    name: 'metrics-breakdown',
    rowsDoc: 'One row per group, every group (not a page): `page` and `limit` are refused.',
    refused: { [REST_NAMES.page]: NOT_FOR_EXPORTS, [REST_NAMES.limit]: NOT_FOR_EXPORTS },
    rows: (data, result) => {
      const groupBy = (result as RestMetricsBreakdownQuery).metricsBreakdown!.groupBy.map((d) => d.toLowerCase());
      return {
        columns: [...names(fieldsOf(BREAKDOWN_GROUP_KEYS, groupBy)), ...names(fieldsOf(SUMMARY_METRICS, undefined))],
        rows: data.groups as Array<Record<string, unknown>>,
      };
    },
  },
};

/** The export of the metrics route at `path`, if it has one. */
export function metricsExportOf(path: string): MetricsExport | undefined {
  return METRICS_EXPORTS[path];
}

export type MetricsOutcome =
  | { ok: true; name: string; columns: string[]; rows: Array<Record<string, unknown>> }
  | { ok: false; code: 'VALIDATION_ERROR'; details: Problems }
  | { ok: false; code: Extract<ErrorCode, 'RATE_LIMITED' | 'SERVICE_UNAVAILABLE' | 'INTERNAL_ERROR'> };

export interface Execution {
  yoga: YogaServerInstance<Record<string, never>, GraphQLContext>;
  schema: GraphQLSchema;
  serverContext: Record<string, unknown>;
}

/** The export's rows: the route's document executed with every row, or why not. */
export async function metricsRows(request: Request, url: URL, route: Route, spec: MetricsExport, execution: Execution): Promise<MetricsOutcome> {
  const problems: Problems = {};
  // `format` chose this answer (routes.ts); it is no parameter of the document.
  const sent = readQuery(url, [...route.params, FORMAT_PARAM], problems);
  delete sent[FORMAT_PARAM];
  // The refused parameters are reported and not passed on.
  const query: QueryValues = emptyRecord();
  for (const [name, value] of Object.entries(sent)) {
    const refusal = spec.refused[name];
    if (refusal) problems[name] = refusal;
    else query[name] = value;
  }
  const { variables, unconverted } = restVariables(execution.schema, route.document, REST_NAMES, { query, pathParams: {} }, problems);
  const caller: CallerParameters = { names: REST_NAMES, unconverted, checkOnly: Object.keys(problems).length > 0, everyRow: true };
  const initialContext = {
    ...execution.serverContext,
    request,
    params: { variables },
    [REST_EXECUTION]: true,
    [CALLER_PARAMETERS]: caller,
  } as unknown as YogaInitialContext;
  const { execute, contextFactory, schema } = execution.yoga.getEnveloped(initialContext);
  const result = (await execute({
    schema,
    document: route.document,
    variableValues: variables,
    contextValue: await contextFactory(),
  })) as ExecutionResult<Record<string, unknown>>;

  if (caller.checkOnly || result.errors?.length) {
    const validation = result.errors?.find((e) => e.extensions?.code === 'VALIDATION_ERROR');
    if (validation || caller.checkOnly) {
      return { ok: false, code: 'VALIDATION_ERROR', details: Object.assign(problems, validation?.extensions.details as Problems | undefined) };
    }
    return { ok: false, code: failureOf(result.errors!) };
  }
  const shaped = await route.shape(result.data as never, query, new TimeSlice());
  if (!shaped) return { ok: false, code: 'INTERNAL_ERROR' };
  return { ok: true, name: spec.name, ...spec.rows(shaped.data as Record<string, unknown>, result.data!) };
}

/** As the JSON answer maps a failed execution (rest/use-rest.ts). */
function failureOf(errors: readonly GraphQLError[]): Extract<ErrorCode, 'RATE_LIMITED' | 'SERVICE_UNAVAILABLE' | 'INTERNAL_ERROR'> {
  if (errors.some((e) => e.extensions?.code === 'RATE_LIMITED')) return 'RATE_LIMITED';
  if (errors.some((e) => e.extensions?.code === 'SERVICE_UNAVAILABLE')) return 'SERVICE_UNAVAILABLE';
  return 'INTERNAL_ERROR';
}
