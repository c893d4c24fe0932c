// The heavy lane (src/limits/heavy-lane.ts): heavy requests are served by a copy of the app in a
// niced worker thread, and a client cannot tell: the same status, headers and bytes as when the
// main thread serves them, with the key's quota and concurrency units taken once, on the main
// thread. Each app here is the real one, the worker a real thread with its own connections.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { createPrismaClient, type Db } from '../../src/db/client.js';
import { HeavyLane, type HeavyWork, type LaneRequest } from '../../src/limits/heavy-lane.js';
import { createKey, testApp } from '../helpers/app.js';
import { databaseUrl } from '../helpers/db.js';
import { createClinic, createInteraction } from '../helpers/factories.js';

let db: Db;
let clinicId: string;
let lane: HeavyLane;
const handedOver: LaneRequest[] = [];
const counting: HeavyWork = {
  serve(request) {
    handedOver.push(request);
    return lane.serve(request);
  },
};

beforeAll(async () => {
  db = createPrismaClient(databaseUrl, 5);
  clinicId = (await createClinic(db)).id;
  for (const [i, day] of ['2025-01-05', '2025-03-01', '2025-06-17', '2025-11-30', '2026-02-14'].entries()) {
    await createInteraction(db, { clinicId, startedAt: new Date(`${day}T0${i}:30:00Z`), channel: i % 2 ? 'whatsapp' : 'voice' });
  }
  lane = new HeavyLane({ databaseUrl, connections: 2, nice: 5, logger: { level: 'warn' } });
  await lane.start();
}, 120_000);
afterAll(async () => {
  await lane.stop();
  await db.$disconnect();
});

const YEAR_OF_HOURS =
  '/api/v1/metrics/series?granularity=hour&timezone=Asia/Kathmandu&channel=voice&compare=previous_year&date_from=2025-03-01&date_to=2026-02-28';
const HEAVY_DOCUMENT = `{
  a: metricsSeries(granularity: HOUR, timezone: "Asia/Kathmandu", compare: PREVIOUS_YEAR, dateFrom: "2025-03-01", dateTo: "2026-02-28") { series { start total calls } previous { start total } }
}`;

