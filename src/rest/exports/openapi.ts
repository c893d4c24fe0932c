// What the OpenAPI document says of exports (rest/openapi.ts asks for each route): the two export
// media types of a route's 200, its Content-Disposition, and a paragraph for its description.

import { FORMAT_PARAM, formatValues } from '../routes.js';
import { CSV_COLUMNS, INTERACTION_EXPORT_PARAMS, NOT_FOR_EXPORTS } from './interactions.js';
import { metricsExportOf } from './metrics.js';
import { CONTENT_TYPES } from './response.js';
import { exportFormatsOf, INTERACTIONS_PATH } from './routes.js';

type Json = Record<string, unknown>;

const FORMULAS =
  "CSV text cells that a spreadsheet would read as formulas (beginning with `=`, `+`, `-`, `@`, tab or CR, or an NFKC form of one such as fullwidth `＝`) are written with a `'` in front, quoted; numbers as numbers; NDJSON as stored.";

const INTERACTIONS =
  `Export: with \`Accept: text/csv\` (RFC 4180, a header row, the columns ${CSV_COLUMNS.map((c) => `\`${c}\``).join(', ')}; null is an empty field) ` +
  'or `Accept: application/x-ndjson` (one interaction per line: its representation as `GET /interactions/{id}` shows it, transcript included for both channels, then `updated_at`), ' +
  'the answer is every matching interaction as a file, streamed, for one request of the quota: the same filters, plus `order` (`asc` or `desc`, default `desc`) ' +
  `and \`updated_since\` (then ordered by \`updated_at\`, then \`id\`, ascending; not with \`order\`); \`page\`, \`limit\`, \`cursor\` and \`include_total\` are refused (${NOT_FOR_EXPORTS}). ` +
  `Parameters: ${INTERACTION_EXPORT_PARAMS.map((p) => `\`${p}\``).join(', ')} as described here. ` +
  'A key without `phi:read` exports patient data masked as the JSON answer masks it (`phone_number`, `summary`, `transcript`, `recording_url`), and `search` and `q` are 403 for it. ' +
  'A few exports run at once per server, at most one (by default) per key: past its share a key is answered 429 `RATE_LIMITED` with `Retry-After` and `details.limit` `export_concurrency`, ' +
  "past the server's 503 `SERVICE_UNAVAILABLE` with `Retry-After`; a client that stops reading is cut off after a while (docs: Exports). " +
  `${FORMULAS} ` +
  'A failure after the first byte breaks the transfer off (no final chunk), so that a cut-off file cannot pass for a complete one.';

const METRICS =
  'Export: with `Accept: text/csv` (RFC 4180, a header row, one row per entry, its fields as columns) or `Accept: application/x-ndjson` (one entry per line, as in the JSON answer), ' +
  `the answer is every entry as a file for one request of the quota. ${FORMULAS}`;

const FORMAT =
  `Instead of \`Accept\`, the query parameter \`${FORMAT_PARAM}\` (for a link, which cannot set headers) names the answer: \`json\` (the JSON answer), \`csv\` or \`ndjson\`; ` +
  'it wins over any `Accept` sent with it.';

/** The export documentation of a route, or undefined when it has no export. */
export function exportDocs(path: string): { description: string; content: Json; headers: Json; formatParameter: Json } | undefined {
  const formats = exportFormatsOf(path);
  if (!formats.length) return undefined;
  const rows = metricsExportOf(path)?.rowsDoc;
  const description = `${path === INTERACTIONS_PATH ? INTERACTIONS : `${METRICS} ${rows}`} ${FORMAT}`;
  const file = (summary: string) => ({ schema: { type: 'string', description: summary } });
  return {
    description,
    content: {
      [CONTENT_TYPES.csv.split(';')[0]!]: file('The export as CSV (RFC 4180, CRLF line ends, UTF-8), chunked.'),
      [CONTENT_TYPES.ndjson.split(';')[0]!]: file('The export as newline-delimited JSON (UTF-8), chunked.'),
    },
    headers: {
      'Content-Disposition': {
        description: 'On exports: `attachment; filename="<what>-<UTC date>.<csv|ndjson>"`.',
        required: false,
        schema: { type: 'string', examples: ['attachment; filename="interactions-2026-11-27.csv"'] },
      },
    },
    formatParameter: {
      name: FORMAT_PARAM,
      in: 'query',
      required: false,
      description:
        "The format of the answer, for clients that cannot set `Accept` (a link in a browser, a spreadsheet's import from the web): `json` the JSON answer, " +
        '`csv` and `ndjson` the export. It wins over `Accept`; absent, `Accept` decides.',
      schema: { type: 'string', enum: formatValues(formats) },
    },
  };
}
