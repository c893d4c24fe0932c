// The export of interactions (GET /api/v1/interactions with an export Accept): its parameters and
// the COPY statement that produces the file. PostgreSQL writes the text of every row: CSV through
// COPY's own CSV format, NDJSON lines built in SQL from the REST representation's field table
// (representation.ts), so the service only moves bytes (copy-out.ts says why).
import { escapeLiteral } from 'pg';
import type { VisibleClinics } from '../auth/clinic-scope.js';
import type { Problems } from '../domain/parameters.js';
import { Prisma } from '../generated/prisma/client.js';
import { interactionConditions } from '../interactions/conditions.js';
import { checkCursorList, type Filters } from '../interactions/filters.js';
import type { QueryValues } from '../rest/query-params.js';
import { fieldsOf, INTERACTION } from '../rest/representation.js';
import { REST_NAMES } from '../rest/routes.js';
import type { CopyFormat } from './copy-out.js';
import type { ExportFormat } from './negotiate.js';

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
 * The export's parameters, checked by the list's own rules (filters.ts, REST names): the filters,
 * `order`, `updated_since` (and not both). `page`, `limit`, `cursor` and `include_total` are refused.
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
      channel: query[REST_NAMES.channel],
      type: query[REST_NAMES.type],
      // A list is comma-separated (rest/variables.ts): `outcome=` is one empty value, refused as such.
      outcomes: query[REST_NAMES.outcomes]?.split(','),
      clinicId: query[REST_NAMES.clinicId],
      campaignId: query[REST_NAMES.campaignId],
      search: query[REST_NAMES.search],
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

/** An instant as the API writes every timestamp: UTC, milliseconds, `Z` (toISOString()). */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** A JSON string, or null (to_json escapes exactly as JSON.stringify does). */
const jsonText = (column: string) => `coalesce(to_json(${column})::text, 'null')`;
/** A value known to need no escaping (an enum label, a UUID), as a JSON string. */
const plainString = (column: string) => `'"' || ${column} || '"'`;

/** The JSON value of each field of the REST representation, in SQL on alias `i`. */
const JSON_VALUE: Readonly<Record<string, string>> = {
  id: jsonText('i.id'),
  channel: plainString('i.channel'),
  type: plainString('i.type'),
  direction: plainString('i.direction'),
  phone_number: jsonText('i.phone_number'),
  clinic_id: plainString('i.clinic_id'),
  campaign_id: jsonText('i.campaign_id'),
  started_at: plainString(iso('i.started_at')),
  ended_at: `coalesce(${plainString(iso('i.ended_at'))}, 'null')`,
  duration_seconds: `coalesce(i.duration_seconds::text, 'null')`,
  outcome: jsonText('i.outcome'),
  summary: jsonText('i.summary'),
  recording_url: jsonText('i.recording_url'),
  updated_at: plainString(iso('i.updated_at')),
};

/**
 * An NDJSON line is the REST representation of the interaction as `GET /interactions/{id}` shows it
 * (the list's, with the transcript for both channels: representation.ts, view `detail`), then
 * `updated_at` (as the change feed ends its items). The SQL writes the text before the transcript's value (`head`) and after it
 * (`tail`, with the newline); the transcript itself is written by the service (`ndjsonRow`).
 */
function lineParts(channel: 'voice' | 'whatsapp'): { head: string; tail: string } {
  const names = fieldsOf(INTERACTION, { channel, view: 'detail' }).map((field) => field.name);
  if (!names.includes('updated_at')) names.push('updated_at');
  const split = names.indexOf('transcript');
  if (split === -1) throw new Error('exports: the interaction representation has no transcript');
  const sql = (part: string[], first: boolean) =>
    part
      .map((name, i) => {
        const value = JSON_VALUE[name];
        if (value === undefined) throw new Error(`exports: no SQL for the interaction field ${name}`);
        return `'${first && i === 0 ? '{' : ','}"${name}":' || ${value}`;
      })
      .join(' || ');
  return {
    head: `${sql(names.slice(0, split), true)} || ',"transcript":'`,
    tail: `${sql(names.slice(split + 1), false)} || E'}\\n'`,
  };
}

const VOICE = lineParts('voice');
const WHATSAPP = lineParts('whatsapp');
const NDJSON_COLUMNS = `CASE WHEN i.channel = 'voice' THEN ${VOICE.head} ELSE ${WHATSAPP.head} END AS head,
  t.entries::text AS transcript,
  CASE WHEN i.channel = 'voice' THEN ${VOICE.tail} ELSE ${WHATSAPP.tail} END AS tail`;

