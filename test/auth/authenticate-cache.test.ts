import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { createApiKey, createApiKeyResolver, generateApiKey, revokeApiKey } from '../../src/auth/api-keys.js';
import type { Db } from '../../src/db/client.js';
import { SQL_POOL, type SqlPool } from '../../src/db/client.js';
import { sql, testDb } from '../helpers/db.js';

const db = testDb();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

interface Instrumented {
  db: Db;
  /**
   * Names of the `db.apiKey` methods called, in order, counted at call time; `findByHash` for the
   * hand-written lookup by hash (a statement reading api_keys on the client's SQL pool).
   */
  calls: string[];
  reads(): number;
  writes(): number;
  /** Replace a method of `db.apiKey`, or `findByHash` (e.g. to make it fail). */
  override: Partial<Record<string, (...args: unknown[]) => unknown>>;
}

/** The test database, with every `db.apiKey` call and key lookup recorded (synchronously, when made). */
function instrumented(): Instrumented {
  const calls: string[] = [];
  const override: Instrumented['override'] = {};
  const pool = db[SQL_POOL];
  const sqlPool: SqlPool = {
    ...pool,
    query: (config) => {
      if (!/\bFROM api_keys\b/.test(config.text)) return pool.query(config);
      calls.push('findByHash');
      const replacement = override.findByHash;
      return replacement ? (replacement(config) as ReturnType<SqlPool['query']>) : pool.query(config);
    },
  };
  const apiKey = new Proxy(db.apiKey, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(prop));
        const replacement = override[String(prop)];
        return replacement ? replacement(...args) : (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const wrapped = new Proxy(db, {
    get: (target, prop) => (prop === 'apiKey' ? apiKey : prop === SQL_POOL ? sqlPool : Reflect.get(target, prop)),
  });
  return {
    db: wrapped,
    calls,
    override,
    reads: () => calls.filter((c) => c.startsWith('find')).length,
    writes: () => calls.filter((c) => c.startsWith('update')).length,
  };
}

function clock(start = Date.now()) {
  let t = start;
  return {
    now: () => new Date(t),
    set: (ms: number) => {
      t = ms;
    },
    advance: (ms: number) => {
      t += ms;
    },
  };
}

function name(label: string): string {
  return `test resolver ${label} ${randomUUID()}`;
}

describe('createApiKeyResolver', () => {
  it('answers like lookupApiKey: valid, unknown, malformed', async () => {
    const { key, record } = await createApiKey(db, { name: name('basic'), scopes: ['metrics:read'] });
    const i = instrumented();
    const resolver = createApiKeyResolver(i.db);
    const found = await resolver.resolve(key);
    expect(found.status).toBe('valid');
    if (found.status === 'valid') expect(found.key).toMatchObject({ id: record.id, scopes: ['metrics:read'], clinicIds: null });
    expect(await resolver.resolve(generateApiKey('live'))).toEqual({ status: 'invalid' });
    const readsBefore = i.reads();
    for (const token of ['', 'nope', `${key}x`, key.slice(0, -1)]) expect(await resolver.resolve(token)).toEqual({ status: 'invalid' });
    expect(i.reads()).toBe(readsBefore);
  });

  it('serves a cached answer within the ttl: a revoked key keeps working until the ttl passes', async () => {
    const { key, record } = await createApiKey(db, { name: name('cached') });
    const i = instrumented();
    const c = clock();
    const resolver = createApiKeyResolver(i.db, { now: c.now });

    expect((await resolver.resolve(key)).status).toBe('valid');
    expect(i.reads()).toBe(1);
    c.advance(1_000);
    expect((await resolver.resolve(key)).status).toBe('valid');
    expect(i.reads()).toBe(1);

    await revokeApiKey(db, record.id);
    c.advance(3_999); // 4,999 ms after the answer was cached
    expect((await resolver.resolve(key)).status).toBe('valid');
    expect(i.reads()).toBe(1);

    c.advance(1); // 5,000 ms: the default ttl has passed
    expect(await resolver.resolve(key)).toEqual({ status: 'invalid' });
    expect(i.reads()).toBe(2);
    // The negative answer is cached as well.
    c.advance(1_000);
    expect(await resolver.resolve(key)).toEqual({ status: 'invalid' });
    expect(i.reads()).toBe(2);
  });

  it('re-checks expiry on every resolve, even when the key is cached', async () => {
    const expiresAt = new Date(Date.now() + HOUR);
    const { key } = await createApiKey(db, { name: name('expiring'), expiresAt });
    const i = instrumented();
    const c = clock(expiresAt.getTime() - 2_000);
    const resolver = createApiKeyResolver(i.db, { now: c.now, ttlMs: MINUTE });

    expect((await resolver.resolve(key)).status).toBe('valid');
    c.set(expiresAt.getTime() - 1);
    expect((await resolver.resolve(key)).status).toBe('valid');
    c.set(expiresAt.getTime());
    expect(await resolver.resolve(key)).toEqual({ status: 'expired' });
    expect(i.reads()).toBe(1);
  });

  it('caches negative answers in a bounded, least-recently-used cache', async () => {
    const i = instrumented();
    const resolver = createApiKeyResolver(i.db, { maxEntries: 3, ttlMs: HOUR });
    const [a, b, c, d] = Array.from({ length: 4 }, () => generateApiKey('live')) as [string, string, string, string];

    for (const token of [a, b, c]) expect(await resolver.resolve(token)).toEqual({ status: 'invalid' });
    expect(i.reads()).toBe(3);
    await resolver.resolve(a); // hit: a becomes the most recently used
    expect(i.reads()).toBe(3);

    await resolver.resolve(d); // a fourth entry evicts the least recently used: b
    expect(i.reads()).toBe(4);
    await resolver.resolve(a);
    await resolver.resolve(c);
    await resolver.resolve(d);
    expect(i.reads()).toBe(4);
    await resolver.resolve(b);
    expect(i.reads()).toBe(5);
  });

  it('never holds more than maxEntries answers, however many random tokens arrive', async () => {
    const i = instrumented();
    const resolver = createApiKeyResolver(i.db, { maxEntries: 5, ttlMs: HOUR });
    const tokens = Array.from({ length: 20 }, () => generateApiKey('test'));
    for (const token of tokens) await resolver.resolve(token);
    expect(i.reads()).toBe(20);
    // Only the five most recent are still answered from the cache.
    for (const token of tokens.slice(-5)) await resolver.resolve(token);
    expect(i.reads()).toBe(20);
    for (const token of tokens.slice(0, 15)) await resolver.resolve(token);
    expect(i.reads()).toBe(35);
  });

  it('shares one query between concurrent resolves of the same token', async () => {
    const { key, record } = await createApiKey(db, { name: name('concurrent') });
    const i = instrumented();
    const resolver = createApiKeyResolver(i.db);
    const results = await Promise.all(Array.from({ length: 25 }, () => resolver.resolve(key)));
    expect(results.every((r) => r.status === 'valid' && r.key.id === record.id)).toBe(true);
    expect(i.reads()).toBe(1);
    const unknown = generateApiKey('live');
    await Promise.all(Array.from({ length: 25 }, () => resolver.resolve(unknown)));
    expect(i.reads()).toBe(2);
  });

  it('does not cache a failed query: the error reaches the caller and the next resolve retries', async () => {
    const { key } = await createApiKey(db, { name: name('db down') });
    const i = instrumented();
    const resolver = createApiKeyResolver(i.db);
    i.override.findByHash = () => Promise.reject(new Error('database unreachable'));
    const failures = await Promise.allSettled([resolver.resolve(key), resolver.resolve(key)]);
    expect(failures.map((f) => f.status)).toEqual(['rejected', 'rejected']);
    expect(i.reads()).toBe(1);
    delete i.override.findByHash;
    expect((await resolver.resolve(key)).status).toBe('valid');
    expect(i.reads()).toBe(2);
  });

  it('clear() forgets cached answers', async () => {
    const { key, record } = await createApiKey(db, { name: name('clear') });
    const i = instrumented();
    const resolver = createApiKeyResolver(i.db, { ttlMs: HOUR });
    expect((await resolver.resolve(key)).status).toBe('valid');
    await revokeApiKey(db, record.id);
    expect((await resolver.resolve(key)).status).toBe('valid');
    resolver.clear();
    expect(await resolver.resolve(key)).toEqual({ status: 'invalid' });
    expect(i.reads()).toBe(2);
  });

  it('with ttlMs 0 queries on every resolve', async () => {
    const { key } = await createApiKey(db, { name: name('no cache') });
    const i = instrumented();
    const resolver = createApiKeyResolver(i.db, { ttlMs: 0 });
    await resolver.resolve(key);
    await resolver.resolve(key);
    expect(i.reads()).toBe(2);
  });

  it('refuses nonsensical options', () => {
    expect(() => createApiKeyResolver(db, { ttlMs: -1 })).toThrow(RangeError);
    expect(() => createApiKeyResolver(db, { maxEntries: Number.NaN })).toThrow(RangeError);
  });

  it('records last_used_at at most once per key per minute', async () => {
    const { key, record } = await createApiKey(db, { name: name('last used') });
    const i = instrumented();
    const start = Math.floor(Date.now() / 1000) * 1000;
    const c = clock(start);
    const resolver = createApiKeyResolver(i.db, { now: c.now, ttlMs: 0 });
    const lastUsed = async () => (await sql<{ t: Date | null }>('SELECT last_used_at AS t FROM api_keys WHERE id = $1', [record.id]))[0]!.t;

    await resolver.resolve(key);
    expect(i.writes()).toBe(1);
    await vi.waitFor(async () => expect((await lastUsed())?.getTime()).toBe(start));

    c.advance(30_000);
    await resolver.resolve(key);
    c.advance(29_999);
    await resolver.resolve(key);
    expect(i.writes()).toBe(1);

    c.advance(1); // a minute after the first write
    await resolver.resolve(key);
    expect(i.writes()).toBe(2);
    await vi.waitFor(async () => expect((await lastUsed())?.getTime()).toBe(start + MINUTE));
  });

  it('hands out last_used_at as stored before the use: a cached principal shows a use once it is written', async () => {
    const { key } = await createApiKey(db, { name: name('last used cached') });
    const start = Math.floor(Date.now() / 1000) * 1000;
    const c = clock(start);
    const resolver = createApiKeyResolver(db, { now: c.now });
    const lastUsedAt = async () => {
      const lookup = await resolver.resolve(key);
      if (lookup.status !== 'valid') throw new Error('expected a valid key');
      return lookup.key.lastUsedAt?.getTime() ?? null;
    };
    // The first use is never its own last use; the cached entry learns of it when it is written.
    expect(await lastUsedAt()).toBeNull();
    c.advance(1_000);
    await vi.waitFor(async () => expect(await lastUsedAt()).toBe(start));
    // A later use within the minute is not written, so not shown either.
    c.advance(20_000);
    expect(await lastUsedAt()).toBe(start);
  });

  it('does not record use of unknown, revoked or expired keys', async () => {
    const expiresAt = new Date(Date.now() + HOUR);
    const expiring = await createApiKey(db, { name: name('unused expired'), expiresAt });
    const revoked = await createApiKey(db, { name: name('unused revoked') });
    await revokeApiKey(db, revoked.record.id);
    const i = instrumented();
    const resolver = createApiKeyResolver(i.db, { now: () => new Date(expiresAt.getTime() + 1) });
    expect((await resolver.resolve(expiring.key)).status).toBe('expired');
    expect((await resolver.resolve(revoked.key)).status).toBe('invalid');
    expect((await resolver.resolve(generateApiKey('live'))).status).toBe('invalid');
    expect(i.writes()).toBe(0);
  });

  it('never fails a request because recording last_used_at fails', async () => {
    const { key } = await createApiKey(db, { name: name('touch fails') });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const i = instrumented();
    const c = clock();
    const resolver = createApiKeyResolver(i.db, { now: c.now, ttlMs: 0 });
    i.override.updateMany = () => Promise.reject(new Error('write failed'));
    expect((await resolver.resolve(key)).status).toBe('valid');
    c.advance(MINUTE);
    i.override.updateMany = () => {
      throw new Error('client gone');
    };
    expect((await resolver.resolve(key)).status).toBe('valid');
    expect(i.writes()).toBe(2);
    // Give a rejection left unhandled the chance to surface.
    await new Promise((resolve) => setTimeout(resolve, 50));
    process.off('unhandledRejection', onUnhandled);
    expect(unhandled).toEqual([]);
  });

  it('hands out a frozen principal, so one request cannot alter what the next one sees', async () => {
    const { key } = await createApiKey(db, { name: name('frozen') });
    const resolver = createApiKeyResolver(db);
    const first = await resolver.resolve(key);
    if (first.status !== 'valid') throw new Error('expected a valid key');
    expect(() => first.key.scopes.push('metrics:read')).toThrow(TypeError);
    expect(() => {
      (first.key as { tier: string }).tier = 'unlimited';
    }).toThrow(TypeError);
    const second = await resolver.resolve(key);
    expect(second.status === 'valid' && second.key.tier).toBe('standard');
  });
});
