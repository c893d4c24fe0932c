// A circuit breaker around one Redis connection, shared by everything that uses it (per-key quotas
// and per-field limits), so that a slow or hung Redis costs requests nothing once it is known to be
// away, and a command the client gave up on never counts when Redis runs it later.
//
// closed:    commands go to Redis; after `failureThreshold` consecutive failures or timeouts -> open.
// open:      every command fails at once (callers count in memory); after `cooldownMs` -> half-open.
// half-open: one probe (TIME, which also re-measures the clock offset) runs in the background while
//            commands keep failing at once; the probe answering -> closed, failing -> open again.
// A reconnect ('ready') probes at once. Each transition logs a warning.
//
// Written here rather than taken from a library (opossum, cockatiel): the breaker must also own the
// command deadline and the clock offset that make a late script a no-op, and defer its timeout
// verdict by one event-loop turn; a generic breaker wraps a promise and could do neither.
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';

/**
 * Our side of the deadline: the monotonic clock on the wall clock's scale, unaffected by jumps of
 * the wall clock (and by tests that freeze Date). Its slow drift is corrected by measuring Redis's
 * clock again every CLOCK_REFRESH_MS.
 */
const clockNow = () => performance.timeOrigin + performance.now();
const CLOCK_REFRESH_MS = 60_000;

export type BreakerState = 'starting' | 'closed' | 'open' | 'half-open';

export interface RedisBreakerOptions {
  /** How long a request waits for Redis before counting in memory instead. */
  commandTimeoutMs?: number;
  /** Consecutive failures or timeouts that open the circuit. */
  failureThreshold?: number;
  /** How long the circuit stays open before a probe. */
  cooldownMs?: number;
  warn?: (message: string) => void;
}

export const REDIS_BREAKER_DEFAULTS = { commandTimeoutMs: 500, failureThreshold: 3, cooldownMs: 5_000 } as const;

/** Redis was not asked, did not answer in time, or refused: the caller counts in memory. */
export class RedisUnavailable extends Error {
  override name = 'RedisUnavailable';
}

/**
 * Lua prologue of every script run through the breaker: ARGV[1] is the deadline in Redis's clock
 * (ms). Past it, the client has given up (or is about to) and counted in memory, so the script must
 * do nothing: it answers an error instead. This is what makes scripts that queued up while Redis
 * was frozen (SIGSTOP, a stalled network) harmless when Redis resumes.
 */
export const DEADLINE_GUARD = `
local clock = redis.call('TIME')
if tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000) > tonumber(ARGV[1]) then
  return redis.error_reply('DEADLINE_PASSED the client stopped waiting for this command')
end
`;

const breakers = new WeakMap<Redis, RedisBreaker>();

/** The breaker of a connection: configured by the first call (serve.ts), shared by every later one. */
export function redisBreaker(redis: Redis, options: RedisBreakerOptions = {}): RedisBreaker {
  let breaker = breakers.get(redis);
  if (!breaker) {
    breaker = new RedisBreaker(redis, options);
    breakers.set(redis, breaker);
  }
  return breaker;
}

export class RedisBreaker {
  private current: BreakerState = 'starting';
  private failures = 0;
  /** Redis's clock minus ours (ms), and how far off that estimate may be. */
  private offsetMs = 0;
  private offsetErrorMs = 0;
  private probing: Promise<void> | undefined;
  private cooldown: NodeJS.Timeout | undefined;
  private readonly refresh: NodeJS.Timeout;
  private readonly timeoutMs: number;
  private readonly threshold: number;
  private readonly cooldownMs: number;
  private readonly warn: (message: string) => void;
  private readonly listeners = new Set<(state: BreakerState) => void>();

  constructor(
    private readonly redis: Redis,
    options: RedisBreakerOptions = {},
  ) {
    this.timeoutMs = options.commandTimeoutMs ?? REDIS_BREAKER_DEFAULTS.commandTimeoutMs;
    this.threshold = options.failureThreshold ?? REDIS_BREAKER_DEFAULTS.failureThreshold;
    this.cooldownMs = options.cooldownMs ?? REDIS_BREAKER_DEFAULTS.cooldownMs;
    this.warn = options.warn ?? (() => {});
    // A (re)connection may be to another server or after a restart: measure its clock again.
    redis.on('ready', () => {
      if (this.current !== 'closed') void this.probe();
    });
    redis.on('end', () => {
      clearTimeout(this.cooldown);
      clearInterval(this.refresh);
    });
    if (redis.status === 'ready') void this.probe();
    this.refresh = setInterval(() => {
      if (this.current === 'closed') this.measureClock().catch(() => {});
    }, CLOCK_REFRESH_MS);
    this.refresh.unref();
  }

  get state(): BreakerState {
    return this.current;
  }

