// GET /api/v1/metrics/{summary,daily,outcomes} against values computed here from the fixtures
// (decisions section 4): hand-written literals for one window, and a small independent reference for
// every filter combination. Keys are restricted to the test's own clinics.
import { describe, expect, it } from 'vitest';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createClinic, createInteraction, type InteractionInput } from '../helpers/factories.js';
import { expectStatus, expectSuccess, expectValidationError, get, UNKNOWN_CLINIC } from './client.js';

const db = testDb();
const app = testApp(db);

const DAY_MS = 86_400_000;
const SUCCESSFUL = new Set(['APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED']);
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
};

// --- reference -----------------------------------------------------------------------------------

interface Fixture {
  clinicId: string;
  channel: string;
  type: string;
  direction: string;
  startedAt: Date;
  durationSeconds: number | null;
  outcome: string | null;
}

/** numerator / denominator with 2 decimals, half up (exact for these small integers); 0 when denominator is 0. */
function ratio2(numerator: number, denominator: number): number {
  if (denominator === 0) return 0;
  return Math.floor((200 * numerator + denominator) / (2 * denominator)) / 100;
}
const percent2 = (part: number, whole: number) => ratio2(100 * part, whole);

interface Window {
  from: Date;
  to: Date;
  clinicIds: string[];
  channel?: string;
  type?: string;
}

function select(rows: Fixture[], w: Window): Fixture[] {
  return rows.filter(
    (r) =>
      r.startedAt >= w.from &&
      r.startedAt <= w.to &&
      w.clinicIds.includes(r.clinicId) &&
      (w.channel === undefined || r.channel === w.channel) &&
      (w.type === undefined || r.type === w.type),
  );
}

function aggregate(rows: Fixture[]) {
  const calls = rows.filter((r) => r.channel === 'voice');
  const timed = calls.filter((r) => r.durationSeconds !== null);
  const durationSum = timed.reduce((sum, r) => sum + r.durationSeconds!, 0);
  const withOutcome = rows.filter((r) => r.outcome !== null);
  return {
    total: rows.length,
    calls: calls.length,
    conversations: rows.filter((r) => r.channel === 'whatsapp').length,
    inbound: rows.filter((r) => r.direction === 'inbound').length,
    outbound: rows.filter((r) => r.direction === 'outbound').length,
    appointments_scheduled: rows.filter((r) => r.outcome === 'APPOINTMENT_BOOKED').length,
    success_rate: percent2(withOutcome.filter((r) => SUCCESSFUL.has(r.outcome!)).length, withOutcome.length),
    avg_duration_seconds: ratio2(durationSum, timed.length),
    total_duration_seconds: durationSum,
  };
}

function referenceSummary(rows: Fixture[], w: Window) {
  const a = aggregate(select(rows, w));
  return {
    total_interactions: a.total,
    total_calls: a.calls,
    total_conversations: a.conversations,
    inbound_count: a.inbound,
    outbound_count: a.outbound,
    avg_duration_seconds: a.avg_duration_seconds,
    total_duration_seconds: a.total_duration_seconds,
    success_rate: a.success_rate,
    appointments_scheduled: a.appointments_scheduled,
  };
}

const utcDay = (d: Date) => d.toISOString().slice(0, 10);

function referenceDaily(rows: Fixture[], w: Window) {
  const selected = select(rows, w);
  const first = Date.parse(`${utcDay(w.from)}T00:00:00.000Z`);
  const last = Date.parse(`${utcDay(w.to)}T00:00:00.000Z`);
  const days = [];
  for (let t = first; t <= last; t += DAY_MS) {
    const date = new Date(t).toISOString().slice(0, 10);
    const a = aggregate(selected.filter((r) => utcDay(r.startedAt) === date));
    days.push({
      date,
      total: a.total,
      calls: a.calls,
      conversations: a.conversations,
      inbound: a.inbound,
      outbound: a.outbound,
      appointments_scheduled: a.appointments_scheduled,
      success_rate: a.success_rate,
      avg_duration_seconds: a.avg_duration_seconds,
    });
  }
  return { daily: days };
}

