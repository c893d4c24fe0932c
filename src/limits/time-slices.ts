// Long work on the one thread every request shares, cut into slices that take turns.
//
// The service answers every key on one JavaScript thread. A year of hourly buckets with a
// comparison is 17,520 buckets: hundreds of milliseconds of arithmetic, objects and JSON. Run in
// one go, every other key's requests wait behind it; yielding with setImmediate alone is not
// enough either, because every callback queued for the same turn of the event loop runs back to
// back: four such requests yielding together still hold the thread for four slices before the
// other keys' I/O is read.
//
// So long work asks for its next slice here: one slice runs per turn of the event loop, process-
// wide, in the order they were asked for, and the network and timer callbacks of that turn (the
// other keys' requests) run in between. A request that never asks (a page of 20 rows) is never
// delayed by more than one slice of someone else's work, whatever that someone runs at once.
//
// Written here rather than taken from a library: a scheduler for the event loop's turns is a few
// lines, and the libraries that share CPU between tasks do it with worker threads, which would copy
// each answer's objects between threads (the cost being saved).

/** How long a slice of work may hold the thread before it asks for the next one. */
export const SLICE_MS = 4;

const waiting: Array<() => void> = [];
let scheduled = false;

function runOne(): void {
  const next = waiting.shift();
  // Resolving runs the waiting work as this callback's microtasks, before the next turn's I/O.
  next?.();
  if (waiting.length) setImmediate(runOne);
  else scheduled = false;
}

/** Resolves in a later turn of the event loop, after the slices asked for before it, one per turn. */
export function nextSlice(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!scheduled) {
      scheduled = true;
      setImmediate(runOne);
    }
  });
}

/**
 * A clock for one piece of long work: `due` once it has held the thread for SLICE_MS since it began
 * or last yielded; `yield()` then waits for its next slice. Checking costs a clock read, so loops
 * ask every few hundred items, not every one.
 */
export class TimeSlice {
  private started = performance.now();

  get due(): boolean {
    return performance.now() - this.started >= SLICE_MS;
  }

  /** Waits for the next slice if this one is used up. */
  async pause(): Promise<void> {
    if (!this.due) return;
    await nextSlice();
    this.started = performance.now();
  }

  /** Starts the clock again: the work was away (waiting for the database) and others ran meanwhile. */
  resume(): void {
    this.started = performance.now();
  }
}

/**
 * `fn` over `0..count-1` in slices: every `stride` items the slice's clock is read and, when it is
 * used up, the loop waits for its next turn.
 */
export async function sliced(slice: TimeSlice, count: number, fn: (i: number) => void, stride = 256): Promise<void> {
  for (let i = 0; i < count; ) {
    const stop = Math.min(count, i + stride);
    for (; i < stop; i++) fn(i);
    if (i < count) await slice.pause();
  }
}

/**
 * items.map(fn) in slices: a REST answer's year of hourly buckets is 17,520 objects to reshape,
 * about 40 ms in one go.
 */
export async function mapInSlices<T, U>(items: readonly T[], fn: (item: T) => U, slice: TimeSlice): Promise<U[]> {
  const out = new Array<U>(items.length);
  await sliced(slice, items.length, (i) => {
    out[i] = fn(items[i]!);
  });
  return out;
}

/** Items of a long array serialized per slice check (JSON.stringify of 256 buckets: well under a slice). */
const ITEMS_PER_PART = 256;

/**
 * JSON.stringify(value) as parts whose concatenation is the same text, built in time slices: plain
 * objects and long arrays are walked, a long array serialized a few hundred items at a time, the
 * rest serialized whole. A 3.7 MB answer took 20-30 ms as one call. Only for JSON-shaped values
 * (plain objects, arrays, strings, numbers, booleans, null): an answer's data.
 */
export async function stringifyInSlices(value: unknown, slice: TimeSlice, parts: string[] = []): Promise<string[]> {
  if (Array.isArray(value) && value.length > ITEMS_PER_PART) {
    parts.push('[');
    for (let i = 0; i < value.length; i += ITEMS_PER_PART) {
      const text = JSON.stringify(value.slice(i, i + ITEMS_PER_PART));
      parts.push(i === 0 ? text.slice(1, -1) : `,${text.slice(1, -1)}`);
      await slice.pause();
    }
    parts.push(']');
  } else if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    parts.push('{');
    let first = true;
    for (const [name, item] of Object.entries(value)) {
      // As JSON.stringify: members whose value it cannot write are left out.
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      parts.push(`${first ? '' : ','}${JSON.stringify(name)}:`);
      first = false;
      await stringifyInSlices(item, slice, parts);
    }
    parts.push('}');
  } else {
    parts.push(JSON.stringify(value));
  }
  return parts;
}

/** Items of a long list handed to GraphQL per slice (handInSlices). */
const ITEMS_PER_SLICE = 1024;

/**
 * A long list for GraphQL to complete in slices: its items as promises, resolved a slice's worth
 * at a time. The executor completes an item (its fields, their serialization: about a microsecond
 * for a bucket of 10 fields) when the item's promise resolves, so a list of 17,520 buckets is
 * completed in slices of its own rather than in one call of 20-40 ms. Short lists are given as they
 * are: a promise per item costs more than it saves there.
 */
export function handInSlices<T>(items: readonly T[]): ReadonlyArray<T | Promise<T>> {
  if (items.length <= ITEMS_PER_SLICE) return items;
  const resolvers: Array<(value: T) => void> = new Array(items.length);
  const promises = items.map((_, i) => new Promise<T>((resolve) => (resolvers[i] = resolve)));
  void (async () => {
    for (let start = 0; start < items.length; start += ITEMS_PER_SLICE) {
      await nextSlice();
      const stop = Math.min(items.length, start + ITEMS_PER_SLICE);
      for (let i = start; i < stop; i++) resolvers[i]!(items[i]!);
    }
  })();
  return promises;
}
