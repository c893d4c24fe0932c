// The request id of decisions section 1: a well-formed incoming `X-Request-Id` is reused, otherwise
// one is made; it is echoed as `X-Request-Id` on every response and as `request_id` in REST bodies
// (kept in the request state, state.ts).
import { randomUUID } from 'node:crypto';

const WELL_FORMED = /^[A-Za-z0-9._:-]{8,128}$/;

export function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '')}`;
}

/** A well-formed incoming `X-Request-Id`, else a new id. */
export function requestIdFrom(incoming: string | string[] | null | undefined): string {
  return typeof incoming === 'string' && WELL_FORMED.test(incoming) ? incoming : newRequestId();
}