function referenceOutcomes(rows: Fixture[], w: Window) {
  const counts = new Map<string, number>();
  for (const r of select(rows, w)) if (r.outcome !== null) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
  const total = [...counts.values()].reduce((s, n) => s + n, 0);
  const outcomes = [...counts.entries()]
    .sort(([a, ca], [b, cb]) => cb - ca || (a < b ? -1 : a > b ? 1 : 0))
    .map(([outcome, count]) => ({ outcome, label: LABELS[outcome]!, count, percentage: percent2(count, total) }));
  return { outcomes, total };
}

// --- fixtures ------------------------------------------------------------------------------------

async function insert(inputs: InteractionInput[]): Promise<Fixture[]> {
  const rows: Fixture[] = [];
  for (const input of inputs) rows.push(await createInteraction(db, input));
  return rows;
}

const at = (iso: string) => new Date(iso);

/** Two clinics; clinic A's rows are the hand-computed ones. */
async function fixtures() {
  const a = await createClinic(db);
  const b = await createClinic(db);
  const A = a.id;
  const B = b.id;
  const rows = await insert([
    // 2026-02-01
    { clinicId: A, channel: 'voice', type: 'INBOUND', durationSeconds: 10, outcome: 'APPOINTMENT_BOOKED', startedAt: at('2026-02-01T00:00:00.000Z') },
    { clinicId: A, channel: 'voice', type: 'FORM_OUTBOUND', durationSeconds: 20, outcome: 'NO_ANSWER', startedAt: at('2026-02-01T13:00:00.000Z') },
    { clinicId: A, channel: 'whatsapp', type: 'APPOINTMENT_REMINDER', outcome: 'APPOINTMENT_MODIFIED', startedAt: at('2026-02-01T14:00:00.000Z') },
    // 2026-02-02
    { clinicId: A, channel: 'voice', type: 'CAMPAIGN_OUTBOUND', durationSeconds: 25, outcome: 'NO_ANSWER', startedAt: at('2026-02-02T09:00:00.000Z') },
    { clinicId: A, channel: 'voice', type: 'CAMPAIGN_CALLBACK', durationSeconds: null, outcome: null, startedAt: at('2026-02-02T10:00:00.000Z') },
    // 2026-02-03: nothing in A
    // 2026-02-04
    { clinicId: A, channel: 'whatsapp', type: 'INBOUND', outcome: 'APPOINTMENT_CANCELLED', startedAt: at('2026-02-04T08:00:00.000Z') },
    { clinicId: A, channel: 'whatsapp', type: 'CAMPAIGN_OUTBOUND', outcome: 'OPT_OUT', startedAt: at('2026-02-04T09:00:00.000Z') },
    { clinicId: A, channel: 'whatsapp', type: 'INBOUND', outcome: 'DECISION_PENDING', startedAt: at('2026-02-04T10:00:00.000Z') },
    // 2026-02-05
    { clinicId: A, channel: 'whatsapp', type: 'INBOUND', outcome: 'UNREACHABLE', startedAt: at('2026-02-05T12:00:00.000Z') },
    { clinicId: A, channel: 'voice', type: 'INBOUND', durationSeconds: null, outcome: 'APPOINTMENT_BOOKED', startedAt: at('2026-02-05T23:59:59.999Z') },
    // just outside 2026-02-01..2026-02-05
    { clinicId: A, channel: 'voice', type: 'INBOUND', durationSeconds: 1000, outcome: 'APPOINTMENT_BOOKED', startedAt: at('2026-01-31T23:59:59.999Z') },
    { clinicId: A, channel: 'whatsapp', type: 'INBOUND', outcome: 'APPOINTMENT_BOOKED', startedAt: at('2026-02-06T00:00:00.000Z') },
    // clinic B, on A's empty day
    { clinicId: B, channel: 'voice', type: 'INBOUND', durationSeconds: 300, outcome: 'OPT_OUT', startedAt: at('2026-02-03T12:00:00.000Z') },
    { clinicId: B, channel: 'whatsapp', type: 'CAMPAIGN_OUTBOUND', outcome: 'VOICEMAIL_REACHED', startedAt: at('2026-02-03T13:00:00.000Z') },
  ]);
  const key = await createKey(db, { clinicIds: [A, B] });
  const keyA = await createKey(db, { clinicIds: [A] });
  return { A, B, rows, key, keyA };
}

