// Exports (src/rest/exports): Accept text/csv or application/x-ndjson on /interactions and the daily,
// series and breakdown metrics, over real HTTP. The files equal the JSON answers row for row; the
// parameters are checked as the JSON path checks them; an Accept that asks for no export and takes
// JSON keeps today's JSON, one that takes neither is a 406; the key's clinics, scope and quota apply.
import { beforeAll, describe, expect, it } from 'vitest';
import { CSV_COLUMNS } from '../../src/rest/exports/interactions.js';
import { createKey, testApp } from '../helpers/app.js';
import { sql, testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';
import { serveOverHttp } from '../helpers/http-server.js';
import { expectValidationError, ISO_MS_UTC, type Json, type RestResponse } from './client.js';
import { csvObjects, parseNdjson, unguarded } from './exports-support.js';

const db = testDb();
const app = testApp(db);
const server = await serveOverHttp(app);

const CSV = 'text/csv';
const NDJSON = 'application/x-ndjson';

let clinic: { id: string };
let other: { id: string };
let campaignId: string;
let keyAll: string;
let keyMine: string;
/** Ids of the clinic's ten interactions, newest first. */
let ids: string[];
const TRICKY_SUMMARY = 'Said "yes", then\r\nchanged her mind,\nthen "no" again; ünïcödé ✓';

interface Answer extends RestResponse {
  raw: Response;
}

/** Without compression unless asked for (fetch asks for gzip by default; a compressed export is tested apart). */
async function get(path: string, key: string, accept?: string, method = 'GET', encoding = 'identity'): Promise<Answer> {
  const raw = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'accept-encoding': encoding, ...(accept === undefined ? {} : { accept }) },
  });
  const text = await raw.clone().text();
  let body: Json;
  if ((raw.headers.get('content-type') ?? '').startsWith('application/json') && text) body = JSON.parse(text);
  return { status: raw.status, headers: raw.headers, body, text, raw };
}

beforeAll(async () => {
  clinic = await createClinic(db, { name: 'Exports clinic' });
  other = await createClinic(db, { name: 'Exports other clinic' });
  campaignId = (await createCampaign(db, clinic.id)).id;
  const at = (i: number) => new Date(Date.UTC(2026, 1, 10, 9, i, 0, i * 7));
  const made = [
    await createInteraction(db, {
      clinicId: clinic.id,
      channel: 'voice',
      startedAt: at(0),
      campaignId,
      transcript: [{ role: 'assistant', content: 'Hi "there"' }],
    }),
    await createInteraction(db, {
      clinicId: clinic.id,
      channel: 'voice',
      startedAt: at(1),
      endedAt: null,
      durationSeconds: null,
      outcome: null,
      summary: null,
      recordingUrl: null,
    }),
    await createInteraction(db, { clinicId: clinic.id, channel: 'whatsapp', startedAt: at(2), transcript: [{ role: 'user', content: 'Line one\nline two' }] }),
    await createInteraction(db, { clinicId: clinic.id, channel: 'whatsapp', startedAt: at(3), outcome: 'NO_ANSWER', summary: TRICKY_SUMMARY }),
    await createInteraction(db, {
      clinicId: clinic.id,
      channel: 'voice',
      type: 'CAMPAIGN_OUTBOUND',
      startedAt: at(4),
      campaignId,
      phoneNumber: '+1 (212) 555-0123',
    }),
    await createInteraction(db, { clinicId: clinic.id, channel: 'voice', startedAt: at(5), summary: '=1+2, @formula -leading' }),
    await createInteraction(db, { clinicId: clinic.id, channel: 'whatsapp', type: 'CAMPAIGN_OUTBOUND', startedAt: at(6), campaignId }),
    await createInteraction(db, { clinicId: clinic.id, channel: 'voice', startedAt: at(7), outcome: 'CALLBACK_REQUESTED', summary: '' }),
    await createInteraction(db, { clinicId: clinic.id, channel: 'whatsapp', startedAt: at(8), transcript: [] }),
    await createInteraction(db, { clinicId: clinic.id, channel: 'voice', startedAt: at(9), durationSeconds: 0 }),
  ];
  ids = made.map((m) => m.id).reverse();
  await createInteraction(db, { clinicId: other.id, channel: 'voice', startedAt: at(5), summary: 'not yours' });
  keyAll = await createKey(db);
  keyMine = await createKey(db, { clinicIds: [clinic.id] });
});

