// Protection of /graphql against expensive free-form queries, end to end through `app.fetch`:
// depth, breadth and cost (QUERY_LIMITS, @pothos/plugin-complexity, checked over the whole
// operation by use-document-limits.ts), the alias cap (MAX_ALIASES), body size and tokens, and
// the per-key limits on expensive fields (FIELD_RATE_LIMITS), on GraphQL and through REST.
// Each refuses what it should and passes what it should; refused queries never reach the database
// (the app reads through a PrismaClient that logs every SQL statement, as in query-count.test.ts).
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { getIntrospectionQuery, isNonNullType, Lexer, print, Source, TokenKind } from 'graphql';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.js';
import { createApiKeyResolver } from '../../src/auth/api-keys.js';
import { createPrismaClient } from '../../src/db/client.js';
import { QUERY_LIMITS } from '../../src/graphql/builder.js';
import { FIELD_RATE_LIMITS, schema } from '../../src/graphql/index.js';
import { MAX_ALIASES, MAX_BODY_BYTES, MAX_TOKENS } from '../../src/graphql/use-document-limits.js';
import { createRedisClient, whenReady } from '../../src/limits/redis-client.js';
import { routes } from '../../src/rest/routes.js';
import { createKey, type GraphQLResponse, graphql, testApp } from '../helpers/app.js';
import { databaseUrl, testDb } from '../helpers/db.js';
import { createCallPage, createCampaign, createClinic } from '../helpers/factories.js';
import { redisUrl, requireRedis } from '../helpers/redis.js';
import { get } from '../rest/client.js';
import { statuses } from './support.js';

const db = testDb();

// The app reads through a client that logs every SQL statement; API keys are resolved through the
// file's ordinary client, so authentication is not counted, and neither is the one small statement
// that finds the clinics of the key's environment (src/auth/api-keys.ts): it is part of
// admitting the request, as the key lookup is, and reads no interaction.
const statements: string[] = [];
const ENVIRONMENT_STATEMENT = /^\/\* prepared (key_)?clinics_of_environment \*\//;
const counting = createPrismaClient(databaseUrl, 4, { onStatement: (text) => statements.push(text) });
afterAll(async () => {
  await counting.$disconnect();
});

// The per-key concurrency limit (test/limits/concurrency.test.ts) is off here: these documents
// repeat a field more times than it allows, to reach the per-field limits.
function appOn(options: Parameters<typeof testApp>[1] = {}): App {
  return testApp(counting, {
    keyResolver: createApiKeyResolver(db, { ttlMs: 0 }),
    keyConcurrency: { standard: 0, premium: 0, unlimited: 0 },
    ...options,
  });
}

/** Runs a query and returns the response and the SQL statements the app sent for it. */
async function measure(app: App, key: string, query: string, variables: Record<string, unknown> = {}) {
  statements.length = 0;
  const response = await graphql(app, { key, query, variables });
  return { response, sql: statements.filter((text) => !ENVIRONMENT_STATEMENT.test(text)).length };
}

function codesOf(response: GraphQLResponse<unknown>): Array<string | undefined> {
  return (response.body.errors ?? []).map((e) => e.extensions?.code);
}

function expectNoErrors(response: GraphQLResponse<unknown>): void {
  expect(response.status, JSON.stringify(response.body.errors)).toBe(200);
  expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
}

const PAGE_SIZE = 500;
let clinicId: string;
let key: string;