const ZERO_DAY = {
  total: 0,
  calls: 0,
  conversations: 0,
  inbound: 0,
  outbound: 0,
  appointments_scheduled: 0,
  success_rate: 0,
  avg_duration_seconds: 0,
};
const ZERO_SUMMARY = {
  total_interactions: 0,
  total_calls: 0,
  total_conversations: 0,
  inbound_count: 0,
  outbound_count: 0,
  avg_duration_seconds: 0,
  total_duration_seconds: 0,
  success_rate: 0,
  appointments_scheduled: 0,
};

// --- tests ---------------------------------------------------------------------------------------

describe('hand-computed values over 2026-02-01..2026-02-05 for one clinic', () => {
  it('summary', async () => {
    const { A, key } = await fixtures();
    const response = await get(app, `/api/v1/metrics/summary?date_from=2026-02-01&date_to=2026-02-05&clinic_id=${A}`, key);
    expectSuccess(response, {
      total_interactions: 10,
      total_calls: 5,
      total_conversations: 5,
      inbound_count: 5,
      outbound_count: 5,
      avg_duration_seconds: 18.33, // (10 + 20 + 25) / 3 calls with a duration
      total_duration_seconds: 55,
      success_rate: 44.44, // 4 successful of 9 with an outcome
      appointments_scheduled: 2,
    });
    expect(Object.keys(response.body.data)).toEqual([
      'total_interactions',
      'total_calls',
      'total_conversations',
      'inbound_count',
      'outbound_count',
      'avg_duration_seconds',
      'total_duration_seconds',
      'success_rate',
      'appointments_scheduled',
    ]);
    // numbers are JSON numbers, never strings
    expect(response.text).toContain('"avg_duration_seconds":18.33');
    expect(response.text).toContain('"total_interactions":10');
  });

  it('daily: every date of the window, zero-filled, ascending', async () => {
    const { A, key } = await fixtures();
    const response = await get(app, `/api/v1/metrics/daily?date_from=2026-02-01&date_to=2026-02-05&clinic_id=${A}`, key);
    expectSuccess(response, {
      daily: [
        {
          date: '2026-02-01',
          total: 3,
          calls: 2,
          conversations: 1,
          inbound: 1,
          outbound: 2,
          appointments_scheduled: 1,
          success_rate: 66.67,
          avg_duration_seconds: 15,
        },
        {
          date: '2026-02-02',
          total: 2,
          calls: 2,
          conversations: 0,
          inbound: 0,
          outbound: 2,
          appointments_scheduled: 0,
          success_rate: 0,
          avg_duration_seconds: 25,
        },
        { date: '2026-02-03', ...ZERO_DAY },
        {
          date: '2026-02-04',
          total: 3,
          calls: 0,
          conversations: 3,
          inbound: 2,
          outbound: 1,
          appointments_scheduled: 0,
          success_rate: 33.33,
          avg_duration_seconds: 0,
        },
        {
          date: '2026-02-05',
          total: 2,
          calls: 1,
          conversations: 1,
          inbound: 2,
          outbound: 0,
          appointments_scheduled: 1,
          success_rate: 50,
          avg_duration_seconds: 0,
        },
      ],
    });
    expect(Object.keys(response.body.data)).toEqual(['daily']);
    expect(Object.keys(response.body.data.daily[0])).toEqual([
      'date',
      'total',
      'calls',
      'conversations',
      'inbound',
      'outbound',
      'appointments_scheduled',
      'success_rate',
      'avg_duration_seconds',
    ]);
  });

  it('outcomes: count descending then outcome ascending, percentages of data.total (interactions with an outcome)', async () => {
    const { A, key } = await fixtures();
    const response = await get(app, `/api/v1/metrics/outcomes?date_from=2026-02-01&date_to=2026-02-05&clinic_id=${A}`, key);
    expectSuccess(response, {
      outcomes: [
        { outcome: 'APPOINTMENT_BOOKED', label: 'Appointment Booked', count: 2, percentage: 22.22 },
        { outcome: 'NO_ANSWER', label: 'No Answer', count: 2, percentage: 22.22 },
        { outcome: 'APPOINTMENT_CANCELLED', label: 'Appointment Cancelled', count: 1, percentage: 11.11 },
        { outcome: 'APPOINTMENT_MODIFIED', label: 'Appointment Modified', count: 1, percentage: 11.11 },
        { outcome: 'DECISION_PENDING', label: 'Decision Pending', count: 1, percentage: 11.11 },
        { outcome: 'OPT_OUT', label: 'Opt Out', count: 1, percentage: 11.11 },
        { outcome: 'UNREACHABLE', label: 'Unreachable', count: 1, percentage: 11.11 },
      ],
      total: 9,
    });
    expect(Object.keys(response.body.data)).toEqual(['outcomes', 'total']);
    expect(Object.keys(response.body.data.outcomes[0])).toEqual(['outcome', 'label', 'count', 'percentage']);
  });

  it('the hand-computed values agree with the reference used below', async () => {
    const { A, rows } = await fixtures();
    const w = { from: at('2026-02-01T00:00:00.000Z'), to: at('2026-02-05T23:59:59.999Z'), clinicIds: [A] };
    expect(referenceSummary(rows, w)).toMatchObject({ total_interactions: 10, avg_duration_seconds: 18.33, success_rate: 44.44 });
    expect(referenceDaily(rows, w).daily.map((d) => d.success_rate)).toEqual([66.67, 0, 0, 33.33, 50]);
    expect(referenceOutcomes(rows, w).total).toBe(9);
  });
});

