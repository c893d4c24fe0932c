// Run by request-walk.test.ts in a process of its own (node --import tsx): the app alone, so that
// nothing else (another test file's timers, in a worker that runs many) runs while the request is
// measured. Prints the source files with a function that ran during the second of two identical
// requests, as JSON. Arguments: the database URL, the API key, the campaign id.
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from '../../src/app.js';
import { createApiKeyResolver } from '../../src/auth/api-keys.js';
import { createPrismaClient } from '../../src/db/client.js';

const SRC = path.resolve(import.meta.dirname, '../../src');
const [databaseUrl, key, campaignId] = process.argv.slice(2) as [string, string, string];

const db = createPrismaClient(databaseUrl, 2);
// As the tests' app (test/helpers/app.ts): no key cache, no brute-force limits, no field limits.
const noLimit = Number.MAX_SAFE_INTEGER;
const app = createApp({
  db,
  keyResolver: createApiKeyResolver(db, { ttlMs: 0 }),
  authFailureLimits: { minute: noLimit, hour: noLimit, day: noLimit },
  fieldRateLimits: [],
});

async function request(): Promise<void> {
  const response = await app.fetch(`http://localhost/api/v1/interactions?campaign_id=${campaignId}`, { headers: { Authorization: `Bearer ${key}` } });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${response.status}: ${body}`);
}

/** The source files (relative to the repository) with a function that ran while `fn` did. */
async function filesRunBy(fn: () => Promise<void>): Promise<string[]> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    // (taking coverage resets the counts: what follows is the request's alone)
    await session.post('Profiler.takePreciseCoverage');
    await fn();
    const { result } = await session.post('Profiler.takePreciseCoverage');
    await session.post('Profiler.stopPreciseCoverage');
    const files = new Set<string>();
    for (const script of result) {
      if (!script.url.startsWith('file://')) continue;
      const file = fileURLToPath(script.url.split('?')[0]!);
      if (!file.startsWith(SRC) || file.includes(`${path.sep}generated${path.sep}`)) continue;
      if (script.functions.some((f) => f.ranges[0]!.count > 0)) files.add(path.relative(path.resolve(SRC, '..'), file));
    }
    return [...files].sort();
  } finally {
    session.disconnect();
  }
}

try {
  // The first request compiles and caches what every later one reuses (documents, plans, the key).
  await request();
  process.stdout.write(`${JSON.stringify(await filesRunBy(request))}\n`);
} finally {
  await db.$disconnect();
}
process.exit(0);
