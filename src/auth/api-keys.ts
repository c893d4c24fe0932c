// Everything about an API key: issuing and looking keys up, a request's authentication (from the
// Authorization header to a key, through a short cache), whether the key reads patient data, and
// which clinics it sees (with the condition every read applies).
//
// API keys: issuing, listing, revoking and looking them up (docs/concepts.md, API keys).
//
// A key is `svc_live_` / `svc_test_` followed by 40 random base62 characters (~238 bits). Only its
// hex SHA-256 and a short display prefix are stored; the key itself exists once, in the answer of
// `createApiKey`. A fast hash (not a password hash) is right here: the secret is high-entropy random,
// so there is nothing to brute-force, and lookup by hash goes through the unique index.
import { hash, randomBytes } from 'node:crypto';
import type { Db } from '../db/client.js';
import { prepared, queryRows, SQL_POOL } from '../db/client.js';
import { isUuid } from '../domain/parameters.js';
import { KEY_PREFIXES, KEY_TIERS, type KeyTierValue, SCOPES, type Scope } from '../domain/values.js';
import { Prisma } from '../generated/prisma/client.js';
import { stateOf } from '../request/state.js';

export type KeyEnvironmentValue = keyof typeof KEY_PREFIXES;

export interface ApiKeyPrincipal {
  id: string;
  name: string;
  environment: KeyEnvironmentValue;
  scopes: Scope[];
  tier: KeyTierValue;
  /** null = every clinic */
  clinicIds: string[] | null;
  expiresAt: Date | null;
  /** Display prefix, e.g. `svc_live_AbCd`. */
  prefix: string;
  createdAt: Date;
  /**
   * As stored when the key was looked up, so never this request's own use: uses are written at
   * most once a minute per key and process (recordUse, below), and a cached principal can be a few
   * seconds older than the table.
   */
  lastUsedAt: Date | null;
}

export type KeyLookup = { status: 'valid'; key: ApiKeyPrincipal } | { status: 'invalid' } | { status: 'expired' };

/** What the operator sees of a key: everything but the key and its hash. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  environment: KeyEnvironmentValue;
  /** Display prefix, e.g. `svc_live_AbCd`. */
  prefix: string;
  scopes: Scope[];
  tier: KeyTierValue;
  /** null = every clinic */
  clinicIds: string[] | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface CreateApiKeyInput {
  name: string;
  environment?: KeyEnvironmentValue;
  scopes?: Scope[];
  /** Restrict the key to these clinics; omit for every clinic. */
  clinicIds?: string[];
  tier?: KeyTierValue;
  expiresAt?: Date | null;
}

/** A rejected `createApiKey` input; `field` names the offending input property. */
export class ApiKeyInputError extends Error {
  constructor(
    readonly field: keyof CreateApiKeyInput,
    message: string,
  ) {
    super(message);
    this.name = 'ApiKeyInputError';
  }
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Random characters after the prefix: 40 x log2(62) ~ 238 bits. */
export const API_KEY_RANDOM_LENGTH = 40;
/** Random characters kept in the stored display prefix. */
const DISPLAY_CHARS = 4;
/** Largest multiple of 62 that fits in a byte: bytes at or above it are rejected, so every character is equally likely. */
const UNBIASED_LIMIT = 256 - (256 % BASE62.length);
const NAME_MAX_LENGTH = 200;
const WELL_FORMED = new RegExp(`^(?:${Object.values(KEY_PREFIXES).join('|')})[0-9A-Za-z]{${API_KEY_RANDOM_LENGTH}}$`);

export function generateApiKey(environment: KeyEnvironmentValue): string {
  const prefix = KEY_PREFIXES[environment];
  if (!prefix) throw new TypeError(`Unknown key environment: ${String(environment)}`);
  let random = '';
  while (random.length < API_KEY_RANDOM_LENGTH) {
    for (const byte of randomBytes(64)) {
      if (byte >= UNBIASED_LIMIT) continue;
      random += BASE62[byte % BASE62.length];
      if (random.length === API_KEY_RANDOM_LENGTH) break;
    }
  }
  return prefix + random;
}

export function hashApiKey(key: string): string {
  // One-shot: no Hash object per request (every request hashes its key to look it up).
  return hash('sha256', key, 'hex');
}

export function isWellFormedApiKey(token: string): boolean {
  return typeof token === 'string' && WELL_FORMED.test(token);
}

function displayPrefix(key: string, environment: KeyEnvironmentValue): string {
  const prefix = KEY_PREFIXES[environment];
  return key.slice(0, prefix.length + DISPLAY_CHARS);
}

// --- Rows -> objects --------------------------------------------------------------------------

const recordSelect = {
  id: true,
  name: true,
  environment: true,
  prefix: true,
  scopes: true,
  tier: true,
  clinicIds: true,
  expiresAt: true,
  revokedAt: true,
  createdAt: true,
  lastUsedAt: true,
} as const;

interface ApiKeyRow {
  id: string;
  name: string;
  environment: KeyEnvironmentValue;
  prefix: string;
  scopes: string[] | null;
  tier: KeyTierValue;
  clinicIds: string[] | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** Stored scopes in canonical order; anything unknown is dropped (a key never gains a scope by a typo in the table). */
function knownScopes(stored: readonly string[] | null): Scope[] {
  const set = new Set(stored ?? []);
  return SCOPES.filter((s) => set.has(s));
}

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    environment: row.environment,
    prefix: row.prefix,
    scopes: knownScopes(row.scopes),
    tier: row.tier,
    clinicIds: row.clinicIds?.length ? [...row.clinicIds] : null,
    expiresAt: row.expiresAt,
    revokedAt: row.revokedAt,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
  };
}