  /** Resolves once the circuit is closed (true), or false after `timeoutMs`. */
  whenClosed(timeoutMs: number): Promise<boolean> {
    if (this.current === 'closed') return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (closed: boolean) => {
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve(closed);
      };
      const listener = (state: BreakerState) => state === 'closed' && done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.listeners.add(listener);
    });
  }

  /**
   * Runs one command with a deadline (pass it as the script's ARGV[1]; see DEADLINE_GUARD). Fails
   * with RedisUnavailable at once while the circuit is not closed, or after the command timeout.
   */
  async run<T>(command: (deadline: number) => Promise<T>): Promise<T> {
    if (this.current === 'starting') await this.probing;
    if (this.current !== 'closed') throw new RedisUnavailable(`Redis circuit ${this.current}`);
    try {
      const result = await this.withTimeout(command(this.deadline()));
      this.failures = 0;
      return result;
    } catch (error) {
      this.failed(error);
      throw error instanceof RedisUnavailable ? error : new RedisUnavailable(messageOf(error), { cause: error });
    }
  }

  /**
   * The script's deadline in Redis's clock. The client waits `timeoutMs`; the script may start up to
   * a fifth of that earlier (at least 50 ms), minus the uncertainty of the clock offset: that margin
   * is the reply's way back, so a script that counted has its answer at the client before the client
   * gives up (a late timer is handled in withTimeout).
   */
  private deadline(): number {
    const margin = Math.max(50, this.timeoutMs / 5) + this.offsetErrorMs;
    return Math.floor(clockNow() + this.offsetMs + this.timeoutMs - margin);
  }

  /**
   * Our own timer rather than ioredis's commandTimeout: timers run before I/O callbacks in a loop
   * turn, so on a busy event loop a timer can fire late while the reply already sits in the socket
   * buffer. The verdict waits one turn (setImmediate runs after the poll phase has read the socket),
   * so a command that was answered in time is never failed, and never counted again in memory.
   */
  private withTimeout<T>(pending: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(
        () =>
          setImmediate(() => {
            if (settled) return;
            settled = true;
            reject(new RedisUnavailable(`no answer within ${this.timeoutMs} ms`));
          }),
        this.timeoutMs,
      );
      pending.then(
        (value) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  private failed(error: unknown): void {
    this.failures++;
    if (this.current === 'closed' && this.failures >= this.threshold) this.open(`${this.failures} consecutive failures, last: ${messageOf(error)}`);
  }

  private open(reason: string): void {
    this.transition('open', `Redis circuit open (${reason}): quotas and field limits are counted in memory; probing again in ${this.cooldownMs} ms`);
    clearTimeout(this.cooldown);
    this.cooldown = setTimeout(() => void this.probe(), this.cooldownMs);
    this.cooldown.unref();
  }

  /** TIME answers -> closed, with the clock offset measured from it; anything else -> open. */
  private probe(): Promise<void> {
    if (this.probing) return this.probing;
    if (this.current === 'open') this.transition('half-open', 'Redis circuit half-open: probing Redis');
    clearTimeout(this.cooldown);
    this.probing = this.measureClock()
      .then(
        () => {
          this.failures = 0;
          this.transition('closed', 'Redis circuit closed: Redis answers again; quotas and field limits are shared again');
        },
        (error: unknown) => this.open(`probe failed: ${messageOf(error)}`),
      )
      .finally(() => {
        this.probing = undefined;
      });
    return this.probing;
  }

  /** A few TIME round trips; the shortest bounds the offset's error best (half its round trip). */
  private async measureClock(): Promise<void> {
    let best: { offset: number; error: number } | undefined;
    for (let i = 0; i < 3 && (!best || best.error > 5); i++) {
      const sentAt = clockNow();
      const [seconds, micros] = await this.withTimeout(this.redis.time());
      const receivedAt = clockNow();
      const redisMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
      const error = (receivedAt - sentAt) / 2 + 1;
      if (!best || error < best.error) best = { offset: redisMs - (sentAt + receivedAt) / 2, error };
    }
    if (!best) throw new RedisUnavailable('no clock reading');
    // A refresh taken on a busy moment (a long round trip) would widen the margin: while closed,
    // keep the earlier estimate unless the new one is about as precise.
    if (this.current !== 'closed' || best.error <= Math.max(20, this.offsetErrorMs)) {
      this.offsetMs = best.offset;
      this.offsetErrorMs = best.error;
    }
  }

  private transition(to: BreakerState, message: string): void {
    const from = this.current;
    this.current = to;
    // Starting up and finding Redis there is no news worth a warning.
    if (!(from === 'starting' && to === 'closed')) this.warn(message);
    for (const listener of this.listeners) listener(to);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
