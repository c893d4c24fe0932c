// campaign_id on every metrics endpoint (summary, daily, series, outcomes, breakdown, durations), in
// UTC and in time zones, each against the same computed by SQL over the raw table; and the campaign
// and duration levels after updates and deletes. (/interactions: campaign-interactions.test.ts.)
import { beforeAll, describe, expect, it } from 'vitest';
import { tag } from '../graphql/support.js';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic } from '../helpers/factories.js';
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
  ZERO_SUMMARY,
} from './breakdown-support.js';
import { expectStatus, expectSuccess, get, type Json, metaOf } from './client.js';

const db = testDb();
const app = testApp(db);

let ds: Dataset;
let keyAB = '';

beforeAll(async () => {
  ds = await seedDataset(db, tag());
  keyAB = await createKey(db, { clinicIds: [ds.A.id, ds.B.id] });
});

const ok = async (path: string, key = keyAB) => {
  const response = await get(app, path, key);
  expectStatus(response, 200);
  return response.body;
};

describe('campaign_id on every metrics endpoint equals SQL over that campaign', () => {
  const cases = () => [
    { query: `campaign_id=${ds.campaigns.a1.id}`, scope: { campaignId: ds.campaigns.a1.id } },
    { query: `campaign_id=${ds.campaigns.a2.id}&channel=voice`, scope: { campaignId: ds.campaigns.a2.id, channel: 'voice' as const } },
    { query: `campaign_id=${ds.campaigns.b1.id}&clinic_id=${ds.B.id}`, scope: { campaignId: ds.campaigns.b1.id, clinicIds: [ds.B.id] } },
    { query: `campaign_id=${ds.campaigns.b1.id}&channel=whatsapp`, scope: { campaignId: ds.campaigns.b1.id, channel: 'whatsapp' as const } },
  ];
  const scopeOf = (w: { from: string; to: string }, extra: Partial<Scope>): Scope => ({ from: w.from, to: w.to, clinicIds: [ds.A.id, ds.B.id], ...extra });

  it('summary', async () => {
    for (const w of [WINDOWS.days, WINDOWS.partial, WINDOWS.inDay, WINDOWS.all]) {
      for (const c of cases()) {
        const expected = await sqlSummary(scopeOf(w, c.scope));
        expect((await ok(`/api/v1/metrics/summary?${w.query}&${c.query}`)).data, `${w.query}&${c.query}`).toEqual(expected);
      }
    }
    // The campaign's total is its share of the clinic's, not the clinic's.
    const campaign = await sqlSummary(scopeOf(WINDOWS.all, { campaignId: ds.campaigns.a1.id }));
    const clinic = await sqlSummary({ ...WINDOWS.all, clinicIds: [ds.A.id] });
    expect(campaign.total_interactions).toBeGreaterThan(0);
    expect(campaign.total_interactions).toBeLessThan(clinic.total_interactions);
  });

  it('daily: every day of the window (its part inside the window)', async () => {
    for (const w of [WINDOWS.days, WINDOWS.partial]) {
      for (const c of cases()) {
        const daily = (await ok(`/api/v1/metrics/daily?${w.query}&${c.query}`)).data.daily as Json[];
        const byDate = await sqlDaily(scopeOf(w, c.scope));
        const expected = [];
        for (let t = Date.parse(`${w.from.slice(0, 10)}T00:00:00.000Z`); t <= Date.parse(w.to); t += 86_400_000) {
          const date = new Date(t).toISOString().slice(0, 10);
          expected.push({ date, ...(byDate.get(date) ?? ZERO_DAY) });
        }
        expect(daily, `${w.query}&${c.query}`).toEqual(expected);
      }
    }
  });

  it('series by hour, day, week and month: every bucket', async () => {
    const windows = [
      { granularity: 'hour', ...WINDOWS.inDay },
      { granularity: 'day', ...WINDOWS.partial },
      { granularity: 'week', ...WINDOWS.partial },
      { granularity: 'month', ...WINDOWS.days },
    ];
    for (const w of windows) {
      for (const c of cases()) {
        const label = `granularity=${w.granularity}&${w.query}&${c.query}`;
        const series = (await ok(`/api/v1/metrics/series?${label}`)).data.series as Json[];
        expect(series.length, label).toBeGreaterThan(1);
        let total = 0;
        for (const { start, end, ...metrics } of series) {
          const from = new Date(Math.max(Date.parse(start), Date.parse(w.from))).toISOString();
          const to = new Date(Math.min(Date.parse(end) - 1, Date.parse(w.to))).toISOString();
          expect(metrics, `${label} ${start}`).toEqual(await sqlDayFields(scopeOf({ from, to }, c.scope)));
          total += metrics.total;
        }
        // The buckets cover the window: their totals add up to the window's.
        expect(total, label).toBe((await sqlSummary(scopeOf(w, c.scope))).total_interactions);
      }
    }
  });

  it('outcomes', async () => {
    for (const w of [WINDOWS.days, WINDOWS.partial, WINDOWS.inDay]) {
      for (const c of cases()) {
        expect((await ok(`/api/v1/metrics/outcomes?${w.query}&${c.query}`)).data, `${w.query}&${c.query}`).toEqual(await sqlOutcomes(scopeOf(w, c.scope)));
      }
    }
  });

  it('breakdown and durations', async () => {
    for (const w of [WINDOWS.days, WINDOWS.partial]) {
      for (const c of cases()) {
        for (const groupBy of [['outcome'], ['type', 'direction'], ['clinic', 'campaign'], ['channel']] as const) {
          const label = `group_by=${groupBy.join(',')}&${w.query}&${c.query}`;
          expect((await ok(`/api/v1/metrics/breakdown?${label}&limit=500`)).data.groups, label).toEqual(await sqlBreakdown(scopeOf(w, c.scope), groupBy));
        }
        const durations = (await ok(`/api/v1/metrics/durations?${w.query}&${c.query}`)).data;
        expectDurationsAgree(durations, await sqlDurations(scopeOf(w, c.scope)), `${w.query}&${c.query}`);
      }
    }
  });

  it('in a time zone: summary, daily, series and outcomes of the campaign over local days', async () => {
    const unrestricted = await createKey(db);
    for (const zone of ['Asia/Kathmandu', 'America/New_York']) {
      const w = await localWindow('2025-03-05', '2025-03-20', zone);
      for (const c of cases()) {
        for (const key of [keyAB, unrestricted]) {
          const q = `date_from=2025-03-05&date_to=2025-03-20&timezone=${zone}&${c.query}`;
          const scope = scopeOf(w, c.scope);
          expect((await ok(`/api/v1/metrics/summary?${q}`, key)).data, q).toEqual(await sqlSummary(scope));
          expect((await ok(`/api/v1/metrics/outcomes?${q}`, key)).data, q).toEqual(await sqlOutcomes(scope));
          expect((await ok(`/api/v1/metrics/breakdown?group_by=type,outcome&limit=500&${q}`, key)).data.groups, q).toEqual(
            await sqlBreakdown(scope, ['type', 'outcome']),
          );
          if (key !== keyAB) continue;
          const daily = (await ok(`/api/v1/metrics/daily?${q}`, key)).data.daily as Json[];
          const byDate = await sqlDaily(scope, zone);
          expect(daily.map((d) => d.date)).toEqual(Array.from({ length: 16 }, (_, i) => `2025-03-${String(5 + i).padStart(2, '0')}`));
          for (const { date, ...metrics } of daily) expect(metrics, `${q} ${date}`).toEqual(byDate.get(date) ?? ZERO_DAY);
          for (const granularity of ['hour', 'day', 'week']) {
            const window = granularity === 'hour' ? await localWindow('2025-03-09', '2025-03-09', zone) : w;
            const sq = granularity === 'hour' ? q.replace('date_from=2025-03-05&date_to=2025-03-20', 'date_from=2025-03-09&date_to=2025-03-09') : q;
            const series = (await ok(`/api/v1/metrics/series?granularity=${granularity}&${sq}`, key)).data.series as Json[];
            let total = 0;
            for (const { start, end, ...metrics } of series) {
              const from = new Date(Math.max(Date.parse(start), Date.parse(window.from))).toISOString();
              const to = new Date(Math.min(Date.parse(end) - 1, Date.parse(window.to))).toISOString();
              expect(metrics, `${granularity} ${sq} ${start}`).toEqual(await sqlDayFields(scopeOf({ from, to }, c.scope)));
              total += metrics.total;
            }
            expect(total, `${granularity} ${sq}`).toBe((await sqlSummary(scopeOf(window, c.scope))).total_interactions);
          }
        }
      }
    }
  });

  it('summary compared with the previous period: both windows of the campaign', async () => {
    for (const c of cases()) {
      const data = (await ok(`/api/v1/metrics/summary?date_from=2025-03-10&date_to=2025-03-20&compare=previous_period&${c.query}`)).data;
      const { previous, change: _change, ...current } = data;
      expect(current, c.query).toEqual(await sqlSummary(scopeOf({ from: '2025-03-10T00:00:00.000Z', to: '2025-03-20T23:59:59.999Z' }, c.scope)));
      expect(previous, c.query).toEqual(await sqlSummary(scopeOf({ from: '2025-02-27T00:00:00.000Z', to: '2025-03-09T23:59:59.999Z' }, c.scope)));
    }
  });

  it('a campaign that does not exist: zeros and empties everywhere', async () => {
    const q = `${WINDOWS.all.query}&campaign_id=${encodeURIComponent(`cmp_${ds.tag}_nope`)}`;
    expect((await ok(`/api/v1/metrics/summary?${q}`)).data).toEqual(ZERO_SUMMARY);
    expect(((await ok(`/api/v1/metrics/daily?${q}`)).data.daily as Json[]).every((d) => d.total === 0)).toBe(true);
    expect(((await ok(`/api/v1/metrics/series?granularity=week&${q}`)).data.series as Json[]).every((d) => d.total === 0)).toBe(true);
    expect((await ok(`/api/v1/metrics/outcomes?${q}`)).data).toEqual({ outcomes: [], total: 0 });
    expect((await ok(`/api/v1/metrics/breakdown?group_by=campaign&${q}`)).data).toEqual({ groups: [] });
    expect((await ok(`/api/v1/metrics/durations?${q}`)).data.count).toBe(0);
    expectSuccess(await get(app, `/api/v1/interactions?${q}`, keyAB), { interactions: [] }, metaOf(1, 25, 0));
  });
});

