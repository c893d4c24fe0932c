// The metrics queries against the real test database, compared with hand-computed values and with the
// JavaScript reference (reference.ts). Every test reads only its own clinics (or a unique window).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { metricsDaily } from '../../src/analytics/daily.js';
import type { MetricsFilter } from '../../src/analytics/filter.js';
import { metricsOutcomes } from '../../src/analytics/outcomes.js';
import { metricsSummary } from '../../src/analytics/summary.js';
import { ratio2 } from '../../src/analytics/totals.js';
import { createPrismaClient } from '../../src/db/client.js';
import { databaseUrl, testDb } from '../helpers/db.js';
import { createClinic } from '../helpers/factories.js';
import { at, insertAll } from './fixtures.js';
import { div2, percent2, referenceDaily, referenceOutcomes, referenceSummary } from './reference.js';

const db = testDb();

const ZERO_SUMMARY = {
  totalInteractions: 0,
  totalCalls: 0,
  totalConversations: 0,
  inboundCount: 0,
  outboundCount: 0,
  avgDurationSeconds: 0,
  totalDurationSeconds: 0,
  successRate: 0,
  appointmentsScheduled: 0,
};

describe('reference arithmetic', () => {
  it('rounds exactly, half away from zero', () => {
    expect(percent2(1, 3)).toBe(33.33);
    expect(percent2(2, 3)).toBe(66.67);
    expect(div2(2001, 200)).toBe(10.01); // 10.005: binary floating point would give 10.00
    expect(div2(-2001, 200)).toBe(-10.01);
    expect(percent2(1, 800)).toBe(0.13);
    expect(percent2(0, 0)).toBe(0);
  });

  it("ratio2 (the service's rates) agrees with it, as numbers (read from JSON) and as bigints (read as columns)", () => {
    // Integers from small to past 2^53 / 256, where the service leaves doubles for BigInt.
    const integer = fc.oneof(
      fc.integer({ min: -1000, max: 1000 }),
      fc.integer({ min: -(2 ** 31), max: 2 ** 31 }),
      fc.integer({ min: 2 ** 44, max: 2 ** 46 }),
      fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    );
    fc.assert(
      fc.property(integer, integer, (numerator, denominator) => {
        const expected = div2(numerator, denominator) + 0; // PostgreSQL's numeric has no -0
        expect(ratio2(numerator, denominator)).toBe(expected);
        expect(ratio2(BigInt(numerator), BigInt(denominator))).toBe(expected);
      }),
      { numRuns: 5000 },
    );
    // Halves, where a quotient rounded in binary floating point would fall on the wrong side.
    for (const [n, d] of [
      [2001, 200],
      [-2001, 200],
      [1, 8],
      [3, 8],
      [2 ** 45 - 1, 2],
      [1, 3],
      [2 ** 44 + 1, 2 ** 44],
    ]) {
      expect(ratio2(n!, d!)).toBe(div2(n!, d!) + 0);
    }
  });
});

