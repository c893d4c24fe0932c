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

/** The decision for counts read (if rejected) or reached (if admitted) by a store. */
export function decide(allowed: boolean, counts: PerWindow<number>, limits: PerWindow<number>, nowMs: number): QuotaDecision {
  const remaining = {} as PerWindow<number>;
  for (const w of WINDOWS) remaining[w] = Math.max(0, limits[w] - counts[w]);
  if (allowed) return { allowed, limits, remaining };
  const exhausted = WINDOWS.filter((w) => counts[w] >= limits[w]);
  const latestReset = Math.max(...exhausted.map((w) => windowResetMs(w, nowMs)));
  return { allowed, limits, remaining, retryAfterSeconds: Math.max(1, Math.ceil((latestReset - nowMs) / 1000)) };
}

export interface QuotaStore {
  /** Atomically: admit and count, or reject and count nothing. */
  consume(bucket: string, limits: PerWindow<number>, nowMs: number): Promise<QuotaDecision>;
  close(): Promise<void>;
}
