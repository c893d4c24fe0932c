// How many interaction exports one serving process runs at once. An export holds a database
// connection for its whole duration (seconds to minutes); without a bound, a few keys exporting in
// parallel would take every connection of the pool and ordinary requests would wait for one until
// they time out. Past the bound, an export is answered 503 SERVICE_UNAVAILABLE with Retry-After
// (index.ts): the condition is this instance's capacity, not the caller's quota.

export class ExportSlots {
  private used = 0;

  constructor(readonly capacity: number) {}

  /** A slot, or undefined when all are taken; the slot's release is idempotent. */
  take(): (() => void) | undefined {
    if (this.used >= this.capacity) return undefined;
    this.used++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used--;
    };
  }

  get inUse(): number {
    return this.used;
  }
}