describe('metricsSummary', () => {
  it('counts channels, directions, outcomes and call durations of the window', async () => {
    const clinic = await createClinic(db);
    const other = await createClinic(db);
    const c = clinic.id;
    const fixtures = await insertAll(db, [
      { clinicId: c, channel: 'voice', type: 'INBOUND', durationSeconds: 100, outcome: 'APPOINTMENT_BOOKED', startedAt: at('2025-05-10T08:00:00.000Z') },
      { clinicId: c, channel: 'voice', type: 'CAMPAIGN_OUTBOUND', durationSeconds: 41, outcome: 'NO_ANSWER', startedAt: at('2025-05-10T09:00:00.000Z') },
      { clinicId: c, channel: 'voice', type: 'FORM_OUTBOUND', durationSeconds: null, outcome: null, startedAt: at('2025-05-11T09:00:00.000Z') },
      { clinicId: c, channel: 'whatsapp', type: 'APPOINTMENT_REMINDER', outcome: 'APPOINTMENT_MODIFIED', startedAt: at('2025-05-11T10:00:00.000Z') },
      { clinicId: c, channel: 'whatsapp', type: 'INBOUND', outcome: 'APPOINTMENT_CANCELLED', startedAt: at('2025-05-12T10:00:00.000Z') },
      { clinicId: c, channel: 'whatsapp', type: 'CAMPAIGN_OUTBOUND', outcome: 'OPT_OUT', startedAt: at('2025-05-12T11:00:00.000Z') },
      // a conversation carrying a duration (bad import data) is not a call: not averaged, not summed
      { clinicId: c, channel: 'whatsapp', type: 'INBOUND', durationSeconds: 500, outcome: null, startedAt: at('2025-05-12T12:00:00.000Z') },
      // outside the window
      { clinicId: c, channel: 'voice', durationSeconds: 999, outcome: 'APPOINTMENT_BOOKED', startedAt: at('2025-05-09T23:59:59.999Z') },
      { clinicId: c, channel: 'voice', durationSeconds: 999, outcome: 'APPOINTMENT_BOOKED', startedAt: at('2025-05-13T00:00:00.000Z') },
      // another clinic, same window
      { clinicId: other.id, channel: 'voice', durationSeconds: 999, outcome: 'APPOINTMENT_BOOKED', startedAt: at('2025-05-11T00:00:00.000Z') },
    ]);
    const filter: MetricsFilter = { from: at('2025-05-10T00:00:00.000Z'), to: at('2025-05-12T23:59:59.999Z'), clinicIds: [c] };
    const summary = await metricsSummary(db, filter);
    expect(summary).toEqual({
      totalInteractions: 7,
      totalCalls: 3,
      totalConversations: 4,
      inboundCount: 3,
      outboundCount: 4,
      avgDurationSeconds: 70.5, // (100 + 41) / 2: the call without a duration is not averaged
      totalDurationSeconds: 141,
      successRate: 60, // 3 successful of 5 with an outcome (the null outcome is excluded)
      appointmentsScheduled: 1,
    });
    expect(summary).toEqual(referenceSummary(fixtures, filter));

    const both = { ...filter, clinicIds: [c, other.id] };
    expect(await metricsSummary(db, both)).toEqual(referenceSummary(fixtures, both));
    expect((await metricsSummary(db, both)).totalInteractions).toBe(8);
  });

  it('returns numbers, never strings or bigints', async () => {
    const clinic = await createClinic(db);
    await insertAll(db, [{ clinicId: clinic.id, startedAt: at('2025-05-10T08:00:00.000Z') }]);
    const summary = await metricsSummary(db, { from: at('2025-05-10T00:00:00.000Z'), to: at('2025-05-10T23:59:59.999Z'), clinicIds: [clinic.id] });
    for (const value of Object.values(summary)) expect(typeof value).toBe('number');
  });

  it('gives zeros for clinicIds [] even when the window has data', async () => {
    const clinic = await createClinic(db);
    await insertAll(db, [{ clinicId: clinic.id, startedAt: at('2025-05-10T08:00:00.000Z') }]);
    const filter = { from: at('2025-05-10T00:00:00.000Z'), to: at('2025-05-10T23:59:59.999Z') };
    expect(await metricsSummary(db, { ...filter, clinicIds: [] })).toEqual(ZERO_SUMMARY);
    expect(await metricsSummary(db, { ...filter, clinicIds: [clinic.id] })).toMatchObject({ totalInteractions: 1 });
  });

  it('gives zeros (not NaN) when no interaction has an outcome or a duration', async () => {
    const clinic = await createClinic(db);
    await insertAll(db, [{ clinicId: clinic.id, channel: 'whatsapp', outcome: null, startedAt: at('2025-05-10T08:00:00.000Z') }]);
    const summary = await metricsSummary(db, { from: at('2025-05-10T00:00:00.000Z'), to: at('2025-05-10T23:59:59.999Z'), clinicIds: [clinic.id] });
    expect(summary).toEqual({ ...ZERO_SUMMARY, totalInteractions: 1, totalConversations: 1, outboundCount: 1 });
  });

  it('rounds rates half away from zero: 1/3, 2/3 and an average of 10.005', async () => {
    const clinicA = await createClinic(db);
    const clinicB = await createClinic(db);
    const day = { from: at('2025-06-01T00:00:00.000Z'), to: at('2025-06-01T23:59:59.999Z') };
    const startedAt = at('2025-06-01T12:00:00.000Z');
    await insertAll(db, [
      { clinicId: clinicA.id, outcome: 'APPOINTMENT_BOOKED', startedAt },
      { clinicId: clinicA.id, outcome: 'NO_ANSWER', startedAt },
      { clinicId: clinicA.id, outcome: 'NO_ANSWER', startedAt },
      { clinicId: clinicB.id, outcome: 'APPOINTMENT_BOOKED', startedAt },
      { clinicId: clinicB.id, outcome: 'APPOINTMENT_MODIFIED', startedAt },
      { clinicId: clinicB.id, outcome: 'VOICEMAIL_REACHED', startedAt },
    ]);
    expect((await metricsSummary(db, { ...day, clinicIds: [clinicA.id] })).successRate).toBe(33.33);
    expect((await metricsSummary(db, { ...day, clinicIds: [clinicB.id] })).successRate).toBe(66.67);

    // 200 calls lasting 2001 seconds in all: mean 10.005 exactly -> 10.01
    const clinicC = await createClinic(db);
    const inputs = Array.from({ length: 200 }, (_, i) => ({ clinicId: clinicC.id, durationSeconds: i === 0 ? 11 : 10, startedAt }));
    const fixtures = await insertAll(db, inputs);
    const filter = { ...day, clinicIds: [clinicC.id] };
    const summary = await metricsSummary(db, filter);
    expect(summary.avgDurationSeconds).toBe(10.01);
    expect(summary.totalDurationSeconds).toBe(2001);
    expect(summary).toEqual(referenceSummary(fixtures, filter));
  });

  it('sums durations beyond the int4 range exactly', async () => {
    const clinic = await createClinic(db);
    const startedAt = at('2025-06-02T12:00:00.000Z');
    await insertAll(db, [
      { clinicId: clinic.id, durationSeconds: 2_147_483_647, startedAt },
      { clinicId: clinic.id, durationSeconds: 2_147_483_647, startedAt },
      { clinicId: clinic.id, durationSeconds: 2_147_483_646, startedAt },
    ]);
    const summary = await metricsSummary(db, { from: startedAt, to: startedAt, clinicIds: [clinic.id] });
    expect(summary.totalDurationSeconds).toBe(6_442_450_940);
    expect(summary.avgDurationSeconds).toBe(2_147_483_646.67);
  });

  it('every clinic when clinicIds is undefined (in a window no other test uses)', async () => {
    const clinicA = await createClinic(db);
    const clinicB = await createClinic(db);
    // A random instant in the 23rd century: only this test writes there.
    const base = Date.UTC(2200, 0, 1) + Math.floor(Math.random() * 365 * 86_400_000 * 500);
    const fixtures = await insertAll(db, [
      { clinicId: clinicA.id, startedAt: new Date(base) },
      { clinicId: clinicB.id, channel: 'whatsapp', outcome: 'NO_ANSWER', startedAt: new Date(base + 999) },
      { clinicId: clinicB.id, startedAt: new Date(base + 1000) },
    ]);
    const filter: MetricsFilter = { from: new Date(base), to: new Date(base + 999) };
    expect(await metricsSummary(db, filter)).toEqual(referenceSummary(fixtures, filter));
    expect((await metricsSummary(db, filter)).totalInteractions).toBe(2);
    expect(await metricsOutcomes(db, filter)).toEqual(referenceOutcomes(fixtures, filter));
  });

  it('every clinic over whole days and months (the all-clinics and monthly levels), in a window no other test uses', async () => {
    const clinicA = await createClinic(db);
    const clinicB = await createClinic(db);
    // A random month of the 24th century: only this test writes there. The window is that month
    // and the day on either side of it, with partial edges.
    const year = 2300 + Math.floor(Math.random() * 90);
    const month = Math.floor(Math.random() * 12);
    const start = Date.UTC(year, month, 1);
    const end = Date.UTC(year, month + 1, 1);
    const hour = 3_600_000;
    const fixtures = await insertAll(db, [
      { clinicId: clinicA.id, startedAt: new Date(start - 20 * hour), outcome: 'APPOINTMENT_BOOKED', durationSeconds: 30 },
      { clinicId: clinicA.id, startedAt: new Date(start - 2 * hour), outcome: null },
      { clinicId: clinicB.id, startedAt: new Date(start + 5 * hour), channel: 'whatsapp', outcome: 'NO_ANSWER' },
      { clinicId: clinicB.id, startedAt: new Date(start + 9 * 24 * hour), outcome: 'APPOINTMENT_CANCELLED', durationSeconds: 61 },
      { clinicId: clinicA.id, startedAt: new Date(end - 1), outcome: 'APPOINTMENT_BOOKED', durationSeconds: 7 },
      { clinicId: clinicB.id, startedAt: new Date(end + 3 * hour), outcome: 'OPT_OUT' },
      { clinicId: clinicB.id, startedAt: new Date(end + 30 * hour), outcome: 'OPT_OUT' },
    ]);
    const wide: MetricsFilter = { from: new Date(start - 21 * hour), to: new Date(end + 4 * hour) };
    const days: MetricsFilter = { from: new Date(start), to: new Date(start + 10 * 24 * hour - 1) };
    // Everything (the daily series from interaction_days), and by channel or type (from the sums per
    // channel, type and direction).
    for (const filter of [wide, days, { ...wide, channel: 'voice' as const }, { ...days, type: 'CAMPAIGN_OUTBOUND' as const }]) {
      expect(await metricsSummary(db, filter)).toEqual(referenceSummary(fixtures, filter));
      expect(await metricsDaily(db, filter)).toEqual(referenceDaily(fixtures, filter));
      expect(await metricsOutcomes(db, filter)).toEqual(referenceOutcomes(fixtures, filter));
    }
    expect((await metricsSummary(db, wide)).totalInteractions).toBe(6);
  });

  it('rejects an invalid date instead of querying with it', async () => {
    await expect(metricsSummary(db, { from: new Date('nope'), to: new Date(), clinicIds: [] })).rejects.toThrow(/from is not a valid date/);
  });
});

