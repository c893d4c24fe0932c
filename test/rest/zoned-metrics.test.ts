// Metrics in a clinic's local time zone through REST, as a client relies on them: `timezone` on
// summary, daily and outcomes, GET /api/v1/metrics/series, `compare`, `timezone=clinic`, and the
// 400s that name the parameter. Values are hand-computed literals; each test has its own clinics and
// a key restricted to them. (The property test in test/analytics/zoned.property.test.ts compares
// every figure with raw SQL for random zones, windows and data.)
import { describe, expect, it } from 'vitest';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createClinic, createInteraction, type InteractionInput } from '../helpers/factories.js';
import { expectEnvelope, expectStatus, expectSuccess, expectValidationError, get, type RestResponse, UNKNOWN_CLINIC } from './client.js';

const db = testDb();
const app = testApp(db);

const ZERO = {
  total: 0,
  calls: 0,
  conversations: 0,
  inbound: 0,
  outbound: 0,
  appointments_scheduled: 0,
  success_rate: 0,
  avg_duration_seconds: 0,
};
/** n of the factory's default interaction: an inbound call of 60 s that booked an appointment. */
const calls = (n: number) => ({
  ...ZERO,
  total: n,
  calls: n,
  inbound: n,
  appointments_scheduled: n,
  success_rate: n ? 100 : 0,
  avg_duration_seconds: n ? 60 : 0,
});
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
const summaryOfCalls = (n: number) => ({
  ...ZERO_SUMMARY,
  total_interactions: n,
  total_calls: n,
  inbound_count: n,
  avg_duration_seconds: n ? 60 : 0,
  total_duration_seconds: 60 * n,
  success_rate: n ? 100 : 0,
  appointments_scheduled: n,
});
const bucket = (start: string, end: string, n = 0) => ({ start, end, ...calls(n) });
const day = (date: string, n = 0) => ({ date, ...calls(n) });
const pad = (n: number) => String(n).padStart(2, '0');

/** Hour buckets of one local date from `first` to `last` (inclusive) at one offset; `counts` by hour. */
function hours(date: string, first: number, last: number, offset: string, counts: Record<number, number> = {}, endOfLast?: string) {
  const out = [];
  for (let h = first; h <= last; h++) {
    const end = h === last && endOfLast ? endOfLast : `${date}T${pad(h + 1)}:00:00.000${offset}`;
    out.push(bucket(`${date}T${pad(h)}:00:00.000${offset}`, end, counts[h] ?? 0));
  }
  return out;
}

const SERIES_FIELDS = [
  'start',
  'end',
  'total',
  'calls',
  'conversations',
  'inbound',
  'outbound',
  'appointments_scheduled',
  'success_rate',
  'avg_duration_seconds',
];

/** A clinic in `timezone` with the factory's default call at each instant, and a key of only that clinic. */
async function clinicWith(instants: string[], timezone = 'Europe/Madrid', extra: InteractionInput[] = []) {
  const clinic = await createClinic(db, { timezone });
  for (const at of instants) await createInteraction(db, { clinicId: clinic.id, startedAt: new Date(at) });
  for (const input of extra) await createInteraction(db, { ...input, clinicId: clinic.id });
  const key = await createKey(db, { clinicIds: [clinic.id] });
  return { clinicId: clinic.id, key };
}

async function ok(path: string, key: string): Promise<RestResponse> {
  const response = await get(app, path, key);
  expectStatus(response, 200);
  expectEnvelope(response, 'object');
  return response;
}

/** The body without what differs between two requests (request_id, timestamp). */
const stable = (r: RestResponse) => r.text.replace(/"request_id":"[^"]*"/, '').replace(/"timestamp":"[^"]*"/, '');

describe('without timezone, or with timezone=UTC, the answers are the UTC ones', () => {
  it('summary, daily and outcomes: the same bytes; no previous or change', async () => {
    const { key } = await clinicWith(['2026-02-01T00:00:00.000Z', '2026-02-01T23:59:59.999Z', '2026-02-02T00:00:00.000Z', '2026-02-02T22:30:00.000Z']);
    const range = 'date_from=2026-02-01&date_to=2026-02-02';
    const plain = {
      summary: await ok(`/api/v1/metrics/summary?${range}`, key),
      daily: await ok(`/api/v1/metrics/daily?${range}`, key),
      outcomes: await ok(`/api/v1/metrics/outcomes?${range}`, key),
    };
    expect(plain.summary.body.data).toEqual(summaryOfCalls(4));
    expect(Object.keys(plain.summary.body.data)).toEqual(Object.keys(ZERO_SUMMARY));
    expect(plain.daily.body.data).toEqual({ daily: [day('2026-02-01', 2), day('2026-02-02', 2)] });
    expect(plain.outcomes.body.data).toEqual({
      outcomes: [{ outcome: 'APPOINTMENT_BOOKED', label: 'Appointment Booked', count: 4, percentage: 100 }],
      total: 4,
    });
    for (const [name, response] of Object.entries(plain)) {
      const utc = await ok(`/api/v1/metrics/${name}?${range}&timezone=UTC`, key);
      expect(stable(utc), name).toBe(stable(response));
      expect(utc.headers.get('content-type')).toBe(response.headers.get('content-type'));
      expect(utc.text).not.toContain('"previous"');
      expect(utc.text).not.toContain('"change"');
    }
    // With date-times too.
    const instants = 'date_from=2026-02-01T12:00:00Z&date_to=2026-02-02T00:00:00.000Z';
    for (const name of ['summary', 'daily', 'outcomes']) {
      expect(stable(await ok(`/api/v1/metrics/${name}?${instants}&timezone=UTC`, key)), name).toBe(
        stable(await ok(`/api/v1/metrics/${name}?${instants}`, key)),
      );
    }
  });

  it('series in UTC: day buckets are the UTC days, written +00:00', async () => {
    const { key } = await clinicWith(['2026-02-01T23:59:59.999Z', '2026-02-02T00:00:00.000Z']);
    const response = await ok('/api/v1/metrics/series?date_from=2026-02-01&date_to=2026-02-02&granularity=day', key);
    expect(Object.keys(response.body.data)).toEqual(['series']);
    expect(response.body.data.series).toEqual([
      bucket('2026-02-01T00:00:00.000+00:00', '2026-02-02T00:00:00.000+00:00', 1),
      bucket('2026-02-02T00:00:00.000+00:00', '2026-02-03T00:00:00.000+00:00', 1),
    ]);
    expect(Object.keys(response.body.data.series[0])).toEqual(SERIES_FIELDS);
    const utc = await ok('/api/v1/metrics/series?date_from=2026-02-01&date_to=2026-02-02&granularity=day&timezone=UTC', key);
    expect(stable(utc)).toBe(stable(response));
  });
});

