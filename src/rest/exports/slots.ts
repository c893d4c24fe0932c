// How many interaction exports one serving process runs at once, and how many of them one key may
// hold. An export holds a database connection for its whole duration (seconds to minutes); without
// a bound, a few keys exporting in parallel would take every connection of the pool and ordinary
// requests would wait for one until they time out. Without a share per key, one key reading two
// exports slowly (a request of quota each) would hold every slot, and every other key's export
// would be refused for as long as it reads.
//
// So a key holds at most `perKey` slots, and never all of them when there are more than one: while
// slots remain, another key always gets one. Past its share, a key is answered 429 RATE_LIMITED
// (its own doing: it retries when one of its exports ends); when every slot is taken by others, 503
// SERVICE_UNAVAILABLE (this instance's capacity, not the caller's quota). Both with Retry-After
// (index.ts). Per process, like the pool the slots protect: each instance has its own.

/** Why no slot was given: the key holds its share, or the instance has none left. */
export type SlotRefusal = 'key' | 'instance';

export type SlotGrant = { release: () => void } | { refused: SlotRefusal };

export class ExportSlots {
  private used = 0;
  private readonly held = new Map<string, number>();
  /** The slots one key may hold: `perKey`, but never every slot of an instance that has more than one. */
  readonly perKey: number;

  constructor(
    readonly capacity: number,
    perKey: number,
  ) {
    this.perKey = Math.max(1, Math.min(perKey, capacity - 1));
  }

  /** A slot for `holder` (a key's id), or why not; the slot's release is idempotent. */
  take(holder: string): SlotGrant {
    const mine = this.held.get(holder) ?? 0;
    if (mine >= this.perKey) return { refused: 'key' };
    if (this.used >= this.capacity) return { refused: 'instance' };
    this.used++;
    this.held.set(holder, mine + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.used--;
        const left = (this.held.get(holder) ?? 1) - 1;
        if (left > 0) this.held.set(holder, left);
        else this.held.delete(holder);
      },
    };
  }

  get inUse(): number {
    return this.used;
  }

  /** Slots `holder` holds now. */
  heldBy(holder: string): number {
    return this.held.get(holder) ?? 0;
  }
}
