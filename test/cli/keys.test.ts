// `keys create | list | revoke` on the test database: in-process through `run`, and once as an
// operator runs it (`npm run cli -- ...`, a child process).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashApiKey, lookupApiKey } from '../../src/auth/api-keys.js';
import { migrate } from '../../src/db/migrate.js';
import { type CliRun, runCli, spawnCli } from '../helpers/cli.js';
import { sql, testDb, withFreshDatabase } from '../helpers/db.js';
import { createClinic } from '../helpers/factories.js';

const db = testDb();

const cli = (...args: string[]) => runCli(args);

function json<T = Record<string, unknown>>(run: CliRun): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`stdout is not one JSON document (exit ${run.code}):\n${run.stdout}\nstderr:\n${run.stderr}`);
  }
}

function name(label: string): string {
  return `cli ${label} ${randomUUID()}`;
}

async function keysNamed(keyName: string): Promise<number> {
  const rows = await sql<{ n: string }>('SELECT count(*) AS n FROM api_keys WHERE name = $1', [keyName]);
  return Number(rows[0]!.n);
}

interface Created {
  id: string;
  key: string;
  name: string;
  environment: string;
  prefix: string;
  scopes: string[];
  tier: string;
  clinic_ids: string[] | null;
  expires_at: string | null;
}

describe('npm run cli -- keys create (a process)', () => {
  it('exits 0 with the key as one JSON document on stdout and the warning alone on stderr', async () => {
    const keyName = name('process');
    const created = await spawnCli(['--json', 'keys', 'create', '--name', keyName]);
    expect(created.code, created.stderr).toBe(0);
    const body = json<Created>(created);
    expect(body).toMatchObject({ name: keyName, environment: 'live', key: expect.stringMatching(/^svc_live_[0-9A-Za-z]{40}$/) });
    expect(created.stderr).toBe('This key is shown only once and cannot be retrieved again: store it securely now.\n');
    expect((await lookupApiKey(db, body.key)).status).toBe('valid');
  });
});

describe('keys create, list, revoke', () => {
  it('creates a restricted test key (--json), lists it without the key, revokes it, and lookup sees the revocation', async () => {
    const clinic = await createClinic(db);
    const keyName = name('lifecycle');
    const expiresAt = new Date(Date.now() + 7 * 24 * 3_600_000);
    expiresAt.setUTCMilliseconds(0);

    const created = await cli(
      '--json',
      'keys',
      'create',
      '--name',
      keyName,
      '--scopes',
      'metrics:read,clinics:read',
      '--clinics',
      clinic.id,
      '--tier',
      'premium',
      '--expires-at',
      expiresAt.toISOString().replace('.000Z', 'Z'),
      '--test',
    );
    expect(created.code, created.stderr).toBe(0);
    const body = json<Created>(created);
    expect(Object.keys(body).sort()).toEqual(['clinic_ids', 'environment', 'expires_at', 'id', 'key', 'name', 'prefix', 'scopes', 'tier'].sort());
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      key: expect.stringMatching(/^svc_test_[0-9A-Za-z]{40}$/),
      name: keyName,
      environment: 'test',
      prefix: body.key.slice(0, 13),
      scopes: ['metrics:read', 'clinics:read'],
      tier: 'premium',
      clinic_ids: [clinic.id],
      expires_at: expiresAt.toISOString(),
    });
    expect(created.stderr).toMatch(/cannot be (shown|retrieved) again/);
    // The clinic is live (the default): a test key is created all the same, with a note.
    expect(created.stderr).toContain(`Note: clinic ${clinic.id} is a live clinic: this test key never sees it (it sees sandbox clinics only)`);

    const [row] = await sql<{ hash: string }>('SELECT hash FROM api_keys WHERE id = $1', [body.id]);
    expect(row!.hash).toBe(hashApiKey(body.key));
    const found = await lookupApiKey(db, body.key);
    expect(found.status).toBe('valid');
    if (found.status === 'valid') {
      expect(found.key).toMatchObject({ id: body.id, environment: 'test', tier: 'premium', clinicIds: [clinic.id], scopes: ['metrics:read', 'clinics:read'] });
    }

    const listed = await cli('keys', 'list', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const list = json<Array<Record<string, unknown>>>(listed);
    expect(Array.isArray(list)).toBe(true);
    expect(list.find((k) => k.id === body.id)).toMatchObject({
      name: keyName,
      prefix: body.prefix,
      environment: 'test',
      tier: 'premium',
      clinic_ids: [clinic.id],
      expires_at: expiresAt.toISOString(),
      revoked_at: null,
      status: 'active',
    });
    const random = body.key.slice(-40);
    expect(listed.stdout).not.toContain(random);
    expect(listed.stdout).not.toContain(hashApiKey(body.key));

    const revoked = await cli('--json', 'keys', 'revoke', body.id);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(json(revoked)).toMatchObject({ id: body.id, status: 'revoked', revoked_at: expect.any(String) });
    expect(await lookupApiKey(db, body.key)).toEqual({ status: 'invalid' });

    const again = await cli('--json', 'keys', 'revoke', body.id);
    expect(again.code, again.stderr).toBe(0);
    expect(json(again).revoked_at).toBe(json(revoked).revoked_at);
  });

  it('prints the key once, with a warning, in human output; list shows a table without it', async () => {
    const keyName = name('human');
    const created = await cli('keys', 'create', '--name', keyName);
    expect(created.code, created.stderr).toBe(0);
    const keys = created.stdout.match(/svc_live_[0-9A-Za-z]{40}/g) ?? [];
    expect(keys).toHaveLength(1);
    const key = keys[0]!;
    expect(created.stdout).toMatch(/cannot be retrieved again/);
    const found = await lookupApiKey(db, key);
    expect(found.status).toBe('valid');
    if (found.status !== 'valid') return;
    expect(found.key).toMatchObject({
      name: keyName,
      environment: 'live',
      tier: 'standard',
      clinicIds: null,
      scopes: ['interactions:read', 'metrics:read', 'campaigns:read', 'clinics:read', 'phi:read'],
    });

    const listed = await cli('keys', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^ID\s+NAME\s+PREFIX/);
    const line = listed.stdout.split('\n').find((l) => l.includes(found.key.id));
    expect(line).toContain(keyName);
    expect(line).toContain(key.slice(0, 13));
    expect(line).toContain('active');
    expect(listed.stdout).not.toContain(key.slice(-40));

    const revoked = await cli('keys', 'revoke', found.key.id);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain('Revoked');
    expect(await lookupApiKey(db, key)).toEqual({ status: 'invalid' });
  });

  it('refuses to revoke a malformed or unknown id', async () => {
    const malformed = await cli('--json', 'keys', 'revoke', 'not-a-key-id');
    expect(malformed.code).toBe(2);
    expect(json<{ error: string }>(malformed).error).toMatch(/not-a-key-id.*UUID/);

    const unknownId = randomUUID();
    const unknown = await cli('keys', 'revoke', unknownId);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`No API key with id ${unknownId}`);
  });
});