describe('local days', () => {
  it('Europe/Madrid: 23:30 local is on that local date; local midnight is the first instant of the next', async () => {
    const { key } = await clinicWith([
      '2026-02-10T22:30:00.000Z', // 23:30 on the 10th in Madrid
      '2026-02-10T22:59:59.999Z', // the 10th's last millisecond
      '2026-02-10T23:00:00.000Z', // 00:00 on the 11th
      '2026-02-11T22:59:59.999Z', // the 11th's last millisecond
      '2026-02-11T23:00:00.000Z', // the 12th
    ]);
    const range = 'date_from=2026-02-10&date_to=2026-02-11';
    expectSuccess(await get(app, `/api/v1/metrics/daily?${range}&timezone=Europe/Madrid`, key), { daily: [day('2026-02-10', 2), day('2026-02-11', 2)] });
    // The same rows by UTC days.
    expectSuccess(await get(app, `/api/v1/metrics/daily?${range}`, key), { daily: [day('2026-02-10', 3), day('2026-02-11', 2)] });
    expectSuccess(await get(app, '/api/v1/metrics/summary?date_from=2026-02-11&date_to=2026-02-11&timezone=Europe/Madrid', key), summaryOfCalls(2));
    expectSuccess(await get(app, '/api/v1/metrics/summary?date_from=2026-02-11&date_to=2026-02-11', key), summaryOfCalls(2));
    expectSuccess(await get(app, '/api/v1/metrics/summary?date_from=2026-02-10&date_to=2026-02-10&timezone=Europe/Madrid', key), summaryOfCalls(2));
    expectSuccess(await get(app, '/api/v1/metrics/summary?date_from=2026-02-10&date_to=2026-02-10', key), summaryOfCalls(3));
    // Date-times are instants whatever the zone.
    expectSuccess(
      await get(app, '/api/v1/metrics/summary?date_from=2026-02-10T22:59:59.999Z&date_to=2026-02-10T23:00:00.000Z&timezone=Europe/Madrid', key),
      summaryOfCalls(2),
    );
    expectSuccess(await get(app, `/api/v1/metrics/series?${range}&timezone=Europe/Madrid&granularity=day`, key), {
      series: [
        bucket('2026-02-10T00:00:00.000+01:00', '2026-02-11T00:00:00.000+01:00', 2),
        bucket('2026-02-11T00:00:00.000+01:00', '2026-02-12T00:00:00.000+01:00', 2),
      ],
    });
  });

  it('Europe/Madrid 2026-03-29 has 23 hours: no 02:00 bucket', async () => {
    const { key } = await clinicWith([
      '2026-03-29T00:59:59.999Z', // 01:59:59.999+01:00
      '2026-03-29T01:00:00.000Z', // 03:00:00.000+02:00
      '2026-03-28T22:59:59.999Z', // the 28th
    ]);
    const response = await ok('/api/v1/metrics/series?date_from=2026-03-29&date_to=2026-03-29&timezone=Europe/Madrid&granularity=hour', key);
    expect(response.body.data).toEqual({
      series: [
        bucket('2026-03-29T00:00:00.000+01:00', '2026-03-29T01:00:00.000+01:00'),
        bucket('2026-03-29T01:00:00.000+01:00', '2026-03-29T03:00:00.000+02:00', 1),
        ...hours('2026-03-29', 3, 23, '+02:00', { 3: 1 }, '2026-03-30T00:00:00.000+02:00'),
      ],
    });
    expect(response.body.data.series).toHaveLength(23);
    expectSuccess(await get(app, '/api/v1/metrics/daily?date_from=2026-03-28&date_to=2026-03-29&timezone=Europe/Madrid', key), {
      daily: [day('2026-03-28', 1), day('2026-03-29', 2)],
    });
    expectSuccess(await get(app, '/api/v1/metrics/series?date_from=2026-03-29&date_to=2026-03-29&timezone=Europe/Madrid&granularity=day', key), {
      series: [bucket('2026-03-29T00:00:00.000+01:00', '2026-03-30T00:00:00.000+02:00', 2)],
    });
  });

  it('Europe/Madrid 2026-10-25 has 25 hours: 02:00+02:00 and 02:00+01:00 are two buckets', async () => {
    const { key } = await clinicWith([
      '2026-10-25T00:30:00.000Z', // 02:30+02:00
      '2026-10-25T00:59:59.999Z', // 02:59:59.999+02:00
      '2026-10-25T01:00:00.000Z', // 02:00+01:00
      '2026-10-25T01:30:00.000Z', // 02:30+01:00
      '2026-10-25T22:59:59.999Z', // 23:59:59.999+01:00
    ]);
    const response = await ok('/api/v1/metrics/series?date_from=2026-10-25&date_to=2026-10-25&timezone=Europe/Madrid&granularity=hour', key);
    expect(response.body.data).toEqual({
      series: [
        ...hours('2026-10-25', 0, 1, '+02:00'),
        bucket('2026-10-25T02:00:00.000+02:00', '2026-10-25T02:00:00.000+01:00', 2),
        ...hours('2026-10-25', 2, 23, '+01:00', { 2: 2, 23: 1 }, '2026-10-26T00:00:00.000+01:00'),
      ],
    });
    expect(response.body.data.series).toHaveLength(25);
    expectSuccess(await get(app, '/api/v1/metrics/daily?date_from=2026-10-25&date_to=2026-10-26&timezone=Europe/Madrid', key), {
      daily: [day('2026-10-25', 5), day('2026-10-26')],
    });
    expectSuccess(await get(app, '/api/v1/metrics/series?date_from=2026-10-25&date_to=2026-10-25&timezone=Europe/Madrid&granularity=day', key), {
      series: [bucket('2026-10-25T00:00:00.000+02:00', '2026-10-26T00:00:00.000+01:00', 5)],
    });
    // A window inside the fold: from the first 02:30 to the second.
    expectSuccess(
      await get(
        app,
        '/api/v1/metrics/series?date_from=2026-10-25T02:30:00%2B02:00&date_to=2026-10-25T02:30:00%2B01:00&timezone=Europe/Madrid&granularity=hour',
        key,
      ),
      {
        series: [
          bucket('2026-10-25T02:30:00.000+02:00', '2026-10-25T02:00:00.000+01:00', 2),
          bucket('2026-10-25T02:00:00.000+01:00', '2026-10-25T02:30:00.001+01:00', 2),
        ],
      },
    );
  });

  it('Asia/Kathmandu (+05:45): hours start at :15 UTC', async () => {
    const { key } = await clinicWith(
      [
        '2026-04-30T18:14:59.999Z', // 23:59:59.999 on the 30th
        '2026-04-30T18:15:00.000Z', // 00:00 on 1 May
        '2026-04-30T19:14:59.999Z', // 00:59:59.999
        '2026-04-30T19:15:00.000Z', // 01:00
      ],
      'Asia/Kathmandu',
    );
    const response = await ok('/api/v1/metrics/series?date_from=2026-05-01&date_to=2026-05-01&timezone=Asia/Kathmandu&granularity=hour', key);
    expect(response.body.data).toEqual({ series: hours('2026-05-01', 0, 23, '+05:45', { 0: 2, 1: 1 }, '2026-05-02T00:00:00.000+05:45') });
    expectSuccess(await get(app, '/api/v1/metrics/daily?date_from=2026-04-30&date_to=2026-05-01&timezone=Asia/Kathmandu', key), {
      daily: [day('2026-04-30', 1), day('2026-05-01', 3)],
    });
    // A date-time bound inside an hour starts the first bucket there.
    const cut = await ok(
      '/api/v1/metrics/series?date_from=2026-05-01T00:30:00%2B05:45&date_to=2026-04-30T19:15:00.000Z&timezone=Asia/Kathmandu&granularity=hour',
      key,
    );
    expect(cut.body.data).toEqual({
      series: [
        bucket('2026-05-01T00:30:00.000+05:45', '2026-05-01T01:00:00.000+05:45', 1),
        bucket('2026-05-01T01:00:00.000+05:45', '2026-05-01T01:00:00.001+05:45', 1),
      ],
    });
  });

  it('Pacific/Apia skipped 2011-12-30: listed by daily with zeros, no day bucket in series', async () => {
    const { key } = await clinicWith(['2011-12-30T09:59:59.999Z', '2011-12-30T10:00:00.000Z'], 'Pacific/Apia');
    expectSuccess(await get(app, '/api/v1/metrics/daily?date_from=2011-12-29&date_to=2011-12-31&timezone=Pacific/Apia', key), {
      daily: [day('2011-12-29', 1), day('2011-12-30'), day('2011-12-31', 1)],
    });
    expectSuccess(await get(app, '/api/v1/metrics/series?date_from=2011-12-29&date_to=2011-12-31&timezone=Pacific/Apia&granularity=day', key), {
      series: [
        bucket('2011-12-29T00:00:00.000-10:00', '2011-12-31T00:00:00.000+14:00', 1),
        bucket('2011-12-31T00:00:00.000+14:00', '2012-01-01T00:00:00.000+14:00', 1),
      ],
    });
  });

  it('Africa/Casablanca 2008-06-02, the day after clocks went from 00:00 to 01:00 on the 1st, starts at its local midnight', async () => {
    const { key } = await clinicWith(['2008-06-01T22:59:59.999Z', '2008-06-01T23:00:00.000Z'], 'Africa/Casablanca');
    // 2008-06-01T23:00:00Z is 2008-06-02 00:00:00 at +01:00 (PostgreSQL: AT TIME ZONE 'Africa/Casablanca').
    expectSuccess(await get(app, '/api/v1/metrics/summary?date_from=2008-06-02&date_to=2008-06-02&timezone=Africa/Casablanca', key), summaryOfCalls(1));
    expectSuccess(await get(app, '/api/v1/metrics/daily?date_from=2008-06-01&date_to=2008-06-02&timezone=Africa/Casablanca', key), {
      daily: [day('2008-06-01', 1), day('2008-06-02', 1)],
    });
    expectSuccess(await get(app, '/api/v1/metrics/series?date_from=2008-06-01&date_to=2008-06-02&timezone=Africa/Casablanca&granularity=day', key), {
      series: [
        bucket('2008-06-01T01:00:00.000+01:00', '2008-06-02T00:00:00.000+01:00', 1),
        bucket('2008-06-02T00:00:00.000+01:00', '2008-06-03T00:00:00.000+01:00', 1),
      ],
    });
  });

  it('America/St_Johns fell back at 00:01 until 2011: daily and day buckets group by the local date, hours by local hour and offset', async () => {
    // 2001-10-28 00:01 NDT (-02:30) became 2001-10-27 23:01 NST (-03:30).
    const { key } = await clinicWith(['2001-10-28T02:30:30.000Z', '2001-10-28T02:45:00.000Z'], 'America/St_Johns');
    // 02:30:30Z is 00:00:30 on the 28th (-02:30); 02:45Z is 23:15 on the 27th again (-03:30).
    expectSuccess(await get(app, '/api/v1/metrics/daily?date_from=2001-10-27&date_to=2001-10-28&timezone=America/St_Johns', key), {
      daily: [day('2001-10-27', 1), day('2001-10-28', 1)],
    });
    // Day buckets: one per local date, the exact set of its instants, so these two overlap (the
    // contract leaves the case open; this is the API's reading).
    expectSuccess(await get(app, '/api/v1/metrics/series?date_from=2001-10-27&date_to=2001-10-28&timezone=America/St_Johns&granularity=day', key), {
      series: [
        bucket('2001-10-27T00:00:00.000-02:30', '2001-10-28T00:00:00.000-03:30', 1),
        bucket('2001-10-28T00:00:00.000-02:30', '2001-10-29T00:00:00.000-03:30', 1),
      ],
    });
    expectSuccess(
      await get(
        app,
        '/api/v1/metrics/series?date_from=2001-10-27T23:00:00-02:30&date_to=2001-10-28T00:30:00-03:30&timezone=America/St_Johns&granularity=hour',
        key,
      ),
      {
        series: [
          bucket('2001-10-27T23:00:00.000-02:30', '2001-10-28T00:00:00.000-02:30'),
          bucket('2001-10-28T00:00:00.000-02:30', '2001-10-27T23:01:00.000-03:30', 1),
          bucket('2001-10-27T23:01:00.000-03:30', '2001-10-28T00:00:00.000-03:30', 1),
          bucket('2001-10-28T00:00:00.000-03:30', '2001-10-28T00:30:00.001-03:30'),
        ],
      },
    );
  });

  it('offsets with seconds: America/New_York took standard time at 12:03:58 local mean time on 1883-11-18', async () => {
    const { key } = await clinicWith(['1883-11-18T16:59:59.000Z', '1883-11-18T17:00:00.000Z'], 'America/New_York');
    // 16:59:59Z = 12:03:57 at -04:56:02; 17:00:00Z = 12:00:00 at -05:00 (the clocks went back 3 min 58 s).
    const response = await ok('/api/v1/metrics/series?date_from=1883-11-18&date_to=1883-11-18&timezone=America/New_York&granularity=hour', key);
    const series = response.body.data.series;
    expect(series).toHaveLength(25);
    expect(series[0].start).toBe('1883-11-18T00:00:00.000-04:56:02');
    expect(series.slice(11, 14)).toEqual([
      bucket('1883-11-18T11:00:00.000-04:56:02', '1883-11-18T12:00:00.000-04:56:02'),
      bucket('1883-11-18T12:00:00.000-04:56:02', '1883-11-18T12:00:00.000-05:00', 1),
      bucket('1883-11-18T12:00:00.000-05:00', '1883-11-18T13:00:00.000-05:00', 1),
    ]);
    expect(series[24].end).toBe('1883-11-19T00:00:00.000-05:00');
    expectSuccess(await get(app, '/api/v1/metrics/series?date_from=1883-11-18&date_to=1883-11-18&timezone=America/New_York&granularity=day', key), {
      series: [bucket('1883-11-18T00:00:00.000-04:56:02', '1883-11-19T00:00:00.000-05:00', 2)],
    });
    // Africa/Monrovia kept -00:44:30 until 1972: local midnight is 00:44:30 UTC. (Not Europe/Amsterdam's
    // +00:19:32 of the 1930s: newer tz database releases make Amsterdam a link to Brussels, so the
    // answer depends on the server's release; Monrovia's is the same in every recent one.)
    const monrovia = await clinicWith(['1960-01-15T00:44:29.999Z', '1960-01-15T00:44:30.000Z'], 'Africa/Monrovia');
    expectSuccess(await get(app, '/api/v1/metrics/series?date_from=1960-01-15&date_to=1960-01-15&timezone=Africa/Monrovia&granularity=day', monrovia.key), {
      series: [bucket('1960-01-15T00:00:00.000-00:44:30', '1960-01-16T00:00:00.000-00:44:30', 1)],
    });
  });

  it('buckets split only where the local hour or the offset changes (America/North_Dakota/Beulah, 2034-11-04..05)', async () => {
    const { key } = await clinicWith([], 'America/North_Dakota/Beulah');
    const response = await ok(
      '/api/v1/metrics/series?date_from=2034-11-04T05:00:00.000Z&date_to=2034-11-05&timezone=America/North_Dakota/Beulah&granularity=hour',
      key,
    );
    expect(response.body.data.series).toEqual([
      ...hours('2034-11-04', 0, 23, '-05:00', {}, '2034-11-05T00:00:00.000-05:00'),
      ...hours('2034-11-05', 0, 0, '-05:00'),
      bucket('2034-11-05T01:00:00.000-05:00', '2034-11-05T01:00:00.000-06:00'),
      ...hours('2034-11-05', 1, 23, '-06:00', {}, '2034-11-06T00:00:00.000-06:00'),
    ]);
  });
});

