// Clinic restriction of the breakdown and of campaign_id: a key restricted to clinic A never sees
// clinic B's ids, names, campaigns, outcomes or counts in any breakdown, whatever it groups by; asking
// for B (clinic_id) or one of B's campaigns (campaign_id) behaves as asking for something that does
// not exist, on every metrics endpoint and on /interactions.
import { beforeAll, describe, expect, it } from 'vitest';
import { tag } from '../graphql/support.js';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import {
  B_ONLY_OUTCOMES,
  B_ONLY_TYPE,
  COMBOS,
  type Dataset,
  type Dimension,
  type Scope,
  seedDataset,
  sqlBreakdown,
  sqlSummary,
  WINDOWS,
  ZERO_SUMMARY,
} from './breakdown-support.js';
import { expectStatus, expectSuccess, get, type Json, metaOf, type RestResponse } from './client.js';

const db = testDb();
const app = testApp(db);

let ds: Dataset;
let keyA = '';
let keyAB = '';

beforeAll(async () => {
  ds = await seedDataset(db, tag());
  keyA = await createKey(db, { clinicIds: [ds.A.id] });
  keyAB = await createKey(db, { clinicIds: [ds.A.id, ds.B.id] });
});

/** Nothing of clinic B in the response's text: its id (any case), name, campaign, and what only B has. */
function expectNoTraceOfB(response: RestResponse, label: string) {
  expectStatus(response, 200);
  const text = response.text.toLowerCase();
  for (const secret of [ds.B.id, ds.B.name, ds.campaigns.b1.id, ds.campaigns.b1.name, B_ONLY_TYPE, ...B_ONLY_OUTCOMES, ...ds.ids.B.slice(0, 50)]) {
    expect(text, `${label}: ${secret}`).not.toContain(secret.toLowerCase());
  }
}

const PAIRS: Dimension[][] = [
  ['clinic', 'campaign'],
  ['campaign', 'outcome'],
  ['clinic', 'outcome'],
  ['channel', 'type'],
  ['type', 'direction'],
  ['outcome', 'direction'],
  ['campaign', 'type'],
];
const GROUP_BYS: Dimension[][] = [...COMBOS.filter((c) => c.length === 1), ...PAIRS];

const onlyA = (w: { from: string; to: string }): Scope => ({ from: w.from, to: w.to, clinicIds: [ds.A.id] });
const sum = (groups: Json[]) => groups.reduce((s, g) => s + g.total_interactions, 0);

describe('a key restricted to clinic A: breakdowns', () => {
  it('for every dimension and pairs of them: only A’s groups, equal to the reference restricted to A, totals equal to A’s', async () => {
    for (const groupBy of GROUP_BYS) {
      for (const w of [WINDOWS.days, WINDOWS.partial, WINDOWS.monthLessDays]) {
        const label = `group_by=${groupBy.join(',')}&${w.query}`;
        const response = await get(app, `/api/v1/metrics/breakdown?${label}&limit=500`, keyA);
        expectNoTraceOfB(response, label);
        const expected = await sqlBreakdown(onlyA(w), groupBy);
        expect(response.body.data.groups, label).toEqual(expected);
        expect(response.body.meta.total, label).toBe(expected.length);
        const total = (await sqlSummary(onlyA(w))).total_interactions;
        expect(sum(response.body.data.groups), label).toBe(total);
        // The same request with a key of both clinics sees B: the data makes a leak visible.
        const both = await get(app, `/api/v1/metrics/breakdown?${label}&limit=500`, keyAB);
        expect(sum(both.body.data.groups), label).toBeGreaterThan(total);
      }
    }
  });

  it('the same with filters (channel, type, A’s campaign), in a time zone, and on every page', async () => {
    for (const groupBy of GROUP_BYS) {
      for (const query of ['channel=voice', 'type=CAMPAIGN_OUTBOUND', `campaign_id=${ds.campaigns.a1.id}`, 'timezone=Asia/Tokyo']) {
        const label = `group_by=${groupBy.join(',')}&${WINDOWS.partial.query}&${query}`;
        const response = await get(app, `/api/v1/metrics/breakdown?${label}&limit=500`, keyA);
        expectNoTraceOfB(response, label);
        expect(sum(response.body.data.groups)).toBeGreaterThan(0);
      }
      for (let page = 1; page <= 2; page++) {
        expectNoTraceOfB(await get(app, `/api/v1/metrics/breakdown?group_by=${groupBy.join(',')}&${WINDOWS.all.query}&limit=3&page=${page}`, keyA), 'paged');
      }
    }
  });

  it('clinic_id of B: no groups and a total of 0, whatever the breakdown', async () => {
    for (const groupBy of GROUP_BYS) {
      for (const query of [`clinic_id=${ds.B.id}`, `clinic_id=${ds.B.id.toUpperCase()}`, `clinic_id=${ds.B.id}&campaign_id=${ds.campaigns.b1.id}`]) {
        const response = await get(app, `/api/v1/metrics/breakdown?group_by=${groupBy.join(',')}&${WINDOWS.all.query}&${query}`, keyA);
        expectSuccess(response, { groups: [] }, metaOf(1, 25, 0));
      }
    }
  });
});

