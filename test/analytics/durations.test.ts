// metricsDurations (src/analytics/durations.ts) against the raw table: its count and histogram equal
// the raw bucket counts exactly; each percentile is within precisionSeconds of PostgreSQL's
// percentile_cont over the same calls (voice calls with a duration), and equal to it when the order
// statistics it interpolates between are calls of an hour or more (read exactly); precisionSeconds
// is the widest bucket those order statistics fell in (0 when all were exact). Conversations, and
// windows or filters without calls, give no count, null percentiles and no histogram. Also the
// bucket bounds of durations.ts against the migration's interaction_duration_bucket().
//
// On a database of the file's own (see dimension-fixtures.ts): without a clinic or campaign
// restriction the durations are read from the all-clinics levels. The examples use days of 2030,
// which no window of the property reaches.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketBounds, type DurationBucket, type DurationsResult, metricsDurations, PERCENTILES } from '../../src/analytics/durations.js';
import type { MetricsFilter } from '../../src/analytics/filter.js';
import { CHANNELS, type ChannelValue, INTERACTION_TYPES, type InteractionTypeValue, OUTCOMES, TYPES_BY_CHANNEL } from '../../src/domain/values.js';
import {
  createCampaigns,
  createClinics,
  describeFilter,
  fileDatabase,
  insertRows,
  instantArb,
  type Row,
  rawWhere,
  windowArb,
  windowOf,
} from './dimension-fixtures.js';

const file = fileDatabase('durations');

/** The bucket of a duration, spelled independently of interaction_duration_bucket() and bucketBounds(). */
const BUCKET = 'CASE WHEN duration_seconds >= 3600 THEN 110 WHEN duration_seconds >= 600 THEN 50 + duration_seconds / 60 ELSE duration_seconds / 10 END';
/** Bounds of a bucket, from the contract: 10 s wide below 600 s, 60 s wide below 3600 s, then open. */
function bounds(bucket: number): { fromSeconds: number; toSeconds: number | null } {
  if (bucket < 60) return { fromSeconds: 10 * bucket, toSeconds: 10 * bucket + 10 };
  if (bucket < 110) return { fromSeconds: 600 + 60 * (bucket - 60), toSeconds: 660 + 60 * (bucket - 60) };
  return { fromSeconds: 3600, toSeconds: null };
}
/** The width of the bucket of a duration; 0 for the open bucket, whose calls are read exactly. */
const widthOf = (seconds: number) => (seconds < 600 ? 10 : seconds < 3600 ? 60 : 0);

interface Reference {
  count: number;
  histogram: DurationBucket[];
  /** percentile_cont of each of PERCENTILES, in order (null without calls). */
  exact: Array<number | null>;
  /** The calls' durations, ascending. */
  sorted: number[];
}

/** The durations of a filter over the raw table: percentile_cont, and the calls by bucket. */
async function reference(filter: MetricsFilter): Promise<Reference> {
  const { where, values } = rawWhere(filter);
  const calls = `FROM interactions WHERE ${where} AND channel = 'voice' AND duration_seconds IS NOT NULL`;
  const [{ rows: percentiles }, { rows: buckets }] = [
    await file.q.query<{ n: string; exact: number[] | null; sorted: number[] | null }>(
      `SELECT count(*) AS n,
              percentile_cont(ARRAY[${PERCENTILES.map(([, p]) => p).join(', ')}]::float8[]) WITHIN GROUP (ORDER BY duration_seconds) AS exact,
              array_agg(duration_seconds ORDER BY duration_seconds) AS sorted
       ${calls}`,
      values,
    ),
    await file.q.query<{ bucket: number; calls: string }>(`SELECT ${BUCKET} AS bucket, count(*) AS calls ${calls} GROUP BY 1 ORDER BY 1`, values),
  ];
  const count = Number(percentiles[0]!.n);
  const byBucket = new Map(buckets.map((b) => [b.bucket, Number(b.calls)]));
  const last = buckets.length ? buckets[buckets.length - 1]!.bucket : -1;
  return {
    count,
    histogram: Array.from({ length: last + 1 }, (_, bucket) => ({ ...bounds(bucket), count: byBucket.get(bucket) ?? 0 })),
    exact: percentiles[0]!.exact ?? PERCENTILES.map(() => null),
    sorted: percentiles[0]!.sorted ?? [],
  };
}