describe('outcomes in a zone', () => {
  it('an outcome outside the nine common ones counts as it does in UTC', async () => {
    const { key } = await clinicWith([], 'Europe/Madrid', [
      { clinicId: '', outcome: 'FOLLOW_UP', startedAt: new Date('2026-02-10T10:00:00.000Z') },
      { clinicId: '', outcome: 'APPOINTMENT_BOOKED', startedAt: new Date('2026-02-10T11:00:00.000Z') },
    ]);
    const expected = {
      outcomes: [
        { outcome: 'APPOINTMENT_BOOKED', label: 'Appointment Booked', count: 1, percentage: 50 },
        { outcome: 'FOLLOW_UP', label: 'Follow Up', count: 1, percentage: 50 },
      ],
      total: 2,
    };
    const range = 'date_from=2026-02-10&date_to=2026-02-10';
    expectSuccess(await get(app, `/api/v1/metrics/outcomes?${range}`, key), expected);
    expectSuccess(await get(app, `/api/v1/metrics/outcomes?${range}&timezone=Europe/Madrid`, key), expected);
    const summary = await ok(`/api/v1/metrics/summary?${range}&timezone=Europe/Madrid`, key);
    expect(summary.body.data.success_rate).toBe(50);
  });
});

describe('weeks, months, quarters and years', () => {
  it('weeks start on Monday 00:00 local and are cut to the window', async () => {
    const { key } = await clinicWith([
      '2026-03-08T22:59:59.999Z', // Sunday 8 March 23:59:59.999 in Madrid
      '2026-03-08T23:00:00.000Z', // Monday 9 March 00:00
      '2026-03-29T22:00:00.000Z', // Monday 30 March 00:00 (+02:00)
      '2026-04-01T21:59:59.999Z', // Wednesday 1 April 23:59:59.999, the window's last instant
    ]);
    expectSuccess(await get(app, '/api/v1/metrics/series?date_from=2026-03-04&date_to=2026-04-01&timezone=Europe/Madrid&granularity=week', key), {
      series: [
        bucket('2026-03-04T00:00:00.000+01:00', '2026-03-09T00:00:00.000+01:00', 1),
        bucket('2026-03-09T00:00:00.000+01:00', '2026-03-16T00:00:00.000+01:00', 1),
        bucket('2026-03-16T00:00:00.000+01:00', '2026-03-23T00:00:00.000+01:00'),
        bucket('2026-03-23T00:00:00.000+01:00', '2026-03-30T00:00:00.000+02:00'),
        bucket('2026-03-30T00:00:00.000+02:00', '2026-04-02T00:00:00.000+02:00', 2),
      ],
    });
  });

  it('months, quarters and years of the local calendar, the first and last cut to the window', async () => {
    const { key } = await clinicWith([
      '2026-01-14T22:59:59.999Z', // before the window
      '2026-01-14T23:00:00.000Z', // 15 January 00:00, the first instant
      '2026-03-31T21:59:59.999Z', // 31 March 23:59:59.999 (+02:00)
      '2026-03-31T22:00:00.000Z', // 1 April 00:00 (+02:00)
      '2026-12-31T22:59:59.999Z', // 31 December 23:59:59.999 (+01:00)
      '2026-12-31T23:00:00.000Z', // 1 January 2027
      '2027-02-10T22:59:59.999Z', // 10 February 2027 23:59:59.999, the last instant
    ]);
    const range = 'date_from=2026-01-15&date_to=2027-02-10&timezone=Europe/Madrid';
    const months = await ok(`/api/v1/metrics/series?${range}&granularity=month`, key);
    const starts = [
      '2026-01-15T00:00:00.000+01:00',
      '2026-02-01T00:00:00.000+01:00',
      '2026-03-01T00:00:00.000+01:00',
      '2026-04-01T00:00:00.000+02:00',
      '2026-05-01T00:00:00.000+02:00',
      '2026-06-01T00:00:00.000+02:00',
      '2026-07-01T00:00:00.000+02:00',
      '2026-08-01T00:00:00.000+02:00',
      '2026-09-01T00:00:00.000+02:00',
      '2026-10-01T00:00:00.000+02:00',
      '2026-11-01T00:00:00.000+01:00',
      '2026-12-01T00:00:00.000+01:00',
      '2027-01-01T00:00:00.000+01:00',
      '2027-02-01T00:00:00.000+01:00',
      '2027-02-11T00:00:00.000+01:00',
    ];
    const counts: Record<number, number> = { 0: 1, 2: 1, 3: 1, 11: 1, 12: 1, 13: 1 };
    expect(months.body.data).toEqual({ series: starts.slice(0, -1).map((start, i) => bucket(start, starts[i + 1]!, counts[i] ?? 0)) });

    expectSuccess(await get(app, `/api/v1/metrics/series?${range}&granularity=quarter`, key), {
      series: [
        bucket('2026-01-15T00:00:00.000+01:00', '2026-04-01T00:00:00.000+02:00', 2),
        bucket('2026-04-01T00:00:00.000+02:00', '2026-07-01T00:00:00.000+02:00', 1),
        bucket('2026-07-01T00:00:00.000+02:00', '2026-10-01T00:00:00.000+02:00'),
        bucket('2026-10-01T00:00:00.000+02:00', '2027-01-01T00:00:00.000+01:00', 1),
        bucket('2027-01-01T00:00:00.000+01:00', '2027-02-11T00:00:00.000+01:00', 2),
      ],
    });
    expectSuccess(await get(app, `/api/v1/metrics/series?${range}&granularity=year`, key), {
      series: [
        bucket('2026-01-15T00:00:00.000+01:00', '2027-01-01T00:00:00.000+01:00', 4),
        bucket('2027-01-01T00:00:00.000+01:00', '2027-02-11T00:00:00.000+01:00', 2),
      ],
    });
    expectSuccess(await get(app, `/api/v1/metrics/summary?${range}`, key), summaryOfCalls(6));
  });

  it('a bucket of one millisecond at the end of the window is listed', async () => {
    const { key } = await clinicWith(['2026-02-10T23:00:00.000Z']);
    expectSuccess(await get(app, '/api/v1/metrics/series?date_from=2026-02-10&date_to=2026-02-10T23:00:00.000Z&timezone=Europe/Madrid&granularity=day', key), {
      series: [
        bucket('2026-02-10T00:00:00.000+01:00', '2026-02-11T00:00:00.000+01:00'),
        bucket('2026-02-11T00:00:00.000+01:00', '2026-02-11T00:00:00.001+01:00', 1),
      ],
    });
  });
});

