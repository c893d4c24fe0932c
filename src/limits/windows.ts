// Per-key request quotas in three fixed windows aligned to UTC minute, hour and day boundaries
// (decisions section 5). A request is admitted only when every window has room, and then all
// three counters move together.

export const WINDOWS = ['minute', 'hour', 'day'] as const;
export type Window = (typeof WINDOWS)[number];
export type PerWindow<T> = Record<Window, T>;

export const WINDOW_MS: PerWindow<number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

export interface QuotaDecision {
  allowed: boolean;
  limits: PerWindow<number>;
  /** Requests left in each window after this decision (0 for an exhausted window). */
  remaining: PerWindow<number>;
  /** Whole seconds from the decision's instant until each window resets (rounded up: 1..60 for the minute). */
  resetSeconds: PerWindow<number>;
  /** When rejected: whole seconds (>= 1) until the latest-resetting exhausted window resets. */
  retryAfterSeconds?: number;
}

/** Index of the window containing `nowMs` (counters are keyed by it, so windows never overlap). */
export function windowIndex(window: Window, nowMs: number): number {
  return Math.floor(nowMs / WINDOW_MS[window]);
}

export function windowResetMs(window: Window, nowMs: number): number {
  return (windowIndex(window, nowMs) + 1) * WINDOW_MS[window];
}

/**
 * Whole seconds until the window containing `nowMs` resets, rounded up: a client that waits this
 * long is never early, and 0 is never said of a window that has not reset yet.
 */
export function secondsUntilReset(window: Window, nowMs: number): number {
  return Math.max(1, Math.ceil((windowResetMs(window, nowMs) - nowMs) / 1000));
}

/** The decision for counts read (if rejected) or reached (if admitted) by a store. */
export function decide(allowed: boolean, counts: PerWindow<number>, limits: PerWindow<number>, nowMs: number): QuotaDecision {
  const remaining = {} as PerWindow<number>;
  const resetSeconds = {} as PerWindow<number>;
  for (const w of WINDOWS) {
    remaining[w] = Math.max(0, limits[w] - counts[w]);
    resetSeconds[w] = secondsUntilReset(w, nowMs);
  }
  if (allowed) return { allowed, limits, remaining, resetSeconds };
  // Retry-After names the latest-resetting exhausted window: earlier, another one still refuses.
  const exhausted = WINDOWS.filter((w) => counts[w] >= limits[w]);
  return { allowed, limits, remaining, resetSeconds, retryAfterSeconds: Math.max(1, ...exhausted.map((w) => resetSeconds[w])) };
}

export interface QuotaStore {
  /** Atomically: admit and count, or reject and count nothing. */
  consume(bucket: string, limits: PerWindow<number>, nowMs: number): Promise<QuotaDecision>;
  close(): Promise<void>;
}
