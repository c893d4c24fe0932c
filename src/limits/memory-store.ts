// Quota counters in this process's memory: exact for one instance (JavaScript runs the
// check-and-increment without interleaving), and the fallback when Redis is unreachable.
import { decide, type PerWindow, type QuotaStore, WINDOWS, type Window, windowIndex } from './windows.js';

interface Counter {
  window: number;
  count: number;
}

export class MemoryQuotaStore implements QuotaStore {
  private readonly counters = new Map<string, PerWindow<Counter>>();
  private sweptAt = 0;

  async consume(bucket: string, limits: PerWindow<number>, nowMs: number) {
    return this.consumeSync(bucket, limits, nowMs);
  }

  consumeSync(bucket: string, limits: PerWindow<number>, nowMs: number) {
    this.sweep(nowMs);
    let entry = this.counters.get(bucket);
    if (!entry) {
      entry = { minute: { window: -1, count: 0 }, hour: { window: -1, count: 0 }, day: { window: -1, count: 0 } };
      this.counters.set(bucket, entry);
    }
    const counts = {} as PerWindow<number>;
    for (const w of WINDOWS) {
      const current = windowIndex(w, nowMs);
      if (entry[w].window !== current) entry[w] = { window: current, count: 0 };
      counts[w] = entry[w].count;
    }
    if (WINDOWS.some((w) => counts[w] >= limits[w])) return decide(false, counts, limits, nowMs);
    for (const w of WINDOWS) counts[w] = ++entry[w].count;
    return decide(true, counts, limits, nowMs);
  }

  /** Drops buckets whose day window has passed, so memory follows the keys in use today. */
  private sweep(nowMs: number): void {
    if (nowMs - this.sweptAt < 60_000) return;
    this.sweptAt = nowMs;
    const today = windowIndex('day', nowMs);
    for (const [bucket, entry] of this.counters) if (entry.day.window < today) this.counters.delete(bucket);
  }

  async close(): Promise<void> {
    this.counters.clear();
  }

  /** Test hook: the current counts of a bucket. */
  countsOf(bucket: string, nowMs: number): PerWindow<number> {
    const entry = this.counters.get(bucket);
    const counts = {} as PerWindow<number>;
    for (const w of WINDOWS as readonly Window[]) counts[w] = entry && entry[w].window === windowIndex(w, nowMs) ? entry[w].count : 0;
    return counts;
  }
}