describe('compare', () => {
  // Current window 2026-02-10..14 in Madrid; the previous period is 2026-02-05..09.
  const CURRENT: InteractionInput[] = [
    { clinicId: '', durationSeconds: 10, outcome: 'APPOINTMENT_BOOKED', startedAt: new Date('2026-02-09T23:00:00.000Z') }, // 10th 00:00
    { clinicId: '', durationSeconds: 20, outcome: 'APPOINTMENT_BOOKED', startedAt: new Date('2026-02-12T12:00:00.000Z') },
    { clinicId: '', durationSeconds: 30, outcome: 'NO_ANSWER', startedAt: new Date('2026-02-14T22:59:59.999Z') }, // 14th 23:59:59.999
  ];
  const PREVIOUS: InteractionInput[] = [
    { clinicId: '', durationSeconds: 10, outcome: 'APPOINTMENT_BOOKED', startedAt: new Date('2026-02-04T23:00:00.000Z') }, // 5th 00:00
    { clinicId: '', durationSeconds: 10, outcome: 'NO_ANSWER', startedAt: new Date('2026-02-07T10:00:00.000Z') },
    { clinicId: '', durationSeconds: 20, outcome: 'NO_ANSWER', startedAt: new Date('2026-02-09T22:59:59.999Z') }, // 9th 23:59:59.999
    { clinicId: '', channel: 'whatsapp', type: 'INBOUND', outcome: null, startedAt: new Date('2026-02-08T10:00:00.000Z') },
  ];
  const OUTSIDE: InteractionInput[] = [{ clinicId: '', startedAt: new Date('2026-02-04T22:59:59.999Z') }]; // 4th 23:59:59.999

  const currentSummary = {
    total_interactions: 3,
    total_calls: 3,
    total_conversations: 0,
    inbound_count: 3,
    outbound_count: 0,
    avg_duration_seconds: 20,
    total_duration_seconds: 60,
    success_rate: 66.67,
    appointments_scheduled: 2,
  };
  const previousSummary = {
    total_interactions: 4,
    total_calls: 3,
    total_conversations: 1,
    inbound_count: 4,
    outbound_count: 0,
    avg_duration_seconds: 13.33,
    total_duration_seconds: 40,
    success_rate: 33.33,
    appointments_scheduled: 1,
  };

  it('previous_period with date bounds: the same number of local days just before; change in percent of the reported figures', async () => {
    const { key } = await clinicWith([], 'Europe/Madrid', [...CURRENT, ...PREVIOUS, ...OUTSIDE]);
    const range = 'date_from=2026-02-10&date_to=2026-02-14&timezone=Europe/Madrid&compare=previous_period';
    const summary = await ok(`/api/v1/metrics/summary?${range}`, key);
    expect(summary.body.data).toEqual({
      ...currentSummary,
      previous: previousSummary,
      change: {
        total_interactions: -25,
        total_calls: 0,
        total_conversations: -100,
        inbound_count: -25,
        outbound_count: null,
        avg_duration_seconds: 50.04, // (20 - 13.33) / 13.33, not (20 - 40/3) / (40/3)
        total_duration_seconds: 50,
        success_rate: 100.03, // (66.67 - 33.33) / 33.33
        appointments_scheduled: 100,
      },
    });
    expect(Object.keys(summary.body.data)).toEqual([...Object.keys(ZERO_SUMMARY), 'previous', 'change']);
    expect(Object.keys(summary.body.data.change)).toEqual(Object.keys(ZERO_SUMMARY));

    const daily = await ok(`/api/v1/metrics/daily?${range}`, key);
    expect(Object.keys(daily.body.data)).toEqual(['daily', 'previous']);
    expect(daily.body.data.daily.map((d: { date: string }) => d.date)).toEqual(['2026-02-10', '2026-02-11', '2026-02-12', '2026-02-13', '2026-02-14']);
    expect(daily.body.data.previous.daily.map((d: { date: string; total: number }) => [d.date, d.total])).toEqual([
      ['2026-02-05', 1],
      ['2026-02-06', 0],
      ['2026-02-07', 1],
      ['2026-02-08', 1],
      ['2026-02-09', 1],
    ]);

    const outcomes = await ok(`/api/v1/metrics/outcomes?${range}`, key);
    expect(outcomes.body.data).toEqual({
      outcomes: [
        { outcome: 'APPOINTMENT_BOOKED', label: 'Appointment Booked', count: 2, percentage: 66.67 },
        { outcome: 'NO_ANSWER', label: 'No Answer', count: 1, percentage: 33.33 },
      ],
      total: 3,
      previous: {
        outcomes: [
          { outcome: 'NO_ANSWER', label: 'No Answer', count: 2, percentage: 66.67 },
          { outcome: 'APPOINTMENT_BOOKED', label: 'Appointment Booked', count: 1, percentage: 33.33 },
        ],
        total: 3,
      },
    });

    const series = await ok(`/api/v1/metrics/series?${range}&granularity=week`, key);
    const brief = (buckets: Array<{ start: string; end: string; total: number }>) => buckets.map((b) => [b.start, b.end, b.total]);
    expect(brief(series.body.data.series)).toEqual([['2026-02-10T00:00:00.000+01:00', '2026-02-15T00:00:00.000+01:00', 3]]);
    expect(brief(series.body.data.previous.series)).toEqual([
      ['2026-02-05T00:00:00.000+01:00', '2026-02-09T00:00:00.000+01:00', 3],
      ['2026-02-09T00:00:00.000+01:00', '2026-02-10T00:00:00.000+01:00', 1],
    ]);
  });

  it('previous_period with date-time bounds: the window shifted back by its length', async () => {
    const { key } = await clinicWith(['2026-02-10T07:59:59.999Z', '2026-02-10T08:00:00.000Z', '2026-02-10T09:59:59.999Z', '2026-02-10T10:00:00.000Z']);
    const range = 'date_from=2026-02-10T10:00:00Z&date_to=2026-02-10T11:59:59.999Z&timezone=Europe/Madrid&compare=previous_period';
    expectSuccess(await get(app, `/api/v1/metrics/series?${range}&granularity=hour`, key), {
      series: [
        bucket('2026-02-10T11:00:00.000+01:00', '2026-02-10T12:00:00.000+01:00', 1),
        bucket('2026-02-10T12:00:00.000+01:00', '2026-02-10T13:00:00.000+01:00'),
      ],
      previous: {
        series: [
          bucket('2026-02-10T09:00:00.000+01:00', '2026-02-10T10:00:00.000+01:00', 1),
          bucket('2026-02-10T10:00:00.000+01:00', '2026-02-10T11:00:00.000+01:00', 1),
        ],
      },
    });
    const summary = await ok(`/api/v1/metrics/summary?${range}`, key);
    expect(summary.body.data.total_interactions).toBe(1);
    expect(summary.body.data.previous.total_interactions).toBe(2);
    expect(summary.body.data.change.total_interactions).toBe(-50);
  });

  it('previous_period across a DST change counts local days, not 24-hour periods', async () => {
    const { key } = await clinicWith(['2026-03-22T23:00:00.000Z', '2026-03-22T22:59:59.999Z']); // 23 March 00:00, and the 22nd
    const response = await ok(
      '/api/v1/metrics/series?date_from=2026-03-30&date_to=2026-04-05&timezone=Europe/Madrid&granularity=day&compare=previous_period',
      key,
    );
    const previous = response.body.data.previous.series as Array<{ start: string; end: string; total: number }>;
    expect(previous.map((b) => b.start)).toEqual([
      '2026-03-23T00:00:00.000+01:00',
      '2026-03-24T00:00:00.000+01:00',
      '2026-03-25T00:00:00.000+01:00',
      '2026-03-26T00:00:00.000+01:00',
      '2026-03-27T00:00:00.000+01:00',
      '2026-03-28T00:00:00.000+01:00',
      '2026-03-29T00:00:00.000+01:00',
    ]);
    expect(previous[6]!.end).toBe('2026-03-30T00:00:00.000+02:00');
    expect(previous.map((b) => b.total)).toEqual([1, 0, 0, 0, 0, 0, 0]);
  });

  it('previous_year: the same local dates a year earlier, 29 February as 28 February', async () => {
    const { key } = await clinicWith(['2027-02-27T23:00:00.000Z', '2027-02-27T22:59:59.999Z', '2027-03-01T22:59:59.999Z']); // 28 Feb 00:00; the 27th; 1 March 23:59:59.999
    const leap = await ok('/api/v1/metrics/daily?date_from=2028-02-29&date_to=2028-03-01&timezone=Europe/Madrid&compare=previous_year', key);
    expect(leap.body.data).toEqual({ daily: [day('2028-02-29'), day('2028-03-01')], previous: { daily: [day('2027-02-28', 1), day('2027-03-01', 1)] } });
    const february = await ok('/api/v1/metrics/daily?date_from=2028-02-01&date_to=2028-02-29&timezone=Europe/Madrid&compare=previous_year', key);
    expect(february.body.data.daily).toHaveLength(29);
    expect(february.body.data.previous.daily).toHaveLength(28);
    expect(february.body.data.previous.daily.at(-1)).toEqual(day('2027-02-28', 1));
    const summary = await ok('/api/v1/metrics/summary?date_from=2028-02-29&date_to=2028-02-29&timezone=Europe/Madrid&compare=previous_year', key);
    expect(summary.body.data.previous).toEqual(summaryOfCalls(1));
    expect(summary.body.data.change).toEqual(
      Object.fromEntries(Object.keys(ZERO_SUMMARY).map((k) => [k, k === 'total_conversations' || k === 'outbound_count' ? null : -100])),
    );
  });

  it('previous_year with date-time bounds: a year earlier in local wall-clock time, converted back in the zone', async () => {
    // 2026-03-29T12:00Z is 14:00 (+02:00); 14:00 on 2025-03-29 was still +01:00, i.e. 13:00Z (not 12:00Z).
    const { key } = await clinicWith(['2025-03-29T12:00:00.000Z', '2025-03-29T13:00:00.000Z', '2025-03-29T14:00:00.000Z', '2025-03-29T14:00:00.001Z']);
    const response = await ok(
      '/api/v1/metrics/series?date_from=2026-03-29T12:00:00Z&date_to=2026-03-29T13:00:00Z&timezone=Europe/Madrid&granularity=hour&compare=previous_year',
      key,
    );
    expect(response.body.data.previous).toEqual({
      series: [
        bucket('2025-03-29T14:00:00.000+01:00', '2025-03-29T15:00:00.000+01:00', 1),
        bucket('2025-03-29T15:00:00.000+01:00', '2025-03-29T15:00:00.001+01:00', 1),
      ],
    });
    const leap = await ok(
      '/api/v1/metrics/summary?date_from=2028-02-29T10:00:00%2B01:00&date_to=2028-02-29T12:00:00%2B01:00&timezone=Europe/Madrid&compare=previous_year',
      key,
    );
    expect(leap.body.data.previous).toEqual(ZERO_SUMMARY);
    const { key: leapKey } = await clinicWith(['2027-02-28T08:59:59.999Z', '2027-02-28T09:00:00.000Z', '2027-02-28T11:00:00.000Z', '2027-02-28T11:00:00.001Z']);
    const leap2 = await ok(
      '/api/v1/metrics/summary?date_from=2028-02-29T10:00:00%2B01:00&date_to=2028-02-29T12:00:00%2B01:00&timezone=Europe/Madrid&compare=previous_year',
      leapKey,
    );
    expect(leap2.body.data.previous.total_interactions).toBe(2);
  });

  it('a year of hours with previous_year (17,520 buckets, built and written in time slices) adds up to the daily figures, in order, with a stable ETag', async () => {
    const { key } = await clinicWith(
      [
        '2024-05-01T00:20:00.000Z', // 06:05 on 1 May 2024, in the previous year's window
        '2026-01-15T12:00:00.000Z', // 17:45 on 15 January
        '2026-04-30T18:14:59.999Z', // 23:59:59.999 on 30 April, the window's last instant
        '2026-04-30T18:15:00.000Z', // 1 May 2026: outside
      ],
      'Asia/Kathmandu',
    );
    const window = 'date_from=2025-05-01&date_to=2026-04-30&timezone=Asia/Kathmandu';
    const response = await ok(`/api/v1/metrics/series?${window}&granularity=hour&compare=previous_year`, key);
    const data = response.body.data as { series: Array<ReturnType<typeof bucket>>; previous: { series: Array<ReturnType<typeof bucket>> } };
    expect(data.series).toHaveLength(8_760);
    expect(data.previous.series).toHaveLength(8_760);
    expect(data.series[0]).toEqual(bucket('2025-05-01T00:00:00.000+05:45', '2025-05-01T01:00:00.000+05:45'));
    expect(data.series.at(-1)).toEqual(bucket('2026-04-30T23:00:00.000+05:45', '2026-05-01T00:00:00.000+05:45', 1));
    for (const list of [data.series, data.previous.series]) for (let i = 1; i < list.length; i++) expect(list[i]!.start).toBe(list[i - 1]!.end);
    // Per local date, the hours add up to /metrics/daily's figures for the same window.
    const daily = await ok(`/api/v1/metrics/daily?${window}&compare=previous_year`, key);
    const perDay = (list: Array<{ start: string; total: number }>) => {
      const totals = new Map<string, number>();
      for (const b of list) totals.set(b.start.slice(0, 10), (totals.get(b.start.slice(0, 10)) ?? 0) + b.total);
      return totals;
    };
    const days = daily.body.data as { daily: Array<{ date: string; total: number }>; previous: { daily: Array<{ date: string; total: number }> } };
    expect(perDay(data.series)).toEqual(new Map(days.daily.map((d) => [d.date, d.total])));
    expect(perDay(data.previous.series)).toEqual(new Map(days.previous.daily.map((d) => [d.date, d.total])));
    expect(data.series.filter((b) => b.total > 0).map((b) => b.start)).toEqual(['2026-01-15T17:00:00.000+05:45', '2026-04-30T23:00:00.000+05:45']);
    expect(data.previous.series.filter((b) => b.total > 0).map((b) => b.start)).toEqual(['2024-05-01T06:00:00.000+05:45']);
    // The same bytes and ETag again (the sliced serializer and hash are deterministic); 304 for it.
    const again = await ok(`/api/v1/metrics/series?${window}&granularity=hour&compare=previous_year`, key);
    expect(stable(again)).toBe(stable(response));
    expect(again.headers.get('etag')).toBe(response.headers.get('etag'));
    const revalidated = await get(app, `/api/v1/metrics/series?${window}&granularity=hour&compare=previous_year`, key, {
      'If-None-Match': response.headers.get('etag')!,
    });
    expect(revalidated.status).toBe(304);
  });

  it('change is null where the previous figure is 0', async () => {
    const { key } = await clinicWith(['2026-02-12T12:00:00.000Z']);
    const response = await ok('/api/v1/metrics/summary?date_from=2026-02-10&date_to=2026-02-14&timezone=Europe/Madrid&compare=previous_period', key);
    expect(response.body.data).toEqual({
      ...summaryOfCalls(1),
      previous: ZERO_SUMMARY,
      change: Object.fromEntries(Object.keys(ZERO_SUMMARY).map((k) => [k, null])),
    });
  });

  it('compare without timezone compares UTC days', async () => {
    const { key } = await clinicWith(['2026-02-09T23:30:00.000Z']);
    const response = await ok('/api/v1/metrics/daily?date_from=2026-02-10&date_to=2026-02-11&compare=previous_period', key);
    expect(response.body.data).toEqual({ daily: [day('2026-02-10'), day('2026-02-11')], previous: { daily: [day('2026-02-08'), day('2026-02-09', 1)] } });
  });
});

