// Which answer an Accept header asks for: today's JSON envelope, or one of the two export formats.
//
// The rule (README, Exports): only an explicit `text/csv` or `application/x-ndjson` media range can
// select an export - wildcards (`*/*`, `text/*`, `application/*`) never do, so a client that sends
// none of the two gets exactly today's JSON. Among the export types, the one with the highest q
// wins (equal q: the one listed first). It is chosen only when its q is above 0 and strictly above
// the q the header gives JSON (`application/json`, else `application/*`, else `*/*`, else 0): a
// client that weights JSON as high as the export, or higher, keeps JSON. A range whose q is not a
// valid qvalue (RFC 9110: 0 to 1, at most three decimals) is ignored, as are media-range
// parameters other than q.

export type ExportFormat = 'csv' | 'ndjson';

const EXPORT_TYPES: Readonly<Record<string, ExportFormat>> = { 'text/csv': 'csv', 'application/x-ndjson': 'ndjson' };

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

/** The export format an Accept header selects, or null for the JSON envelope. */
export function exportFormatOf(accept: string | null): ExportFormat | null {
  if (!accept) return null;
  const all = mediaRanges(accept);
  let best: (MediaRange & { format: ExportFormat }) | undefined;
  for (const range of all) {
    const format = EXPORT_TYPES[range.type];
    if (format && range.q > 0 && (!best || range.q > best.q)) best = { ...range, format };
  }
  if (!best) return null;
  const qOf = (type: string) => all.filter((r) => r.type === type).reduce<number | undefined>((q, r) => Math.max(q ?? 0, r.q), undefined);
  const json = qOf('application/json') ?? qOf('application/*') ?? qOf('*/*') ?? 0;
  return best.q > json ? best.format : null;
}
