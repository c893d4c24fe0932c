// Reads a JSON array of arrays of numbers (`[[0,1,2],[2,5,7,9]]`) one row at a time into one
// reused buffer, without building the arrays.
//
// The zoned sums' statement answers a year of hours with a comparison as about 35,000 such rows
// (rollups/zoned.ts). JSON.parse made an array per row and a boxed number per value: about 7 MB of
// short-lived objects per request, and the collections that cleaned them up paused every other
// key's requests for 10-50 ms at a time. Here a row's values are read into a Float64Array that the
// caller uses before the next row replaces them. No library reads JSON this way (streaming parsers
// still make a value per number), so it is written here.

/** The longest row the buffer takes: a day of interaction_day_hours is 2 + 10 + 1 + 24 * 10 values. */
export const MAX_ROW_VALUES = 512;

const ZERO = 48;
const NINE = 57;
const COMMA = 44;
const OPEN = 91;
const CLOSE = 93;

function malformed(text: string, at: number): Error {
  return new Error(`Malformed number rows at character ${at}: ${JSON.stringify(text.slice(Math.max(0, at - 20), at + 20))}`);
}

/**
 * Calls `onRow(values, count)` for each row of `text`, a JSON array of arrays of numbers; `values`
 * holds the row's numbers in its first `count` places until `onRow` returns. Whole numbers of up to
 * 15 digits (every count and sum, a millisecond instant) are read digit by digit; any other number
 * (a sign, a fraction, an exponent) through Number. Throws on anything else.
 */
export function forEachNumberRow(text: string, onRow: (values: Float64Array, count: number) => void, values = new Float64Array(MAX_ROW_VALUES)): void {
  let i = 0;
  const end = text.length;
  const skipSpace = () => {
    while (i < end && text.charCodeAt(i) <= 32) i++;
  };
  skipSpace();
  if (text.charCodeAt(i) !== OPEN) throw malformed(text, i);
  i++;
  skipSpace();
  if (text.charCodeAt(i) === CLOSE) return;
  for (;;) {
    skipSpace();
    if (text.charCodeAt(i) !== OPEN) throw malformed(text, i);
    i++;
    let count = 0;
    skipSpace();
    if (text.charCodeAt(i) !== CLOSE) {
      for (;;) {
        skipSpace();
        const start = i;
        let value = 0;
        let code = text.charCodeAt(i);
        while (code >= ZERO && code <= NINE) {
          value = value * 10 + (code - ZERO);
          code = text.charCodeAt(++i);
        }
        const digits = i - start;
        if (digits === 0 || digits > 15 || (code !== COMMA && code !== CLOSE && code > 32) || (digits > 1 && text.charCodeAt(start) === ZERO)) {
          // Not a plain whole number: the rest of the token through Number (which JSON agrees with).
          while (i < end && text.charCodeAt(i) !== COMMA && text.charCodeAt(i) !== CLOSE && text.charCodeAt(i) > 32) i++;
          const token = text.slice(start, i);
          value = token === '' ? Number.NaN : Number(token);
          if (!Number.isFinite(value) || !/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(token)) throw malformed(text, start);
        }
        if (count === values.length) throw new Error(`A row of more than ${values.length} numbers`);
        values[count++] = value;
        skipSpace();
        code = text.charCodeAt(i);
        if (code === COMMA) {
          i++;
          continue;
        }
        if (code === CLOSE) break;
        throw malformed(text, i);
      }
    }
    i++; // the row's ]
    onRow(values, count);
    skipSpace();
    const code = text.charCodeAt(i);
    if (code === COMMA) {
      i++;
      continue;
    }
    if (code === CLOSE) {
      i++;
      skipSpace();
      if (i !== end) throw malformed(text, i);
      return;
    }
    throw malformed(text, i);
  }
}
