// Long work in slices (src/limits/admission.ts): one slice per turn of the event loop, process-
// wide, so network callbacks run between any two slices however many jobs are slicing at once;
// and the sliced serializer writes what JSON.stringify writes.
import net from 'node:net';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { mapInSlices, nextSlice, SLICE_MS, stringifyInSlices, TimeSlice } from '../../src/limits/admission.js';

/** A connected pair of loopback sockets; `ping` writes on one, the promise of the other's data resolves. */
async function loopback(): Promise<{ ping: () => Promise<void>; close: () => void }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const client = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => client.once('connect', resolve));
  const peer = await accepted;
  return {
    ping: () =>
      new Promise<void>((resolve) => {
        peer.once('data', () => resolve());
        client.write('x');
      }),
    close: () => {
      client.destroy();
      peer.destroy();
      server.close();
    },
  };
}

describe('slices of long work', () => {
  it('run one per turn of the event loop: a network callback waits for at most a slice or two, whatever the number of jobs', async () => {
    const { ping, close } = await loopback();
    try {
      let slices = 0;
      let stop = false;
      const job = async () => {
        while (!stop) {
          await nextSlice();
          slices++;
          // A slice of work: a millisecond of the thread.
          const until = performance.now() + 1;
          while (performance.now() < until) {}
        }
      };
      const jobs = Array.from({ length: 8 }, job);
      await nextSlice();
      for (let round = 0; round < 5; round++) {
        const before = slices;
        await ping();
        // Eight jobs each yielding with setImmediate would run eight slices in the turn before the data is read.
        expect(slices - before).toBeLessThanOrEqual(3);
      }
      stop = true;
      await Promise.all(jobs);
    } finally {
      close();
    }
  });

  it('are taken in the order asked for (jobs alternate)', async () => {
    const order: string[] = [];
    const job = async (name: string) => {
      for (let i = 0; i < 3; i++) {
        await nextSlice();
        order.push(name);
      }
    };
    await Promise.all([job('a'), job('b')]);
    expect(order).toEqual(['a', 'b', 'a', 'b', 'a', 'b']);
  });

  it('a TimeSlice yields only once it has held the thread for its budget', async () => {
    // On the slice's own clock (performance.now), held still here: a loaded machine may take the
    // thread away between any two reads of the real one.
    let now = 1_000;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => now);
    try {
      const slice = new TimeSlice();
      now += SLICE_MS / 2;
      expect(slice.due).toBe(false);
      await slice.pause();
      expect(slice.due, 'a pause before the budget is spent keeps the slice').toBe(false);
      now += SLICE_MS / 2;
      expect(slice.due).toBe(true);
      await slice.pause();
      expect(slice.due, 'the next slice starts a fresh budget').toBe(false);
      now += SLICE_MS;
      expect(slice.due).toBe(true);
      slice.resume();
      expect(slice.due, 'resume starts the clock again').toBe(false);
    } finally {
      clock.mockRestore();
    }
  });
});

describe('stringifyInSlices', () => {
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.string(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 700 }),
      fc.dictionary(fc.string(), fc.oneof(tie('value'), fc.constant(undefined))),
    ),
  })).value;

  it('writes exactly what JSON.stringify writes, long arrays included', async () => {
    await fc.assert(
      fc.asyncProperty(json, async (value) => {
        expect((await stringifyInSlices(value, new TimeSlice())).join('')).toBe(JSON.stringify(value));
      }),
      { numRuns: 200 },
    );
    const buckets = Array.from({ length: 17_520 }, (_, i) => ({ start: `2026-01-01T${i}`, total: i, rate: i / 3, none: null }));
    const envelope = { success: true, data: { series: buckets, previous: { series: buckets.slice(0, 300) } }, meta: undefined };
    const parts = await stringifyInSlices(envelope, new TimeSlice());
    expect(parts.length).toBeGreaterThan(17_520 / 256);
    expect(parts.join('')).toBe(JSON.stringify(envelope));
  });
});

describe('mapInSlices', () => {
  it('gives what Array.prototype.map gives, and lets other callbacks run while a long list is mapped', async () => {
    const items = Array.from({ length: 20_000 }, (_, i) => i);
    let otherRan = false;
    setImmediate(() => {
      otherRan = true;
    });
    let ranBeforeLast = false;
    const mapped = await mapInSlices(
      items,
      (n) => {
        // Slow enough that the list takes several slices.
        const until = performance.now() + 0.002;
        while (performance.now() < until);
        if (n === items.length - 1) ranBeforeLast = otherRan;
        return { n, twice: n * 2 };
      },
      new TimeSlice(),
    );
    expect(mapped).toEqual(items.map((n) => ({ n, twice: n * 2 })));
    expect(ranBeforeLast).toBe(true);
    expect(await mapInSlices([], (n: number) => n, new TimeSlice())).toEqual([]);
  });
});