/** The principal is shared by every request served from the resolver's cache, so it is frozen. */
function toPrincipal(row: ApiKeyRow): ApiKeyPrincipal {
  return Object.freeze({
    id: row.id,
    name: row.name,
    environment: row.environment,
    scopes: Object.freeze(knownScopes(row.scopes)) as Scope[],
    tier: row.tier,
    clinicIds: row.clinicIds?.length ? (Object.freeze([...row.clinicIds]) as string[]) : null,
    expiresAt: row.expiresAt,
    prefix: row.prefix,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
  });
}

// --- Create ------------------------------------------------------------------------------------

async function validateCreateInput(db: Db, input: CreateApiKeyInput, now: Date) {
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (!name) throw new ApiKeyInputError('name', 'name must not be empty');
  if (name.length > NAME_MAX_LENGTH) throw new ApiKeyInputError('name', `name must be at most ${NAME_MAX_LENGTH} characters`);
  if ([...name].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) {
    throw new ApiKeyInputError('name', 'name must not contain control characters');
  }

  const environment = input.environment ?? 'live';
  if (!Object.hasOwn(KEY_PREFIXES, environment)) {
    throw new ApiKeyInputError('environment', `environment must be one of ${Object.keys(KEY_PREFIXES).join(', ')}`);
  }

  let scopes: Scope[] = [...SCOPES];
  if (input.scopes !== undefined) {
    if (!Array.isArray(input.scopes) || input.scopes.length === 0) {
      throw new ApiKeyInputError('scopes', 'scopes must list at least one scope');
    }
    const unknown = input.scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
    if (unknown.length) {
      throw new ApiKeyInputError('scopes', `unknown scope(s) ${unknown.map((s) => `'${s}'`).join(', ')}; valid: ${SCOPES.join(', ')}`);
    }
    scopes = knownScopes(input.scopes);
  }

  const tier = input.tier ?? 'standard';
  if (!(KEY_TIERS as readonly string[]).includes(tier)) {
    throw new ApiKeyInputError('tier', `unknown tier '${tier}'; valid: ${KEY_TIERS.join(', ')}`);
  }

  // An empty list is refused rather than read as "every clinic": a restriction that came out empty
  // (a bug in the caller) must not silently widen the key.
  let clinicIds: string[] = [];
  if (input.clinicIds !== undefined) {
    if (!Array.isArray(input.clinicIds) || input.clinicIds.length === 0) {
      throw new ApiKeyInputError('clinicIds', 'clinic restriction must list at least one clinic id (omit it for every clinic)');
    }
    const malformed = input.clinicIds.filter((id) => typeof id !== 'string' || !isUuid(id));
    if (malformed.length) {
      throw new ApiKeyInputError('clinicIds', `not a clinic id (UUID): ${malformed.map((id) => `'${String(id)}'`).join(', ')}`);
    }
    clinicIds = [...new Set(input.clinicIds.map((id) => id.toLowerCase()))];
    const found = await db.clinic.findMany({ where: { id: { in: clinicIds } }, select: { id: true } });
    const existing = new Set(found.map((c) => c.id.toLowerCase()));
    const missing = clinicIds.filter((id) => !existing.has(id));
    if (missing.length) throw new ApiKeyInputError('clinicIds', `no such clinic: ${missing.join(', ')}`);
  }

  const expiresAt = input.expiresAt ?? null;
  if (expiresAt !== null) {
    if (!(expiresAt instanceof Date) || Number.isNaN(expiresAt.getTime())) {
      throw new ApiKeyInputError('expiresAt', 'expiry must be a valid date');
    }
    if (expiresAt.getTime() <= now.getTime()) {
      throw new ApiKeyInputError('expiresAt', `expiry must be in the future (got ${expiresAt.toISOString()})`);
    }
  }

  return { name, environment, scopes, tier, clinicIds, expiresAt };
}

