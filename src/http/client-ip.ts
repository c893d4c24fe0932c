// The client address for brute-force protection: the TCP peer, or with TRUST_PROXY the first
// X-Forwarded-For entry (only behind a proxy that sets it, or clients could pick their own).
import type { Plugin } from 'graphql-yoga';

const addresses = new WeakMap<Request, string>();

export function clientIpOf(request: Request): string {
  return addresses.get(request) ?? 'unknown';
}

type NodeServerContext = { req?: { socket?: { remoteAddress?: string } } };

export function useClientIp(trustProxy: boolean): Plugin {
  return {
    onRequest({ request, serverContext }) {
      const forwarded = trustProxy ? request.headers.get('x-forwarded-for')?.split(',')[0]?.trim() : undefined;
      const peer = (serverContext as NodeServerContext | undefined)?.req?.socket?.remoteAddress;
      addresses.set(request, forwarded || peer || 'unknown');
    },
  };
}
