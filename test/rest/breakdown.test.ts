// GET /api/v1/metrics/breakdown: the envelope, the keys of every one- and two-dimension breakdown,
// the groups against SQL over the raw table (windows read from the rollups and raw), names, the
// groups of "no campaign" and "no outcome", the order and its ties, paging, time zones, and every
// parameter error.
import { beforeAll, describe, expect, it } from 'vitest';
import { tag } from '../graphql/support.js';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction, type InteractionInput } from '../helpers/factories.js';
import {
  COMBOS,
  type Dataset,
  type Dimension,
  expectDurationsAgree,
  keysOf,
  type Scope,
  SPAN,
  SUMMARY_KEYS,
  seedDataset,
  sortGroups,
  sqlBreakdown,
  sqlDurations,
  sqlSummary,
  WINDOWS,
} from './breakdown-support.js';
import { expectEnvelope, expectError, expectStatus, expectSuccess, expectValidationError, get, type Json, metaOf, UNKNOWN_CLINIC } from './client.js';

const db = testDb();
const app = testApp(db);

let ds: Dataset;
let keyAB = '';

beforeAll(async () => {
  ds = await seedDataset(db, tag());
  keyAB = await createKey(db, { clinicIds: [ds.A.id, ds.B.id] });
});

const breakdown = (query: string, key = keyAB) => get(app, `/api/v1/metrics/breakdown?${query}`, key);

/** The groups of a 200 answer (every group fits on the page: meta says so). */
async function groupsOf(query: string, key = keyAB): Promise<Json[]> {
  const response = await breakdown(`${query}&limit=500`, key);
  expectStatus(response, 200);
  expect(response.body.meta.total_pages, query).toBeLessThanOrEqual(1);
  return response.body.data.groups;
}

const both = (w: { from: string; to: string }, extra: Partial<Scope> = {}): Scope => ({ from: w.from, to: w.to, clinicIds: [ds.A.id, ds.B.id], ...extra });