describe('channel and type filters', () => {
  it('restrict every metric', async () => {
    const clinic = await createClinic(db);
    const c = clinic.id;
    const t = (h: number) => at(`2025-07-01T${String(h).padStart(2, '0')}:00:00.000Z`);
    const fixtures = await insertAll(db, [
      { clinicId: c, channel: 'voice', type: 'INBOUND', durationSeconds: 30, outcome: 'APPOINTMENT_BOOKED', startedAt: t(1) },
      { clinicId: c, channel: 'voice', type: 'CAMPAIGN_OUTBOUND', durationSeconds: 60, outcome: 'NO_ANSWER', startedAt: t(2) },
      { clinicId: c, channel: 'voice', type: 'CAMPAIGN_OUTBOUND', durationSeconds: 90, outcome: 'APPOINTMENT_BOOKED', startedAt: t(3) },
      { clinicId: c, channel: 'whatsapp', type: 'CAMPAIGN_OUTBOUND', outcome: 'OPT_OUT', startedAt: t(4) },
      { clinicId: c, channel: 'whatsapp', type: 'INBOUND', outcome: 'APPOINTMENT_MODIFIED', startedAt: t(5) },
      { clinicId: c, channel: 'whatsapp', type: 'APPOINTMENT_REMINDER', outcome: null, startedAt: t(6) },
    ]);
    const base: MetricsFilter = { from: at('2025-07-01T00:00:00.000Z'), to: at('2025-07-01T23:59:59.999Z'), clinicIds: [c] };

    const voice = await metricsSummary(db, { ...base, channel: 'voice' });
    expect(voice).toMatchObject({ totalInteractions: 3, totalCalls: 3, totalConversations: 0, avgDurationSeconds: 60, successRate: 66.67 });
    const whatsapp = await metricsSummary(db, { ...base, channel: 'whatsapp' });
    expect(whatsapp).toMatchObject({ totalInteractions: 3, totalCalls: 0, avgDurationSeconds: 0, totalDurationSeconds: 0, successRate: 50 });
    const campaign = await metricsSummary(db, { ...base, type: 'CAMPAIGN_OUTBOUND' });
    expect(campaign).toMatchObject({ totalInteractions: 3, totalCalls: 2, totalConversations: 1, inboundCount: 0, outboundCount: 3 });
    const voiceCampaign = await metricsSummary(db, { ...base, channel: 'voice', type: 'CAMPAIGN_OUTBOUND' });
    expect(voiceCampaign).toMatchObject({ totalInteractions: 2, avgDurationSeconds: 75, totalDurationSeconds: 150, successRate: 50 });
    // A pair that does not exist selects nothing.
    expect(await metricsSummary(db, { ...base, channel: 'voice', type: 'APPOINTMENT_REMINDER' })).toEqual(ZERO_SUMMARY);

    for (const f of [
      { ...base, channel: 'voice' as const },
      { ...base, channel: 'whatsapp' as const },
      { ...base, type: 'INBOUND' as const },
      { ...base, channel: 'whatsapp' as const, type: 'CAMPAIGN_OUTBOUND' as const },
    ]) {
      expect(await metricsSummary(db, f)).toEqual(referenceSummary(fixtures, f));
      expect(await metricsDaily(db, f)).toEqual(referenceDaily(fixtures, f));
      expect(await metricsOutcomes(db, f)).toEqual(referenceOutcomes(fixtures, f));
    }
    expect((await metricsOutcomes(db, { ...base, channel: 'voice' })).outcomes.map((o) => o.outcome)).toEqual(['APPOINTMENT_BOOKED', 'NO_ANSWER']);
  });
});

