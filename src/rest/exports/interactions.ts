// The export of interactions (GET /api/v1/interactions with an export Accept): its parameters and
// the COPY statement that reads the rows, in binary; rows.ts writes them as CSV or NDJSON
// (copy-out.ts says why the service rather than PostgreSQL writes the text).
import { escapeLiteral } from 'pg';
import type { VisibleClinics } from '../../auth/api-keys.js';
import type { Problems } from '../../domain/parameters.js';
import { checkCursorList, type Filters, REST_NAMES, restFilters } from '../../filters/interaction-filters.js';
import { Prisma } from '../../generated/prisma/client.js';
import { textScopeOf } from '../../interactions/read-page.js';
import { interactionConditions } from '../../interactions/rows.js';
import { textMatchIds } from '../../interactions/text-search.js';
import type { ExportFormat, QueryValues } from '../routes.js';
import type { RowFormat } from './copy-out.js';
import { COLUMNS, CSV_COLUMNS, CSV_HEADER, csvRow, ndjsonRow, type RowOptions } from './rows.js';

export { CSV_COLUMNS };

/** Parameters an export of interactions takes beyond the list's filters (`page`, `limit`: the route's). */
export const INTERACTION_EXPORT_PARAMS = ['order', 'updated_since', 'cursor', 'include_total'] as const;

/** Paging parameters: an export has every matching row, so each is a 400 with this message. */
export const NOT_FOR_EXPORTS = 'does not apply to exports: every matching row is exported';

export interface InteractionExport {
  filters: Filters;
  /** `desc` (default) or `asc` by started_at then id; `feed`: by updated_at then id, from `updatedSince`. */
  order: 'desc' | 'asc' | 'feed';
  updatedSince?: Date;
}

/**
 * The export's parameters, checked by the list's own rules (filters/interaction-filters.ts, REST
 * names): the filters, `order`, `updated_since` (and not both). `page`, `limit`, `cursor` and
 * `include_total` are refused.
 * Problems are added to `problems`; the result is meaningful only when there are none.
 */
export function checkInteractionExport(query: QueryValues, problems: Problems): InteractionExport {
  for (const name of [REST_NAMES.page, REST_NAMES.limit, REST_NAMES.after, REST_NAMES.includeTotal]) {
    if (query[name] !== undefined) problems[name] = NOT_FOR_EXPORTS;
  }
  const checked = checkCursorList(
    {
      dateFrom: query[REST_NAMES.dateFrom],
      dateTo: query[REST_NAMES.dateTo],
      ...restFilters(query, 'lists'),
      order: query[REST_NAMES.order],
      updatedSince: query[REST_NAMES.updatedSince],
    },
    REST_NAMES,
    problems,
  );
  return {
    filters: checked.filters,
    order: checked.updatedSince ? 'feed' : checked.order,
    ...(checked.updatedSince ? { updatedSince: checked.updatedSince } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// The statement

/** The columns (rows.ts COLUMNS), in COPY's binary format: the service writes their text. */
const SELECT_COLUMNS = COLUMNS.filter((column) => column !== 'transcript')
  .map((column) => `i.${column}`)
  .join(', ');

// The transcript as a subquery per row rather than a join: the statement then reads one table, in
// the order of an index when one fits, and streams from the first row. Joined, the planner chose at
// 1m rows to hash-join both tables whole and sort the result (the first byte after 30 s, the sort
// spilled to disk).
const TRANSCRIPT_COLUMN = '(SELECT t.entries FROM interaction_transcripts t WHERE t.interaction_id = i.id)';

const ORDER: Record<InteractionExport['order'], string> = {
  desc: 'ORDER BY i.started_at DESC, i.id DESC',
  asc: 'ORDER BY i.started_at, i.id',
  feed: 'ORDER BY i.updated_at, i.id',
};

/**
 * The COPY statement of an export. COPY takes no bind parameters, so the values of the conditions
 * (checked filters, the key's clinics) are inlined as literals by node-postgres's escapeLiteral.
 * `horizon`: for the change feed's order, the first instant that may not be visible yet
 * (interactions/change-feed.ts), as the JSON feed stops there.
 */
export function exportStatement(
  format: ExportFormat,
  request: InteractionExport,
  visible: VisibleClinics,
  horizon: Date | undefined,
  requestId: string,
): string {
  // A full-text search finds its matches through the index (the list's condition checks rows one
  // by one, which suits a page that stops early, not a statement that reads every match).
  const { text, ...filters } = request.filters;
  const conditions = [...interactionConditions(filters, visible), ...(text === undefined ? [] : [textMatchIds(textScopeOf({ ...filters, text }, visible))])];
  if (request.order === 'feed') {
    if (!request.updatedSince || !horizon) throw new Error('exports: the change feed needs updated_since and a horizon');
    conditions.push(Prisma.sql`updated_at >= ${request.updatedSince.toISOString()}::timestamptz`);
    conditions.push(Prisma.sql`updated_at < ${horizon.toISOString()}::timestamptz`);
  }
  const where = inlined(conditions.length ? Prisma.join(conditions, ' AND ') : Prisma.sql`TRUE`);
  // The request id first (pg_stat_activity shows the first 1 kB of a statement): an operator finds
  // an export's session by the X-Request-Id of its answer. Request ids are [A-Za-z0-9._:-] only.
  const label = `/* export ${/^[A-Za-z0-9._:-]+$/.test(requestId) ? requestId : '-'} */`;
  const columns = format === 'csv' ? SELECT_COLUMNS : `${SELECT_COLUMNS}, ${TRANSCRIPT_COLUMN}`;
  return `${label} COPY (SELECT ${columns} FROM interactions i WHERE ${where} ${ORDER[request.order]}) TO STDOUT (FORMAT binary)`;
}

/**
 * The text of `sql` with its parameters written as literals. Only the values the condition builders
 * produce are accepted: strings (ids, enum values, patterns, ISO instants) and arrays of strings.
 */
export function inlined(sql: Prisma.Sql): string {
  const values = sql.values;
  return sql.text.replace(/\$(\d+)/g, (_, index: string) => literal(values[Number(index) - 1]));
}

function literal(value: unknown): string {
  if (typeof value === 'string') return escapeLiteral(value);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
    return value.length ? `ARRAY[${value.map((item) => escapeLiteral(item)).join(', ')}]` : `'{}'`;
  }
  throw new TypeError(`exports: cannot inline a value of type ${typeof value}`);
}

// ---------------------------------------------------------------------------------------------
// Rows

/**
 * How the COPY's rows become the file: how many columns it selects, how each row is written, what
 * comes first. `masked`: for a key without phi:read, its patient data masked as the API masks it.
 */
export function rowFormat(format: ExportFormat, options: RowOptions = {}): { columns: number; row: RowFormat; preamble?: Buffer } {
  return format === 'csv' ? { columns: COLUMNS.length - 1, row: csvRow(options), preamble: CSV_HEADER } : { columns: COLUMNS.length, row: ndjsonRow(options) };
}
