// The request id of decisions section 1: a well-formed incoming `X-Request-Id` is reused, otherwise
// one is made; it is echoed as `X-Request-Id` on every response and as `request_id` in REST bodies.
import { randomUUID } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';

const WELL_FORMED = /^[A-Za-z0-9._:-]{8,128}$/;
const ids = new WeakMap<Request, string>();

export function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '')}`;
}

/** A well-formed incoming `X-Request-Id`, else a new id. */
export function requestIdFrom(incoming: string | string[] | null | undefined): string {
  return typeof incoming === 'string' && WELL_FORMED.test(incoming) ? incoming : newRequestId();
}

export function requestIdOf(request: Request): string {
  let id = ids.get(request);
  if (!id) {
    id = requestIdFrom(request.headers.get('x-request-id'));
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
