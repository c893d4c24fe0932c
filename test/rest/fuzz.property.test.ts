// Property: whatever query string a client sends to any REST endpoint, the answer is the JSON
// envelope, never a 5xx; with a valid key it is a 200 or a 400 VALIDATION_ERROR naming parameters.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';
import { ENDPOINTS, type Endpoint, ISO_MS_UTC, pathOf, withQuery } from './client.js';

const db = testDb();
const app = testApp(db);

const NUM_RUNS = 300;

let key: string;
let clinicId: string;
let campaignId: string;
let interactionId: string;

beforeAll(async () => {
  const clinic = await createClinic(db);
  clinicId = clinic.id;
  campaignId = (await createCampaign(db, clinicId)).id;
  for (let i = 0; i < 5; i++) {
    const channel = i % 2 ? 'whatsapp' : 'voice';
    const row = await createInteraction(db, {
      clinicId,
      channel,
      startedAt: new Date(Date.now() - i * 86_400_000),
      transcript: [{ role: 'assistant', content: `turn ${i}` }],
    });
    interactionId = row.id;
  }
  key = await createKey(db, { clinicIds: [clinicId] });
});

/** Percent-encodes every UTF-8 byte (lone surrogates become U+FFFD, where encodeURIComponent would throw). */
const percentEncode = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');

const JUNK_NAMES = [
  'clinicId',
  'dateFrom',
  'foo',
  '',
  'PAGE',
  'Limit',
  'page[]',
  'limit ',
  ' page',
  'outcomes',
  'q',
  'ñ',
  '😀',
  '%00',
  '%',
  'a%2Fb',
  '__proto__',
  'constructor',
];

/** Values that are (or are close to) valid for each parameter. */
const NEAR_VALID: Record<string, string[]> = {
  timezone: ['UTC', 'Europe/Madrid', 'europe/madrid', 'Mars/Base', 'clinic', 'Clinic', 'Etc/GMT%2B5', 'posix/UTC', '../UTC', 'Asia/Kathmandu', 'Pacific/Apia'],
  compare: ['previous_period', 'previous_year', 'PREVIOUS_YEAR', 'yesterday', ''],
  granularity: ['hour', 'day', 'week', 'month', 'quarter', 'year', 'minute', 'DAY', ''],
  campaign_id: ['__CAMPAIGN__', 'cmp_x', 'a%20b', 'x'.repeat(255), 'x'.repeat(256), '%E2%80%AE', '%C3%A9t%C3%A9', '%5C%27'],
  group_by: ['campaign,campaign', 'clinic,campaign,outcome', 'Campaign', 'weekday', 'campaign,', ',', 'outcome%2Cchannel', ''],
  page: ['1', '2', '0', '-1', '01', '2147483647', '2147483648', '9007199254740993', '1.5', '1e2', ' 1'],
  limit: ['1', '25', '500', '501', '0', '-25', '1000', '0500'],
  date_from: [
    '2026-01-01',
    '2026-11-01T00:00:00Z',
    '2026-01-01T10:00:00%2B02:00',
    '2026-02-30',
    '9999-12-31',
    '0001-01-01',
    '1970-01-01T00:00:00-14:00',
    '2026-01-01T10:00',
  ],
  date_to: ['2026-12-31', '2026-11-30T23:59:59.999Z', '9999-12-31T23:59:59-14:00', '2025-01-01', '10000-01-01', '2026-13-01'],
  channel: ['voice', 'whatsapp', 'VOICE', 'fax', 'multi'],
  type: ['INBOUND', 'FORM_OUTBOUND', 'CAMPAIGN_OUTBOUND', 'CAMPAIGN_CALLBACK', 'APPOINTMENT_REMINDER', 'inbound', 'OUTBOUND'],
  outcome: ['APPOINTMENT_BOOKED', 'UNREACHABLE', 'NO_ANSWER,OPT_OUT', 'booked', 'APPOINTMENT_BOOKED,', ',', 'NO_ANSWER%2CVOICEMAIL_REACHED'],
  clinic_id: ['__CLINIC__', '00000000-0000-4000-8000-000000000000', 'not-a-uuid', 'F47AC10B-58CC-4372-A567-0E02B2C3D479'],
  search: ['600', '%2B34', '+34', '%25', '_', '%5C', '%00', 'abc', "'", '"', '%0A'],
  status: ['active', 'paused', 'completed', 'ACTIVE', 'archived'],
  cursor: ['', 'abc', 'a.b', 'eyJvIjoiZCIsInQiOjAsImkiOiJ4IiwibCI6IngifQ.AAAAAAAAAAAAAAAAAAAAAA', '.', '%2E', 'x'.repeat(1025)],
  order: ['asc', 'desc', 'ASC', 'newest', ''],
  include_total: ['true', 'false', 'TRUE', '1', '0', ''],
  updated_since: ['2026-01-01', '2026-01-01T00:00:00Z', '0001-01-01', '9999-12-31T23:59:59.999Z', 'yesterday', '2026-01-01T00:00'],
};