describe('GET /api/v1/metrics/breakdown', () => {
  it('200 with the list envelope: data.groups and paging meta; per campaign with its name, and one group for no campaign', async () => {
    const response = await breakdown(`group_by=campaign&${WINDOWS.all.query}`);
    expectStatus(response, 200);
    expectEnvelope(response, 'list');
    expect(Object.keys(response.body.data)).toEqual(['groups']);
    expect(response.body.meta).toEqual(metaOf(1, 25, 4));
    const groups = response.body.data.groups as Json[];
    expect(groups).toEqual(await sqlBreakdown(both(WINDOWS.all), ['campaign']));
    // Each campaign's name; the interactions without a campaign form one group with both keys null.
    const names = new Map(groups.map((g) => [g.campaign_id, g.campaign_name]));
    expect(names).toEqual(
      new Map([
        [ds.campaigns.a1.id, ds.campaigns.a1.name],
        [ds.campaigns.a2.id, ds.campaigns.a2.name],
        [ds.campaigns.b1.id, ds.campaigns.b1.name],
        [null, null],
      ]),
    );
    // Every interaction is in exactly one group.
    expect(groups.reduce((s, g) => s + g.total_interactions, 0)).toBe(ds.ids.A.length + ds.ids.B.length);
    // Numbers are JSON numbers.
    expect(typeof groups[0].avg_duration_seconds).toBe('number');
  });

  it('group_by with a percent-encoded comma is the same breakdown', async () => {
    expect(await groupsOf(`group_by=campaign%2Coutcome&${WINDOWS.partial.query}`)).toEqual(
      await groupsOf(`group_by=campaign,outcome&${WINDOWS.partial.query}`),
    );
  });

  it('per clinic: clinic_id and clinic_name of each clinic', async () => {
    const groups = await groupsOf(`group_by=clinic&${WINDOWS.all.query}`);
    expect(groups.map((g) => [g.clinic_id, g.clinic_name]).sort()).toEqual(
      [
        [ds.A.id, ds.A.name],
        [ds.B.id, ds.B.name],
      ].sort(),
    );
    expect(Object.fromEntries(groups.map((g) => [g.clinic_id, g.total_interactions]))).toEqual({ [ds.A.id]: ds.ids.A.length, [ds.B.id]: ds.ids.B.length });
  });

  it('every one- and two-dimension breakdown (21): exactly the keys grouped by, in the documented order, and the groups SQL computes', async () => {
    expect(COMBOS).toHaveLength(21);
    for (const groupBy of COMBOS) {
      for (const w of [WINDOWS.days, WINDOWS.partial, WINDOWS.monthLessDays, WINDOWS.inDay]) {
        const label = `group_by=${groupBy.join(',')}&${w.query}`;
        const response = await breakdown(`${label}&limit=500`);
        expectStatus(response, 200);
        const expected = await sqlBreakdown(both(w), groupBy);
        expect(expected.length, label).toBeGreaterThan(0);
        expect(response.body.meta, label).toEqual(metaOf(1, 500, expected.length));
        for (const group of response.body.data.groups) expect(Object.keys(group), label).toEqual(keysOf(groupBy));
        expect(response.body.data.groups, label).toEqual(expected);
      }
    }
  });

  it('with clinic_id, campaign_id, channel and type: the groups of those interactions only', async () => {
    const filters: Array<{ query: string; scope: Partial<Scope> }> = [
      { query: `clinic_id=${ds.A.id}`, scope: { clinicIds: [ds.A.id] } },
      { query: `clinic_id=${ds.B.id.toUpperCase()}`, scope: { clinicIds: [ds.B.id] } },
      { query: `campaign_id=${ds.campaigns.a1.id}`, scope: { campaignId: ds.campaigns.a1.id } },
      { query: `campaign_id=${ds.campaigns.b1.id}&clinic_id=${ds.B.id}`, scope: { campaignId: ds.campaigns.b1.id, clinicIds: [ds.B.id] } },
      { query: 'channel=voice', scope: { channel: 'voice' } },
      { query: 'channel=whatsapp', scope: { channel: 'whatsapp' } },
      { query: 'type=INBOUND', scope: { type: 'INBOUND' } },
      { query: 'channel=voice&type=CAMPAIGN_CALLBACK', scope: { channel: 'voice', type: 'CAMPAIGN_CALLBACK' } },
      {
        query: `channel=whatsapp&type=CAMPAIGN_OUTBOUND&campaign_id=${ds.campaigns.a2.id}`,
        scope: { channel: 'whatsapp', type: 'CAMPAIGN_OUTBOUND', campaignId: ds.campaigns.a2.id },
      },
    ];
    const groupBys: Dimension[][] = [['clinic'], ['campaign'], ['outcome'], ['clinic', 'campaign'], ['campaign', 'outcome'], ['channel', 'type']];
    for (const f of filters) {
      for (const groupBy of groupBys) {
        for (const w of [WINDOWS.days, WINDOWS.partial, WINDOWS.monthLessDays]) {
          const label = `group_by=${groupBy.join(',')}&${w.query}&${f.query}`;
          const expected = await sqlBreakdown(both(w, f.scope), groupBy);
          expect(expected.length, label).toBeGreaterThan(0);
          expect(await groupsOf(label), label).toEqual(expected);
        }
      }
    }
  });

  it('a campaign or clinic that does not exist: no groups, total 0', async () => {
    for (const query of [`campaign_id=cmp_${tag()}_nope`, `clinic_id=${UNKNOWN_CLINIC}`]) {
      for (const groupBy of ['campaign', 'clinic', 'outcome', 'channel,type']) {
        expectSuccess(await breakdown(`group_by=${groupBy}&${WINDOWS.all.query}&${query}`), { groups: [] }, metaOf(1, 25, 0));
      }
    }
  });

  it('the dimensions in the other order: the same groups, keys still in the documented order, largest first', async () => {
    for (const [first, second] of COMBOS.filter((c) => c.length === 2)) {
      const forward = await groupsOf(`group_by=${first},${second}&${WINDOWS.partial.query}`);
      const reversed = await groupsOf(`group_by=${second},${first}&${WINDOWS.partial.query}`);
      for (const group of reversed) expect(Object.keys(group)).toEqual(keysOf([first!, second!]));
      expect(reversed.map((g) => g.total_interactions)).toEqual(forward.map((g) => g.total_interactions));
      expect(sortGroups(reversed, [first!, second!])).toEqual(forward);
    }
  });
});

