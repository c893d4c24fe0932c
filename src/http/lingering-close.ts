// Lingering close (RFC 9112 section 9.6): a connection the server closes while the client is still
// sending its body - a 413 sent once the body passed the limit - is closed in stages. Closing a
// socket with unread bytes makes the kernel answer them with a reset, and a reset makes the
// client's kernel drop what it had received but not yet read: the answer. The client then sees a
// connection reset instead of the 413 (CI under load saw exactly that). So the server stops writing
// (FIN), reads what still arrives into nothing for at most LINGER_MS or LINGER_BYTES, then closes,
// as nginx's lingering_close does.
//
// Node has no option for this. Two of its steps close at once and are replaced per request: the
// body reader that stopped early destroys the request, and Node then destroys its socket (an
// incomplete IncomingMessage takes its socket with it); and once the answer is written, Node closes
// the connection with socket.destroySoon(). For a request whose body has not fully arrived, the
// first becomes "read the rest into nothing" and the second the staged close.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

const LINGER_MS = 1_000;
/** A client still sending this much after the answer is not reading it: it is cut off. */
const LINGER_BYTES = 8 * 1024 * 1024;

/** The request each socket carries now (a keep-alive socket carries several in turn). */
const current = new WeakMap<Socket, IncomingMessage>();
const discarding = new WeakSet<IncomingMessage>();

/** Reads the rest of the request's body into nothing, cutting the connection past LINGER_BYTES. */
function discardRest(request: IncomingMessage, socket: Socket): void {
  if (discarding.has(request)) return;
  discarding.add(request);
  let read = 0;
  request.removeAllListeners('data');
  request.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > LINGER_BYTES) socket.destroy();
  });
  request.resume();
}

export function lingerOnClose(request: IncomingMessage, response: ServerResponse): void {
  const socket = request.socket;
  const first = !current.has(socket);
  current.set(socket, request);

  const destroy = request.destroy.bind(request);
  request.destroy = (error?: Error) => {
    if (request.complete || socket.destroyed || response.writableFinished) return destroy(error);
    discardRest(request, socket);
    return request;
  };

  if (!first) return;
  const destroySoon = socket.destroySoon.bind(socket);
  socket.destroySoon = () => {
    const incoming = current.get(socket);
    if (!incoming || incoming.complete || socket.destroyed) return destroySoon();
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    discardRest(incoming, socket);
  };
}
