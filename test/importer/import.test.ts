// The importer in-process against the run's test database. Every test writes its own files with
// fresh ids, so the tests run in parallel and need no reset.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ImportFileError, type ImportReport, importFiles } from '../../src/importer/import.js';
import type { Progress } from '../../src/importer/progress.js';
import { databaseUrl, sql, testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction, uniqueId } from '../helpers/factories.js';
import { campaignLine, clinicLine, voiceLine, whatsappLine, writeLines } from './files.js';

async function clinicRows(ids: string[]) {
  return sql('SELECT id::text, name, address, phone, email, timezone, created_at FROM clinics WHERE id = ANY($1::uuid[]) ORDER BY id', [ids]);
}

async function interactionRows(ids: string[]) {
  return sql(
    `SELECT i.id, i.channel::text, i.type::text, i.direction::text, i.phone_number, i.clinic_id::text, i.campaign_id,
            i.started_at, i.ended_at, i.duration_seconds, i.outcome, i.summary, i.recording_url, t.entries AS transcript
       FROM interactions i LEFT JOIN interaction_transcripts t ON t.interaction_id = i.id
      WHERE i.id = ANY($1) ORDER BY i.id`,
    [ids],
  );
}

async function count(table: 'clinics' | 'campaigns' | 'interactions', ids: string[]): Promise<number> {
  const cast = table === 'clinics' ? '::uuid[]' : '::text[]';
  const rows = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE id = ANY($1${cast})`, [ids]);
  return rows[0]!.n;
}

function written(report: ImportReport) {
  return {
    clinics: report.resources.clinics?.written ?? 0,
    campaigns: report.resources.campaigns?.written ?? 0,
    interactions: report.resources.interactions?.written ?? 0,
  };
}

describe('import of valid files', () => {
  it('writes every row and transcript exactly, timestamps to the millisecond', async () => {
    const clinic = clinicLine({ created_at: '2024-01-15T09:00:00.123+01:00', timezone: 'America/Argentina/Buenos_Aires' });
    const campaign = campaignLine(clinic.id, { settings: { max_attempts: 3, message_template: 'Hi {{name}}', nested: { a: [1, 'b'] } } });
    const call = voiceLine(clinic.id, { campaign_id: campaign.id, type: 'CAMPAIGN_OUTBOUND', direction: 'outbound', started_at: '2024-03-01T09:00:00.457Z' });
    const chat = whatsappLine(clinic.id);
    const bare = voiceLine(clinic.id, {
      type: 'CAMPAIGN_CALLBACK',
      direction: 'outbound',
      ended_at: null,
      duration_seconds: null,
      outcome: null,
      summary: null,
      recording_url: null,
      transcript: undefined,
    });
    const files = {
      clinics: writeLines('clinics.ndjson', [clinic]),
      campaigns: writeLines('campaigns.ndjson', ['', campaign, '']),
      interactions: writeLines('interactions.ndjson', [call, chat, bare]),
    };

    const report = await importFiles({ files, url: databaseUrl });

    expect(report).toMatchObject({ committed: true, invalid: 0, problems: [], problemsNotListed: 0 });
    expect(report.resources.campaigns).toEqual({ file: files.campaigns, lines: 1, valid: 1, invalid: 0, written: 1 });
    expect(written(report)).toEqual({ clinics: 1, campaigns: 1, interactions: 3 });

    expect(await clinicRows([clinic.id])).toEqual([{ ...clinic, created_at: new Date('2024-01-15T08:00:00.123Z') }]);
    const [storedCampaign] = await sql('SELECT * FROM campaigns WHERE id = $1', [campaign.id]);
    expect(storedCampaign).toEqual({
      ...campaign,
      created_at: new Date(campaign.created_at),
      updated_at: new Date(campaign.updated_at),
    });
    const rows = await interactionRows([call.id, chat.id, bare.id]);
    const expected = [call, chat, bare].map((line) => ({
      campaign_id: null,
      duration_seconds: null,
      recording_url: null,
      ...line,
      transcript: line.transcript ?? null,
      started_at: new Date(line.started_at),
      ended_at: line.ended_at ? new Date(line.ended_at) : null,
    }));
    expect(rows).toEqual(expected.sort((a, b) => (a.id < b.id ? -1 : 1)));
    expect(rows.find((r) => r.id === call.id)!.started_at).toEqual(new Date('2024-03-01T09:00:00.457Z'));
  });

  it('updates existing rows on a re-import, replacing or removing transcripts', async () => {
    const clinic = clinicLine();
    const first = voiceLine(clinic.id);
    const second = whatsappLine(clinic.id);
    const clinics = writeLines('clinics.ndjson', [clinic]);
    await importFiles({ files: { clinics, interactions: writeLines('interactions.ndjson', [first, second]) }, url: databaseUrl });

    const renamed = { ...clinic, name: 'Renamed clinic', timezone: 'UTC' };
    const changedFirst = { ...first, outcome: 'CALLBACK_REQUESTED', transcript: [{ role: 'user', content: 'Call me back.' }] };
    const { transcript: _dropped, ...changedSecond } = { ...second, summary: 'No transcript any more.' };
    const report = await importFiles({
      files: {
        clinics: writeLines('clinics.ndjson', [renamed]),
        interactions: writeLines('interactions.ndjson', [changedFirst, changedSecond]),
      },
      url: databaseUrl,
    });

    expect(written(report)).toEqual({ clinics: 1, campaigns: 0, interactions: 2 });
    expect((await clinicRows([clinic.id]))[0]).toMatchObject({ name: 'Renamed clinic', timezone: 'UTC' });
    const rows = await interactionRows([first.id, second.id]);
    expect(rows.find((r) => r.id === first.id)).toMatchObject({ outcome: 'CALLBACK_REQUESTED', transcript: changedFirst.transcript });
    expect(rows.find((r) => r.id === second.id)).toMatchObject({ summary: 'No transcript any more.', transcript: null });
    expect(await sql('SELECT 1 FROM interaction_transcripts WHERE interaction_id = $1', [second.id])).toEqual([]);
  });

  it('writes in several batches when a file is larger than one', async () => {
    const clinic = clinicLine();
    const lines = Array.from({ length: 25 }, (_, i) => (i % 2 ? voiceLine(clinic.id) : whatsappLine(clinic.id, { transcript: undefined })));
    const report = await importFiles({
      files: { clinics: writeLines('clinics.ndjson', [clinic]), interactions: writeLines('interactions.ndjson', lines) },
      url: databaseUrl,
      batchSize: 4,
    });
    expect(written(report).interactions).toBe(25);
    expect(
      await count(
        'interactions',
        lines.map((l) => l.id),
      ),
    ).toBe(25);
    const transcripts = await sql<{ n: number }>('SELECT count(*)::int AS n FROM interaction_transcripts WHERE interaction_id = ANY($1)', [
      lines.map((l) => l.id),
    ]);
    expect(transcripts[0]!.n).toBe(12);
  });

  it('resolves references to clinics and campaigns already in the database', async () => {
    const db = testDb();
    const clinic = await createClinic(db);
    const campaign = await createCampaign(db, clinic.id);
    const call = voiceLine(clinic.id, { campaign_id: campaign.id, type: 'CAMPAIGN_CALLBACK', direction: 'outbound' });
    const newCampaign = campaignLine(clinic.id.toUpperCase());
    const report = await importFiles({
      files: {
        campaigns: writeLines('campaigns.ndjson', [newCampaign]),
        interactions: writeLines('interactions.ndjson', [call, whatsappLine(clinic.id, { campaign_id: newCampaign.id })]),
      },
      url: databaseUrl,
    });
    expect(report.problems).toEqual([]);
    expect(written(report)).toEqual({ clinics: 0, campaigns: 1, interactions: 2 });
    expect((await interactionRows([call.id]))[0]).toMatchObject({ campaign_id: campaign.id, clinic_id: clinic.id });
  });
});

describe('invalid lines', () => {
  it('are each reported as FILE:LINE field: reason, and nothing is written', async () => {
    const good = clinicLine();
    const unknownClinic = randomUUID();
    const badJson = '{"id": "x", ';
    let jsonMessage = '';
    try {
      JSON.parse(badJson);
    } catch (error) {
      jsonMessage = (error as Error).message;
    }
    const { timezone: _tz, ...noTimezone } = clinicLine();
    const clinics = writeLines('clinics.ndjson', [good, noTimezone, clinicLine({ timezone: 'Madrid' })]);
    const ownCampaign = campaignLine(good.id);
    const campaigns = writeLines('campaigns.ndjson', [ownCampaign, campaignLine(unknownClinic)]);
    const duplicate = voiceLine(good.id);
    const otherCampaign = campaignLine(good.id);
    const interactions = writeLines('interactions.ndjson', [
      duplicate,
      badJson,
      voiceLine(good.id, { channel: 'fax' }),
      voiceLine(unknownClinic),
      { ...voiceLine(good.id), id: duplicate.id },
      whatsappLine(good.id, { duration_seconds: 45 }),
      voiceLine(noTimezone.id),
      voiceLine(good.id, { campaign_id: 'cmp_nowhere' }),
      voiceLine(good.id, { campaign_id: ownCampaign.id, type: 'CAMPAIGN_OUTBOUND', direction: 'outbound' }),
      voiceLine(good.id, { campaign_id: otherCampaign.id }),
    ]);

    const report = await importFiles({ files: { clinics, campaigns, interactions }, url: databaseUrl });

    expect(report.problems).toEqual([
      `${clinics}:2 timezone: required`,
      `${clinics}:3 timezone: must be an IANA time zone name (Europe/Madrid)`,
      `${campaigns}:2 clinic_id: unknown clinic ${unknownClinic}`,
      `${interactions}:2 (line): invalid JSON: ${jsonMessage}`,
      `${interactions}:3 channel: expected one of voice, whatsapp; got "fax"`,
      `${interactions}:4 clinic_id: unknown clinic ${unknownClinic}`,
      `${interactions}:5 id: duplicate of line 1`,
      `${interactions}:6 duration_seconds: must be absent or null for a whatsapp conversation`,
      `${interactions}:7 clinic_id: unknown clinic ${noTimezone.id} (its line ${clinics}:2 is invalid)`,
      `${interactions}:8 campaign_id: unknown campaign cmp_nowhere`,
      `${interactions}:10 campaign_id: unknown campaign ${otherCampaign.id}`,
    ]);
    expect(report.invalid).toBe(11);
    expect(report.committed).toBe(false);
    expect(report.resources.interactions).toEqual({ file: interactions, lines: 10, valid: 2, invalid: 8, written: 0 });
    expect(await count('clinics', [good.id])).toBe(0);
    expect(await count('campaigns', [ownCampaign.id])).toBe(0);
    expect(await count('interactions', [duplicate.id])).toBe(0);
  });

  it('include a campaign of another clinic, from the file or the database', async () => {
    const db = testDb();
    const [here, there] = [await createClinic(db), await createClinic(db)];
    const stored = await createCampaign(db, there.id);
    const inFile = campaignLine(there.id);
    const campaigns = writeLines('campaigns.ndjson', [inFile]);
    const interactions = writeLines('interactions.ndjson', [
      voiceLine(here.id, { campaign_id: stored.id }),
      voiceLine(here.id, { campaign_id: inFile.id }),
      voiceLine(there.id, { campaign_id: inFile.id }),
    ]);
    const report = await importFiles({ files: { campaigns, interactions }, url: databaseUrl });
    expect(report.problems).toEqual([
      `${interactions}:1 campaign_id: campaign ${stored.id} belongs to clinic ${there.id}, not ${here.id}`,
      `${interactions}:2 campaign_id: campaign ${inFile.id} belongs to clinic ${there.id}, not ${here.id}`,
    ]);
  });

  it('include a campaign moved to another clinic than the stored one', async () => {
    const db = testDb();
    const [here, there] = [await createClinic(db), await createClinic(db)];
    const stored = await createCampaign(db, there.id);
    await createInteraction(db, { clinicId: there.id, campaignId: stored.id });
    const campaigns = writeLines('campaigns.ndjson', [campaignLine(here.id, { id: stored.id })]);
    const report = await importFiles({ files: { campaigns }, url: databaseUrl, skipInvalid: true });
    expect(report.problems).toEqual([
      `${campaigns}:1 clinic_id: campaign ${stored.id} belongs to clinic ${there.id} in the database; a campaign cannot move to another clinic`,
    ]);
    expect((await sql('SELECT clinic_id::text FROM campaigns WHERE id = $1', [stored.id]))[0]).toEqual({ clinic_id: there.id });
  });

  it('include an interaction moved to another clinic than the stored one', async () => {
    const db = testDb();
    const [here, there] = [await createClinic(db), await createClinic(db)];
    const stored = await createInteraction(db, { clinicId: there.id });
    const same = await createInteraction(db, { clinicId: here.id });
    const moved = voiceLine(here.id, { id: stored.id });
    const kept = voiceLine(here.id.toUpperCase(), { id: same.id, outcome: 'CALLBACK_REQUESTED' });
    const interactions = writeLines('interactions.ndjson', [kept, moved]);
    const report = await importFiles({ files: { interactions }, url: databaseUrl, skipInvalid: true });
    expect(report.problems).toEqual([
      `${interactions}:2 clinic_id: interaction ${stored.id} belongs to clinic ${there.id} in the database; an interaction cannot move to another clinic`,
    ]);
    expect(written(report).interactions).toBe(1);
    const rows = await sql('SELECT id, clinic_id::text, outcome FROM interactions WHERE id = ANY($1) ORDER BY clinic_id', [[stored.id, same.id]]);
    expect(rows).toEqual(
      [
        { id: stored.id, clinic_id: there.id, outcome: stored.outcome },
        { id: same.id, clinic_id: here.id, outcome: 'CALLBACK_REQUESTED' },
      ].sort((a, b) => (a.clinic_id < b.clinic_id ? -1 : 1)),
    );
  });

  it('are skipped with skipInvalid while the valid lines are written', async () => {
    const clinic = clinicLine();
    const broken = clinicLine({ email: 42 });
    const ok = [voiceLine(clinic.id), whatsappLine(clinic.id)];
    const orphan = voiceLine(broken.id);
    const clinics = writeLines('clinics.ndjson', [clinic, broken]);
    const interactions = writeLines('interactions.ndjson', [ok[0]!, orphan, ok[1]!, { ...ok[1]!, outcome: 'OPT_OUT' }]);

    const report = await importFiles({ files: { clinics, interactions }, url: databaseUrl, skipInvalid: true });

    expect(report.committed).toBe(true);
    expect(report.problems).toEqual([
      `${clinics}:2 email: expected a string, got number`,
      `${interactions}:2 clinic_id: unknown clinic ${broken.id} (its line ${clinics}:2 is invalid)`,
      `${interactions}:4 id: duplicate of line 3`,
    ]);
    expect(written(report)).toEqual({ clinics: 1, campaigns: 0, interactions: 2 });
    expect(await count('clinics', [clinic.id, broken.id])).toBe(1);
    expect((await interactionRows([ok[0]!.id, ok[1]!.id, orphan.id])).map((r) => [r.id, r.outcome])).toEqual(ok.map((l) => [l.id, l.outcome]).sort());
  });

  it('are listed up to a limit, the rest counted', async () => {
    const lines = Array.from({ length: 5 }, () => '{');
    const report = await importFiles({ files: { clinics: writeLines('clinics.ndjson', lines) }, url: databaseUrl, maxListedProblems: 2 });
    expect(report.problems).toHaveLength(2);
    expect(report.problemsNotListed).toBe(3);
    expect(report.invalid).toBe(5);
  });
});

describe('the transaction', () => {
  it('leaves the database unchanged when the write fails midway', async () => {
    const clinic = clinicLine();
    const lines = Array.from({ length: 10 }, () => voiceLine(clinic.id));
    const interactions = writeLines('interactions.ndjson', lines);
    // The file changes while its lines are written: several batches are sent, then the import fails.
    const progress: Progress = {
      start: (label) => {
        if (label === `writing ${interactions}`) fs.appendFileSync(interactions, `${JSON.stringify(voiceLine(clinic.id))}\n`);
      },
      update: () => {},
      stop: () => {},
    };
    const run = importFiles({
      files: { clinics: writeLines('clinics.ndjson', [clinic]), interactions },
      url: databaseUrl,
      batchSize: 3,
      progress,
    });
    await expect(run).rejects.toThrow(new ImportFileError(`${interactions} changed during the import; nothing was written`));
    expect(await count('clinics', [clinic.id])).toBe(0);
    expect(
      await count(
        'interactions',
        lines.map((l) => l.id),
      ),
    ).toBe(0);
  });

  it('fails with the file named when a file cannot be read', async () => {
    const missing = `/nonexistent/${uniqueId('f')}.ndjson`;
    await expect(importFiles({ files: { interactions: missing }, url: databaseUrl })).rejects.toThrow(`Cannot read ${missing}: no such file`);
  });
});
