// The Redis connection for shared quotas and field limits. Commands fail fast while Redis is away
// (no offline queue, one try), so requests fall back to in-memory counting instead of waiting;
// ioredis keeps reconnecting in the background. How long a command may take is the circuit
// breaker's business (redis-breaker.ts), not ioredis's commandTimeout, whose timer could fail a
// command whose reply is already in the socket buffer.
import { Redis } from 'ioredis';

export function createRedisClient(url: string, onError: (error: Error) => void = () => {}): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    lazyConnect: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  redis.on('error', onError);
  return redis;
}

/** Resolves once the client is ready, or after `timeoutMs` (quotas then start in memory). */
export function whenReady(redis: Redis, timeoutMs = 2_000): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      resolve(false);
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    redis.once('ready', onReady);
  });
}