/** The updated_at of each interaction, as the API writes instants. */
async function updatedAt(): Promise<Map<string, string>> {
  const rows = await sql<{ id: string; updated_at: Date }>('SELECT id, updated_at FROM interactions WHERE id = ANY($1)', [ids]);
  return new Map(rows.map((r) => [r.id, r.updated_at.toISOString()]));
}

function expectExportHeaders(answer: Answer, type: string, stem: string, extension: string) {
  expect(answer.status, answer.text.slice(0, 500)).toBe(200);
  expect(answer.headers.get('content-type')).toBe(type);
  expect(answer.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="${stem}-\\d{4}-\\d{2}-\\d{2}\\.${extension}"$`));
  expect(answer.headers.get('cache-control')).toBe('no-store');
  expect(answer.headers.get('x-request-id')).toMatch(/.+/);
  expect(answer.headers.get('content-length')).toBeNull();
  expect(answer.headers.get('etag')).toBeNull();
}

describe('CSV and NDJSON of interactions', () => {
  it('CSV: RFC 4180, a header row, the JSON list rows in its order, nulls as empty fields', async () => {
    const answer = await get(`/api/v1/interactions?clinic_id=${clinic.id}`, keyAll, CSV);
    expectExportHeaders(answer, 'text/csv; charset=utf-8; header=present', 'interactions', 'csv');
    expect(answer.headers.get('x-ratelimit-limit-minute')).toBeNull(); // an Unlimited key: no quota headers
    const { header, rows } = csvObjects(answer.text);
    expect(header).toEqual([...CSV_COLUMNS]);
    const json = await get(`/api/v1/interactions?clinic_id=${clinic.id}&limit=500`, keyAll);
    const list: Array<Record<string, unknown>> = json.body.data.interactions;
    expect(rows.map((r) => r.id)).toEqual(ids);
    expect(list.map((r) => r.id)).toEqual(ids);
    const updated = await updatedAt();
    const campaigns = new Map(
      (await sql<{ id: string; campaign_id: string | null }>('SELECT id, campaign_id FROM interactions WHERE id = ANY($1)', [ids])).map((r) => [
        r.id,
        r.campaign_id,
      ]),
    );
    rows.forEach((row, i) => {
      const item = list[i]!;
      const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
      // A cell guarded against formulas (exports-formulas.test.ts) reads back as stored without its quote.
      expect(unguarded(row)).toEqual({
        id: item.id,
        clinic_id: item.clinic_id,
        campaign_id: text(campaigns.get(row.id!)),
        channel: item.channel,
        type: item.type,
        direction: item.direction,
        phone_number: item.phone_number,
        started_at: item.started_at,
        ended_at: text(item.ended_at),
        duration_seconds: text(item.duration_seconds),
        outcome: text(item.outcome),
        summary: text(item.summary),
        recording_url: text(item.recording_url),
        updated_at: updated.get(row.id!),
      });
      expect(row.updated_at).toMatch(ISO_MS_UTC);
    });
    // What needed quoting came back as stored, and the rest was not quoted.
    expect(rows.find((r) => r.summary === TRICKY_SUMMARY)).toBeDefined();
    expect(answer.text).toContain(`"${TRICKY_SUMMARY.replaceAll('"', '""')}"`);
    // Formula guard: a quote in front, and quoted (docs/rest-api.md, Exports).
    expect(rows.find((r) => r.id === ids[4])!.summary).toBe("'=1+2, @formula -leading");
    expect(answer.text).toContain(`,"'+1 (212) 555-0123",`);
  });

  it('NDJSON: each line the REST representation with the transcript (both channels) and updated_at, byte for byte', async () => {
    const answer = await get(`/api/v1/interactions?clinic_id=${clinic.id}`, keyAll, NDJSON);
    expectExportHeaders(answer, 'application/x-ndjson; charset=utf-8', 'interactions', 'ndjson');
    const lines = answer.text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(10);
    const updated = await updatedAt();
    for (const [i, line] of lines.entries()) {
      const detail = await get(`/api/v1/interactions/${ids[i]}`, keyAll);
      const expected = { ...detail.body.data.interaction, updated_at: updated.get(ids[i]!) };
      // Same keys, same order, same values, and the same text JSON.stringify writes.
      expect(line).toBe(JSON.stringify(expected));
      expect(Object.keys(JSON.parse(line))).toEqual(Object.keys(expected));
    }
    const parsed = parseNdjson(answer.text);
    const voiceWithTranscript = parsed.find((l) => l.id === ids[9])!;
    expect(voiceWithTranscript.channel).toBe('voice');
    expect(voiceWithTranscript.transcript).toEqual([{ role: 'assistant', content: 'Hi "there"' }]);
    const nulls = parsed.find((l) => l.id === ids[8])!;
    expect(nulls).toMatchObject({ ended_at: null, duration_seconds: null, outcome: null, summary: null, recording_url: null, transcript: [] });
    const whatsapp = parsed.find((l) => l.id === ids[7])!;
    expect(whatsapp.transcript).toEqual([{ role: 'user', content: 'Line one\nline two' }]);
    expect(Object.keys(whatsapp)).not.toContain('duration_seconds');
    expect(Object.keys(whatsapp)).not.toContain('recording_url');
    expect(parsed.find((l) => l.id === ids[6])!.summary).toBe(TRICKY_SUMMARY);
  });

  it("filters apply, in the list's order; order=asc reverses it; updated_since orders by updated_at", async () => {
    const voice = parseNdjson((await get(`/api/v1/interactions?clinic_id=${clinic.id}&channel=voice&outcome=APPOINTMENT_BOOKED`, keyAll, NDJSON)).text);
    const json = await get(`/api/v1/interactions?clinic_id=${clinic.id}&channel=voice&outcome=APPOINTMENT_BOOKED&limit=500`, keyAll);
    expect(voice.map((l) => l.id)).toEqual(json.body.data.interactions.map((l: { id: string }) => l.id));
    expect(voice.length).toBeGreaterThan(0);

    const asc = csvObjects((await get(`/api/v1/interactions?clinic_id=${clinic.id}&order=asc`, keyAll, CSV)).text).rows;
    expect(asc.map((r) => r.id)).toEqual([...ids].reverse());

    const updated = await updatedAt();
    const feed = csvObjects((await get(`/api/v1/interactions?clinic_id=${clinic.id}&updated_since=2000-01-01`, keyAll, CSV)).text).rows;
    const byFeed = [...ids].sort((a, b) => (updated.get(a)! < updated.get(b)! ? -1 : updated.get(a)! > updated.get(b)! ? 1 : a < b ? -1 : 1));
    expect(feed.map((r) => r.id)).toEqual(byFeed);
    const later = csvObjects((await get(`/api/v1/interactions?clinic_id=${clinic.id}&updated_since=2999-01-01T00:00:00Z`, keyAll, CSV)).text);
    expect(later.header).toEqual([...CSV_COLUMNS]);
    expect(later.rows).toEqual([]);
  });

  it('every filter the list has: search (a literal substring), campaign, outcomes, type, window, several clinics', async () => {
    const both = await createKey(db, { clinicIds: [clinic.id, other.id] });
    for (const query of [
      `clinic_id=${clinic.id}&search=${encodeURIComponent('+1 (212)')}`,
      `clinic_id=${clinic.id}&search=${encodeURIComponent("%_\\'")}`,
      `campaign_id=${campaignId}`,
      `clinic_id=${clinic.id}&outcome=NO_ANSWER,CALLBACK_REQUESTED`,
      `clinic_id=${clinic.id}&channel=voice&type=CAMPAIGN_OUTBOUND`,
      `clinic_id=${clinic.id}&date_from=2026-02-10T09:03:00Z&date_to=2026-02-10T09:06:00.035Z`,
      '',
    ]) {
      const json = await get(`/api/v1/interactions?${query}${query ? '&' : ''}limit=500`, both);
      expect(json.status, query).toBe(200);
      const expected = json.body.data.interactions.map((row: { id: string }) => row.id);
      const exported = parseNdjson((await get(`/api/v1/interactions?${query}`, both, NDJSON)).text).map((row) => row.id);
      expect(exported, query).toEqual(expected);
    }
    const all = parseNdjson((await get('/api/v1/interactions', both, NDJSON)).text);
    expect(new Set(all.map((row) => row.clinic_id))).toEqual(new Set([clinic.id, other.id]));
  });

  it('an export of nothing is a header (CSV) or an empty body (NDJSON)', async () => {
    const csv = await get(`/api/v1/interactions?clinic_id=${clinic.id}&date_from=2030-01-01`, keyAll, CSV);
    expect(csv.status).toBe(200);
    expect(csv.text).toBe(`${CSV_COLUMNS.join(',')}\r\n`);
    const ndjson = await get(`/api/v1/interactions?clinic_id=${clinic.id}&date_from=2030-01-01`, keyAll, NDJSON);
    expect(ndjson.status).toBe(200);
    expect(ndjson.text).toBe('');
  });

  it('a key restricted to clinics exports only theirs, whatever it asks for', async () => {
    for (const accept of [CSV, NDJSON]) {
      const mine = await get('/api/v1/interactions', keyMine, accept);
      expect(mine.status).toBe(200);
      expect(mine.text).not.toContain(other.id);
      expect(mine.text).not.toContain('not yours');
      const theirs = await get(`/api/v1/interactions?clinic_id=${other.id}`, keyMine, accept);
      expect(theirs.status).toBe(200);
      expect(theirs.text).toBe(accept === CSV ? `${CSV_COLUMNS.join(',')}\r\n` : '');
    }
    const rows = csvObjects((await get('/api/v1/interactions', keyMine, CSV)).text).rows;
    expect(rows.map((r) => r.id)).toEqual(ids);
  });

  it('needs the scope of the route', async () => {
    const key = await createKey(db, { scopes: ['metrics:read'] });
    const answer = await get('/api/v1/interactions', key, CSV);
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('INSUFFICIENT_SCOPE');
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('compressed when the client asks (gzip, br): the same file once decoded, chunked', async () => {
    const plain = await get(`/api/v1/interactions?clinic_id=${clinic.id}`, keyAll, NDJSON);
    for (const encoding of ['gzip', 'br']) {
      const answer = await get(`/api/v1/interactions?clinic_id=${clinic.id}`, keyAll, NDJSON, 'GET', encoding);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-encoding')).toBe(encoding);
      expect(answer.headers.get('content-length')).toBeNull();
      expect(answer.text).toBe(plain.text);
    }
  });

  it('HEAD: the headers of the export, no body', async () => {
    const answer = await get(`/api/v1/interactions?clinic_id=${clinic.id}`, keyAll, CSV, 'HEAD');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(answer.headers.get('content-disposition')).toMatch(/^attachment; filename="interactions-/);
    expect(answer.text).toBe('');
    const invalid = await get('/api/v1/interactions?channel=fax', keyAll, CSV, 'HEAD');
    expect(invalid.status).toBe(400);
  });
});

describe('parameters of an export', () => {
  it('are checked as the JSON list checks them, every problem named, paging refused', async () => {
    const bad = 'channel=fax&date_from=2026-13-01&outcome=NOPE&clinic_id=not-a-uuid&search=&bogus=1';
    const answer = await get(`/api/v1/interactions?${bad}&page=2&limit=5&cursor=abc&include_total=false`, keyAll, CSV);
    const details = expectValidationError(answer, [
      'channel',
      'date_from',
      'outcome',
      'clinic_id',
      'search',
      'bogus',
      'page',
      'limit',
      'cursor',
      'include_total',
    ]);
    for (const name of ['page', 'limit', 'cursor', 'include_total']) expect(details[name]).toBe('does not apply to exports: every matching row is exported');
    const json = await get(`/api/v1/interactions?${bad}`, keyAll);
    const jsonDetails = expectValidationError(json, ['channel', 'date_from', 'outcome', 'clinic_id', 'search', 'bogus']);
    for (const name of Object.keys(jsonDetails)) expect(details[name], name).toBe(jsonDetails[name]);
  });

  it('order and updated_since: their own rules, and not together', async () => {
    expectValidationError(await get('/api/v1/interactions?order=sideways', keyAll, NDJSON), ['order']);
    expectValidationError(await get('/api/v1/interactions?updated_since=yesterday', keyAll, NDJSON), ['updated_since']);
    const both = expectValidationError(await get('/api/v1/interactions?order=asc&updated_since=2026-01-01', keyAll, NDJSON), ['order']);
    expect(both.order).toMatch(/updated_since/);
    expectValidationError(await get('/api/v1/interactions?channel=whatsapp&type=FORM_OUTBOUND&date_from=2026-02-01&date_to=2026-01-01', keyAll, CSV), [
      'type',
      'date_from',
    ]);
  });
});

describe('Accept', () => {
  /** The JSON answer without its per-request fields. */
  const comparable = (answer: Answer) => ({
    status: answer.status,
    type: answer.headers.get('content-type'),
    body: { ...answer.body, request_id: undefined, timestamp: undefined },
  });

  it("an Accept that takes JSON and selects no export keeps today's JSON answer exactly", async () => {
    const path = `/api/v1/interactions?clinic_id=${clinic.id}&limit=3`;
    const today = comparable(await get(path, keyAll));
    expect(today.type).toBe('application/json; charset=utf-8');
    for (const accept of [
      '*/*',
      'application/json',
      'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      'application/*',
      'garbage',
      ';;;,,=',
      'text/csv;q=0, */*',
      'text/csv;q=nope',
      'text/csv;q=1.5',
      'text/csv, application/json',
      'application/json, text/csv',
      'text/csv;q=0.5, */*',
      'application/ndjson, application/json;q=0.1',
    ]) {
      expect(comparable(await get(path, keyAll, accept)), accept).toEqual(today);
    }
  });

  it("the export type with the highest q, above JSON's", async () => {
    const path = `/api/v1/interactions?clinic_id=${clinic.id}`;
    const typeOf = async (accept: string) => (await get(path, keyAll, accept)).headers.get('content-type')?.split(';')[0];
    expect(await typeOf('text/csv')).toBe('text/csv');
    expect(await typeOf('TEXT/CSV; charset=utf-8')).toBe('text/csv');
    expect(await typeOf('application/x-ndjson')).toBe('application/x-ndjson');
    expect(await typeOf('text/csv;q=1, application/json;q=0.9')).toBe('text/csv');
    expect(await typeOf('application/json;q=0.5, text/csv')).toBe('text/csv');
    expect(await typeOf('*/*;q=0.1, application/x-ndjson')).toBe('application/x-ndjson');
    expect(await typeOf('application/x-ndjson;q=0.5, text/csv;q=0.8')).toBe('text/csv');
    expect(await typeOf('application/x-ndjson, text/csv')).toBe('application/x-ndjson');
    expect(await typeOf('text/csv, application/x-ndjson')).toBe('text/csv');
    expect(await typeOf('text/csv;q=0.4, application/json;q=0.4')).toBe('application/json');
  });

  it('an Accept that takes neither JSON nor an export is a 406 listing what the route answers with', async () => {
    const path = `/api/v1/interactions?clinic_id=${clinic.id}&limit=3`;
    for (const accept of ['text/html', 'text/csv;q=0', 'application/x-ndjson;q=0, text/csv;q=0.000', 'application/ndjson', 'text/plain']) {
      const answer = await get(path, keyAll, accept);
      expect(answer.status, accept).toBe(406);
      expect(answer.body.error.code, accept).toBe('NOT_ACCEPTABLE');
      expect(answer.body.error.details, accept).toEqual({ available: ['application/json', CSV, NDJSON] });
    }
    // With JSON refused, `text/*` takes CSV.
    expect((await get(path.replace('&limit=3', ''), keyAll, 'text/*')).headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
  });

  it('routes without an export answer an export Accept with 406, not JSON', async () => {
    for (const path of ['/api/v1/clinics', '/api/v1/metrics/summary', `/api/v1/interactions/${ids[0]}`, '/api/v1/metrics/outcomes']) {
      const answer = await get(path, keyAll, CSV);
      expect(answer.status, path).toBe(406);
      expect(answer.headers.get('content-type'), path).toBe('application/json; charset=utf-8');
      expect(answer.body.error.details, path).toEqual({ available: ['application/json'] });
    }
  });
});

describe('quota', () => {
  it('an export counts as one request, whatever its size', async () => {
    const key = await createKey(db, { tier: 'standard', clinicIds: [clinic.id] });
    const remaining = (answer: Answer) => Number(answer.headers.get('x-ratelimit-remaining-minute'));
    const before = await get('/api/v1/clinics', key);
    const exported = await get('/api/v1/interactions', key, NDJSON);
    expect(exported.status).toBe(200);
    expect(parseNdjson(exported.text)).toHaveLength(10);
    const after = await get('/api/v1/clinics', key);
    // (a minute boundary between the requests would reset the window: retried once)
    if (remaining(after) > remaining(before)) return;
    expect(remaining(exported)).toBe(remaining(before) - 1);
    expect(remaining(after)).toBe(remaining(before) - 2);
    for (const name of ['x-ratelimit-limit-minute', 'x-ratelimit-remaining-hour', 'x-ratelimit-remaining-day', 'ratelimit-policy', 'ratelimit']) {
      expect(exported.headers.get(name), name).not.toBeNull();
    }
  });
});

describe('metrics exports', () => {
  const window = 'date_from=2026-02-01&date_to=2026-02-28';
  let manyCampaigns: string[];

  beforeAll(async () => {
    // 30 campaigns with one interaction each: more groups than a breakdown's default page (25).
    manyCampaigns = [];
    for (let i = 0; i < 30; i++) manyCampaigns.push((await createCampaign(db, clinic.id, { name: `Campaign, "no. ${i}"` })).id);
    await db.interaction.createMany({
      data: manyCampaigns.map((id, i) => ({
        id: `exp_cmp_${id}`,
        clinicId: clinic.id,
        campaignId: id,
        channel: 'voice' as const,
        type: 'CAMPAIGN_OUTBOUND' as const,
        direction: 'outbound' as const,
        phoneNumber: '+34 600 000 001',
        startedAt: new Date(Date.UTC(2026, 1, 12, 10, i)),
        durationSeconds: 10 * i,
        outcome: i % 3 === 0 ? 'APPOINTMENT_BOOKED' : 'NO_ANSWER',
      })),
    });
  });

  /** A CSV field's value read back: numbers as numbers, empty fields as null. */
  const value = (text: string, json: unknown) => (typeof json === 'number' ? Number(text) : text === '' && json === null ? null : text);

  async function expectRowsEqual(path: string, list: (body: Json) => Array<Record<string, unknown>>, stem: string, jsonPath = path) {
    const json = await get(jsonPath, keyMine);
    expect(json.status, json.text.slice(0, 300)).toBe(200);
    const expected = list(json.body);
    const ndjson = await get(path, keyMine, NDJSON);
    expectExportHeaders(ndjson, 'application/x-ndjson; charset=utf-8', stem, 'ndjson');
    expect(parseNdjson(ndjson.text)).toEqual(expected);
    expect(ndjson.text).toBe(expected.map((row) => `${JSON.stringify(row)}\n`).join(''));
    const csv = await get(path, keyMine, CSV);
    expectExportHeaders(csv, 'text/csv; charset=utf-8; header=present', stem, 'csv');
    const { header, rows } = csvObjects(csv.text);
    expect(header).toEqual(Object.keys(expected[0]!));
    expect(rows.map((row, i) => Object.fromEntries(header.map((name) => [name, value(row[name]!, expected[i]![name])])))).toEqual(expected);
    return expected;
  }

  it('daily: one row per day, as data.daily', async () => {
    const days = await expectRowsEqual(`/api/v1/metrics/daily?${window}`, (body) => body.data.daily, 'metrics-daily');
    expect(days).toHaveLength(28);
    expect(days.some((d) => (d.total as number) > 0)).toBe(true);
  });

  it('series: one row per bucket, as data.series', async () => {
    const buckets = await expectRowsEqual(
      `/api/v1/metrics/series?${window}&granularity=week&timezone=Europe/Madrid`,
      (body) => body.data.series,
      'metrics-series',
    );
    expect(buckets.length).toBeGreaterThan(3);
  });

  it('breakdown: every group, not a page', async () => {
    const path = `/api/v1/metrics/breakdown?${window}&group_by=campaign,outcome`;
    const groups = await expectRowsEqual(path, (body) => body.data.groups, 'metrics-breakdown', `${path}&limit=500`);
    expect(groups.length).toBeGreaterThan(30);
    expect((await get(path, keyMine)).body.meta.total).toBe(groups.length);
  });

  it('refuse page, limit and compare; check the rest as the JSON answer does', async () => {
    const paged = expectValidationError(await get(`/api/v1/metrics/breakdown?group_by=campaign&page=2&limit=5`, keyMine, CSV), ['page', 'limit']);
    expect(paged.page).toBe('does not apply to exports: every matching row is exported');
    expectValidationError(await get(`/api/v1/metrics/daily?compare=previous_year`, keyMine, CSV), ['compare']);
    expectValidationError(await get(`/api/v1/metrics/series?compare=previous_period&granularity=day`, keyMine, NDJSON), ['compare']);
    const bad = 'date_from=nope&channel=fax&group_by=planet&timezone=Mars/Olympus';
    const exported = expectValidationError(await get(`/api/v1/metrics/breakdown?${bad}&limit=3`, keyMine, CSV), [
      'date_from',
      'channel',
      'group_by',
      'timezone',
      'limit',
    ]);
    const json = expectValidationError(await get(`/api/v1/metrics/breakdown?${bad}`, keyMine), ['date_from', 'channel', 'group_by', 'timezone']);
    for (const name of Object.keys(json)) expect(exported[name]).toBe(json[name]);
  });

  it("a restricted key's metrics exports count only its clinics", async () => {
    const key = await createKey(db, { clinicIds: [other.id] });
    const csv = await get(`/api/v1/metrics/breakdown?${window}&group_by=clinic`, key, CSV);
    expect(csv.text).not.toContain(clinic.id);
    const ndjson = parseNdjson((await get(`/api/v1/metrics/breakdown?${window}&group_by=clinic`, keyMine, NDJSON)).text);
    expect(ndjson.map((g) => g.clinic_id)).toEqual([clinic.id]);
  });
});
