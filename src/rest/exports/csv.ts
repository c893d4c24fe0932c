// The cells of every CSV export (RFC 4180), as text (the metrics exports, written from JavaScript
// values) or as bytes (the interactions export, written from COPY's fields in rows.ts): one rule
// for both, so that the two writers cannot disagree.
//
// Formula injection (OWASP, "CSV Injection"): a spreadsheet that opens the file evaluates a cell
// beginning with `=`, `+`, `-` or `@` as a formula (and a leading tab or CR can hide one), and a
// summary or a campaign name is text that patients and operators influence. Such a text cell is
// written with a single quote before it, and quoted: `'=HYPERLINK(...)`. Spreadsheets also read
// the compatibility forms of these characters (fullwidth `＝＋－＠`, small, superscript) as the
// characters themselves, so the first character is compared in its NFKC form. Numbers are
// numbers, not text: a count or a negative figure is written as it is (the metrics exports); a
// phone number is text, so `+34 612...` is written `'+34 612...`. So that the quote can always be
// told from the data, a cell that begins with quotes followed by one of these characters gets one
// quote more (`'=x` is written `''=x`): a reader that wants the stored value back removes one
// leading quote from every cell whose first character after its leading quotes is one of them.

/** The characters that make a spreadsheet read a cell as a formula when they begin it (in NFKC form). */
const FORMULA_LEADS = ['=', '+', '-', '@', '\t', '\r'] as const;

/** The byte of the quote put in front of a text cell that would be read as a formula. */
export const FORMULA_GUARD = 0x27;

const ASCII_LEADS = new Set<number>(FORMULA_LEADS.map((lead) => lead.charCodeAt(0)));

/** Whether text whose first character is `first` (one code point) would be read as a formula. */
function isFormulaLead(first: string): boolean {
  const normal = first.normalize('NFKC');
  return normal !== '' && ASCII_LEADS.has(normal.charCodeAt(0));
}

/** Whether a text cell needs the quote in front of it (its leading quotes skipped). */
export function startsFormula(text: string): boolean {
  let at = 0;
  while (text.charCodeAt(at) === FORMULA_GUARD) at++;
  const first = text.codePointAt(at);
  if (first === undefined) return false;
  return first < 0x80 ? ASCII_LEADS.has(first) : isFormulaLead(String.fromCodePoint(first));
}

/** As `startsFormula`, for UTF-8 bytes `src[start, end)`: ASCII is judged from its byte, the rest decoded. */
export function bytesStartFormula(src: Uint8Array, start: number, end: number): boolean {
  let at = start;
  while (at < end && src[at] === FORMULA_GUARD) at++;
  if (at >= end) return false;
  const first = src[at]!;
  if (first < 0x80) return ASCII_LEADS.has(first);
  // One code point is at most 4 bytes of UTF-8.
  return startsFormula(Buffer.from(src.buffer, src.byteOffset + at, Math.min(4, end - at)).toString('utf8'));
}

/**
 * A CSV field: null is an empty field, a number (or a boolean) as it is, text quoted when it holds
 * a comma, a quote, CR or LF (quotes doubled), and guarded against formulas as above.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  const text = typeof value === 'string' ? value : String(value);
  if (startsFormula(text)) return `"'${text.replaceAll('"', '""')}"`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A CSV record with its CRLF. */
export function csvRecord(values: readonly unknown[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
