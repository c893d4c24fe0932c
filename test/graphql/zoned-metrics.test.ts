// Metrics in a local time zone through GraphQL: `timezone` and `compare` on metricsSummary,
// metricsOutcomes and metricsDaily, metricsDailyReport, metricsSeries, and argument errors as one
// VALIDATION_ERROR naming the argument. The same core cases as test/rest/zoned-metrics.test.ts,
// and the two APIs agree figure for figure.
import { describe, expect, it } from 'vitest';
import { createKey, expectNoErrors, graphql, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createClinic, createInteraction, type InteractionInput } from '../helpers/factories.js';
import { get } from '../rest/client.js';
import { errorsOf, expectValidationError } from './support.js';

const db = testDb();
const app = testApp(db);

const SUMMARY =
  'totalInteractions totalCalls totalConversations inboundCount outboundCount avgDurationSeconds totalDurationSeconds successRate appointmentsScheduled';
const BUCKET = 'total calls conversations inbound outbound appointmentsScheduled successRate avgDurationSeconds';
const OUTCOMES = 'total outcomes { outcome label count percentage }';

const ZERO = { total: 0, calls: 0, conversations: 0, inbound: 0, outbound: 0, appointmentsScheduled: 0, successRate: 0, avgDurationSeconds: 0 };
const calls = (n: number) => ({ ...ZERO, total: n, calls: n, inbound: n, appointmentsScheduled: n, successRate: n ? 100 : 0, avgDurationSeconds: n ? 60 : 0 });
const bucket = (start: string, end: string, n = 0) => ({ start, end, ...calls(n) });
const day = (date: string, n = 0) => ({ date, ...calls(n) });
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
const summaryOfCalls = (n: number) => ({
  ...ZERO_SUMMARY,
  totalInteractions: n,
  totalCalls: n,
  inboundCount: n,
  avgDurationSeconds: n ? 60 : 0,
  totalDurationSeconds: 60 * n,
  successRate: n ? 100 : 0,
  appointmentsScheduled: n,
});
const NO_CHANGE = Object.fromEntries(Object.keys(ZERO_SUMMARY).map((k) => [k, null]));

async function clinicWith(instants: string[], timezone = 'Europe/Madrid', extra: InteractionInput[] = []) {
  const clinic = await createClinic(db, { timezone });
  for (const at of instants) await createInteraction(db, { clinicId: clinic.id, startedAt: new Date(at) });
  for (const input of extra) await createInteraction(db, { ...input, clinicId: clinic.id });
  const key = await createKey(db, { clinicIds: [clinic.id] });
  return { clinicId: clinic.id, key };
}

const VARIABLES = `$dateFrom: String, $dateTo: String, $clinicId: ID, $channel: Channel, $timezone: String`;
const ARGS = `dateFrom: $dateFrom, dateTo: $dateTo, clinicId: $clinicId, channel: $channel, timezone: $timezone`;

const SERIES_QUERY = `query(${VARIABLES}, $type: InteractionType, $granularity: Granularity, $compare: MetricsComparison) {
  metricsSeries(${ARGS}, type: $type, granularity: $granularity, compare: $compare) {
    series { start end ${BUCKET} }
    previous { start end ${BUCKET} }
  }
}`;
const SUMMARY_QUERY = `query(${VARIABLES}, $compare: MetricsComparison) {
  metricsSummary(${ARGS}, compare: $compare) { ${SUMMARY} previous { ${SUMMARY} } change { ${SUMMARY} } }
}`;
const DAILY_QUERY = `query(${VARIABLES}, $type: InteractionType) {
  metricsDaily(${ARGS}, type: $type) { date ${BUCKET} }
}`;
const REPORT_QUERY = `query(${VARIABLES}, $type: InteractionType, $compare: MetricsComparison) {
  metricsDailyReport(${ARGS}, type: $type, compare: $compare) { daily { date ${BUCKET} } previous { date ${BUCKET} } }
}`;
const OUTCOMES_QUERY = `query(${VARIABLES}, $type: InteractionType, $compare: MetricsComparison) {
  metricsOutcomes(${ARGS}, type: $type, compare: $compare) { ${OUTCOMES} previous { ${OUTCOMES} } }
}`;