async function rest(app: App, key: string, path: string, init: { method?: string; headers?: Record<string, string> } = {}) {
  const response = await app.fetch(`http://localhost${path}`, { method: init.method ?? 'GET', headers: { authorization: `Bearer ${key}`, ...init.headers } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function graphqlText(app: App, key: string, query: string, accept = 'application/graphql-response+json') {
  const response = await app.fetch('http://localhost/graphql', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The headers a client reads, but those that differ between any two answers (id, date) and the quota left. */
function stableHeaders(headers: Headers): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of headers) {
    if (!/^(x-request-id|date|x-ratelimit-remaining-|x-ratelimit-reset-|ratelimit$)/.test(name.toLowerCase())) kept[name.toLowerCase()] = value;
  }
  return kept;
}

/** An envelope without its request id and timestamp. */
function withoutIdentity(text: string): unknown {
  const { request_id: _id, timestamp: _at, ...rest } = JSON.parse(text) as Record<string, unknown>;
  return rest;
}

describe('the heavy lane', () => {
  it('starts its worker at the nice value it was given', () => {
    if (process.platform !== 'linux') return;
    expect(lane.priority).toBe(5);
  });

  it('answers a year of hourly buckets over REST as the main thread does, having served it in the worker', async () => {
    const key = await createKey(db, { tier: 'premium', clinicIds: [clinicId] });
    const here = await rest(testApp(db), key, YEAR_OF_HOURS);
    handedOver.length = 0;
    const there = await rest(testApp(db, { heavyLane: counting }), key, YEAR_OF_HOURS);
    expect(handedOver).toHaveLength(1);
    expect(there.status).toBe(200);
    expect(stableHeaders(there.headers)).toEqual(stableHeaders(here.headers));
    expect(withoutIdentity(there.text)).toEqual(withoutIdentity(here.text));
    expect((JSON.parse(there.text) as { data: { series: unknown[] } }).data.series).toHaveLength(8_760);
    // The worker wrote the envelope with the main thread's request id, which the header also gives.
    expect(JSON.parse(there.text).request_id).toBe(there.headers.get('x-request-id'));
    // Counted once, by the main thread, as the main thread counts its own (Premium: 300 a minute).
    expect(there.headers.get('x-ratelimit-remaining-minute')).toBe('299');
    expect(here.headers.get('x-ratelimit-remaining-minute')).toBe('299');
    // The API key never reaches the worker: the admission travels instead.
    expect(handedOver[0]!.headers.some(([name]) => name === 'authorization')).toBe(false);
    expect(handedOver[0]!.key.clinicIds).toEqual([clinicId]);
  });

  it('answers conditional and HEAD requests in the worker as the main thread does', async () => {
    const key = await createKey(db, { tier: 'premium', clinicIds: [clinicId] });
    const app = testApp(db, { heavyLane: counting });
    const first = await rest(app, key, YEAR_OF_HOURS);
    const etag = first.headers.get('etag')!;
    const again = await rest(app, key, YEAR_OF_HOURS, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    const head = await rest(app, key, YEAR_OF_HOURS, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it('answers a heavy GraphQL document as the main thread does, in either media type', async () => {
    const key = await createKey(db, { tier: 'premium', clinicIds: [clinicId] });
    for (const accept of ['application/graphql-response+json', 'application/json']) {
      const here = await graphqlText(testApp(db), key, HEAVY_DOCUMENT, accept);
      handedOver.length = 0;
      const there = await graphqlText(testApp(db, { heavyLane: counting }), key, HEAVY_DOCUMENT, accept);
      expect(handedOver).toHaveLength(1);
      expect(there.status).toBe(200);
      expect(there.headers.get('content-type')).toBe(here.headers.get('content-type'));
      expect(stableHeaders(there.headers)).toEqual(stableHeaders(here.headers));
      expect(there.text).toBe(here.text);
    }
  });

  it('hands a heavy document over every time, also once it is sent often enough to run compiled', async () => {
    const key = await createKey(db, { tier: 'premium', clinicIds: [clinicId] });
    const app = testApp(db, { heavyLane: counting });
    handedOver.length = 0;
    for (let i = 1; i <= 5; i++) {
      const answer = await graphqlText(app, key, HEAVY_DOCUMENT);
      expect(answer.status).toBe(200);
      expect(handedOver, `request ${i}`).toHaveLength(i);
    }
  });

  it("answers a heavy document's errors as the main thread does: the client's own line and column", async () => {
    const key = await createKey(db, { tier: 'premium', clinicIds: [clinicId] });
    const document = `query Year {\n  metricsSeries(granularity: HOUR, timezone: "Mars/Olympus", dateFrom: "2025-03-01", dateTo: "2026-02-28") { series { start } }\n}`;
    const here = await graphqlText(testApp(db), key, document);
    handedOver.length = 0;
    const there = await graphqlText(testApp(db, { heavyLane: counting }), key, document);
    expect(handedOver).toHaveLength(1);
    expect(there.status).toBe(here.status);
    expect(there.text).toBe(here.text);
    expect(JSON.parse(there.text).errors[0].locations).toEqual([{ line: 2, column: 3 }]);
  });

  it('keeps light requests on the main thread: a page, a month of days, a document of 1-unit fields, nested lists', async () => {
    const key = await createKey(db, { tier: 'premium', clinicIds: [clinicId] });
    const app = testApp(db, { heavyLane: counting });
    handedOver.length = 0;
    expect((await rest(app, key, '/api/v1/interactions?limit=20')).status).toBe(200);
    expect((await rest(app, key, '/api/v1/metrics/series?granularity=day&date_from=2025-03-01&date_to=2025-03-28')).status).toBe(200);
    const light = await graphqlText(app, key, '{ metricsSummary { totalInteractions } interactions(limit: 5) { nodes { id } } }');
    expect(light.status).toBe(200);
    // 2 units held (the clinics' interactions and metrics, beside each other), but no field heavy by its arguments.
    const nested = await graphqlText(app, key, '{ clinics { nodes { interactions(limit: 5) { id } metrics { totalInteractions } } } }');
    expect(nested.status).toBe(200);
    expect(handedOver).toHaveLength(0);
  });

  it("holds the key's concurrency units on the main thread while the worker serves, and only that key's", async () => {
    const standard = await createKey(db, { tier: 'standard', clinicIds: [clinicId] });
    const other = await createKey(db, { tier: 'standard', clinicIds: [clinicId] });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held: HeavyWork = {
      async serve(request) {
        await gate;
        return lane.serve(request);
      },
    };
    const app = testApp(db, { heavyLane: held });
    // A year of hours with its comparison is 4 units: a Standard key's whole limit.
    const first = rest(app, standard, YEAR_OF_HOURS);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = await rest(app, standard, YEAR_OF_HOURS);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(JSON.parse(refused.text).error).toMatchObject({
      code: 'RATE_LIMITED',
      details: { limit: 'concurrency', max_units: 4, in_flight_units: 4, document_units: 4 },
    });
    const graphqlRefused = await graphqlText(app, standard, HEAVY_DOCUMENT);
    expect(graphqlRefused.status).toBe(429);
    // Another key is not held back by it; its light request is not either.
    const otherLight = await rest(app, other, '/api/v1/interactions?limit=5');
    expect(otherLight.status).toBe(200);
    release();
    expect((await first).status).toBe(200);
    // Given back once the answer is back.
    expect((await rest(app, standard, YEAR_OF_HOURS)).status).toBe(200);
  });
});
