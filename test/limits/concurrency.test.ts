// Capacity isolation: a key holds at most its concurrency limit of database work at once (a
// document's root fields counted by their declared cost), the pool is shared between keys, and
// readiness never waits behind a key's work. Work is held with a lock taken by a test transaction,
// never timed.

import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { getOperationAST, parse } from 'graphql';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { createPrismaClient, type Db, FairGate, laneBeforeAdmission } from '../../src/db/client.js';
import { databaseCosts, rootFieldUnits } from '../../src/graphql/builder.js';
import { schema } from '../../src/graphql/index.js';
import { KeyConcurrency } from '../../src/limits/admission.js';
import { buildOpenApiDocument } from '../../src/rest/openapi.js';
import { routes } from '../../src/rest/routes.js';
import { createKey, graphql, testApp } from '../helpers/app.js';
import { databaseUrl, sql } from '../helpers/db.js';
import { createClinic, createInteraction } from '../helpers/factories.js';

const statements: string[] = [];
let db: Db;
let clinicId: string;

beforeAll(async () => {
  db = createPrismaClient(databaseUrl, 5, { onStatement: (text) => statements.push(text) });
  const clinic = await createClinic(db);
  clinicId = clinic.id;
  await createInteraction(db, { clinicId, startedAt: new Date('2025-03-01T10:00:00Z') });
});
afterAll(async () => {
  await db.$disconnect();
});

/** `times` aliases of one root field in one document. */
function aliased(times: number, field: string): string {
  return `{ ${Array.from({ length: times }, (_, i) => `a${i}: ${field}`).join(' ')} }`;
}

const SERIES = `metricsSeries(dateFrom: "2025-03-01", dateTo: "2025-03-28", granularity: HOUR, timezone: "Asia/Kathmandu") { series { total } }`;
const REPORT = `metricsDailyReport(dateFrom: "2025-03-01", dateTo: "2025-03-28", timezone: "Asia/Kathmandu") { daily { total } }`;
const SEARCH = `interactionsConnection(text: "zzqqxx", first: 25) { nodes { id } }`;

async function statementsOf<T>(work: () => Promise<T>): Promise<{ result: T; sent: number }> {
  const before = statements.length;
  const result = await work();
  return { result, sent: statements.length - before };
}