const ask = async (key: string, query: string, variables: Record<string, unknown>) => expectNoErrors(await graphql(app, { key, query, variables }));

describe('timezone', () => {
  it('metricsDaily and metricsSummary count local days; without timezone, or with UTC, UTC days', async () => {
    const { key } = await clinicWith(['2026-02-10T22:30:00.000Z', '2026-02-10T23:00:00.000Z', '2026-02-11T22:59:59.999Z']);
    const range = { dateFrom: '2026-02-10', dateTo: '2026-02-11' };
    expect((await ask(key, DAILY_QUERY, { ...range, timezone: 'Europe/Madrid' })).metricsDaily).toEqual([day('2026-02-10', 1), day('2026-02-11', 2)]);
    const utc = [day('2026-02-10', 2), day('2026-02-11', 1)];
    expect((await ask(key, DAILY_QUERY, range)).metricsDaily).toEqual(utc);
    expect((await ask(key, DAILY_QUERY, { ...range, timezone: 'UTC' })).metricsDaily).toEqual(utc);
    const summary = await ask(key, SUMMARY_QUERY, { dateFrom: '2026-02-11', dateTo: '2026-02-11', timezone: 'Europe/Madrid' });
    expect(summary.metricsSummary).toEqual({ ...summaryOfCalls(2), previous: null, change: null });
  });

  it('metricsSeries: the 25-hour day of Europe/Madrid has two 02:00 buckets', async () => {
    const { key } = await clinicWith(['2026-10-25T00:30:00.000Z', '2026-10-25T01:30:00.000Z']);
    const data = await ask(key, SERIES_QUERY, { dateFrom: '2026-10-25', dateTo: '2026-10-25', timezone: 'Europe/Madrid', granularity: 'HOUR' });
    const series = data.metricsSeries.series;
    expect(series).toHaveLength(25);
    expect(series.slice(1, 5)).toEqual([
      bucket('2026-10-25T01:00:00.000+02:00', '2026-10-25T02:00:00.000+02:00'),
      bucket('2026-10-25T02:00:00.000+02:00', '2026-10-25T02:00:00.000+01:00', 1),
      bucket('2026-10-25T02:00:00.000+01:00', '2026-10-25T03:00:00.000+01:00', 1),
      bucket('2026-10-25T03:00:00.000+01:00', '2026-10-25T04:00:00.000+01:00'),
    ]);
    expect(series[24].end).toBe('2026-10-26T00:00:00.000+01:00');
    expect(data.metricsSeries.previous).toBeNull();
  });

  it('metricsSeries: the 23-hour day skips 02:00; Asia/Kathmandu hours start at :15 UTC', async () => {
    const madrid = await clinicWith(['2026-03-29T01:00:00.000Z']);
    const spring = await ask(madrid.key, SERIES_QUERY, { dateFrom: '2026-03-29', dateTo: '2026-03-29', timezone: 'Europe/Madrid', granularity: 'HOUR' });
    expect(spring.metricsSeries.series).toHaveLength(23);
    expect(spring.metricsSeries.series[1]).toEqual(bucket('2026-03-29T01:00:00.000+01:00', '2026-03-29T03:00:00.000+02:00'));
    expect(spring.metricsSeries.series[2]).toEqual(bucket('2026-03-29T03:00:00.000+02:00', '2026-03-29T04:00:00.000+02:00', 1));

    const kathmandu = await clinicWith(['2026-04-30T18:15:00.000Z'], 'Asia/Kathmandu');
    const data = await ask(kathmandu.key, SERIES_QUERY, { dateFrom: '2026-05-01', dateTo: '2026-05-01', timezone: 'Asia/Kathmandu', granularity: 'DAY' });
    expect(data.metricsSeries.series).toEqual([bucket('2026-05-01T00:00:00.000+05:45', '2026-05-02T00:00:00.000+05:45', 1)]);
  });

  it('week, month, quarter and year buckets', async () => {
    const { key } = await clinicWith(['2026-03-31T22:00:00.000Z']); // 1 April 00:00 in Madrid
    const range = { dateFrom: '2026-03-25', dateTo: '2026-04-01', timezone: 'Europe/Madrid' };
    const starts = async (granularity: string) =>
      (await ask(key, SERIES_QUERY, { ...range, granularity })).metricsSeries.series.map((b: { start: string; end: string; total: number }) => [
        b.start,
        b.end,
        b.total,
      ]);
    expect(await starts('WEEK')).toEqual([
      ['2026-03-25T00:00:00.000+01:00', '2026-03-30T00:00:00.000+02:00', 0],
      ['2026-03-30T00:00:00.000+02:00', '2026-04-02T00:00:00.000+02:00', 1],
    ]);
    expect(await starts('MONTH')).toEqual([
      ['2026-03-25T00:00:00.000+01:00', '2026-04-01T00:00:00.000+02:00', 0],
      ['2026-04-01T00:00:00.000+02:00', '2026-04-02T00:00:00.000+02:00', 1],
    ]);
    expect(await starts('QUARTER')).toEqual(await starts('MONTH'));
    expect(await starts('YEAR')).toEqual([['2026-03-25T00:00:00.000+01:00', '2026-04-02T00:00:00.000+02:00', 1]]);
  });

  it('dateFrom and dateTo are compared as the instants they mean in the zone', async () => {
    const { key } = await clinicWith(['2026-02-10T23:15:00.000Z']);
    // 2026-02-11 starts at 2026-02-10T23:00Z in Madrid, before 23:30Z.
    const data = await ask(key, SUMMARY_QUERY, { dateFrom: '2026-02-11', dateTo: '2026-02-10T23:30:00Z', timezone: 'Europe/Madrid' });
    expect(data.metricsSummary.totalInteractions).toBe(1);
    // 2026-02-10 ends at 2026-02-10T22:59:59.999Z in Madrid, before 23:00Z.
    const response = await graphql(app, {
      key,
      query: SUMMARY_QUERY,
      variables: { dateFrom: '2026-02-10T23:00:00Z', dateTo: '2026-02-10', timezone: 'Europe/Madrid' },
    });
    expectValidationError(response, ['dateFrom']);
  });

  it('timezone "clinic": the clinic’s zone; an invisible or unknown clinic is UTC with zeros', async () => {
    const kathmandu = await clinicWith(['2026-04-30T18:15:00.000Z'], 'Asia/Kathmandu');
    const byClinic = await ask(kathmandu.key, SERIES_QUERY, {
      dateFrom: '2026-05-01',
      dateTo: '2026-05-01',
      timezone: 'clinic',
      clinicId: kathmandu.clinicId,
      granularity: 'DAY',
    });
    expect(byClinic.metricsSeries.series).toEqual([bucket('2026-05-01T00:00:00.000+05:45', '2026-05-02T00:00:00.000+05:45', 1)]);
    const other = await clinicWith([]);
    for (const clinicId of [kathmandu.clinicId, '00000000-0000-4000-8000-000000000000']) {
      const data = await ask(other.key, SERIES_QUERY, { dateFrom: '2026-05-01', dateTo: '2026-05-01', timezone: 'clinic', clinicId, granularity: 'DAY' });
      expect(data.metricsSeries.series).toEqual([bucket('2026-05-01T00:00:00.000+00:00', '2026-05-02T00:00:00.000+00:00')]);
      const summary = await ask(other.key, SUMMARY_QUERY, { timezone: 'clinic', clinicId, compare: 'PREVIOUS_PERIOD' });
      expect(summary.metricsSummary).toEqual({ ...ZERO_SUMMARY, previous: ZERO_SUMMARY, change: NO_CHANGE });
    }
  });
});

