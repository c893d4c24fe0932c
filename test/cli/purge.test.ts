// `purge --phone` and `purge --before [--clinic]`, on a database of their own (a purge without
// --clinic reaches every clinic, so the shared test database's other rows must not be there): what
// the dry run says, that --yes deletes exactly the patient's or the period's rows (and their
// transcripts), that every metric, total and rollup is exact afterwards, and that a run killed
// mid-way leaves whole batches only and finishes when run again.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { App } from '../../src/app.js';
import { projectRoot } from '../../src/config.js';
import { createPrismaClient, type Db } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { createKey, testApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { voiceLine, writeLines } from '../importer/files.js';
import { expectStatus, get } from '../rest/client.js';

const CLINICS = {
  es: { id: randomUUID(), name: 'Clínica Madrid', phone: '+34 914 35 22 10' },
  fr: { id: randomUUID(), name: 'Cabinet Lyon', phone: '+33 4 72 55 10 20' },
  us: { id: randomUUID(), name: 'Bayview Dental', phone: '+1 (415) 555-0142' },
  // A clinic whose own number has no calling code: its national numbers cannot be read.
  unknown: { id: randomUUID(), name: 'Front desk only', phone: 'ask at reception' },
};

/** The patient to erase, +34 612 345 689, in every form it was stored in (two clinics). */
const PATIENT_FORMS: Array<[keyof typeof CLINICS, string]> = [
  ['es', '+34 612 345 689'],
  ['es', '+34612345689'],
  ['es', '612 34 56 89'],
  ['es', '0034 612-345-689'],
  ['fr', '+34 612 34 56 89'],
];
/** Other patients whose numbers share those national digits: never erased with the patient. */
const OTHERS: Array<[keyof typeof CLINICS, string]> = [
  ['fr', '06 12 34 56 89'], // +33 6 12 34 56 89, stored nationally in France
  ['es', '+33 6 12 34 56 89'],
  ['us', '(612) 345-6890'],
  ['es', '+34 612 345 688'],
];
/** Same digits, but in a clinic whose country is unknown: listed as unresolved, not erased. */
const UNRESOLVED: [keyof typeof CLINICS, string] = ['unknown', '612 345 689'];

let url: string;
let dbName: string;
let db: Db;
let app: App;
let key: string;
let admin: pg.Client;

async function q<T extends pg.QueryResultRow = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(text, values)).rows;
  } finally {
    await c.end();
  }
}

const count = async (where = 'TRUE', values: unknown[] = []) =>
  Number((await q<{ n: string }>(`SELECT count(*) AS n FROM interactions WHERE ${where}`, values))[0]!.n);

/** Interactions with ids `<prefix>_<i>`: `n` rows over 2024-2025 in the three clinics with a country, a third with transcripts. */
async function insertBackground(prefix: string, n: number): Promise<void> {
  await q(
    `WITH rows AS (
       SELECT $1 || '_' || i AS id, i,
              (ARRAY[$2, $3, $4]::uuid[])[1 + i % 3] AS clinic_id,
              CASE WHEN i % 4 = 0 THEN 'whatsapp' ELSE 'voice' END::"Channel" AS channel
       FROM generate_series(1, $5::int) AS i
     ), inserted AS (
       INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, campaign_id, started_at, ended_at, duration_seconds, outcome, summary)
       SELECT id, channel,
              CASE WHEN channel = 'voice' THEN 'INBOUND' ELSE 'APPOINTMENT_REMINDER' END::"InteractionType",
              CASE WHEN channel = 'voice' THEN 'inbound' ELSE 'outbound' END::"Direction",
              '+34 699 ' || lpad((i % 997)::text, 3, '0') || ' ' || lpad((i % 991)::text, 3, '0'),
              clinic_id, CASE WHEN i % 2 = 0 THEN 'cmp_' || clinic_id END,
              timestamptz '2024-01-01T00:00:00Z' + (i * 7919 % 730) * interval '1 day' + (i % 1440) * interval '1 minute',
              timestamptz '2024-01-01T00:05:00Z' + (i * 7919 % 730) * interval '1 day' + (i % 1440) * interval '1 minute',
              CASE WHEN channel = 'voice' THEN 30 + i % 600 END,
              (ARRAY['APPOINTMENT_BOOKED', 'NO_ANSWER', 'VOICEMAIL_REACHED', NULL])[1 + i % 4],
              'Patient called about an appointment.'
       FROM rows
     )
     INSERT INTO interaction_transcripts (interaction_id, entries)
     SELECT id, '[{"role":"user","content":"I want to cancel my appointment"}]'::jsonb FROM rows WHERE i % 3 = 0`,
    [prefix, CLINICS.es.id, CLINICS.fr.id, CLINICS.us.id, n],
  );
}