describe('timezone=clinic', () => {
  it('uses the time zone of the clinic named by clinic_id', async () => {
    const { clinicId, key } = await clinicWith(['2026-04-30T18:15:00.000Z'], 'Asia/Kathmandu');
    for (const name of ['daily', 'summary', 'outcomes']) {
      const byClinic = await ok(`/api/v1/metrics/${name}?date_from=2026-05-01&date_to=2026-05-01&timezone=clinic&clinic_id=${clinicId}`, key);
      const byName = await ok(`/api/v1/metrics/${name}?date_from=2026-05-01&date_to=2026-05-01&timezone=Asia/Kathmandu&clinic_id=${clinicId}`, key);
      expect(byClinic.body.data, name).toEqual(byName.body.data);
    }
    const series = await ok(
      `/api/v1/metrics/series?date_from=2026-05-01&date_to=2026-05-01&timezone=clinic&clinic_id=${clinicId.toUpperCase()}&granularity=day`,
      key,
    );
    expect(series.body.data).toEqual({ series: [bucket('2026-05-01T00:00:00.000+05:45', '2026-05-02T00:00:00.000+05:45', 1)] });
  });

  it('a clinic the key may not see, or none: as UTC, with zeros (200)', async () => {
    const other = await clinicWith(['2026-05-01T10:00:00.000Z'], 'Asia/Kathmandu');
    const { key } = await clinicWith(['2026-05-01T10:00:00.000Z']);
    for (const clinicId of [other.clinicId, UNKNOWN_CLINIC]) {
      const query = `date_from=2026-05-01&date_to=2026-05-02&timezone=clinic&clinic_id=${clinicId}`;
      expectSuccess(await get(app, `/api/v1/metrics/series?${query}&granularity=day`, key), {
        series: [
          bucket('2026-05-01T00:00:00.000+00:00', '2026-05-02T00:00:00.000+00:00'),
          bucket('2026-05-02T00:00:00.000+00:00', '2026-05-03T00:00:00.000+00:00'),
        ],
      });
      expectSuccess(await get(app, `/api/v1/metrics/daily?${query}`, key), { daily: [day('2026-05-01'), day('2026-05-02')] });
      expectSuccess(await get(app, `/api/v1/metrics/summary?${query}`, key), ZERO_SUMMARY);
      expectSuccess(await get(app, `/api/v1/metrics/outcomes?${query}`, key), { outcomes: [], total: 0 });
      expectSuccess(await get(app, `/api/v1/metrics/summary?${query}&compare=previous_period`, key), {
        ...ZERO_SUMMARY,
        previous: ZERO_SUMMARY,
        change: Object.fromEntries(Object.keys(ZERO_SUMMARY).map((k) => [k, null])),
      });
    }
  });

  it('without clinic_id: 400 naming timezone', async () => {
    const { key } = await clinicWith([]);
    for (const path of ['/api/v1/metrics/summary', '/api/v1/metrics/daily', '/api/v1/metrics/outcomes', '/api/v1/metrics/series?granularity=day']) {
      expectValidationError(await get(app, `${path}${path.includes('?') ? '&' : '?'}timezone=clinic`, key), ['timezone']);
    }
  });
});