describe('compare', () => {
  const rows: InteractionInput[] = [
    { clinicId: '', durationSeconds: 10, outcome: 'APPOINTMENT_BOOKED', startedAt: new Date('2026-02-09T23:00:00.000Z') }, // 10 Feb 00:00 Madrid
    { clinicId: '', durationSeconds: 20, outcome: 'APPOINTMENT_BOOKED', startedAt: new Date('2026-02-12T12:00:00.000Z') },
    { clinicId: '', durationSeconds: 30, outcome: 'NO_ANSWER', startedAt: new Date('2026-02-14T22:59:59.999Z') },
    { clinicId: '', durationSeconds: 10, outcome: 'APPOINTMENT_BOOKED', startedAt: new Date('2026-02-04T23:00:00.000Z') }, // 5 Feb 00:00
    { clinicId: '', durationSeconds: 10, outcome: 'NO_ANSWER', startedAt: new Date('2026-02-07T10:00:00.000Z') },
    { clinicId: '', durationSeconds: 20, outcome: 'NO_ANSWER', startedAt: new Date('2026-02-09T22:59:59.999Z') },
    { clinicId: '', channel: 'whatsapp', type: 'INBOUND', outcome: null, startedAt: new Date('2026-02-08T10:00:00.000Z') },
    { clinicId: '', startedAt: new Date('2026-02-04T22:59:59.999Z') }, // 4 Feb: outside both
  ];
  const range = { dateFrom: '2026-02-10', dateTo: '2026-02-14', timezone: 'Europe/Madrid', compare: 'PREVIOUS_PERIOD' };

  it('metricsSummary: previous and change (from the reported figures; null where the previous one is 0)', async () => {
    const { key } = await clinicWith([], 'Europe/Madrid', rows);
    const data = await ask(key, SUMMARY_QUERY, range);
    expect(data.metricsSummary).toEqual({
      totalInteractions: 3,
      totalCalls: 3,
      totalConversations: 0,
      inboundCount: 3,
      outboundCount: 0,
      avgDurationSeconds: 20,
      totalDurationSeconds: 60,
      successRate: 66.67,
      appointmentsScheduled: 2,
      previous: {
        totalInteractions: 4,
        totalCalls: 3,
        totalConversations: 1,
        inboundCount: 4,
        outboundCount: 0,
        avgDurationSeconds: 13.33,
        totalDurationSeconds: 40,
        successRate: 33.33,
        appointmentsScheduled: 1,
      },
      change: {
        totalInteractions: -25,
        totalCalls: 0,
        totalConversations: -100,
        inboundCount: -25,
        outboundCount: null,
        avgDurationSeconds: 50.04,
        totalDurationSeconds: 50,
        successRate: 100.03,
        appointmentsScheduled: 100,
      },
    });
  });

  it('metricsDailyReport, metricsOutcomes and metricsSeries: previous over the same number of local days before', async () => {
    const { key } = await clinicWith([], 'Europe/Madrid', rows);
    const report = (await ask(key, REPORT_QUERY, range)).metricsDailyReport;
    expect(report.daily.map((d: { date: string }) => d.date)).toEqual(['2026-02-10', '2026-02-11', '2026-02-12', '2026-02-13', '2026-02-14']);
    expect(report.previous.map((d: { date: string; total: number }) => [d.date, d.total])).toEqual([
      ['2026-02-05', 1],
      ['2026-02-06', 0],
      ['2026-02-07', 1],
      ['2026-02-08', 1],
      ['2026-02-09', 1],
    ]);
    const withoutCompare = (await ask(key, REPORT_QUERY, { ...range, compare: undefined })).metricsDailyReport;
    expect(withoutCompare).toEqual({ daily: report.daily, previous: null });

    const outcomes = (await ask(key, OUTCOMES_QUERY, range)).metricsOutcomes;
    expect(outcomes).toEqual({
      total: 3,
      outcomes: [
        { outcome: 'APPOINTMENT_BOOKED', label: 'Appointment Booked', count: 2, percentage: 66.67 },
        { outcome: 'NO_ANSWER', label: 'No Answer', count: 1, percentage: 33.33 },
      ],
      previous: {
        total: 3,
        outcomes: [
          { outcome: 'NO_ANSWER', label: 'No Answer', count: 2, percentage: 66.67 },
          { outcome: 'APPOINTMENT_BOOKED', label: 'Appointment Booked', count: 1, percentage: 33.33 },
        ],
      },
    });

    const series = (await ask(key, SERIES_QUERY, { ...range, granularity: 'WEEK' })).metricsSeries;
    expect(series.series.map((b: { start: string; total: number }) => [b.start, b.total])).toEqual([['2026-02-10T00:00:00.000+01:00', 3]]);
    expect(series.previous.map((b: { start: string; end: string; total: number }) => [b.start, b.end, b.total])).toEqual([
      ['2026-02-05T00:00:00.000+01:00', '2026-02-09T00:00:00.000+01:00', 3],
      ['2026-02-09T00:00:00.000+01:00', '2026-02-10T00:00:00.000+01:00', 1],
    ]);
  });

  it('PREVIOUS_YEAR: 29 February 2028 is compared with 28 February 2027; date-times move in wall-clock time', async () => {
    const { key } = await clinicWith(['2027-02-27T23:00:00.000Z', '2025-03-29T13:00:00.000Z', '2025-03-29T12:00:00.000Z']);
    const report = (await ask(key, REPORT_QUERY, { dateFrom: '2028-02-29', dateTo: '2028-02-29', timezone: 'Europe/Madrid', compare: 'PREVIOUS_YEAR' }))
      .metricsDailyReport;
    expect(report).toEqual({ daily: [day('2028-02-29')], previous: [day('2027-02-28', 1)] });
    // 14:00 (+02:00) on 2026-03-29 was 14:00 (+01:00) on 2025-03-29: 13:00Z.
    const series = (
      await ask(key, SERIES_QUERY, {
        dateFrom: '2026-03-29T12:00:00Z',
        dateTo: '2026-03-29T12:59:59.999Z',
        timezone: 'Europe/Madrid',
        granularity: 'HOUR',
        compare: 'PREVIOUS_YEAR',
      })
    ).metricsSeries;
    expect(series.previous).toEqual([bucket('2025-03-29T14:00:00.000+01:00', '2025-03-29T15:00:00.000+01:00', 1)]);
  });
});