describe('every filter combination against the reference', () => {
  it('summary, daily and outcomes for windows, channels, types and clinics', async () => {
    const { A, B, rows, key } = await fixtures();
    const windows: Array<{ query: string; from: string; to: string }> = [
      { query: 'date_from=2026-02-01&date_to=2026-02-05', from: '2026-02-01T00:00:00.000Z', to: '2026-02-05T23:59:59.999Z' },
      { query: 'date_from=2026-01-31&date_to=2026-02-06', from: '2026-01-31T00:00:00.000Z', to: '2026-02-06T23:59:59.999Z' },
      { query: 'date_from=2026-02-03&date_to=2026-02-03', from: '2026-02-03T00:00:00.000Z', to: '2026-02-03T23:59:59.999Z' },
      // date-times are exact instants, inclusive at both ends
      { query: 'date_from=2026-02-01T13:00:00Z&date_to=2026-02-04T09:00:00Z', from: '2026-02-01T13:00:00.000Z', to: '2026-02-04T09:00:00.000Z' },
      { query: 'date_from=2026-02-01T13:00:00.001Z&date_to=2026-02-04T08:59:59.999Z', from: '2026-02-01T13:00:00.001Z', to: '2026-02-04T08:59:59.999Z' },
      // offsets: the UTC days of the bounds decide the daily series
      { query: 'date_from=2026-02-02T00:30:00%2B01:00&date_to=2026-02-04T20:00:00-05:00', from: '2026-02-01T23:30:00.000Z', to: '2026-02-05T01:00:00.000Z' },
    ];
    const filters: Array<{ query: string; channel?: string; type?: string }> = [
      { query: '' },
      { query: 'channel=voice', channel: 'voice' },
      { query: 'channel=whatsapp', channel: 'whatsapp' },
      { query: 'type=INBOUND', type: 'INBOUND' },
      { query: 'channel=whatsapp&type=INBOUND', channel: 'whatsapp', type: 'INBOUND' },
      { query: 'channel=voice&type=CAMPAIGN_CALLBACK', channel: 'voice', type: 'CAMPAIGN_CALLBACK' },
      { query: 'type=APPOINTMENT_REMINDER', type: 'APPOINTMENT_REMINDER' },
    ];
    const clinics: Array<{ query: string; ids: string[] }> = [
      { query: '', ids: [A, B] },
      { query: `clinic_id=${A}`, ids: [A] },
      { query: `clinic_id=${B.toUpperCase()}`, ids: [B] },
      { query: `clinic_id=${UNKNOWN_CLINIC}`, ids: [] },
    ];
    const q = (...parts: string[]) => parts.filter(Boolean).join('&');
    for (const win of windows) {
      for (const clinic of clinics) {
        for (const filter of filters) {
          const w: Window = { from: at(win.from), to: at(win.to), clinicIds: clinic.ids, channel: filter.channel, type: filter.type };
          const label = q(win.query, clinic.query, filter.query);
          if (filter.type === undefined) {
            const summary = await get(app, `/api/v1/metrics/summary?${label}`, key);
            expectStatus(summary, 200);
            expect(summary.body.data, `summary?${label}`).toEqual(referenceSummary(rows, w));
          }
          const daily = await get(app, `/api/v1/metrics/daily?${label}`, key);
          expectStatus(daily, 200);
          expect(daily.body.data, `daily?${label}`).toEqual(referenceDaily(rows, w));
          const outcomes = await get(app, `/api/v1/metrics/outcomes?${label}`, key);
          expectStatus(outcomes, 200);
          expect(outcomes.body.data, `outcomes?${label}`).toEqual(referenceOutcomes(rows, w));
        }
      }
    }
  });

  it('a key restricted to one clinic: the other clinic counts as nothing, also when asked for by clinic_id', async () => {
    const { A, B, rows, keyA } = await fixtures();
    const w = { from: at('2026-01-31T00:00:00.000Z'), to: at('2026-02-06T23:59:59.999Z') };
    const range = 'date_from=2026-01-31&date_to=2026-02-06';
    const summary = await get(app, `/api/v1/metrics/summary?${range}`, keyA);
    expect(summary.body.data).toEqual(referenceSummary(rows, { ...w, clinicIds: [A] }));
    const daily = await get(app, `/api/v1/metrics/daily?${range}`, keyA);
    expect(daily.body.data).toEqual(referenceDaily(rows, { ...w, clinicIds: [A] }));
    expect(daily.body.data.daily[3]).toEqual({ date: '2026-02-03', ...ZERO_DAY });
    const outcomes = await get(app, `/api/v1/metrics/outcomes?${range}`, keyA);
    expect(outcomes.body.data).toEqual(referenceOutcomes(rows, { ...w, clinicIds: [A] }));
    expect(outcomes.body.data.outcomes.map((o: { outcome: string }) => o.outcome)).not.toContain('VOICEMAIL_REACHED');

    expectSuccess(await get(app, `/api/v1/metrics/summary?${range}&clinic_id=${B}`, keyA), ZERO_SUMMARY);
    const dailyB = await get(app, `/api/v1/metrics/daily?${range}&clinic_id=${B}`, keyA);
    expectSuccess(dailyB, { daily: referenceDaily([], { ...w, clinicIds: [] }).daily });
    expect(dailyB.body.data.daily.every((d: { total: number }) => d.total === 0)).toBe(true);
    expectSuccess(await get(app, `/api/v1/metrics/outcomes?${range}&clinic_id=${B}`, keyA), { outcomes: [], total: 0 });
  });
});