describe('a key of every clinic (the levels summed over all clinics)', () => {
  it('every breakdown, the summary and the durations equal SQL over every clinic', async () => {
    // 2047: a year no other test writes to, so every interaction there is this test's.
    await seedDataset(db, tag(), { shiftMs: Date.UTC(2047, 1, 25) - SPAN.from });
    const all = await createKey(db);
    const in2047 = (w: { query: string; from: string; to: string }) => ({
      query: w.query.replaceAll('2025-', '2047-'),
      from: w.from.replace('2025-', '2047-'),
      to: w.to.replace('2025-', '2047-'),
    });
    for (const w of [in2047(WINDOWS.days), in2047(WINDOWS.partial), in2047(WINDOWS.monthLessDays)]) {
      const scope: Scope = { from: w.from, to: w.to, clinicIds: 'all' };
      for (const groupBy of COMBOS) {
        const label = `group_by=${groupBy.join(',')}&${w.query}`;
        expect(await groupsOf(label, all), label).toEqual(await sqlBreakdown(scope, groupBy));
      }
      const summary = await get(app, `/api/v1/metrics/summary?${w.query}`, all);
      expect(summary.body.data).toEqual(await sqlSummary(scope));
      // (most of the 600 interactions; fewer in the window inside March)
      expect(summary.body.data.total_interactions).toBeGreaterThan(w.query.includes('-03-02T') ? 300 : 500);
      for (const query of ['', 'type=INBOUND', 'channel=voice']) {
        const durations = await get(app, `/api/v1/metrics/durations?${w.query}&${query}`, all);
        expectDurationsAgree(
          durations.body.data,
          await sqlDurations({ ...scope, type: query === 'type=INBOUND' ? 'INBOUND' : undefined }),
          `${w.query} ${query}`,
        );
      }
    }
  });
});

// --- order, ties, names and the "none" groups, by hand ---------------------------------------------