/** One interaction (with a transcript) per stored number; returns the ids by number. */
async function insertNumbers(forms: Array<[keyof typeof CLINICS, string]>, startedAt: string): Promise<string[]> {
  const ids: string[] = [];
  for (const [clinic, phone] of forms) {
    const id = `num_${randomUUID().slice(0, 8)}`;
    ids.push(id);
    await q(
      `INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, started_at, duration_seconds, outcome, summary)
       VALUES ($1, 'voice', 'INBOUND', 'inbound', $2, $3, $4, 42, 'APPOINTMENT_BOOKED', 'Booked a check-up.')`,
      [id, phone, CLINICS[clinic].id, startedAt],
    );
    await q(`INSERT INTO interaction_transcripts (interaction_id, entries) VALUES ($1, '[{"role":"user","content":"Hola, quiero una cita"}]')`, [id]);
  }
  return ids;
}

/** The metrics and totals clients read, each checked against a recount of the raw table; returned for comparison. */
async function expectMetricsExact(): Promise<unknown[]> {
  const window = 'date_from=2023-01-01&date_to=2026-12-31';
  const summary = await get(app, `/api/v1/metrics/summary?${window}`, key);
  expectStatus(summary, 200);
  const [raw] = await q<{ total: string; calls: string; inbound: string; duration: string; booked: string }>(
    `SELECT count(*) AS total, count(*) FILTER (WHERE channel = 'voice') AS calls, count(*) FILTER (WHERE direction = 'inbound') AS inbound,
            coalesce(sum(duration_seconds) FILTER (WHERE channel = 'voice'), 0) AS duration, count(*) FILTER (WHERE outcome = 'APPOINTMENT_BOOKED') AS booked
     FROM interactions`,
  );
  expect(summary.body.data).toMatchObject({
    total_interactions: Number(raw!.total),
    total_calls: Number(raw!.calls),
    inbound_count: Number(raw!.inbound),
    total_duration_seconds: Number(raw!.duration),
    appointments_scheduled: Number(raw!.booked),
  });

  const daily = await get(app, `/api/v1/metrics/daily?date_from=2024-01-01&date_to=2025-12-31`, key);
  expectStatus(daily, 200);
  const perDay = await q<{ day: string; n: string }>(
    `SELECT to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*) AS n FROM interactions GROUP BY 1`,
  );
  const expectedDays = new Map(perDay.map((r) => [r.day, Number(r.n)]));
  for (const day of daily.body.data.daily as Array<{ date: string; total: number }>) expect(day.total, day.date).toBe(expectedDays.get(day.date) ?? 0);

  const breakdown = await get(app, `/api/v1/metrics/breakdown?group_by=clinic,outcome&${window}&limit=500`, key);
  expectStatus(breakdown, 200);
  const groups = await q<{ clinic_id: string; outcome: string | null; n: string }>('SELECT clinic_id, outcome, count(*) AS n FROM interactions GROUP BY 1, 2');
  const served = (breakdown.body.data.groups as Array<{ clinic_id: string; outcome: string | null; total_interactions: number }>)
    .map((g) => `${g.clinic_id}/${g.outcome}/${g.total_interactions}`)
    .sort();
  expect(served).toEqual(groups.map((g) => `${g.clinic_id}/${g.outcome}/${Number(g.n)}`).sort());

  const totals: number[] = [];
  for (const [query, where] of [
    ['', 'TRUE'],
    [`clinic_id=${CLINICS.es.id}`, `clinic_id = '${CLINICS.es.id}'`],
    ['channel=whatsapp', `channel = 'whatsapp'`],
    ['search=612', `phone_number ILIKE '%612%'`],
    ['date_from=2025-01-01', `started_at >= '2025-01-01'`],
  ] as const) {
    const list = await get(app, `/api/v1/interactions?limit=1&${query}`, key);
    expectStatus(list, 200);
    expect(list.body.meta.total, query).toBe(await count(where));
    totals.push(list.body.meta.total);
  }
  const durations = await get(app, `/api/v1/metrics/durations?${window}`, key);
  return [summary.body.data, daily.body.data, breakdown.body.data, durations.body.data, totals];
}

/** The answers do not change when every rollup is recomputed from the raw table: they were exact. */
async function expectRollupsExact(): Promise<void> {
  const before = await expectMetricsExact();
  await q('SELECT interaction_rollups_rebuild()');
  expect(await expectMetricsExact()).toEqual(before);
}