describe('zeros and empties', () => {
  it('a well-formed unknown clinic gives zeros, a zero-filled series and no outcomes', async () => {
    const { key } = await fixtures();
    const range = `date_from=2026-02-01&date_to=2026-02-03&clinic_id=${UNKNOWN_CLINIC}`;
    expectSuccess(await get(app, `/api/v1/metrics/summary?${range}`, key), ZERO_SUMMARY);
    expectSuccess(await get(app, `/api/v1/metrics/daily?${range}`, key), {
      daily: [
        { date: '2026-02-01', ...ZERO_DAY },
        { date: '2026-02-02', ...ZERO_DAY },
        { date: '2026-02-03', ...ZERO_DAY },
      ],
    });
    expectSuccess(await get(app, `/api/v1/metrics/outcomes?${range}`, key), { outcomes: [], total: 0 });
  });

  it('interactions without any outcome: success_rate 0 and an empty breakdown; calls without duration: average 0', async () => {
    const clinic = await createClinic(db);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    await insert([
      { clinicId: clinic.id, channel: 'voice', type: 'INBOUND', durationSeconds: null, outcome: null, startedAt: at('2026-02-10T10:00:00.000Z') },
      { clinicId: clinic.id, channel: 'whatsapp', type: 'INBOUND', outcome: null, startedAt: at('2026-02-10T11:00:00.000Z') },
    ]);
    const range = 'date_from=2026-02-10&date_to=2026-02-10';
    expectSuccess(await get(app, `/api/v1/metrics/summary?${range}`, key), {
      ...ZERO_SUMMARY,
      total_interactions: 2,
      total_calls: 1,
      total_conversations: 1,
      inbound_count: 2,
    });
    expectSuccess(await get(app, `/api/v1/metrics/outcomes?${range}`, key), { outcomes: [], total: 0 });
    expectSuccess(await get(app, `/api/v1/metrics/daily?${range}`, key), {
      daily: [{ date: '2026-02-10', ...ZERO_DAY, total: 2, calls: 1, conversations: 1, inbound: 2 }],
    });
  });

  it('a long window is zero-filled day by day (2020-01-01..2026-12-31: 2557 days)', async () => {
    const clinic = await createClinic(db);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    await insert([{ clinicId: clinic.id, startedAt: at('2024-02-29T12:00:00.000Z'), durationSeconds: 61 }]);
    const response = await get(app, '/api/v1/metrics/daily?date_from=2020-01-01&date_to=2026-12-31', key);
    expectStatus(response, 200);
    const daily = response.body.data.daily as Array<{ date: string; total: number; avg_duration_seconds: number }>;
    expect(daily.length).toBe(2557);
    expect(daily[0]!.date).toBe('2020-01-01');
    expect(daily[2556]!.date).toBe('2026-12-31');
    for (let i = 1; i < daily.length; i++) expect(Date.parse(daily[i]!.date) - Date.parse(daily[i - 1]!.date)).toBe(DAY_MS);
    expect(daily.filter((d) => d.total > 0)).toEqual([
      {
        date: '2024-02-29',
        total: 1,
        calls: 1,
        conversations: 0,
        inbound: 1,
        outbound: 0,
        appointments_scheduled: 1,
        success_rate: 100,
        avg_duration_seconds: 61,
      },
    ]);
  });
});