describe("the key's clinic restriction", () => {
  it('applies to series and zoned daily: other clinics count as nothing, also when named', async () => {
    const a = await clinicWith(['2026-02-10T12:00:00.000Z']);
    const b = await clinicWith(['2026-02-10T12:00:00.000Z', '2026-02-10T13:00:00.000Z']);
    const range = 'date_from=2026-02-10&date_to=2026-02-10&timezone=Europe/Madrid';
    expectSuccess(await get(app, `/api/v1/metrics/series?${range}&granularity=day`, a.key), {
      series: [bucket('2026-02-10T00:00:00.000+01:00', '2026-02-11T00:00:00.000+01:00', 1)],
    });
    expectSuccess(await get(app, `/api/v1/metrics/series?${range}&granularity=day&clinic_id=${b.clinicId}`, a.key), {
      series: [bucket('2026-02-10T00:00:00.000+01:00', '2026-02-11T00:00:00.000+01:00')],
    });
    expectSuccess(await get(app, `/api/v1/metrics/daily?${range}&clinic_id=${b.clinicId}`, a.key), { daily: [day('2026-02-10')] });
    expectSuccess(await get(app, `/api/v1/metrics/summary?${range}&clinic_id=${b.clinicId}&compare=previous_year`, a.key), {
      ...ZERO_SUMMARY,
      previous: ZERO_SUMMARY,
      change: Object.fromEntries(Object.keys(ZERO_SUMMARY).map((k) => [k, null])),
    });
    const both = await createKey(db, { clinicIds: [a.clinicId, b.clinicId] });
    expectSuccess(await get(app, `/api/v1/metrics/series?${range}&granularity=day`, both), {
      series: [bucket('2026-02-10T00:00:00.000+01:00', '2026-02-11T00:00:00.000+01:00', 3)],
    });
  });
});

