// API keys: issuing, listing, revoking and looking them up (docs/concepts.md, API keys).
//
// A key is `svc_live_` / `svc_test_` followed by 40 random base62 characters (~238 bits). Only its
// hex SHA-256 and a short display prefix are stored; the key itself exists once, in the answer of
// `createApiKey`. A fast hash (not a password hash) is right here: the secret is high-entropy random,
// so there is nothing to brute-force, and lookup by hash goes through the unique index.
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/client.js';
import { prepared, queryRows } from '../db/sql.js';
import { isUuid } from '../domain/parameters.js';
import { KEY_PREFIXES, KEY_TIERS, type KeyTierValue, SCOPES, type Scope } from '../domain/values.js';
import { Prisma } from '../generated/prisma/client.js';

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
   * most once a minute per key and process (authenticate.ts), and a cached principal can be a few
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
  return createHash('sha256').update(key, 'utf8').digest('hex');
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
 * request path throttle this and ignore its failures; see authenticate.ts.
 */
export async function touchApiKey(db: Db, id: string, at: Date): Promise<void> {
  await db.apiKey.updateMany({
    where: { id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: at } }] },
    data: { lastUsedAt: at },
  });
}
