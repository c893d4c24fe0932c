// The demo key that `npm start` prints and pre-fills on the embedded database: always one that
// works, and Premium tier.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../src/app.js';
import { createApiKey, revokeApiKey } from '../src/auth/api-keys.js';
import { createPrismaClient, type Db } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { type DemoSetup, ensureDemoSetup } from '../src/demo.js';
import { testApp } from './helpers/app.js';
import { withFreshDatabase } from './helpers/db.js';
import { get } from './rest/client.js';

const SMALL = { clinics: 2, interactions: 50, days: 3 };

let db: Db;
let url: string;
let app: App;
let done: () => void;
let dropped: Promise<void>;
const folders: string[] = [];

beforeAll(async () => {
  const ready = new Promise<string>((resolve) => {
    dropped = withFreshDatabase('demo_key', async (fresh) => {
      resolve(fresh);
      await new Promise<void>((release) => {
        done = release;
      });
    });
  });
  url = await ready;
  await migrate(url);
  db = createPrismaClient(url, 2);
  app = testApp(db);
});

afterAll(async () => {
  await db?.$disconnect();
  done?.();
  await dropped;
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

function dataFolder(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-key-'));
  folders.push(folder);
  return folder;
}

async function start(folder: string): Promise<{ setup: DemoSetup; logged: string }> {
  const lines: string[] = [];
  const setup = await ensureDemoSetup(db, url, folder, (line) => lines.push(line), SMALL);
  return { setup, logged: lines.join('\n') };
}

const stored = (folder: string) => JSON.parse(fs.readFileSync(path.join(folder, 'demo-key.json'), 'utf8')) as { id: string; key: string };

/** What a user of the printed key sees on /me: status, tier and the minute quota. */
async function me(key: string): Promise<{ status: number; tier?: string; minute?: number }> {
  const response = await get(app, '/api/v1/me', key);
  const data = response.body.data as { tier: string; quota: { minute: { limit: number } } } | undefined;
  return { status: response.status, tier: data?.tier, minute: data?.quota.minute.limit };
}

describe('the demo key', () => {
  it('is made Premium (300 requests a minute) on the first start, stored mode 600, and kept by later starts', async () => {
    const folder = dataFolder();
    const first = await start(folder);
    expect(first.setup).toMatchObject({ replaced: null, upgraded: false });
    expect(first.setup.key).toMatch(/^svc_test_/);
    expect(await me(first.setup.key)).toEqual({ status: 200, tier: 'premium', minute: 300 });
    expect(stored(folder).key).toBe(first.setup.key);
    expect(fs.statSync(path.join(folder, 'demo-key.json')).mode & 0o777).toBe(0o600);

    const second = await start(folder);
    expect(second.setup).toEqual({ key: first.setup.key, replaced: null, upgraded: false, seeded: false, movedToSandbox: 0 });
    expect(second.logged).toBe('');
  });

  it('revoked: the next start makes, stores and returns a new valid key, and says why', async () => {
    const folder = dataFolder();
    const { setup: old } = await start(folder);
    await revokeApiKey(db, stored(folder).id);
    expect((await me(old.key)).status).toBe(401);

    const { setup, logged } = await start(folder);
    expect(setup.replaced).toBe('revoked');
    expect(setup.key).not.toBe(old.key);
    expect(await me(setup.key)).toEqual({ status: 200, tier: 'premium', minute: 300 });
    expect(stored(folder).key).toBe(setup.key);
    expect(fs.statSync(path.join(folder, 'demo-key.json')).mode & 0o777).toBe(0o600);
    expect(logged).toContain(`The stored demo key ${old.key.slice(0, 13)}... was revoked: made a new demo key ${setup.key.slice(0, 13)}...`);
    // The old key stays revoked; the new one is kept from then on.
    expect((await me(old.key)).status).toBe(401);
    expect((await start(folder)).setup).toMatchObject({ key: setup.key, replaced: null });
  });

  it('expired: the next start makes a new valid key, and says why', async () => {
    const folder = dataFolder();
    const { setup: old } = await start(folder);
    await db.apiKey.update({ where: { id: stored(folder).id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await me(old.key)).status).toBe(401);

    const { setup, logged } = await start(folder);
    expect(setup.replaced).toBe('expired');
    expect(setup.key).not.toBe(old.key);
    expect(await me(setup.key)).toEqual({ status: 200, tier: 'premium', minute: 300 });
    expect(stored(folder).key).toBe(setup.key);
    expect(logged).toContain(`The stored demo key ${old.key.slice(0, 13)}... has expired: made a new demo key`);
  });

  it('a stored key the database does not know (a database made anew): a new valid key', async () => {
    const folder = dataFolder();
    const { key } = await createApiKey(db, { name: 'elsewhere', environment: 'test' });
    // Another key's text: its last character changed (to one it does not already end with).
    fs.writeFileSync(
      path.join(folder, 'demo-key.json'),
      JSON.stringify({ id: '00000000-0000-4000-8000-000000000000', key: `${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}` }),
    );
    const { setup, logged } = await start(folder);
    expect(setup.replaced).toBe('unknown');
    expect((await me(setup.key)).status).toBe(200);
    expect(logged).toContain('is not in this database: made a new demo key');
  });

  it('a Standard demo key from an older data folder is raised to Premium in place: the same key keeps working', async () => {
    const folder = dataFolder();
    const { key, record } = await createApiKey(db, { name: 'Demo key (embedded database)', environment: 'test' });
    fs.writeFileSync(path.join(folder, 'demo-key.json'), JSON.stringify({ id: record.id, key }), { mode: 0o600 });
    expect(await me(key)).toMatchObject({ tier: 'standard', minute: 60 });

    const { setup, logged } = await start(folder);
    expect(setup).toMatchObject({ key, replaced: null, upgraded: true });
    expect(await me(key)).toEqual({ status: 200, tier: 'premium', minute: 300 });
    expect(logged).toContain(`The demo key ${record.prefix}... was Standard tier; it is now Premium (300 requests a minute)`);
    expect((await start(folder)).setup).toMatchObject({ key, upgraded: false });
  });

  it('an Unlimited demo key (an operator raised it) is left as it is', async () => {
    const folder = dataFolder();
    const { key, record } = await createApiKey(db, { name: 'Demo key (embedded database)', environment: 'test', tier: 'unlimited' });
    fs.writeFileSync(path.join(folder, 'demo-key.json'), JSON.stringify({ id: record.id, key }), { mode: 0o600 });
    expect((await start(folder)).setup).toMatchObject({ key, replaced: null, upgraded: false });
    expect(await me(key)).toMatchObject({ status: 200, tier: 'unlimited' });
  });
});