describe('the window in the zone', () => {
  it('date_from and date_to are compared as the instants they mean in the zone', async () => {
    const { key } = await clinicWith(['2026-02-10T23:15:00.000Z']);
    // 2026-02-11 starts at 2026-02-10T23:00Z in Madrid: before 23:30Z.
    expectSuccess(await get(app, '/api/v1/metrics/summary?date_from=2026-02-11&date_to=2026-02-10T23:30:00Z&timezone=Europe/Madrid', key), summaryOfCalls(1));
    expectSuccess(await get(app, '/api/v1/metrics/daily?date_from=2026-02-11&date_to=2026-02-10T23:30:00Z&timezone=Europe/Madrid', key), {
      daily: [day('2026-02-11', 1)],
    });
    // 2026-02-10 ends at 2026-02-10T22:59:59.999Z in Madrid: before 23:00Z.
    expectValidationError(await get(app, '/api/v1/metrics/summary?date_from=2026-02-10T23:00:00Z&date_to=2026-02-10&timezone=Europe/Madrid', key), [
      'date_from',
    ]);
    expectStatus(await get(app, '/api/v1/metrics/summary?date_from=2026-02-10T23:00:00Z&date_to=2026-02-10', key), 200);
  });

  it('a local day of year 1 or 9999 that reaches past 0001-01-01T00:00Z or 9999-12-31T23:59:59.999Z: counted, never a 500', async () => {
    const { key } = await clinicWith(['0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z']);
    // 0001-01-01 starts at 0000-12-31T18:18:44Z in Kathmandu (LMT +05:41:16); 9999-12-31 ends after
    // the last UTC instant in New York. Outcomes, breakdowns and durations read instants as UTC does.
    for (const [window, zone] of [
      ['date_from=0001-01-01&date_to=0001-01-01', 'Asia/Kathmandu'],
      ['date_from=9999-12-31&date_to=9999-12-31', 'America/New_York'],
    ]) {
      const query = `${window}&timezone=${zone}`;
      expectSuccess(await get(app, `/api/v1/metrics/outcomes?${query}`, key), {
        outcomes: [{ outcome: 'APPOINTMENT_BOOKED', label: 'Appointment Booked', count: 1, percentage: 100 }],
        total: 1,
      });
      expectSuccess(await get(app, `/api/v1/metrics/summary?${query}`, key), summaryOfCalls(1));
      const breakdown = await get(app, `/api/v1/metrics/breakdown?group_by=channel&${query}`, key);
      expectStatus(breakdown, 200);
      expect(breakdown.body.data.groups).toEqual([{ channel: 'voice', ...summaryOfCalls(1) }]);
      const durations = await get(app, `/api/v1/metrics/durations?${query}`, key);
      expectStatus(durations, 200);
      expect(durations.body.data.count).toBe(1);
    }
  });

  it('windows in years 1 to 99 read their own months (not those of 1901 to 1999)', async () => {
    const { key } = await clinicWith(['0050-06-15T12:00:00.000Z', '1950-06-15T12:00:00.000Z']);
    for (const path of ['summary', 'breakdown?group_by=channel', 'durations']) {
      const response = await get(app, `/api/v1/metrics/${path}${path.includes('?') ? '&' : '?'}date_from=0001-01-02&date_to=0099-12-31`, key);
      expectStatus(response, 200);
      const data = response.body.data;
      expect(data.total_interactions ?? data.groups?.[0]?.total_interactions ?? data.count, path).toBe(1);
    }
  });

  it('the default window: local today and the 30 local days before it', async () => {
    const fixed = testApp(db, { now: () => new Date('2031-06-15T22:30:00.000Z') }); // 16 June 00:30 in Madrid
    const { key } = await clinicWith([
      '2031-05-16T21:59:59.999Z', // 16 May 23:59:59.999 local: out
      '2031-05-16T22:00:00.000Z', // 17 May 00:00 local: the first instant
      '2031-06-16T21:59:59.999Z', // 16 June 23:59:59.999 local: the last instant
      '2031-06-16T22:00:00.000Z', // 17 June: out
    ]);
    const daily = await get(fixed, '/api/v1/metrics/daily?timezone=Europe/Madrid', key);
    expectStatus(daily, 200);
    const days = daily.body.data.daily as Array<{ date: string; total: number }>;
    expect(days).toHaveLength(31);
    expect([days[0], days[30]]).toEqual([day('2031-05-17', 1), day('2031-06-16', 1)]);
    expectSuccess(await get(fixed, '/api/v1/metrics/summary?timezone=Europe/Madrid', key), summaryOfCalls(2));
    const utc = await get(fixed, '/api/v1/metrics/daily', key);
    expect([utc.body.data.daily[0].date, utc.body.data.daily.at(-1).date]).toEqual(['2031-05-16', '2031-06-15']);
    const series = await get(fixed, '/api/v1/metrics/series?timezone=Europe/Madrid&granularity=month', key);
    expectSuccess(series, {
      series: [
        bucket('2031-05-17T00:00:00.000+02:00', '2031-06-01T00:00:00.000+02:00', 1),
        bucket('2031-06-01T00:00:00.000+02:00', '2031-06-17T00:00:00.000+02:00', 1),
      ],
    });
  });
});

