// Fills the request state's parts that come from the HTTP request itself (request/state.ts): the
// client address when the request arrives, and echoes the request id on every response.
import type { Plugin } from 'graphql-yoga';
import { stateOf } from '../request/state.js';
import { clientAddressOf, proxyMatcher, type TrustProxySetting } from './client-ip.js';

type NodeServerContext = { req?: { socket?: { remoteAddress?: string } } };

export function useRequestState(trustProxy: TrustProxySetting): Plugin {
  const isProxy = proxyMatcher(trustProxy);
  return {
    onRequest({ request, serverContext }) {
      const peer = (serverContext as NodeServerContext | undefined)?.req?.socket?.remoteAddress;
      stateOf(request).clientIp = clientAddressOf(request.headers.get('x-forwarded-for'), peer, isProxy);
    },
    onResponse({ request, response }) {
      if (!response.headers.has('x-request-id')) response.headers.set('X-Request-Id', stateOf(request).id);
    },
  };
}