const NONE: DurationsResult = {
  count: 0,
  percentiles: { p50: null, p75: null, p90: null, p95: null, p99: null },
  histogram: [],
  precisionSeconds: 0,
};

/** Asserts the contract of `actual` against the raw reference. */
function expectMatches(actual: DurationsResult, ref: Reference, context: string): void {
  expect(actual.count, `count: ${context}`).toBe(ref.count);
  expect(actual.histogram, `histogram: ${context}`).toEqual(ref.histogram);
  if (ref.count === 0) {
    expect(actual, context).toEqual(NONE);
    return;
  }
  let precision = 0;
  PERCENTILES.forEach(([name, fraction], i) => {
    // The order statistics percentile_cont interpolates between (one when the rank is whole).
    const h = fraction * (ref.count - 1);
    const lo = Math.floor(h);
    const used = (h > lo ? [lo, lo + 1] : [lo]).map((rank) => ref.sorted[rank]!);
    precision = Math.max(precision, ...used.map(widthOf));
    const value = actual.percentiles[name];
    const exact = ref.exact[i]!;
    if (used.every((seconds) => widthOf(seconds) === 0)) {
      expect(value, `${name} (calls of an hour or more): ${context}`).toBe(exact);
    } else {
      expect(value, `${name}: ${context}`).not.toBeNull();
      expect(Math.abs(value! - exact), `${name} = ${value}, percentile_cont ${exact}, precision ${actual.precisionSeconds}: ${context}`).toBeLessThanOrEqual(
        actual.precisionSeconds,
      );
    }
  });
  expect(actual.precisionSeconds, `precisionSeconds: ${context}`).toBe(precision);
  const values = PERCENTILES.map(([name]) => actual.percentiles[name]!);
  expect(
    values.every((v, i) => i === 0 || values[i - 1]! <= v),
    `percentiles ascending ${values}: ${context}`,
  ).toBe(true);
}

async function check(filter: MetricsFilter): Promise<DurationsResult> {
  const actual = await metricsDurations(file.db, filter);
  expectMatches(actual, await reference(filter), describeFilter(filter));
  return actual;
}

const call = (clinicId: string, startedAt: string, durationSeconds: number | null, data: Partial<Row> = {}): Row => ({
  clinicId,
  campaignId: null,
  channel: 'voice',
  type: 'INBOUND',
  startedAt: Date.parse(startedAt),
  durationSeconds,
  outcome: 'APPOINTMENT_BOOKED',
  ...data,
});

describe('the histogram buckets', () => {
  it("bucketBounds(b) holds every second that the migration's interaction_duration_bucket() puts in b, and the buckets tile 0 to infinity", async () => {
    const { rows } = await file.q.query<{ s: number; bucket: number }>(
      `SELECT s, interaction_duration_bucket(s) AS bucket
       FROM (SELECT generate_series(0, 4000) AS s UNION ALL SELECT unnest(ARRAY[86400, 1000000000, 2147483647])) AS t ORDER BY s`,
    );
    const misplaced = rows.filter(({ s, bucket }) => {
      const { from, to } = bucketBounds(bucket);
      return !(from <= s && (to === null || s < to));
    });
    expect(misplaced).toEqual([]);
    for (let bucket = 0; bucket <= 110; bucket++) {
      expect({ from: bucketBounds(bucket).from, to: bucketBounds(bucket).to }, `bucket ${bucket}`).toEqual({
        from: bounds(bucket).fromSeconds,
        to: bounds(bucket).toSeconds,
      });
    }
  });
});

