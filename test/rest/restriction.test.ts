// Clinic restriction of API keys (decisions section 5) across every REST endpoint: a restricted key
// never sees another clinic - not in lists, totals, by id, by clinic_id, nor in metrics.
import { beforeAll, describe, expect, it } from 'vitest';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';
import { expectError, expectStatus, expectSuccess, get, type RestResponse } from './client.js';

const db = testDb();
const app = testApp(db);

const RANGE = 'date_from=2026-03-01&date_to=2026-03-03';

let mine: { id: string };
let other: { id: string };
let keyMine: string;
let keyBoth: string;
let keyAll: string;
let mineInteractions: string[];
let otherInteractions: string[];
let mineCampaign: string;
let otherCampaign: string;

beforeAll(async () => {
  mine = await createClinic(db, { name: 'Restriction Mine' });
  other = await createClinic(db, { name: 'Restriction Other' });
  mineCampaign = (await createCampaign(db, mine.id, { createdAt: new Date('2026-03-01T00:00:00Z') })).id;
  otherCampaign = (await createCampaign(db, other.id, { createdAt: new Date('2026-03-02T00:00:00Z') })).id;
  mineInteractions = [
    (await createInteraction(db, { clinicId: mine.id, channel: 'voice', outcome: 'APPOINTMENT_BOOKED', startedAt: new Date('2026-03-01T10:00:00Z') })).id,
    (await createInteraction(db, { clinicId: mine.id, channel: 'whatsapp', outcome: 'NO_ANSWER', startedAt: new Date('2026-03-02T10:00:00Z') })).id,
  ];
  otherInteractions = [
    (
      await createInteraction(db, {
        clinicId: other.id,
        channel: 'voice',
        outcome: 'OPT_OUT',
        durationSeconds: 999,
        phoneNumber: '+34 600 000 000',
        startedAt: new Date('2026-03-01T11:00:00Z'),
      })
    ).id,
    (
      await createInteraction(db, {
        clinicId: other.id,
        channel: 'whatsapp',
        outcome: 'OPT_OUT',
        startedAt: new Date('2026-03-03T11:00:00Z'),
        transcript: [{ role: 'user', content: 'secret' }],
      })
    ).id,
  ];
  keyMine = await createKey(db, { clinicIds: [mine.id] });
  keyBoth = await createKey(db, { clinicIds: [mine.id, other.id] });
  keyAll = await createKey(db);
});

/** The other clinic's ids never appear anywhere in a response. */
function expectNoTraceOfOther(response: RestResponse) {
  expectStatus(response, 200);
  for (const id of [other.id, ...otherInteractions, otherCampaign]) expect(response.text).not.toContain(id);
}

const ids = (response: RestResponse, list: string) => response.body.data[list].map((x: { id: string }) => x.id);