describe('a document with many aliases of a database-reading field', () => {
  for (const [name, field] of [
    ['metricsSeries', SERIES],
    ['metricsDailyReport', REPORT],
    ['interactionsConnection with text', SEARCH],
  ] as const) {
    it(`15 aliases of ${name} are refused before any of them runs (Standard key)`, async () => {
      const app = testApp(db);
      const key = await createKey(db, { tier: 'standard', clinicIds: [clinicId] });
      const one = await statementsOf(() => graphql(app, { key, query: aliased(1, field) }));
      expect(one.result.body.errors).toBeUndefined();
      const many = await statementsOf(() => graphql(app, { key, query: aliased(15, field) }));
      expect(many.result.status).toBe(400);
      expect(many.result.body.errors?.[0]?.extensions).toMatchObject({
        code: 'QUERY_TOO_COMPLEX',
        details: { limit: 'concurrency', max_units: 4, document_units: 15 },
      });
      // Authentication and the key's clinics only: fewer statements than one field's request.
      expect(many.sent).toBeLessThan(one.sent);
    });
  }

  it('as many aliases as the limit allows run', async () => {
    const app = testApp(db);
    const key = await createKey(db, { tier: 'standard', clinicIds: [clinicId] });
    const response = await graphql(app, { key, query: aliased(4, SERIES) });
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
  });

  it('the limits are per tier and configurable', async () => {
    const app = testApp(db, { keyConcurrency: { standard: 20, premium: 2, unlimited: 0 } });
    const standard = await createKey(db, { tier: 'standard', clinicIds: [clinicId] });
    const premium = await createKey(db, { tier: 'premium', clinicIds: [clinicId] });
    const unlimited = await createKey(db, { tier: 'unlimited', clinicIds: [clinicId] });
    expect((await graphql(app, { key: standard, query: aliased(15, SERIES) })).body.errors).toBeUndefined();
    expect((await graphql(app, { key: premium, query: aliased(3, SERIES) })).body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    expect((await graphql(app, { key: unlimited, query: aliased(15, SERIES) })).body.errors).toBeUndefined();
  });
});

describe('document cost', () => {
  const costs = databaseCosts(schema);
  const NOW = Date.parse('2026-11-28T12:00:00Z');
  const units = (query: string, variables: Record<string, unknown> = {}) => {
    const document = parse(query);
    return rootFieldUnits(getOperationAST(document)!, document, costs, { schema, variables, nowMs: NOW }).map((field) => field.held);
  };
  const cost = (query: string, variables?: Record<string, unknown>) => units(query, variables).reduce((a, b) => a + b, 0);

  it('counts aliases, fragments and inline fragments; nothing for fields that read nothing', () => {
    expect(cost(aliased(15, SERIES))).toBe(15);
    expect(units(`query { ...F ... on Query { b: ${SERIES} } viewer { tier } __typename } fragment F on Query { a: ${SERIES} c: ${REPORT} }`)).toEqual([
      1, 1, 1,
    ]);
    expect(cost('{ viewer { tier } __typename }')).toBe(0);
  });

  it('counts a series by its buckets: 1 per 5,000, from literals, variables or the default window', () => {
    const series = (args: string) => `{ metricsSeries(${args}) { series { total } } }`;
    const year = 'dateFrom: "2025-11-28", dateTo: "2026-11-27"';
    expect(cost(series(`${year}, granularity: DAY`))).toBe(1);
    expect(cost(series(`${year}, granularity: HOUR`))).toBe(2); // 8,760 buckets
    expect(cost(series(`${year}, granularity: HOUR, compare: PREVIOUS_YEAR`))).toBe(4); // 17,520
    expect(cost(series('granularity: HOUR'))).toBe(1); // the default window: 31 days of hours
    expect(cost(series('dateFrom: "2000-01-01", granularity: HOUR, compare: PREVIOUS_PERIOD'))).toBe(4); // at most 10,000 a window
    expect(
      cost(
        'query($from: String, $to: String, $g: Granularity) { metricsSeries(dateFrom: $from, dateTo: $to, granularity: $g, compare: PREVIOUS_YEAR) { series { total } } }',
        {
          from: '2025-11-28',
          to: '2026-11-27',
          g: 'HOUR',
        },
      ),
    ).toBe(4);
    // Arguments execution will refuse count 1: the request fails before any work.
    expect(cost(series('dateFrom: "yesterday", granularity: HOUR'))).toBe(1);
  });

  it('counts the nested fields that read on their own: a root field holds its units or what its selection holds, whichever is more', () => {
    // A page's rows, its total, and its rows' clinic, campaign and transcript are the page's unit.
    expect(units('{ interactions { nodes { id transcript { role } clinic { name } campaign { name } } pageInfo { total totalPages hasMore } } }')).toEqual([1]);
    expect(units('{ metricsBreakdown(groupBy: [CLINIC, CAMPAIGN]) { groups { clinicName campaignName clinic { name } } } }')).toEqual([1]);
    // Each clinic's interactions and its metrics: a batch each for the whole page, sent together.
    expect(units('{ clinics(limit: 500) { nodes { interactions { id } metrics { totalInteractions } } } }')).toEqual([2]);
    // A branch further along runs beside its siblings: the campaigns' lists and metrics beside the clinics' metrics.
    expect(units('{ clinics { nodes { campaigns { interactions { id } metrics { totalInteractions } } metrics { totalInteractions } } } }')).toEqual([3]);
    // One level after another: a list beneath a list starts once the one above has its rows.
    expect(units(`{ clinic(id: "${clinicId}") { interactions { clinic { interactions { id } } } } }`)).toEqual([1]);
    // Through fragments; one name on one object runs once (its selections merged), an alias is a field of its own.
    expect(
      units(
        '{ clinics { nodes { ...F interactions { outcome } } } } fragment F on Clinic { interactions { id } other: interactions(limit: 5) { id } ... on Clinic { metrics { totalInteractions } } }',
      ),
    ).toEqual([3]);
    // Root fields beside each other add up as before; a field reading nothing holds what is beneath it.
    expect(units('{ clinics { nodes { interactions { id } metrics { totalInteractions } } } metricsSummary { totalInteractions } viewer { tier } }')).toEqual([
      2, 1,
    ]);
    // The heavy lane judges a field by its own units (units by arguments), not by those beneath it.
    const document = parse('{ clinics { nodes { interactions { id } metrics { totalInteractions } } } }');
    expect(rootFieldUnits(getOperationAST(document)!, document, costs, { schema, variables: {}, nowMs: NOW })).toEqual([{ own: 1, held: 2 }]);
  });

  it("REST documents hold what their root field declares: the nested fields they select are their pages' own reads", () => {
    for (const route of routes) {
      for (const document of [route.document, ...(route.alternative ? [route.alternative.document] : [])]) {
        const fields = rootFieldUnits(getOperationAST(document)!, document, costs, { schema, variables: { granularity: 'HOUR' }, nowMs: NOW });
        expect(
          fields.every((field) => field.held === field.own),
          route.path,
        ).toBe(true);
        expect(fields.length, route.path).toBe(route.path === '/api/v1/me' ? 0 : 1);
      }
    }
  });

  it('a field costing more than the whole limit runs alone; two of them never', () => {
    const limiter = new KeyConcurrency({ standard: 4, premium: 8, unlimited: 0 });
    const alone = limiter.acquire('k', 'standard', [6]);
    expect(alone.ok).toBe(true);
    expect(limiter.inFlight('k')).toBe(4);
    expect(limiter.acquire('k', 'standard', [1])).toMatchObject({ ok: false, reason: 'busy', inFlight: 4, cost: 1 });
    if (alone.ok) alone.release();
    expect(limiter.acquire('k', 'standard', [6, 1])).toMatchObject({ ok: false, reason: 'too_costly', cost: 5 });
    expect(limiter.acquire('k', 'unlimited', [50, 50]).ok).toBe(true);
  });
});

describe('a key at its concurrency limit', () => {
  // The lock is held in the locker's transaction; the watcher reads pg_stat_activity outside it
  // (a transaction sees one snapshot of the statistics views).
  let locker: pg.Client;
  let watcher: pg.Client;
  beforeAll(async () => {
    locker = new pg.Client({ connectionString: databaseUrl });
    watcher = new pg.Client({ connectionString: databaseUrl });
    await Promise.all([locker.connect(), watcher.connect()]);
  });
  afterEach(async () => {
    await locker.query('ROLLBACK').catch(() => {});
  });
  afterAll(async () => {
    await Promise.all([locker.end(), watcher.end()]);
  });

  /** Until `count` statements of the app wait for the test's lock on `table`, and `held()` is true. */
  async function blocked(count: number, held: () => boolean = () => true, table = 'campaigns'): Promise<void> {
    for (let i = 0; i < 500; i++) {
      const [row] = (
        await watcher.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = $1 AND NOT l.granted',
          [table],
        )
      ).rows;
      if ((row?.n ?? 0) >= count && held()) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const seen = await watcher.query('SELECT state, wait_event_type, left(query, 60) AS q FROM pg_stat_activity WHERE datname = current_database()');
    throw new Error(`never saw ${count} statements waiting for the lock: ${JSON.stringify(seen.rows)}`);
  }

  it('gets 429 with Retry-After and details; another key is served meanwhile; readiness stays 200', async () => {
    const limiter = new KeyConcurrency();
    const app = testApp(db, { keyConcurrency: limiter });
    const { key: attacker, record } = await createApiKey(db, { name: 'attacker', tier: 'standard', clinicIds: [clinicId] });
    const victim = await createKey(db, { tier: 'standard', clinicIds: [clinicId] });
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE campaigns IN ACCESS EXCLUSIVE MODE');
    const held = Array.from({ length: 4 }, () => graphql(app, { key: attacker, query: '{ campaigns { nodes { id } } }' }));
    // Two of its four requests hold connections (its share of a pool of 5); two wait in its queue.
    await blocked(2, () => limiter.inFlight(record.id) === 4);
    const refused = await graphql(app, { key: attacker, query: '{ campaigns { nodes { id } } }' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({
      code: 'RATE_LIMITED',
      details: { limit: 'concurrency', max_units: 4, in_flight_units: 4, document_units: 1 },
    });
    const served = await graphql(app, { key: victim, query: `{ clinic(id: "${clinicId}") { id } }` });
    expect(served.status).toBe(200);
    expect(served.body.data).toEqual({ clinic: { id: clinicId } });
    const ready = await app.fetch('http://localhost/health/ready');
    expect(ready.status).toBe(200);
    await locker.query('ROLLBACK');
    for (const response of await Promise.all(held)) expect(response.status).toBe(200);
    // Its units come back once its work is done.
    expect((await graphql(app, { key: attacker, query: '{ campaigns { nodes { id } } }' })).status).toBe(200);
  });

  it('REST requests count too, with the same answer', async () => {
    const limiter = new KeyConcurrency();
    const app = testApp(db, { keyConcurrency: limiter });
    const { key: attacker, record } = await createApiKey(db, { name: 'attacker', tier: 'standard', clinicIds: [clinicId] });
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE campaigns IN ACCESS EXCLUSIVE MODE');
    const rest = (key: string) => app.fetch('http://localhost/api/v1/campaigns', { headers: { authorization: `Bearer ${key}` } });
    const held = Array.from({ length: 4 }, () => rest(attacker));
    await blocked(2, () => limiter.inFlight(record.id) === 4);
    const refused = await rest(attacker);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    const body = await refused.json();
    expect((body as { error: { code: string; details: unknown } }).error).toMatchObject({
      code: 'RATE_LIMITED',
      details: { limit: 'concurrency', max_units: 4, in_flight_units: 4, document_units: 1 },
    });
    // As the OpenAPI document describes a 429.
    const openapi = buildOpenApiDocument() as { components: Record<string, unknown> };
    const ajv = new Ajv2020({ strict: false });
    formats.default(ajv);
    const validate = ajv.compile({ $ref: '#/components/schemas/RateLimitedError', components: openapi.components });
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    await locker.query('ROLLBACK');
    for (const response of await Promise.all(held)) expect(response.status).toBe(200);
  });

  it("a series counts by its buckets: a year of hours with a comparison holds a Standard key's 4 units; in GraphQL two are refused", async () => {
    const limiter = new KeyConcurrency();
    const app = testApp(db, { keyConcurrency: limiter });
    const { key: attacker, record } = await createApiKey(db, { name: 'attacker', tier: 'standard', clinicIds: [clinicId] });
    const victim = await createKey(db, { tier: 'standard', clinicIds: [clinicId] });
    const get = (key: string, path: string) => app.fetch(`http://localhost${path}`, { headers: { authorization: `Bearer ${key}` } });
    const yearOfHours =
      '/api/v1/metrics/series?granularity=hour&timezone=Asia/Kathmandu&channel=voice&compare=previous_year&date_from=2025-03-01&date_to=2026-02-28';
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE interaction_hour_totals IN ACCESS EXCLUSIVE MODE');
    const held = get(attacker, yearOfHours);
    await blocked(1, () => limiter.inFlight(record.id) === 4, 'interaction_hour_totals');
    const refused = await get(attacker, '/api/v1/campaigns');
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { details: unknown } }).error.details).toEqual({
      limit: 'concurrency',
      max_units: 4,
      in_flight_units: 4,
      document_units: 1,
    });
    // Another key is not affected.
    expect((await get(victim, '/api/v1/campaigns')).status).toBe(200);
    await locker.query('ROLLBACK');
    const answer = await held;
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { data: { series: unknown[]; previous: { series: unknown[] } } }).data.series).toHaveLength(8_760);
    expect(limiter.inFlight(record.id)).toBe(0);
    // A 30-day hourly series is 1 unit: four of them fit at once, as before.
    const month = '/api/v1/metrics/series?granularity=hour&timezone=Asia/Kathmandu&date_from=2025-03-01&date_to=2025-03-30';
    for (const response of await Promise.all(Array.from({ length: 4 }, () => get(attacker, month)))) expect(response.status).toBe(200);
    // Two such series in one document cost twice the limit: never runnable, refused before any SQL.
    const series =
      'metricsSeries(granularity: HOUR, timezone: "Asia/Kathmandu", compare: PREVIOUS_YEAR, dateFrom: "2025-03-01", dateTo: "2026-02-28") { series { total } }';
    const two = await graphql(app, { key: attacker, query: `{ a: ${series} b: ${series} }` });
    expect(two.status).toBe(400);
    expect(two.body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', details: { max_units: 4, document_units: 8 } });
    expect((await graphql(app, { key: attacker, query: `{ a: ${series} }` })).status).toBe(200);
  });
});

