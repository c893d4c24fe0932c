// GraphQL over HTTP as clients depend on it: the answer's media type follows Accept with its
// q-values, answers without `data` in application/graphql-response+json are never 2xx, refusals
// before GraphQL (401, 429, 405) are GraphQL error documents in the negotiated type, and every
// error's `extensions` has one shape with a catalogue code.
import { beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '../../src/domain/error-catalogue.js';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';

const db = testDb();
const app = testApp(db);
const GRAPHQL_RESPONSE = 'application/graphql-response+json';
let key = '';

beforeAll(async () => {
  key = await createKey(db);
});

interface Answer {
  status: number;
  type: string;
  headers: Headers;
  body: { data?: unknown; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
}

async function post(body: string, options: { accept?: string; authorization?: string | null; target?: typeof app } = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.accept !== undefined) headers.accept = options.accept;
  const authorization = options.authorization === undefined ? `Bearer ${key}` : options.authorization;
  if (authorization !== null) headers.authorization = authorization;
  const response = await (options.target ?? app).fetch('http://localhost/graphql', { method: 'POST', headers, body });
  return { status: response.status, type: response.headers.get('content-type') ?? '', headers: response.headers, body: await response.json() };
}

const query = (text: string, extra: Record<string, unknown> = {}) => JSON.stringify({ query: text, ...extra });

/** One shape for every error: a catalogue code, then only `details` and `retryAfterSeconds`. */
function expectShaped(answer: Answer): void {
  expect(answer.body.errors?.length, JSON.stringify(answer.body)).toBeGreaterThan(0);
  for (const error of answer.body.errors ?? []) {
    const extensions = error.extensions ?? {};
    expect(Object.keys(ERRORS), JSON.stringify(error)).toContain(extensions.code);
    expect(
      Object.keys(extensions).filter((name) => !['code', 'details', 'retryAfterSeconds'].includes(name)),
      JSON.stringify(error),
    ).toEqual([]);
  }
}

describe('media type negotiation', () => {
  it('follows q-values: JSON preferred over graphql-response+json when the client says so', async () => {
    const answer = await post(query('{ __typename }'), { accept: `${GRAPHQL_RESPONSE};q=0.1, application/json;q=1` });
    expect(answer.status).toBe(200);
    expect(answer.type).toBe('application/json; charset=utf-8');
  });

  it('a more specific range decides: application/*;q=1 with graphql-response+json;q=0 answers JSON', async () => {
    const answer = await post(query('{ __typename }'), { accept: `application/*, ${GRAPHQL_RESPONSE};q=0` });
    expect(answer.type).toBe('application/json; charset=utf-8');
  });

  it('equal q: the type the client lists first', async () => {
    expect((await post(query('{ __typename }'), { accept: `${GRAPHQL_RESPONSE}, application/json` })).type).toBe(`${GRAPHQL_RESPONSE}; charset=utf-8`);
    expect((await post(query('{ __typename }'), { accept: `application/json, ${GRAPHQL_RESPONSE}` })).type).toBe('application/json; charset=utf-8');
  });
});

describe('answers without data in application/graphql-response+json are 4xx', () => {
  for (const [name, text, extra] of [
    ['a mutation (the schema has none)', 'mutation { x }', {}],
    ['a subscription (the schema has none)', 'subscription { x }', {}],
    ['several operations and no operationName', 'query A { __typename } query B { __typename }', {}],
    ['an unknown operationName', 'query A { __typename }', { operationName: 'B' }],
  ] as const) {
    it(`${name}: 400 BAD_REQUEST`, async () => {
      const answer = await post(query(text, extra), { accept: GRAPHQL_RESPONSE });
      expect(answer.status).toBe(400);
      expect(answer.type).toBe(`${GRAPHQL_RESPONSE}; charset=utf-8`);
      expect(answer.body).not.toHaveProperty('data');
      expect(answer.body.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
      expectShaped(answer);
    });
  }

  it('a mutation in application/json: 200 (legacy clients), with the code', async () => {
    const answer = await post(query('mutation { x }'), { accept: 'application/json' });
    expect(answer.status).toBe(200);
    expect(answer.body.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
  });

  it('variables that do not fit: 400 with a code', async () => {
    const answer = await post(query('query ($n: Int!) { __typename }', { variables: { n: 'x' } }), { accept: GRAPHQL_RESPONSE });
    expect(answer.status).toBe(400);
    expect(answer.body).not.toHaveProperty('data');
    expect(answer.body.errors?.[0]?.extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED' });
  });

  it('an empty POST body: 400 BAD_REQUEST, not 413, in either type', async () => {
    for (const accept of [GRAPHQL_RESPONSE, 'application/json']) {
      const answer = await post('', { accept });
      expect(answer.status).toBe(400);
      expect(answer.type).toBe(`${accept}; charset=utf-8`);
      expect(answer.body.errors?.[0]?.extensions).toEqual({ code: 'BAD_REQUEST' });
    }
  });
});

describe('refusals before GraphQL are GraphQL errors in the negotiated type', () => {
  it('401 keeps WWW-Authenticate', async () => {
    const answer = await post(query('{ __typename }'), { accept: GRAPHQL_RESPONSE, authorization: null });
    expect(answer.status).toBe(401);
    expect(answer.type).toBe(`${GRAPHQL_RESPONSE}; charset=utf-8`);
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    expect(answer.body.errors?.[0]?.extensions?.code).toBe('UNAUTHORIZED');
    expectShaped(answer);
  });

  it('429 keeps Retry-After and says retryAfterSeconds', async () => {
    const limited = testApp(db, { authFailureLimits: { minute: 1, hour: 1, day: 1 } });
    await post(query('{ __typename }'), { target: limited, authorization: 'Bearer nope' });
    const answer = await post(query('{ __typename }'), { target: limited, accept: GRAPHQL_RESPONSE, authorization: 'Bearer nope' });
    expect(answer.status).toBe(429);
    expect(answer.type).toBe(`${GRAPHQL_RESPONSE}; charset=utf-8`);
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(answer.body.errors?.[0]?.extensions).toEqual({ code: 'RATE_LIMITED', retryAfterSeconds: Number(answer.headers.get('retry-after')) });
  });
});

describe('one extensions shape', () => {
  it('limits are details: too many tokens', async () => {
    const answer = await post(query(`{ ${'__typename '.repeat(1_001)}}`), { accept: GRAPHQL_RESPONSE });
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.[0]?.extensions).toEqual({ code: 'TOO_MANY_TOKENS', details: { limit: 1_000 } });
  });

  it('a document that does not parse, or fails validation, has the one shape', async () => {
    expectShaped(await post(query('{'), { accept: GRAPHQL_RESPONSE }));
    expectShaped(await post(query('{ nope }'), { accept: GRAPHQL_RESPONSE }));
    expectShaped(await post('{"query": 1}', { accept: GRAPHQL_RESPONSE }));
  });
});