describe('400s name the parameter', () => {
  const PATHS = ['/api/v1/metrics/summary', '/api/v1/metrics/daily', '/api/v1/metrics/outcomes', '/api/v1/metrics/series?granularity=day'];
  const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

  it.each([
    ['an unknown zone', 'timezone=Mars/Base'],
    ['a zone spelled in the wrong case', 'timezone=europe/madrid'],
    ['an empty zone', 'timezone='],
    ['a zone given twice', 'timezone=UTC&timezone=UTC'],
    ['a 10,000-character zone', `timezone=${'Europe/Madrid'.repeat(770).slice(0, 10_000)}`],
    ['a NUL', 'timezone=Europe/Madrid%00'],
    ['a newline', 'timezone=Europe%0AMadrid'],
    ['a path upwards', 'timezone=../../etc/passwd'],
    ['a path upwards inside a name', 'timezone=Europe/../Europe/Madrid'],
    ['a leading slash', 'timezone=/usr/share/zoneinfo/Europe/Madrid'],
    ['an offset', 'timezone=%2B01:00'],
  ])('timezone: %s', async (_name, query) => {
    const { key } = await clinicWith([]);
    for (const path of PATHS) {
      const response = await get(app, withQuery(path, query), key);
      try {
        expectValidationError(response, ['timezone']);
      } catch (error) {
        throw new Error(`${withQuery(path, query).slice(0, 200)}: ${(error as Error).message}`);
      }
    }
  });

  it.each([
    ['yesterday', 'compare=yesterday'],
    ['upper case', 'compare=PREVIOUS_PERIOD'],
    ['empty', 'compare='],
    ['given twice', 'compare=previous_year&compare=previous_year'],
  ])('compare: %s', async (_name, query) => {
    const { key } = await clinicWith([]);
    for (const path of PATHS) expectValidationError(await get(app, withQuery(path, query), key), ['compare']);
  });

  it('granularity: missing, unknown, in another case, or too fine for the window (more than 10,000 buckets)', async () => {
    const { key } = await clinicWith([]);
    for (const query of [
      '',
      'granularity=minute',
      'granularity=HOUR',
      'granularity=',
      'granularity=day&granularity=day',
      'granularity=hour&date_from=2025-01-01&date_to=2026-12-31',
      'granularity=hour&date_from=2025-01-01&date_to=2026-12-31&timezone=Europe/Madrid',
    ]) {
      expectValidationError(await get(app, withQuery('/api/v1/metrics/series', query), key), ['granularity']);
    }
    // Exactly 10,000 hours is allowed; one millisecond more opens bucket 10,001.
    const edge = await get(app, '/api/v1/metrics/series?granularity=hour&date_from=2026-01-01T00:00:00Z&date_to=2027-02-21T15:59:59.999Z', key);
    expectStatus(edge, 200);
    expect(edge.body.data.series).toHaveLength(10_000);
    expectValidationError(await get(app, '/api/v1/metrics/series?granularity=hour&date_from=2026-01-01T00:00:00Z&date_to=2027-02-21T16:00:00.000Z', key), [
      'granularity',
    ]);
    // granularity belongs to series only.
    for (const path of PATHS.slice(0, 3)) expectValidationError(await get(app, `${path}?granularity=day`, key), ['granularity']);
  });

  it('every bad parameter at once', async () => {
    const { key } = await clinicWith([]);
    expectValidationError(await get(app, '/api/v1/metrics/series?timezone=Mars/Base&granularity=minute&compare=yesterday&channel=fax', key), [
      'timezone',
      'granularity',
      'compare',
      'channel',
    ]);
    expectValidationError(await get(app, '/api/v1/metrics/summary?timezone=europe/madrid&compare=x&date_from=bad', key), ['timezone', 'compare', 'date_from']);
  });
});
