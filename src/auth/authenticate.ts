// From an `Authorization` header to an API key, or to the error the spec prescribes
// (decisions section 1), once per HTTP request however many layers ask (REST facade, GraphQL
// context, admission): the result is kept in the request state (request/state.ts).
import { stateOf } from '../request/state.js';
import type { ApiKeyPrincipal } from './api-keys.js';
import type { ApiKeyResolver } from './key-resolver.js';

export type AuthErrorCode = 'UNAUTHORIZED' | 'INVALID_API_KEY' | 'API_KEY_EXPIRED';

export interface AuthFailure {
  code: AuthErrorCode;
  message: string;
  /** Value of the `WWW-Authenticate` response header (RFC 6750). */
  challenge: string;
}

export type AuthResult = { ok: true; key: ApiKeyPrincipal } | { ok: false; failure: AuthFailure };

declare module '../request/state.js' {
  interface RequestState {
    /** The authentication of the Authorization header, shared by every layer that asks. */
    auth?: Promise<AuthResult>;
  }
}

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

export const MISSING_HEADER: AuthFailure = {
  code: 'UNAUTHORIZED',
  message: 'The Authorization header is missing or malformed; expected "Authorization: Bearer <API key>".',
  challenge: 'Bearer realm="api"',
};

export async function authenticate(header: string | null | undefined, resolver: ApiKeyResolver): Promise<AuthResult> {
  const match = header ? BEARER.exec(header) : null;
  if (!match) return { ok: false, failure: MISSING_HEADER };
  const lookup = await resolver.resolve(match[1]!);
  if (lookup.status === 'valid') return { ok: true, key: lookup.key };
  if (lookup.status === 'expired') {
    return {
      ok: false,
      failure: {
        code: 'API_KEY_EXPIRED',
        message: 'API key has expired',
        challenge: 'Bearer realm="api", error="invalid_token", error_description="The API key has expired"',
      },
    };
  }
  return { ok: false, failure: { code: 'INVALID_API_KEY', message: 'Invalid API key', challenge: 'Bearer realm="api", error="invalid_token"' } };
}

/** The request's authentication: the first call authenticates, every later one shares its result. */
export type RequestAuthenticator = (request: Request) => Promise<AuthResult>;

export function createRequestAuthenticator(resolver: ApiKeyResolver): RequestAuthenticator {
  return (request) => {
    const state = stateOf(request);
    state.auth ??= authenticate(request.headers.get('authorization'), resolver);
    return state.auth;
  };
}