describe('metricsDurations (examples)', () => {
  it('counts 0, 599, 600, 3599, 3600 and 2^31 - 1 seconds in their buckets, the same from the day, month and raw levels; long calls exactly', async () => {
    const [a, b] = await createClinics(file.q, 2);
    const [campaign] = [`cmp_dur_${randomUUID().slice(0, 8)}`];
    await createCampaigns(file.q, [{ id: campaign, clinicId: a! }]);
    await insertRows(file.q, [
      call(a!, '2030-03-10T00:00:00.001Z', 0),
      call(a!, '2030-03-10T08:00:00.000Z', 599, { campaignId: campaign }),
      call(a!, '2030-03-10T09:00:00.000Z', 600, { type: 'CAMPAIGN_CALLBACK' }),
      call(a!, '2030-03-10T10:00:00.000Z', 3599, { campaignId: campaign }),
      call(a!, '2030-03-10T11:00:00.000Z', 3600),
      call(a!, '2030-03-10T23:59:59.999Z', 2147483647, { campaignId: campaign, outcome: null }),
      // Neither a call without a duration nor a conversation's duration counts.
      call(a!, '2030-03-10T12:00:00.000Z', null),
      call(a!, '2030-03-10T12:00:00.000Z', 500, { channel: 'whatsapp', type: 'APPOINTMENT_REMINDER' }),
      // Another clinic's long calls, the same day: only without a clinic restriction.
      call(b!, '2030-03-10T12:00:00.000Z', 5000),
      call(b!, '2030-03-10T13:00:00.000Z', 4000),
    ]);
    const day = { from: new Date('2030-03-10T00:00:00.000Z'), to: new Date('2030-03-10T23:59:59.999Z') };
    const month = { from: new Date('2030-03-01T00:00:00.000Z'), to: new Date('2030-03-31T23:59:59.999Z') };
    const raw = { from: new Date('2030-03-10T00:00:00.001Z'), to: new Date('2030-03-10T23:59:59.999Z') }; // inside one day: all raw
    const results = [];
    for (const window of [day, month, raw]) results.push(await check({ ...window, clinicIds: [a!] }));
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
    const result = results[0]!;
    expect(result.count).toBe(6);
    expect(result.histogram).toHaveLength(111);
    expect(result.histogram.filter((h) => h.count > 0)).toEqual([
      { fromSeconds: 0, toSeconds: 10, count: 1 },
      { fromSeconds: 590, toSeconds: 600, count: 1 },
      { fromSeconds: 600, toSeconds: 660, count: 1 },
      { fromSeconds: 3540, toSeconds: 3600, count: 1 },
      { fromSeconds: 3600, toSeconds: null, count: 2 },
    ]);
    // 6 calls: p90, p95 and p99 interpolate between 3600 and 2^31 - 1, read exactly.
    expect(result.percentiles.p90).toBe(3600 + 0.5 * (2147483647 - 3600));
    expect(result.percentiles.p95).toBe(3600 + 0.75 * (2147483647 - 3600));
    expect(Math.abs(result.percentiles.p50! - 2099.5)).toBeLessThanOrEqual(60);
    expect(result.precisionSeconds).toBe(60);

    // The campaign's calls (599, 3599, 2^31 - 1), and the type's (600 alone).
    expect((await check({ ...day, campaignId: campaign })).histogram.filter((h) => h.count > 0).map((h) => h.fromSeconds)).toEqual([590, 3540, 3600]);
    expect(await check({ ...month, type: 'CAMPAIGN_CALLBACK' })).toMatchObject({ count: 1, precisionSeconds: 60 });
    // Every clinic: the all-clinics levels, and the other clinic's long calls among the exact ones.
    expect((await check(day)).count).toBe(8);
    expect((await check({ ...raw, channel: 'voice' })).count).toBe(8);
  });

  it('equals percentile_cont exactly, with precisionSeconds 0, when every call lasts an hour or more', async () => {
    const [a, b] = await createClinics(file.q, 2);
    const durations = [3600, 3601, 7200, 86400, 1_000_000_000, 2147483647, 3600, 45_000];
    await insertRows(file.q, [
      ...durations.map((d, i) => call(a!, `2030-04-${String(10 + i).padStart(2, '0')}T12:00:00.000Z`, d)),
      // Shorter calls of another clinic, and of another type of the same clinic.
      call(b!, '2030-04-12T12:00:00.000Z', 30),
      call(a!, '2030-04-12T12:00:00.000Z', 30, { type: 'FORM_OUTBOUND' }),
    ]);
    const windows = [
      { from: new Date('2030-04-01T00:00:00.000Z'), to: new Date('2030-04-30T23:59:59.999Z') },
      { from: new Date('2030-04-10T12:00:00.000Z'), to: new Date('2030-04-17T12:00:00.000Z') },
      { from: new Date('2030-04-11T00:00:00.000Z'), to: new Date('2030-04-13T23:59:59.999Z') },
    ];
    for (const window of windows) {
      const result = await check({ ...window, clinicIds: [a!], type: 'INBOUND' });
      expect(result.precisionSeconds).toBe(0);
      expect(result.histogram.slice(0, 110).every((h) => h.count === 0)).toBe(true);
      expect(result.histogram[110]).toEqual({ fromSeconds: 3600, toSeconds: null, count: result.count });
    }
    const all = await metricsDurations(file.db, { ...windows[0]!, clinicIds: [a!], type: 'INBOUND' });
    // 8 calls, sorted 3600, 3600, 3601, 7200, 45000, 86400, 1e9, 2^31 - 1: p50 between ranks 3 and 4.
    expect(all.percentiles.p50).toBe(7200 + 0.5 * (45_000 - 7200));
    expect(all.percentiles.p75).toBe(86400 + 0.25 * (1_000_000_000 - 86400));
  });

  it('has no count, null percentiles and no histogram for conversations, for a window or filter without calls, and for no clinic', async () => {
    const [a, b] = await createClinics(file.q, 2);
    const campaign = `cmp_dur_${randomUUID().slice(0, 8)}`;
    await createCampaigns(file.q, [{ id: campaign, clinicId: b! }]);
    await insertRows(file.q, [
      call(a!, '2030-05-10T10:00:00.000Z', 120),
      call(a!, '2030-05-10T11:00:00.000Z', 4000),
      call(a!, '2030-05-10T12:00:00.000Z', 900, { channel: 'whatsapp', type: 'INBOUND' }),
      call(b!, '2030-05-10T12:00:00.000Z', null, { campaignId: campaign }),
    ]);
    const day = { from: new Date('2030-05-10T00:00:00.000Z'), to: new Date('2030-05-10T23:59:59.999Z') };
    expect(await check({ ...day, clinicIds: [a!] })).toMatchObject({ count: 2 });
    for (const filter of [
      { ...day, clinicIds: [a!], channel: 'whatsapp' as const },
      { ...day, channel: 'whatsapp' as const },
      { ...day, clinicIds: [a!], type: 'APPOINTMENT_REMINDER' as const },
      { ...day, clinicIds: [] },
      { ...day, campaignId: campaign },
      { ...day, campaignId: `${campaign}_unknown` },
      { ...day, clinicIds: [a!], campaignId: campaign },
      { from: new Date('2030-05-10T11:00:00.001Z'), to: new Date('2030-05-10T23:59:59.999Z'), clinicIds: [a!] },
      { from: new Date('2030-05-11T00:00:00.000Z'), to: new Date('2030-06-30T23:59:59.999Z') },
    ]) {
      expect(await check(filter), describeFilter(filter)).toEqual(NONE);
    }
  });
});

