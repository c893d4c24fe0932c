// The files one request runs through: `GET /api/v1/interactions?campaign_id=...`, measured by
// V8's precise coverage around the request (the functions it called, whatever imported them),
// against the walk docs/architecture.md lists. Reading a constant another file exports is not
// running that file: under Vitest each export is read through a getter the module runner adds
// (`() => { try { return NAME } catch {} }`), which plain Node does not have, so those are skipped. A change that routes the request through another
// module, or no longer through one listed, fails here until the page says so.

import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';

const SRC = path.resolve(import.meta.dirname, '../../src');

/** The getter through which Vitest's module runner reads an export: not the module's own code. */
const EXPORT_GETTER = /^\(\) => \{ try \{ return [\w$]+ \} catch \{\} \}$/;

/** The source files (relative to the repository) with a function that ran while `fn` did. */
async function filesRunBy(fn: () => Promise<void>): Promise<string[]> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Debugger.enable');
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
      const ran = script.functions.filter((f) => f.ranges[0]!.count > 0);
      if (ran.length === 0) continue;
      const { scriptSource } = await session.post('Debugger.getScriptSource', { scriptId: script.scriptId });
      const own = ran.filter((f) => !EXPORT_GETTER.test(scriptSource.slice(f.ranges[0]!.startOffset, f.ranges[0]!.endOffset)));
      if (own.length > 0) files.add(path.relative(path.resolve(SRC, '..'), file));
    }
    await session.post('Debugger.disable');
    return [...files].sort();
  } finally {
    session.disconnect();
  }
}

/** The files by folder, one line per folder, as the page lists them. */
function walkMarkdown(files: string[]): string {
  const byFolder = new Map<string, string[]>();
  for (const file of files) {
    const folder = path.dirname(file);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), path.basename(file)]);
  }
  return `${[...byFolder].map(([folder, names]) => `- \`${folder}/\`: ${names.map((name) => `\`${name}\``).join(', ')}`).join('\n')}\n`;
}

describe('a request through the code', () => {
  it('GET /api/v1/interactions?campaign_id=... runs the files docs/architecture.md lists, and no others', async () => {
    const db = testDb();
    const clinic = await createClinic(db);
    const campaign = await createCampaign(db, clinic.id);
    await createInteraction(db, { clinicId: clinic.id, campaignId: campaign.id });
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const app = testApp(db);
    const request = async () => {
      const response = await app.fetch(`http://localhost/api/v1/interactions?campaign_id=${campaign.id}`, { headers: { Authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
      await response.text();
    };
    // The first request compiles and caches what every later one reuses (documents, plans, the key).
    await request();
    const walked = await filesRunBy(request);
    expect(walked).toContain('src/interactions/read-page.ts');
    const page = readFileSync(path.resolve(SRC, '../docs/architecture.md'), 'utf8');
    const listed = /<!-- request-walk:start -->\n([\s\S]*?)<!-- request-walk:end -->/.exec(page)?.[1];
    if (listed !== walkMarkdown(walked)) console.log(`The walk, as docs/architecture.md should list it:\n${walkMarkdown(walked)}`);
    expect(listed).toBe(walkMarkdown(walked));
    expect(page).toContain(`runs functions of ${walked.length} files`);
  });
});