describe('REST and GraphQL agree', () => {
  it('series, daily, summary and outcomes with timezone and compare', async () => {
    const { key, clinicId } = await clinicWith(
      ['2026-10-24T21:59:59.999Z', '2026-10-24T22:00:00.000Z', '2026-10-25T00:30:00.000Z', '2026-10-25T01:30:00.000Z', '2026-10-17T10:00:00.000Z'],
      'Europe/Madrid',
      [{ clinicId: '', channel: 'whatsapp', type: 'CAMPAIGN_OUTBOUND', outcome: 'OPT_OUT', startedAt: new Date('2026-10-25T12:00:00.000Z') }],
    );
    const rest = async (path: string) => (await get(app, path, key)).body.data;
    const snake = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));
    const q = `date_from=2026-10-24&date_to=2026-10-25&timezone=clinic&clinic_id=${clinicId}&compare=previous_period`;
    const vars = { dateFrom: '2026-10-24', dateTo: '2026-10-25', timezone: 'clinic', clinicId, compare: 'PREVIOUS_PERIOD' };
    for (const granularity of ['hour', 'day', 'week', 'month', 'quarter', 'year']) {
      const g = (await ask(key, SERIES_QUERY, { ...vars, granularity: granularity.toUpperCase() })).metricsSeries;
      expect(await rest(`/api/v1/metrics/series?${q}&granularity=${granularity}`), granularity).toEqual({
        series: g.series.map(snake),
        previous: { series: g.previous.map(snake) },
      });
    }
    const report = (await ask(key, REPORT_QUERY, vars)).metricsDailyReport;
    expect(await rest(`/api/v1/metrics/daily?${q}`)).toEqual({ daily: report.daily.map(snake), previous: { daily: report.previous.map(snake) } });
    const { previous: _p, ...outcomes } = (await ask(key, OUTCOMES_QUERY, vars)).metricsOutcomes;
    const restOutcomes = await rest(`/api/v1/metrics/outcomes?${q}`);
    expect({ outcomes: restOutcomes.outcomes, total: restOutcomes.total }).toEqual({ outcomes: outcomes.outcomes, total: outcomes.total });
    const summary = (await ask(key, SUMMARY_QUERY, vars)).metricsSummary;
    const restSummary = await rest(`/api/v1/metrics/summary?${q}`);
    const { previous, change, ...figures } = summary;
    expect(restSummary).toEqual({
      ...snake(figures),
      previous: snake(previous),
      change: snake(change),
    });
  });
});