beforeAll(async () => {
  const clinic = await createClinic(db);
  clinicId = clinic.id;
  const campaign = await createCampaign(db, clinic.id);
  const prefix = `gp${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  await createCallPage(db, { prefix, count: PAGE_SIZE, clinicId, campaignId: campaign.id });
  // Unlimited tier: these tests are about the query, not the per-key quota.
  key = await createKey(db, { clinicIds: [clinicId] });
});

/**
 * A query `levels` fields deep (the leaf `id` included, as the complexity plugin counts):
 * clinic { campaigns { clinic { campaigns { ... id } } } }, one campaign per page.
 */
function nested(levels: number): string {
  let inner = 'id';
  for (let level = levels - 1; level >= 2; level--) inner = level % 2 === 0 ? `campaigns(limit: 1) { ${inner} }` : `clinic { ${inner} }`;
  return `query($id: ID!) { clinic(id: $id) { ${inner} } }`;
}

describe('depth', () => {
  it(`passes a query exactly ${QUERY_LIMITS.depth} levels deep`, async () => {
    const app = appOn();
    const { response, sql } = await measure(app, key, nested(QUERY_LIMITS.depth), { id: clinicId });
    expectNoErrors(response);
    // Down the chain to the innermost id.
    let node: unknown = response.body.data?.clinic;
    for (let level = 2; level < QUERY_LIMITS.depth; level++) {
      const next = (node as Record<string, unknown>)[level % 2 === 0 ? 'campaigns' : 'clinic'];
      node = Array.isArray(next) ? next[0] : next;
      expect(node, `level ${level}`).toBeTruthy();
    }
    expect((node as { id: string }).id).toBeTypeOf('string');
    expect(sql).toBeGreaterThan(0);
  });

  it(`refuses a query ${QUERY_LIMITS.depth + 1} levels deep with QUERY_TOO_DEEP, before any SQL`, async () => {
    const app = appOn();
    for (const levels of [QUERY_LIMITS.depth + 1, QUERY_LIMITS.depth + 5]) {
      const { response, sql } = await measure(app, key, nested(levels), { id: clinicId });
      expect(codesOf(response)).toEqual(['QUERY_TOO_DEEP']);
      expect(response.body.errors?.[0]?.message).toBe(`The query nests ${levels} levels; at most ${QUERY_LIMITS.depth} are allowed`);
      expect(response.body.data?.clinic ?? null).toBeNull();
      expect(sql).toBe(0);
    }
  });

  it('counts depth through fragments too', async () => {
    const app = appOn();
    const query = `query($id: ID!) { clinic(id: $id) { ...C } }
      fragment C on Clinic { campaigns(limit: 1) { clinic { campaigns(limit: 1) { clinic { campaigns(limit: 1) { clinic { campaigns(limit: 1) { id } } } } } } } }`;
    const { response, sql } = await measure(app, key, query, { id: clinicId });
    expect(codesOf(response)).toEqual(['QUERY_TOO_DEEP']);
    expect(sql).toBe(0);
  });

  it('a too-deep field refuses the whole operation: a cheap sibling root field does not run either', async () => {
    const app = appOn();
    const deep = nested(QUERY_LIMITS.depth + 1)
      .replace('query($id: ID!) {', '')
      .replace(/}\s*$/, '');
    const { response, sql } = await measure(app, key, `query($id: ID!) { clinics(limit: 1) { nodes { id } } ${deep} }`, { id: clinicId });
    expect(codesOf(response)).toContain('QUERY_TOO_DEEP');
    expect(response.body.data?.clinics ?? null).toBeNull();
    expect(sql).toBe(0);
  });
});

describe('aliases', () => {
  const aliased = (n: number, prefix = 'a') => Array.from({ length: n }, (_, i) => `${prefix}${i}: clinic(id: $id) { id }`).join('\n');

  it(`passes ${MAX_ALIASES} aliases`, async () => {
    expect(MAX_ALIASES).toBe(15);
    const { response } = await measure(appOn(), key, `query($id: ID!) { ${aliased(15)} }`, { id: clinicId });
    expectNoErrors(response);
    expect(Object.keys(response.body.data ?? {})).toHaveLength(15);
    for (const value of Object.values(response.body.data ?? {})) expect(value).toEqual({ id: clinicId });
  });

  it('refuses 16 aliases with TOO_MANY_ALIASES, before any SQL', async () => {
    const { response, sql } = await measure(appOn(), key, `query($id: ID!) { ${aliased(16)} }`, { id: clinicId });
    expect(response.status).toBe(400);
    expect(codesOf(response)).toEqual(['TOO_MANY_ALIASES']);
    expect(response.body.errors?.[0]?.message).toBe('Aliases limit of 15 exceeded, found 16.');
    expect(response.body.data ?? null).toBeNull();
    expect(sql).toBe(0);
  });

  it('counts aliases at every level and inside fragments', async () => {
    const app = appOn();
    // 7 at the root, 1 on the parent, 8 inside it: 16.
    const nestedAliases = `query($id: ID!) { ${aliased(7)} c: clinic(id: $id) { ${Array.from({ length: 8 }, (_, i) => `i${i}: id`).join(' ')} } }`;
    const inFragments = `query($id: ID!) { ...F ...G } fragment F on Query { ${aliased(8, 'f')} } fragment G on Query { ${aliased(8, 'g')} }`;
    for (const query of [nestedAliases, inFragments]) {
      const { response, sql } = await measure(app, key, query, { id: clinicId });
      expect(codesOf(response), query).toEqual(['TOO_MANY_ALIASES']);
      expect(response.body.errors?.[0]?.message).toBe('Aliases limit of 15 exceeded, found 16.');
      expect(sql).toBe(0);
    }
  });
});

describe('cost and breadth', () => {
  it('refuses pages of pages: clinics(limit: 500) { nodes { interactions(limit: 500) } } is QUERY_TOO_COMPLEX, before any SQL', async () => {
    const app = appOn();
    const literal = await measure(app, key, '{ clinics(limit: 500) { nodes { interactions(limit: 500) { id } } } }');
    // The page sizes may come in variables: they are priced the same.
    const variables = await measure(app, key, 'query($l: Int) { clinics(limit: $l) { nodes { interactions(limit: $l) { id } } } }', { l: 500 });
    for (const { response, sql } of [literal, variables]) {
      expect(codesOf(response)).toEqual(['QUERY_TOO_COMPLEX']);
      expect(response.body.errors?.[0]?.message).toMatch(/^The query's cost is \d+; at most 30000 is allowed/);
      expect(response.body.data?.clinics ?? null).toBeNull();
      expect(sql).toBe(0);
    }
  });

  it('passes a page of 500 interactions with their clinic and campaign, in a few SQL statements', async () => {
    const { response, sql } = await measure(
      appOn(),
      key,
      'query($id: ID) { interactions(limit: 500, clinicId: $id) { nodes { id clinic { name } campaign { name } } pageInfo { total } } }',
      { id: clinicId },
    );
    expectNoErrors(response);
    const page = response.body.data?.interactions as { nodes: Array<{ clinic: { name: string }; campaign: { name: string } }>; pageInfo: { total: number } };
    expect(page.pageInfo.total).toBe(PAGE_SIZE);
    expect(page.nodes).toHaveLength(PAGE_SIZE);
    for (const node of page.nodes) {
      expect(node.clinic.name).toBeTypeOf('string');
      expect(node.campaign.name).toBe('Test campaign');
    }
    expect(sql).toBeLessThanOrEqual(6);
  });

  it('prices a list as its page size times its selection: just under the limit passes, just over is refused', async () => {
    const app = appOn();
    // clinics(limit: L) { nodes { interactions(limit: 499) { id } } } costs 1 + L x (1 + 499).
    const largest = Math.floor((QUERY_LIMITS.complexity - 1) / 500);
    const query = (l: number) => `{ clinics(limit: ${l}) { nodes { interactions(limit: 499) { id } } } }`;
    const under = await measure(app, key, query(largest));
    expectNoErrors(under.response);
    const over = await measure(app, key, query(largest + 1));
    expect(codesOf(over.response)).toEqual(['QUERY_TOO_COMPLEX']);
    expect(over.response.body.errors?.[0]?.message).toContain(`cost is ${1 + (largest + 1) * 500};`);
    expect(over.sql).toBe(0);
  });

  it(`refuses a selection of more than ${QUERY_LIMITS.breadth} fields with QUERY_TOO_BROAD, passes ${QUERY_LIMITS.breadth}`, async () => {
    const app = appOn();
    // clinic + n x id selects n + 1 fields.
    const query = (n: number) => `query($id: ID!) { clinic(id: $id) { ${Array.from({ length: n }, () => 'id').join(' ')} } }`;
    const atLimit = await measure(app, key, query(QUERY_LIMITS.breadth - 1), { id: clinicId });
    expectNoErrors(atLimit.response);
    const over = await measure(app, key, query(QUERY_LIMITS.breadth), { id: clinicId });
    expect(codesOf(over.response)).toEqual(['QUERY_TOO_BROAD']);
    expect(over.sql).toBe(0);
  });
});

describe('every field counts: __typename and introspection', () => {
  const typenames = (n: number, alias = false) => Array.from({ length: n }, (_, i) => (alias ? `t${i}: __typename` : '__typename')).join(' ');

  it(`aliases of __typename count: ${MAX_ALIASES} pass, ${MAX_ALIASES + 1} are TOO_MANY_ALIASES, at any level`, async () => {
    const app = appOn();
    const passes = await measure(app, key, `{ ${typenames(MAX_ALIASES, true)} }`);
    expectNoErrors(passes.response);
    for (const query of [`{ ${typenames(MAX_ALIASES + 1, true)} }`, `{ __schema { types { fields { ${typenames(MAX_ALIASES + 1, true)} } } } }`]) {
      const { response, sql } = await measure(app, key, query);
      expect(response.status, query).toBe(400);
      expect(codesOf(response), query).toEqual(['TOO_MANY_ALIASES']);
      expect(sql).toBe(0);
    }
  });

  it(`a document of __typename only is costed like any other: ${QUERY_LIMITS.breadth} pass, one more is QUERY_TOO_BROAD`, async () => {
    const app = appOn();
    expectNoErrors((await measure(app, key, `{ ${typenames(QUERY_LIMITS.breadth)} }`)).response);
    const over = await measure(app, key, `{ ${typenames(QUERY_LIMITS.breadth + 1)} }`);
    expect(over.response.status).toBe(400);
    expect(codesOf(over.response)).toEqual(['QUERY_TOO_BROAD']);
    expect(over.response.body.errors?.[0]?.message).toBe(`The query selects ${QUERY_LIMITS.breadth + 1} fields; at most ${QUERY_LIMITS.breadth} are allowed`);
  });

  it("GraphiQL's introspection query passes; the same types asked for fifteen times over is QUERY_TOO_COMPLEX, before any SQL", async () => {
    const app = appOn();
    const graphiql = getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true });
    const introspection = await measure(app, key, graphiql);
    expectNoErrors(introspection.response);
    expect(introspection.response.body.data?.__schema).toBeTruthy();
    // Each copy returns every type with its fields, their arguments and types: about 2,400 fields.
    const fragments = graphiql.slice(graphiql.indexOf('fragment FullType'));
    const copies = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `s${i}: __schema { types { ...FullType } }`).join(' ')} } ${fragments}`;
    expectNoErrors((await measure(app, key, copies(1))).response);
    const { response, sql } = await measure(app, key, copies(MAX_ALIASES));
    expect(response.status).toBe(400);
    expect(codesOf(response)).toEqual(['QUERY_TOO_COMPLEX']);
    expect(response.body.data ?? null).toBeNull();
    expect(sql).toBe(0);
  });

  it('a transcript is priced by its turns: pages of transcripts at the cost limit pass, five pages of 500 are QUERY_TOO_COMPLEX; REST pages of 500 still pass', async () => {
    const app = appOn();
    const pages = (limits: number[]) =>
      `{ ${limits.map((limit, i) => `p${i}: interactions(limit: ${limit}) { nodes { id transcript { role content } } }`).join(' ')} }`;
    // 1 + limit x (1 + (1 + 10 x 2)) each.
    expectNoErrors((await measure(app, key, pages([500, 500, 360]))).response);
    const over = await measure(app, key, pages([500, 500, 500, 500, 500]));
    expect(codesOf(over.response)).toEqual(['QUERY_TOO_COMPLEX']);
    expect(over.sql).toBe(0);
    const rest = await get(app, '/api/v1/interactions?limit=500', key);
    expect(rest.status).toBe(200);
  });

  it('a document sent again gets the same verdict (kept per document), and its variables are costed on each request', async () => {
    const app = appOn();
    const pages = (limits: number[]) =>
      `query Pages { ${limits.map((limit, i) => `p${i}: interactions(limit: ${limit}) { nodes { id transcript { role content } } }`).join(' ')} }`;
    for (let i = 0; i < 3; i++) {
      expectNoErrors((await measure(app, key, pages([500, 500, 360]))).response);
      const over = await measure(app, key, pages([500, 500, 500, 500, 500]));
      expect(codesOf(over.response)).toEqual(['QUERY_TOO_COMPLEX']);
      expect(over.sql).toBe(0);
    }
    const byVariable =
      'query Pages($n: Int!) { a: interactions(limit: $n) { nodes { id transcript { role content } } } b: interactions(limit: $n) { nodes { id transcript { role content } } } c: interactions(limit: $n) { nodes { id transcript { role content } } } }';
    for (const [n, passes] of [
      [100, true],
      [500, false],
      [100, true],
      [500, false],
    ] as const) {
      const { response, sql } = await measure(app, key, byVariable, { n });
      if (passes) expectNoErrors(response);
      else {
        expect(codesOf(response), `limit ${n}`).toEqual(['QUERY_TOO_COMPLEX']);
        expect(sql).toBe(0);
      }
    }
  });
});

