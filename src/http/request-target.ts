// The route comes from the request target alone. Yoga's Node adapter builds the request URL as
// `http://` + Host + target, so a Host carrying a path or query (`x/graphql?query=...&`) moved
// the request to another route than the one a proxy's path rules saw, and a malformed Host made
// the URL unparseable (a 500 before any plugin runs). Here the Host must be `host[:port]` and the
// target is reduced to origin-form (`/path?query`), so the URL's path is always the target's.
import type { IncomingMessage } from 'node:http';
import { isIPv6 } from 'node:net';
import { headerFieldsProblem } from './header-fields.js';
import type { EdgeError } from './raw-envelope.js';

export type TargetCheck = { ok: true; target: string } | { ok: false; error: EdgeError };

const badRequest = (message: string): TargetCheck => ({ ok: false, error: { code: 'BAD_REQUEST', message } });

// RFC 3986 reg-name narrowed to what hostnames use (letters, digits, `-`, `.`, `_`): its other
// characters (sub-delims, %-escapes) are never a real host and some make WHATWG URLs fail. IPv4
// fits the same pattern; an IP literal is `[IPv6]` (no zone ids: URLs cannot hold them).
const HOST = /^(?:[A-Za-z0-9._-]{1,253}|\[([0-9A-Fa-f:.]{2,45})\])(?::\d{1,5})?$/;
const ABSOLUTE = /^https?:\/\//i;

function hostProblem(host: string): string | undefined {
  const match = HOST.exec(host);
  const ipv6 = match?.[1];
  if (!match || (ipv6 !== undefined && !isIPv6(ipv6)) || !URL.canParse(`http://${host}/`)) {
    return 'The Host header must be host[:port] (a name, an IPv4 address or a bracketed IPv6 address)';
  }
  return undefined;
}

/**
 * Whether the request's header fields (header-fields.ts: their number, no repeated Host) and its
 * Host are acceptable, and its target in origin-form.
 */
export function checkRequestTarget(request: IncomingMessage): TargetCheck {
  const fields = headerFieldsProblem(request);
  if (fields) return { ok: false, error: fields };
  // No Host (HTTP/1.0) or an empty one (allowed for targets without an authority): the adapter
  // then uses the local address, never anything the client wrote.
  const host = request.headers.host;
  // Node would answer this itself with an empty 400 (the server runs with requireHostHeader off so that it is ours).
  if (host === undefined && request.httpVersion === '1.1') return badRequest('An HTTP/1.1 request needs a Host header');
  if (host) {
    const problem = hostProblem(host);
    if (problem) return badRequest(problem);
  }

  const raw = request.url ?? '';
  if (raw.startsWith('/')) {
    // `//x/graphql` stays a path: appended to a valid host, it cannot become an authority.
    return URL.canParse(`http://localhost${raw}`) ? { ok: true, target: raw } : badRequest('The request target is not a valid path');
  }
  if (ABSOLUTE.test(raw) && URL.canParse(raw)) {
    // Absolute-form (`GET http://x/graphql`, as sent to proxies): the route is its path and query.
    const url = new URL(raw);
    return { ok: true, target: `${url.pathname}${url.search}` };
  }
  return badRequest('The request target must be a path (origin-form) or an absolute http(s) URL');
}
