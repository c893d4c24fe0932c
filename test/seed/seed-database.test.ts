// Seeding into the test database. The database is shared with other test files running in
// parallel, so every test uses its own seed (hence its own ids) and counts only its own rows.
import { describe, expect, it } from 'vitest';
import { generateDemoData, type SeedOptions } from '../../src/seed/generate.js';
import { seedDemoData } from '../../src/seed/seed-database.js';
import { databaseUrl, sql } from '../helpers/db.js';

const END = new Date('2026-02-01T12:00:00.000Z');

async function countsFor(clinicIds: string[]) {
  const [row] = await sql<{ clinics: string; campaigns: string; interactions: string; transcripts: string }>(
    `SELECT (SELECT count(*) FROM clinics WHERE id = ANY($1::uuid[])) AS clinics,
            (SELECT count(*) FROM campaigns WHERE clinic_id = ANY($1::uuid[])) AS campaigns,
            (SELECT count(*) FROM interactions WHERE clinic_id = ANY($1::uuid[])) AS interactions,
            (SELECT count(*) FROM interaction_transcripts t JOIN interactions i ON i.id = t.interaction_id
              WHERE i.clinic_id = ANY($1::uuid[])) AS transcripts`,
    [clinicIds],
  );
  return { clinics: Number(row!.clinics), campaigns: Number(row!.campaigns), interactions: Number(row!.interactions), transcripts: Number(row!.transcripts) };
}

