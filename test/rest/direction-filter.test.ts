// `direction` (inbound|outbound), as a user of each read meets it: every metrics endpoint, in UTC
// and in a time zone, equal to SQL over the raw table; /interactions by page, by cursor, as an
// export; the lists under a clinic or campaign and the metrics of each over GraphQL; a value that
// is not a direction named in the 400.
import { beforeAll, describe, expect, it } from 'vitest';
import { tag } from '../graphql/support.js';
import { createKey, expectNoErrors, graphql, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createClinic, createInteraction } from '../helpers/factories.js';
import {
  type Dataset,
  expectDurationsAgree,
  localWindow,
  type Scope,
  seedDataset,
  sqlBreakdown,
  sqlDaily,
  sqlDayFields,
  sqlDurations,
  sqlOutcomes,
  sqlSummary,
  WINDOWS,
  ZERO_DAY,
} from './breakdown-support.js';
import { expectStatus, expectValidationError, get, type Json } from './client.js';

const db = testDb();
const app = testApp(db);

let ds: Dataset;
let key = '';

beforeAll(async () => {
  ds = await seedDataset(db, tag());
  key = await createKey(db, { clinicIds: [ds.A.id, ds.B.id] });
});

const ok = async (path: string) => {
  const response = await get(app, path, key);
  expectStatus(response, 200);
  return response.body;
};

const DIRECTIONS = ['inbound', 'outbound'] as const;
const cases = () => [
  ...DIRECTIONS.map((direction) => ({ query: `direction=${direction}`, scope: { direction } })),
  { query: 'direction=outbound&channel=voice', scope: { direction: 'outbound' as const, channel: 'voice' as const } },
  { query: `direction=inbound&clinic_id=${ds.B.id}`, scope: { direction: 'inbound' as const, clinicIds: [ds.B.id] } },
  { query: `direction=outbound&campaign_id=${ds.campaigns.a1.id}`, scope: { direction: 'outbound' as const, campaignId: ds.campaigns.a1.id } },
];
const scopeOf = (w: { from: string; to: string }, extra: Partial<Scope>): Scope => ({ from: w.from, to: w.to, clinicIds: [ds.A.id, ds.B.id], ...extra });

