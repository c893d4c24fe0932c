// Redis when it answers, this process's memory when it does not: a Redis outage never turns into
// 5xx responses; each instance then enforces the limits on its own until Redis is back. How long
// a request waits before falling back, and when Redis is tried again, is the circuit breaker's
// business (redis-breaker.ts): while it is open the primary fails at once.
import type { PerWindow, QuotaStore } from './windows.js';

export class FallbackQuotaStore implements QuotaStore {
  private degraded = false;

  constructor(
    private readonly primary: QuotaStore,
    private readonly fallback: QuotaStore,
    private readonly warn: (message: string) => void,
  ) {}

  async consume(bucket: string, limits: PerWindow<number>, nowMs: number) {
    try {
      const decision = await this.primary.consume(bucket, limits, nowMs);
      if (this.degraded) {
        this.degraded = false;
        this.warn('Redis is reachable again: quotas are shared across instances again');
      }
      return decision;
    } catch (error) {
      if (!this.degraded) {
        this.degraded = true;
        this.warn(`Redis unreachable (${error instanceof Error ? error.message : String(error)}): quotas are counted in memory per instance until it returns`);
      }
      return this.fallback.consume(bucket, limits, nowMs);
    }
  }

  get usingFallback(): boolean {
    return this.degraded;
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), this.fallback.close()]);
  }
}
