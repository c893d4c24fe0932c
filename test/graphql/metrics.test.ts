// Metrics through GraphQL, compared with values this file computes itself from its own rows.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createKey, expectNoErrors, graphql, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createClinic } from '../helpers/factories.js';
import { ratio2, tag, utcDates } from './support.js';

const db = testDb();
const app = testApp(db);

type Channel = 'voice' | 'whatsapp';
interface Row {
  id: string;
  clinicId: string;
  channel: Channel;
  type: string;
  direction: 'inbound' | 'outbound';
  startedAt: Date;
  durationSeconds: number | null;
  outcome: string | null;
}

const SUCCESSFUL = ['APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED'];
const LABELS: Record<string, string> = {
  APPOINTMENT_BOOKED: 'Appointment Booked',
  APPOINTMENT_MODIFIED: 'Appointment Modified',
  APPOINTMENT_CANCELLED: 'Appointment Cancelled',
  NO_ANSWER: 'No Answer',
  VOICEMAIL_REACHED: 'Voicemail Reached',
  CALLBACK_REQUESTED: 'Callback Requested',
  DECISION_PENDING: 'Decision Pending',
  OPT_OUT: 'Opt Out',
  UNREACHABLE: 'Unreachable',
  WRONG_NUMBER: 'Wrong Number',
};

// --- The reference: decisions section 4, computed in plain TypeScript ------------------------------

function summaryOf(rows: Row[]) {
  const withOutcome = rows.filter((r) => r.outcome !== null);
  const timed = rows.filter((r) => r.channel === 'voice' && r.durationSeconds !== null);
  const durationSum = timed.reduce((sum, r) => sum + r.durationSeconds!, 0);
  return {
    totalInteractions: rows.length,
    totalCalls: rows.filter((r) => r.channel === 'voice').length,
    totalConversations: rows.filter((r) => r.channel === 'whatsapp').length,
    inboundCount: rows.filter((r) => r.direction === 'inbound').length,
    outboundCount: rows.filter((r) => r.direction === 'outbound').length,
    avgDurationSeconds: ratio2(durationSum, timed.length),
    totalDurationSeconds: durationSum,
    successRate: ratio2(withOutcome.filter((r) => SUCCESSFUL.includes(r.outcome!)).length, withOutcome.length, 100),
    appointmentsScheduled: rows.filter((r) => r.outcome === 'APPOINTMENT_BOOKED').length,
  };
}

function dailyOf(rows: Row[], from: string, to: string) {
  return utcDates(from, to).map((date) => {
    const day = rows.filter((r) => r.startedAt.toISOString().slice(0, 10) === date);
    const s = summaryOf(day);
    return {
      date,
      total: s.totalInteractions,
      calls: s.totalCalls,
      conversations: s.totalConversations,
      inbound: s.inboundCount,
      outbound: s.outboundCount,
      appointmentsScheduled: s.appointmentsScheduled,
      successRate: s.successRate,
      avgDurationSeconds: s.avgDurationSeconds,
    };
  });
}

function outcomesOf(rows: Row[]) {
  const counts = new Map<string, number>();
  for (const r of rows) if (r.outcome !== null) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const outcomes = [...counts.entries()]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
    .map(([outcome, count]) => ({ outcome, label: LABELS[outcome]!, count, percentage: ratio2(count, total, 100) }));
  return { total, outcomes };
}

function within(rows: Row[], from: string, to: string): Row[] {
  const start = Date.parse(from);
  const end = Date.parse(to);
  return rows.filter((r) => r.startedAt.getTime() >= start && r.startedAt.getTime() <= end);
}

// --- Fixture: a deterministic pseudo-random set of rows in two clinics ----------------------------

