// What a REST answer's format is, as a client asks for it: `?format=csv|ndjson|json` on the four
// endpoints with exports (for a link, which cannot set Accept), and the Accept header everywhere -
// an Accept the endpoint cannot meet is a 406 in the JSON error envelope, never a silent JSON answer.
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../src/rest/routes.js';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createClinic, createInteraction } from '../helpers/factories.js';
import { expectError, expectValidationError, JSON_CONTENT_TYPE, type RestResponse } from './client.js';
import { csvObjects, parseNdjson } from './exports-support.js';

const db = testDb();
const app = testApp(db);

/** The endpoints with exports, and the file name each answers with (its stem). */
const EXPORTS = {
  '/api/v1/interactions': 'interactions',
  '/api/v1/metrics/daily': 'metrics-daily',
  '/api/v1/metrics/series': 'metrics-series',
  '/api/v1/metrics/breakdown': 'metrics-breakdown',
} as const;
const WINDOW = 'date_from=2026-02-01&date_to=2026-02-03';
/** A query each export route answers: its window, and what a breakdown and a series need. */
const QUERIES: Readonly<Record<string, string>> = {
  '/api/v1/metrics/breakdown': `${WINDOW}&group_by=channel`,
  '/api/v1/metrics/series': `${WINDOW}&granularity=day`,
};
const queryOf = (path: string) => QUERIES[path] ?? WINDOW;

const JSON_ONLY = ['application/json'];
const WITH_EXPORTS = ['application/json', 'text/csv', 'application/x-ndjson'];
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let key: string;
let interactionId: string;

beforeAll(async () => {
  const clinic = await createClinic(db, { name: 'Format negotiation clinic' });
  const at = (day: number, hour: number) => new Date(Date.UTC(2026, 1, day, hour));
  interactionId = (await createInteraction(db, { clinicId: clinic.id, channel: 'voice', startedAt: at(1, 9) })).id;
  await createInteraction(db, { clinicId: clinic.id, channel: 'whatsapp', startedAt: at(2, 10) });
  key = await createKey(db, { clinicIds: [clinic.id] });
});

interface Answer extends RestResponse {
  type: string | null;
}

async function fetchAs(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  const response = await app.fetch(`http://localhost${path}`, { method, headers: { authorization: `Bearer ${key}`, ...headers } });
  const text = await response.text();
  const type = response.headers.get('content-type');
  return { status: response.status, headers: response.headers, text, type, body: type?.startsWith('application/json') && text ? JSON.parse(text) : undefined };
}

const accepting = (accept: string) => ({ accept });
const pathOf = (route: { path: string }) => route.path.replace('{id}', interactionId);

