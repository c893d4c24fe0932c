// An answer sent before the request's body was read (413 for a body over the limit) closes the
// connection. Closing it while the client is still sending makes the kernel answer the unread bytes
// with a reset, and a reset drops what the client had received but not yet read: the client saw a
// connection reset instead of the 413 (CI, under load, saw exactly that). The server lingers
// (src/http/lingering-close.ts): it stops writing, discards what still arrives for a moment, then
// closes.
import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../src/graphql/use-document-limits.js';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { serveOverHttp } from '../helpers/http-server.js';

let port: number;
let key: string;

beforeAll(async () => {
  const db = testDb();
  key = await createKey(db);
  const server = await serveOverHttp(testApp(db));
  port = Number(new URL(server.baseUrl).port);
});

/**
 * POSTs a chunked body far over the limit, reads nothing for `deafMs` while still sending (a busy
 * client), then reads what arrived.
 */
function busyClient(deafMs: number): Promise<{ answer: string; error?: string }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let stopped = false;
    const chunk = Buffer.alloc(16 * 1024, 'a');
    socket.pause();
    socket.on('data', (data) => {
      answer += data.toString();
      if (answer.includes('\r\n\r\n') && answer.includes('REQUEST_TOO_LARGE')) finish();
    });
    const finish = (error?: Error) => {
      if (stopped) return;
      stopped = true;
      socket.destroy();
      resolve({ answer, error: error?.message });
    };
    socket.on('error', finish);
    socket.on('close', () => finish());
    socket.on('connect', () => {
      socket.write(
        `POST /graphql HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      const started = Date.now();
      const pump = () => {
        if (stopped) return;
        if (Date.now() - started > deafMs) {
          socket.resume();
          return;
        }
        socket.write(`${chunk.length.toString(16)}\r\n`);
        socket.write(chunk);
        socket.write('\r\n');
        setTimeout(pump, 5);
      };
      pump();
    });
  });
}

/** POSTs twice the limit in one chunk, then ends the body (or sends nothing more), and reads until the server closes. */
function overLimit(end: boolean): Promise<{ answer: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (data) => {
      answer += data.toString();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve({ answer }));
    socket.on('connect', () => {
      const body = Buffer.alloc(MAX_BODY_BYTES * 2, 'a');
      socket.write(
        `POST /graphql HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      socket.write(`${body.length.toString(16)}\r\n`);
      socket.write(body);
      socket.write('\r\n');
      if (end) socket.write('0\r\n\r\n');
    });
  });
}

describe('an answer sent before the body was read', () => {
  it('a whole body over the limit: 413 as soon as it has arrived, and the connection closes', async () => {
    const { answer } = await overLimit(true);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('REQUEST_TOO_LARGE');
  });

  it('a client that stops sending mid-body past the limit gets its 413, and the server closes the connection', async () => {
    const { answer } = await overLimit(false);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('REQUEST_TOO_LARGE');
  });

  it('reaches a client that is still sending and reads it late: 413, not a connection reset', async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const { answer, error } = await busyClient(300);
      expect(answer, `attempt ${attempt}: ${error ?? 'no error'}`).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer).toContain('REQUEST_TOO_LARGE');
      expect(answer.toLowerCase()).toContain('connection: close');
    }
  });
});