describe('direction on every metrics endpoint equals SQL over that direction', () => {
  it('summary: each direction is its share of the whole, and the two add up to it', async () => {
    for (const w of [WINDOWS.days, WINDOWS.partial, WINDOWS.inDay, WINDOWS.all]) {
      for (const c of cases()) {
        expect((await ok(`/api/v1/metrics/summary?${w.query}&${c.query}`)).data, `${w.query}&${c.query}`).toEqual(await sqlSummary(scopeOf(w, c.scope)));
      }
      const [inbound, outbound, all] = await Promise.all(
        ['direction=inbound', 'direction=outbound', ''].map(async (q) => (await ok(`/api/v1/metrics/summary?${w.query}&${q}`)).data),
      );
      expect(inbound.total_interactions).toBeGreaterThan(0);
      expect(outbound.total_interactions).toBeGreaterThan(0);
      expect(inbound.total_interactions + outbound.total_interactions).toBe(all.total_interactions);
      expect([inbound.outbound_count, outbound.inbound_count]).toEqual([0, 0]);
    }
  });

  it('daily, series (hour, day, month) and outcomes', async () => {
    for (const c of cases()) {
      const w = WINDOWS.partial;
      const daily = (await ok(`/api/v1/metrics/daily?${w.query}&${c.query}`)).data.daily as Json[];
      const byDate = await sqlDaily(scopeOf(w, c.scope));
      for (const { date, ...metrics } of daily) expect(metrics, `${c.query} ${date}`).toEqual(byDate.get(date) ?? ZERO_DAY);
      for (const s of [
        { granularity: 'hour', ...WINDOWS.inDay },
        { granularity: 'day', ...WINDOWS.partial },
        { granularity: 'month', ...WINDOWS.days },
      ]) {
        const label = `granularity=${s.granularity}&${s.query}&${c.query}`;
        const series = (await ok(`/api/v1/metrics/series?${label}`)).data.series as Json[];
        let total = 0;
        for (const { start, end, ...metrics } of series) {
          const from = new Date(Math.max(Date.parse(start), Date.parse(s.from))).toISOString();
          const to = new Date(Math.min(Date.parse(end) - 1, Date.parse(s.to))).toISOString();
          expect(metrics, `${label} ${start}`).toEqual(await sqlDayFields(scopeOf({ from, to }, c.scope)));
          total += metrics.total;
        }
        expect(total, label).toBe((await sqlSummary(scopeOf(s, c.scope))).total_interactions);
      }
      for (const o of [WINDOWS.days, WINDOWS.partial]) {
        expect((await ok(`/api/v1/metrics/outcomes?${o.query}&${c.query}`)).data, c.query).toEqual(await sqlOutcomes(scopeOf(o, c.scope)));
      }
    }
  });

  it('breakdown and durations', async () => {
    for (const w of [WINDOWS.days, WINDOWS.partial]) {
      for (const c of cases()) {
        for (const groupBy of [['outcome'], ['type', 'direction'], ['clinic', 'campaign']] as const) {
          const label = `group_by=${groupBy.join(',')}&${w.query}&${c.query}`;
          expect((await ok(`/api/v1/metrics/breakdown?${label}&limit=500`)).data.groups, label).toEqual(await sqlBreakdown(scopeOf(w, c.scope), groupBy));
        }
        const durations = (await ok(`/api/v1/metrics/durations?${w.query}&${c.query}`)).data;
        expectDurationsAgree(durations, await sqlDurations(scopeOf(w, c.scope)), `${w.query}&${c.query}`);
      }
    }
  });

  it('in a time zone: summary, outcomes, daily and series over local days', async () => {
    const zone = 'Asia/Kathmandu';
    const w = await localWindow('2025-03-05', '2025-03-20', zone);
    for (const c of cases()) {
      const q = `date_from=2025-03-05&date_to=2025-03-20&timezone=${zone}&${c.query}`;
      const scope = scopeOf(w, c.scope);
      expect((await ok(`/api/v1/metrics/summary?${q}`)).data, q).toEqual(await sqlSummary(scope));
      expect((await ok(`/api/v1/metrics/outcomes?${q}`)).data, q).toEqual(await sqlOutcomes(scope));
      const daily = (await ok(`/api/v1/metrics/daily?${q}`)).data.daily as Json[];
      const byDate = await sqlDaily(scope, zone);
      for (const { date, ...metrics } of daily) expect(metrics, `${q} ${date}`).toEqual(byDate.get(date) ?? ZERO_DAY);
      const series = (await ok(`/api/v1/metrics/series?granularity=week&${q}`)).data.series as Json[];
      expect(
        series.reduce((sum, bucket) => sum + bucket.total, 0),
        q,
      ).toBe((await sqlSummary(scope)).total_interactions);
    }
  });
});