describe('document size', () => {
  const tokensOf = (text: string) => {
    const lexer = new Lexer(new Source(text));
    let n = 0;
    while (lexer.advance().kind !== TokenKind.EOF) n++;
    return n;
  };

  it(`every legitimate document is far under ${MAX_TOKENS} tokens: the REST documents, GraphiQL's introspection, the README's GraphQL example`, () => {
    // Each REST document as a client would send it to /graphql: the operation and the fragments it uses.
    const documents = routes.flatMap((route) => [route.document, ...(route.alternative ? [route.alternative.document] : [])]).map((d) => print(d));
    expect(documents.length).toBeGreaterThan(readdirSync('schema/rest').length - 2);
    documents.push(
      getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true }),
    );
    documents.push(
      '{ metricsSummary { totalInteractions successRate } interactions(limit: 3) { nodes { id channel outcome clinic { name } } pageInfo { total } } }',
    );
    for (const document of documents) expect(tokensOf(document)).toBeLessThan(MAX_TOKENS / 4);
  });

  it(`more than ${MAX_TOKENS} tokens is TOO_MANY_TOKENS (400), before any SQL`, async () => {
    const app = appOn();
    const atLimit = `{ ${Array.from({ length: MAX_TOKENS - 2 }, () => '__typename').join(' ')} }`;
    expect(tokensOf(atLimit)).toBe(MAX_TOKENS);
    // Within the token limit: parsed (and refused by a later check: graphql-js's own bound on
    // comparing a thousand same-named fields, or the breadth limit).
    expect(codesOf((await measure(app, key, atLimit)).response)).not.toContain('TOO_MANY_TOKENS');
    const { response, sql } = await measure(app, key, `{ ${Array.from({ length: MAX_TOKENS - 1 }, () => '__typename').join(' ')} }`);
    expect(response.status).toBe(400);
    expect(codesOf(response)).toEqual(['TOO_MANY_TOKENS']);
    expect(response.body.errors?.[0]?.message).toBe(`The document has more than ${MAX_TOKENS} tokens (names, punctuation, values); send a smaller query`);
    expect(sql).toBe(0);
  });

  it(`a body over ${MAX_BODY_BYTES} bytes is 413 REQUEST_TOO_LARGE; so is a GET query string over it; just under passes`, async () => {
    const app = appOn();
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' };
    // Padding in a comment: no tokens, only bytes.
    const body = (bytes: number) => {
      const shell = JSON.stringify({ query: '{ __typename }\n#' });
      return JSON.stringify({ query: `{ __typename }\n#${'x'.repeat(bytes - shell.length)}` });
    };
    expect(Buffer.byteLength(body(MAX_BODY_BYTES))).toBe(MAX_BODY_BYTES);
    const under = await app.fetch('http://localhost/graphql', { method: 'POST', headers, body: body(MAX_BODY_BYTES) });
    expect(under.status).toBe(200);
    const over = await app.fetch('http://localhost/graphql', { method: 'POST', headers, body: body(MAX_BODY_BYTES + 1) });
    expect(over.status).toBe(413);
    expect(((await over.json()) as GraphQLResponse<unknown>['body']).errors?.map((e) => e.extensions?.code)).toEqual(['REQUEST_TOO_LARGE']);
    const longGet = await app.fetch(`http://localhost/graphql?query=${encodeURIComponent(`{ __typename }\n#${'x'.repeat(MAX_BODY_BYTES)}`)}`, { headers });
    expect(longGet.status).toBe(413);
    expect(((await longGet.json()) as GraphQLResponse<unknown>['body']).errors?.map((e) => e.extensions?.code)).toEqual(['REQUEST_TOO_LARGE']);
  });
});

