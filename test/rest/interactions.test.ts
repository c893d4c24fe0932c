// GET /api/v1/interactions and /api/v1/interactions/{id}: representation per channel, filters,
// search, pagination edges and ordering (decisions sections 2 and 3). Every test reads through a key
// restricted to its own clinics.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DAY_SKIPPING_FROM, SEARCH_MATCHES_MAX as MATCHES_PAGE_MAX } from '../../src/interactions/read-page.js';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction, type InteractionInput } from '../helpers/factories.js';
import { expectError, expectStatus, expectSuccess, get, metaOf, UNKNOWN_CLINIC } from './client.js';

const db = testDb();
const app = testApp(db);

/** A fresh clinic, a key restricted to it, and a prefix for readable, collation-proof ids. */
async function scenario() {
  const clinic = await createClinic(db);
  const key = await createKey(db, { clinicIds: [clinic.id] });
  const prefix = `int_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  return { clinic, clinicId: clinic.id, key, prefix };
}

type Row = Awaited<ReturnType<typeof createInteraction>>;

async function insert(inputs: InteractionInput[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const input of inputs) rows.push(await createInteraction(db, input));
  return rows;
}

/** The decisions' order: started_at descending, then id descending (ids here differ in plain ASCII). */
function ordered(rows: Row[]): string[] {
  return [...rows].sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map((r) => r.id);
}

/**
 * For rows inserted by SQL as `<prefix>_<i, 5 digits>` and started in threes per minute (minute
 * i / 3): the ids of row numbers in the list's order (newest first; within a minute, ids descending).
 */
function rowsInThrees(prefix: string) {
  const id = (i: number) => `${prefix}_${String(i).padStart(5, '0')}`;
  const minute = (i: number) => Math.floor(i / 3);
  const expected = (numbers: number[]) => [...numbers].sort((a, b) => minute(b) - minute(a) || b - a).map(id);
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => from + k);
  return { minute, expected, range };
}

async function idsOf(key: string, query: string): Promise<string[]> {
  const response = await get(app, `/api/v1/interactions?${query}`, key);
  expectStatus(response, 200);
  return response.body.data.interactions.map((i: { id: string }) => i.id);
}

/** Ids returned for `query` (limit 500), as a set of the expected rows. */
async function expectIds(key: string, query: string, expected: Row[]) {
  const ids = await idsOf(key, `limit=500&${query}`);
  expect(ids, `?${query}`).toEqual(ordered(expected));
  const response = await get(app, `/api/v1/interactions?limit=500&${query}`, key);
  expect(response.body.meta, `?${query}`).toEqual(metaOf(1, 500, expected.length));
}

describe('representation', () => {
  it('list: a voice call has duration_seconds and recording_url and no transcript; a WhatsApp conversation has a transcript and neither', async () => {
    const { clinicId, key, prefix } = await scenario();
    await createInteraction(db, {
      id: `${prefix}_voice`,
      clinicId,
      channel: 'voice',
      type: 'CAMPAIGN_CALLBACK',
      phoneNumber: '+34 611 222 333',
      startedAt: new Date('2026-01-15T09:30:00.000Z'),
      endedAt: new Date('2026-01-15T09:34:05.000Z'),
      durationSeconds: 245,
      outcome: 'CALLBACK_REQUESTED',
      summary: 'Patient asked to be called back tomorrow.',
      recordingUrl: 'https://recordings.example.test/abc.mp3',
      transcript: [
        { role: 'assistant', content: 'Hello, this is the clinic.' },
        { role: 'user', content: 'Call me tomorrow, please.' },
      ],
    });
    await createInteraction(db, {
      id: `${prefix}_whatsapp`,
      clinicId,
      channel: 'whatsapp',
      type: 'APPOINTMENT_REMINDER',
      phoneNumber: '+34 699 888 777',
      startedAt: new Date('2026-01-15T10:00:00.000Z'),
      endedAt: new Date('2026-01-15T10:12:00.250Z'),
      outcome: 'APPOINTMENT_MODIFIED',
      summary: 'Patient moved the appointment to Friday.',
      transcript: [
        { role: 'assistant', content: 'Reminder: your appointment is on Thursday at 10:00.' },
        { role: 'user', content: 'Can we do Friday?' },
        { role: 'assistant', content: 'Done: Friday at 10:00.' },
      ],
    });

    const response = await get(app, '/api/v1/interactions', key);
    expectSuccess(
      response,
      {
        interactions: [
          {
            id: `${prefix}_whatsapp`,
            channel: 'whatsapp',
            type: 'APPOINTMENT_REMINDER',
            direction: 'outbound',
            phone_number: '+34 699 888 777',
            clinic_id: clinicId,
            started_at: '2026-01-15T10:00:00.000Z',
            ended_at: '2026-01-15T10:12:00.250Z',
            outcome: 'APPOINTMENT_MODIFIED',
            transcript: [
              { role: 'assistant', content: 'Reminder: your appointment is on Thursday at 10:00.' },
              { role: 'user', content: 'Can we do Friday?' },
              { role: 'assistant', content: 'Done: Friday at 10:00.' },
            ],
            summary: 'Patient moved the appointment to Friday.',
          },
          {
            id: `${prefix}_voice`,
            channel: 'voice',
            type: 'CAMPAIGN_CALLBACK',
            direction: 'outbound',
            phone_number: '+34 611 222 333',
            clinic_id: clinicId,
            started_at: '2026-01-15T09:30:00.000Z',
            ended_at: '2026-01-15T09:34:05.000Z',
            duration_seconds: 245,
            outcome: 'CALLBACK_REQUESTED',
            summary: 'Patient asked to be called back tomorrow.',
            recording_url: 'https://recordings.example.test/abc.mp3',
          },
        ],
      },
      metaOf(1, 25, 2),
    );
    const [whatsapp, voice] = response.body.data.interactions;
    // exact keys, in the order of the spec's Interaction table
    expect(Object.keys(whatsapp)).toEqual([
      'id',
      'channel',
      'type',
      'direction',
      'phone_number',
      'clinic_id',
      'started_at',
      'ended_at',
      'outcome',
      'transcript',
      'summary',
    ]);
    expect(Object.keys(voice)).toEqual([
      'id',
      'channel',
      'type',
      'direction',
      'phone_number',
      'clinic_id',
      'started_at',
      'ended_at',
      'duration_seconds',
      'outcome',
      'summary',
      'recording_url',
    ]);
    expect(Object.keys(whatsapp.transcript[0])).toEqual(['role', 'content']);
  });

  it('detail: both channels carry their transcript; the keys follow the spec table', async () => {
    const { clinicId, key, prefix } = await scenario();
    await createInteraction(db, {
      id: `${prefix}_v`,
      clinicId,
      channel: 'voice',
      type: 'INBOUND',
      phoneNumber: '+34 600 000 001',
      startedAt: new Date('2026-01-20T08:00:00.000Z'),
      endedAt: new Date('2026-01-20T08:01:30.000Z'),
      durationSeconds: 90,
      outcome: 'APPOINTMENT_BOOKED',
      summary: 'Booked a cleaning.',
      recordingUrl: 'https://recordings.example.test/v.mp3',
      transcript: [
        { role: 'user', content: 'I would like a cleaning.' },
        { role: 'assistant', content: 'Booked for Monday.' },
      ],
    });
    await createInteraction(db, {
      id: `${prefix}_w`,
      clinicId,
      channel: 'whatsapp',
      type: 'INBOUND',
      phoneNumber: '+34 600 000 002',
      startedAt: new Date('2026-01-20T09:00:00.000Z'),
      endedAt: new Date('2026-01-20T09:05:00.000Z'),
      outcome: 'OPT_OUT',
      summary: 'Patient opted out.',
      transcript: [{ role: 'user', content: 'Stop' }],
    });

    const voice = await get(app, `/api/v1/interactions/${prefix}_v`, key);
    expectSuccess(voice, {
      interaction: {
        id: `${prefix}_v`,
        channel: 'voice',
        type: 'INBOUND',
        direction: 'inbound',
        phone_number: '+34 600 000 001',
        clinic_id: clinicId,
        started_at: '2026-01-20T08:00:00.000Z',
        ended_at: '2026-01-20T08:01:30.000Z',
        duration_seconds: 90,
        outcome: 'APPOINTMENT_BOOKED',
        transcript: [
          { role: 'user', content: 'I would like a cleaning.' },
          { role: 'assistant', content: 'Booked for Monday.' },
        ],
        summary: 'Booked a cleaning.',
        recording_url: 'https://recordings.example.test/v.mp3',
      },
    });
    expect(Object.keys(voice.body.data)).toEqual(['interaction']);
    expect(Object.keys(voice.body.data.interaction)).toEqual([
      'id',
      'channel',
      'type',
      'direction',
      'phone_number',
      'clinic_id',
      'started_at',
      'ended_at',
      'duration_seconds',
      'outcome',
      'transcript',
      'summary',
      'recording_url',
    ]);

    const whatsapp = await get(app, `/api/v1/interactions/${prefix}_w`, key);
    expectSuccess(whatsapp, {
      interaction: {
        id: `${prefix}_w`,
        channel: 'whatsapp',
        type: 'INBOUND',
        direction: 'inbound',
        phone_number: '+34 600 000 002',
        clinic_id: clinicId,
        started_at: '2026-01-20T09:00:00.000Z',
        ended_at: '2026-01-20T09:05:00.000Z',
        outcome: 'OPT_OUT',
        transcript: [{ role: 'user', content: 'Stop' }],
        summary: 'Patient opted out.',
      },
    });
    expect(Object.keys(whatsapp.body.data.interaction)).toEqual([
      'id',
      'channel',
      'type',
      'direction',
      'phone_number',
      'clinic_id',
      'started_at',
      'ended_at',
      'outcome',
      'transcript',
      'summary',
    ]);
  });

  it('transcript entries show only role and content, even when stored with more fields', async () => {
    const { clinicId, key, prefix } = await scenario();
    await createInteraction(db, {
      id: `${prefix}_x`,
      clinicId,
      channel: 'whatsapp',
      transcript: [{ role: 'assistant', content: 'Hi', timestamp: '2026-01-01T00:00:00Z', tokens: 3 } as { role: string; content: string }],
    });
    const detail = await get(app, `/api/v1/interactions/${prefix}_x`, key);
    expect(detail.body.data.interaction.transcript).toEqual([{ role: 'assistant', content: 'Hi' }]);
    const list = await get(app, '/api/v1/interactions', key);
    expect(list.body.data.interactions[0].transcript).toEqual([{ role: 'assistant', content: 'Hi' }]);
  });

  it('an interaction without a stored transcript shows an empty transcript (WhatsApp in the list, both in the detail)', async () => {
    const { clinicId, key, prefix } = await scenario();
    await createInteraction(db, { id: `${prefix}_w`, clinicId, channel: 'whatsapp', startedAt: new Date('2026-01-02T00:00:00Z') });
    await createInteraction(db, { id: `${prefix}_v`, clinicId, channel: 'voice', startedAt: new Date('2026-01-01T00:00:00Z') });
    const list = await get(app, '/api/v1/interactions', key);
    expect(list.body.data.interactions[0].transcript).toEqual([]);
    expect('transcript' in list.body.data.interactions[1]).toBe(false);
    expect((await get(app, `/api/v1/interactions/${prefix}_v`, key)).body.data.interaction.transcript).toEqual([]);
    expect((await get(app, `/api/v1/interactions/${prefix}_w`, key)).body.data.interaction.transcript).toEqual([]);
  });

  it('every type maps to its direction (INBOUND inbound, the others outbound), channel lowercase, type and outcome UPPERCASE', async () => {
    const { clinicId, key } = await scenario();
    const pairs = [
      ['voice', 'INBOUND', 'inbound'],
      ['voice', 'FORM_OUTBOUND', 'outbound'],
      ['voice', 'CAMPAIGN_OUTBOUND', 'outbound'],
      ['voice', 'CAMPAIGN_CALLBACK', 'outbound'],
      ['whatsapp', 'INBOUND', 'inbound'],
      ['whatsapp', 'CAMPAIGN_OUTBOUND', 'outbound'],
      ['whatsapp', 'APPOINTMENT_REMINDER', 'outbound'],
    ] as const;
    let minute = 0;
    for (const [channel, type] of pairs) {
      await createInteraction(db, { clinicId, channel, type, outcome: 'VOICEMAIL_REACHED', startedAt: new Date(Date.UTC(2026, 0, 1, 0, minute++)) });
    }
    const response = await get(app, '/api/v1/interactions', key);
    const seen = response.body.data.interactions.map((i: { channel: string; type: string; direction: string; outcome: string }) => [
      i.channel,
      i.type,
      i.direction,
      i.outcome,
    ]);
    expect(seen).toEqual([...pairs].reverse().map(([c, t, d]) => [c, t, d, 'VOICEMAIL_REACHED']));
  });
});

describe('GET /api/v1/interactions/{id}', () => {
  it('404 NOT_FOUND for an id that does not exist', async () => {
    const { key, prefix } = await scenario();
    expectError(await get(app, `/api/v1/interactions/${prefix}_missing`, key), 404, 'NOT_FOUND');
  });

  it('finds an id that needs URL-encoding', async () => {
    const { clinicId, key, prefix } = await scenario();
    const id = `${prefix}/a b+c%é`;
    await createInteraction(db, { id, clinicId });
    const response = await get(app, `/api/v1/interactions/${encodeURIComponent(id)}`, key);
    expectStatus(response, 200);
    expect(response.body.data.interaction.id).toBe(id);
  });
});

describe('filters', () => {
  it('date_from / date_to: date-only bounds are whole UTC days, inclusive; date-times are exact instants, inclusive', async () => {
    const { clinicId, key } = await scenario();
    const [before, start, mid, end, after] = await insert([
      { clinicId, startedAt: new Date('2026-03-09T23:59:59.999Z') },
      { clinicId, startedAt: new Date('2026-03-10T00:00:00.000Z') },
      { clinicId, startedAt: new Date('2026-03-11T12:00:00.000Z') },
      { clinicId, startedAt: new Date('2026-03-12T23:59:59.999Z') },
      { clinicId, startedAt: new Date('2026-03-13T00:00:00.000Z') },
    ]);
    await expectIds(key, 'date_from=2026-03-10&date_to=2026-03-12', [start!, mid!, end!]);
    await expectIds(key, 'date_from=2026-03-10', [start!, mid!, end!, after!]);
    await expectIds(key, 'date_to=2026-03-12', [before!, start!, mid!, end!]);
    await expectIds(key, 'date_from=2026-03-11&date_to=2026-03-11', [mid!]);
    await expectIds(key, 'date_from=2026-03-11T12:00:00Z&date_to=2026-03-11T12:00:00Z', [mid!]);
    await expectIds(key, 'date_from=2026-03-11T12:00:00.001Z', [end!, after!]);
    await expectIds(key, 'date_to=2026-03-11T11:59:59.999Z', [before!, start!]);
    // offsets: 2026-03-10T01:00:00+01:00 is 2026-03-10T00:00:00Z
    await expectIds(key, 'date_from=2026-03-10T01:00:00%2B01:00&date_to=2026-03-12T18:59:59.999-05:00', [start!, mid!, end!]);
    await expectIds(key, 'date_from=2026-03-14', []);
  });

  it('channel, type (with or without channel), outcome list, and their combinations', async () => {
    const { clinicId, key } = await scenario();
    const rows = await insert([
      { clinicId, channel: 'voice', type: 'INBOUND', outcome: 'APPOINTMENT_BOOKED', startedAt: new Date('2026-04-01T01:00:00Z') },
      { clinicId, channel: 'voice', type: 'FORM_OUTBOUND', outcome: 'NO_ANSWER', startedAt: new Date('2026-04-01T02:00:00Z') },
      { clinicId, channel: 'voice', type: 'CAMPAIGN_OUTBOUND', outcome: 'UNREACHABLE', startedAt: new Date('2026-04-01T03:00:00Z') },
      { clinicId, channel: 'whatsapp', type: 'INBOUND', outcome: 'NO_ANSWER', startedAt: new Date('2026-04-01T04:00:00Z') },
      { clinicId, channel: 'whatsapp', type: 'APPOINTMENT_REMINDER', outcome: 'APPOINTMENT_BOOKED', startedAt: new Date('2026-04-01T05:00:00Z') },
      { clinicId, channel: 'whatsapp', type: 'CAMPAIGN_OUTBOUND', outcome: null, startedAt: new Date('2026-04-01T06:00:00Z') },
    ]);
    const [vIn, vForm, vCamp, wIn, wRem, wCamp] = rows as [Row, Row, Row, Row, Row, Row];
    await expectIds(key, '', rows);
    await expectIds(key, 'channel=voice', [vIn, vForm, vCamp]);
    await expectIds(key, 'channel=whatsapp', [wIn, wRem, wCamp]);
    await expectIds(key, 'type=INBOUND', [vIn, wIn]);
    await expectIds(key, 'channel=voice&type=INBOUND', [vIn]);
    await expectIds(key, 'channel=whatsapp&type=INBOUND', [wIn]);
    await expectIds(key, 'type=CAMPAIGN_OUTBOUND', [vCamp, wCamp]);
    await expectIds(key, 'type=CAMPAIGN_CALLBACK', []);
    await expectIds(key, 'outcome=NO_ANSWER', [vForm, wIn]);
    await expectIds(key, 'outcome=NO_ANSWER,APPOINTMENT_BOOKED', [vIn, vForm, wIn, wRem]);
    await expectIds(key, 'outcome=UNREACHABLE', [vCamp]);
    await expectIds(key, 'outcome=OPT_OUT', []);
    await expectIds(key, 'channel=whatsapp&outcome=NO_ANSWER,APPOINTMENT_BOOKED', [wIn, wRem]);
    await expectIds(key, 'type=INBOUND&outcome=APPOINTMENT_BOOKED', [vIn]);
    await expectIds(key, 'channel=voice&type=FORM_OUTBOUND&outcome=NO_ANSWER&date_from=2026-04-01T02:00:00Z&date_to=2026-04-01T02:00:00Z', [vForm]);
    await expectIds(key, 'channel=voice&type=FORM_OUTBOUND&outcome=NO_ANSWER&date_from=2026-04-01T02:00:00.001Z', []);
  });

  it('clinic_id: its clinic only; uppercase UUID is the same clinic; a well-formed unknown clinic gives an empty page', async () => {
    const a = await createClinic(db);
    const b = await createClinic(db);
    const key = await createKey(db, { clinicIds: [a.id, b.id] });
    const [ra1, rb1, ra2] = await insert([
      { clinicId: a.id, startedAt: new Date('2026-05-01T00:00:00Z') },
      { clinicId: b.id, startedAt: new Date('2026-05-02T00:00:00Z') },
      { clinicId: a.id, startedAt: new Date('2026-05-03T00:00:00Z') },
    ]);
    await expectIds(key, '', [ra1!, rb1!, ra2!]);
    await expectIds(key, `clinic_id=${a.id}`, [ra1!, ra2!]);
    await expectIds(key, `clinic_id=${a.id.toUpperCase()}`, [ra1!, ra2!]);
    await expectIds(key, `clinic_id=${b.id}`, [rb1!]);
    const unknown = await get(app, `/api/v1/interactions?clinic_id=${UNKNOWN_CLINIC}`, key);
    expectSuccess(unknown, { interactions: [] }, { page: 1, limit: 25, total: 0, total_pages: 0, has_more: false });
  });

  it('search: case-insensitive substring of the phone number; %2B is a +, a literal + is a space; wildcards are plain characters', async () => {
    const { clinicId, key } = await scenario();
    const [plus34, spaced34, ext, underscore, percent] = await insert([
      { clinicId, phoneNumber: '+34 600 111 222', startedAt: new Date('2026-06-01T05:00:00Z') },
      { clinicId, phoneNumber: '+1 34 555 0100', startedAt: new Date('2026-06-01T04:00:00Z') },
      { clinicId, phoneNumber: '+44 20 7946 0958 EXT 12', startedAt: new Date('2026-06-01T03:00:00Z') },
      { clinicId, phoneNumber: '+49_30_1234', startedAt: new Date('2026-06-01T02:00:00Z') },
      { clinicId, phoneNumber: '555 100% sure', startedAt: new Date('2026-06-01T01:00:00Z') },
    ]);
    await expectIds(key, 'search=%2B34', [plus34!]);
    await expectIds(key, 'search=+34', [spaced34!]); // decoded as " 34"
    await expectIds(key, 'search=%2034', [spaced34!]);
    await expectIds(key, 'search=34', [plus34!, spaced34!, underscore!]);
    await expectIds(key, 'search=%2B', [plus34!, spaced34!, ext!, underscore!]);
    await expectIds(key, 'search=ext', [ext!]);
    await expectIds(key, 'search=eXt%2012', [ext!]);
    await expectIds(key, 'search=600%20111', [plus34!]);
    await expectIds(key, 'search=600111', []);
    await expectIds(key, 'search=_', [underscore!]);
    await expectIds(key, 'search=9_3', [underscore!]);
    await expectIds(key, 'search=%25', [percent!]);
    await expectIds(key, 'search=0%25', [percent!]);
    await expectIds(key, 'search=5%25', []);
    await expectIds(key, 'search=%5C', []);
    await expectIds(key, 'search=999', []);
    await expectIds(key, 'search=%2B34&channel=whatsapp', []);
  });
});

describe('pagination and ordering', () => {
  it('orders by started_at descending then id descending (ties included), stable across pages: no duplicate, no miss', async () => {
    const { clinicId, key, prefix } = await scenario();
    const t1 = new Date('2026-07-01T10:00:00.000Z');
    const t2 = new Date('2026-07-01T09:00:00.000Z');
    const t3 = new Date('2026-07-02T08:00:00.000Z');
    // inserted in an order unrelated to the expected one; three share t1 and two share t2
    const rows = await insert([
      { id: `${prefix}_b`, clinicId, startedAt: t1 },
      { id: `${prefix}_e`, clinicId, startedAt: t2 },
      { id: `${prefix}_a`, clinicId, startedAt: t1 },
      { id: `${prefix}_g`, clinicId, startedAt: t3 },
      { id: `${prefix}_c`, clinicId, startedAt: t1 },
      { id: `${prefix}_d`, clinicId, startedAt: t2 },
      { id: `${prefix}_f`, clinicId, startedAt: new Date('2026-06-30T00:00:00.000Z') },
    ]);
    const expected = [`${prefix}_g`, `${prefix}_c`, `${prefix}_b`, `${prefix}_a`, `${prefix}_e`, `${prefix}_d`, `${prefix}_f`];
    expect(ordered(rows)).toEqual(expected);

    for (const limit of [1, 2, 3, 7, 500]) {
      const walked: string[] = [];
      const pages = Math.ceil(7 / limit);
      for (let page = 1; page <= pages; page++) {
        const response = await get(app, `/api/v1/interactions?page=${page}&limit=${limit}`, key);
        expectStatus(response, 200);
        expect(response.body.meta).toEqual({ page, limit, total: 7, total_pages: pages, has_more: page < pages });
        const ids = response.body.data.interactions.map((i: { id: string }) => i.id);
        expect(ids.length).toBe(page < pages ? limit : 7 - limit * (pages - 1));
        walked.push(...ids);
      }
      expect(walked, `limit ${limit}`).toEqual(expected);
    }
  });

  it('deep pages (offset 1,000 and more, read ids first) keep the order, ties included, and the representation', async () => {
    const { clinicId, key, prefix } = await scenario();
    // 1,210 interactions in one statement: started_at ties in threes, ids in plain ASCII.
    await db.$executeRaw`
      INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, started_at, duration_seconds, outcome, summary)
      SELECT ${prefix} || '_' || lpad(i::text, 5, '0'), 'voice', 'INBOUND', 'inbound', '+34 600 000 000', ${clinicId}::uuid,
             '2026-03-01T00:00:00Z'::timestamptz + (i / 3) * interval '1 minute', i, 'NO_ANSWER', 'Deep page test'
      FROM generate_series(1, 1210) AS i`;
    const expected = Array.from({ length: 1210 }, (_, k) => 1210 - k).map((i) => `${prefix}_${String(i).padStart(5, '0')}`);
    expected.sort((a, b) => {
      const minute = (id: string) => Math.floor(Number(id.slice(-5)) / 3);
      return minute(b) - minute(a) || (a < b ? 1 : -1);
    });
    const shallow = await get(app, '/api/v1/interactions?page=40&limit=25', key); // offset 975: one statement
    const deep = await get(app, '/api/v1/interactions?page=41&limit=25', key); // offset 1,000: ids first
    expectStatus(deep, 200);
    expect(shallow.body.data.interactions.map((i: { id: string }) => i.id)).toEqual(expected.slice(975, 1000));
    expect(deep.body.data.interactions.map((i: { id: string }) => i.id)).toEqual(expected.slice(1000, 1025));
    expect(deep.body.meta).toEqual({ page: 41, limit: 25, total: 1210, total_pages: 49, has_more: true });
    expect(deep.body.data.interactions[0]).toMatchObject({
      channel: 'voice',
      clinic_id: clinicId,
      outcome: 'NO_ANSWER',
      duration_seconds: Number(expected[1000]!.slice(-5)),
    });
    expect(await idsOf(key, 'page=3&limit=500')).toEqual(expected.slice(1000));
    expect(await idsOf(key, 'page=1211&limit=1')).toEqual([]);
    expect(await idsOf(key, 'page=1210&limit=1')).toEqual(expected.slice(1209));
  });

  it('pages from offset DAY_SKIPPING_FROM on (whole days skipped by their counts) keep the order across midnights, also in a window with partial days', async () => {
    const { clinicId, key, prefix } = await scenario();
    // DAY_SKIPPING_FROM + 300 calls in threes per minute from 22:00 UTC: 6,767 minutes, six UTC days.
    const count = DAY_SKIPPING_FROM + 300;
    await db.$executeRaw`
      INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, started_at, duration_seconds, outcome, summary)
      SELECT ${prefix} || '_' || lpad(i::text, 5, '0'), 'voice', 'INBOUND', 'inbound', '+34 600 000 000', ${clinicId}::uuid,
             '2026-05-01T22:00:00Z'::timestamptz + (i / 3) * interval '1 minute', i, 'NO_ANSWER', 'Deep page by days'
      FROM generate_series(1, ${count}) AS i`;
    const { minute, expected, range } = rowsInThrees(prefix);
    const all = expected(range(1, count));
    const skip = DAY_SKIPPING_FROM;
    expect(await idsOf(key, `page=${skip / 25 + 1}&limit=25`)).toEqual(all.slice(skip, skip + 25));
    expect(await idsOf(key, `page=${skip / 20 + 1}&limit=20`)).toEqual(all.slice(skip, skip + 20));
    expect(await idsOf(key, `page=${skip / 100 + 3}&limit=100`)).toEqual(all.slice(skip + 200));
    const past = await get(app, `/api/v1/interactions?page=${skip / 100 + 4}&limit=100`, key);
    expectSuccess(past, { interactions: [] }, { page: skip / 100 + 4, limit: 100, total: count, total_pages: skip / 100 + 3, has_more: false });
    // A window whose first and last days are partial (filters on every dimension: test/graphql/deep-page.test.ts).
    const windowed = all.filter((id) => minute(Number(id.slice(-5))) >= 30 && minute(Number(id.slice(-5))) <= 6_740);
    const response = await get(app, `/api/v1/interactions?date_from=2026-05-01T22:30:00Z&date_to=2026-05-06T14:20:59.999Z&page=${skip / 25 + 1}&limit=25`, key);
    expectStatus(response, 200);
    expect(response.body.meta.total).toBe(windowed.length);
    expect(response.body.data.interactions.map((i: { id: string }) => i.id)).toEqual(windowed.slice(skip, skip + 25));
  });

  it('search pages: order, ties, totals and pages beyond the last, up to MATCHES_PAGE_MAX matches (one statement) and past it (page and count apart)', async () => {
    const { clinicId, key, prefix } = await scenario();
    // MATCHES_PAGE_MAX + 5 rows whose numbers contain "777", in threes per minute, and 20 that do not.
    const matching = MATCHES_PAGE_MAX + 5;
    await db.$executeRaw`
      INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, started_at, duration_seconds, outcome, summary)
      SELECT ${prefix} || '_' || lpad(i::text, 5, '0'), 'voice', 'INBOUND', 'inbound',
             CASE WHEN i <= ${matching} THEN '+34 777 ' || lpad(i::text, 6, '0') ELSE '+34 600 ' || lpad(i::text, 6, '0') END,
             ${clinicId}::uuid, '2026-04-01T00:00:00Z'::timestamptz + (i / 3) * interval '1 minute', i, 'NO_ANSWER', 'Search test'
      FROM generate_series(1, ${matching + 20}) AS i`;
    const { minute, expected, range } = rowsInThrees(prefix);

    // Few matches: "777 0001" is in rows 100 to 199 (100 rows), within the bound.
    const few = expected(range(100, 199));
    const first = await get(app, '/api/v1/interactions?search=777%200001&limit=30', key);
    expectStatus(first, 200);
    expect(first.body.data.interactions.map((i: { id: string }) => i.id)).toEqual(few.slice(0, 30));
    expect(first.body.meta).toEqual({ page: 1, limit: 30, total: 100, total_pages: 4, has_more: true });
    expect(first.body.data.interactions[0]).toMatchObject({ channel: 'voice', clinic_id: clinicId, phone_number: '+34 777 000199', duration_seconds: 199 });
    expect(await idsOf(key, 'search=777%200001&limit=30&page=4')).toEqual(few.slice(90));
    expectSuccess(
      await get(app, '/api/v1/interactions?search=777%200001&limit=30&page=5', key),
      { interactions: [] },
      {
        page: 5,
        limit: 30,
        total: 100,
        total_pages: 4,
        has_more: false,
      },
    );
    // Combined with other filters: only the first minute-ties of the window.
    const windowed = await get(app, '/api/v1/interactions?search=777%200001&date_from=2026-04-01T00:40:00Z&date_to=2026-04-01T00:45:59Z', key);
    expect(windowed.body.data.interactions.map((i: { id: string }) => i.id)).toEqual(expected(range(120, 137)));
    expect(windowed.body.meta.total).toBe(18);

    // Past the bound: "777" matches MATCHES_PAGE_MAX + 5 rows; paged and counted the usual way.
    const all = expected(range(1, matching));
    const many = await get(app, '/api/v1/interactions?search=777&limit=25&page=2', key);
    expectStatus(many, 200);
    expect(many.body.data.interactions.map((i: { id: string }) => i.id)).toEqual(all.slice(25, 50));
    expect(many.body.meta).toEqual({ page: 2, limit: 25, total: matching, total_pages: Math.ceil(matching / 25), has_more: true });
    // Exactly at the bound (clinic rows 6 to MATCHES_PAGE_MAX + 5): still one statement, same answers.
    const atBound = await get(
      app,
      `/api/v1/interactions?search=777&date_to=${encodeURIComponent(new Date(Date.UTC(2026, 3, 1) + minute(matching) * 60_000 + 59_999).toISOString())}&date_from=2026-04-01T00:02:00Z&limit=500&page=20`,
      key,
    );
    expectStatus(atBound, 200);
    expect(atBound.body.meta.total).toBe(matching - 5);
    expect(atBound.body.data.interactions.map((i: { id: string }) => i.id)).toEqual(expected(range(6, matching)).slice(9500, 10000));
  });

  it('pages of channel, type and outcome filters: ties across pages, the last page and past it, a window, nothing matching (no page read), many matches', async () => {
    const { clinicId, key, prefix } = await scenario();
    // 10,025 voice calls in threes per minute; those of every 32nd minute are OPT_OUT
    // (ties of three, cut by pages of 25), the others NO_ANSWER.
    const count = 10_025;
    await db.$executeRaw`
      INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, started_at, duration_seconds, outcome, summary)
      SELECT ${prefix} || '_' || lpad(i::text, 5, '0'), 'voice', 'INBOUND', 'inbound', '+34 600 ' || lpad(i::text, 6, '0'),
             ${clinicId}::uuid, '2026-04-01T00:00:00Z'::timestamptz + (i / 3) * interval '1 minute', i,
             CASE WHEN (i / 3) % 32 = 0 THEN 'OPT_OUT' ELSE 'NO_ANSWER' END, 'Filter test'
      FROM generate_series(1, ${count}) AS i`;
    const { minute, expected, range } = rowsInThrees(prefix);
    const isOptOut = (i: number) => minute(i) % 32 === 0;

    // Few: 314 OPT_OUT rows (2 in minute 0, then 3 in each of 104 minutes).
    const optOut = expected(range(1, count).filter(isOptOut));
    expect(optOut).toHaveLength(314);
    const first = await get(app, '/api/v1/interactions?outcome=OPT_OUT&channel=voice&limit=25&page=2', key);
    expectStatus(first, 200);
    expect(first.body.data.interactions.map((i: { id: string }) => i.id)).toEqual(optOut.slice(25, 50));
    expect(first.body.meta).toEqual({ page: 2, limit: 25, total: 314, total_pages: 13, has_more: true });
    expect(first.body.data.interactions[0]).toMatchObject({ outcome: 'OPT_OUT', clinic_id: clinicId, duration_seconds: Number(optOut[25]!.slice(-5)) });
    expect(await idsOf(key, 'outcome=OPT_OUT&limit=25&page=13')).toEqual(optOut.slice(300));
    expectSuccess(
      await get(app, '/api/v1/interactions?outcome=OPT_OUT&limit=25&page=14', key),
      { interactions: [] },
      {
        page: 14,
        limit: 25,
        total: 314,
        total_pages: 13,
        has_more: false,
      },
    );
    // With a window: minutes 1000 to 2000 (ids 3000 to 6002).
    const windowed = await get(app, '/api/v1/interactions?outcome=OPT_OUT&date_from=2026-04-01T16:40:00Z&date_to=2026-04-02T09:20:59Z&limit=100', key);
    expect(windowed.body.data.interactions.map((i: { id: string }) => i.id)).toEqual(expected(range(3000, 6002).filter(isOptOut)));
    expect(windowed.body.meta.total).toBe(93);
    // None: no WhatsApp conversation, no outbound call.
    expectSuccess(
      await get(app, '/api/v1/interactions?channel=whatsapp', key),
      { interactions: [] },
      {
        page: 1,
        limit: 25,
        total: 0,
        total_pages: 0,
        has_more: false,
      },
    );
    expect((await get(app, '/api/v1/interactions?type=CAMPAIGN_OUTBOUND&outcome=NO_ANSWER', key)).body.meta.total).toBe(0);
    // Many: every row is an inbound call.
    const all = expected(range(1, count));
    const many = await get(app, '/api/v1/interactions?type=INBOUND&channel=voice&limit=25&page=3', key);
    expectStatus(many, 200);
    expect(many.body.data.interactions.map((i: { id: string }) => i.id)).toEqual(all.slice(50, 75));
    expect(many.body.meta).toEqual({ page: 3, limit: 25, total: count, total_pages: Math.ceil(count / 25), has_more: true });
  });

  it('the last page, a page beyond the last (200, empty, correct total, has_more false), limit 500 and 501', async () => {
    const { clinicId, key } = await scenario();
    const rows = await insert(Array.from({ length: 5 }, (_, i) => ({ clinicId, startedAt: new Date(Date.UTC(2026, 7, 1, i)) })));
    const expected = ordered(rows);

    const last = await get(app, '/api/v1/interactions?page=3&limit=2', key);
    expectStatus(last, 200);
    expect(last.body.data.interactions.map((i: { id: string }) => i.id)).toEqual([expected[4]]);
    expect(last.body.meta).toEqual({ page: 3, limit: 2, total: 5, total_pages: 3, has_more: false });

    const middle = await get(app, '/api/v1/interactions?page=2&limit=2', key);
    expect(middle.body.meta).toEqual({ page: 2, limit: 2, total: 5, total_pages: 3, has_more: true });

    for (const page of [4, 100, 2147483647]) {
      const beyond = await get(app, `/api/v1/interactions?page=${page}&limit=2`, key);
      expectSuccess(beyond, { interactions: [] }, { page, limit: 2, total: 5, total_pages: 3, has_more: false });
    }

    const exact = await get(app, '/api/v1/interactions?limit=5', key);
    expect(exact.body.meta).toEqual({ page: 1, limit: 5, total: 5, total_pages: 1, has_more: false });

    const max = await get(app, '/api/v1/interactions?limit=500', key);
    expectStatus(max, 200);
    expect(max.body.meta).toEqual({ page: 1, limit: 500, total: 5, total_pages: 1, has_more: false });
    expect(max.body.data.interactions.map((i: { id: string }) => i.id)).toEqual(expected);

    expectError(await get(app, '/api/v1/interactions?limit=501', key), 400, 'VALIDATION_ERROR');
  });

  it('a total of 0 gives total_pages 0 and has_more false, on page 1 and beyond', async () => {
    const { key } = await scenario();
    expectSuccess(await get(app, '/api/v1/interactions', key), { interactions: [] }, { page: 1, limit: 25, total: 0, total_pages: 0, has_more: false });
    expectSuccess(
      await get(app, '/api/v1/interactions?page=2&limit=10', key),
      { interactions: [] },
      { page: 2, limit: 10, total: 0, total_pages: 0, has_more: false },
    );
  });

  it('the default page size is 25: 30 interactions give two pages of 25 and 5', async () => {
    const { clinicId, key } = await scenario();
    const campaign = await createCampaign(db, clinicId);
    const rows = await insert(
      Array.from({ length: 30 }, (_, i) => ({ clinicId, campaignId: campaign.id, type: 'CAMPAIGN_OUTBOUND', startedAt: new Date(Date.UTC(2026, 8, 1, 0, i)) })),
    );
    const expected = ordered(rows);
    const first = await get(app, '/api/v1/interactions', key);
    expect(first.body.meta).toEqual({ page: 1, limit: 25, total: 30, total_pages: 2, has_more: true });
    expect(first.body.data.interactions.map((i: { id: string }) => i.id)).toEqual(expected.slice(0, 25));
    const second = await get(app, '/api/v1/interactions?page=2', key);
    expect(second.body.meta).toEqual({ page: 2, limit: 25, total: 30, total_pages: 2, has_more: false });
    expect(second.body.data.interactions.map((i: { id: string }) => i.id)).toEqual(expected.slice(25));
  });

  it('filters and pagination combine: meta counts the filtered rows', async () => {
    const { clinicId, key } = await scenario();
    const rows = await insert(
      Array.from({ length: 9 }, (_, i) => ({
        clinicId,
        channel: i % 3 === 0 ? ('whatsapp' as const) : ('voice' as const),
        startedAt: new Date(Date.UTC(2026, 9, 1, i)),
      })),
    );
    const voice = ordered(rows.filter((r) => r.channel === 'voice'));
    const page2 = await get(app, '/api/v1/interactions?channel=voice&limit=4&page=2', key);
    expect(page2.body.meta).toEqual({ page: 2, limit: 4, total: 6, total_pages: 2, has_more: false });
    expect(page2.body.data.interactions.map((i: { id: string }) => i.id)).toEqual(voice.slice(4));
  });
});
