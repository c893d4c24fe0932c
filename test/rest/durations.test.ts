// GET /api/v1/metrics/durations: the count of voice calls with a duration, percentiles within
// precision_seconds of PostgreSQL's percentile_cont, and the histogram (10 s buckets below 600 s,
// 60 s below 3,600 s, one open bucket from 3,600 s) against SQL over the raw table; WhatsApp, the
// clinic restriction, time zones and parameter errors.
import { beforeAll, describe, expect, it } from 'vitest';
import { tag } from '../graphql/support.js';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';
import {
  boundsOf,
  type Dataset,
  expectDurationsAgree as expectAgrees,
  PERCENTILE_NAMES as NAMES,
  type Scope,
  seedDataset,
  sqlDurations,
  WINDOWS,
} from './breakdown-support.js';
import { expectEnvelope, expectError, expectStatus, expectSuccess, expectValidationError, get, type Json, UNKNOWN_CLINIC } from './client.js';

const db = testDb();
const app = testApp(db);

let ds: Dataset;
let keyAB = '';
let keyA = '';

beforeAll(async () => {
  ds = await seedDataset(db, tag());
  keyAB = await createKey(db, { clinicIds: [ds.A.id, ds.B.id] });
  keyA = await createKey(db, { clinicIds: [ds.A.id] });
});

const durations = (query: string, key = keyAB) => get(app, `/api/v1/metrics/durations?${query}`, key);

const NO_CALLS = { count: 0, percentiles: { p50: null, p75: null, p90: null, p95: null, p99: null }, histogram: [], precision_seconds: 0 };
describe('GET /api/v1/metrics/durations against SQL', () => {
  it('the object envelope, with count, percentiles, histogram and precision_seconds', async () => {
    const response = await durations(WINDOWS.all.query);
    expectStatus(response, 200);
    expectEnvelope(response, 'object');
    const reference = await sqlDurations({ ...WINDOWS.all, clinicIds: [ds.A.id, ds.B.id] });
    expect(reference.count).toBeGreaterThan(200);
    expectAgrees(response.body.data, reference, 'all');
    // The histogram runs from 0 s to the open bucket (the data has calls of over an hour), every bucket present.
    const histogram = response.body.data.histogram as Json[];
    expect(histogram).toHaveLength(111);
    histogram.forEach((bucket, i) => {
      expect(Object.keys(bucket)).toEqual(['from_seconds', 'to_seconds', 'count']);
      expect({ from_seconds: bucket.from_seconds, to_seconds: bucket.to_seconds }).toEqual(boundsOf(i));
    });
    expect(histogram[0]).toMatchObject({ from_seconds: 0, to_seconds: 10 });
    expect(histogram[59]).toMatchObject({ from_seconds: 590, to_seconds: 600 });
    expect(histogram[60]).toMatchObject({ from_seconds: 600, to_seconds: 660 });
    expect(histogram[109]).toMatchObject({ from_seconds: 3540, to_seconds: 3600 });
    expect(histogram[110]).toMatchObject({ from_seconds: 3600, to_seconds: null });
    expect(histogram.reduce((s, b) => s + b.count, 0)).toBe(response.body.data.count);
  });

  it('every window (rollups, raw edges, within a day) and filter', async () => {
    const filters: Array<{ query: string; scope: Partial<Scope> }> = [
      { query: '', scope: {} },
      { query: 'channel=voice', scope: {} },
      { query: `clinic_id=${ds.A.id}`, scope: { clinicIds: [ds.A.id] } },
      { query: `clinic_id=${ds.B.id}`, scope: { clinicIds: [ds.B.id] } },
      { query: `campaign_id=${ds.campaigns.a1.id}`, scope: { campaignId: ds.campaigns.a1.id } },
      { query: `campaign_id=${ds.campaigns.b1.id}&type=CAMPAIGN_OUTBOUND`, scope: { campaignId: ds.campaigns.b1.id, type: 'CAMPAIGN_OUTBOUND' } },
      { query: 'type=INBOUND', scope: { type: 'INBOUND' } },
      { query: 'channel=voice&type=FORM_OUTBOUND', scope: { type: 'FORM_OUTBOUND' } },
      { query: 'type=CAMPAIGN_CALLBACK', scope: { type: 'CAMPAIGN_CALLBACK' } },
    ];
    for (const w of [WINDOWS.days, WINDOWS.partial, WINDOWS.inDay, WINDOWS.all]) {
      for (const f of filters) {
        const label = `${w.query}&${f.query}`;
        const response = await durations(label);
        expectStatus(response, 200);
        const reference = await sqlDurations({ from: w.from, to: w.to, clinicIds: [ds.A.id, ds.B.id], ...f.scope });
        if (w !== WINDOWS.inDay) expect(reference.count, label).toBeGreaterThan(0);
        expectAgrees(response.body.data, reference, label);
      }
    }
  });

  it('windows of every length from one day to the whole span, starting anywhere', async () => {
    for (let start = 24; start <= 31; start += 1) {
      for (const days of [1, 2, 6, 13, 27, 40]) {
        const from = new Date(Date.UTC(2025, 1, start, 7, 13));
        const to = new Date(from.getTime() + days * 86_400_000 - 3_600_000);
        const label = `${from.toISOString()}..${to.toISOString()}`;
        const response = await durations(`date_from=${from.toISOString()}&date_to=${to.toISOString()}`);
        expectStatus(response, 200);
        expectAgrees(response.body.data, await sqlDurations({ from: from.toISOString(), to: to.toISOString(), clinicIds: [ds.A.id, ds.B.id] }), label);
      }
    }
  });
});

