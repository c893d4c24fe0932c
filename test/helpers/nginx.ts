// Debian's nginx as a shared cache in front of the app, for the tests of what a caching proxy may
// keep: `proxy_cache` with the default key (scheme, host and URI: not Authorization), storing 200s
// and 401s for ten minutes unless the answer forbids it, and saying in X-Cache-Status whether an
// answer came from the cache. Where nginx is not installed a test says it was skipped
// (`apt-get install -y nginx`; .ci/run installs it).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const INSTALLED = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((file) => existsSync(file));

/** The nginx executable, or undefined after saying that `what` is skipped. */
export function nginxFor(what: string): string | undefined {
  if (!INSTALLED) console.warn(`SKIPPED (${what}): no nginx found; install it with \`apt-get install -y nginx\`.`);
  return INSTALLED;
}

export interface CachingProxy {
  baseUrl: string;
  /** nginx's error log, for a failing test's message. */
  log(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function config(dir: string, port: number, upstream: string): string {
  const at = (name: string) => path.join(dir, name);
  return `
${process.getuid?.() === 0 ? 'user root;' : ''}
daemon off;
master_process off;
worker_processes 1;
pid ${at('nginx.pid')};
error_log ${at('error.log')} warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${at('client_body')};
  proxy_temp_path ${at('proxy')};
  fastcgi_temp_path ${at('fastcgi')};
  uwsgi_temp_path ${at('uwsgi')};
  scgi_temp_path ${at('scgi')};
  proxy_cache_path ${at('cache')} levels=1:2 keys_zone=api:1m max_size=64m inactive=10m use_temp_path=off;
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass ${upstream};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_cache api;
      proxy_cache_valid 200 401 10m;
      add_header X-Cache-Status $upstream_cache_status always;
    }
  }
}
`;
}

/** nginx on a free loopback port, caching `upstream` (`http://127.0.0.1:<port>`), until stop(). */
export async function startCachingProxy(nginx: string, upstream: string): Promise<CachingProxy> {
  const dir = await mkdtemp(path.join(tmpdir(), 'nginx-cache-'));
  const port = await freePort();
  const file = path.join(dir, 'nginx.conf');
  await writeFile(file, config(dir, port, upstream));
  let output = '';
  const child: ChildProcess = spawn(nginx, ['-e', path.join(dir, 'startup.log'), '-p', dir, '-c', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  for (let attempt = 0; ; attempt++) {
    const listening = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(socket.end() !== undefined));
      socket.once('error', () => resolve(false));
    });
    if (listening) break;
    if (child.exitCode !== null || attempt > 100) {
      await stop();
      throw new Error(`nginx did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { baseUrl: `http://127.0.0.1:${port}`, log: () => output, stop };
}