/**
 * Issues a key. The returned `key` is the only copy there will ever be; the database keeps its hash.
 * Throws `ApiKeyInputError` for invalid input.
 */
export async function createApiKey(db: Db, input: CreateApiKeyInput): Promise<{ key: string; record: ApiKeyRecord }> {
  const valid = await validateCreateInput(db, input, new Date());
  const key = generateApiKey(valid.environment);
  const row = await db.apiKey.create({
    data: {
      name: valid.name,
      environment: valid.environment,
      prefix: displayPrefix(key, valid.environment),
      hash: hashApiKey(key),
      scopes: valid.scopes,
      tier: valid.tier,
      clinicIds: valid.clinicIds,
      expiresAt: valid.expiresAt,
    },
    select: recordSelect,
  });
  return { key, record: toRecord(row) };
}

// --- List / revoke -----------------------------------------------------------------------------

/** Every key, oldest first; never the key or its hash. */
export async function listApiKeys(db: Db): Promise<ApiKeyRecord[]> {
  const rows = await db.apiKey.findMany({ select: recordSelect, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return rows.map(toRecord);
}

/**
 * Revokes a key (idempotent: a second revocation keeps the first time). Returns null when there is
 * no key with that id, including when `id` is not a UUID.
 */
export async function revokeApiKey(db: Db, id: string): Promise<ApiKeyRecord | null> {
  if (!isUuid(id)) return null;
  await db.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
  const row = await db.apiKey.findUnique({ where: { id }, select: recordSelect });
  return row ? toRecord(row) : null;
}

// --- Lookup ------------------------------------------------------------------------------------

const KEY_BY_HASH = (hash: string) => Prisma.sql`
  SELECT id::text AS id, name, environment::text AS environment, prefix, scopes, tier::text AS tier,
         clinic_ids::text[] AS "clinicIds", expires_at AS "expiresAt", revoked_at AS "revokedAt",
         created_at AS "createdAt", last_used_at AS "lastUsedAt"
  FROM api_keys WHERE hash = ${hash}`;

/**
 * The usable key with this hash: null when there is none or it is revoked (the two are deliberately
 * the same answer). Expiry is not judged here; see `keyStatus`.
 */
export async function findActiveKeyByHash(db: Db, hash: string): Promise<ApiKeyPrincipal | null> {
  // Hand-written and prepared rather than findUnique: this runs for every key the resolver has not
  // cached (each busy key every few seconds, every request of a quiet one), and Prisma's client
  // compiles and interprets a query plan for each call, about three times the CPU per lookup
  // (bench/results/2026-11-23-design-measurements.md).
  const [row] = await queryRows<ApiKeyRow>(db, prepared('api_key_by_hash', KEY_BY_HASH(hash)));
  if (!row || row.revokedAt !== null) return null;
  return toPrincipal(row);
}

/** The lookup answer for a principal found by `findActiveKeyByHash`, at `now`. */
export function keyStatus(principal: ApiKeyPrincipal | null, now: Date): KeyLookup {
  if (!principal) return { status: 'invalid' };
  if (principal.expiresAt && principal.expiresAt.getTime() <= now.getTime()) return { status: 'expired' };
  return { status: 'valid', key: principal };
}

/**
 * Authenticates a bearer token. Malformed tokens are invalid without touching the database; unknown
 * and revoked keys are both `invalid`; a key whose `expires_at` is at or before `now` is `expired`.
 */
export async function lookupApiKey(db: Db, token: string, now: Date = new Date()): Promise<KeyLookup> {
  if (!isWellFormedApiKey(token)) return { status: 'invalid' };
  return keyStatus(await findActiveKeyByHash(db, hashApiKey(token)), now);
}

/**
 * Records that a key was used at `at` (never moving `last_used_at` backwards). Callers on the
 * request path throttle this and ignore its failures (recordUse, below).
 */
export async function touchApiKey(db: Db, id: string, at: Date): Promise<void> {
  await db.apiKey.updateMany({
    where: { id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: at } }] },
    data: { lastUsedAt: at },
  });
}

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

