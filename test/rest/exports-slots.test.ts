// The export slots' share rule (src/rest/exports/slots.ts): a key holds at most its share, never every
// slot of an instance that has more than one; a key over its share is told apart from a full instance.
import { describe, expect, it } from 'vitest';
import { ExportSlots } from '../../src/rest/exports/slots.js';

const granted = (grant: ReturnType<ExportSlots['take']>) => {
  if ('refused' in grant) throw new Error(`refused: ${grant.refused}`);
  return grant.release;
};

describe('export slots', () => {
  it('a key never holds every slot: its share is at most the capacity less one', () => {
    expect(new ExportSlots(2, 1).perKey).toBe(1);
    expect(new ExportSlots(2, 5).perKey).toBe(1);
    expect(new ExportSlots(4, 2).perKey).toBe(2);
    expect(new ExportSlots(4, 100).perKey).toBe(3);
    // One slot in all: a key may have it (nothing else to share).
    expect(new ExportSlots(1, 3).perKey).toBe(1);
  });

  it('over its share a key is refused for itself; with every slot taken by others, for the instance', () => {
    const slots = new ExportSlots(3, 2);
    const a1 = granted(slots.take('a'));
    granted(slots.take('a'));
    expect(slots.take('a')).toEqual({ refused: 'key' });
    granted(slots.take('b'));
    expect(slots.take('c')).toEqual({ refused: 'instance' });
    // A key at its share is told so even when the instance is full.
    expect(slots.take('a')).toEqual({ refused: 'key' });
    a1();
    a1();
    expect(slots.inUse).toBe(2);
    expect(slots.heldBy('a')).toBe(1);
    granted(slots.take('c'));
    expect(slots.heldBy('c')).toBe(1);
  });

  it('thousands of keys asking at once get at most the capacity, each at most its share', () => {
    const slots = new ExportSlots(10, 2);
    const given = new Map<string, number>();
    for (let i = 0; i < 5_000; i++) {
      const holder = `key-${i % 7}`;
      const grant = slots.take(holder);
      if (!('refused' in grant)) given.set(holder, (given.get(holder) ?? 0) + 1);
    }
    expect([...given.values()].reduce((a, b) => a + b, 0)).toBe(10);
    expect(Math.max(...given.values())).toBeLessThanOrEqual(2);
  });
});