describe('metricsDaily', () => {
  it('has one zero-filled entry per UTC date, edges inclusive to the millisecond', async () => {
    const clinic = await createClinic(db);
    const c = clinic.id;
    const fixtures = await insertAll(db, [
      { clinicId: c, startedAt: at('2025-01-29T23:59:59.999Z') }, // before the window
      { clinicId: c, startedAt: at('2025-01-30T00:00:00.000Z'), outcome: 'NO_ANSWER', durationSeconds: 5 }, // first instant
      { clinicId: c, startedAt: at('2025-01-30T23:59:59.999Z'), durationSeconds: 10 }, // still the 30th
      { clinicId: c, startedAt: at('2025-01-31T00:00:00.000Z'), channel: 'whatsapp', outcome: null }, // the 31st
      // nothing on 2025-02-01
      { clinicId: c, startedAt: at('2025-02-02T23:59:59.999Z'), type: 'CAMPAIGN_CALLBACK' }, // last instant
      { clinicId: c, startedAt: at('2025-02-03T00:00:00.000Z') }, // after the window
    ]);
    const filter: MetricsFilter = { from: at('2025-01-30T00:00:00.000Z'), to: at('2025-02-02T23:59:59.999Z'), clinicIds: [c] };
    const daily = await metricsDaily(db, filter);
    expect(daily).toEqual([
      { date: '2025-01-30', total: 2, calls: 2, conversations: 0, inbound: 2, outbound: 0, appointmentsScheduled: 1, successRate: 50, avgDurationSeconds: 7.5 },
      { date: '2025-01-31', total: 1, calls: 0, conversations: 1, inbound: 0, outbound: 1, appointmentsScheduled: 0, successRate: 0, avgDurationSeconds: 0 },
      { date: '2025-02-01', total: 0, calls: 0, conversations: 0, inbound: 0, outbound: 0, appointmentsScheduled: 0, successRate: 0, avgDurationSeconds: 0 },
      { date: '2025-02-02', total: 1, calls: 1, conversations: 0, inbound: 0, outbound: 1, appointmentsScheduled: 1, successRate: 100, avgDurationSeconds: 60 },
    ]);
    expect(daily).toEqual(referenceDaily(fixtures, filter));

    // One millisecond narrower on each side drops the edge interactions, not the days.
    const narrower = { ...filter, from: at('2025-01-30T00:00:00.001Z'), to: at('2025-02-02T23:59:59.998Z') };
    const narrow = await metricsDaily(db, narrower);
    expect(narrow.map((d) => [d.date, d.total])).toEqual([
      ['2025-01-30', 1],
      ['2025-01-31', 1],
      ['2025-02-01', 0],
      ['2025-02-02', 0],
    ]);
    expect(narrow).toEqual(referenceDaily(fixtures, narrower));
  });

  it('covers partial first and last days, and the dates of instants inside them', async () => {
    const clinic = await createClinic(db);
    const c = clinic.id;
    const fixtures = await insertAll(db, [
      { clinicId: c, startedAt: at('2025-03-10T11:59:59.999Z') },
      { clinicId: c, startedAt: at('2025-03-10T12:00:00.000Z') },
      { clinicId: c, startedAt: at('2025-03-12T06:00:00.000Z') },
      { clinicId: c, startedAt: at('2025-03-12T06:00:00.001Z') },
    ]);
    const filter: MetricsFilter = { from: at('2025-03-10T12:00:00.000Z'), to: at('2025-03-12T06:00:00.000Z'), clinicIds: [c] };
    const daily = await metricsDaily(db, filter);
    expect(daily.map((d) => [d.date, d.total])).toEqual([
      ['2025-03-10', 1],
      ['2025-03-11', 0],
      ['2025-03-12', 1],
    ]);
    expect(daily).toEqual(referenceDaily(fixtures, filter));

    // A window of one instant is one day.
    const instant = { ...filter, from: at('2025-03-12T06:00:00.000Z') };
    expect(await metricsDaily(db, instant)).toEqual([expect.objectContaining({ date: '2025-03-12', total: 1 })]);
  });

  it('spans months and a leap day, ascending, and is zero-filled for clinicIds []', async () => {
    const clinic = await createClinic(db);
    const fixtures = await insertAll(db, [{ clinicId: clinic.id, startedAt: at('2024-02-29T13:00:00.000Z') }]);
    const filter: MetricsFilter = { from: at('2024-01-31T00:00:00.000Z'), to: at('2024-03-01T23:59:59.999Z'), clinicIds: [clinic.id] };
    const daily = await metricsDaily(db, filter);
    expect(daily).toHaveLength(31);
    expect(daily[0]?.date).toBe('2024-01-31');
    expect(daily[29]).toMatchObject({ date: '2024-02-29', total: 1 });
    expect(daily[30]?.date).toBe('2024-03-01');
    expect(daily).toEqual(referenceDaily(fixtures, filter));

    const none = await metricsDaily(db, { ...filter, clinicIds: [] });
    expect(none).toHaveLength(31);
    expect(none.every((d) => d.total === 0 && d.successRate === 0 && d.avgDurationSeconds === 0)).toBe(true);
    expect(none.map((d) => d.date)).toEqual(daily.map((d) => d.date));
  });

  it('computes rates per day with the same rounding', async () => {
    const clinic = await createClinic(db);
    const c = clinic.id;
    const t = at('2025-08-01T10:00:00.000Z');
    const fixtures = await insertAll(db, [
      { clinicId: c, startedAt: t, outcome: 'APPOINTMENT_BOOKED', durationSeconds: 1 },
      { clinicId: c, startedAt: t, outcome: 'NO_ANSWER', durationSeconds: 1 },
      { clinicId: c, startedAt: t, outcome: 'NO_ANSWER', durationSeconds: 2 },
    ]);
    const filter: MetricsFilter = { from: t, to: t, clinicIds: [c] };
    expect(await metricsDaily(db, filter)).toEqual([
      {
        date: '2025-08-01',
        total: 3,
        calls: 3,
        conversations: 0,
        inbound: 3,
        outbound: 0,
        appointmentsScheduled: 1,
        successRate: 33.33,
        avgDurationSeconds: 1.33,
      },
    ]);
    expect(await metricsDaily(db, filter)).toEqual(referenceDaily(fixtures, filter));
  });
});