describe('by hand', () => {
  async function clinicWithCalls(seconds: Array<number | null>, extra: Array<{ channel: 'whatsapp' }> = []) {
    const clinic = await createClinic(db);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const rows = [
      ...seconds.map((s) => ({ channel: 'voice' as const, type: 'INBOUND' as const, direction: 'inbound' as const, durationSeconds: s })),
      ...extra.map((e) => ({ ...e, type: 'INBOUND' as const, direction: 'inbound' as const, durationSeconds: null })),
    ];
    await db.interaction.createMany({
      data: rows.map((row, i) => ({
        id: `dur_${tag()}`,
        clinicId: clinic.id,
        phoneNumber: '+34 600 000 000',
        startedAt: new Date(Date.UTC(2025, 6, 10, 9, i)),
        outcome: 'NO_ANSWER',
        ...row,
      })),
    });
    return { clinic, key };
  }
  const JULY = 'date_from=2025-07-01&date_to=2025-07-31';
  const JULY_10_RAW = 'date_from=2025-07-10T08:00:00Z&date_to=2025-07-10T12:00:00Z';

  it('calls of an hour or more only: exact percentiles (precision 0), one open bucket after 110 empty ones', async () => {
    const { key } = await clinicWithCalls([3600, 3700, 5000, 7200, 10_000, null], [{ channel: 'whatsapp' }]);
    for (const window of [JULY, JULY_10_RAW]) {
      const response = await durations(window, key);
      const histogram = [...Array.from({ length: 110 }, (_, i) => ({ ...boundsOf(i), count: 0 })), { from_seconds: 3600, to_seconds: null, count: 5 }];
      expectSuccess(response, { count: 5, percentiles: { p50: 5000, p75: 7200, p90: 8880, p95: 9440, p99: 9888 }, histogram, precision_seconds: 0 });
    }
  });

  it('short calls: the histogram stops at the last bucket holding a call; percentiles within 10 s', async () => {
    const { clinic, key } = await clinicWithCalls([5, 15, 25, 25, null]);
    for (const window of [JULY, JULY_10_RAW]) {
      const response = await durations(window, key);
      expectStatus(response, 200);
      expect(response.body.data.count).toBe(4);
      expect(response.body.data.histogram).toEqual([
        { from_seconds: 0, to_seconds: 10, count: 1 },
        { from_seconds: 10, to_seconds: 20, count: 1 },
        { from_seconds: 20, to_seconds: 30, count: 2 },
      ]);
      expect(response.body.data.precision_seconds).toBe(10);
      expectAgrees(response.body.data, await sqlDurations({ from: '2025-07-01T00:00:00Z', to: '2025-07-31T23:59:59.999Z', clinicIds: [clinic.id] }), window);
    }
  });

  it('one call of 0 seconds: count 1, one bucket, percentiles within 10 s of 0 and not negative', async () => {
    const { key } = await clinicWithCalls([0]);
    const data = (await durations(JULY, key)).body.data;
    expect(data.count).toBe(1);
    expect(data.histogram).toEqual([{ from_seconds: 0, to_seconds: 10, count: 1 }]);
    for (const name of NAMES) {
      expect(data.percentiles[name]).toBeGreaterThanOrEqual(0);
      expect(data.percentiles[name]).toBeLessThanOrEqual(data.precision_seconds);
    }
  });

  it('bucket edges: 599 in the last 10 s bucket, 600 in the first 60 s one, 3599 in the last finite one, 3600 in the open one', async () => {
    const { key } = await clinicWithCalls([9, 10, 599, 600, 659, 660, 3599, 3600]);
    const histogram = (await durations(JULY, key)).body.data.histogram as Json[];
    const counts = Object.fromEntries(histogram.filter((b) => b.count > 0).map((b) => [`${b.from_seconds}-${b.to_seconds}`, b.count]));
    expect(counts).toEqual({ '0-10': 1, '10-20': 1, '590-600': 1, '600-660': 2, '660-720': 1, '3540-3600': 1, '3600-null': 1 });
  });

  it('percentiles between a finite bucket and the open one, and calls of one bucket only', async () => {
    for (const seconds of [
      [3000, 3600],
      [1000, 1000, 1000, 1000],
      [42],
      [100, 4000, 4000, 4000, 4000, 4000, 4000],
      Array.from({ length: 100 }, (_, i) => i * 37),
    ]) {
      const { clinic, key } = await clinicWithCalls(seconds);
      for (const window of [JULY, JULY_10_RAW]) {
        expectAgrees(
          (await durations(window, key)).body.data,
          await sqlDurations({ from: '2025-07-01T00:00:00Z', to: '2025-07-31T23:59:59.999Z', clinicIds: [clinic.id] }),
          `${seconds.slice(0, 5).join(',')} ${window}`,
        );
      }
    }
  });

  it('WhatsApp has no durations: count 0, null percentiles, an empty histogram', async () => {
    const { key } = await clinicWithCalls([30, 4000], [{ channel: 'whatsapp' }, { channel: 'whatsapp' }]);
    for (const query of ['channel=whatsapp', 'channel=whatsapp&type=INBOUND', 'type=APPOINTMENT_REMINDER', 'channel=whatsapp&type=APPOINTMENT_REMINDER']) {
      expectSuccess(await durations(`${JULY}&${query}`, key), NO_CALLS);
    }
    // Over the big dataset too (many WhatsApp conversations there).
    for (const w of [WINDOWS.all, WINDOWS.partial]) expectSuccess(await durations(`${w.query}&channel=whatsapp`), NO_CALLS);
    // And no calls at all: the same.
    expectSuccess(await durations('date_from=2025-08-01&date_to=2025-08-31', key), NO_CALLS);
  });
});

