import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  API_KEY_RANDOM_LENGTH,
  ApiKeyInputError,
  type CreateApiKeyInput,
  createApiKey,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  listApiKeys,
  lookupApiKey,
  revokeApiKey,
} from '../../src/auth/api-keys.js';
import type { Db } from '../../src/db/client.js';
import { SCOPES } from '../../src/domain/values.js';
import { sql, testDb } from '../helpers/db.js';
import { createClinic } from '../helpers/factories.js';

const db = testDb();
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const HOUR = 3_600_000;

/** A Db on which any use fails the test: proves that a code path makes no query. */
const noDb = new Proxy({} as Db, {
  get(_target, prop) {
    throw new Error(`unexpected database access: ${String(prop)}`);
  },
});

function name(label: string): string {
  return `test ${label} ${randomUUID()}`;
}

async function keysNamed(keyName: string): Promise<number> {
  const rows = await sql<{ n: string }>('SELECT count(*) AS n FROM api_keys WHERE name = $1', [keyName]);
  return Number(rows[0]!.n);
}

describe('key format', () => {
  it('is svc_live_ / svc_test_ followed by 40 base62 characters', () => {
    const live = generateApiKey('live');
    const test = generateApiKey('test');
    expect(live).toMatch(/^svc_live_[0-9A-Za-z]{40}$/);
    expect(test).toMatch(/^svc_test_[0-9A-Za-z]{40}$/);
    expect(API_KEY_RANDOM_LENGTH * Math.log2(62)).toBeGreaterThanOrEqual(190);
    expect(isWellFormedApiKey(live)).toBe(true);
    expect(isWellFormedApiKey(test)).toBe(true);
  });

  it('recognises malformed tokens', () => {
    const random = generateApiKey('live').slice('svc_live_'.length);
    for (const token of [
      '',
      'svc_live_',
      `svc_prod_${random}`,
      `SVC_LIVE_${random}`,
      `svc_live_${random.slice(1)}`,
      `svc_live_${random}x`,
      `svc_live_${random.slice(1)}-`,
      `svc_live_${random.slice(1)}é`,
      ` svc_live_${random}`,
      `svc_live_${random}\n`,
      random,
    ]) {
      expect(isWellFormedApiKey(token), JSON.stringify(token)).toBe(false);
    }
  });

  it('hashes to the hex SHA-256 of the whole key', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const key = generateApiKey('test');
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
  });

  it('is random: keys are distinct and characters uniformly distributed', () => {
    const n = 2_000;
    const keys = Array.from({ length: n }, (_, i) => generateApiKey(i % 2 ? 'live' : 'test'));
    expect(new Set(keys).size).toBe(n);
    expect(new Set(keys.map((k) => k.slice(-API_KEY_RANDOM_LENGTH))).size).toBe(n);

    const counts = new Map<string, number>();
    for (const key of keys) for (const c of key.slice(-API_KEY_RANDOM_LENGTH)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect([...counts.keys()].sort().join('')).toBe([...BASE62].sort().join(''));
    // Chi-square against the uniform distribution, 61 degrees of freedom. The critical value for
    // p = 1e-6 is about 129; a modulo-biased generator (byte % 62) scores about 500 here.
    const expected = (n * API_KEY_RANDOM_LENGTH) / 62;
    const chiSquare = [...counts.values()].reduce((sum, c) => sum + (c - expected) ** 2 / expected, 0);
    expect(chiSquare).toBeLessThan(130);
  });
});