// --- the property ----------------------------------------------------------------------------------
const PAIRS = CHANNELS.flatMap((channel) => TYPES_BY_CHANNEL[channel].map((type) => ({ channel, type })));

const rowArb = fc.record({
  clinic: fc.constantFrom(0, 0, 0, 1, 1, 2),
  campaign: fc.option(fc.nat(), { nil: null, freq: 3 }),
  pair: fc.constantFrom(...PAIRS, PAIRS[0]!, PAIRS[0]!), // mostly calls
  outcome: fc.option(fc.constantFrom<string>(...OUTCOMES), { nil: null, freq: 4 }),
  duration: fc.option(
    fc.oneof(
      fc.constantFrom(0, 1, 9, 10, 599, 600, 659, 660, 3599, 3600, 3601, 86_400, 2147483647),
      fc.integer({ min: 0, max: 700 }),
      fc.integer({ min: 0, max: 7_200 }),
      fc.integer({ min: 3_600, max: 2_000_000_000 }),
    ),
    { nil: null, freq: 8 },
  ),
  startedAt: instantArb,
});

const filterArb = fc.record({
  clinics: fc.oneof(
    { weight: 4, arbitrary: fc.constant<number[] | undefined>(undefined) },
    { weight: 1, arbitrary: fc.constant<number[] | undefined>([]) },
    { weight: 4, arbitrary: fc.constantFrom<number[] | undefined>([0], [1], [0, 1], [0, 1, 2]) },
  ),
  // own: a campaign of clinic 0; other: of clinic 1; unknown: no such campaign.
  campaign: fc.oneof(
    { weight: 5, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: fc.constant('own' as const) },
    { weight: 1, arbitrary: fc.constantFrom('other' as const, 'unknown' as const) },
  ),
  channel: fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: fc.constantFrom<ChannelValue>(...CHANNELS), weight: 1 }),
  type: fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: fc.constantFrom<InteractionTypeValue>(...INTERACTION_TYPES), weight: 1 }),
});