beforeAll(async () => {
  dbName = `purge_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  admin = new pg.Client({ connectionString: inject('adminUrl') });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${dbName}"`);
  const u = new URL(inject('adminUrl'));
  u.pathname = `/${dbName}`;
  url = u.toString();
  await migrate(url);
  for (const c of Object.values(CLINICS)) {
    await q(`INSERT INTO clinics (id, name, address, phone, email, timezone) VALUES ($1, $2, 'Street 1', $3, 'desk@example.test', 'UTC')`, [
      c.id,
      c.name,
      c.phone,
    ]);
    await q(
      `INSERT INTO campaigns (id, name, description, type, channel, status, clinic_id, settings) VALUES ('cmp_' || $1, 'Recall', 'd', 'recall', 'voice', 'active', $1::uuid, '{}')`,
      [c.id],
    );
  }
  db = createPrismaClient(url, 4);
  app = testApp(db);
  key = await createKey(db);
});

afterAll(async () => {
  await db?.$disconnect();
  await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await admin.end();
});

describe('purge --phone', () => {
  let patient: string[];
  let others: string[];
  let unresolved: string[];

  beforeAll(async () => {
    await insertBackground('bg', 600);
    patient = await insertNumbers(PATIENT_FORMS, '2025-06-01T10:00:00Z');
    others = await insertNumbers(OTHERS, '2025-06-02T10:00:00Z');
    unresolved = await insertNumbers([UNRESOLVED], '2025-06-03T10:00:00Z');
  });

  it('without --yes, says what it would delete and deletes nothing', async () => {
    const total = await count();
    const run = await runCli(['purge', '--phone', '+34 612 345 689'], url);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Would delete 5 interactions (5 with a transcript) of +34612345689, started 2025-06-01 10:00Z to 2025-06-01 10:00Z:');
    expect(run.stdout).toMatch(new RegExp(`${CLINICS.es.id}\\s+Clínica Madrid\\s+4\\s+4`));
    expect(run.stdout).toMatch(new RegExp(`${CLINICS.fr.id}\\s+Cabinet Lyon\\s+1\\s+1`));
    for (const [, form] of PATIENT_FORMS) expect(run.stdout).toContain(form);
    for (const [, form] of OTHERS) expect(run.stdout).not.toContain(form);
    expect(run.stdout).toMatch(/cannot be compared \(NOT deleted/);
    expect(run.stdout).toMatch(new RegExp(`${CLINICS.unknown.id}\\s+612 345 689\\s+1\\s+no calling code for the clinic`));
    expect(run.stdout).toContain('Nothing was deleted: run again with --yes to delete.');
    expect(await count()).toBe(total);
  });

  it('--json prints one document', async () => {
    const run = await runCli(['--json', 'purge', '--phone', '612345689', '--country', 'es'], url);
    expect(run.code, run.stderr).toBe(0);
    const body = JSON.parse(run.stdout);
    expect(body).toEqual({
      dry_run: true,
      selection: { phone: '+34612345689', before: null, clinic_id: null },
      interactions: 5,
      transcripts: 5,
      first_started_at: '2025-06-01T10:00:00.000Z',
      last_started_at: '2025-06-01T10:00:00.000Z',
      clinics: [
        {
          clinic_id: CLINICS.fr.id,
          name: 'Cabinet Lyon',
          interactions: 1,
          transcripts: 1,
          first_started_at: '2025-06-01T10:00:00.000Z',
          last_started_at: '2025-06-01T10:00:00.000Z',
        },
        {
          clinic_id: CLINICS.es.id,
          name: 'Clínica Madrid',
          interactions: 4,
          transcripts: 4,
          first_started_at: '2025-06-01T10:00:00.000Z',
          last_started_at: '2025-06-01T10:00:00.000Z',
        },
      ],
      phone_forms: expect.arrayContaining(PATIENT_FORMS.map(([clinic, form]) => ({ clinic_id: CLINICS[clinic].id, phone_number: form, interactions: 1 }))),
      unresolved_forms: [{ clinic_id: CLINICS.unknown.id, phone_number: '612 345 689', interactions: 1, reason: 'no calling code for the clinic' }],
    });
    expect(body.phone_forms).toHaveLength(PATIENT_FORMS.length);
  });

  it('--yes deletes every stored form of the patient and nobody else, leaving tombstones and exact metrics', async () => {
    const total = await count();
    const run = await runCli(['--json', 'purge', '--phone', '+34 612 345 689', '--yes'], url);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ dry_run: false, interactions: 5, deleted: 5, batches: 1 });
    expect(await count()).toBe(total - 5);
    expect(await count('id = ANY($1)', [patient])).toBe(0);
    expect(await count('id = ANY($1)', [[...others, ...unresolved]])).toBe(OTHERS.length + 1);
    expect(await q('SELECT 1 FROM interaction_transcripts WHERE interaction_id = ANY($1)', [patient])).toEqual([]);
    expect(await q('SELECT 1 FROM interaction_search_documents WHERE interaction_id = ANY($1)', [patient])).toEqual([]);
    const stones = await q<{ id: string; clinic_id: string }>('SELECT id, clinic_id FROM interaction_tombstones WHERE id = ANY($1) ORDER BY id', [patient]);
    expect(stones.map((s) => s.id)).toEqual([...patient].sort());
    expect(await q(`SELECT 1 FROM interaction_phones WHERE phone_number = ANY($1)`, [PATIENT_FORMS.map(([, f]) => f)])).toEqual([]);
    await expectRollupsExact();

    const again = await runCli(['purge', '--phone', '+34 612 345 689', '--yes'], url);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No interactions of +34612345689.');
    expect(again.stdout).toContain('Deleted 0 interactions');
  });

  it('the erased calls imported again are served again: their tombstones go, and the change feed lists them after the deletion', async () => {
    const stones = await q<{ id: string; deleted_at: Date }>('SELECT id, deleted_at FROM interaction_tombstones WHERE id = ANY($1)', [patient]);
    expect(stones).toHaveLength(patient.length);
    const lines = PATIENT_FORMS.map(([clinic, phone], i) =>
      voiceLine(CLINICS[clinic].id, {
        id: patient[i],
        phone_number: phone,
        started_at: '2025-06-01T10:00:00.000Z',
        ended_at: '2025-06-01T10:00:42.000Z',
        duration_seconds: 42,
      }),
    );
    const imported = await runCli(['import', '--interactions', writeLines('interactions.ndjson', lines)], url);
    expect(imported.code, imported.stderr + imported.stdout).toBe(0);
    expect(await q('SELECT id FROM interaction_tombstones WHERE id = ANY($1)', [patient])).toEqual([]);
    const rows = await q<{ id: string; updated_at: Date }>('SELECT id, updated_at FROM interactions WHERE id = ANY($1)', [patient]);
    expect(rows).toHaveLength(patient.length);
    const deletedAt = Math.max(...stones.map((s) => s.deleted_at.getTime()));
    for (const row of rows) expect(row.updated_at.getTime()).toBeGreaterThan(deletedAt);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const listed = await get(app, `/api/v1/interactions/deleted?since=${new Date(deletedAt).toISOString()}`, key);
    expectStatus(listed, 200);
    expect(listed.body.data.deleted_interactions.filter((t: { id: string }) => patient.includes(t.id))).toEqual([]);
    const feed = await get(app, `/api/v1/interactions?updated_since=${new Date(deletedAt + 1).toISOString()}&limit=100`, key);
    expect(feed.body.data.interactions.map((i: { id: string }) => i.id).sort()).toEqual([...patient].sort());
    await expectRollupsExact();

    // Erased again: tombstones again, later than the first ones.
    const run = await runCli(['--json', 'purge', '--phone', '+34 612 345 689', '--yes'], url);
    expect(JSON.parse(run.stdout)).toMatchObject({ deleted: patient.length });
    const again = await q<{ deleted_at: Date }>('SELECT deleted_at FROM interaction_tombstones WHERE id = ANY($1)', [patient]);
    expect(again).toHaveLength(patient.length);
    for (const stone of again) expect(stone.deleted_at.getTime()).toBeGreaterThan(deletedAt);
  });
});

