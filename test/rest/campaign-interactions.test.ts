// campaign_id on /api/v1/interactions: the campaign's interactions only, in list order, with the
// exact total, on every page (deep ones read by skipping ids and whole days), with other filters,
// and campaign ids of any printable characters matched exactly; against SQL over the raw table.
import { beforeAll, describe, expect, it } from 'vitest';
import { tag } from '../graphql/support.js';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic } from '../helpers/factories.js';
import { expectDurationsAgree, type Scope, sqlDurations, sqlInteractionIds, sqlOutcomes, sqlSummary } from './breakdown-support.js';
import { expectStatus, get, type Json, metaOf } from './client.js';

const db = testDb();
const app = testApp(db);

const ok = async (path: string, key: string) => {
  const response = await get(app, path, key);
  expectStatus(response, 200);
  return response.body;
};

describe('campaign_id on /api/v1/interactions', () => {
  const t = tag();
  let clinicId = '';
  let key = '';
  let all = '';
  const X = `cmp_${t}_x`;
  const Y = `cmp_${t}_y`;

  beforeAll(async () => {
    clinicId = (await createClinic(db)).id;
    await createCampaign(db, clinicId, { id: X });
    await createCampaign(db, clinicId, { id: Y });
    // 28,000 interactions over 2025-05-01..2025-06-15 (UTC): two of every three of the first 20,400 in
    // campaign X, the rest of those in Y or in none, then 7,600 more of X in a burst on 2025-05-20 (X
    // passes 21,000); pairs with equal started_at, some on midnights or the millisecond before.
    await db.$executeRaw`
      INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, campaign_id, started_at, duration_seconds, outcome)
      SELECT ${`cf_${t}_`} || lpad(i::text, 5, '0'),
             CASE WHEN i % 5 = 0 THEN 'whatsapp' ELSE 'voice' END::"Channel",
             'CAMPAIGN_OUTBOUND'::"InteractionType", 'outbound'::"Direction", '+34 611 000 000', ${clinicId}::uuid,
             CASE WHEN i > 20400 THEN ${X} WHEN i % 3 = 0 THEN (CASE WHEN i % 2 = 0 THEN ${Y} ELSE NULL END) ELSE ${X} END,
             CASE WHEN i > 20400 THEN '2025-05-20T00:00:00Z'::timestamptz + (i - 20400) * interval '10 seconds'
                  WHEN (i / 2) % 97 = 0 THEN '2025-05-01T00:00:00Z'::timestamptz + ((i / 2) % 45) * interval '1 day' - (i % 2) * interval '1 millisecond'
                  ELSE '2025-05-01T00:00:00Z'::timestamptz + ((i / 2) * 2) * interval '193 seconds' END,
             CASE WHEN i % 5 = 0 THEN NULL ELSE i % 900 END,
             CASE WHEN i % 7 = 0 THEN NULL WHEN i % 4 = 0 THEN 'APPOINTMENT_BOOKED' ELSE 'NO_ANSWER' END
      FROM generate_series(1, 28000) AS i`;
    key = await createKey(db, { clinicIds: [clinicId] });
    all = await createKey(db);
  });

  const scope = (extra: Partial<Scope> = {}): Scope => ({ from: '2025-01-01T00:00:00Z', to: '2025-12-31T23:59:59.999Z', clinicIds: [clinicId], ...extra });
  const ids = (body: Json) => (body.data.interactions as Json[]).map((i) => i.id);

  it('only the campaign’s interactions, in list order, with the exact total; every page, deep ones included', async () => {
    const expected = await sqlInteractionIds(scope({ campaignId: X }));
    expect(expected.length).toBeGreaterThan(20_500);
    for (const k of [key, all]) {
      for (const [page, limit] of [
        [1, 500],
        [2, 500],
        [3, 500], // offset 1,000: ids first
        [21, 50], // offset 1,000
        [41, 500], // offset 20,000: whole days skipped by their counts
        [2901, 7], // offset 20,300
        [Math.ceil(expected.length / 500), 500], // the last page
        [Math.ceil(expected.length / 500) + 1, 500], // past it
      ]) {
        const body = await ok(`/api/v1/interactions?campaign_id=${X}&page=${page}&limit=${limit}`, k);
        expect(body.meta, `page ${page} limit ${limit}`).toEqual(metaOf(page!, limit!, expected.length));
        expect(ids(body), `page ${page} limit ${limit}`).toEqual(expected.slice((page! - 1) * limit!, page! * limit!));
      }
    }
  });

  it('with other filters: window with partial days, channel, outcome, search', async () => {
    const window = { from: '2025-05-03T10:30:00.000Z', to: '2025-06-10T05:00:00.000Z' };
    const cases: Array<{ query: string; scope: Partial<Scope>; extra?: string }> = [
      { query: `date_from=${window.from}&date_to=${window.to}`, scope: window },
      { query: 'channel=whatsapp', scope: { channel: 'whatsapp' } },
      { query: 'outcome=APPOINTMENT_BOOKED', scope: {}, extra: "AND i.outcome = 'APPOINTMENT_BOOKED'" },
      { query: `outcome=NO_ANSWER&date_from=${window.from}&date_to=${window.to}`, scope: window, extra: "AND i.outcome = 'NO_ANSWER'" },
      { query: 'search=611', scope: {} },
      { query: `clinic_id=${clinicId}&type=CAMPAIGN_OUTBOUND`, scope: { type: 'CAMPAIGN_OUTBOUND' } },
    ];
    for (const c of cases) {
      const expected = await sqlInteractionIds(scope({ campaignId: X, ...c.scope }), c.extra);
      expect(expected.length, c.query).toBeGreaterThan(1_000);
      for (const [page, limit] of [
        [1, 100],
        [11, 100],
        [Math.ceil(expected.length / 100), 100],
      ]) {
        const body = await ok(`/api/v1/interactions?campaign_id=${X}&${c.query}&page=${page}&limit=${limit}`, key);
        expect(body.meta, `${c.query} page ${page}`).toEqual(metaOf(page!, limit!, expected.length));
        expect(ids(body), `${c.query} page ${page}`).toEqual(expected.slice((page! - 1) * limit!, page! * limit!));
      }
    }
    // Campaign Y, smaller, and the search filter on its own.
    const y = await sqlInteractionIds(scope({ campaignId: Y }));
    const body = await ok(`/api/v1/interactions?campaign_id=${Y}&limit=500&page=2`, key);
    expect(body.meta.total).toBe(y.length);
    expect(ids(body)).toEqual(y.slice(500, 1000));
  });

  it('the campaign’s metrics over the same interactions', async () => {
    const window = { from: '2025-05-03T10:30:00.000Z', to: '2025-06-10T05:00:00.000Z' };
    for (const w of [window, { from: '2025-05-01T00:00:00.000Z', to: '2025-06-30T23:59:59.999Z' }]) {
      const q = `date_from=${w.from}&date_to=${w.to}&campaign_id=${X}`;
      const s = scope({ ...w, campaignId: X });
      expect((await ok(`/api/v1/metrics/summary?${q}`, key)).data).toEqual(await sqlSummary(s));
      expect((await ok(`/api/v1/metrics/outcomes?${q}`, key)).data).toEqual(await sqlOutcomes(s));
      expectDurationsAgree((await ok(`/api/v1/metrics/durations?${q}`, key)).data, await sqlDurations(s), q);
      const list = await ok(`/api/v1/interactions?${q}&limit=1`, key);
      expect(list.meta.total).toBe((await sqlSummary(s)).total_interactions);
    }
  });

  it('campaign ids of any printable characters up to 255 are matched exactly', async () => {
    const odd = [
      `${t} with spaces, commas; "quotes" & 100%_`,
      ` ${t} padded `,
      `${t}_${'é'.repeat(240)}`,
      `${t}${'c'.repeat(255 - t.length)}`,
      `${t}_😀_ünïcödé`,
    ];
    for (const [n, id] of odd.entries()) {
      await createCampaign(db, clinicId, { id });
      await db.interaction.createMany({
        data: Array.from({ length: n + 1 }, (_, i) => ({
          id: `cfodd_${t}_${n}_${i}`,
          clinicId,
          campaignId: id,
          channel: 'voice' as const,
          type: 'INBOUND' as const,
          direction: 'inbound' as const,
          phoneNumber: '+34 600 000 000',
          startedAt: new Date(Date.UTC(2025, 7, 1, n, i)),
          durationSeconds: 30,
          outcome: 'NO_ANSWER',
        })),
      });
    }
    for (const [n, id] of odd.entries()) {
      const q = `campaign_id=${encodeURIComponent(id)}`;
      const body = await ok(`/api/v1/interactions?${q}`, key);
      expect(body.meta.total, id).toBe(n + 1);
      expect(ids(body).every((x: string) => x.startsWith(`cfodd_${t}_${n}_`))).toBe(true);
      expect((await ok(`/api/v1/metrics/summary?${q}&date_from=2025-08-01&date_to=2025-08-01`, key)).data.total_interactions).toBe(n + 1);
      const groups = (await ok(`/api/v1/metrics/breakdown?group_by=campaign&${q}&date_from=2025-08-01&date_to=2025-08-01`, key)).data.groups;
      expect(groups.map((g: Json) => [g.campaign_id, g.total_interactions])).toEqual([[id, n + 1]]);
    }
    // A prefix of an id, the id in another case, or without its spaces, is another campaign.
    expect((await ok(`/api/v1/interactions?campaign_id=${encodeURIComponent(odd[1]!.trim())}`, key)).meta.total).toBe(0);
    expect((await ok(`/api/v1/interactions?campaign_id=${encodeURIComponent(odd[0]!.slice(0, 10))}`, key)).meta.total).toBe(0);
    expect((await ok(`/api/v1/interactions?campaign_id=${X.toUpperCase()}`, key)).meta.total).toBe(0);
  });
});