describe('metricsDurations (property-based, against percentile_cont and bucket counts over the raw table)', () => {
  it('has the raw count and histogram, and percentiles within precisionSeconds of percentile_cont (equal for long calls), for any rows, window and filter', async () => {
    let withCalls = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(rowArb, { minLength: 0, maxLength: 40, size: 'max' }), windowArb, filterArb, async (specs, w, f) => {
        const clinics = await createClinics(file.q, 3);
        const campaignsOf = clinics.map((_, i) => [`cmp_dur_${randomUUID().slice(0, 8)}_${i}`, `cmp_dur_${randomUUID().slice(0, 8)}_${i}b`]);
        await createCampaigns(
          file.q,
          campaignsOf.flatMap((ids, i) => ids.map((id) => ({ id, clinicId: clinics[i]! }))),
        );
        const rows: Row[] = specs.map((s) => ({
          clinicId: clinics[s.clinic]!,
          campaignId: s.campaign === null ? null : campaignsOf[s.clinic]![s.campaign % 2]!,
          channel: s.pair.channel,
          type: s.pair.type,
          startedAt: s.startedAt,
          // (conversations keep a duration now and then: it must count nowhere)
          durationSeconds: s.pair.channel === 'voice' || s.clinic === 2 ? s.duration : null,
          outcome: s.outcome,
        }));
        await insertRows(file.q, rows);
        const { from, to } = windowOf(w, rows);
        const campaignId = { own: campaignsOf[0]![0]!, other: campaignsOf[1]![0]!, unknown: 'cmp_dur_unknown' };
        const filter: MetricsFilter = {
          from: new Date(from),
          to: new Date(to),
          ...(f.clinics ? { clinicIds: f.clinics.map((i) => clinics[i]!) } : {}),
          ...(f.campaign ? { campaignId: campaignId[f.campaign] } : {}),
          ...(f.channel ? { channel: f.channel } : {}),
          ...(f.type ? { type: f.type } : {}),
        };
        const result = await check(filter);
        if (result.count > 0) withCalls++;
      }),
      { numRuns: 60 },
    );
    // (not a vacuous property: about 40% of the runs have calls)
    expect(withCalls).toBeGreaterThanOrEqual(12);
  });
});
