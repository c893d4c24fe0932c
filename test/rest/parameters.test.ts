// Query parameters of every endpoint (decisions section 2): each one valid and invalid, several bad
// ones at once (details names every one), unknown and repeated parameters, and defaults.
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../src/rest/routes.js';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createClinic, createInteraction } from '../helpers/factories.js';
import { ENDPOINTS, expectStatus, expectValidationError, get, metaOf, pathOf, UNKNOWN_CLINIC, withQuery } from './client.js';

const db = testDb();
const app = testApp(db);

let key: string;
let clinicId: string;
let interactionId: string;

beforeAll(async () => {
  const clinic = await createClinic(db);
  clinicId = clinic.id;
  interactionId = (await createInteraction(db, { clinicId, startedAt: new Date('2026-02-10T10:00:00.000Z') })).id;
  key = await createKey(db, { clinicIds: [clinicId] });
});

const LONG = 'x'.repeat(5000);
const UUID_UPPER = 'F47AC10B-58CC-4372-A567-0E02B2C3D479';

/** Parameters shared by several endpoints: valid values and invalid ones. */
const PAGING_VALID = ['page=1', 'page=2', 'page=999999', 'page=2147483647', 'limit=1', 'limit=25', 'limit=500', 'page=1&limit=500', 'page=01', 'limit=0500'];
const PAGING_INVALID: Array<[string, string[]]> = [
  ['page=0', ['page']],
  ['page=-1', ['page']],
  ['page=abc', ['page']],
  ['page=2.5', ['page']],
  ['page=1e3', ['page']],
  ['page=', ['page']],
  ['page=%2B1', ['page']],
  ['page=+1', ['page']],
  ['page=0x10', ['page']],
  ['page=1%20', ['page']],
  ['page=%EF%BC%91', ['page']], // fullwidth digit one
  ['page=2147483648', ['page']],
  ['page=99999999999999999999', ['page']],
  [`page=${LONG}`, ['page']],
  ['limit=0', ['limit']],
  ['limit=501', ['limit']],
  ['limit=-5', ['limit']],
  ['limit=abc', ['limit']],
  ['limit=', ['limit']],
  ['limit=25.0', ['limit']],
  ['limit=1000000', ['limit']],
  ['page=0&limit=0', ['page', 'limit']],
];
const WINDOW_VALID = [
  'date_from=2026-01-01',
  'date_to=2026-12-31',
  'date_from=2026-01-01&date_to=2026-01-01',
  'date_from=2026-01-01T00:00:00Z&date_to=2026-01-31T23:59:59.999Z',
  'date_from=2026-01-01T10:00:00%2B02:00',
  'date_from=2026-01-01T10:00:00-05:00',
  'date_from=2026-01-01T10:00Z',
  'date_from=2026-01-01T10:00:00.5%2B0530',
  'date_from=2024-02-29',
];
const WINDOW_INVALID: Array<[string, string[]]> = [
  ['date_from=2026-02-30', ['date_from']],
  ['date_from=2025-02-29', ['date_from']],
  ['date_from=2026-13-01', ['date_from']],
  ['date_from=26-01-01', ['date_from']],
  ['date_from=2026/01/01', ['date_from']],
  ['date_from=01-02-2026', ['date_from']],
  ['date_from=2026-01-01T10:00:00', ['date_from']], // no offset: ambiguous
  ['date_from=2026-01-01 10:00:00Z', ['date_from']],
  ['date_from=2026-01-01T25:00:00Z', ['date_from']],
  ['date_from=yesterday', ['date_from']],
  ['date_from=1767225600', ['date_from']],
  ['date_from=', ['date_from']],
  [`date_from=${LONG}`, ['date_from']],
  ['date_to=2026-00-10', ['date_to']],
  ['date_to=', ['date_to']],
  ['date_to=2026-01-01T10:00:00+02:00', ['date_to']], // a literal + is a space
  ['date_to=10000-01-01', ['date_to']],
  ['date_to=9999-12-31T23:00:00-14:00', ['date_to']], // past year 9999 in UTC
  ['date_from=2026-02-01&date_to=2026-01-31', ['date_from']],
  ['date_from=2026-01-31T12:00:00.001Z&date_to=2026-01-31T12:00:00Z', ['date_from']],
  ['date_from=bad&date_to=worse', ['date_from', 'date_to']],
];
const CHANNEL_VALID = ['channel=voice', 'channel=whatsapp'];
const CHANNEL_INVALID: Array<[string, string[]]> = [
  ['channel=fax', ['channel']],
  ['channel=VOICE', ['channel']],
  ['channel=Voice', ['channel']],
  ['channel=', ['channel']],
  ['channel=voice,whatsapp', ['channel']],
  ['channel=multi', ['channel']],
];
const TYPE_VALID = [
  'type=INBOUND',
  'type=FORM_OUTBOUND',
  'type=CAMPAIGN_OUTBOUND',
  'type=CAMPAIGN_CALLBACK',
  'type=APPOINTMENT_REMINDER',
  'channel=voice&type=INBOUND',
  'channel=voice&type=FORM_OUTBOUND',
  'channel=voice&type=CAMPAIGN_OUTBOUND',
  'channel=voice&type=CAMPAIGN_CALLBACK',
  'channel=whatsapp&type=INBOUND',
  'channel=whatsapp&type=CAMPAIGN_OUTBOUND',
  'channel=whatsapp&type=APPOINTMENT_REMINDER',
];
const TYPE_INVALID: Array<[string, string[]]> = [
  ['channel=voice&type=APPOINTMENT_REMINDER', ['type']],
  ['channel=whatsapp&type=FORM_OUTBOUND', ['type']],
  ['channel=whatsapp&type=CAMPAIGN_CALLBACK', ['type']],
  ['type=inbound', ['type']],
  ['type=OUTBOUND', ['type']],
  ['type=', ['type']],
  ['type=INBOUND,FORM_OUTBOUND', ['type']],
  ['channel=fax&type=NOPE', ['channel', 'type']],
];
const CLINIC_VALID = () => [`clinic_id=${clinicId}`, `clinic_id=${UNKNOWN_CLINIC}`, `clinic_id=${UUID_UPPER}`];
const CLINIC_INVALID: Array<[string, string[]]> = [
  ['clinic_id=not-a-uuid', ['clinic_id']],
  ['clinic_id=', ['clinic_id']],
  ['clinic_id=f47ac10b58cc4372a5670e02b2c3d479', ['clinic_id']],
  ['clinic_id=f47ac10b-58cc-4372-a567-0e02b2c3d47', ['clinic_id']],
  ['clinic_id=g47ac10b-58cc-4372-a567-0e02b2c3d479', ['clinic_id']],
  ['clinic_id={f47ac10b-58cc-4372-a567-0e02b2c3d479}', ['clinic_id']],
  ['clinic_id=1', ['clinic_id']],
  ["clinic_id=x'%20OR%201=1--", ['clinic_id']],
];
const CAMPAIGN_VALID = [
  'campaign_id=cmp_1',
  'campaign_id=00000000-0000-4000-8000-000000000000',
  `campaign_id=${'c'.repeat(255)}`,
  'campaign_id=%C3%A9t%C3%A9%20%2B%2F%3F', // any printable text, encoded
];
const CAMPAIGN_INVALID: Array<[string, string[]]> = [
  ['campaign_id=', ['campaign_id']],
  [`campaign_id=${'c'.repeat(256)}`, ['campaign_id']],
  ['campaign_id=a%00b', ['campaign_id']],
  ['campaign_id=a%0Ab', ['campaign_id']],
  ['campaign_id=a&campaign_id=b', ['campaign_id']],
];
const OUTCOME_VALID = [
  'outcome=APPOINTMENT_BOOKED',
  'outcome=UNREACHABLE',
  'outcome=APPOINTMENT_BOOKED,NO_ANSWER',
  'outcome=APPOINTMENT_BOOKED,APPOINTMENT_MODIFIED,APPOINTMENT_CANCELLED,NO_ANSWER,VOICEMAIL_REACHED,CALLBACK_REQUESTED,DECISION_PENDING,OPT_OUT,UNREACHABLE',
  'outcome=NO_ANSWER,NO_ANSWER',
  'outcome=NO_ANSWER%2CVOICEMAIL_REACHED',
];
const OUTCOME_INVALID: Array<[string, string[]]> = [
  ['outcome=appointment_booked', ['outcome']],
  ['outcome=Appointment_Booked', ['outcome']],
  ['outcome=booked', ['outcome']],
  ['outcome=', ['outcome']],
  ['outcome=APPOINTMENT_BOOKED,', ['outcome']],
  ['outcome=,APPOINTMENT_BOOKED', ['outcome']],
  ['outcome=APPOINTMENT_BOOKED,,NO_ANSWER', ['outcome']],
  ['outcome=APPOINTMENT_BOOKED,no_answer', ['outcome']],
  ['outcome=APPOINTMENT_BOOKED%20', ['outcome']],
  ['outcome=APPOINTMENT_BOOKED;NO_ANSWER', ['outcome']],
];
const SEARCH_VALID = [
  'search=600',
  'search=%2B34',
  'search=+34',
  'search=%25',
  'search=_',
  'search=%5C',
  `search=${'9'.repeat(64)}`,
  'search=%F0%9F%98%80',
  'search=abc',
];
const SEARCH_INVALID: Array<[string, string[]]> = [
  ['search=', ['search']],
  [`search=${'9'.repeat(65)}`, ['search']],
  [`search=${LONG}`, ['search']],
  ['search=%00', ['search']],
  ['search=12%0A34', ['search']],
];
const TEXT_VALID = ['q=cancel', 'q=Cancelación%20cita', `q=${'a'.repeat(200)}`, 'q=the', 'q=%22cancel%22%20%26%20!dentist'];
const TEXT_INVALID: Array<[string, string[]]> = [
  ['q=', ['q']],
  ['q=%20%20', ['q']],
  ['q=!!!', ['q']],
  [`q=${'a'.repeat(201)}`, ['q']],
  [`q=${Array.from({ length: 17 }, (_, i) => `w${i}`).join('%20')}`, ['q']],
  ['q=cancel%00', ['q']],
  ['q=a&q=b', ['q']],
];
const ZONE_VALID = () => [
  'timezone=UTC',
  'timezone=Europe/Madrid',
  'timezone=Asia/Kathmandu',
  'timezone=America/Argentina/Buenos_Aires',
  'timezone=Etc/GMT%2B5',
  `timezone=clinic&clinic_id=${clinicId}`,
  `timezone=clinic&clinic_id=${UNKNOWN_CLINIC}`,
  'timezone=Europe/Madrid&date_from=2026-03-29&date_to=2026-03-29',
  'timezone=Pacific/Apia&date_from=2011-12-30&date_to=2011-12-30',
];
const ZONE_INVALID: Array<[string, string[]]> = [
  ['timezone=Mars/Base', ['timezone']],
  ['timezone=europe/madrid', ['timezone']],
  ['timezone=', ['timezone']],
  ['timezone=clinic', ['timezone']],
  ['timezone=posix/Europe/Madrid', ['timezone']],
  ['timezone=../../etc/passwd', ['timezone']],
  ['timezone=Europe/Madrid%00', ['timezone']],
  [`timezone=${'A'.repeat(10_000)}`, ['timezone']],
  ['timezone=UTC&timezone=UTC', ['timezone']],
  ['timeZone=UTC', ['timeZone']],
];
const COMPARE_VALID = [
  'compare=previous_period',
  'compare=previous_year',
  'compare=previous_year&timezone=Europe/Madrid&date_from=2028-02-29&date_to=2028-02-29',
];
const COMPARE_INVALID: Array<[string, string[]]> = [
  ['compare=yesterday', ['compare']],
  ['compare=PREVIOUS_YEAR', ['compare']],
  ['compare=', ['compare']],
  ['compare=previous_year&compare=previous_period', ['compare']],
];

