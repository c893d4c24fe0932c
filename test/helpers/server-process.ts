// The real server as a child process (`node --import tsx src/server.ts`), for tests of what only a
// process shows: signals, start-up, sockets.
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  port: number;
  output(): string;
  exited: Promise<number | null>;
}

export async function startServer(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), timeoutMs);
    const check = () => {
      const match = /listening on http:\/\/[^:]+:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  return { child, port, baseUrl: `http://127.0.0.1:${port}`, output: () => output, exited };
}

export interface Answer {
  status: number;
  body: { success: boolean; error?: { code: string } };
}

/**
 * A GET with a key on a connection of its own (no keep-alive pool): a request that is still
 * arriving during shutdown, or, with WORKERS > 1, one that the primary hands to the next worker.
 */
export function getOnOwnConnection(server: ServerProcess, path: string, key: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${server.baseUrl}${path}`, { agent: false, headers: { authorization: `Bearer ${key}` } }, (response) => {
      let text = '';
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
    });
    request.on('error', reject);
  });
}

/**
 * A TCP relay in front of PostgreSQL that a test can cut (refuse and drop connections), restore,
 * slow down (delay what the database sends back), or freeze (connections stay open and nothing is
 * forwarded either way until thawed: a SIGSTOPped database as its clients see it, new connections
 * included; or, with freezeExisting, only the connections open now, as a network path that
 * silently drops their packets), without touching the shared server.
 */
export async function createTcpRelay(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>();
  /** Each open connection's pair, and while it is frozen what arrived for each side, in order. */
  const links = new Set<{ held?: Array<{ to: net.Socket; chunk: Buffer }> }>();
  let delayMs = 0;
  let freezeNew = false;
  let server: net.Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        const link: { held?: Array<{ to: net.Socket; chunk: Buffer }> } = freezeNew ? { held: [] } : {};
        links.add(link);
        sockets.add(client).add(upstream);
        client.on('data', (chunk: Buffer) => {
          if (link.held) link.held.push({ to: upstream, chunk });
          else upstream.write(chunk);
        });
        upstream.on('data', (chunk: Buffer) => {
          if (link.held) link.held.push({ to: client, chunk });
          else if (delayMs === 0) client.write(chunk);
          else {
            upstream.pause();
            setTimeout(() => {
              if (!client.destroyed) client.write(chunk);
              upstream.resume();
            }, delayMs);
          }
        });
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
          links.delete(link);
        };
        for (const s of [client, upstream]) s.on('error', drop).on('close', drop);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      links.clear();
      if (server?.listening) server.close(() => resolve());
      else resolve();
    });
  const freezeExisting = () => {
    for (const link of links) link.held ??= [];
  };
  await listen();
  return {
    get port() {
      return port;
    },
    slow(ms: number) {
      delayMs = ms;
    },
    freeze() {
      freezeNew = true;
      freezeExisting();
    },
    freezeExisting,
    thaw() {
      freezeNew = false;
      for (const link of links) {
        const held = link.held ?? [];
        link.held = undefined;
        for (const { to, chunk } of held) if (!to.destroyed) to.write(chunk);
      }
    },
    cut: stop,
    restore: listen,
    close: stop,
  };
}

/** Sends raw bytes and returns the raw answer (for requests fetch refuses to send). */
export function rawRequest(port: number, payload: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(payload));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => socket.destroy());
  });
}
