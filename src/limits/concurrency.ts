// The per-key concurrency limit: how many units of database work (a document's root fields, by
// their declared databaseCost) one API key may have running at once in this process.
//
// Per process, not shared through Redis: what it protects is this process's connection pool, which
// another instance's requests never touch; a fleet-wide count would refuse a key on an idle instance
// because it is busy on another, and it would add a Redis round trip (and a failure mode) to every
// request. With N instances behind a balancer a key may hold N times its limit across the fleet,
// each instance bounded on its own.
import type { KeyTierValue } from '../domain/values.js';

/** Units one key may hold at once, per tier; 0: no limit for that tier. */
export type ConcurrencyLimits = Record<KeyTierValue, number>;

/** The defaults of KEY_CONCURRENCY_* (config.ts): below the default pool of 10 connections. */
export const DEFAULT_CONCURRENCY_LIMITS: ConcurrencyLimits = { standard: 4, premium: 8, unlimited: 0 };

/** Seconds a refused client is told to wait: a request's database work is bounded by seconds. */
export const CONCURRENCY_RETRY_AFTER_SECONDS = 1;

export type ConcurrencyDecision =
  | { ok: true; release: () => void }
  /** `too_costly`: the document alone costs more than the limit (retrying cannot help); `busy`: the key's work in flight leaves too little. */
  | { ok: false; reason: 'too_costly' | 'busy'; limit: number; inFlight: number; cost: number };

export class KeyConcurrency {
  private readonly held = new Map<string, number>();

  constructor(private readonly limits: ConcurrencyLimits = DEFAULT_CONCURRENCY_LIMITS) {}

  /**
   * Takes the units of a document's fields (`fieldUnits`, one entry per root field) for the key if
   * they fit; the caller must call `release` once its work is done. A field costing more than the
   * key's whole limit counts as the limit: it runs alone rather than never (a REST request is one
   * field, and must be answerable whatever the limit is set to).
   */
  acquire(keyId: string, tier: KeyTierValue, fieldUnits: readonly number[]): ConcurrencyDecision {
    const limit = this.limits[tier];
    const cost = fieldUnits.reduce((sum, units) => sum + Math.min(units, limit || units), 0);
    if (!limit || cost <= 0) return { ok: true, release: () => {} };
    const inFlight = this.held.get(keyId) ?? 0;
    if (cost > limit) return { ok: false, reason: 'too_costly', limit, inFlight, cost };
    if (inFlight + cost > limit) return { ok: false, reason: 'busy', limit, inFlight, cost };
    this.held.set(keyId, inFlight + cost);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        const left = (this.held.get(keyId) ?? 0) - cost;
        if (left > 0) this.held.set(keyId, left);
        else this.held.delete(keyId);
      },
    };
  }

  /** Units the key holds now (tests, metrics). */
  inFlight(keyId: string): number {
    return this.held.get(keyId) ?? 0;
  }
}
