import { describe, expect, it } from 'vitest';
import { IdIndex } from '../../src/importer/id-index.js';

describe('IdIndex', () => {
  it('returns the first line of an id seen before, exactly, across growth', () => {
    const index = new IdIndex();
    const ids = Array.from({ length: 50_000 }, (_, i) => `int_${i.toString(36)}`);
    ids.forEach((id, i) => {
      expect(index.add(id, i + 1)).toBeUndefined();
    });
    expect(index.size).toBe(50_000);
    expect(index.add('int_0', 60_000)).toBe(1);
    expect(index.add(ids[41_234]!, 60_001)).toBe(41_235);
    // Prefixes, case and non-ASCII ids are distinct ids.
    expect(index.add('int_', 60_002)).toBeUndefined();
    expect(index.add('INT_0', 60_003)).toBeUndefined();
    expect(index.add('llamada-ñ', 60_004)).toBeUndefined();
    expect(index.add('llamada-n', 60_005)).toBeUndefined();
    expect(index.add('llamada-ñ', 60_006)).toBe(60_004);
    expect(index.add('', 60_007)).toBeUndefined();
    expect(index.add('', 60_008)).toBe(60_007);
    expect(index.size).toBe(50_005);
  });
});