const STATUS_VALID = ['status=active', 'status=paused', 'status=completed'];
const STATUS_INVALID: Array<[string, string[]]> = [
  ['status=ACTIVE', ['status']],
  ['status=archived', ['status']],
  ['status=', ['status']],
  ['status=active,paused', ['status']],
];

interface Case {
  valid: () => string[];
  invalid: () => Array<[string, string[]]>;
}

const CASES: Record<string, Case> = {
  interactions: {
    valid: () => [
      ...PAGING_VALID,
      ...WINDOW_VALID,
      'date_from=9999-12-31', // the last valid day: the month after it (counts read months) is in year 10000
      'date_from=0001-01-01&date_to=9999-12-31',
      ...CHANNEL_VALID,
      ...TYPE_VALID,
      ...CLINIC_VALID(),
      ...CAMPAIGN_VALID,
      ...OUTCOME_VALID,
      ...SEARCH_VALID,
      ...TEXT_VALID,
      `page=2&limit=10&date_from=2026-01-01&date_to=2026-03-01&channel=voice&type=INBOUND&outcome=APPOINTMENT_BOOKED,NO_ANSWER&clinic_id=${clinicId}&search=600`,
      `page=2&limit=10&date_from=2026-01-01&channel=voice&outcome=APPOINTMENT_BOOKED&clinic_id=${clinicId}&search=600&q=cancel`,
    ],
    invalid: () => [
      ...PAGING_INVALID,
      ...WINDOW_INVALID,
      ...CHANNEL_INVALID,
      ...TYPE_INVALID,
      ...CLINIC_INVALID,
      ...CAMPAIGN_INVALID,
      ...OUTCOME_INVALID,
      ...SEARCH_INVALID,
      ['page=0&limit=501&channel=fax&outcome=booked', ['page', 'limit', 'channel', 'outcome']],
      [
        'page=x&limit=x&date_from=x&date_to=y&channel=x&type=x&outcome=x&clinic_id=x&search=',
        ['page', 'limit', 'date_from', 'date_to', 'channel', 'type', 'outcome', 'clinic_id', 'search'],
      ],
      ['status=active', ['status']],
      ['clinicId=f47ac10b-58cc-4372-a567-0e02b2c3d479', ['clinicId']],
      ['dateFrom=2026-01-01&outcomes=NO_ANSWER', ['dateFrom', 'outcomes']],
      ['Page=1', ['Page']],
      ['page=1&page=2', ['page']],
      ['channel=voice&channel=voice', ['channel']],
      ['outcome=NO_ANSWER&outcome=OPT_OUT', ['outcome']],
      ['page=1&page=1&limit=501&foo=bar', ['page', 'limit', 'foo']],
      ['query=600', ['query']],
      ...TEXT_INVALID,
      ['=1', ['']],
      ['page', ['page']],
    ],
  },
  deleted: {
    valid: () => [
      'since=2026-01-01',
      'since=2026-01-01T10:00:00Z',
      'since=2026-01-01T10:00:00.123%2B05:30',
      'limit=500',
      'include_total=false',
      'cursor=',
      'limit=1&cursor=',
    ],
    invalid: () => [
      ['since=yesterday', ['since']],
      ['since=', ['since']],
      ['limit=0', ['limit']],
      ['limit=501', ['limit']],
      ['cursor=not-a-cursor', ['cursor']],
      ['include_total=maybe', ['include_total']],
      ['page=2', ['page']],
      ['q=cancel', ['q']],
      ['since=x&limit=x', ['since', 'limit']],
    ],
  },
  interaction: {
    valid: () => [''],
    invalid: () => [
      ['page=1', ['page']],
      ['include=transcript', ['include']],
      ['a=1&b=2', ['a', 'b']],
    ],
  },
  clinics: {
    valid: () => PAGING_VALID,
    invalid: () => [
      ...PAGING_INVALID,
      ['clinic_id=f47ac10b-58cc-4372-a567-0e02b2c3d479', ['clinic_id']],
      ['search=a', ['search']],
      ['page=1&page=1', ['page']],
      ['limit=501&name=x', ['limit', 'name']],
    ],
  },
  campaigns: {
    valid: () => [...PAGING_VALID, ...CLINIC_VALID(), ...STATUS_VALID, `page=1&limit=50&clinic_id=${clinicId}&status=paused`],
    invalid: () => [
      ...PAGING_INVALID,
      ...CLINIC_INVALID,
      ...CAMPAIGN_INVALID,
      ...STATUS_INVALID,
      ['page=0&limit=501&clinic_id=x&status=ACTIVE', ['page', 'limit', 'clinic_id', 'status']],
      ['channel=voice', ['channel']],
      ['clinicId=f47ac10b-58cc-4372-a567-0e02b2c3d479', ['clinicId']],
      ['status=active&status=paused', ['status']],
    ],
  },
  summary: {
    valid: () => [
      ...WINDOW_VALID,
      ...CHANNEL_VALID,
      ...CLINIC_VALID(),
      ...CAMPAIGN_VALID,
      ...ZONE_VALID(),
      ...COMPARE_VALID,
      `date_from=2026-01-01&date_to=2026-03-01&channel=whatsapp&clinic_id=${clinicId}&timezone=clinic&compare=previous_year`,
    ],
    invalid: () => [
      ...WINDOW_INVALID,
      ...CHANNEL_INVALID,
      ...CLINIC_INVALID,
      ...CAMPAIGN_INVALID,
      ...ZONE_INVALID,
      ...COMPARE_INVALID,
      ['granularity=day', ['granularity']],
      ['type=INBOUND', ['type']],
      ['page=1&limit=10', ['page', 'limit']],
      ['outcome=NO_ANSWER', ['outcome']],
      ['date_from=2026-01-01&date_from=2026-01-02', ['date_from']],
      ['date_from=x&date_to=y&channel=z&clinic_id=w&type=INBOUND', ['date_from', 'date_to', 'channel', 'clinic_id', 'type']],
    ],
  },
  daily: {
    valid: () => [
      ...WINDOW_VALID,
      ...CHANNEL_VALID,
      ...TYPE_VALID,
      ...CLINIC_VALID(),
      ...CAMPAIGN_VALID,
      ...ZONE_VALID(),
      ...COMPARE_VALID,
      'date_from=2020-01-01&date_to=2026-12-31',
    ],
    invalid: () => [
      ...WINDOW_INVALID,
      ...CHANNEL_INVALID,
      ...TYPE_INVALID,
      ...CLINIC_INVALID,
      ...CAMPAIGN_INVALID,
      ...ZONE_INVALID,
      ...COMPARE_INVALID,
      ['date_from=2000-01-01&date_to=2026-12-31&timezone=Asia/Kathmandu', ['date_to']],
      ['page=1', ['page']],
      ['type=INBOUND&type=INBOUND', ['type']],
      ['date_from=x&date_to=y&channel=z&clinic_id=w&type=v', ['date_from', 'date_to', 'channel', 'clinic_id', 'type']],
    ],
  },
  series: {
    // (the path carries granularity=day: see ENDPOINTS)
    valid: () => [
      ...WINDOW_VALID,
      ...CHANNEL_VALID,
      ...TYPE_VALID,
      ...CLINIC_VALID(),
      ...CAMPAIGN_VALID,
      ...ZONE_VALID(),
      ...COMPARE_VALID,
      'date_from=2000-01-01&date_to=2026-12-31',
    ],
    invalid: () => [
      ...WINDOW_INVALID,
      ...CHANNEL_INVALID,
      ...TYPE_INVALID,
      ...CLINIC_INVALID,
      ...CAMPAIGN_INVALID,
      ...ZONE_INVALID,
      ...COMPARE_INVALID,
      ['granularity=week', ['granularity']],
      ['date_from=1990-01-01&date_to=2026-12-31', ['granularity']],
      ['outcome=NO_ANSWER&page=1', ['outcome', 'page']],
      [
        'date_from=x&date_to=y&channel=z&clinic_id=w&type=v&timezone=Mars/Base&compare=q',
        ['date_from', 'date_to', 'channel', 'clinic_id', 'type', 'timezone', 'compare'],
      ],
    ],
  },
  outcomes: {
    valid: () => [...WINDOW_VALID, ...CHANNEL_VALID, ...TYPE_VALID, ...CLINIC_VALID(), ...CAMPAIGN_VALID, ...ZONE_VALID(), ...COMPARE_VALID],
    invalid: () => [
      ...WINDOW_INVALID,
      ...CHANNEL_INVALID,
      ...TYPE_INVALID,
      ...CLINIC_INVALID,
      ...CAMPAIGN_INVALID,
      ['outcome=NO_ANSWER', ['outcome']],
      ['limit=5', ['limit']],
      ['date_from=x&date_to=y&channel=z&clinic_id=w&type=v', ['date_from', 'date_to', 'channel', 'clinic_id', 'type']],
    ],
  },
  breakdown: {
    // (the path carries group_by=campaign: see ENDPOINTS; a second group_by is a repeated parameter)
    valid: () => [
      ...PAGING_VALID,
      ...WINDOW_VALID,
      ...CHANNEL_VALID,
      ...TYPE_VALID,
      ...CLINIC_VALID(),
      ...CAMPAIGN_VALID,
      ...ZONE_VALID(),
      `page=2&limit=10&date_from=2026-01-01&date_to=2026-03-01&channel=voice&type=INBOUND&clinic_id=${clinicId}&campaign_id=cmp_1&timezone=clinic`,
    ],
    invalid: () => [
      ...PAGING_INVALID,
      ...WINDOW_INVALID,
      ...CHANNEL_INVALID,
      ...TYPE_INVALID,
      ...CLINIC_INVALID,
      ...CAMPAIGN_INVALID,
      ...ZONE_INVALID,
      ['group_by=outcome', ['group_by']],
      ['compare=previous_year', ['compare']],
      ['outcome=NO_ANSWER', ['outcome']],
    ],
  },
  durations: {
    valid: () => [...WINDOW_VALID, ...CHANNEL_VALID, ...TYPE_VALID, ...CLINIC_VALID(), ...CAMPAIGN_VALID, ...ZONE_VALID()],
    invalid: () => [
      ...WINDOW_INVALID,
      ...CHANNEL_INVALID,
      ...TYPE_INVALID,
      ...CLINIC_INVALID,
      ...CAMPAIGN_INVALID,
      ...ZONE_INVALID,
      ['compare=previous_year', ['compare']],
      ['page=1', ['page']],
      ['date_from=x&campaign_id=&type=v', ['date_from', 'campaign_id', 'type']],
    ],
  },
};