// Which clinics an API key sees, and the condition that keeps every read to them.
//
// Two rules decide the clinics: a key's own clinic list, if it has one (decisions section 5), and
// environments (decisions section 12): a clinic is `live` or `sandbox`, and a key sees only the
// clinics of its own environment (`svc_live_` keys live ones, `svc_test_` keys sandbox ones), on
// every path. Both fold into one VisibleClinics per request (`visibleClinicsOf`), applied where data
// is read: every query gets a clinic condition in its WHERE (`clinicCondition` and the rest below),
// so other clinics' rows are never fetched, and nothing downstream needs to know about
// environments.
//
// Read from the database unless the service keeps the catalogue in memory (db/client.ts,
// CatalogCache), which drops it as soon as a clinic is written: a cache that merely expired would
// let a key see, for its lifetime, a clinic just imported into the other environment, and would
// make `null` (every clinic) outlive the first clinic of the other environment.

/** The clinics a request may see: `null` means every clinic. */
export type VisibleClinics = readonly string[] | null;

export const CLINIC_ENVIRONMENTS = ['live', 'sandbox'] as const;
export type ClinicEnvironmentValue = (typeof CLINIC_ENVIRONMENTS)[number];

/** The clinics each key environment sees. */
export const CLINIC_ENVIRONMENT_OF_KEY: Record<KeyEnvironmentValue, ClinicEnvironmentValue> = { live: 'live', test: 'sandbox' };

/** How the keys that see each environment begin (for what the CLI tells operators). */
export const KEY_PREFIX_OF_ENVIRONMENT: Record<ClinicEnvironmentValue, string> = { live: KEY_PREFIXES.live, sandbox: KEY_PREFIXES.test };

export function isClinicEnvironment(value: string): value is ClinicEnvironmentValue {
  return (CLINIC_ENVIRONMENTS as readonly string[]).includes(value);
}

/** The statement for an unrestricted key of each environment, built once (it runs on every request). */
const UNRESTRICTED: Record<ClinicEnvironmentValue, Prisma.Sql> = {
  live: clinicsOfEnvironment('live'),
  sandbox: clinicsOfEnvironment('sandbox'),
};

function clinicsOfEnvironment(environment: ClinicEnvironmentValue): Prisma.Sql {
  return prepared(
    'clinics_of_environment',
    Prisma.sql`SELECT CASE WHEN EXISTS (SELECT 1 FROM clinics WHERE environment <> ${environment}::"ClinicEnvironment")
               THEN array(SELECT id::text FROM clinics WHERE environment = ${environment}::"ClinicEnvironment" ORDER BY id) END AS ids`,
  );
}

/**
 * The clinics `key` may see: its own clinic list (or every clinic) among the clinics of its
 * environment. `null` (every clinic, which lets the metrics read the all-clinics rollups) only for
 * an unrestricted key while no clinic of the other environment exists, as in a database that holds
 * only live data; otherwise the list of ids, possibly empty (nothing is visible).
 *
 * One small statement, kept prepared (and kept in memory by the service until a clinic changes):
 * for an unrestricted key, an EXISTS that stops at the first clinic of the other environment (the
 * ids are read only when there is one); for a restricted key, the key's clinics looked up by
 * primary key.
 */
