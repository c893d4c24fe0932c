// First start on the embedded database: demo data and a demo key. The key itself is kept in the data
// folder (mode 600), never in the database, so later starts can print it again. A stored key that
// can no longer be used (revoked, expired) is replaced by a new one, so what is printed and pre-filled
// in GraphiQL and /docs always works. The demo key is Premium tier (DEMO_KEY_TIER).
//
// The demo data are sandbox data and the demo key a `svc_test_` key (decisions section 12), which
// sees only sandbox clinics. Only ever called for the embedded database (server.ts), never for a
// DATABASE_URL one.
import fs from 'node:fs';
import path from 'node:path';
import { createApiKey, lookupApiKey } from './auth/api-keys.js';
import type { Db } from './db/client.js';
import { queryRows } from './db/client.js';
import { isUuid } from './domain/parameters.js';
import { type KeyTierValue, TIER_LIMITS } from './domain/values.js';
import { Prisma } from './generated/prisma/client.js';
import { generateDemoData, SEED_DEFAULTS, type SeedOptions } from './seed/generate.js';
import { seedDemoData } from './seed/seed-database.js';

interface DemoKeyFile {
  id: string;
  key: string;
}

/** The demo key's tier: room for a tour and GraphiQL's schema loading (Standard allows 60 requests a minute). */
export const DEMO_KEY_TIER = 'premium' satisfies KeyTierValue;
const DEMO_KEY_NAME = 'Demo key (embedded database)';

export interface DemoSetup {
  /** The demo key, always a valid one: the stored key, or a new one when there was none or it could no longer be used. */
  key: string;
  /** Why this start replaced the stored demo key; null when it kept it or there was none. */
  replaced: 'revoked' | 'expired' | 'unknown' | null;
  /** True when this start raised the stored demo key to the demo tier (a data folder from before it was Premium). */
  upgraded: boolean;
  seeded: boolean;
  /** Clinics of a demo database older than environments that this start made sandbox clinics. */
  movedToSandbox: number;
}

/** The migration that gave clinics an environment (every clinic then existing became live). */
export const ENVIRONMENTS_MIGRATION = '20261127024429_patient_data';

/** `demoData`: the size of the demo data (the defaults; tests load less). */
export async function ensureDemoSetup(db: Db, url: string, dataDir: string, log: (m: string) => void, demoData: SeedOptions = {}): Promise<DemoSetup> {
  let seeded = false;
  if ((await db.clinic.count()) === 0) {
    const { interactions, days } = { ...SEED_DEFAULTS, ...demoData };
    log(`Empty database: loading sandbox demo data (${interactions.toLocaleString('en-US')} interactions over the last ${days} days)...`);
    const counts = await seedDemoData(url, { ...demoData, environment: 'sandbox' });
    log(`Loaded ${counts.clinics} sandbox clinics, ${counts.campaigns} campaigns and ${counts.interactions} interactions.`);
    seeded = true;
  }
  const file = path.join(dataDir, 'demo-key.json');
  if (!fs.existsSync(file)) return { key: await newDemoKey(db, file), replaced: null, upgraded: false, seeded, movedToSandbox: 0 };

  const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as DemoKeyFile;
  const lookup = await lookupApiKey(db, stored.key);
  const movedToSandbox = seeded ? 0 : await demoClinicsToSandbox(db, stored.id);
  if (movedToSandbox > 0) {
    log(`Demo data from before environments: its ${movedToSandbox} clinics are now sandbox clinics, which the demo key (svc_test_) sees.`);
  }
  if (lookup.status === 'valid') {
    // The demo key was Standard before; whoever starts the demo expects the demo key's room.
    const upgraded = lookup.key.tier === 'standard';
    if (upgraded) {
      await db.apiKey.update({ where: { id: lookup.key.id }, data: { tier: DEMO_KEY_TIER } });
      log(
        `The demo key ${lookup.key.prefix}... was Standard tier; it is now Premium (${TIER_LIMITS[DEMO_KEY_TIER]?.minute} requests a minute), as demo keys are.`,
      );
    }
    return { key: stored.key, replaced: null, upgraded, seeded, movedToSandbox };
  }
  const replaced = lookup.status === 'expired' ? 'expired' : await whyUnusable(db, stored.id);
  const key = await newDemoKey(db, file);
  const why = { revoked: 'was revoked', expired: 'has expired', unknown: 'is not in this database' }[replaced];
  log(`The stored demo key ${stored.key.slice(0, 13)}... ${why}: made a new demo key ${key.slice(0, 13)}... (printed below).`);
  return { key, replaced, upgraded: false, seeded, movedToSandbox };
}

/** A key that is neither valid nor expired was revoked, unless its row is gone (a database made anew under an old data folder). */
async function whyUnusable(db: Db, id: string): Promise<'revoked' | 'unknown'> {
  const row = isUuid(id) ? await db.apiKey.findUnique({ where: { id }, select: { revokedAt: true } }) : null;
  return row?.revokedAt ? 'revoked' : 'unknown';
}

/** Issues a demo key and stores it in the data folder (mode 600), replacing any stored one. */
async function newDemoKey(db: Db, file: string): Promise<string> {
  const { key, record } = await createApiKey(db, { name: DEMO_KEY_NAME, environment: 'test', tier: DEMO_KEY_TIER });
  fs.writeFileSync(file, JSON.stringify({ id: record.id, key } satisfies DemoKeyFile), { mode: 0o600 });
  // writeFileSync's mode applies only when it creates the file.
  fs.chmodSync(file, 0o600);
  return key;
}

/**
 * A demo database seeded before environments existed: the migration made its clinics live, while its
 * demo key is a test key, so the demo would show nothing. Its clinics become sandbox clinics again,
 * as a new demo database's are. Only when all of this holds, so nothing else is ever moved:
 * - the demo key is a test key created before the environments migration was applied (a database
 *   set up later was seeded as sandbox; its live clinics are someone's choice);
 * - the clinic is one the demo seeded: its id is one of the default seed's (ids depend only on the
 *   seed and the counts), and it is live.
 * Returns how many clinics were moved (0 on every later start).
 */
async function demoClinicsToSandbox(db: Db, demoKeyId: string): Promise<number> {
  const demoClinics = generateDemoData({}).clinics.map((clinic) => clinic.id);
  const moved = await queryRows<{ id: string }>(
    db,
    Prisma.sql`UPDATE clinics SET environment = 'sandbox'
               WHERE id = ANY(${demoClinics}::uuid[]) AND environment = 'live'
                 AND EXISTS (SELECT 1 FROM api_keys k JOIN _prisma_migrations m ON m.migration_name = ${ENVIRONMENTS_MIGRATION}
                             WHERE k.id = ${demoKeyId}::uuid AND k.environment = 'test' AND k.created_at < m.started_at)
               RETURNING id::text AS id`,
  );
  return moved.length;
}
