// `import` on the test database: in-process through `run`, and once as a user runs it
// (`npm run cli -- import ...`, a child process).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../helpers/cli.js';
import { sql } from '../helpers/db.js';
import { campaignLine, clinicLine, voiceLine, whatsappLine, writeLines } from './files.js';

describe('npm run cli -- import (a process)', () => {
  it('reports an invalid line as one JSON document, writes nothing and exits with 1', async () => {
    const clinic = clinicLine();
    const clinics = writeLines('clinics.ndjson', [clinic]);
    const interactions = writeLines('interactions.ndjson', [voiceLine(clinic.id, { direction: 'outbound' })]);

    const run = await spawnCli(['--json', 'import', '--clinics', clinics, '--interactions', interactions]);

    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({
      environment: 'live',
      written: { clinics: 0, campaigns: 0, interactions: 0 },
      invalid: 1,
      errors: [`${interactions}:1 direction: must be inbound for type INBOUND`],
      error: '1 invalid line: nothing was written (--skip-invalid writes the valid lines)',
    });
    expect(await sql('SELECT id FROM clinics WHERE id = $1', [clinic.id])).toEqual([]);
  });
});

describe('cli import', () => {
  it('imports good files and prints one JSON document', async () => {
    const clinic = clinicLine();
    const campaign = campaignLine(clinic.id, { channel: 'multi' });
    const lines = [
      voiceLine(clinic.id, { campaign_id: campaign.id, type: 'CAMPAIGN_OUTBOUND', direction: 'outbound' }),
      whatsappLine(clinic.id, { campaign_id: campaign.id }),
    ];
    // Relative paths (to this process's directory, where `run` resolves them), as a user types
    // them: problems and reports name files the same way.
    const clinics = path.relative(process.cwd(), writeLines('clinics.ndjson', [clinic]));
    const campaigns = path.relative(process.cwd(), writeLines('campaigns.ndjson', [campaign]));
    const interactions = path.relative(process.cwd(), writeLines('interactions.ndjson', lines));

    const run = await runCli(['--json', 'import', '--clinics', clinics, '--campaigns', campaigns, '--interactions', interactions]);

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ environment: 'live', written: { clinics: 1, campaigns: 1, interactions: 2 }, invalid: 0, errors: [] });
    const rows = await sql('SELECT id, campaign_id, clinic_id::text FROM interactions WHERE id = ANY($1) ORDER BY started_at', [lines.map((l) => l.id)]);
    expect(rows).toEqual(lines.map((l) => ({ id: l.id, campaign_id: campaign.id, clinic_id: clinic.id })));
    const transcripts = await sql('SELECT entries FROM interaction_transcripts WHERE interaction_id = $1', [lines[0]!.id]);
    expect(transcripts).toEqual([{ entries: lines[0]!.transcript }]);
  });

  it('writes nothing and exits with 1 when a line is invalid', async () => {
    const clinic = clinicLine();
    const good = voiceLine(clinic.id);
    const clinics = path.relative(process.cwd(), writeLines('clinics.ndjson', [clinic]));
    const interactions = path.relative(
      process.cwd(),
      writeLines('interactions.ndjson', [good, whatsappLine(clinic.id, { recording_url: 'https://r.example/a.mp3' })]),
    );

    const run = await runCli(['--json', 'import', '--clinics', clinics, '--interactions', interactions]);

    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      environment: 'live',
      written: { clinics: 0, campaigns: 0, interactions: 0 },
      invalid: 1,
      errors: [`${interactions}:2 recording_url: must be absent or null for a whatsapp conversation`],
      error: '1 invalid line: nothing was written (--skip-invalid writes the valid lines)',
    });
    expect(await sql('SELECT id FROM clinics WHERE id = $1', [clinic.id])).toEqual([]);
    expect(await sql('SELECT id FROM interactions WHERE id = $1', [good.id])).toEqual([]);
  });

  it('writes the valid lines with --skip-invalid, and reports the others on stderr without --json', async () => {
    const clinic = clinicLine();
    const good = voiceLine(clinic.id);
    const interactions = writeLines('interactions.ndjson', [good, '', voiceLine(clinic.id, { direction: 'outbound' })]);
    const clinics = writeLines('clinics.ndjson', [clinic]);

    const run = await runCli(['import', '--skip-invalid', '--clinics', clinics, '--interactions', interactions]);

    expect(run.code).toBe(0);
    expect(run.stderr).toBe(`${interactions}:3 direction: must be inbound for type INBOUND\n`);
    expect(run.stdout).toContain('Written in one transaction, to the live environment (svc_live_ keys see it).');
    expect(run.stdout).toMatch(/interactions\s+\S+interactions\.ndjson\s+2\s+1\s+1\s+1\n/);
    expect(await sql('SELECT id FROM interactions WHERE id = $1', [good.id])).toEqual([{ id: good.id }]);
  });

  it('names a file that cannot be read, and needs at least one file', async () => {
    const missing = path.join(path.dirname(writeLines('x.ndjson', [])), 'missing.ndjson');
    const notFound = await runCli(['--json', 'import', '--interactions', missing]);
    expect(notFound.code).toBe(2);
    expect(JSON.parse(notFound.stdout)).toEqual({ error: `Cannot read ${missing}: no such file` });

    const usage = await runCli(['--json', 'import', '--skip-invalid']);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout)).toEqual({ error: 'import: give at least one of --clinics FILE, --campaigns FILE, --interactions FILE' });
  });
});