describe('readiness while the whole pool is busy', () => {
  it('answers 200: the probe has its own connection', async () => {
    const small = createPrismaClient(databaseUrl, 1, {
      bounds: { connectTimeoutMs: 10_000, queryTimeoutMs: 0, statementTimeoutMs: 0, readyTimeoutMs: 1_000 },
    });
    const locker = new pg.Client({ connectionString: databaseUrl });
    await locker.connect();
    try {
      const app = testApp(small);
      const key = await createKey(small, { tier: 'unlimited', clinicIds: [clinicId] });
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE campaigns IN ACCESS EXCLUSIVE MODE');
      const held = graphql(app, { key, query: '{ campaigns { nodes { id } } }' });
      for (let i = 0; i < 500; i++) {
        const [row] = await sql<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'campaigns' AND NOT l.granted",
        );
        if ((row?.n ?? 0) >= 1) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect((await app.fetch('http://localhost/health/ready')).status).toBe(200);
      await locker.query('ROLLBACK');
      expect((await held).status).toBe(200);
    } finally {
      await locker.end();
      await small.$disconnect();
    }
  });
});

describe("one key's slow work", () => {
  it("fails that key's own waiting requests (503), never another key's", async () => {
    const bounded = createPrismaClient(databaseUrl, 4, {
      bounds: { connectTimeoutMs: 800, queryTimeoutMs: 0, statementTimeoutMs: 0, readyTimeoutMs: 1_000 },
    });
    const locker = new pg.Client({ connectionString: databaseUrl });
    await locker.connect();
    try {
      const app = testApp(bounded);
      // Unlimited: no concurrency limit, so only the pool's sharing stands between it and the victim.
      const attacker = await createKey(bounded, { tier: 'unlimited', clinicIds: [clinicId] });
      const victim = await createKey(bounded, { tier: 'standard', clinicIds: [clinicId] });
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE campaigns IN ACCESS EXCLUSIVE MODE');
      const flood = Array.from({ length: 8 }, () => graphql(app, { key: attacker, query: '{ campaigns { nodes { id } } }' }));
      for (let i = 0; i < 500; i++) {
        const [row] = await sql<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'campaigns' AND NOT l.granted",
        );
        if ((row?.n ?? 0) >= 2) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // As many at once as its own concurrency limit allows.
      const served = await Promise.all(Array.from({ length: 4 }, () => graphql(app, { key: victim, query: `{ clinic(id: "${clinicId}") { id } }` })));
      expect(served.map((response) => response.status)).toEqual([200, 200, 200, 200]);
      // The attacker's requests beyond its share waited in its own queue and were answered 503.
      const attacked = await Promise.race([Promise.all(flood), new Promise<'pending'>((resolve) => setTimeout(resolve, 3_000, 'pending'))]);
      await locker.query('ROLLBACK');
      const statuses = (attacked === 'pending' ? await Promise.all(flood) : attacked).map((response) => response.status);
      expect(statuses.filter((status) => status === 503).length).toBe(6);
      expect(statuses.filter((status) => status === 200).length).toBe(2);
    } finally {
      await locker.query('ROLLBACK').catch(() => {});
      await locker.end();
      await bounded.$disconnect();
    }
  });
});

