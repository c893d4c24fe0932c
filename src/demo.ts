// First start on the embedded database: demo data and a demo key. The key itself is kept in the data
// folder (mode 600), never in the database, so later starts can print it again.
import fs from 'node:fs';
import path from 'node:path';
import { createApiKey, lookupApiKey } from './auth/api-keys.js';
import type { Db } from './db/client.js';
import { seedDemoData } from './seed/seed-database.js';

interface DemoKeyFile {
  id: string;
  key: string;
}

export interface DemoSetup {
  key: string;
  /** False when the stored demo key was revoked or has expired. */
  keyValid: boolean;
  seeded: boolean;
}

export async function ensureDemoSetup(db: Db, url: string, dataDir: string, log: (m: string) => void): Promise<DemoSetup> {
  let seeded = false;
  if ((await db.clinic.count()) === 0) {
    log('Empty database: loading demo data (about 50,000 interactions over the last 90 days)...');
    const counts = await seedDemoData(url, {});
    log(`Loaded ${counts.clinics} clinics, ${counts.campaigns} campaigns and ${counts.interactions} interactions.`);
    seeded = true;
  }
  const file = path.join(dataDir, 'demo-key.json');
  if (fs.existsSync(file)) {
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as DemoKeyFile;
    const lookup = await lookupApiKey(db, stored.key);
    return { key: stored.key, keyValid: lookup.status === 'valid', seeded };
  }
  const { key, record } = await createApiKey(db, { name: 'Demo key (embedded database)', environment: 'test' });
  fs.writeFileSync(file, JSON.stringify({ id: record.id, key } satisfies DemoKeyFile), { mode: 0o600 });
  return { key, keyValid: true, seeded };
}