describe('after updates and deletes, the campaign and duration levels still agree with the table', () => {
  it('moves between campaigns, outcome, duration, channel and day changes, swaps in one statement, deletes', async () => {
    const t = tag();
    const clinic = await createClinic(db);
    const other = await createClinic(db);
    const u1 = `cmp_${t}_u1`;
    const u2 = `cmp_${t}_u2`;
    const o1 = `cmp_${t}_o1`;
    await createCampaign(db, clinic.id, { id: u1 });
    await createCampaign(db, clinic.id, { id: u2 });
    await createCampaign(db, other.id, { id: o1 });
    const key = await createKey(db, { clinicIds: [clinic.id, other.id] });
    await db.$executeRaw`
      INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, campaign_id, started_at, duration_seconds, outcome)
      SELECT ${`up_${t}_`} || lpad(i::text, 3, '0'),
             CASE WHEN i % 4 = 0 THEN 'whatsapp' ELSE 'voice' END::"Channel",
             'CAMPAIGN_OUTBOUND'::"InteractionType", 'outbound'::"Direction", '+34 600 000 000',
             CASE WHEN i % 10 = 9 THEN ${other.id} ELSE ${clinic.id} END::uuid,
             CASE WHEN i % 10 = 9 THEN ${o1} WHEN i % 3 = 0 THEN NULL WHEN i % 3 = 1 THEN ${u1} ELSE ${u2} END,
             '2025-09-01T00:00:00Z'::timestamptz + i * interval '11 hours',
             CASE WHEN i % 4 = 0 THEN NULL WHEN i % 9 = 0 THEN 3600 + i * 13 ELSE i * 7 END,
             CASE WHEN i % 5 = 0 THEN NULL WHEN i % 2 = 0 THEN 'APPOINTMENT_BOOKED' ELSE 'NO_ANSWER' END
      FROM generate_series(1, 120) AS i`;
    const id = (i: number) => `up_${t}_${String(i).padStart(3, '0')}`;
    const statements = [
      // campaign u1 -> u2, and from none into u1
      `UPDATE interactions SET campaign_id = '${u2}' WHERE id IN ('${id(1)}', '${id(4)}', '${id(7)}')`,
      `UPDATE interactions SET campaign_id = '${u1}' WHERE id = '${id(3)}'`,
      // out of any campaign
      `UPDATE interactions SET campaign_id = NULL WHERE id IN ('${id(2)}', '${id(5)}')`,
      // swap u1 and u2 in one statement (counts per campaign cancel out, durations and outcomes do not)
      `UPDATE interactions SET campaign_id = CASE campaign_id WHEN '${u1}' THEN '${u2}' ELSE '${u1}' END WHERE id IN ('${id(10)}', '${id(11)}', '${id(13)}', '${id(14)}')`,
      // outcome changes, to and from none
      `UPDATE interactions SET outcome = 'APPOINTMENT_CANCELLED' WHERE id IN ('${id(16)}', '${id(20)}')`,
      `UPDATE interactions SET outcome = NULL WHERE id IN ('${id(17)}', '${id(22)}')`,
      // durations: to none, to 0, into and out of the open bucket, a change within one bucket
      `UPDATE interactions SET duration_seconds = NULL WHERE id = '${id(19)}'`,
      `UPDATE interactions SET duration_seconds = 0 WHERE id = '${id(23)}'`,
      `UPDATE interactions SET duration_seconds = 5000 WHERE id IN ('${id(25)}', '${id(26)}')`,
      `UPDATE interactions SET duration_seconds = 42 WHERE id = '${id(27)}'`,
      `UPDATE interactions SET duration_seconds = duration_seconds + 1 WHERE id = '${id(29)}'`,
      // a call becomes a conversation (no duration) and the other way round
      `UPDATE interactions SET channel = 'whatsapp', duration_seconds = NULL WHERE id = '${id(31)}'`,
      `UPDATE interactions SET channel = 'voice', duration_seconds = 77 WHERE id = '${id(32)}'`,
      // moved to another day and month
      `UPDATE interactions SET started_at = started_at + interval '35 days' WHERE id IN ('${id(34)}', '${id(35)}', '${id(37)}')`,
      `UPDATE interactions SET started_at = '2025-08-31T23:59:59.999Z' WHERE id = '${id(38)}'`,
      // everything at once, over many rows
      `UPDATE interactions SET outcome = 'NO_ANSWER', duration_seconds = CASE WHEN channel = 'voice' THEN 61 END WHERE id >= '${id(60)}' AND id < '${id(80)}'`,
      // deletes
      `DELETE FROM interactions WHERE id IN ('${id(40)}', '${id(41)}', '${id(44)}', '${id(49)}', '${id(81)}')`,
    ];
    for (const statement of statements) await db.$executeRawUnsafe(statement);

    const windows = [
      { query: 'date_from=2025-08-01&date_to=2025-11-30', from: '2025-08-01T00:00:00.000Z', to: '2025-11-30T23:59:59.999Z' },
      { query: 'date_from=2025-09-02&date_to=2025-10-20', from: '2025-09-02T00:00:00.000Z', to: '2025-10-20T23:59:59.999Z' },
    ];
    for (const w of windows) {
      const base: Scope = { from: w.from, to: w.to, clinicIds: [clinic.id, other.id] };
      for (const groupBy of [['campaign', 'outcome'], ['clinic', 'campaign'], ['channel', 'type'], ['outcome']] as const) {
        const label = `group_by=${groupBy.join(',')}&${w.query}`;
        expect((await ok(`/api/v1/metrics/breakdown?${label}&limit=500`, key)).data.groups, label).toEqual(await sqlBreakdown(base, groupBy));
      }
      for (const campaign of [u1, u2, o1, undefined]) {
        const q = `${w.query}${campaign ? `&campaign_id=${campaign}` : ''}`;
        const scope = { ...base, ...(campaign ? { campaignId: campaign } : {}) };
        expect((await ok(`/api/v1/metrics/summary?${q}`, key)).data, q).toEqual(await sqlSummary(scope));
        expect((await ok(`/api/v1/metrics/outcomes?${q}`, key)).data, q).toEqual(await sqlOutcomes(scope));
        expectDurationsAgree((await ok(`/api/v1/metrics/durations?${q}`, key)).data, await sqlDurations(scope), q);
        expect((await ok(`/api/v1/interactions?${q}&limit=1`, key)).meta.total, q).toBe((await sqlSummary(scope)).total_interactions);
      }
    }
  });
});
