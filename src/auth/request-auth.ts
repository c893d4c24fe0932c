// Authentication happens once per HTTP request, however many layers ask (REST facade, GraphQL context).
import { type AuthResult, authenticate } from './authenticate.js';
import type { ApiKeyResolver } from './key-resolver.js';

export type RequestAuthenticator = (request: Request) => Promise<AuthResult>;

export function createRequestAuthenticator(resolver: ApiKeyResolver): RequestAuthenticator {
  const results = new WeakMap<Request, Promise<AuthResult>>();
  return (request) => {
    let result = results.get(request);
    if (!result) {
      result = authenticate(request.headers.get('authorization'), resolver);
      results.set(request, result);
    }
    return result;
  };
}