describe('campaign_id of a campaign of another clinic is a campaign that does not exist', () => {
  const W = WINDOWS.all.query;
  const unknown = () => `cmp_${ds.tag}_does_not_exist`;

  /** The response for B's campaign with key A, for an unknown campaign with key A, and for B's campaign with a key of both. */
  async function threeWays(path: string) {
    const sep = path.includes('?') ? '&' : '?';
    const other = await get(app, `${path}${sep}campaign_id=${ds.campaigns.b1.id}`, keyA);
    const none = await get(app, `${path}${sep}campaign_id=${unknown()}`, keyA);
    const visible = await get(app, `${path}${sep}campaign_id=${ds.campaigns.b1.id}`, keyAB);
    for (const r of [other, none, visible]) expectStatus(r, 200);
    expectNoTraceOfB(other, path);
    expect(other.body.data, path).toEqual(none.body.data);
    expect(other.body.meta, path).toEqual(none.body.meta);
    // B's campaign has interactions in the window: the key of both clinics sees them.
    expect(visible.body.data, path).not.toEqual(other.body.data);
    return other;
  }

  it('summary: zeros (also compared with the previous period)', async () => {
    expect((await threeWays(`/api/v1/metrics/summary?${W}`)).body.data).toEqual(ZERO_SUMMARY);
    const compared = await threeWays(`/api/v1/metrics/summary?date_from=2025-03-16&date_to=2025-04-05&compare=previous_period`);
    expect(compared.body.data).toMatchObject({ ...ZERO_SUMMARY, previous: ZERO_SUMMARY });
  });

  it('daily and series: every day and bucket zero', async () => {
    const daily = (await threeWays(`/api/v1/metrics/daily?${W}`)).body.data.daily as Json[];
    expect(daily.length).toBe(89);
    expect(daily.every((d) => d.total === 0 && d.calls === 0 && d.avg_duration_seconds === 0)).toBe(true);
    for (const granularity of ['hour', 'day', 'week', 'month']) {
      const window = granularity === 'hour' ? 'date_from=2025-03-14&date_to=2025-03-15' : W;
      const series = (await threeWays(`/api/v1/metrics/series?granularity=${granularity}&${window}`)).body.data.series as Json[];
      expect(series.length, granularity).toBeGreaterThan(0);
      expect(
        series.every((b) => b.total === 0),
        granularity,
      ).toBe(true);
    }
  });

  it('outcomes: none', async () => {
    expect((await threeWays(`/api/v1/metrics/outcomes?${W}`)).body.data).toEqual({ outcomes: [], total: 0 });
  });

  it('breakdown: no groups, for every dimension', async () => {
    for (const groupBy of GROUP_BYS) {
      const response = await threeWays(`/api/v1/metrics/breakdown?group_by=${groupBy.join(',')}&${W}`);
      expect(response.body.data).toEqual({ groups: [] });
      expect(response.body.meta).toEqual(metaOf(1, 25, 0));
    }
  });

  it('durations: no call', async () => {
    expect((await threeWays(`/api/v1/metrics/durations?${W}`)).body.data).toEqual({
      count: 0,
      percentiles: { p50: null, p75: null, p90: null, p95: null, p99: null },
      histogram: [],
      precision_seconds: 0,
    });
  });

  it('interactions: an empty list with a total of 0, with filters and on deep pages', async () => {
    for (const query of ['', 'limit=500', 'channel=voice', 'search=600', 'outcome=NO_ANSWER', 'page=3&limit=1', `${W}&type=INBOUND`, 'page=100&limit=1']) {
      const response = await threeWays(`/api/v1/interactions?${query}`);
      expect(response.body.data).toEqual({ interactions: [] });
      expect(response.body.meta.total).toBe(0);
      expect(response.body.meta.has_more).toBe(false);
    }
  });

  it('with timezone=clinic (a key of A alone may use it): still nothing', async () => {
    for (const path of ['/api/v1/metrics/summary', '/api/v1/metrics/outcomes', '/api/v1/metrics/durations', '/api/v1/metrics/breakdown?group_by=campaign']) {
      const sep = path.includes('?') ? '&' : '?';
      const response = await get(app, `${path}${sep}${W}&timezone=clinic&clinic_id=${ds.A.id}&campaign_id=${ds.campaigns.b1.id}`, keyA);
      expectNoTraceOfB(response, path);
      const data = response.body.data;
      if (path.endsWith('summary')) expect(data).toEqual(ZERO_SUMMARY);
      else if (path.endsWith('outcomes')) expect(data).toEqual({ outcomes: [], total: 0 });
      else if (path.endsWith('durations')) expect(data.count).toBe(0);
      else expect(data.groups).toEqual([]);
    }
  });

  it('a campaign of A asked for with clinic_id of B, even by a key of both: nothing', async () => {
    const query = `${W}&campaign_id=${ds.campaigns.a1.id}&clinic_id=${ds.B.id}`;
    expectSuccess(await get(app, `/api/v1/metrics/summary?${query}`, keyAB), ZERO_SUMMARY);
    expectSuccess(await get(app, `/api/v1/metrics/breakdown?group_by=campaign&${query}`, keyAB), { groups: [] }, metaOf(1, 25, 0));
    expect((await get(app, `/api/v1/metrics/durations?${query}`, keyAB)).body.data.count).toBe(0);
    const list = await get(app, `/api/v1/interactions?${query}`, keyAB);
    expectSuccess(list, { interactions: [] }, metaOf(1, 25, 0));
  });
});
