// Authentication happens once per HTTP request, however many layers ask (REST facade, GraphQL
// context, admission): the result is kept in the request state (request/state.ts).
import { stateOf } from '../request/state.js';
import { type AuthResult, authenticate } from './authenticate.js';
import type { ApiKeyResolver } from './key-resolver.js';

declare module '../request/state.js' {
  interface RequestState {
    /** The authentication of the Authorization header, shared by every layer that asks. */
    auth?: Promise<AuthResult>;
  }
}

export type RequestAuthenticator = (request: Request) => Promise<AuthResult>;

export function createRequestAuthenticator(resolver: ApiKeyResolver): RequestAuthenticator {
  return (request) => {
    const state = stateOf(request);
    state.auth ??= authenticate(request.headers.get('authorization'), resolver);
    return state.auth;
  };
}