/** Hostile values: empty, huge, unicode, broken and meaningful %-sequences, separators. */
const HOSTILE = fc.oneof(
  fc.constantFrom(
    '',
    '%',
    '%%',
    '%zz',
    '%E0%A4%A',
    '%C0%AF',
    '%ED%A0%80',
    '%FF%FE',
    '%00',
    '%2B',
    '%26',
    '%3D',
    '%23',
    '%20',
    '+',
    '=',
    '==',
    'null',
    'undefined',
    'NaN',
    'Infinity',
    '[]',
    '{}',
    '1;DROP TABLE interactions',
    "' OR 1=1 --",
    '\u00e9\u00f1\u00fc',
    '\u{1F600}',
    '\u202e',
    '\uFEFF1',
    '\u0661',
  ),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.string({ unit: 'binary', maxLength: 10 }).map(percentEncode),
  fc.integer().map(String),
  fc.double().map(String),
  fc.nat(5000).map((n) => 'x'.repeat(n)),
  fc.nat(300).map((n) => '9'.repeat(n)),
);

/** Values that are certainly valid, alone and together (the window stays within limits). */
const VALID: Record<string, string[]> = {
  page: ['1', '2', '3'],
  limit: ['1', '10', '500'],
  date_from: ['2026-01-01', '2026-06-01T00:00:00Z'],
  date_to: ['2026-12-31', '2026-12-31T23:59:59.999%2B01:00'],
  channel: ['voice', 'whatsapp'],
  type: ['INBOUND', 'CAMPAIGN_OUTBOUND'],
  outcome: ['NO_ANSWER', 'APPOINTMENT_BOOKED,OPT_OUT'],
  clinic_id: ['__CLINIC__', '00000000-0000-4000-8000-000000000000'],
  search: ['600', '%2B34'],
  status: ['active', 'completed'],
  timezone: ['UTC', 'Europe/Madrid', 'Asia/Kathmandu', 'clinic'],
  compare: ['previous_period', 'previous_year'],
  granularity: ['day', 'week', 'month', 'year'],
  campaign_id: ['__CAMPAIGN__', 'cmp_missing', '00000000-0000-4000-8000-000000000000'],
  group_by: ['campaign', 'clinic,channel', 'campaign,outcome', 'type,direction'],
  order: ['asc', 'desc'],
  include_total: ['true', 'false'],
  q: ['cancel', 'cancel%20appointment', 'Cancelaci%C3%B3n'],
  since: ['2026-01-01', '2026-01-01T00:00:00Z'],
  cursor: [''],
};

/** Control characters and numbers past every integer limit, where a database or GraphQL could choke. */
const EDGE = fc.constantFrom('%00', '%01', '%0A', '%1F', '%7F', 'a%00b', '2147483648', '9999999999', '999999999999999', '9007199254740993', '-0');