describe('createApiKey', () => {
  it('defaults to a live key with every scope, tier standard, every clinic, no expiry', async () => {
    const keyName = name('defaults');
    const { key, record } = await createApiKey(db, { name: keyName });
    expect(key).toMatch(/^svc_live_[0-9A-Za-z]{40}$/);
    expect(record).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: keyName,
      environment: 'live',
      prefix: key.slice(0, 'svc_live_'.length + 4),
      scopes: [...SCOPES],
      tier: 'standard',
      clinicIds: null,
      expiresAt: null,
      revokedAt: null,
      createdAt: expect.any(Date),
      lastUsedAt: null,
    });
  });

  it('issues test keys with the svc_test_ prefix', async () => {
    const { key, record } = await createApiKey(db, { name: name('sandbox'), environment: 'test' });
    expect(key).toMatch(/^svc_test_[0-9A-Za-z]{40}$/);
    expect(record.environment).toBe('test');
    expect(record.prefix).toBe(key.slice(0, 13));
    expect(record.prefix).toMatch(/^svc_test_[0-9A-Za-z]{4}$/);
  });

  it('stores neither the key nor its random part anywhere in api_keys, only the hash', async () => {
    const created = [await createApiKey(db, { name: name('secret live') }), await createApiKey(db, { name: name('secret test'), environment: 'test' })];
    const rows = await sql<{ id: string; hash: string; row: string }>('SELECT k.id::text AS id, k.hash, k::text AS row FROM api_keys k');
    const dump = rows.map((r) => r.row).join('\n');
    for (const { key, record } of created) {
      const random = key.slice(-API_KEY_RANDOM_LENGTH);
      expect(rows.find((r) => r.id === record.id)?.hash).toBe(hashApiKey(key));
      expect(dump).not.toContain(key);
      expect(dump).not.toContain(random);
      // Not even a fragment beyond the 4 display characters of the prefix.
      for (let i = 0; i + 8 <= random.length; i++) expect(dump).not.toContain(random.slice(i, i + 8));
      expect(JSON.stringify(record)).not.toContain(random);
    }
  });

  it('stores the clinic restriction (normalised, de-duplicated) and the other settings', async () => {
    const [a, b] = [await createClinic(db), await createClinic(db)];
    const expiresAt = new Date(Date.now() + 24 * HOUR);
    const { key, record } = await createApiKey(db, {
      name: name('restricted'),
      scopes: ['metrics:read', 'clinics:read', 'metrics:read'],
      clinicIds: [a.id.toUpperCase(), b.id, a.id],
      tier: 'premium',
      expiresAt,
    });
    expect(record.clinicIds?.slice().sort()).toEqual([a.id, b.id].sort());
    expect(record.scopes).toEqual(['metrics:read', 'clinics:read']);
    expect(record.tier).toBe('premium');
    expect(record.expiresAt?.toISOString()).toBe(expiresAt.toISOString());

    const [row] = await sql<{ clinic_ids: string[]; scopes: string[]; tier: string }>(
      'SELECT clinic_ids::text[] AS clinic_ids, scopes, tier::text AS tier FROM api_keys WHERE id = $1',
      [record.id],
    );
    expect(row!.clinic_ids.slice().sort()).toEqual([a.id, b.id].sort());
    expect(row!.scopes).toEqual(['metrics:read', 'clinics:read']);
    expect(row!.tier).toBe('premium');

    const found = await lookupApiKey(db, key);
    expect(found.status).toBe('valid');
    if (found.status === 'valid') {
      expect(found.key.clinicIds?.slice().sort()).toEqual([a.id, b.id].sort());
      expect(found.key.scopes).toEqual(['metrics:read', 'clinics:read']);
      expect(found.key.tier).toBe('premium');
    }
  });

  const invalid: Array<[string, (clinicId: string) => CreateApiKeyInput, keyof CreateApiKeyInput]> = [
    ['an empty name', () => ({ name: '' }), 'name'],
    ['a blank name', () => ({ name: '   ' }), 'name'],
    ['a name with control characters', () => ({ name: 'a\nb' }), 'name'],
    ['an empty scope list', () => ({ name: 'x', scopes: [] }), 'scopes'],
    ['an unknown scope', () => ({ name: 'x', scopes: ['metrics:read', 'admin' as never] }), 'scopes'],
    ['an unknown tier', () => ({ name: 'x', tier: 'gold' as never }), 'tier'],
    ['an unknown environment', () => ({ name: 'x', environment: 'prod' as never }), 'environment'],
    ['an empty clinic list', () => ({ name: 'x', clinicIds: [] }), 'clinicIds'],
    ['a clinic id that is not a UUID', (clinicId) => ({ name: 'x', clinicIds: [clinicId, 'clinic-1'] }), 'clinicIds'],
    ['a clinic that does not exist', (clinicId) => ({ name: 'x', clinicIds: [clinicId, randomUUID()] }), 'clinicIds'],
    ['an expiry in the past', () => ({ name: 'x', expiresAt: new Date(Date.now() - 1000) }), 'expiresAt'],
    ['an invalid expiry date', () => ({ name: 'x', expiresAt: new Date('nope') }), 'expiresAt'],
  ];

  it.each(invalid)('refuses %s and creates nothing', async (_label, make, field) => {
    const clinic = await createClinic(db);
    const input = make(clinic.id);
    if (input.name === 'x') input.name = name('invalid');
    const error = await createApiKey(db, input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiKeyInputError);
    expect((error as ApiKeyInputError).field).toBe(field);
    if (input.name.trim()) expect(await keysNamed(input.name)).toBe(0);
  });
});