describe('direction on /interactions', () => {
  const expected = async (direction: string) =>
    (
      await db.interaction.findMany({
        where: { clinicId: { in: [ds.A.id, ds.B.id] }, direction: direction as 'inbound' },
        orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
        select: { id: true },
      })
    ).map((row) => row.id);

  it('by page: only that direction, every one of them, counted', async () => {
    for (const direction of DIRECTIONS) {
      const ids = await expected(direction);
      expect(ids.length).toBeGreaterThan(0);
      const body = await ok(`/api/v1/interactions?direction=${direction}&limit=500`);
      expect((body.data.interactions as Json[]).map((i) => i.id)).toEqual(ids.slice(0, 500));
      expect((body.data.interactions as Json[]).every((i) => i.direction === direction)).toBe(true);
      expect(body.meta.total).toBe(ids.length);
    }
  });

  it('by cursor: the pages hold every one of them once, and a cursor of the other direction is refused', async () => {
    const ids = await expected('outbound');
    const seen: string[] = [];
    let cursor = '';
    for (;;) {
      const body = await ok(`/api/v1/interactions?direction=outbound&limit=100&cursor=${encodeURIComponent(cursor)}`);
      seen.push(...(body.data.interactions as Json[]).map((i) => i.id));
      if (!body.meta.next_cursor) break;
      cursor = body.meta.next_cursor;
    }
    expect(seen).toEqual(ids);
    const first = await ok('/api/v1/interactions?direction=outbound&limit=1&cursor=');
    const refused = await get(app, `/api/v1/interactions?direction=inbound&limit=1&cursor=${encodeURIComponent(first.meta.next_cursor)}`, key);
    expect(expectValidationError(refused, ['cursor']).cursor).toMatch(/other filters/);
  });

  it('as an export: the same rows as the list', async () => {
    const response = await app.fetch('http://localhost/api/v1/interactions?direction=inbound', {
      headers: { authorization: `Bearer ${key}`, accept: 'application/x-ndjson' },
    });
    expect(response.status).toBe(200);
    const rows = (await response.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; direction: string });
    expect(rows.map((row) => row.id)).toEqual(await expected('inbound'));
    expect(rows.every((row) => row.direction === 'inbound')).toBe(true);
  });

  it('with a phone search and a full-text search: only the matches in that direction', async () => {
    const clinic = await createClinic(db);
    const made = [];
    for (const type of ['INBOUND', 'CAMPAIGN_OUTBOUND', 'INBOUND', 'APPOINTMENT_REMINDER'] as const) {
      made.push(await createInteraction(db, { clinicId: clinic.id, type, phoneNumber: '+34 611 222 333', summary: 'Patient rescheduled the appointment.' }));
    }
    const own = await createKey(db, { clinicIds: [clinic.id] });
    for (const direction of DIRECTIONS) {
      const ids = made
        .filter((row) => row.direction === direction)
        .sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime() || (a.id < b.id ? 1 : -1))
        .map((row) => row.id);
      for (const q of ['search=611', 'search=2', 'q=rescheduled', 'q=appointment&search=333']) {
        const response = await get(app, `/api/v1/interactions?${q}&direction=${direction}`, own);
        expectStatus(response, 200);
        expect((response.body.data.interactions as Json[]).map((i) => i.id).sort(), `${q} ${direction}`).toEqual([...ids].sort());
        expect(response.body.meta.total, `${q} ${direction}`).toBe(ids.length);
      }
    }
  });

  it('a value that is not a direction: 400 naming the parameter and the values it takes', async () => {
    for (const path of ['/api/v1/interactions?direction=sideways', '/api/v1/metrics/summary?direction=INBOUND', '/api/v1/metrics/daily?direction=']) {
      const problems = expectValidationError(await get(app, path, key), ['direction']);
      expect(problems.direction, path).toBe('must be one of: inbound, outbound');
    }
  });
});

describe('direction over GraphQL: nested lists and the metrics of a clinic', () => {
  it('selects the same interactions and counts as REST', async () => {
    const data = expectNoErrors(
      await graphql(app, {
        key,
        variables: { id: ds.A.id },
        query: `query($id: ID!) {
          clinic(id: $id) {
            interactions(direction: OUTBOUND, limit: 500) { id direction }
            metrics(direction: OUTBOUND, dateFrom: "2025-01-01", dateTo: "2025-12-31") { totalInteractions outboundCount inboundCount }
          }
        }`,
      }),
    ) as { clinic: { interactions: Array<{ id: string; direction: string }>; metrics: Record<string, number> } };
    const outbound = await db.interaction.findMany({
      where: { clinicId: ds.A.id, direction: 'outbound' },
      orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
      select: { id: true },
    });
    expect(data.clinic.interactions.map((i) => i.id)).toEqual(outbound.slice(0, 500).map((row) => row.id));
    expect(data.clinic.interactions.every((i) => i.direction === 'OUTBOUND')).toBe(true);
    const inYear = await db.interaction.count({
      where: { clinicId: ds.A.id, direction: 'outbound', startedAt: { gte: new Date('2025-01-01T00:00:00Z'), lte: new Date('2025-12-31T23:59:59.999Z') } },
    });
    expect(data.clinic.metrics).toEqual({ totalInteractions: inYear, outboundCount: inYear, inboundCount: 0 });
  });
});