const HOSTILE_OR_EDGE = fc.oneof({ weight: 3, arbitrary: HOSTILE }, { weight: 1, arbitrary: EDGE });

function suspiciousValueFor(name: string) {
  const near = Object.hasOwn(NEAR_VALID, name) ? NEAR_VALID[name] : undefined;
  return near ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...near) }, { weight: 2, arbitrary: HOSTILE_OR_EDGE }) : HOSTILE_OR_EDGE;
}

const withClinic = (value: string) => value.replace('__CLINIC__', clinicId).replace('__CAMPAIGN__', encodeURIComponent(campaignId));

/** Anything goes: parameters of the endpoint and junk names, several at once, values encoded or not, odd separators. */
function chaosQuery(endpoint: Endpoint) {
  const names = [...endpoint.params, ...endpoint.params, ...JUNK_NAMES];
  const pair = fc
    .constantFrom(...names)
    .chain((name) => fc.tuple(fc.constant(name), suspiciousValueFor(name), fc.boolean(), fc.constantFrom('=', '=', '=', '', '==')))
    .map(([name, value, encode, eq]) => {
      const v = withClinic(value);
      const encoded = encode ? percentEncode(v) : v;
      return eq === '' ? name : `${name}${eq}${encoded}`;
    });
  return fc.tuple(fc.array(pair, { maxLength: 8 }), fc.constantFrom('&', '&', '&&', ';')).map(([pairs, sep]) => pairs.join(sep));
}

/**
 * Valid parameters (each at most once) plus at most one suspicious one: a bad value is not hidden
 * behind another parameter's 400, so it reaches validation's edges and the database.
 */
function focusedQuery(endpoint: Endpoint) {
  if (endpoint.params.length === 0) return fc.constant('');
  const valid = fc
    .subarray([...endpoint.params])
    .chain((names) => fc.tuple(...names.map((name) => fc.constantFrom(...VALID[name]!).map((value) => `${name}=${withClinic(value)}`))));
  const suspicious = fc.option(
    fc.constantFrom(...endpoint.params).chain((name) => suspiciousValueFor(name).map((value) => ({ name, value: withClinic(value) }))),
    { freq: 4 },
  );
  return fc.tuple(valid, suspicious).map(([pairs, bad]) => {
    const kept = bad ? pairs.filter((p) => !p.startsWith(`${bad.name}=`)) : pairs;
    return [...kept, ...(bad ? [`${bad.name}=${bad.value}`] : [])].join('&');
  });
}

function queryString(endpoint: Endpoint) {
  return fc.oneof({ weight: 1, arbitrary: chaosQuery(endpoint) }, { weight: 2, arbitrary: focusedQuery(endpoint) });
}

/** The detail endpoint also gets random ids in its path. */
const detailId = fc.oneof(
  fc.constant('__REAL__'),
  fc.constantFrom('int_x', '%', '%00', 'int%00', '%0A', '%7F', '%2F', '..', '%2E%2E', '%E0%A4%A', 'a%20b', '%F0%9F%98%80', "'%3B--"),
  fc.string({ minLength: 1, maxLength: 50 }).map((s) => encodeURIComponent(s)),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).map(percentEncode),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).map(percentEncode),
);

interface Outcome {
  status: number;
  body: Record<string, unknown> | undefined;
  text: string;
  headers: Headers;
}

async function send(path: string, authorization?: string): Promise<Outcome> {
  const response = await app.fetch(`http://localhost${path}`, { headers: authorization ? { authorization } : {} });
  const text = await response.text();
  let body: Record<string, unknown> | undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body, text, headers: response.headers };
}