describe('the fair gate', () => {
  it('grants freed connections to waiting keys in turn, never more than a key may hold', async () => {
    const gate = new FairGate({ capacity: 2, perKey: 2, queueTimeoutMs: 0 });
    const order: string[] = [];
    const held = [await gate.acquire('a'), await gate.acquire('a')];
    const granted = ['a', 'a', 'a', 'b', 'c'].map((lane) =>
      gate.acquire(lane).then((release) => {
        order.push(lane);
        return release;
      }),
    );
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    held[0]!();
    held[1]!();
    await settle();
    // a came first, but b is served before a's second request: one key's queue never holds another's.
    expect(order).toEqual(['a', 'b']);
    (await granted[0]!)();
    await settle();
    expect(order).toEqual(['a', 'b', 'c']);
    (await granted[3]!)();
    await settle();
    expect(order).toEqual(['a', 'b', 'c', 'a']);
    expect(gate.stats).toEqual({ active: 2, waiting: 1, lanes: 1 });
  });

  it("serves keys' work before admission in turn too, uncapped: one key's burst never holds another key's first statement", async () => {
    const gate = new FairGate({ capacity: 2, perKey: 1, queueTimeoutMs: 0 });
    const [a, b] = [laneBeforeAdmission('a'), laneBeforeAdmission('b')];
    // Not capped: a key may use the whole pool for the moment its burst takes (perKey is 1).
    const held = [await gate.acquire(a), await gate.acquire(a)];
    const order: string[] = [];
    const waiting = [a, a, a, a, b].map((lane) => gate.acquire(lane).then(() => order.push(lane)));
    held[0]!();
    await new Promise((resolve) => setImmediate(resolve));
    held[1]!();
    await new Promise((resolve) => setImmediate(resolve));
    // b asked last, behind four of a's, and is served second.
    expect(order).toEqual([a, b]);
    expect(waiting).toHaveLength(5);
  });

  it('fails a request that waits past the deadline, as a pool timeout (503)', async () => {
    const gate = new FairGate({ capacity: 1, perKey: 1, queueTimeoutMs: 50 });
    await gate.acquire('a');
    await expect(gate.acquire('b')).rejects.toThrow(/timeout exceeded when trying to connect/);
    expect(gate.stats.waiting).toBe(0);
  });
});