describe('?format= on the endpoints with exports', () => {
  it.each(Object.entries(EXPORTS))('%s?format=csv and ?format=ndjson are the exports, with no Accept', async (path, stem) => {
    const viaAccept = await fetchAs(`${path}?${queryOf(path)}`, accepting('text/csv'));
    const csv = await fetchAs(`${path}?${queryOf(path)}&format=csv`);
    expect(csv.status, csv.text).toBe(200);
    expect(csv.type).toBe('text/csv; charset=utf-8; header=present');
    expect(csv.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="${stem}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`));
    expect(csv.text).toBe(viaAccept.text);
    expect(csvObjects(csv.text).rows.length).toBeGreaterThan(0);

    const ndjson = await fetchAs(`${path}?format=ndjson&${queryOf(path)}`);
    expect(ndjson.status, ndjson.text).toBe(200);
    expect(ndjson.type).toBe('application/x-ndjson; charset=utf-8');
    expect(ndjson.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="${stem}-\\d{4}-\\d{2}-\\d{2}\\.ndjson"$`));
    expect(parseNdjson(ndjson.text)).toHaveLength(csvObjects(csv.text).rows.length);
  });

  it.each(Object.keys(EXPORTS))('%s?format=json is the JSON answer', async (path) => {
    const plain = await fetchAs(`${path}?${queryOf(path)}`);
    const json = await fetchAs(`${path}?${queryOf(path)}&format=json`);
    expect(json.status, json.text).toBe(200);
    expect(json.type).toBe(JSON_CONTENT_TYPE);
    expect({ ...json.body, request_id: undefined, timestamp: undefined }).toEqual({ ...plain.body, request_id: undefined, timestamp: undefined });
  });

  it('wins over a conflicting Accept, either way', async () => {
    const path = `/api/v1/interactions?${WINDOW}`;
    const json = await fetchAs(`${path}&format=json`, accepting('text/csv'));
    expect([json.status, json.type]).toEqual([200, JSON_CONTENT_TYPE]);
    expect(json.body.data.interactions).toHaveLength(2);
    const csv = await fetchAs(`${path}&format=csv`, accepting('application/json'));
    expect([csv.status, csv.type]).toEqual([200, 'text/csv; charset=utf-8; header=present']);
    // An Accept the endpoint could not meet does not matter when the URL names the format.
    const ndjson = await fetchAs(`${path}&format=ndjson`, accepting('application/xml'));
    expect([ndjson.status, ndjson.type]).toEqual([200, 'application/x-ndjson; charset=utf-8']);
    const linked = await fetchAs(`/api/v1/metrics/daily?${WINDOW}&format=csv`, accepting(BROWSER));
    expect([linked.status, linked.type]).toEqual([200, 'text/csv; charset=utf-8; header=present']);
  });

  it('an unknown value is a 400 naming format and its values, with the other problems of the query', async () => {
    for (const path of Object.keys(EXPORTS)) {
      for (const value of ['xml', 'CSV', '', 'text/csv']) {
        const answer = await fetchAs(`${path}?${queryOf(path)}&format=${encodeURIComponent(value)}`, accepting('text/csv'));
        const details = expectValidationError(answer, ['format']);
        expect(details.format, `${path} format=${value}`).toBe('must be one of json, csv, ndjson');
      }
    }
    const both = expectValidationError(await fetchAs('/api/v1/interactions?format=xlsx&limit=0'), ['format', 'limit']);
    expect(both.format).toBe('must be one of json, csv, ndjson');
    expect(both.format).not.toMatch(/not a parameter/);
    expectValidationError(await fetchAs('/api/v1/interactions?format=csv&format=json'), ['format']);
  });

  it('is refused as an export would refuse its parameters', async () => {
    const refused = expectValidationError(await fetchAs(`/api/v1/metrics/daily?${WINDOW}&compare=previous_period&format=csv`), ['compare']);
    expect(refused.compare).toMatch(/does not apply to exports/);
    expectValidationError(await fetchAs('/api/v1/interactions?format=ndjson&page=2'), ['page']);
  });

  it('is no parameter of the endpoints without exports', async () => {
    for (const route of routes.filter((r) => !(r.path in EXPORTS))) {
      const details = expectValidationError(await fetchAs(`${pathOf(route)}?format=csv`), ['format']);
      expect(details.format, route.path).toMatch(/^is not a parameter of this endpoint/);
    }
  });
});

describe('Accept', () => {
  const expectNotAcceptable = (answer: Answer, available: string[], what: string) => {
    expect(answer.status, `${what}: ${answer.text}`).toBe(406);
    expect(answer.type, what).toBe(JSON_CONTENT_TYPE);
    const error = expectError(answer, 406, 'NOT_ACCEPTABLE');
    expect(error.details, what).toEqual({ available });
  };

  it('an export type on an endpoint without exports is a 406 listing what it answers with, not JSON', async () => {
    for (const route of routes.filter((r) => !(r.path in EXPORTS))) {
      for (const accept of ['text/csv', 'application/x-ndjson', 'text/csv, application/x-ndjson;q=0.5']) {
        expectNotAcceptable(await fetchAs(pathOf(route), accepting(accept)), JSON_ONLY, `${route.path} ${accept}`);
      }
    }
  });

  it('an Accept that no endpoint meets is a 406 everywhere, listing the exports where there are some', async () => {
    for (const route of routes) {
      const available = route.path in EXPORTS ? WITH_EXPORTS : JSON_ONLY;
      for (const accept of ['application/xml', 'text/html', 'text/plain', 'application/ndjson, application/problem+json']) {
        expectNotAcceptable(await fetchAs(pathOf(route), accepting(accept)), available, `${route.path} ${accept}`);
      }
    }
    // HEAD is answered as GET, without the body.
    const head = await fetchAs('/api/v1/metrics/summary', accepting('text/csv'), 'HEAD');
    expect([head.status, head.type, head.text]).toEqual([406, JSON_CONTENT_TYPE, '']);
  });

  it('q=0 refuses: JSON refused and nothing else acceptable is a 406', async () => {
    for (const accept of ['application/json;q=0', 'application/json;q=0, */*', 'application/*;q=0, text/csv;q=0', '*/*;q=0']) {
      expectNotAcceptable(await fetchAs('/api/v1/clinics', accepting(accept)), JSON_ONLY, accept);
    }
    expectNotAcceptable(await fetchAs(`/api/v1/interactions?${WINDOW}`, accepting('text/csv;q=0')), WITH_EXPORTS, 'text/csv;q=0');
    expectNotAcceptable(
      await fetchAs(`/api/v1/interactions?${WINDOW}`, accepting('application/x-ndjson;q=0, text/csv;q=0.000')),
      WITH_EXPORTS,
      'both exports refused',
    );
    // JSON refused, but a wildcard accepts an export the endpoint has.
    const csv = await fetchAs(`/api/v1/interactions?${WINDOW}`, accepting('application/json;q=0, text/*'));
    expect([csv.status, csv.type]).toEqual([200, 'text/csv; charset=utf-8; header=present']);
  });

  it('JSON for no Accept, wildcards, a browser, and any list that accepts JSON', async () => {
    const cases = [
      undefined,
      '*/*',
      'application/*',
      'application/json',
      'APPLICATION/JSON; charset=utf-8',
      BROWSER,
      'text/html;q=0.9, application/json;q=0.1',
      'text/csv;q=0.5, */*',
      'application/xml, application/*;q=0.2',
      // Nothing readable in it: as if absent.
      'garbage',
      ';;;,,=',
      'text/csv;q=nope',
    ];
    for (const route of routes) {
      for (const accept of cases) {
        const answer = await fetchAs(
          `${pathOf(route)}${route.path in EXPORTS ? `?${queryOf(route.path)}` : ''}`,
          accept === undefined ? {} : accepting(accept),
        );
        expect(answer.status, `${route.path} ${accept}: ${answer.text}`).toBe(200);
        expect(answer.type, `${route.path} ${accept}`).toBe(JSON_CONTENT_TYPE);
        expect(answer.body.success).toBe(true);
      }
    }
  });

  it('an unauthenticated request is a 401 whatever its Accept', async () => {
    const response = await app.fetch('http://localhost/api/v1/clinics', { headers: { accept: 'application/xml' } });
    expect(response.status).toBe(401);
  });
});