for (const endpoint of ENDPOINTS) {
  const cases = CASES[endpoint.name]!;
  describe(endpoint.path, () => {
    it('accepts every valid parameter value and combination (200)', async () => {
      for (const query of cases.valid()) {
        const response = await get(app, withQuery(pathOf(endpoint, interactionId), query), key);
        if (response.status !== 200) throw new Error(`?${query}: expected 200, got ${response.status} ${response.text}`);
        expect(response.body.success).toBe(true);
      }
    });

    it('rejects every invalid one with 400 VALIDATION_ERROR naming exactly the bad parameters', async () => {
      for (const [query, names] of cases.invalid()) {
        const response = await get(app, withQuery(pathOf(endpoint, interactionId), query), key);
        try {
          expectValidationError(response, names);
        } catch (error) {
          throw new Error(`?${query}: ${(error as Error).message}\n${response.text}`);
        }
      }
    });
  });
}

describe('hostile names and encodings, on every endpoint', () => {
  it('the test covers every REST route', () => {
    // GET /api/v1/me takes no parameters and needs no scope: test/rest/me.test.ts covers it.
    expect(ENDPOINTS.map((e) => e.path).sort()).toEqual(
      routes
        .filter((r) => r.scope)
        .map((r) => r.path)
        .sort(),
    );
  });

  for (const endpoint of ENDPOINTS) {
    const path = () => pathOf(endpoint, interactionId);
    // A parameter of the endpoint if it has one, else one it does not take: named either way.
    const param = endpoint.params[0] ?? 'search';

    it(`${endpoint.path}: __proto__, constructor and other Object.prototype names are unknown parameters (400 naming them)`, async () => {
      for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
        const details = expectValidationError(await get(app, withQuery(path(), `${name}=1`), key), [name]);
        expect(details[name]).toMatch(/is not a parameter of this endpoint/);
      }
      expectValidationError(await get(app, withQuery(path(), `__proto__=1&__proto__=2`), key), ['__proto__']);
      expectValidationError(await get(app, withQuery(path(), `__proto__[page]=1&constructor=2`), key), ['__proto__[page]', 'constructor']);
    });

    it(`${endpoint.path}: malformed percent-encoding or bytes that are not UTF-8 are a 400 naming the parameter`, async () => {
      for (const value of ['%E0%A4%A', '%', '%zz', '%FF', '%C3%28', '%ED%A0%80', 'ok%']) {
        const details = expectValidationError(await get(app, withQuery(path(), `${param}=${value}`), key), [param]);
        expect(details[param], value).toMatch(endpoint.params.length ? /encoded/ : /is not a parameter/);
      }
      // A malformed name is named as it was written.
      expectValidationError(await get(app, withQuery(path(), `%E0%A4%A=1`), key), ['%E0%A4%A']);
      expectValidationError(await get(app, withQuery(path(), `a%zz=1&${param}=%FF`), key), ['a%zz', param]);
    });
  }

  it('search with a broken escape is refused, not searched for U+FFFD; a well-formed escape still works', async () => {
    const details = expectValidationError(await get(app, '/api/v1/interactions?search=%E0%A4%A', key), ['search']);
    expect(details.search).toMatch(/percent-encoding/);
    expectStatus(await get(app, '/api/v1/interactions?search=%2B1+555', key), 200);
  });
});