describe('order and ties, by hand', () => {
  const t = tag();
  let clinicId = '';
  let key = '';
  const campaign = (x: string) => `cmp_${t}_${x}`;

  beforeAll(async () => {
    const clinic = await createClinic(db, { name: `Ties ${t}` });
    clinicId = clinic.id;
    for (const x of ['a', 'b', 'c']) await createCampaign(db, clinicId, { id: campaign(x), name: `Campaign ${x.toUpperCase()} ${t}` });
    const at = (h: number) => new Date(Date.UTC(2025, 5, 10, h));
    const rows: InteractionInput[] = [
      { campaignId: campaign('c'), outcome: 'NO_ANSWER', channel: 'voice', type: 'CAMPAIGN_OUTBOUND', durationSeconds: 30, clinicId, startedAt: at(1) },
      { campaignId: campaign('c'), outcome: 'NO_ANSWER', channel: 'voice', type: 'CAMPAIGN_OUTBOUND', durationSeconds: 45, clinicId, startedAt: at(2) },
      { campaignId: campaign('c'), outcome: 'APPOINTMENT_BOOKED', channel: 'whatsapp', type: 'CAMPAIGN_OUTBOUND', clinicId, startedAt: at(3) },
      { campaignId: campaign('b'), outcome: 'OPT_OUT', channel: 'voice', type: 'CAMPAIGN_CALLBACK', durationSeconds: null, clinicId, startedAt: at(4) },
      { campaignId: campaign('b'), outcome: null, channel: 'whatsapp', type: 'CAMPAIGN_OUTBOUND', clinicId, startedAt: at(5) },
      {
        campaignId: campaign('a'),
        outcome: 'APPOINTMENT_BOOKED',
        channel: 'voice',
        type: 'CAMPAIGN_OUTBOUND',
        durationSeconds: 100,
        clinicId,
        startedAt: at(6),
      },
      { campaignId: campaign('a'), outcome: null, channel: 'voice', type: 'CAMPAIGN_OUTBOUND', durationSeconds: 20, clinicId, startedAt: at(7) },
      { campaignId: null, outcome: 'NO_ANSWER', channel: 'voice', type: 'INBOUND', durationSeconds: 10, clinicId, startedAt: at(8) },
      { campaignId: null, outcome: 'OPT_OUT', channel: 'whatsapp', type: 'INBOUND', clinicId, startedAt: at(9) },
    ];
    for (const row of rows) await createInteraction(db, row);
    key = await createKey(db, { clinicIds: [clinicId] });
  });

  /** The same answer from the rollups (a whole month) and from the raw table (a partial day). */
  async function bothWays(groupBy: string): Promise<Json[]> {
    const month = await groupsOf(`group_by=${groupBy}&date_from=2025-06-01&date_to=2025-06-30`, key);
    const partial = await groupsOf(`group_by=${groupBy}&date_from=2025-06-10T00:30:00Z&date_to=2025-06-10T09:00:00Z`, key);
    expect(partial).toEqual(month);
    return month;
  }

  const metrics = (values: number[]) => Object.fromEntries(SUMMARY_KEYS.map((k, i) => [k, values[i]]));

  it('per campaign: largest first, equal totals by campaign id, the group without a campaign last', async () => {
    expect(await bothWays('campaign')).toEqual([
      { campaign_id: campaign('c'), campaign_name: `Campaign C ${t}`, ...metrics([3, 2, 1, 0, 3, 37.5, 75, 33.33, 1]) },
      { campaign_id: campaign('a'), campaign_name: `Campaign A ${t}`, ...metrics([2, 2, 0, 0, 2, 60, 120, 100, 1]) },
      { campaign_id: campaign('b'), campaign_name: `Campaign B ${t}`, ...metrics([2, 1, 1, 0, 2, 0, 0, 0, 0]) },
      { campaign_id: null, campaign_name: null, ...metrics([2, 1, 1, 2, 0, 10, 10, 0, 0]) },
    ]);
  });

  it('per outcome: equal totals alphabetically, the group without an outcome (null) last', async () => {
    expect(await bothWays('outcome')).toEqual([
      { outcome: 'NO_ANSWER', ...metrics([3, 3, 0, 1, 2, 28.33, 85, 0, 0]) },
      { outcome: 'APPOINTMENT_BOOKED', ...metrics([2, 1, 1, 0, 2, 100, 100, 100, 2]) },
      { outcome: 'OPT_OUT', ...metrics([2, 1, 1, 1, 1, 0, 0, 0, 0]) },
      { outcome: null, ...metrics([2, 1, 1, 0, 2, 20, 20, 0, 0]) },
    ]);
  });

  it('per campaign and outcome: ties by campaign, then outcome, nulls last in each', async () => {
    const groups = await bothWays('campaign,outcome');
    expect(groups.map((g) => [g.campaign_id, g.outcome, g.total_interactions])).toEqual([
      [campaign('c'), 'NO_ANSWER', 2],
      [campaign('a'), 'APPOINTMENT_BOOKED', 1],
      [campaign('a'), null, 1],
      [campaign('b'), 'OPT_OUT', 1],
      [campaign('b'), null, 1],
      [campaign('c'), 'APPOINTMENT_BOOKED', 1],
      [null, 'NO_ANSWER', 1],
      [null, 'OPT_OUT', 1],
    ]);
    expect(groups[2]).toEqual({ campaign_id: campaign('a'), campaign_name: `Campaign A ${t}`, outcome: null, ...metrics([1, 1, 0, 0, 1, 20, 20, 0, 0]) });
  });

  it('per channel, direction and type: lowercase channel and direction, REST type names', async () => {
    expect(await bothWays('channel')).toEqual([
      { channel: 'voice', ...metrics([6, 6, 0, 1, 5, 41, 205, 20, 1]) },
      { channel: 'whatsapp', ...metrics([3, 0, 3, 1, 2, 0, 0, 50, 1]) },
    ]);
    expect((await bothWays('direction')).map((g) => [g.direction, g.total_interactions])).toEqual([
      ['outbound', 7],
      ['inbound', 2],
    ]);
    expect((await bothWays('type,channel')).map((g) => [g.channel, g.type, g.total_interactions])).toEqual([
      ['voice', 'CAMPAIGN_OUTBOUND', 4],
      ['whatsapp', 'CAMPAIGN_OUTBOUND', 2],
      ['voice', 'CAMPAIGN_CALLBACK', 1],
      ['voice', 'INBOUND', 1],
      ['whatsapp', 'INBOUND', 1],
    ]);
  });

  it('per clinic: clinics with equal totals by clinic id', async () => {
    // A second clinic with as many interactions (9) as the first.
    const twin = await createClinic(db, { name: `Twin ${t}` });
    for (let h = 1; h <= 9; h++) await createInteraction(db, { clinicId: twin.id, startedAt: new Date(Date.UTC(2025, 5, 10, h)) });
    const keyBoth = await createKey(db, { clinicIds: [clinicId, twin.id] });
    const groups = await groupsOf('group_by=clinic&date_from=2025-06-01&date_to=2025-06-30', keyBoth);
    expect(groups.map((g) => g.total_interactions)).toEqual([9, 9]);
    expect(groups.map((g) => g.clinic_id)).toEqual([clinicId, twin.id].sort());
    expect(Object.fromEntries(groups.map((g) => [g.clinic_id, g.clinic_name]))).toEqual({ [clinicId]: `Ties ${t}`, [twin.id]: `Twin ${t}` });
  });

  it('a window without interactions: no groups (groups without interactions are never listed)', async () => {
    for (const groupBy of ['campaign', 'outcome', 'clinic', 'channel,type']) {
      expectSuccess(await breakdown(`group_by=${groupBy}&date_from=2025-06-11&date_to=2025-06-30`, key), { groups: [] }, metaOf(1, 25, 0));
    }
  });
});