describe('default window: from the start of the UTC day 30 days ago to the end of today', () => {
  const NOW = at('2031-06-15T12:00:00.000Z');
  const fixedApp = testApp(db, { now: () => NOW });

  async function defaultFixtures() {
    const clinic = await createClinic(db);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const c = clinic.id;
    const rows = await insert([
      { clinicId: c, channel: 'voice', durationSeconds: 100, outcome: 'NO_ANSWER', startedAt: at('2031-05-15T23:59:59.999Z') }, // out
      { clinicId: c, channel: 'voice', durationSeconds: 30, outcome: 'APPOINTMENT_BOOKED', startedAt: at('2031-05-16T00:00:00.000Z') }, // first instant
      { clinicId: c, channel: 'whatsapp', type: 'INBOUND', outcome: 'OPT_OUT', startedAt: at('2031-06-01T12:00:00.000Z') },
      { clinicId: c, channel: 'voice', durationSeconds: 45, outcome: 'APPOINTMENT_BOOKED', startedAt: at('2031-06-15T23:59:59.999Z') }, // last instant
      { clinicId: c, channel: 'voice', durationSeconds: 100, outcome: 'NO_ANSWER', startedAt: at('2031-06-16T00:00:00.000Z') }, // out
    ]);
    return { c, key, rows };
  }

  it('summary, daily (31 days) and outcomes without dates', async () => {
    const { c, key, rows } = await defaultFixtures();
    const w = { from: at('2031-05-16T00:00:00.000Z'), to: at('2031-06-15T23:59:59.999Z'), clinicIds: [c] };

    const summary = await get(fixedApp, '/api/v1/metrics/summary', key);
    expectSuccess(summary, {
      total_interactions: 3,
      total_calls: 2,
      total_conversations: 1,
      inbound_count: 3,
      outbound_count: 0,
      avg_duration_seconds: 37.5,
      total_duration_seconds: 75,
      success_rate: 66.67,
      appointments_scheduled: 2,
    });
    expect(summary.body.data).toEqual(referenceSummary(rows, w));

    const daily = await get(fixedApp, '/api/v1/metrics/daily', key);
    expectStatus(daily, 200);
    expect(daily.body.data.daily.length).toBe(31);
    expect(daily.body.data.daily[0].date).toBe('2031-05-16');
    expect(daily.body.data.daily[30].date).toBe('2031-06-15');
    expect(daily.body.data).toEqual(referenceDaily(rows, w));

    const outcomes = await get(fixedApp, '/api/v1/metrics/outcomes', key);
    expectSuccess(outcomes, {
      outcomes: [
        { outcome: 'APPOINTMENT_BOOKED', label: 'Appointment Booked', count: 2, percentage: 66.67 },
        { outcome: 'OPT_OUT', label: 'Opt Out', count: 1, percentage: 33.33 },
      ],
      total: 3,
    });
  });

  it('only date_from: up to the end of today; only date_to: from 30 days ago', async () => {
    const { c, key, rows } = await defaultFixtures();
    const fromOnly = await get(fixedApp, '/api/v1/metrics/summary?date_from=2031-06-01', key);
    expect(fromOnly.body.data).toEqual(referenceSummary(rows, { from: at('2031-06-01T00:00:00.000Z'), to: at('2031-06-15T23:59:59.999Z'), clinicIds: [c] }));
    expect(fromOnly.body.data.total_interactions).toBe(2);
    const toOnly = await get(fixedApp, '/api/v1/metrics/summary?date_to=2031-06-01', key);
    expect(toOnly.body.data).toEqual(referenceSummary(rows, { from: at('2031-05-16T00:00:00.000Z'), to: at('2031-06-01T23:59:59.999Z'), clinicIds: [c] }));
    expect(toOnly.body.data.total_interactions).toBe(2);
    const dailyFrom = await get(fixedApp, '/api/v1/metrics/daily?date_from=2031-06-14', key);
    expect(dailyFrom.body.data.daily.map((d: { date: string }) => d.date)).toEqual(['2031-06-14', '2031-06-15']);
    const dailyTo = await get(fixedApp, '/api/v1/metrics/daily?date_to=2031-05-17', key);
    expect(dailyTo.body.data.daily.map((d: { date: string }) => d.date)).toEqual(['2031-05-16', '2031-05-17']);
  });

  it('a date_from after the default date_to, or a date_to before the default date_from, is a 400', async () => {
    const { key } = await defaultFixtures();
    for (const path of ['/api/v1/metrics/summary', '/api/v1/metrics/daily', '/api/v1/metrics/outcomes']) {
      expectValidationError(await get(fixedApp, `${path}?date_from=2031-06-16`, key), ['date_from']);
      expectValidationError(await get(fixedApp, `${path}?date_to=2031-05-15`, key), ['date_to']);
      expectStatus(await get(fixedApp, `${path}?date_from=2031-06-15`, key), 200);
      expectStatus(await get(fixedApp, `${path}?date_to=2031-05-16`, key), 200);
      expectValidationError(await get(fixedApp, `${path}?date_from=2031-06-02&date_to=2031-06-01`, key), ['date_from']);
    }
  });
});