describe('purge --before', () => {
  it('with --clinic: only that clinic, only before the instant', async () => {
    await insertBackground('cl', 900);
    const before = '2024-07-01T12:00:00+02:00';
    const selected = `clinic_id = '${CLINICS.fr.id}' AND started_at < '2024-07-01T10:00:00Z'`;
    const expected = await count(selected);
    expect(expected).toBeGreaterThan(50);
    const total = await count();

    const dry = await runCli(['--json', 'purge', '--before', before, '--clinic', CLINICS.fr.id.toUpperCase()], url);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({
      dry_run: true,
      selection: { phone: null, before: '2024-07-01T10:00:00.000Z', clinic_id: CLINICS.fr.id },
      interactions: expected,
      clinics: [{ clinic_id: CLINICS.fr.id, interactions: expected }],
      phone_forms: null,
    });
    expect(await count()).toBe(total);

    const run = await runCli(['purge', '--before', before, '--clinic', CLINICS.fr.id, '--yes', '--batch-size', '40'], url);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Deleted ${expected} interactions in ${Math.ceil(expected / 40)} batches`);
    expect(await count(selected)).toBe(0);
    expect(await count()).toBe(total - expected);
    expect(await count(`clinic_id <> '${CLINICS.fr.id}' AND started_at < '2024-07-01T10:00:00Z'`)).toBeGreaterThan(0);
    await expectRollupsExact();
  });

  it('without --clinic: every clinic; a date is the start of that UTC day', async () => {
    const expected = await count(`started_at < '2024-03-01T00:00:00Z'`);
    expect(expected).toBeGreaterThan(50);
    const total = await count();
    const run = await runCli(['purge', '--before', '2024-03-01', '--yes'], url);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^Deleting ${expected.toLocaleString('en-US')} interactions \\(\\d+ with a transcript\\) started before 2024-03-01T00:00:00.000Z`),
    );
    expect(await count(`started_at < '2024-03-01T00:00:00Z'`)).toBe(0);
    expect(await count()).toBe(total - expected);
    expect(await count(`started_at >= '2024-03-01T00:00:00Z' AND started_at < '2024-03-02T00:00:00Z'`)).toBeGreaterThan(0);
    await expectRollupsExact();
  });

  it('killed mid-way (kill -9) leaves whole batches only, and a second run finishes the job', async () => {
    await insertBackground('kill', 3_000);
    const where = `started_at < '2025-06-01T00:00:00Z'`;
    const expected = await count(where);
    const total = await count();
    const stonesBefore = Number((await q<{ n: string }>('SELECT count(*) AS n FROM interaction_tombstones'))[0]!.n);
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'purge', '--before', '2025-06-01', '--yes', '--batch-size', '25'], {
      cwd: projectRoot,
      env: { ...process.env, DATABASE_URL: url },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let deleted = 0;
    for (let i = 0; i < 600 && deleted < 300; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      deleted = total - (await count());
    }
    child.kill('SIGKILL');
    expect(await exited).toBeNull();
    // Wait for PostgreSQL to notice the dead connection and roll its open batch back.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const left = await count(where);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(expected);
    // Whole batches: every deleted row has its tombstone, no transcript is left without its row, and the rollups are exact.
    const stones = Number((await q<{ n: string }>('SELECT count(*) AS n FROM interaction_tombstones'))[0]!.n);
    expect(stones - stonesBefore).toBe(expected - left);
    expect((expected - left) % 25).toBe(0);
    expect(await q('SELECT 1 FROM interaction_transcripts t WHERE NOT EXISTS (SELECT 1 FROM interactions i WHERE i.id = t.interaction_id)')).toEqual([]);
    await expectRollupsExact();

    const rerun = await runCli(['--json', 'purge', '--before', '2025-06-01', '--yes'], url);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(JSON.parse(rerun.stdout)).toMatchObject({ interactions: left, deleted: left });
    expect(await count(where)).toBe(0);
    expect(await count()).toBe(total - expected);
    await expectRollupsExact();
  });
});