/** The CSV columns: the scalar fields of an interaction, by their REST names. */
export const CSV_COLUMNS = [
  'id',
  'clinic_id',
  'campaign_id',
  'channel',
  'type',
  'direction',
  'phone_number',
  'started_at',
  'ended_at',
  'duration_seconds',
  'outcome',
  'summary',
  'recording_url',
  'updated_at',
] as const;

const CSV_VALUE: Readonly<Record<(typeof CSV_COLUMNS)[number], string>> = {
  id: 'i.id',
  clinic_id: 'i.clinic_id',
  campaign_id: 'i.campaign_id',
  channel: 'i.channel',
  type: 'i.type',
  direction: 'i.direction',
  phone_number: 'i.phone_number',
  started_at: iso('i.started_at'),
  ended_at: iso('i.ended_at'),
  duration_seconds: 'i.duration_seconds',
  outcome: 'i.outcome',
  summary: 'i.summary',
  recording_url: 'i.recording_url',
  updated_at: iso('i.updated_at'),
};

// No guard against formula injection (cells beginning with =, +, - or @ prefixed with a quote): the
// file is data, RFC 4180, and its values must read back as stored - every phone number in E.164
// begins with "+", and a summary may begin with "-". Whoever opens it in a spreadsheet should import
// it as text; the API cannot know which cells a spreadsheet would evaluate.
const CSV_SELECT = CSV_COLUMNS.map((name) => `${CSV_VALUE[name]} AS ${name}`).join(', ');

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
  const conditions = [...interactionConditions(request.filters, visible)];
  if (request.order === 'feed') {
    if (!request.updatedSince || !horizon) throw new Error('exports: the change feed needs updated_since and a horizon');
    conditions.push(Prisma.sql`updated_at >= ${request.updatedSince.toISOString()}::timestamptz`);
    conditions.push(Prisma.sql`updated_at < ${horizon.toISOString()}::timestamptz`);
  }
  const where = inlined(conditions.length ? Prisma.join(conditions, ' AND ') : Prisma.sql`TRUE`);
  // The request id first (pg_stat_activity shows the first 1 kB of a statement): an operator finds
  // an export's session by the X-Request-Id of its answer. Request ids are [A-Za-z0-9._:-] only.
  const label = `/* export ${/^[A-Za-z0-9._:-]+$/.test(requestId) ? requestId : '-'} */`;
  if (format === 'csv') {
    return `${label} COPY (SELECT ${CSV_SELECT} FROM interactions i WHERE ${where} ${ORDER[request.order]}) TO STDOUT (FORMAT csv, HEADER)`;
  }
  return `${label} COPY (SELECT ${NDJSON_COLUMNS} FROM interactions i LEFT JOIN interaction_transcripts t ON t.interaction_id = i.id
    WHERE ${where} ${ORDER[request.order]}) TO STDOUT (FORMAT binary)`;
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

/** The COPY format of an export: CSV as PostgreSQL writes it; NDJSON lines from their three parts. */
export function copyFormat(format: ExportFormat): CopyFormat {
  return format === 'csv' ? { kind: 'csv' } : { kind: 'binary', row: ndjsonRow };
}

/**
 * One NDJSON line: the head and tail as PostgreSQL wrote them, and the transcript as the REST
 * representation writes it (TRANSCRIPT_ENTRY: each entry's role and content; `[]` without one),
 * compact like the rest of the line (jsonb's text has spaces after `:` and `,`).
 */
function ndjsonRow(fields: ReadonlyArray<Buffer | null>, out: { bytes(source: Buffer): void; text(value: string): void }): void {
  const [head, transcript, tail] = fields;
  if (!head || !tail) throw new Error('exports: an NDJSON row without its text');
  out.bytes(head);
  out.text(transcript ? transcriptJson(transcript.toString('utf8')) : '[]');
  out.bytes(tail);
}

function transcriptJson(text: string): string {
  const entries = JSON.parse(text) as unknown;
  if (!Array.isArray(entries)) throw new Error('exports: a stored transcript is not an array');
  return JSON.stringify(entries.map((entry: { role?: unknown; content?: unknown }) => ({ role: entry.role, content: entry.content })));
}