// --- paging ------------------------------------------------------------------------------------------

describe('paging', () => {
  it('pages concatenate to the whole breakdown, each with its meta', async () => {
    for (const groupBy of ['type,outcome', 'campaign,outcome', 'clinic']) {
      const all = await groupsOf(`group_by=${groupBy}&${WINDOWS.partial.query}`);
      const total = all.length;
      expect(total).toBeGreaterThan(1);
      for (const limit of [1, 7]) {
        const pages: Json[] = [];
        const totalPages = Math.ceil(total / limit);
        for (let page = 1; page <= totalPages; page++) {
          const response = await breakdown(`group_by=${groupBy}&${WINDOWS.partial.query}&page=${page}&limit=${limit}`);
          expectStatus(response, 200);
          expect(response.body.meta, `${groupBy} page ${page} limit ${limit}`).toEqual(metaOf(page, limit, total));
          expect(response.body.data.groups.length).toBe(Math.min(limit, total - (page - 1) * limit));
          pages.push(...response.body.data.groups);
        }
        expect(pages).toEqual(all);
      }
    }
  });

  it('the default page size is 25', async () => {
    const response = await breakdown(`group_by=type,outcome&${WINDOWS.all.query}`);
    const total = (await groupsOf(`group_by=type,outcome&${WINDOWS.all.query}`)).length;
    expect(total).toBeGreaterThan(25);
    expect(response.body.meta).toEqual(metaOf(1, 25, total));
    expect(response.body.data.groups).toHaveLength(25);
  });

  it('a page past the last: 200, no groups, the right total, has_more false', async () => {
    for (const groupBy of ['campaign', 'type,outcome', 'clinic,campaign']) {
      for (const w of [WINDOWS.days, WINDOWS.partial, WINDOWS.monthLessDays]) {
        const total = (await groupsOf(`group_by=${groupBy}&${w.query}`)).length;
        for (const [page, limit] of [
          [Math.ceil(total / 5) + 1, 5],
          [2, 500],
          [999_999, 25],
          [2_147_483_647, 500],
        ] as const) {
          const response = await breakdown(`group_by=${groupBy}&${w.query}&page=${page}&limit=${limit}`);
          expectSuccess(response, { groups: [] }, { page, limit, total, total_pages: Math.ceil(total / limit), has_more: false });
        }
      }
    }
    // And past the last page of nothing: total 0, total_pages 0.
    expectSuccess(
      await breakdown(`group_by=campaign&clinic_id=${UNKNOWN_CLINIC}&page=3&limit=10`),
      { groups: [] },
      { page: 3, limit: 10, total: 0, total_pages: 0, has_more: false },
    );
  });
});

// --- time zones ------------------------------------------------------------------------------------

