// `import` as a new operator first meets it: a path typed wrong, and hand-written files whose clinic
// ids are names rather than UUIDs.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config.js';
import { campaignRecord, clinicRecord, interactionRecord } from '../../src/importer/records.js';
import { runCli } from '../helpers/cli.js';
import { sql } from '../helpers/db.js';
import { clinicLine, voiceLine, writeLines } from '../importer/files.js';

describe('import: files named on the command line', () => {
  it('a missing file is a usage error: exit 2, naming it, before the database is opened', async () => {
    const missing = path.join(path.dirname(writeLines('x.ndjson', [])), 'missing.ndjson');
    const run = await runCli(['import', '--clinics', missing], 'postgresql://nobody@127.0.0.1:1/unreachable');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`Cannot read ${missing}: no such file\n`);
    expect(run.stdout).toBe('');
  });

  it('a folder given as a file is a usage error too (exit 2)', async () => {
    const folder = path.dirname(writeLines('y.ndjson', []));
    expect(fs.statSync(folder).isDirectory()).toBe(true);
    const run = await runCli(['--json', 'import', '--interactions', folder]);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({ error: `Cannot read ${folder}: not a regular file` });
  });
});

describe('import: clinic ids that are not UUIDs', () => {
  it('says what a clinic id must look like, in the clinic file and where an interaction refers to one', async () => {
    const clinic = clinicLine({ id: 'clinic-madrid' });
    const clinics = writeLines('clinics.ndjson', [clinic]);
    const interactions = writeLines('interactions.ndjson', [voiceLine('clinic-madrid')]);

    const run = await runCli(['--json', 'import', '--clinics', clinics, '--interactions', interactions]);

    expect(run.code).toBe(1);
    const expected = 'must be a UUID: 32 hexadecimal digits grouped 8-4-4-4-12, such as 3f2b8c1e-9a4d-4e6f-8b2a-1c5d7e9f0a12; got "clinic-madrid"';
    expect(JSON.parse(run.stdout)).toMatchObject({
      invalid: 2,
      errors: [`${clinics}:1 id: ${expected}`, `${interactions}:1 clinic_id: ${expected}`],
    });
    expect(await sql('SELECT id FROM clinics WHERE name = $1', [clinic.name])).toEqual([]);
  });
});

describe('docs/import-format.md', () => {
  const doc = fs.readFileSync(path.join(projectRoot, 'docs', 'import-format.md'), 'utf8');
  /** The text of the `## heading` section, up to the next one. */
  const section = (heading: string) => doc.split(/^## /m).find((part) => part.startsWith(`${heading}\n`)) ?? '';
  const tableFields = (text: string) => [...text.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
  const examples = (text: string) => [...text.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!.trim().split('\n'));

  const sections = [
    ['Clinics (`--clinics`)', clinicRecord],
    ['Campaigns (`--campaigns`)', campaignRecord],
    ['Interactions (`--interactions`)', interactionRecord],
  ] as const;

  it.each(sections)('%s: the table lists every field the importer reads, and no other', (heading, schema) => {
    expect(tableFields(section(heading)).sort()).toEqual(Object.keys(schema.shape).sort());
  });

  it('its example lines import as they are', async () => {
    const [clinics, campaigns, interactions] = sections.map(([heading]) => writeLines('example.ndjson', examples(section(heading))[0]!));
    const run = await runCli(['--json', 'import', '--clinics', clinics!, '--campaigns', campaigns!, '--interactions', interactions!]);
    expect(run.code, run.stdout).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ invalid: 0, errors: [] });
  });
});