describe('messages of the details', () => {
  it('an unknown parameter is named with the endpoint parameters; a repeated one says so', async () => {
    const details = expectValidationError(await get(app, '/api/v1/interactions?clinicId=x&page=1&page=2', key), ['clinicId', 'page']);
    expect(details.clinicId).toContain('clinic_id');
    expect(details.page).toMatch(/more than once/);
  });

  it('a bad outcome item is named in the message', async () => {
    const details = expectValidationError(await get(app, '/api/v1/interactions?outcome=APPOINTMENT_BOOKED,booked', key), ['outcome']);
    expect(details.outcome).toContain('booked');
    expect(details.outcome).toContain('APPOINTMENT_BOOKED');
  });

  it('a type of the other channel says which types the channel has', async () => {
    const details = expectValidationError(await get(app, '/api/v1/interactions?channel=voice&type=APPOINTMENT_REMINDER', key), ['type']);
    expect(details.type).toContain('voice');
  });
});

describe('dates at the edges of the calendar', () => {
  it('accepts dates in years 0001-0099 and refuses year 0000', async () => {
    expectStatus(await get(app, '/api/v1/interactions?date_from=0099-12-31', key), 200);
    expectStatus(await get(app, '/api/v1/interactions?date_from=0001-01-01', key), 200);
    expectStatus(await get(app, '/api/v1/interactions?date_from=0000-12-31', key), 400);
    expectStatus(await get(app, '/api/v1/interactions?date_from=0001-01-01T00:00:00%2B01:00', key), 400);
  });
});

describe('defaults', () => {
  it('lists default to page 1 and limit 25', async () => {
    for (const path of ['/api/v1/interactions', '/api/v1/clinics', '/api/v1/campaigns']) {
      const response = await get(app, path, key);
      expectStatus(response, 200);
      expect(response.body.meta.page).toBe(1);
      expect(response.body.meta.limit).toBe(25);
    }
  });

  it('a page given with a leading zero is read as that page', async () => {
    const response = await get(app, '/api/v1/clinics?page=01&limit=0010', key);
    expectStatus(response, 200);
    expect(response.body.meta).toEqual(metaOf(1, 10, 1));
  });
});
