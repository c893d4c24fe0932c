// The request id of decisions section 1: a well-formed incoming `X-Request-Id` is reused, otherwise
// one is made; it is echoed as `X-Request-Id` on every response and as `request_id` in REST bodies.
import { randomUUID } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';

const WELL_FORMED = /^[A-Za-z0-9._:-]{8,128}$/;
const ids = new WeakMap<Request, string>();

export function requestIdOf(request: Request): string {
  let id = ids.get(request);
  if (!id) {
    const incoming = request.headers.get('x-request-id');
    id = incoming && WELL_FORMED.test(incoming) ? incoming : `req_${randomUUID().replaceAll('-', '')}`;
    ids.set(request, id);
  }
  return id;
}

export function useRequestId(): Plugin {
  return {
    onResponse({ request, response }) {
      if (!response.headers.has('x-request-id')) response.headers.set('X-Request-Id', requestIdOf(request));
    },
  };
}