/** The envelope invariants of every answer. */
function checkEnvelope(path: string, r: Outcome) {
  const where = `${path} -> ${r.status} ${r.text.slice(0, 500)}`;
  if (r.status >= 500) throw new Error(`5xx: ${where}`);
  if (!r.body || typeof r.body !== 'object') throw new Error(`not a JSON object: ${where}`);
  if (r.headers.get('content-type') !== 'application/json; charset=utf-8') throw new Error(`content type: ${where}`);
  if (typeof r.body.success !== 'boolean') throw new Error(`success not boolean: ${where}`);
  if (typeof r.body.request_id !== 'string' || r.body.request_id !== r.headers.get('x-request-id')) throw new Error(`request_id: ${where}`);
  if (typeof r.body.timestamp !== 'string' || !ISO_MS_UTC.test(r.body.timestamp)) throw new Error(`timestamp: ${where}`);
  if (r.body.success !== (r.status === 200)) throw new Error(`success vs status: ${where}`);
  if (!r.body.success) {
    const error = r.body.error as { code?: unknown; message?: unknown } | undefined;
    if (!error || typeof error.code !== 'string' || typeof error.message !== 'string') throw new Error(`error.code: ${where}`);
    if ('data' in r.body || 'meta' in r.body) throw new Error(`data or meta on an error: ${where}`);
  }
}

describe.each(ENDPOINTS.map((e) => [e.path, e] as const))('random query strings on %s', (_path, endpoint) => {
  it('with a valid key: 200 with data, or 400 VALIDATION_ERROR with details; never a 5xx', async () => {
    const ids = endpoint.name === 'interaction' ? detailId : fc.constant('__REAL__');
    // the detail endpoint takes no parameter: mostly none, so that the id reaches the database
    await fc.assert(
      fc.asyncProperty(
        endpoint.name === 'interaction'
          ? fc.oneof({ weight: 3, arbitrary: fc.constant('') }, { weight: 1, arbitrary: queryString(endpoint) })
          : queryString(endpoint),
        ids,
        async (query, id) => {
          const path = withQuery(pathOf(endpoint, 'placeholder').replace('placeholder', id === '__REAL__' ? interactionId : id), query);
          const r = await send(path, `Bearer ${key}`);
          checkEnvelope(path, r);
          const where = `${path} -> ${r.status} ${r.text.slice(0, 500)}`;
          const body = r.body!;
          if (endpoint.name === 'interaction' && r.status === 404) {
            if ((body.error as { code: string }).code !== 'NOT_FOUND') throw new Error(`404 code: ${where}`);
            return;
          }
          if (r.status === 200) {
            if (typeof body.data !== 'object' || body.data === null) throw new Error(`data: ${where}`);
            if ('meta' in body !== (endpoint.kind === 'list')) throw new Error(`meta: ${where}`);
            return;
          }
          if (r.status !== 400) throw new Error(`expected 200 or 400: ${where}`);
          const error = body.error as { code: string; details?: Record<string, unknown> };
          if (error.code !== 'VALIDATION_ERROR') throw new Error(`400 code: ${where}`);
          if (!error.details || typeof error.details !== 'object' || Object.keys(error.details).length === 0) throw new Error(`details: ${where}`);
          for (const message of Object.values(error.details)) if (typeof message !== 'string' || !message) throw new Error(`detail message: ${where}`);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('random query strings without a valid key', () => {
  it('are always 401 (or 404 for an unknown path) in the envelope, whatever the query', async () => {
    const endpoint = fc.constantFrom(...ENDPOINTS);
    const authorization = fc.constantFrom(undefined, 'Basic xyz', 'Bearer', `Bearer svc_live_${'A'.repeat(40)}`, 'Bearer nope');
    await fc.assert(
      fc.asyncProperty(
        endpoint.chain((e) => fc.tuple(fc.constant(e), queryString(e))),
        authorization,
        async ([e, query], auth) => {
          const path = withQuery(pathOf(e, 'int_x'), query);
          const r = await send(path, auth);
          checkEnvelope(path, r);
          expect(r.status).toBe(401);
          expect(['UNAUTHORIZED', 'INVALID_API_KEY']).toContain((r.body!.error as { code: string }).code);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });
});