describe('restriction and time zones', () => {
  it('a key restricted to A counts A’s calls only; B asked for by clinic_id or campaign_id counts none', async () => {
    for (const w of [WINDOWS.days, WINDOWS.partial]) {
      const mine = await durations(w.query, keyA);
      const reference = await sqlDurations({ from: w.from, to: w.to, clinicIds: [ds.A.id] });
      expectAgrees(mine.body.data, reference, w.query);
      expect(reference.count).toBeLessThan((await sqlDurations({ from: w.from, to: w.to, clinicIds: [ds.A.id, ds.B.id] })).count);
      for (const query of [`clinic_id=${ds.B.id}`, `campaign_id=${ds.campaigns.b1.id}`, `clinic_id=${UNKNOWN_CLINIC}`, `campaign_id=cmp_${ds.tag}_none`]) {
        expectSuccess(await durations(`${w.query}&${query}`, keyA), NO_CALLS);
      }
    }
  });

  it('a local day in Kathmandu (UTC+05:45) is read over its own instants', async () => {
    const local = { from: '2025-03-13T18:15:00.000Z', to: '2025-03-14T18:14:59.999Z' };
    const query = 'date_from=2025-03-14&date_to=2025-03-14';
    const zoned = await durations(`${query}&timezone=Asia/Kathmandu`);
    const reference = await sqlDurations({ ...local, clinicIds: [ds.A.id, ds.B.id] });
    expectAgrees(zoned.body.data, reference, 'Kathmandu');
    const utc = await sqlDurations({ from: '2025-03-14T00:00:00.000Z', to: '2025-03-14T23:59:59.999Z', clinicIds: [ds.A.id, ds.B.id] });
    expect(utc.histogram).not.toEqual(reference.histogram);
    expectAgrees((await durations(query)).body.data, utc, 'UTC');
  });
});