describe('timezone', () => {
  it('local days: the window of a Kathmandu day (UTC+05:45) is not the UTC day', async () => {
    const clinic = await createClinic(db);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    // 2025-03-10T20:00Z is 2025-03-11 01:45 in Kathmandu; 2025-03-11T19:00Z is 2025-03-12 00:45 there.
    await createInteraction(db, { clinicId: clinic.id, channel: 'voice', type: 'INBOUND', durationSeconds: 40, startedAt: new Date('2025-03-10T20:00:00Z') });
    await createInteraction(db, { clinicId: clinic.id, channel: 'whatsapp', type: 'INBOUND', startedAt: new Date('2025-03-11T12:00:00Z') });
    await createInteraction(db, {
      clinicId: clinic.id,
      channel: 'voice',
      type: 'CAMPAIGN_OUTBOUND',
      durationSeconds: 80,
      startedAt: new Date('2025-03-11T19:00:00Z'),
    });
    const day = 'group_by=direction&date_from=2025-03-11&date_to=2025-03-11';
    const utc = await groupsOf(day, key);
    const local = await groupsOf(`${day}&timezone=Asia/Kathmandu`, key);
    expect(utc.map((g) => [g.direction, g.total_interactions])).toEqual([
      ['inbound', 1],
      ['outbound', 1],
    ]);
    expect(local).toEqual([
      {
        direction: 'inbound',
        total_interactions: 2,
        total_calls: 1,
        total_conversations: 1,
        inbound_count: 2,
        outbound_count: 0,
        avg_duration_seconds: 40,
        total_duration_seconds: 40,
        success_rate: 100,
        appointments_scheduled: 2,
      },
    ]);
    expect(local).toEqual(await sqlBreakdown({ from: '2025-03-10T18:15:00.000Z', to: '2025-03-11T18:14:59.999Z', clinicIds: [clinic.id] }, ['direction']));
    expect(await groupsOf(`${day}&timezone=UTC`, key)).toEqual(utc);
  });

  it('timezone=clinic with clinic_id: the clinic’s own zone (Europe/Madrid here)', async () => {
    for (const groupBy of ['campaign,outcome', 'channel']) {
      const query = `group_by=${groupBy}&date_from=2025-03-01&date_to=2025-03-31&clinic_id=${ds.A.id}`;
      const clinic = await groupsOf(`${query}&timezone=clinic`);
      expect(clinic).toEqual(await groupsOf(`${query}&timezone=Europe/Madrid`));
      expect(clinic).toEqual(
        await sqlBreakdown({ from: '2025-02-28T23:00:00.000Z', to: '2025-03-31T21:59:59.999Z', clinicIds: [ds.A.id] }, groupBy.split(',') as Dimension[]),
      );
    }
  });

  it('a month in New York (across the change to daylight saving time) against SQL over its instants', async () => {
    const local = { from: '2025-03-01T05:00:00.000Z', to: '2025-04-01T03:59:59.999Z' };
    for (const groupBy of [['clinic'], ['campaign', 'outcome'], ['channel', 'type'], ['direction']] as Dimension[][]) {
      const query = `group_by=${groupBy.join(',')}&date_from=2025-03-01&date_to=2025-03-31`;
      const zoned = await groupsOf(`${query}&timezone=America/New_York`);
      expect(zoned, query).toEqual(await sqlBreakdown(both(local), groupBy));
      // The data makes the two windows differ.
      expect(zoned, query).not.toEqual(await groupsOf(query));
    }
  });
});

// --- errors ------------------------------------------------------------------------------------------

