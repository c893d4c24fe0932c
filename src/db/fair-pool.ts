// Shares the connection pool fairly between API keys. Every user of the pool (Prisma's queries,
// `queryRows`, an export's COPY) takes a connection through pool.connect, which this gate wraps:
// - a key holds at most `perKey` connections at once, so the others always find some free (the
//   rest of its work waits in the key's own queue);
// - a freed connection goes to the keys that wait in turn (round robin), never to whoever asked
//   first: one key's queue never holds another key's request;
// - a request waits at most `queueTimeoutMs`, then fails as node-postgres's own pool timeout does
//   (db/errors.ts: 503 with Retry-After). Its own key's work is what it waited behind, unless the
//   whole pool is busy with many keys.
// Work outside any request's document (start-up, the CLI, authentication) shares one lane, not
// capped. A request's work before its document runs (the key's clinics, exports) is in a lane of its
// key that is not capped either, but is served in turn with the others: a burst of one key's
// requests (sixty at the top of a minute) must not queue every other key's first statement behind
// its own sixty.
import type pg from 'pg';
import { currentRequest } from '../request/state.js';

export interface FairShare {
  /** Connections handed out at once: the pool's size. */
  capacity: number;
  /** Connections one lane (API key) may hold at once; 0: half the capacity, at least 1. */
  perKey: number;
  /** Longest wait for a connection, in milliseconds; 0: no limit. */
  queueTimeoutMs: number;
}

const lanes = new WeakMap<Request, string>();

/**
 * Puts the rest of a request's database work in its key's lane. Called once the request has been
 * admitted to run its document (limits/concurrency.ts): what comes before (authentication, the
 * key's clinics) is in the shared lane, so a key whose lane is full still gets its 429 at once
 * rather than waiting behind its own work to be told.
 */
export function bindLane(request: Request, keyId: string): void {
  lanes.set(request, `key:${keyId}`);
}

/**
 * Puts a request's work in its key's uncapped lane once the key is known (limits/admission.ts),
 * until bindLane moves it to the capped one.
 */
export function bindKey(request: Request, keyId: string): void {
  if (!lanes.has(request)) lanes.set(request, laneBeforeAdmission(keyId));
}

/** The lane of a key's work before its document is admitted. */
export function laneBeforeAdmission(keyId: string): string {
  return `${UNCAPPED_PREFIX}${keyId}`;
}

/** Lanes of a key's work before its document is admitted: served in turn, never capped. */
const UNCAPPED_PREFIX = 'pre:';

/** The lane of the calling async context: its request's key once bound, or the shared lane. */
export function currentLane(): string {
  const request = currentRequest();
  return (request && lanes.get(request)) ?? SHARED_LANE;
}

/** The lane of work done for no key. */
export const SHARED_LANE = '';

/** node-postgres's message for a pool that found no connection in time (db/errors.ts knows it). */
const QUEUE_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect';

interface Waiter {
  grant: () => void;
  timer?: NodeJS.Timeout;
}

/** The round-robin gate itself, independent of node-postgres (tests drive it directly). */
export class FairGate {
  private active = 0;
  private readonly held = new Map<string, number>();
  /** Lanes with waiters, in serving order: a lane served goes to the back. */
  private readonly queues = new Map<string, Waiter[]>();
  readonly perKey: number;

  constructor(private readonly share: FairShare) {
    this.perKey = share.perKey > 0 ? Math.min(share.perKey, share.capacity) : Math.max(1, Math.floor(share.capacity / 2));
  }

  /** Resolves with the function that gives the slot back, once the lane may hold one more. */
  acquire(lane: string): Promise<() => void> {
    if (!this.queues.has(lane) && this.fits(lane)) return Promise.resolve(this.take(lane));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { grant: () => resolve(this.take(lane)) };
      if (this.share.queueTimeoutMs > 0) {
        waiter.timer = setTimeout(() => {
          this.remove(lane, waiter);
          reject(new Error(QUEUE_TIMEOUT_MESSAGE));
        }, this.share.queueTimeoutMs);
        waiter.timer.unref?.();
      }
      const queue = this.queues.get(lane);
      if (queue) queue.push(waiter);
      else this.queues.set(lane, [waiter]);
    });
  }

  /** Counts for tests and metrics. */
  get stats(): { active: number; waiting: number; lanes: number } {
    let waiting = 0;
    for (const queue of this.queues.values()) waiting += queue.length;
    return { active: this.active, waiting, lanes: this.queues.size };
  }

  heldBy(lane: string): number {
    return this.held.get(lane) ?? 0;
  }

  private fits(lane: string): boolean {
    // The shared lane (no key) is not capped: it is the CLI's and start-up's only lane; nor is a
    // key's work before its document is admitted (the concurrency limit answers it at once).
    return this.active < this.share.capacity && (lane === SHARED_LANE || lane.startsWith(UNCAPPED_PREFIX) || this.heldBy(lane) < this.perKey);
  }

  private take(lane: string): () => void {
    this.active += 1;
    this.held.set(lane, this.heldBy(lane) + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.active -= 1;
      const left = this.heldBy(lane) - 1;
      if (left > 0) this.held.set(lane, left);
      else this.held.delete(lane);
      this.serve();
    };
  }

  /** Grants freed slots to waiting lanes in turn. */
  private serve(): void {
    for (let granted = true; granted && this.active < this.share.capacity; ) {
      granted = false;
      for (const [lane, queue] of this.queues) {
        if (!this.fits(lane)) continue;
        const waiter = queue.shift() as Waiter;
        clearTimeout(waiter.timer);
        // To the back of the line (or out of it when it has no more waiters).
        this.queues.delete(lane);
        if (queue.length) this.queues.set(lane, queue);
        waiter.grant();
        granted = true;
        break;
      }
    }
  }

  private remove(lane: string, waiter: Waiter): void {
    const queue = this.queues.get(lane);
    if (!queue) return;
    const index = queue.indexOf(waiter);
    if (index >= 0) queue.splice(index, 1);
    if (!queue.length) this.queues.delete(lane);
  }
}

type ConnectCallback = (error: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;

/**
 * Puts `gate` in front of the pool's connect (pg.Pool#query takes its connection through it too).
 * The slot is given back when the connection is released, however that happens.
 */
export function shareFairly(pool: pg.Pool, gate: FairGate, laneOf: () => string = currentLane): void {
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const gated = async (): Promise<pg.PoolClient> => {
    const giveBack = await gate.acquire(laneOf());
    let client: pg.PoolClient;
    try {
      client = await connect();
    } catch (error) {
      giveBack();
      throw error;
    }
    const release = client.release.bind(client);
    client.release = (error?: Error | boolean) => {
      giveBack();
      return release(error);
    };
    return client;
  };
  Object.assign(pool, {
    connect(callback?: ConnectCallback) {
      if (!callback) return gated();
      gated().then(
        (client) => callback(undefined, client, (error) => client.release(error as Error | undefined)),
        (error: Error) => callback(error, undefined, () => {}),
      );
      return undefined;
    },
  });
}