describe('keys create with invalid options', () => {
  const cases: Array<[string, string[], string]> = [
    ['a missing name', [], '--name'],
    ['an empty name', ['--name', ''], '--name'],
    ['an unknown scope', ['--scopes', 'metrics:read,admin'], '--scopes'],
    ['an empty scope item', ['--scopes', 'metrics:read,'], '--scopes'],
    ['a malformed clinic id', ['--clinics', 'clinic-1'], '--clinics'],
    ['an unknown clinic', ['--clinics', randomUUID()], '--clinics'],
    ['an unknown tier', ['--tier', 'gold'], '--tier'],
    ['an expiry in the past', ['--expires-at', '2020-01-01T00:00:00Z'], '--expires-at'],
    ['an impossible date', ['--expires-at', '2099-02-30'], '--expires-at'],
    ['a date-time without a zone', ['--expires-at', '2099-01-01T10:00:00'], '--expires-at'],
    ['garbage as expiry', ['--expires-at', 'next tuesday'], '--expires-at'],
  ];

  // Usage errors, exit 2 as the CLI's exit codes say (README.md and docs/cli.md) (a key that cannot be found is exit 1).
  it.concurrent.each(cases)('%s: exit 2 naming the option, nothing created', async (_label, args, option) => {
    const keyName = name('invalid');
    const withName = args[0] === '--name' || _label === 'a missing name' ? args : ['--name', keyName, ...args];
    const run = await cli('--json', 'keys', 'create', ...withName);
    expect(run.code, run.stderr).toBe(2);
    const body = json<{ error: string }>(run);
    expect(body.error).toContain(option);
    expect(run.stdout).not.toMatch(/svc_(live|test)_/);
    expect(await keysNamed(keyName)).toBe(0);
  });

  it('without --json, prints the message on stderr', async () => {
    const run = await cli('keys', 'create', '--name', name('invalid human'), '--tier', 'gold');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--tier');
    expect(run.stdout).toBe('');
  });
});

describe('keys create on a database whose clinics are all of the other environment', () => {
  it('says that the key sees nothing and how to make one that sees them (the embedded demo database: sandbox clinics only)', async () => {
    await withFreshDatabase('keys_env', async (url, client) => {
      await migrate(url);
      await client.connect();
      for (let i = 0; i < 3; i++) {
        await client.query(
          `INSERT INTO clinics (id, name, address, phone, email, timezone, environment) VALUES ($1, 'Demo', 'Street 1', '+34 910 000 000', 'd@example.test', 'UTC', 'sandbox')`,
          [randomUUID()],
        );
      }

      const live = await runCli(['--json', 'keys', 'create', '--name', name('live on sandbox')], url);
      expect(live.code, live.stderr).toBe(0);
      expect(json<Created>(live).environment).toBe('live');
      expect(live.stderr).toContain(
        'Note: no clinic is in the live environment, so this live key sees nothing (empty lists, zero metrics) until live data is imported; ' +
          'the 3 clinics are sandbox: for them, create a key with --environment sandbox (or --test).',
      );

      // The key the note asks for: sandbox, through --environment as import and seed take it; no note.
      const sandbox = await runCli(['--json', 'keys', 'create', '--name', name('sandbox'), '--environment', 'sandbox'], url);
      expect(sandbox.code, sandbox.stderr).toBe(0);
      expect(json<Created>(sandbox)).toMatchObject({ environment: 'test', key: expect.stringMatching(/^svc_test_/) });
      expect(sandbox.stderr).toBe('This key is shown only once and cannot be retrieved again: store it securely now.\n');

      const conflicting = await runCli(['keys', 'create', '--name', name('both'), '--test', '--environment', 'live'], url);
      expect(conflicting.code).toBe(2);
      expect(conflicting.stderr).toContain('--test makes a sandbox key');
      const unknown = await runCli(['keys', 'create', '--name', name('unknown env'), '--environment', 'staging'], url);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('--environment must be one of live, sandbox');
    });
  });
});