function generator(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

const TYPES: Record<Channel, string[]> = {
  voice: ['INBOUND', 'FORM_OUTBOUND', 'CAMPAIGN_OUTBOUND', 'CAMPAIGN_CALLBACK'],
  whatsapp: ['INBOUND', 'CAMPAIGN_OUTBOUND', 'APPOINTMENT_REMINDER'],
};
const OUTCOMES = [...Object.keys(LABELS), null, null];

function makeRows(clinicId: string, prefix: string, count: number, seed: number): Row[] {
  const random = generator(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const rows: Row[] = [];
  // Window of interest: 2024-03-10 .. 2024-03-16, plus rows just outside it.
  const base = Date.parse('2024-03-09T00:00:00.000Z');
  for (let i = 0; i < count; i++) {
    const channel: Channel = random() < 0.6 ? 'voice' : 'whatsapp';
    const type = pick(TYPES[channel]);
    rows.push({
      id: `${prefix}_${String(i).padStart(4, '0')}`,
      clinicId,
      channel,
      type,
      direction: type === 'INBOUND' ? 'inbound' : 'outbound',
      startedAt: new Date(base + Math.floor(random() * 9 * 86_400_000)),
      durationSeconds: channel === 'voice' && random() < 0.85 ? 1 + Math.floor(random() * 600) : null,
      outcome: pick(OUTCOMES),
    });
  }
  // Exact day edges of the window.
  const edge = (n: number, at: string, channel: Channel, outcome: string | null, durationSeconds: number | null): Row => ({
    id: `${prefix}_e${n}`,
    clinicId,
    channel,
    type: 'INBOUND',
    direction: 'inbound',
    startedAt: new Date(at),
    durationSeconds: channel === 'voice' ? durationSeconds : null,
    outcome,
  });
  rows.push(
    edge(1, '2024-03-09T23:59:59.999Z', 'voice', 'APPOINTMENT_BOOKED', 7),
    edge(2, '2024-03-10T00:00:00.000Z', 'voice', 'NO_ANSWER', 11),
    edge(3, '2024-03-16T23:59:59.999Z', 'whatsapp', 'APPOINTMENT_MODIFIED', null),
    edge(4, '2024-03-17T00:00:00.000Z', 'voice', 'APPOINTMENT_CANCELLED', 13),
  );
  return rows;
}

async function insert(rows: Row[]) {
  await db.interaction.createMany({
    data: rows.map((r) => ({
      id: r.id,
      clinicId: r.clinicId,
      channel: r.channel,
      type: r.type as never,
      direction: r.direction,
      phoneNumber: '+34 600 000 000',
      startedAt: r.startedAt,
      durationSeconds: r.durationSeconds,
      recordingUrl: r.channel === 'voice' ? 'https://recordings.example.test/x.mp3' : null,
      outcome: r.outcome,
    })),
  });
}

const SUMMARY = `totalInteractions totalCalls totalConversations inboundCount outboundCount avgDurationSeconds totalDurationSeconds successRate appointmentsScheduled`;
const DAILY = `date total calls conversations inbound outbound appointmentsScheduled successRate avgDurationSeconds`;
const OUTCOMES_FIELDS = `total outcomes { outcome label count percentage }`;

const QUERY = `query($dateFrom: String, $dateTo: String, $clinicId: ID, $channel: Channel, $type: InteractionType) {
  metricsSummary(dateFrom: $dateFrom, dateTo: $dateTo, clinicId: $clinicId, channel: $channel) { ${SUMMARY} }
  metricsDaily(dateFrom: $dateFrom, dateTo: $dateTo, clinicId: $clinicId, channel: $channel, type: $type) { ${DAILY} }
  metricsOutcomes(dateFrom: $dateFrom, dateTo: $dateTo, clinicId: $clinicId, channel: $channel, type: $type) { ${OUTCOMES_FIELDS} }
}`;

describe('metrics over generated rows', () => {
  const a = randomUUID();
  const b = randomUUID();
  let rows: Row[] = [];
  let key = '';

  beforeAll(async () => {
    await createClinic(db, { id: a });
    await createClinic(db, { id: b });
    const t = tag();
    rows = [...makeRows(a, `ma${t}`, 180, 7), ...makeRows(b, `mb${t}`, 70, 11)];
    await insert(rows);
    key = await createKey(db, { clinicIds: [a, b] });
  });

  async function metrics(variables: Record<string, unknown>) {
    return expectNoErrors(await graphql(app, { key, query: QUERY, variables }));
  }

  it('the fixture is varied enough to mean something', () => {
    const window = within(rows, '2024-03-10T00:00:00.000Z', '2024-03-16T23:59:59.999Z');
    const s = summaryOf(window);
    expect(s.totalCalls).toBeGreaterThan(50);
    expect(s.totalConversations).toBeGreaterThan(50);
    expect(window.some((r) => r.outcome === null)).toBe(true);
    expect(window.some((r) => r.channel === 'voice' && r.durationSeconds === null)).toBe(true);
    expect(window.some((r) => r.outcome === 'WRONG_NUMBER')).toBe(true);
    expect(s.successRate % 1).not.toBe(0);
    expect(s.avgDurationSeconds % 1).not.toBe(0);
  });

  it('summary, daily and outcomes over a date-only window, both clinics', async () => {
    const data = await metrics({ dateFrom: '2024-03-10', dateTo: '2024-03-16' });
    const window = within(rows, '2024-03-10T00:00:00.000Z', '2024-03-16T23:59:59.999Z');
    expect(data.metricsSummary).toEqual(summaryOf(window));
    expect(data.metricsDaily).toEqual(dailyOf(window, '2024-03-10', '2024-03-16'));
    expect(data.metricsOutcomes).toEqual(outcomesOf(window));
  });

  it('daily series: one entry per day, zero-filled before and after the data, ascending', async () => {
    const data = await metrics({ dateFrom: '2024-03-01', dateTo: '2024-03-20' });
    const window = within(rows, '2024-03-01T00:00:00.000Z', '2024-03-20T23:59:59.999Z');
    expect(data.metricsDaily).toHaveLength(20);
    expect(data.metricsDaily).toEqual(dailyOf(window, '2024-03-01', '2024-03-20'));
    expect(data.metricsDaily[0]).toEqual({
      date: '2024-03-01',
      total: 0,
      calls: 0,
      conversations: 0,
      inbound: 0,
      outbound: 0,
      appointmentsScheduled: 0,
      successRate: 0,
      avgDurationSeconds: 0,
    });
    expect(data.metricsDaily.map((d: { date: string }) => d.date)).toEqual(utcDates('2024-03-01', '2024-03-20'));
    expect(data.metricsDaily.reduce((sum: number, d: { total: number }) => sum + d.total, 0)).toBe(data.metricsSummary.totalInteractions);
  });

  it('date-time bounds: the window is exact, the daily series covers their UTC dates', async () => {
    const from = '2024-03-11T12:00:00.000Z';
    const to = '2024-03-13T08:30:00+02:00'; // 06:30Z
    const data = await metrics({ dateFrom: from, dateTo: to });
    const window = within(rows, from, '2024-03-13T06:30:00.000Z');
    expect(data.metricsSummary).toEqual(summaryOf(window));
    expect(data.metricsDaily).toEqual(dailyOf(window, '2024-03-11', '2024-03-13'));
    expect(data.metricsOutcomes).toEqual(outcomesOf(window));
  });

  it('the exact day edges: 23:59:59.999 belongs to its day, 00:00:00.000 to the next', async () => {
    const data = await metrics({ dateFrom: '2024-03-09', dateTo: '2024-03-09' });
    const day = within(rows, '2024-03-09T00:00:00.000Z', '2024-03-09T23:59:59.999Z');
    expect(day.some((r) => r.id.endsWith('_e1'))).toBe(true);
    expect(data.metricsSummary).toEqual(summaryOf(day));
    expect(data.metricsDaily).toEqual(dailyOf(day, '2024-03-09', '2024-03-09'));
    const nextDay = within(rows, '2024-03-17T00:00:00.000Z', '2024-03-17T23:59:59.999Z');
    expect(nextDay.some((r) => r.id.endsWith('_e4'))).toBe(true);
    expect(nextDay.some((r) => r.id.endsWith('_e3'))).toBe(false);
    const next = await metrics({ dateFrom: '2024-03-17', dateTo: '2024-03-17' });
    expect(next.metricsSummary).toEqual(summaryOf(nextDay));
    expect(next.metricsOutcomes).toEqual(outcomesOf(nextDay));
    // Between the two edges of one instant: the window [e2, e3] of one clinic holds both edges.
    const exact = await metrics({ dateFrom: '2024-03-10T00:00:00.000Z', dateTo: '2024-03-16T23:59:59.999Z', clinicId: a });
    const inside = within(
      rows.filter((r) => r.clinicId === a),
      '2024-03-10T00:00:00.000Z',
      '2024-03-16T23:59:59.999Z',
    );
    expect(inside.filter((r) => /_e[23]$/.test(r.id))).toHaveLength(2);
    expect(exact.metricsSummary).toEqual(summaryOf(inside));
  });

  it('clinicId: one clinic only', async () => {
    for (const clinicId of [a, b, b.toUpperCase()]) {
      const data = await metrics({ dateFrom: '2024-03-10', dateTo: '2024-03-16', clinicId });
      const window = within(
        rows.filter((r) => r.clinicId === clinicId.toLowerCase()),
        '2024-03-10T00:00:00.000Z',
        '2024-03-16T23:59:59.999Z',
      );
      expect(data.metricsSummary).toEqual(summaryOf(window));
      expect(data.metricsDaily).toEqual(dailyOf(window, '2024-03-10', '2024-03-16'));
      expect(data.metricsOutcomes).toEqual(outcomesOf(window));
    }
  });

  it('channel and type', async () => {
    for (const [channel, type] of [
      ['WHATSAPP', undefined],
      ['VOICE', undefined],
      ['VOICE', 'CAMPAIGN_CALLBACK'],
      ['WHATSAPP', 'INBOUND'],
      [undefined, 'INBOUND'],
    ] as const) {
      const data = await metrics({ dateFrom: '2024-03-08', dateTo: '2024-03-18', channel, type, clinicId: a });
      const base = within(
        rows.filter((r) => r.clinicId === a),
        '2024-03-08T00:00:00.000Z',
        '2024-03-18T23:59:59.999Z',
      );
      const byChannel = base.filter((r) => !channel || r.channel === channel.toLowerCase());
      const byType = byChannel.filter((r) => !type || r.type === type);
      // metricsSummary has no `type` argument.
      expect(data.metricsSummary, `${channel} ${type}`).toEqual(summaryOf(byChannel));
      expect(data.metricsDaily, `${channel} ${type}`).toEqual(dailyOf(byType, '2024-03-08', '2024-03-18'));
      expect(data.metricsOutcomes, `${channel} ${type}`).toEqual(outcomesOf(byType));
    }
  });

  it('a window without rows: zeros, an empty breakdown, a zero-filled series', async () => {
    const data = await metrics({ dateFrom: '2023-01-01', dateTo: '2023-01-03' });
    expect(data.metricsSummary).toEqual(summaryOf([]));
    expect(data.metricsSummary).toEqual({
      totalInteractions: 0,
      totalCalls: 0,
      totalConversations: 0,
      inboundCount: 0,
      outboundCount: 0,
      avgDurationSeconds: 0,
      totalDurationSeconds: 0,
      successRate: 0,
      appointmentsScheduled: 0,
    });
    expect(data.metricsDaily).toEqual(dailyOf([], '2023-01-01', '2023-01-03'));
    expect(data.metricsOutcomes).toEqual({ total: 0, outcomes: [] });
  });
});

describe('rounding and the definitions, on hand-made rows', () => {
  let clinicId = '';
  let key = '';
  const day = '2024-08-01';

  beforeAll(async () => {
    clinicId = (await createClinic(db)).id;
    const t = tag();
    const at = (h: number) => new Date(Date.parse(`${day}T00:00:00.000Z`) + h * 3_600_000);
    const rows: Row[] = [];
    const add = (channel: Channel, outcome: string | null, durationSeconds: number | null, type = 'INBOUND') =>
      rows.push({
        id: `r${t}_${String(rows.length).padStart(3, '0')}`,
        clinicId,
        channel,
        type,
        direction: type === 'INBOUND' ? 'inbound' : 'outbound',
        startedAt: at(rows.length % 24),
        durationSeconds,
        outcome,
      });
    // 8 timed calls, 9 seconds in all: mean 1.125, which rounds half away from zero to 1.13.
    for (let i = 0; i < 7; i++) add('voice', 'NO_ANSWER', 1);
    add('voice', 'APPOINTMENT_BOOKED', 2);
    // A call without duration is a call, but not in the mean; a WhatsApp conversation neither.
    add('voice', 'APPOINTMENT_MODIFIED', null, 'CAMPAIGN_OUTBOUND');
    add('whatsapp', 'APPOINTMENT_CANCELLED', null, 'APPOINTMENT_REMINDER');
    // Interactions without an outcome are not in the success rate; other outcomes are.
    add('whatsapp', null, null);
    add('voice', null, 30);
    add('whatsapp', 'WRONG_NUMBER', null, 'CAMPAIGN_OUTBOUND');
    await insert(rows);
    key = await createKey(db, { clinicIds: [clinicId] });
  });

  it('summary', async () => {
    const data = expectNoErrors(await graphql(app, { key, query: `{ metricsSummary(dateFrom: "${day}", dateTo: "${day}") { ${SUMMARY} } }` }));
    // 11 with an outcome, 3 successful: 27.2727... -> 27.27. Timed calls: 9 with 39 s -> 4.333... -> 4.33.
    expect(data.metricsSummary).toEqual({
      totalInteractions: 13,
      totalCalls: 10,
      totalConversations: 3,
      inboundCount: 10,
      outboundCount: 3,
      avgDurationSeconds: 4.33,
      totalDurationSeconds: 39,
      successRate: 27.27,
      appointmentsScheduled: 1,
    });
  });

  it('half-way values round away from zero (1.125 -> 1.13, 0.625 -> 0.63)', async () => {
    const onlyTimed = expectNoErrors(
      await graphql(app, {
        key,
        query: `{ metricsSummary(dateFrom: "${day}T00:00:00Z", dateTo: "${day}T07:59:59.999Z") { avgDurationSeconds totalDurationSeconds totalCalls } }`,
      }),
    );
    expect(onlyTimed.metricsSummary).toEqual({ avgDurationSeconds: 1.13, totalDurationSeconds: 9, totalCalls: 8 });

    // 1 successful of 160 with an outcome: 0.625 % -> 0.63.
    const other = (await createClinic(db)).id;
    const t = tag();
    await insert(
      Array.from({ length: 160 }, (_, i) => ({
        id: `h${t}_${String(i).padStart(3, '0')}`,
        clinicId: other,
        channel: 'whatsapp' as const,
        type: 'INBOUND',
        direction: 'inbound' as const,
        startedAt: new Date(`${day}T12:00:00.000Z`),
        durationSeconds: null,
        outcome: i === 0 ? 'APPOINTMENT_BOOKED' : 'OPT_OUT',
      })),
    );
    const otherKey = await createKey(db, { clinicIds: [other] });
    const data = expectNoErrors(
      await graphql(app, {
        key: otherKey,
        query: `{ metricsSummary(dateFrom: "${day}", dateTo: "${day}") { successRate avgDurationSeconds } metricsOutcomes(dateFrom: "${day}", dateTo: "${day}") { ${OUTCOMES_FIELDS} } }`,
      }),
    );
    expect(data.metricsSummary).toEqual({ successRate: 0.63, avgDurationSeconds: 0 });
    expect(data.metricsOutcomes).toEqual({
      total: 160,
      outcomes: [
        { outcome: 'OPT_OUT', label: 'Opt Out', count: 159, percentage: 99.38 },
        { outcome: 'APPOINTMENT_BOOKED', label: 'Appointment Booked', count: 1, percentage: 0.63 },
      ],
    });
  });

  it('outcomes: by count descending, ties by outcome name; labels include unknown outcomes', async () => {
    const data = expectNoErrors(await graphql(app, { key, query: `{ metricsOutcomes(dateFrom: "${day}", dateTo: "${day}") { ${OUTCOMES_FIELDS} } }` }));
    expect(data.metricsOutcomes).toEqual({
      total: 11,
      outcomes: [
        { outcome: 'NO_ANSWER', label: 'No Answer', count: 7, percentage: 63.64 },
        { outcome: 'APPOINTMENT_BOOKED', label: 'Appointment Booked', count: 1, percentage: 9.09 },
        { outcome: 'APPOINTMENT_CANCELLED', label: 'Appointment Cancelled', count: 1, percentage: 9.09 },
        { outcome: 'APPOINTMENT_MODIFIED', label: 'Appointment Modified', count: 1, percentage: 9.09 },
        { outcome: 'WRONG_NUMBER', label: 'Wrong Number', count: 1, percentage: 9.09 },
      ],
    });
  });

  it('daily of that day equals the summary', async () => {
    const data = expectNoErrors(await graphql(app, { key, query: `{ metricsDaily(dateFrom: "${day}", dateTo: "${day}") { ${DAILY} } }` }));
    expect(data.metricsDaily).toEqual([
      { date: day, total: 13, calls: 10, conversations: 3, inbound: 10, outbound: 3, appointmentsScheduled: 1, successRate: 27.27, avgDurationSeconds: 4.33 },
    ]);
  });
});

describe('default window: the last 30 days (UTC), today included', () => {
  it('with a fixed clock: the exact edges of the window', async () => {
    const now = new Date('2024-07-15T10:00:00.000Z');
    const fixedApp = testApp(db, { now: () => now });
    const clinicId = (await createClinic(db)).id;
    const t = tag();
    const instants = {
      tooOld: '2024-06-14T23:59:59.999Z',
      first: '2024-06-15T00:00:00.000Z',
      middle: '2024-07-01T12:00:00.000Z',
      today: '2024-07-15T09:00:00.000Z',
      lastMs: '2024-07-15T23:59:59.999Z',
      tomorrow: '2024-07-16T00:00:00.000Z',
    };
    const rows: Row[] = Object.entries(instants).map(([name, at]) => ({
      id: `d${t}_${name}`,
      clinicId,
      channel: 'voice',
      type: 'INBOUND',
      direction: 'inbound',
      startedAt: new Date(at),
      durationSeconds: 10,
      outcome: 'APPOINTMENT_BOOKED',
    }));
    await insert(rows);
    const key = await createKey(db, { clinicIds: [clinicId] });
    const data = expectNoErrors(
      await graphql(fixedApp, {
        key,
        query: `{ metricsSummary { totalInteractions } metricsDaily { date total } metricsOutcomes { total } }`,
      }),
    );
    expect(data.metricsSummary.totalInteractions).toBe(4);
    expect(data.metricsOutcomes.total).toBe(4);
    const dates = utcDates('2024-06-15', '2024-07-15');
    expect(dates).toHaveLength(31);
    expect(data.metricsDaily).toEqual(dates.map((date) => ({ date, total: ['2024-06-15', '2024-07-01'].includes(date) ? 1 : date === '2024-07-15' ? 2 : 0 })));
    // Only one bound given: the other is the default.
    const fromOnly = expectNoErrors(await graphql(fixedApp, { key, query: '{ metricsSummary(dateFrom: "2024-06-01") { totalInteractions } }' }));
    expect(fromOnly.metricsSummary.totalInteractions).toBe(5);
    const toOnly = expectNoErrors(await graphql(fixedApp, { key, query: '{ metricsSummary(dateTo: "2024-07-20") { totalInteractions } }' }));
    expect(toOnly.metricsSummary.totalInteractions).toBe(5);
  });

  it('with the real clock: a row 31 days old is out, one from today is in', async () => {
    const clinicId = (await createClinic(db)).id;
    const t = tag();
    const now = Date.now();
    const rows: Row[] = [
      { at: now - 31 * 86_400_000 - 60_000, name: 'old' },
      { at: now - 29 * 86_400_000, name: 'recent' },
      { at: now, name: 'today' },
    ].map(({ at, name }) => ({
      id: `n${t}_${name}`,
      clinicId,
      channel: 'whatsapp',
      type: 'INBOUND',
      direction: 'inbound',
      startedAt: new Date(at),
      durationSeconds: null,
      outcome: 'NO_ANSWER',
    }));
    await insert(rows);
    const key = await createKey(db, { clinicIds: [clinicId] });
    const data = expectNoErrors(await graphql(app, { key, query: '{ metricsSummary { totalInteractions totalConversations } metricsDaily { date total } }' }));
    expect(data.metricsSummary).toEqual({ totalInteractions: 2, totalConversations: 2 });
    expect(data.metricsDaily).toHaveLength(31);
    const today = new Date().toISOString().slice(0, 10);
    expect(data.metricsDaily.at(-1).date).toBe(today);
    expect(data.metricsDaily.reduce((sum: number, d: { total: number }) => sum + d.total, 0)).toBe(2);
  });
});
