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
 * without stopping the shared server; freeze and thaw (a frozen relay keeps its connections open
 * and forwards nothing, in either direction, until thawed: what a client sees of a Redis stopped by
 * SIGSTOP, including the commands Redis then runs late); and that records the commands its clients
 * send (names, upper case, in order).
 */
export async function createRedisRelay(target = redisUrl): Promise<{
  url: string;
  cut(): void;
  restore(): Promise<void>;
  close(): Promise<void>;
  freeze(): void;
  thaw(): void;
  commands: string[];
}> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  const commands: string[] = [];
  let frozen = false;
  const held: Array<() => void> = [];
  let server: net.Server | undefined;
  let listenPort = 0;
  const forward = (from: net.Socket, to: net.Socket) =>
    from.on('data', (chunk: Buffer) => {
      const send = () => {
        if (!to.destroyed) to.write(chunk);
      };
      if (frozen) held.push(send);
      else send();
    });
  const listen = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(port || 6379), hostname);
        sockets.add(client).add(upstream);
        const parser = commandNames((name) => commands.push(name));
        client.on('data', parser);
        forward(client, upstream);
        forward(upstream, client);
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
      held.length = 0;
      frozen = false;
      if (server?.listening) server.close(() => resolve());
      else resolve();
    });
  return {
    url: `redis://127.0.0.1:${listenPort}`,
    cut: () => void stop(),
    restore: listen,
    close: stop,
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      for (const send of held.splice(0)) send();
    },
    commands,
  };
}

/**
 * Names of the commands in a client's RESP stream (arrays of bulk strings, as ioredis sends them),
 * however the stream is split into chunks.
 */
function commandNames(onCommand: (name: string) => void): (chunk: Buffer) => void {
  let buffer = Buffer.alloc(0);
  return (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const parsed = parseCommand(buffer);
      if (!parsed) return;
      onCommand(parsed.name);
      buffer = buffer.subarray(parsed.length);
    }
  };
}

function parseCommand(buffer: Buffer): { name: string; length: number } | undefined {
  const line = (at: number) => {
    const end = buffer.indexOf('\r\n', at);
    return end < 0 ? undefined : { text: buffer.toString('latin1', at, end), next: end + 2 };
  };
  const header = line(0);
  if (!header) return undefined;
  if (!header.text.startsWith('*')) throw new Error(`unexpected RESP from a client: ${header.text.slice(0, 40)}`);
  let at = header.next;
  let name = '';
  for (let i = 0; i < Number(header.text.slice(1)); i++) {
    const size = line(at);
    if (!size) return undefined;
    const length = Number(size.text.slice(1));
    if (buffer.length < size.next + length + 2) return undefined;
    if (i === 0) name = buffer.toString('latin1', size.next, size.next + length).toUpperCase();
    at = size.next + length + 2;
  }
  return { name, length: at };
}