describe('errors', () => {
  it('bad or unknown parameters: 400 naming each', async () => {
    const cases: Array<[string, string[]]> = [
      ['page=1', ['page']],
      ['limit=10', ['limit']],
      ['group_by=campaign', ['group_by']],
      ['outcome=NO_ANSWER', ['outcome']],
      ['compare=previous_period', ['compare']],
      ['campaign_id=', ['campaign_id']],
      [`campaign_id=${'x'.repeat(256)}`, ['campaign_id']],
      ['campaign_id=a%0Db', ['campaign_id']],
      ['channel=sms', ['channel']],
      ['channel=whatsapp&type=FORM_OUTBOUND', ['type']],
      ['type=inbound', ['type']],
      ['clinic_id=1', ['clinic_id']],
      ['timezone=Nowhere/City', ['timezone']],
      ['date_from=2025-04-02&date_to=2025-04-01', ['date_from']],
      ['date_to=2025-13-01&channel=x', ['date_to', 'channel']],
    ];
    for (const [query, names] of cases) expectValidationError(await durations(query), names);
  });

  it('needs scope metrics:read', async () => {
    const key = await createKey(db, { scopes: ['interactions:read'], clinicIds: [ds.A.id] });
    expectError(await durations('', key), 403, 'INSUFFICIENT_SCOPE');
    expectError(await get(app, '/api/v1/metrics/durations'), 401, 'UNAUTHORIZED');
  });

  it('a campaign of any 1 to 255 printable characters is accepted', async () => {
    const clinic = await createClinic(db);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const id = `cmp ${tag()} ✓ "quoted", 100% & more`;
    await createCampaign(db, clinic.id, { id });
    await createInteraction(db, { clinicId: clinic.id, campaignId: id, durationSeconds: 77, startedAt: new Date('2025-07-20T10:00:00Z') });
    await createInteraction(db, { clinicId: clinic.id, durationSeconds: 5, startedAt: new Date('2025-07-20T11:00:00Z') });
    const data = (await durations(`date_from=2025-07-20&date_to=2025-07-20&campaign_id=${encodeURIComponent(id)}`, key)).body.data;
    expect(data.count).toBe(1);
    expect(data.histogram.at(-1)).toEqual({ from_seconds: 70, to_seconds: 80, count: 1 });
  });
});
