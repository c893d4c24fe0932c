// Redis for the tests that need it: REDIS_URL, else a local default. When none answers, those
// tests are skipped, and say so.
import net from 'node:net';
import { Redis } from 'ioredis';

export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function redisReachable(url = redisUrl): Promise<boolean> {
  const probe = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 1_000, retryStrategy: () => null });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

export async function requireRedis(what: string): Promise<boolean> {
  const ok = await redisReachable();
  if (!ok) console.warn(`SKIPPED (${what}): no Redis reachable at ${redisUrl}; set REDIS_URL to run these tests.`);
  return ok;
}

/**
 * A TCP relay in front of Redis that a test can cut and restore, to simulate Redis going away
 * without stopping the shared server.
 */
export async function createRedisRelay(target = redisUrl): Promise<{ url: string; cut(): void; restore(): Promise<void>; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let listenPort = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(port || 6379), hostname);
        sockets.add(client).add(upstream);
        client.pipe(upstream).pipe(client);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
      });
      server.listen(listenPort, '127.0.0.1', () => {
        listenPort = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  await listen();
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      server?.close(() => resolve());
    });
  return {
    url: `redis://127.0.0.1:${listenPort}`,
    cut: () => void stop(),
    restore: listen,
    close: stop,
  };
}
