// The files one request runs through: `GET /api/v1/interactions?campaign_id=...`, measured by
// V8's precise coverage around the request (the functions it called, whatever imported them) in a
// process that runs the app alone (request-walk-child.ts, on plain Node with tsx: reading a
// constant another file exports runs none of that file's code there, as in the service), against
// the walk docs/architecture.md lists. A change that routes the request through another module,
// or no longer through one listed, fails here until the page says so.

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createKey } from '../helpers/app.js';
import { databaseUrl, testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';

const SRC = path.resolve(import.meta.dirname, '../../src');

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
    const child = path.resolve(import.meta.dirname, 'request-walk-child.ts');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', child, databaseUrl, key, campaign.id], {
      env: { ...process.env, LOG_LEVEL: 'silent' },
      timeout: 60_000,
    });
    const walked = JSON.parse(stdout) as string[];
    expect(walked).toContain('src/interactions/read-page.ts');
    const page = readFileSync(path.resolve(SRC, '../docs/architecture.md'), 'utf8');
    const listed = /<!-- request-walk:start -->\n([\s\S]*?)<!-- request-walk:end -->/.exec(page)?.[1];
    if (listed !== walkMarkdown(walked)) console.log(`The walk, as docs/architecture.md should list it:\n${walkMarkdown(walked)}`);
    expect(listed).toBe(walkMarkdown(walked));
    expect(page).toContain(`runs functions of ${walked.length} files`);
  });
});
