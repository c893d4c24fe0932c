// From an `Authorization` header to an API key, or to the error the spec prescribes
// (decisions section 1), once per HTTP request however many layers ask (REST facade, GraphQL
// context, admission): the result is kept in the request state (request/state.ts). Keys are
// resolved through a short in-process cache (createApiKeyResolver):
//
// - Entries are keyed by the SHA-256 of the token (the cache never holds a token) and live `ttlMs`
//   (default 5 s): a busy key costs one query per ttl, and a revoked key stops working within ttl.
// - The cache stores what the database said (the key, or "no usable key"), not the verdict: expiry
//   is judged against `now()` on every resolve, so a cached key stops working the moment it expires.
// - Negative answers are cached too (a client retrying a bad key does not hit the database each
//   time), and the cache is a bounded LRU, so a flood of random tokens cannot grow memory.
//   Malformed tokens never reach the database or the cache.
// - Concurrent resolves of one uncached token share a single query. A failed query is not cached;
//   its error reaches the caller (the HTTP layer answers 503).
// - `last_used_at` is written at most once per key per minute, fire-and-forget: its failure never
//   fails or delays a request.

import type { Db } from '../db/client.js';
import { stateOf } from '../request/state.js';
import { type ApiKeyPrincipal, findActiveKeyByHash, hashApiKey, isWellFormedApiKey, type KeyLookup, keyStatus, touchApiKey } from './api-keys.js';

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

export interface ApiKeyResolver {
  resolve(token: string): Promise<KeyLookup>;
  /** Forgets every cached answer (e.g. after revoking a key in this process). */
  clear(): void;
}

export interface ApiKeyResolverOptions {
  /** How long an answer from the database is reused; 0 disables caching. Default 5,000. */
  ttlMs?: number;
  /** Most cached answers kept (least recently used evicted first); 0 disables caching. Default 10,000. */
  maxEntries?: number;
  now?: () => Date;
}

export const DEFAULT_KEY_CACHE_TTL_MS = 5_000;
export const DEFAULT_KEY_CACHE_MAX_ENTRIES = 10_000;
/** `last_used_at` is written at most this often per key. */
export const LAST_USED_INTERVAL_MS = 60_000;

interface CacheEntry {
  principal: ApiKeyPrincipal | null;
  storedAt: number;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a non-negative number, got ${value}`);
  return value;
}

export function createApiKeyResolver(db: Db, options: ApiKeyResolverOptions = {}): ApiKeyResolver {
  const ttlMs = nonNegative('ttlMs', options.ttlMs ?? DEFAULT_KEY_CACHE_TTL_MS);
  const maxEntries = Math.floor(nonNegative('maxEntries', options.maxEntries ?? DEFAULT_KEY_CACHE_MAX_ENTRIES));
  const now = options.now ?? (() => new Date());

  /** hash -> answer; Map order is recency order (oldest first). */
  const cache = new Map<string, CacheEntry>();
  /** hash -> the query in flight for it. */
  const inflight = new Map<string, Promise<ApiKeyPrincipal | null>>();
  /** key id -> when `last_used_at` was last written by this process (bounded like the cache). */
  const touchedAt = new Map<string, number>();
  /** Bumped by clear(), so a query started before it does not refill the cache with an old answer. */
  let generation = 0;

  function cached(hash: string, at: number): CacheEntry | undefined {
    const entry = cache.get(hash);
    if (!entry) return undefined;
    const age = at - entry.storedAt;
    if (age < 0 || age >= ttlMs) {
      cache.delete(hash);
      return undefined;
    }
    cache.delete(hash); // move to the most recently used end
    cache.set(hash, entry);
    return entry;
  }

  function remember(hash: string, principal: ApiKeyPrincipal | null, at: number): void {
    if (ttlMs === 0 || maxEntries === 0) return;
    cache.delete(hash);
    cache.set(hash, { principal, storedAt: at });
    while (cache.size > maxEntries) {
      const oldest = cache.keys().next().value;
      if (oldest === undefined) break;
      cache.delete(oldest);
    }
  }

  function fetch(hash: string): Promise<ApiKeyPrincipal | null> {
    const pending = inflight.get(hash);
    if (pending) return pending;
    const started = generation;
    const query = findActiveKeyByHash(db, hash).then(
      (principal) => {
        if (inflight.get(hash) === query) inflight.delete(hash);
        if (started === generation) remember(hash, principal, now().getTime());
        return principal;
      },
      (error: unknown) => {
        if (inflight.get(hash) === query) inflight.delete(hash);
        throw error;
      },
    );
    inflight.set(hash, query);
    return query;
  }

  function recordUse(hash: string, principal: ApiKeyPrincipal, at: Date): void {
    const time = at.getTime();
    const last = touchedAt.get(principal.id);
    if (last !== undefined && time - last < LAST_USED_INTERVAL_MS && time >= last) return;
    touchedAt.delete(principal.id);
    touchedAt.set(principal.id, time);
    while (touchedAt.size > Math.max(maxEntries, 1)) {
      const oldest = touchedAt.keys().next().value;
      if (oldest === undefined) break;
      touchedAt.delete(oldest);
    }
    const started = generation;
    touchApiKey(db, principal.id, at).then(
      () => {
        if (started === generation) noteUse(hash, principal.id, at);
      },
      () => {
        // Bookkeeping only: a failed write must never fail the request.
      },
    );
  }

  /**
   * Once a use is written, the cached principal says so too: otherwise this process's next requests
   * (GET /me among them) would show the older `last_used_at` until the entry expires. The entry
   * keeps its age, so a revocation still shows within the ttl.
   */
  function noteUse(hash: string, id: string, at: Date): void {
    const entry = cache.get(hash);
    const principal = entry?.principal;
    if (!entry || !principal || principal.id !== id) return;
    if (principal.lastUsedAt && principal.lastUsedAt.getTime() >= at.getTime()) return;
    entry.principal = Object.freeze({ ...principal, lastUsedAt: at });
  }

  return {
    async resolve(token: string): Promise<KeyLookup> {
      if (!isWellFormedApiKey(token)) return { status: 'invalid' };
      const hash = hashApiKey(token);
      const entry = cached(hash, now().getTime());
      const principal = entry ? entry.principal : await fetch(hash);
      const at = now();
      const result = keyStatus(principal, at);
      if (result.status === 'valid') recordUse(hash, result.key, at);
      return result;
    },
    clear(): void {
      generation++;
      cache.clear();
      inflight.clear();
    },
  };
}