export async function visibleClinicsOf(db: Db, key: Pick<ApiKeyPrincipal, 'environment' | 'clinicIds'>): Promise<VisibleClinics> {
  const environment = CLINIC_ENVIRONMENT_OF_KEY[key.environment];
  const restricted = key.clinicIds && key.clinicIds.length > 0 ? key.clinicIds : null;
  const catalog = db[SQL_POOL].catalog;
  const read = (cacheKey: string, load: () => Promise<VisibleClinics>) => (catalog ? catalog.read(cacheKey, load) : load());
  if (restricted === null) {
    return read(`visible:${environment}`, async () => {
      const [row] = await queryRows<{ ids: string[] | null }>(db, UNRESTRICTED[environment]);
      return row?.ids ? Object.freeze(row.ids) : null;
    });
  }
  return read(`visible:${environment}:${restricted.join(',')}`, async () => {
    const [row] = await queryRows<{ ids: string[] }>(
      db,
      prepared(
        'key_clinics_of_environment',
        Prisma.sql`SELECT array(SELECT id::text FROM clinics WHERE id = ANY(${restricted}::uuid[]) AND environment = ${environment}::"ClinicEnvironment") AS ids`,
      ),
    );
    const own = new Set(row?.ids ?? []);
    // The key's own list, in its order and spelling (ETag identities and `viewer` stay as they were),
    // less the clinics of the other environment.
    return Object.freeze(restricted.filter((id) => own.has(id.toLowerCase())));
  });
}

/**
 * The clinic ids a query may touch, combining the key's restriction with a `clinic_id` filter:
 * `undefined` = no clinic condition needed, `[]` = nothing is visible.
 */
export function clinicScope(visible: VisibleClinics, clinicId?: string): readonly string[] | undefined {
  if (clinicId !== undefined) return visible === null || visible.includes(clinicId) ? [clinicId] : [];
  return visible === null ? undefined : visible;
}

export function clinicCondition(visible: VisibleClinics, clinicId?: string): { clinicId?: { in: string[] } } {
  const scope = clinicScope(visible, clinicId);
  return scope === undefined ? {} : { clinicId: { in: [...scope] } };
}

export function campaignWhere(
  filters: { clinicId?: string; status?: Prisma.CampaignWhereInput['status'] },
  visible: VisibleClinics,
): Prisma.CampaignWhereInput {
  return { ...clinicCondition(visible, filters.clinicId), ...(filters.status ? { status: filters.status } : {}) };
}

export function clinicWhere(visible: VisibleClinics): Prisma.ClinicWhereInput {
  return visible === null ? {} : { id: { in: [...visible] } };
}

/**
 * A campaign filter's visibility, as a condition PostgreSQL settles once, before reading any row:
 * the campaign looked up by primary key among the clinics a query may touch (`clinicIds`, as
 * clinicScope gives them; undefined = every clinic). The condition refers to nothing of the
 * statement's own rows, so it becomes a one-time filter above the plan: when it is false - the
 * campaign is another clinic's or environment's, or does not exist - nothing below it runs. A
 * foreign campaign then costs what a nonexistent one does; filtered only by `campaign_id` and
 * `clinic_id`, its rows were read from the campaign's index and thrown away one by one, in a time
 * that told how big another tenant's campaign is.
 */
export function campaignVisible(campaignId: string, clinicIds: readonly string[] | undefined): Prisma.Sql {
  const clinics = clinicIds === undefined ? Prisma.empty : Prisma.sql`AND visible_campaign.clinic_id = ANY(${[...clinicIds]}::uuid[])`;
  return Prisma.sql`EXISTS (SELECT FROM campaigns visible_campaign WHERE visible_campaign.id = ${campaignId}::text ${clinics})`;
}

/** The scope that lets a key see patient data unmasked and filter by it (docs/patient-data.md). */
export const PHI_SCOPE = 'phi:read' satisfies Scope;

/** Whether a key sees patient data unmasked. */
export function readsPhi(key: { readonly scopes: readonly string[] }): boolean {
  return key.scopes.includes(PHI_SCOPE);
}
