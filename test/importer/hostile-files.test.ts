// Files a user did not mean to be hostile but are: bytes that are not UTF-8, keys JavaScript treats
// specially (`__proto__`), and a line far longer than any record. Each is reported or kept exactly,
// never mangled or lost without a word.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importFiles } from '../../src/importer/import.js';
import { createKey, expectNoErrors, graphql, testApp } from '../helpers/app.js';
import { databaseUrl, sql, testDb } from '../helpers/db.js';
import { createClinic } from '../helpers/factories.js';
import { get } from '../rest/client.js';
import { campaignLine, clinicLine, voiceLine, writeLines } from './files.js';

/** A value's JSON with object keys sorted (jsonb reorders keys); own `__proto__` keys included. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

describe('bytes that are not UTF-8', () => {
  it('make the line invalid as FILE:LINE with the offset, and --skip-invalid writes the rest', async () => {
    const clinic = clinicLine();
    const good = voiceLine(clinic.id);
    const bad = voiceLine(clinic.id);
    const after = voiceLine(clinic.id);
    // "summary":"caf\xE9 ..." - Latin-1 where UTF-8 was due; previously stored as U+FFFD.
    const badBytes = Buffer.concat([
      Buffer.from(JSON.stringify(bad).replace('"Patient booked an appointment."', '"caf')),
      Buffer.from([0xe9]),
      Buffer.from(' con leche"}'),
    ]);
    const offset = badBytes.indexOf(0xe9);
    const file = writeLines('interactions.ndjson', [good, '@BAD@', after]);
    const content = fs.readFileSync(file);
    const at = content.indexOf('@BAD@');
    fs.writeFileSync(file, Buffer.concat([content.subarray(0, at), badBytes, content.subarray(at + '@BAD@'.length)]));

    const files = { clinics: writeLines('clinics.ndjson', [clinic]), interactions: file };
    const strict = await importFiles({ files, url: databaseUrl });
    expect(strict.problems).toEqual([`${file}:2 (line): not valid UTF-8 (byte offset ${offset} of the line)`]);
    expect(strict.committed).toBe(false);

    const report = await importFiles({ files, url: databaseUrl, skipInvalid: true });
    expect(report.problems).toEqual([`${file}:2 (line): not valid UTF-8 (byte offset ${offset} of the line)`]);
    expect(report.resources.interactions).toEqual({ file, lines: 3, valid: 2, invalid: 1, written: 2 });
    const rows = await sql('SELECT id FROM interactions WHERE id = ANY($1) ORDER BY started_at, id', [[good.id, bad.id, after.id]]);
    expect(rows.map((r) => r.id).sort()).toEqual([good.id, after.id].sort());
  });
});

describe('a __proto__ key in campaign settings', () => {
  const app = testApp();

  it('is kept as data: stored in the jsonb and returned as written by REST and GraphQL', async () => {
    const db = testDb();
    const clinic = await createClinic(db);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const campaign = campaignLine(clinic.id);
    // Written as text: an object literal with `__proto__` would set a prototype, not a key.
    const settingsText = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"prototype":"p","max_attempts":3}';
    const line = JSON.stringify({ ...campaign, settings: '@SETTINGS@' }).replace('"@SETTINGS@"', settingsText);
    const settings: unknown = JSON.parse(settingsText);
    const campaigns = writeLines('campaigns.ndjson', [line]);

    const report = await importFiles({ files: { campaigns }, url: databaseUrl });
    expect(report.problems).toEqual([]);
    expect(report.resources.campaigns?.written).toBe(1);

    const [stored] = await sql<{ settings: string }>('SELECT settings::text AS settings FROM campaigns WHERE id = $1', [campaign.id]);
    expect(canonical(JSON.parse(stored!.settings))).toBe(canonical(settings));

    const rest = await get(app, `/api/v1/campaigns?clinic_id=${clinic.id}`, key);
    expect(rest.status).toBe(200);
    const restSettings: unknown = rest.body.data.campaigns[0].settings;
    expect(Object.hasOwn(restSettings as object, '__proto__')).toBe(true);
    expect(canonical(restSettings)).toBe(canonical(settings));

    const gql = expectNoErrors(
      await graphql(app, { key, query: 'query($c: ID) { campaigns(clinicId: $c) { nodes { settings } } }', variables: { c: clinic.id } }),
    );
    expect(canonical(gql.campaigns.nodes[0].settings)).toBe(canonical(settings));
    // Nothing leaked into prototypes on the way.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('a line longer than the limit', () => {
  it('is an invalid FILE:LINE, its bytes skipped, and the lines around it are imported', async () => {
    const limit = 1024 * 1024;
    const clinic = clinicLine();
    const before = voiceLine(clinic.id);
    const after = voiceLine(clinic.id);
    // 24 MB of one valid line: the limit alone makes it invalid.
    const huge = voiceLine(clinic.id, { summary: 'x'.repeat(24 * 1024 * 1024) });
    const interactions = writeLines('interactions.ndjson', [before, huge, after]);

    const report = await importFiles({
      files: { clinics: writeLines('clinics.ndjson', [clinic]), interactions },
      url: databaseUrl,
      skipInvalid: true,
      maxLineBytes: limit,
    });

    expect(report.problems).toEqual([`${interactions}:2 (line): longer than ${limit} bytes`]);
    expect(report.resources.interactions).toEqual({ file: interactions, lines: 3, valid: 2, invalid: 1, written: 2 });
    const rows = await sql('SELECT id FROM interactions WHERE id = ANY($1)', [[before.id, huge.id, after.id]]);
    expect(rows.map((r) => r.id).sort()).toEqual([before.id, after.id].sort());
  });
});