describe('argument errors: one VALIDATION_ERROR naming the argument, the field null', () => {
  it.each([
    ['an unknown zone', { timezone: 'Mars/Base' }, ['timezone']],
    ['a zone in the wrong case', { timezone: 'europe/madrid' }, ['timezone']],
    ['an empty zone', { timezone: '' }, ['timezone']],
    ['a path', { timezone: '../../etc/passwd' }, ['timezone']],
    ['control characters', { timezone: 'Europe/Madrid\u0000' }, ['timezone']],
    ['a 10,000-character zone', { timezone: 'A'.repeat(10_000) }, ['timezone']],
    ['"clinic" without clinicId', { timezone: 'clinic' }, ['timezone']],
    ['no granularity', { granularity: null }, ['granularity']],
    ['more than 10,000 buckets', { granularity: 'HOUR', dateFrom: '2025-01-01', dateTo: '2026-12-31' }, ['granularity']],
    [
      'several at once',
      { timezone: 'Mars/Base', granularity: 'HOUR', dateFrom: 'bad', channel: 'VOICE', type: 'APPOINTMENT_REMINDER' },
      ['timezone', 'dateFrom', 'type'],
    ],
  ])('metricsSeries: %s', async (_name, variables, names) => {
    const { key } = await clinicWith([]);
    const response = await graphql(app, { key, query: SERIES_QUERY, variables: { granularity: 'DAY', ...variables } });
    expectValidationError(response, names);
    expect(response.body.data).toEqual({ metricsSeries: null });
  });

  it('the other metrics fields name a bad timezone too', async () => {
    const { key } = await clinicWith([]);
    for (const [query, field] of [
      [SUMMARY_QUERY, 'metricsSummary'],
      [DAILY_QUERY, 'metricsDaily'],
      [REPORT_QUERY, 'metricsDailyReport'],
      [OUTCOMES_QUERY, 'metricsOutcomes'],
    ] as const) {
      for (const timezone of ['Mars/Base', 'europe/madrid', 'clinic']) {
        const response = await graphql(app, { key, query, variables: { timezone } });
        expectValidationError(response, ['timezone']);
        expect(response.body.data).toEqual({ [field]: null });
      }
    }
  });

  it('values the types reject (granularity MINUTE, compare YESTERDAY) never reach the resolver', async () => {
    const { key } = await clinicWith([]);
    for (const variables of [{ granularity: 'MINUTE' }, { granularity: 'hour' }, { granularity: 'DAY', compare: 'YESTERDAY' }]) {
      const response = await graphql(app, { key, query: SERIES_QUERY, variables });
      expect(response.body.data, JSON.stringify(variables)).toBeUndefined();
      expect(errorsOf(response)).toHaveLength(1);
      expect(errorsOf(response)[0]?.extensions?.code).not.toBe('VALIDATION_ERROR');
    }
  });

  it('a bad field leaves the others of the query answered', async () => {
    const { key } = await clinicWith(['2026-02-10T12:00:00.000Z']);
    const response = await graphql(app, {
      key,
      query: `{
        bad: metricsSeries(granularity: HOUR, timezone: "Mars/Base") { series { start } }
        good: metricsSummary(dateFrom: "2026-02-10", dateTo: "2026-02-10", timezone: "Europe/Madrid") { totalInteractions }
      }`,
    });
    expectValidationError(response, ['timezone']);
    expect(response.body.data).toEqual({ bad: null, good: { totalInteractions: 1 } });
  });
});