describe('a key restricted to one clinic', () => {
  it('lists only that clinic', async () => {
    const response = await get(app, '/api/v1/clinics', keyMine);
    expectNoTraceOfOther(response);
    expect(ids(response, 'clinics')).toEqual([mine.id]);
    expect(response.body.meta.total).toBe(1);
  });

  it("lists only that clinic's interactions, also with every filter", async () => {
    for (const query of ['', 'limit=500', RANGE, 'channel=voice', 'outcome=OPT_OUT', 'search=600', 'type=INBOUND', 'page=2&limit=1']) {
      const response = await get(app, `/api/v1/interactions?${query}`, keyMine);
      expectNoTraceOfOther(response);
      expect(response.body.meta.total, query).toBeLessThanOrEqual(2);
    }
    const all = await get(app, '/api/v1/interactions', keyMine);
    expect(ids(all, 'interactions')).toEqual([...mineInteractions].reverse());
    expect(all.body.meta.total).toBe(2);
    const optOut = await get(app, '/api/v1/interactions?outcome=OPT_OUT', keyMine);
    expectSuccess(optOut, { interactions: [] }, { page: 1, limit: 25, total: 0, total_pages: 0, has_more: false });
  });

  it("lists only that clinic's campaigns", async () => {
    const response = await get(app, '/api/v1/campaigns', keyMine);
    expectNoTraceOfOther(response);
    expect(ids(response, 'campaigns')).toEqual([mineCampaign]);
    expect(response.body.meta.total).toBe(1);
  });

  it("another clinic's interaction by id is 404 NOT_FOUND, exactly like an unknown id", async () => {
    for (const id of otherInteractions) {
      const response = await get(app, `/api/v1/interactions/${id}`, keyMine);
      const error = expectError(response, 404, 'NOT_FOUND');
      const unknown = await get(app, '/api/v1/interactions/int_no_such_interaction', keyMine);
      expect(error).toEqual(unknown.body.error);
      expect(response.text).not.toContain('secret');
    }
    expectStatus(await get(app, `/api/v1/interactions/${mineInteractions[0]}`, keyMine), 200);
  });

  it('clinic_id of the other clinic gives empty lists and zero metrics, never an error', async () => {
    const empty = { page: 1, limit: 25, total: 0, total_pages: 0, has_more: false };
    expectSuccess(await get(app, `/api/v1/interactions?clinic_id=${other.id}`, keyMine), { interactions: [] }, empty);
    expectSuccess(await get(app, `/api/v1/interactions?clinic_id=${other.id.toUpperCase()}`, keyMine), { interactions: [] }, empty);
    expectSuccess(await get(app, `/api/v1/campaigns?clinic_id=${other.id}`, keyMine), { campaigns: [] }, empty);
    expectSuccess(await get(app, `/api/v1/metrics/summary?${RANGE}&clinic_id=${other.id}`, keyMine), {
      total_interactions: 0,
      total_calls: 0,
      total_conversations: 0,
      inbound_count: 0,
      outbound_count: 0,
      avg_duration_seconds: 0,
      total_duration_seconds: 0,
      success_rate: 0,
      appointments_scheduled: 0,
    });
    const zero = { total: 0, calls: 0, conversations: 0, inbound: 0, outbound: 0, appointments_scheduled: 0, success_rate: 0, avg_duration_seconds: 0 };
    expectSuccess(await get(app, `/api/v1/metrics/daily?${RANGE}&clinic_id=${other.id}`, keyMine), {
      daily: [
        { date: '2026-03-01', ...zero },
        { date: '2026-03-02', ...zero },
        { date: '2026-03-03', ...zero },
      ],
    });
    expectSuccess(await get(app, `/api/v1/metrics/outcomes?${RANGE}&clinic_id=${other.id}`, keyMine), { outcomes: [], total: 0 });
  });

  it('metrics count only that clinic', async () => {
    const summary = await get(app, `/api/v1/metrics/summary?${RANGE}`, keyMine);
    expectSuccess(summary, {
      total_interactions: 2,
      total_calls: 1,
      total_conversations: 1,
      inbound_count: 1,
      outbound_count: 1,
      avg_duration_seconds: 60,
      total_duration_seconds: 60,
      success_rate: 50,
      appointments_scheduled: 1,
    });
    const outcomes = await get(app, `/api/v1/metrics/outcomes?${RANGE}`, keyMine);
    expectSuccess(outcomes, {
      outcomes: [
        { outcome: 'APPOINTMENT_BOOKED', label: 'Appointment Booked', count: 1, percentage: 50 },
        { outcome: 'NO_ANSWER', label: 'No Answer', count: 1, percentage: 50 },
      ],
      total: 2,
    });
    const daily = await get(app, `/api/v1/metrics/daily?${RANGE}`, keyMine);
    expectStatus(daily, 200);
    expect(daily.body.data.daily.map((d: { total: number }) => d.total)).toEqual([1, 1, 0]);
  });
});

describe('keys that may see the other clinic', () => {
  it('a key restricted to both clinics sees both, and clinic_id narrows to one', async () => {
    const interactions = await get(app, `/api/v1/interactions?${RANGE}`, keyBoth);
    expect(interactions.body.meta.total).toBe(4);
    const narrowed = await get(app, `/api/v1/interactions?clinic_id=${other.id}`, keyBoth);
    expect(ids(narrowed, 'interactions')).toEqual([...otherInteractions].reverse());
    const clinics = await get(app, '/api/v1/clinics', keyBoth);
    expect(new Set(ids(clinics, 'clinics'))).toEqual(new Set([mine.id, other.id]));
    expect(clinics.body.meta.total).toBe(2);
    const campaigns = await get(app, '/api/v1/campaigns', keyBoth);
    expect(ids(campaigns, 'campaigns')).toEqual([otherCampaign, mineCampaign]);
    const summary = await get(app, `/api/v1/metrics/summary?${RANGE}`, keyBoth);
    expect(summary.body.data.total_interactions).toBe(4);
    expect(summary.body.data.total_duration_seconds).toBe(60 + 999);
    expectStatus(await get(app, `/api/v1/interactions/${otherInteractions[1]}`, keyBoth), 200);
  });

  it('an unrestricted key sees the other clinic through clinic_id and by id (so the restriction is what hides it)', async () => {
    const narrowed = await get(app, `/api/v1/interactions?clinic_id=${other.id}`, keyAll);
    expect(ids(narrowed, 'interactions')).toEqual([...otherInteractions].reverse());
    const campaigns = await get(app, `/api/v1/campaigns?clinic_id=${other.id}`, keyAll);
    expect(ids(campaigns, 'campaigns')).toEqual([otherCampaign]);
    const detail = await get(app, `/api/v1/interactions/${otherInteractions[1]}`, keyAll);
    expectStatus(detail, 200);
    expect(detail.body.data.interaction.transcript).toEqual([{ role: 'user', content: 'secret' }]);
    const summary = await get(app, `/api/v1/metrics/summary?${RANGE}&clinic_id=${other.id}`, keyAll);
    expect(summary.body.data.total_interactions).toBe(2);
  });
});
