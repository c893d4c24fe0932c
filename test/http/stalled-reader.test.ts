// A client that stops reading an answer is cut off after the stall bound, whatever is left to send:
// an export whose rows have all left PostgreSQL (at 100,000 rows the whole file fits in the
// kernel's and Node's buffers) otherwise held its connection and buffers for as long as the client
// stayed. The answer here is an endless stream, so only the bound can end it; a reader that keeps
// reading, however slowly, is never cut.
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeListener, type NodeAdapter } from '../../src/http/node-listener.js';
import { captureLog } from '../observability/support.js';

const STALL_MS = 400;

/** An adapter whose every answer is an endless stream of 64 KiB chunks. */
const endless: NodeAdapter = {
  handleNodeRequestAndResponse: () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    return new Response(new ReadableStream<Uint8Array>({ pull: (controller) => controller.enqueue(chunk) }), {
      status: 200,
      headers: { 'Content-Type': 'application/octet-stream' },
    });
  },
};

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

async function listen(stallTimeoutMs: number | undefined) {
  const log = captureLog('info');
  server = http.createServer(createNodeListener(endless, { logger: log.logger, trustProxy: false, stallTimeoutMs }));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, log };
}

/** The server's open connections. */
const openConnections = () => new Promise<number>((resolve, reject) => server!.getConnections((error, count) => (error ? reject(error) : resolve(count))));

/**
 * Connects, asks, takes the first bytes and then reads no more (a paused socket stops reading, so
 * TCP backpressure stops the server's writes; it would not notice a close either, so the server's
 * side is watched). Resolves when the server has no connection left, or with `false` after `waitMs`.
 */
async function readThenStall(port: number, waitMs: number): Promise<{ closed: boolean }> {
  const socket = net.connect(port, '127.0.0.1', () => socket.write('GET /export HTTP/1.1\r\nHost: localhost\r\n\r\n'));
  socket.on('error', () => {});
  await new Promise<void>((resolve) =>
    socket.once('data', () => {
      socket.pause();
      resolve();
    }),
  );
  const until = Date.now() + waitMs;
  try {
    while (Date.now() < until) {
      if ((await openConnections()) === 0) return { closed: true };
      await new Promise((r) => setTimeout(r, 50));
    }
    return { closed: false };
  } finally {
    socket.destroy();
  }
}

describe('a client that stops reading an answer', () => {
  it('is cut off by the server after the stall bound, and the cut is logged', async () => {
    const { port, log } = await listen(STALL_MS);
    // Generous: on a loaded machine the bound fires late, never early.
    const outcome = await readThenStall(port, 30_000);
    expect(outcome.closed).toBe(true);
    expect(log.entries().some((e) => e.msg === 'client accepted nothing: answer broken off')).toBe(true);
  });

  it('is kept without a bound (the connection is still open when the client gives up)', async () => {
    const { port } = await listen(undefined);
    const outcome = await readThenStall(port, 3 * STALL_MS + 1_000);
    expect(outcome.closed).toBe(false);
  });

  it('is never cut while it keeps reading, however slowly', async () => {
    // A bound ten times the reader's pause: on a loaded machine (a CPU hog on every core) the
    // reader's timers fired late enough that a 400 ms bound saw a 100 ms reader stall.
    const bound = 3_000;
    const { port } = await listen(bound);
    const socket = net.connect(port, '127.0.0.1', () => socket.write('GET /export HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    let closed = false;
    socket.on('close', () => {
      closed = true;
    });
    socket.on('error', () => {});
    // Reads in short bursts, well inside the bound, for longer than the bound.
    socket.pause();
    for (let i = 0; i < 12; i++) {
      await new Promise((r) => setTimeout(r, bound / 10));
      socket.read();
      socket.resume();
      await new Promise((r) => setImmediate(r));
      socket.pause();
    }
    expect(closed).toBe(false);
    expect(await openConnections()).toBe(1);
    socket.destroy();
  });
});
