// What one request may take of what every key shares: admission (authentication, then the key's
// quota), the key's concurrent database work (KeyConcurrency), and the event loop's turns (time
// slices, so no request holds the thread others wait for).
//
// Whether a request may proceed: authentication, then the key's quota (decisions section 1's order:
// route -> authentication -> rate limit -> scope). Decided once per HTTP request, whichever layer
// asks first (REST facade or GraphQL endpoint), so one request counts once; the decision is kept
// in the request state (request/state.ts) for response headers, logs and metrics.
import type { ApiKeyPrincipal, AuthFailure, RequestAuthenticator } from '../auth/api-keys.js';
import { bindKey } from '../db/client.js';
import { isDatabaseUnavailable } from '../db/errors.js';
import { ERRORS, type ErrorCode } from '../domain/error-catalogue.js';
import type { KeyTierValue } from '../domain/values.js';
import { TIER_LIMITS } from '../domain/values.js';
import { stateOf } from '../request/state.js';
import { MemoryQuotaStore } from './memory-store.js';
import { type PerWindow, type QuotaDecision, type QuotaStore, WINDOW_MS, WINDOWS } from './windows.js';

/** Why a request was refused: the metrics' decision labels (app-plugins.ts). */
export type Refusal = 'unauthenticated' | 'auth_rate_limited' | 'rate_limited' | 'unavailable';

export type Admission =
  | { ok: true; key: ApiKeyPrincipal; quota?: QuotaDecision }
  | { ok: false; refusal: 'unauthenticated'; failure: AuthFailure }
  /** Failed authentications from the client address are over their limit; no key. */
  | { ok: false; refusal: 'auth_rate_limited'; retryAfterSeconds: number }
  /** The key's quota is used up; the key stays named, for logs and metrics. */
  | { ok: false; refusal: 'rate_limited'; key: ApiKeyPrincipal; retryAfterSeconds: number; quota: QuotaDecision }
  /** The key could not be checked: the database is unreachable. */
  | { ok: false; refusal: 'unavailable' };

export type Refused = Exclude<Admission, { ok: true }>;

declare module '../request/state.js' {
  interface RequestState {
    /** The admission decision, taken once, whichever layer asks first. */
    admission?: Promise<Admission>;
    /** The same decision once taken, read synchronously by response headers, logs and metrics. */
    admitted?: Admission;
  }
}

export type AdmissionDecision = 'admitted' | Refusal;

/** What logs, metrics and traces say of a request's admission: never the key itself. */
export interface AdmissionSummary {
  decision: AdmissionDecision;
  keyId?: string;
  /** The key's tier, `none` without an authenticated key. */
  tier: string;
}

/**
 * The admission decided for a request, if one was (health, docs, metrics and unknown paths have
 * none). A quota 429 names its key; an auth-failure 429 never authenticated.
 */
export function admissionOf(request: Request): AdmissionSummary | undefined {
  const admission = stateOf(request).admitted;
  if (!admission) return undefined;
  if (admission.ok) return { decision: 'admitted', keyId: admission.key.id, tier: admission.key.tier };
  if (admission.refusal === 'rate_limited') return { decision: 'rate_limited', keyId: admission.key.id, tier: admission.key.tier };
  return { decision: admission.refusal, tier: 'none' };
}

export interface AdmissionOptions {
  authenticate: RequestAuthenticator;
  quotas: QuotaStore;
  /** Failed authentications allowed per client IP and window before answering 429. */
  authFailureLimits?: PerWindow<number>;
  now: () => number;
}

export const DEFAULT_AUTH_FAILURE_LIMITS: PerWindow<number> = { minute: 30, hour: 300, day: 2_000 };

export interface Admitter {
  /** Decides once per request; later calls for the same request return the same decision. */
  admit(request: Request): Promise<Admission>;
}

export function createAdmission(options: AdmissionOptions): Admitter {
  // Brute-force protection is per instance: it needs no coordination to stop a guesser, and a
  // guess of a 190-bit key cannot succeed anyway; it bounds the lookups one client can cause.
  const failures = new MemoryQuotaStore();
  const failureLimits = options.authFailureLimits ?? DEFAULT_AUTH_FAILURE_LIMITS;

  async function admit(request: Request): Promise<Admission> {
    const nowMs = options.now();
    // Authenticate first: a valid key is never refused because of failures from its address
    // (others behind the same NAT or proxy, or someone naming that address); its own quota applies.
    // Only a FAILED attempt from an address over the limit is answered 429 instead of 401. A guess
    // of a 190-bit key cannot succeed, so what the limit must bound is the work a guesser causes,
    // and that stays bounded although every attempt is now looked at: malformed tokens never reach
    // the database, a repeated token is answered from the resolver's negative cache, concurrent
    // lookups of one token share one query, and each new well-formed token costs one indexed
    // lookup by hash - no more than any keyed request costs before its quota is known.
    let auth: Awaited<ReturnType<RequestAuthenticator>>;
    try {
      auth = await options.authenticate(request);
    } catch (error) {
      if (isDatabaseUnavailable(error)) return { ok: false, refusal: 'unavailable' };
      throw error;
    }
    if (!auth.ok) {
      // Counts the failure while the address is under its limits; over them, the attempt is
      // refused and counted nowhere (the hour and day windows count answered attempts only).
      const counted = failures.consumeSync(stateOf(request).clientIp, failureLimits, nowMs);
      if (!counted.allowed) return { ok: false, refusal: 'auth_rate_limited', retryAfterSeconds: counted.retryAfterSeconds ?? 60 };
      return { ok: false, refusal: 'unauthenticated', failure: auth.failure };
    }
    // From here the request's database work is its key's, served in turn with other keys' (db/client.ts).
    bindKey(request, auth.key.id);
    const limits = TIER_LIMITS[auth.key.tier];
    if (!limits) return { ok: true, key: auth.key };
    const quota = await options.quotas.consume(`key:${auth.key.id}`, limits, nowMs);
    if (!quota.allowed) return { ok: false, refusal: 'rate_limited', key: auth.key, retryAfterSeconds: quota.retryAfterSeconds ?? 1, quota };
    return { ok: true, key: auth.key, quota };
  }

  return oncePerRequest(admit);
}