describe('per-field rate limits (FIELD_RATE_LIMITS, per API key)', () => {
  // The limiter keeps call timestamps from Date.now() in a sliding window of one second. Freezing
  // Date (timers stay real) makes every burst fall in one window, so counts are exact.
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(Date.UTC(2026, 2, 10, 12, 0, 0)));
  });
  afterAll(() => {
    vi.useRealTimers();
  });
  afterEach(() => {
    vi.setSystemTime(Date.now() + 60_000);
  });

  const metricsLimit = FIELD_RATE_LIMITS.find((l) => l.field === 'metricsSummary')!;
  const manySummaries = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `m${i}: metricsSummary { totalInteractions }`).join(' ')} }`;
  const resolved = (response: GraphQLResponse<unknown>) =>
    Object.values((response.body.data ?? {}) as Record<string, unknown>).filter((v) => v !== null).length;

  it('are what the module says: metrics fields 10 per second', () => {
    expect(metricsLimit).toEqual({ type: 'Query', field: 'metricsSummary', max: 10, window: '1s' });
  });

  it('every limited field is nullable, so a refused one is null at its own path and not the whole data', () => {
    const fields = schema.getQueryType()!.getFields();
    expect(FIELD_RATE_LIMITS.filter((limit) => isNonNullType(fields[limit.field]!.type)).map((limit) => limit.field)).toEqual([]);
  });

  it('a field beyond its limit answers null with RATE_LIMITED at its path; the rest of the document runs (200)', async () => {
    const app = appOn({ fieldRateLimits: FIELD_RATE_LIMITS });
    const own = await createKey(db, { clinicIds: [clinicId], tier: 'premium' });
    const allowed = metricsLimit.max;
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      // Each pass in a window of its own.
      vi.setSystemTime(Date.now() + 1_001);
      const query = `{ clinics { nodes { id } } ${Array.from({ length: allowed + 2 }, (_, i) => `a${i}: metricsSummary { totalInteractions }`).join(' ')} }`;
      const response = await app.fetch('http://localhost/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${own}` },
        body: JSON.stringify({ query }),
      });
      expect(response.status, accept).toBe(200);
      const body = (await response.json()) as GraphQLResponse<Record<string, unknown>>['body'];
      expect(body.data?.clinics).toEqual({ nodes: [{ id: clinicId }] });
      for (let i = 0; i < allowed; i++) expect(body.data?.[`a${i}`], `a${i}`).toEqual({ totalInteractions: expect.any(Number) });
      expect([body.data?.[`a${allowed}`], body.data?.[`a${allowed + 1}`]]).toEqual([null, null]);
      expect(body.errors).toEqual(
        [allowed, allowed + 1].map((i) => ({
          message: 'Too many metricsSummary executions: at most 10 per second per API key',
          locations: [expect.any(Object)],
          path: [`a${i}`],
          extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 1, details: { limit: 'field', field: 'metricsSummary', max_per_second: 10 } },
        })),
      );
    }
  });

  it('count per key and per second: another key is not affected, and the next second allows 10 again', async () => {
    const app = appOn({ fieldRateLimits: FIELD_RATE_LIMITS });
    const own = await createKey(db, { clinicIds: [clinicId], tier: 'premium' });
    const first = await measure(app, own, manySummaries(12));
    expect(resolved(first.response)).toBe(10);
    expect(codesOf(first.response)).toEqual(['RATE_LIMITED', 'RATE_LIMITED']);
    // The refused fields read nothing: one statement per summary that ran.
    expect(first.sql).toBe(10);

    const other = await createKey(db, { clinicIds: [clinicId], tier: 'premium' });
    expectNoErrors((await measure(app, other, manySummaries(1))).response);
    // Still within the second, the key has used its 10.
    expect(codesOf((await measure(app, own, manySummaries(1))).response)).toEqual(['RATE_LIMITED']);
    vi.setSystemTime(Date.now() + 1_001);
    const later = await measure(app, own, manySummaries(11));
    expect(resolved(later.response)).toBe(10);
    expect(later.response.body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['m10'], 'RATE_LIMITED']]);
  });

  it('with the concurrency limit on (a Standard key): the fourth document of three summaries in a second runs one of them', async () => {
    const app = appOn({ fieldRateLimits: FIELD_RATE_LIMITS, keyConcurrency: undefined });
    const own = await createKey(db, { clinicIds: [clinicId], tier: 'standard' });
    for (let i = 0; i < 3; i++) expectNoErrors(await graphql(app, { key: own, query: manySummaries(3) }));
    const fourth = await graphql(app, { key: own, query: manySummaries(3) });
    expect(fourth.status).toBe(200);
    expect(fourth.body.data).toEqual({ m0: { totalInteractions: expect.any(Number) }, m1: null, m2: null });
    expect(fourth.body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['m1'], 'RATE_LIMITED'],
      [['m2'], 'RATE_LIMITED'],
    ]);
  });

  it('passes 10 aliased metricsSummary, and 8 metricsSummary with 7 metricsDaily (each field has its own limit)', async () => {
    const app = appOn({ fieldRateLimits: FIELD_RATE_LIMITS });
    const own = await createKey(db, { clinicIds: [clinicId], tier: 'premium' });
    const ten = await measure(app, own, manySummaries(10));
    expectNoErrors(ten.response);
    expect(resolved(ten.response)).toBe(10);
    // The 11th metricsSummary within the second is refused.
    expect(codesOf((await measure(app, own, manySummaries(1))).response)).toEqual(['RATE_LIMITED']);

    const another = await createKey(db, { clinicIds: [clinicId], tier: 'premium' });
    const mixed = `{ ${Array.from({ length: 8 }, (_, i) => `s${i}: metricsSummary { totalInteractions }`).join(' ')} ${Array.from({ length: 7 }, (_, i) => `d${i}: metricsDaily { date }`).join(' ')} }`;
    const both = await measure(app, another, mixed);
    expectNoErrors(both.response);
    expect(resolved(both.response)).toBe(15);
  });

  it('hold for concurrent GraphQL requests: exactly 10 metricsSummary run in a second', async () => {
    const app = appOn({ fieldRateLimits: FIELD_RATE_LIMITS });
    const own = await createKey(db, { clinicIds: [clinicId], tier: 'premium' });
    const responses = await Promise.all(Array.from({ length: 30 }, () => measure(app, own, manySummaries(1))));
    const codes = responses.map((r) => (r.response.body.errors?.length ? codesOf(r.response).join() : 'ok'));
    expect(codes.filter((c) => c === 'ok')).toHaveLength(10);
    expect(codes.filter((c) => c === 'RATE_LIMITED')).toHaveLength(20);
  });

  it('do not apply to the REST facade (one field per request, bounded by the quotas): 30 concurrent summaries all succeed', async () => {
    const app = appOn({ fieldRateLimits: FIELD_RATE_LIMITS });
    const own = await createKey(db, { clinicIds: [clinicId], tier: 'premium' });
    const responses = await Promise.all(Array.from({ length: 30 }, () => get(app, '/api/v1/metrics/summary', own)));
    expect(statuses(responses)).toEqual({ 200: 30 });
  });

  it('do not apply to Unlimited keys, which are never limited', async () => {
    const app = appOn({ fieldRateLimits: FIELD_RATE_LIMITS });
    const unlimited = await createKey(db, { clinicIds: [clinicId], tier: 'unlimited' });
    const { response } = await measure(app, unlimited, manySummaries(12));
    expectNoErrors(response);
    expect(resolved(response)).toBe(12);
  });

  it('off for an app built with fieldRateLimits: [] (what testApp does by default)', async () => {
    const app = appOn();
    const own = await createKey(db, { clinicIds: [clinicId], tier: 'premium' });
    const responses = await Promise.all(Array.from({ length: 15 }, () => get(app, '/api/v1/metrics/summary', own)));
    expect(statuses(responses)).toEqual({ 200: 15 });
  });
});

