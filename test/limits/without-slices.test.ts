// The heavy lane's worker runs long work without slices (src/limits/admission.ts runWithoutSlices):
// nothing else waits on its thread, so a pause, a promise per item of a long list and a turn of the
// event loop would only cost. A file of its own: the setting is the whole module's, for good.
import { describe, expect, it } from 'vitest';
import { handInSlices, mapInSlices, runWithoutSlices, SLICE_MS, stringifyInSlices, TimeSlice } from '../../src/limits/admission.js';

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {}
};

describe('long work without slices', () => {
  it('slices until they are turned off, then never pauses and hands long lists over as they are', async () => {
    const long = Array.from({ length: 5_000 }, (_, i) => ({ i }));
    const before = new TimeSlice();
    busy(SLICE_MS + 1);
    expect(before.due).toBe(true);
    expect(handInSlices(long)[0]).toBeInstanceOf(Promise);

    runWithoutSlices();
    const slice = new TimeSlice();
    busy(SLICE_MS + 1);
    expect(slice.due).toBe(false);
    expect(handInSlices(long)).toBe(long);

    // No turn of the event loop is taken: a timer queued first still has not run when the work ends.
    let turned = false;
    setImmediate(() => {
      turned = true;
    });
    const mapped = await mapInSlices(
      long,
      (item) => {
        busy(0.01);
        return item.i * 2;
      },
      slice,
    );
    const text = (await stringifyInSlices({ data: long }, slice)).join('');
    expect(turned).toBe(false);
    expect(mapped[4_999]).toBe(9_998);
    expect(text).toBe(JSON.stringify({ data: long }));
  });
});