/** An admitter that decides once per request, keeping the decision in the request's state. */
function oncePerRequest(admit: (request: Request) => Promise<Admission>): Admitter {
  return {
    admit(request) {
      const state = stateOf(request);
      state.admission ??= admit(request).then((result) => {
        state.admitted = result;
        return result;
      });
      return state.admission;
    },
  };
}

/**
 * An admitter for requests admitted elsewhere: the heavy lane's worker (lanes/heavy-lane.ts) serves
 * requests the main thread has already authenticated and counted, and must not count them again.
 * A request without a decision (none can arrive there) is refused as unavailable, never let through.
 */
export function presetAdmitter(decisionOf: (request: Request) => Admission | undefined): Admitter {
  return oncePerRequest(async (request) => {
    const decision = decisionOf(request) ?? { ok: false, refusal: 'unavailable' };
    if (decision.ok) bindKey(request, decision.key.id);
    return decision;
  });
}

/** What a refusal answers, on REST and GraphQL alike (the status is the code's, in the catalogue). */
export function refusalAnswer(refused: Refused): { code: ErrorCode; message: string; retryAfterSeconds?: number; headers: Record<string, string> } {
  switch (refused.refusal) {
    case 'unauthenticated': {
      const { code, message, challenge } = refused.failure;
      return { code, message, headers: { 'WWW-Authenticate': challenge } };
    }
    case 'auth_rate_limited':
    case 'rate_limited':
      return { code: 'RATE_LIMITED', message: ERRORS.RATE_LIMITED.message, retryAfterSeconds: refused.retryAfterSeconds, headers: {} };
    case 'unavailable':
      return { code: 'SERVICE_UNAVAILABLE', message: ERRORS.SERVICE_UNAVAILABLE.message, headers: {} };
  }
}

/** The header names' spelling of each window (`X-RateLimit-Remaining-Minute`). */
const WINDOW_TITLES: PerWindow<string> = { minute: 'Minute', hour: 'Hour', day: 'Day' };

/**
 * The rate-limit headers of a decision (none for the Unlimited tier or without a key): decisions
 * section 5's `X-RateLimit-{Limit,Remaining}-*` plus `X-RateLimit-Reset-*` (seconds), and the same
 * figures as draft-ietf-httpapi-ratelimit-headers-10 fields, one quota policy per window, named by
 * the window: `RateLimit-Policy` (q = quota, w = window seconds) and `RateLimit` (r = remaining,
 * t = seconds until reset). Both are Structured Field Lists of Items whose values are sf-strings;
 * the policy names need no escaping, so they are written directly.
 */
export function rateLimitHeaders(quota: QuotaDecision | undefined): Record<string, string> {
  if (!quota) return {};
  const headers: Record<string, string> = {};
  for (const w of WINDOWS) {
    headers[`X-RateLimit-Limit-${WINDOW_TITLES[w]}`] = String(quota.limits[w]);
    headers[`X-RateLimit-Remaining-${WINDOW_TITLES[w]}`] = String(quota.remaining[w]);
    headers[`X-RateLimit-Reset-${WINDOW_TITLES[w]}`] = String(quota.resetSeconds[w]);
  }
  headers['RateLimit-Policy'] = WINDOWS.map((w) => `"${w}";q=${quota.limits[w]};w=${WINDOW_MS[w] / 1000}`).join(', ');
  headers.RateLimit = WINDOWS.map((w) => `"${w}";r=${quota.remaining[w]};t=${quota.resetSeconds[w]}`).join(', ');
  return headers;
}

// The per-key concurrency limit: how many units of database work (a document's root fields, by
// their declared databaseCost) one API key may have running at once in this process.
//
// Per process, not shared through Redis: what it protects is this process's connection pool, which
// another instance's requests never touch; a fleet-wide count would refuse a key on an idle instance
// because it is busy on another, and it would add a Redis round trip (and a failure mode) to every
// request. With N instances behind a balancer a key may hold N times its limit across the fleet,
// each instance bounded on its own.

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

let slicing = true;

/**
 * Turns slices off for this thread: long work runs in one go, long lists are handed to GraphQL as
 * they are. For the heavy lane's worker (heavy-lane-worker.ts), which serves nothing but long work
 * and where no other key's request waits behind it: there a slice only costs - a promise per bucket
 * of a 17,520-bucket list and a turn of the event loop per pause took about a third of a year of
 * hourly buckets' CPU (170-190 against 225-280 ms per request, bench/results/2026-12-08-100k-heavy-lane-without-slices.md).
 */
export function runWithoutSlices(): void {
  slicing = false;
}

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
    return slicing && performance.now() - this.started >= SLICE_MS;
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
  if (!slicing || items.length <= ITEMS_PER_SLICE) return items;
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