describe('errors', () => {
  it('group_by: a dimension twice, three, unknown, empty or missing: 400 naming group_by', async () => {
    for (const query of [
      'group_by=campaign,campaign',
      'group_by=outcome,outcome',
      'group_by=clinic,campaign,channel',
      'group_by=clinic,campaign,channel,type,direction,outcome',
      'group_by=campaign,outcome,campaign',
      'group_by=foo',
      'group_by=campaign,foo',
      'group_by=CAMPAIGN',
      'group_by=campaigns',
      'group_by=clinic_id',
      'group_by=',
      'group_by=,',
      'group_by=campaign,',
      'group_by=,campaign',
      'group_by=campaign%20',
      '',
      'date_from=2025-03-01',
      'group_by=campaign&group_by=outcome',
    ]) {
      expectValidationError(await breakdown(query), ['group_by']);
    }
  });

  it('bad page, limit and campaign_id: 400 naming each', async () => {
    const cases: Array<[string, string[]]> = [
      ['page=0', ['page']],
      ['page=-1', ['page']],
      ['page=abc', ['page']],
      ['page=1.5', ['page']],
      ['page=', ['page']],
      ['page=2147483648', ['page']],
      ['limit=0', ['limit']],
      ['limit=501', ['limit']],
      ['limit=abc', ['limit']],
      ['limit=', ['limit']],
      ['campaign_id=', ['campaign_id']],
      [`campaign_id=${'c'.repeat(256)}`, ['campaign_id']],
      [`campaign_id=${'€'.repeat(256)}`, ['campaign_id']],
      ['campaign_id=cmp%00x', ['campaign_id']],
      ['campaign_id=cmp%0Ax', ['campaign_id']],
      ['campaign_id=cmp%09', ['campaign_id']],
      ['campaign_id=cmp%7F', ['campaign_id']],
      ['campaign_id=a&campaign_id=b', ['campaign_id']],
      ['channel=fax', ['channel']],
      ['clinic_id=nope', ['clinic_id']],
      ['timezone=Mars/Base', ['timezone']],
      ['date_from=2025-02-30', ['date_from']],
      ['page=0&limit=0&campaign_id=', ['page', 'limit', 'campaign_id']],
    ];
    for (const [query, names] of cases) expectValidationError(await breakdown(`group_by=campaign&${query}`), names);
    // Every bad parameter at once, group_by included.
    expectValidationError(await breakdown('group_by=nope&page=0&campaign_id=&channel=fax'), ['group_by', 'page', 'campaign_id', 'channel']);
  });

  it('campaign_id with a C1 control character (U+0080..U+009F, e.g. NEL U+0085): 400 naming campaign_id', async () => {
    // Control characters are refused, and U+0080..U+009F are control characters (Unicode category
    // Cc) just as U+0000..U+001F and U+007F are: none of them is printable.
    for (const encoded of ['%C2%80', '%C2%85', 'cmp%C2%9F'])
      expectValidationError(await breakdown(`group_by=campaign&campaign_id=${encoded}`), ['campaign_id']);
  });

  it('campaign ids of 1 to 255 printable characters are accepted', async () => {
    for (const id of ['x', ' ', 'c'.repeat(255), '€'.repeat(255), '😀'.repeat(255), 'cmp with spaces, commas & %', ' padded ', '😀 campaign']) {
      expectSuccess(await breakdown(`group_by=campaign&campaign_id=${encodeURIComponent(id)}`), { groups: [] }, metaOf(1, 25, 0));
    }
  });

  it('an unknown parameter, or one of another endpoint: 400 naming it', async () => {
    for (const [query, names] of [
      ['foo=1', ['foo']],
      ['groupBy=campaign', ['groupBy']],
      ['outcome=NO_ANSWER', ['outcome']],
      ['search=600', ['search']],
      ['compare=previous_period', ['compare']],
      ['granularity=day', ['granularity']],
    ] as Array<[string, string[]]>) {
      expectValidationError(await breakdown(`group_by=campaign&${query}`), names);
    }
  });

  it('needs a key (401) with scope metrics:read (403)', async () => {
    expectError(await get(app, '/api/v1/metrics/breakdown?group_by=campaign'), 401, 'UNAUTHORIZED');
    const other = await createKey(db, { scopes: ['interactions:read', 'clinics:read', 'campaigns:read'], clinicIds: [ds.A.id] });
    const error = expectError(await breakdown('group_by=campaign', other), 403, 'INSUFFICIENT_SCOPE');
    expect(error.details).toEqual({ required_scope: 'metrics:read' });
    const metricsOnly = await createKey(db, { scopes: ['metrics:read'], clinicIds: [ds.A.id] });
    // clinic and campaign names come with metrics:read alone
    const groups = await groupsOf(`group_by=clinic,campaign&${WINDOWS.all.query}`, metricsOnly);
    expect(groups).toEqual(await sqlBreakdown({ ...WINDOWS.all, clinicIds: [ds.A.id] }, ['clinic', 'campaign']));
    expect(groups.every((g) => g.clinic_name === ds.A.name)).toBe(true);
  });
});