describe('lookupApiKey', () => {
  it('finds a valid key and returns its principal', async () => {
    const { key, record } = await createApiKey(db, { name: name('lookup'), environment: 'test', scopes: ['interactions:read'] });
    expect(await lookupApiKey(db, key)).toEqual({
      status: 'valid',
      key: {
        id: record.id,
        name: record.name,
        environment: 'test',
        scopes: ['interactions:read'],
        tier: 'standard',
        clinicIds: null,
        expiresAt: null,
        prefix: record.prefix,
        createdAt: record.createdAt,
        lastUsedAt: null,
      },
    });
  });

  it('returns the clinic restriction, tier, expiry and known scopes as stored, with the same types', async () => {
    const [a, b] = [await createClinic(db), await createClinic(db)];
    const expiresAt = new Date(Date.now() + 24 * HOUR);
    const { key, record } = await createApiKey(db, {
      name: name('restricted lookup'),
      scopes: ['metrics:read', 'clinics:read'],
      clinicIds: [a.id, b.id],
      tier: 'premium',
      expiresAt,
    });
    // A scope the service does not know (written by hand, say) is dropped, never granted.
    await sql(`UPDATE api_keys SET scopes = array_append(scopes, 'admin:write') WHERE id = $1`, [record.id]);
    const lookup = await lookupApiKey(db, key);
    expect(lookup).toEqual({
      status: 'valid',
      key: {
        id: record.id,
        name: record.name,
        environment: 'live',
        scopes: ['metrics:read', 'clinics:read'],
        tier: 'premium',
        clinicIds: record.clinicIds,
        expiresAt,
        prefix: record.prefix,
        createdAt: record.createdAt,
        lastUsedAt: null,
      },
    });
    expect(lookup.status === 'valid' && lookup.key.expiresAt).toBeInstanceOf(Date);
  });

  it('answers invalid for an unknown key', async () => {
    expect(await lookupApiKey(db, generateApiKey('live'))).toEqual({ status: 'invalid' });
  });

  it('answers invalid for a malformed token without querying the database', async () => {
    const { key } = await createApiKey(db, { name: name('malformed') });
    for (const token of ['', 'Bearer', key.slice(0, -1), `${key}A`, key.replace('svc_live_', 'svc_test'), key.toUpperCase()]) {
      expect(await lookupApiKey(noDb, token)).toEqual({ status: 'invalid' });
    }
  });

  it('answers invalid for a revoked key, exactly as for an unknown one', async () => {
    const { key, record } = await createApiKey(db, { name: name('revoked'), expiresAt: new Date(Date.now() + HOUR) });
    expect((await lookupApiKey(db, key)).status).toBe('valid');
    await revokeApiKey(db, record.id);
    expect(await lookupApiKey(db, key)).toEqual(await lookupApiKey(db, generateApiKey('live')));
    // Revoked wins over expired: an expired answer would reveal that the key exists.
    expect(await lookupApiKey(db, key, new Date(Date.now() + 2 * HOUR))).toEqual({ status: 'invalid' });
  });

  it('answers expired once expires_at <= now', async () => {
    const expiresAt = new Date(Date.now() + HOUR);
    const { key } = await createApiKey(db, { name: name('expiring'), expiresAt });
    expect((await lookupApiKey(db, key, new Date(expiresAt.getTime() - 1))).status).toBe('valid');
    expect(await lookupApiKey(db, key, expiresAt)).toEqual({ status: 'expired' });
    expect(await lookupApiKey(db, key, new Date(expiresAt.getTime() + HOUR))).toEqual({ status: 'expired' });
  });

  it('uses the current time by default', async () => {
    const { key, record } = await createApiKey(db, { name: name('expired in db'), expiresAt: new Date(Date.now() + HOUR) });
    await sql(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [record.id]);
    expect(await lookupApiKey(db, key)).toEqual({ status: 'expired' });
  });
});

describe('listApiKeys and revokeApiKey', () => {
  it('lists keys without the key or its hash', async () => {
    const { key, record } = await createApiKey(db, { name: name('listed') });
    const listed = await listApiKeys(db);
    const mine = listed.find((r) => r.id === record.id);
    expect(mine).toEqual(record);
    for (const r of listed) expect(Object.keys(r).sort()).toEqual(Object.keys(record).sort());
    expect(Object.keys(record)).not.toContain('hash');
    expect(Object.keys(record)).not.toContain('key');
    const text = JSON.stringify(listed);
    expect(text).not.toContain(key.slice(-API_KEY_RANDOM_LENGTH));
    expect(text).not.toContain(hashApiKey(key));
  });

  it('revokes idempotently, keeping the first revocation time', async () => {
    const { record } = await createApiKey(db, { name: name('revoke twice') });
    const first = await revokeApiKey(db, record.id);
    expect(first?.id).toBe(record.id);
    expect(first?.revokedAt).toBeInstanceOf(Date);
    const second = await revokeApiKey(db, record.id);
    expect(second?.revokedAt?.getTime()).toBe(first?.revokedAt?.getTime());
    const [row] = await sql<{ revoked_at: Date }>('SELECT revoked_at FROM api_keys WHERE id = $1', [record.id]);
    expect(row!.revoked_at.getTime()).toBe(first?.revokedAt?.getTime());
  });

  it('answers null for an unknown or malformed id', async () => {
    expect(await revokeApiKey(db, randomUUID())).toBeNull();
    expect(await revokeApiKey(noDb, 'not-a-uuid')).toBeNull();
    expect(await revokeApiKey(noDb, "'; DROP TABLE api_keys; --")).toBeNull();
  });
});