describe('purge: bad input', () => {
  it.each([
    [['purge'], /give --phone NUMBER or --before DATE/],
    [['purge', '--before', '2025-02-30'], /--before: '2025-02-30' is not a date/],
    [['purge', '--before', 'last year'], /--before: 'last year' is not a date/],
    [['purge', '--before', '2025-01-01', '--clinic', 'clinic-1'], /--clinic: 'clinic-1' is not a clinic id \(UUID\)/],
    [
      ['purge', '--before', '2025-01-01', '--clinic', '00000000-0000-4000-8000-000000000000'],
      /--clinic: no clinic with id 00000000-0000-4000-8000-000000000000/,
    ],
    [['purge', '--phone', '612 345 689'], /is not in international form/],
    [['purge', '--phone', '+34 612'], /cannot be read as a complete phone number/],
    [['purge', '--phone', 'call me'], /is not in international form/],
    [['purge', '--phone', '612345689', '--country', 'XX'], /--country: 'XX' is not an ISO 3166-1 alpha-2/],
    [['purge', '--before', '2025-01-01', '--batch-size', '0'], /--batch-size must be a whole number/],
  ])('%j: exit 2 and a message', async (args, message) => {
    const total = await count();
    const run = await runCli(args, url);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
    expect(await count()).toBe(total);
  });
});
