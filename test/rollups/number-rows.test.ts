import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forEachNumberRow } from '../../src/rollups/number-rows.js';

/** The rows forEachNumberRow reads, copied out of its buffer. */
function rowsOf(text: string): number[][] {
  const rows: number[][] = [];
  forEachNumberRow(text, (values, count) => rows.push(Array.from(values.subarray(0, count))));
  return rows;
}

describe('forEachNumberRow', () => {
  it('reads the same numbers as JSON.parse, whatever the numbers and spacing', () => {
    const number = fc.oneof(
      fc.nat(),
      fc.integer({ min: -1e9, max: 1e9 }),
      fc.maxSafeInteger(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(0, 999_999_999_999_999, 1_000_000_000_000_000, 1_732_752_000_000),
    );
    const space = fc.constantFrom('', ' ', '\n', '\t ');
    fc.assert(
      fc.property(fc.array(fc.array(number, { maxLength: 40 }), { maxLength: 30 }), space, (rows, gap) => {
        const text = `${gap}[${rows.map((r) => `${gap}[${gap}${r.map((v) => JSON.stringify(v)).join(`${gap},${gap}`)}${gap}]`).join(',')}${gap}]${gap}`;
        expect(rowsOf(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('reads the zoned statement answer shape (part, key, sums)', () => {
    expect(rowsOf('[[0,20000,5,3,2],[2,1,0,0,0],[5,17520,1,0,1]]')).toEqual([
      [0, 20000, 5, 3, 2],
      [2, 1, 0, 0, 0],
      [5, 17520, 1, 0, 1],
    ]);
    expect(rowsOf('[]')).toEqual([]);
    expect(rowsOf('[[]]')).toEqual([[]]);
  });

  it('refuses what is not an array of arrays of numbers, naming where', () => {
    for (const text of ['', '[', '[[1,2]', '[[1,,2]]', '[[1,2],]', '[[01]]', '[[1e]]', '[[null]]', '[["1"]]', '[[1 2]]', '[[1]] x', '{"a":1}', '[1,2]']) {
      expect(() => rowsOf(text), text).toThrow(/Malformed number rows at character \d+/);
    }
  });

  it('refuses a row longer than its buffer rather than writing past it', () => {
    expect(() => forEachNumberRow('[[1,2,3]]', () => {}, new Float64Array(2))).toThrow('A row of more than 2 numbers');
  });
});
