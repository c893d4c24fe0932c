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
import type { Problems } from '../../domain/parameters.js';
import { readQuery } from '../query-params.js';

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