const redisAvailable = await requireRedis('per-field GraphQL rate limits in Redis');

describe.skipIf(!redisAvailable)('per-field rate limits shared through Redis (as server.ts configures them)', () => {
  let redis: Redis;
  beforeAll(async () => {
    redis = createRedisClient(redisUrl);
    expect(await whenReady(redis, 5_000)).toBe(true);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(Date.UTC(2026, 2, 10, 13, 0, 0)));
  });
  afterAll(() => {
    vi.useRealTimers();
    redis.disconnect();
  });

  const oneSummary = '{ metricsSummary { totalInteractions } }';
  const outcome = (response: GraphQLResponse<unknown>) => (response.body.errors?.length ? codesOf(response).join() : 'ok');

  it('refuses the 11th sequential metrics query within a second', async () => {
    const app = appOn({ fieldRateLimits: FIELD_RATE_LIMITS, redis });
    const own = await createKey(db, { clinicIds: [clinicId], tier: 'premium' });
    const outcomes = [];
    for (let i = 0; i < 12; i++) outcomes.push(outcome(await graphql(app, { key: own, query: oneSummary })));
    expect(outcomes).toEqual([...Array.from({ length: 10 }, () => 'ok'), 'RATE_LIMITED', 'RATE_LIMITED']);
  });

  // The limiter reads an identity's timestamps and writes them back separately; the reserving Redis
  // store (src/graphql/field-limit-store.ts) records each call atomically when it is read, so every
  // field of one query, and concurrent requests on several instances, see each other.
  it('30 concurrent queries over two instances sharing Redis: exactly 10 run, 20 are RATE_LIMITED', async () => {
    const first = appOn({ fieldRateLimits: FIELD_RATE_LIMITS, redis });
    const second = appOn({ fieldRateLimits: FIELD_RATE_LIMITS, redis });
    const own = await createKey(db, { clinicIds: [clinicId], tier: 'premium' });
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, i) => graphql(i % 2 ? first : second, { key: own, query: oneSummary }).then(outcome)));
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(10);
    expect(outcomes.filter((o) => o === 'RATE_LIMITED')).toHaveLength(20);
  });

  it('one query with 12 aliased metricsSummary resolves 10; the other two are null with RATE_LIMITED', async () => {
    const app = appOn({ fieldRateLimits: FIELD_RATE_LIMITS, redis });
    const own = await createKey(db, { clinicIds: [clinicId], tier: 'premium' });
    const response = await graphql(app, {
      key: own,
      query: `{ ${Array.from({ length: 12 }, (_, i) => `m${i}: metricsSummary { totalInteractions }`).join(' ')} }`,
    });
    expect(response.status).toBe(200);
    const resolvedCount = Object.values((response.body.data ?? {}) as Record<string, unknown>).filter((v) => v !== null).length;
    expect(resolvedCount).toBe(10);
    expect(response.body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['m10'], 'RATE_LIMITED'],
      [['m11'], 'RATE_LIMITED'],
    ]);
  });
});