describe('metricsOutcomes', () => {
  it('sorts by count then name, excludes null outcomes, labels unknown outcomes', async () => {
    const clinic = await createClinic(db);
    const c = clinic.id;
    const startedAt = at('2025-09-01T10:00:00.000Z');
    const outcomes: Array<string | null> = [
      'NO_ANSWER',
      'NO_ANSWER',
      'NO_ANSWER',
      'FOLLOW_UP',
      'FOLLOW_UP',
      'APPOINTMENT_BOOKED',
      'APPOINTMENT_BOOKED',
      'OPT_OUT',
      'CALLBACK_REQUESTED',
      null,
      null,
      null,
      null,
    ];
    const fixtures = await insertAll(
      db,
      outcomes.map((outcome) => ({ clinicId: c, outcome, startedAt })),
    );
    const filter: MetricsFilter = { from: startedAt, to: startedAt, clinicIds: [c] };
    const result = await metricsOutcomes(db, filter);
    expect(result).toEqual({
      total: 9,
      outcomes: [
        { outcome: 'NO_ANSWER', label: 'No Answer', count: 3, percentage: 33.33 },
        { outcome: 'APPOINTMENT_BOOKED', label: 'Appointment Booked', count: 2, percentage: 22.22 },
        { outcome: 'FOLLOW_UP', label: 'Follow Up', count: 2, percentage: 22.22 },
        { outcome: 'CALLBACK_REQUESTED', label: 'Callback Requested', count: 1, percentage: 11.11 },
        { outcome: 'OPT_OUT', label: 'Opt Out', count: 1, percentage: 11.11 },
      ],
    });
    expect(result).toEqual(referenceOutcomes(fixtures, filter));
    // The null outcomes count as interactions but not in the success rate.
    expect(await metricsSummary(db, filter)).toMatchObject({ totalInteractions: 13, successRate: 22.22, appointmentsScheduled: 2 });
  });

  it('orders ties by the outcome bytes, whatever the database collation', async () => {
    const clinic = await createClinic(db);
    const startedAt = at('2025-09-02T10:00:00.000Z');
    // Byte order puts NOTE before NO_ANSWER ('T' < '_'); a linguistic collation (en_US, ICU) ignores the
    // '_' and puts NO_ANSWER first. The embedded test cluster is created with the C collation, so there
    // this only guards the order; on a TEST_DATABASE_URL server with a linguistic default it also
    // catches a missing COLLATE "C".
    const names = ['OPT_OUT', 'NO_ANSWER', 'NOTE', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_BOOKED'];
    const fixtures = await insertAll(
      db,
      names.map((outcome) => ({ clinicId: clinic.id, outcome, startedAt })),
    );
    const filter: MetricsFilter = { from: startedAt, to: startedAt, clinicIds: [clinic.id] };
    const result = await metricsOutcomes(db, filter);
    expect(result.outcomes.map((o) => o.outcome)).toEqual(['APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'NOTE', 'NO_ANSWER', 'OPT_OUT']);
    expect(result.outcomes.every((o) => o.percentage === 20)).toBe(true);
    expect(result).toEqual(referenceOutcomes(fixtures, filter));
  });

  it('is empty with total 0 when nothing has an outcome, and for clinicIds []', async () => {
    const clinic = await createClinic(db);
    const startedAt = at('2025-09-03T10:00:00.000Z');
    await insertAll(db, [
      { clinicId: clinic.id, outcome: null, startedAt },
      { clinicId: clinic.id, outcome: 'NO_ANSWER', startedAt: at('2025-09-03T10:00:00.001Z') },
    ]);
    expect(await metricsOutcomes(db, { from: startedAt, to: startedAt, clinicIds: [clinic.id] })).toEqual({ outcomes: [], total: 0 });
    expect(await metricsOutcomes(db, { from: startedAt, to: at('2025-09-04T00:00:00.000Z'), clinicIds: [] })).toEqual({ outcomes: [], total: 0 });
    expect((await metricsOutcomes(db, { from: startedAt, to: at('2025-09-04T00:00:00.000Z'), clinicIds: [clinic.id] })).total).toBe(1);
  });

  it('rounds percentages half away from zero (1 of 8 -> 12.5, 1 of 32 -> 3.13)', async () => {
    const clinic = await createClinic(db);
    const startedAt = at('2025-09-05T10:00:00.000Z');
    const fixtures = await insertAll(
      db,
      Array.from({ length: 32 }, (_, i) => ({ clinicId: clinic.id, outcome: i === 0 ? 'OPT_OUT' : i < 5 ? 'UNREACHABLE' : 'NO_ANSWER', startedAt })),
    );
    const filter: MetricsFilter = { from: startedAt, to: startedAt, clinicIds: [clinic.id] };
    const result = await metricsOutcomes(db, filter);
    expect(result.outcomes).toEqual([
      { outcome: 'NO_ANSWER', label: 'No Answer', count: 27, percentage: 84.38 }, // 84.375
      { outcome: 'UNREACHABLE', label: 'Unreachable', count: 4, percentage: 12.5 },
      { outcome: 'OPT_OUT', label: 'Opt Out', count: 1, percentage: 3.13 }, // 3.125
    ]);
    expect(result).toEqual(referenceOutcomes(fixtures, filter));
  });
});

describe('session time zone', () => {
  it('does not change windows or UTC days (the server or a pooler may not run in UTC)', async () => {
    const url = new URL(databaseUrl);
    url.searchParams.set('options', '-c TimeZone=Pacific/Kiritimati'); // UTC+14
    const zoned = createPrismaClient(url.toString(), 1);
    try {
      const [{ tz }] = await zoned.$queryRaw<[{ tz: string }]>`SELECT current_setting('TimeZone') AS tz`;
      expect(tz).toBe('Pacific/Kiritimati');

      const clinic = await createClinic(db);
      const c = clinic.id;
      const fixtures = await insertAll(db, [
        { clinicId: c, startedAt: at('2025-04-01T00:00:00.000Z') },
        { clinicId: c, startedAt: at('2025-04-01T09:59:59.999Z'), outcome: 'NO_ANSWER' },
        { clinicId: c, startedAt: at('2025-04-01T10:00:00.000Z'), channel: 'whatsapp' },
        { clinicId: c, startedAt: at('2025-04-02T23:59:59.999Z'), durationSeconds: 7 },
        { clinicId: c, startedAt: at('2025-04-03T00:00:00.000Z') },
      ]);
      const filter: MetricsFilter = { from: at('2025-04-01T00:00:00.000Z'), to: at('2025-04-02T23:59:59.999Z'), clinicIds: [c] };
      const daily = await metricsDaily(zoned, filter);
      expect(daily.map((d) => [d.date, d.total])).toEqual([
        ['2025-04-01', 3],
        ['2025-04-02', 1],
      ]);
      expect(daily).toEqual(referenceDaily(fixtures, filter));
      expect(await metricsSummary(zoned, filter)).toEqual(referenceSummary(fixtures, filter));
      expect(await metricsOutcomes(zoned, filter)).toEqual(referenceOutcomes(fixtures, filter));
    } finally {
      await zoned.$disconnect();
    }
  });
});