describe('seedDemoData', () => {
  it('writes exactly the generated rows, and re-running the same seed changes nothing', async () => {
    const options: SeedOptions = { clinics: 2, interactions: 2_500, days: 20, seed: 'seed-database-rows', endDate: END };
    const data = generateDemoData(options);
    const clinicIds = data.clinics.map((c) => c.id);
    const progress: Array<[number, number]> = [];

    const counts = await seedDemoData(databaseUrl, { ...options, onProgress: (done, total) => progress.push([done, total]) });
    expect(counts).toEqual({ clinics: 2, campaigns: 10, interactions: 2_500 });
    expect(await countsFor(clinicIds)).toEqual({ clinics: 2, campaigns: 10, interactions: 2_500, transcripts: 2_500 });
    expect(progress[0]).toEqual([0, 2_500]);
    expect(progress.at(-1)).toEqual([2_500, 2_500]);
    expect(progress.map(([done]) => done)).toEqual([...progress.map(([done]) => done)].sort((a, b) => a - b));

    // Every column of every row is what the generator produced.
    const clinics = await sql('SELECT id, name, address, phone, email, timezone, language, created_at FROM clinics WHERE id = ANY($1::uuid[]) ORDER BY id', [
      clinicIds,
    ]);
    expect(clinics).toEqual(
      [...data.clinics]
        .sort((a, b) => a.id.localeCompare(b.id))
        .map((c) => ({
          id: c.id,
          name: c.name,
          address: c.address,
          phone: c.phone,
          email: c.email,
          timezone: c.timezone,
          language: c.language,
          created_at: c.createdAt,
        })),
    );
    const campaigns = await sql(
      `SELECT id, name, description, type::text, channel::text, status::text, clinic_id, created_at, updated_at, settings
         FROM campaigns WHERE clinic_id = ANY($1::uuid[]) ORDER BY id`,
      [clinicIds],
    );
    expect(campaigns).toEqual(
      [...data.campaigns]
        .sort((a, b) => a.id.localeCompare(b.id))
        .map((c) => ({
          id: c.id,
          name: c.name,
          description: c.description,
          type: c.type,
          channel: c.channel,
          status: c.status,
          clinic_id: c.clinicId,
          created_at: c.createdAt,
          updated_at: c.updatedAt,
          settings: c.settings,
        })),
    );
    const interactions = await sql(
      `SELECT i.id, i.channel::text, i.type::text, i.direction::text, i.phone_number, i.clinic_id, i.campaign_id, i.started_at, i.ended_at,
              i.duration_seconds, i.outcome, i.summary, i.recording_url, t.entries
         FROM interactions i JOIN interaction_transcripts t ON t.interaction_id = i.id
        WHERE i.clinic_id = ANY($1::uuid[]) ORDER BY i.id`,
      [clinicIds],
    );
    expect(interactions).toEqual(
      [...data.interactions()]
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map((i) => ({
          id: i.id,
          channel: i.channel,
          type: i.type,
          direction: i.direction,
          phone_number: i.phoneNumber,
          clinic_id: i.clinicId,
          campaign_id: i.campaignId,
          started_at: i.startedAt,
          ended_at: i.endedAt,
          duration_seconds: i.durationSeconds,
          outcome: i.outcome,
          summary: i.summary,
          recording_url: i.recordingUrl,
          entries: i.transcript,
        })),
    );

    // Idempotent: same counts, and not a single row rewritten (same row versions).
    const versions = () =>
      sql<{ v: string }>(
        `SELECT string_agg(x.xmin::text, ',' ORDER BY x.id) AS v FROM (
           SELECT i.id, i.xmin FROM interactions i WHERE i.clinic_id = ANY($1::uuid[])
           UNION ALL SELECT t.interaction_id, t.xmin FROM interaction_transcripts t JOIN interactions i ON i.id = t.interaction_id WHERE i.clinic_id = ANY($1::uuid[])
           UNION ALL SELECT c.id, c.xmin FROM campaigns c WHERE c.clinic_id = ANY($1::uuid[])
           UNION ALL SELECT c.id::text, c.xmin FROM clinics c WHERE c.id = ANY($1::uuid[])) x`,
        [clinicIds],
      );
    const before = await versions();
    expect(await seedDemoData(databaseUrl, options)).toEqual(counts);
    expect(await countsFor(clinicIds)).toEqual({ clinics: 2, campaigns: 10, interactions: 2_500, transcripts: 2_500 });
    expect(await versions()).toEqual(before);
  });

  it('moves the same rows to a later period when re-run with a later end date', async () => {
    const options: SeedOptions = { clinics: 1, interactions: 300, days: 7, seed: 'seed-database-later', endDate: END };
    const clinicIds = generateDemoData(options).clinics.map((c) => c.id);
    await seedDemoData(databaseUrl, options);
    const later = new Date(END.getTime() + 30 * 86_400_000);
    await seedDemoData(databaseUrl, { ...options, endDate: later });
    expect(await countsFor(clinicIds)).toEqual({ clinics: 1, campaigns: 5, interactions: 300, transcripts: 300 });
    const [range] = await sql<{ min: Date; max: Date }>('SELECT min(started_at), max(ended_at) AS max FROM interactions WHERE clinic_id = ANY($1::uuid[])', [
      clinicIds,
    ]);
    expect(range!.min.getTime()).toBeGreaterThanOrEqual(later.getTime() - 7 * 86_400_000);
    expect(range!.max.getTime()).toBeLessThanOrEqual(later.getTime());
  });

  it('writes nothing when it fails part-way (one transaction)', async () => {
    const options: SeedOptions = { clinics: 2, interactions: 5_000, days: 10, seed: 'seed-database-rollback', endDate: END };
    const clinicIds = generateDemoData(options).clinics.map((c) => c.id);
    await expect(
      seedDemoData(databaseUrl, {
        ...options,
        onProgress: (done) => {
          if (done > 0) throw new Error('interrupted');
        },
      }),
    ).rejects.toThrow('interrupted');
    expect(await countsFor(clinicIds)).toEqual({ clinics: 0, campaigns: 0, interactions: 0, transcripts: 0 });
  });

  it('rejects invalid options before touching the database', async () => {
    await expect(seedDemoData(databaseUrl, { interactions: 0 })).rejects.toThrow(/interactions/);
    await expect(seedDemoData(databaseUrl, { days: 4_000 })).rejects.toThrow(/days/);
  });
});
