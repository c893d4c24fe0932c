// Argument validation: every bad argument of a field is named at once in one VALIDATION_ERROR
// (`extensions.details`), the field resolves to null, and the rest of the query still resolves.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createKey, expectNoErrors, graphql, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createClinic, createInteraction } from '../helpers/factories.js';
import { errorsOf, expectValidationError } from './support.js';

const db = testDb();
const app = testApp(db);
let key = '';
let clinicId = '';

beforeAll(async () => {
  const clinic = await createClinic(db);
  clinicId = clinic.id;
  await createInteraction(db, { clinicId, startedAt: new Date('2025-02-01T10:00:00.000Z') });
  key = await createKey(db, { clinicIds: [clinicId] });
});

const INTERACTIONS = `query($page: Int, $limit: Int, $dateFrom: String, $dateTo: String, $channel: Channel, $type: InteractionType,
    $outcomes: [Outcome!], $clinicId: ID, $search: String) {
  interactions(page: $page, limit: $limit, dateFrom: $dateFrom, dateTo: $dateTo, channel: $channel, type: $type,
      outcomes: $outcomes, clinicId: $clinicId, search: $search) { nodes { id } pageInfo { total } }
}`;

const interactions = (variables: Record<string, unknown>) => graphql(app, { key, query: INTERACTIONS, variables });

describe('interactions arguments', () => {
  it.each([
    ['page 0', { page: 0 }, ['page']],
    ['page -1', { page: -1 }, ['page']],
    ['limit 0', { limit: 0 }, ['limit']],
    ['limit -5', { limit: -5 }, ['limit']],
    ['limit 501', { limit: 501 }, ['limit']],
    ['a malformed dateFrom', { dateFrom: 'yesterday' }, ['dateFrom']],
    ['an impossible date', { dateFrom: '2025-02-30' }, ['dateFrom']],
    ['month 13', { dateTo: '2025-13-01' }, ['dateTo']],
    ['a date-time without Z or offset', { dateFrom: '2025-02-01T10:00:00' }, ['dateFrom']],
    ['a slash date', { dateTo: '01/02/2025' }, ['dateTo']],
    ['dateFrom later than dateTo', { dateFrom: '2025-02-02', dateTo: '2025-02-01' }, ['dateFrom']],
    ['dateFrom later than dateTo by one millisecond', { dateFrom: '2025-02-01T10:00:00.001Z', dateTo: '2025-02-01T10:00:00Z' }, ['dateFrom']],
    ['a clinicId that is not a UUID', { clinicId: 'clinic-1' }, ['clinicId']],
    ['a UUID with a trailing character', { clinicId: `${randomUUID()}x` }, ['clinicId']],
    ['an empty search', { search: '' }, ['search']],
    ['an empty outcomes list', { outcomes: [] }, ['outcomes']],
    ['a type not valid for the channel', { channel: 'VOICE', type: 'APPOINTMENT_REMINDER' }, ['type']],
  ])('%s', async (_name, variables, names) => {
    const response = await interactions(variables);
    expectValidationError(response, names);
    expect(response.body.data).toEqual({ interactions: null });
  });

  it('names EVERY bad argument at once', async () => {
    const response = await interactions({
      page: 0,
      limit: 501,
      dateFrom: 'not a date',
      dateTo: '2025-02-30',
      clinicId: 'nope',
      search: '',
      channel: 'WHATSAPP',
      type: 'FORM_OUTBOUND',
      outcomes: [],
    });
    const details = expectValidationError(response, ['page', 'limit', 'dateFrom', 'dateTo', 'clinicId', 'search', 'type', 'outcomes']);
    expect(details.type).toMatch(/whatsapp/);
  });

  it('dateFrom > dateTo together with paging problems', async () => {
    const response = await interactions({ page: 0, limit: 0, dateFrom: '2025-03-01', dateTo: '2025-02-01', search: '' });
    expectValidationError(response, ['page', 'limit', 'dateFrom', 'search']);
  });

  it('boundary values are accepted: page 1, limit 1, limit 500, equal dateFrom and dateTo, a one-character search', async () => {
    for (const variables of [
      { page: 1, limit: 1 },
      { limit: 500 },
      { dateFrom: '2025-02-01', dateTo: '2025-02-01' },
      { dateFrom: '2025-02-01T10:00:00.000Z', dateTo: '2025-02-01T10:00:00.000Z' },
      { dateFrom: '2025-02-01T11:00:00+01:00', dateTo: '2025-02-01T05:00:00-05:00' },
      { search: '+' },
      { clinicId: clinicId.toUpperCase() },
    ]) {
      const data = expectNoErrors(await interactions(variables));
      expect(data.interactions.pageInfo.total, JSON.stringify(variables)).toBe(1);
    }
    const data = expectNoErrors(await interactions({ limit: 500, page: 2 }));
    expect(data.interactions).toEqual({ nodes: [], pageInfo: { total: 1 } });
  });

  it('the other fields of the query still resolve', async () => {
    const response = await graphql(app, {
      key,
      query: `{ bad: interactions(limit: 0) { nodes { id } } good: interactions(limit: 1) { nodes { clinicId } } clinics { pageInfo { total } } }`,
    });
    expect(response.status).toBe(200);
    expect(errorsOf(response)).toHaveLength(1);
    expect(errorsOf(response)[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(response.body.data).toEqual({ bad: null, good: { nodes: [{ clinicId }] }, clinics: { pageInfo: { total: 1 } } });
  });

  it('values the GraphQL types reject never reach the resolver (no data, no VALIDATION_ERROR)', async () => {
    for (const variables of [{ page: 'abc' }, { limit: 2.5 }, { channel: 'voice' }, { outcomes: ['booked'] }, { limit: 2 ** 31 }]) {
      const response = await interactions(variables);
      expect(response.body.data, JSON.stringify(variables)).toBeUndefined();
      expect(errorsOf(response)).toHaveLength(1);
      expect(errorsOf(response)[0]?.extensions?.code).not.toBe('VALIDATION_ERROR');
    }
    const literal = await graphql(app, { key, query: '{ interactions(page: "abc") { nodes { id } } }' });
    expect(literal.status).toBe(400);
    expect(errorsOf(literal)[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});

describe('other fields', () => {
  it('clinics: page and limit together', async () => {
    const response = await graphql(app, { key, query: '{ clinics(page: 0, limit: 501) { nodes { id } } }' });
    expectValidationError(response, ['page', 'limit']);
    expect(response.body.data).toEqual({ clinics: null });
  });

  it('clinic(id): not a UUID', async () => {
    const response = await graphql(app, { key, query: '{ clinic(id: "123") { id } }' });
    expectValidationError(response, ['id']);
    expect(response.body.data).toEqual({ clinic: null });
  });

  it('campaigns: page, limit and clinicId together', async () => {
    const response = await graphql(app, { key, query: '{ campaigns(page: -1, limit: 0, clinicId: "x") { nodes { id } } }' });
    expectValidationError(response, ['page', 'limit', 'clinicId']);
    expect(response.body.data).toEqual({ campaigns: null });
  });

  it('campaigns: limit 500 is accepted', async () => {
    const data = expectNoErrors(await graphql(app, { key, query: '{ campaigns(limit: 500) { pageInfo { limit total } } }' }));
    expect(data.campaigns.pageInfo).toEqual({ limit: 500, total: 0 });
  });

  it('nested Clinic.interactions: every bad argument at once', async () => {
    const response = await graphql(app, {
      key,
      query: `query($id: ID!) { clinic(id: $id) { id interactions(page: 0, limit: 501, dateFrom: "2025-01-02", dateTo: "2025-01-01", search: "") { id } } }`,
      variables: { id: clinicId },
    });
    expectValidationError(response, ['page', 'limit', 'dateFrom', 'search']);
    expect(response.body.data).toEqual({ clinic: { id: clinicId, interactions: null } });
  });

  it('nested Clinic.campaigns: limit 0 and 501', async () => {
    for (const limit of [0, 501]) {
      const response = await graphql(app, {
        key,
        query: `query($id: ID!) { clinic(id: $id) { campaigns(limit: ${limit}) { id } } }`,
        variables: { id: clinicId },
      });
      expectValidationError(response, ['limit']);
      expect(response.body.data).toEqual({ clinic: { campaigns: null } });
    }
  });

  it('metrics: every bad argument at once', async () => {
    for (const field of ['metricsDaily', 'metricsOutcomes']) {
      const response = await graphql(app, {
        key,
        query: `{ ${field}(dateFrom: "2025-02-30", dateTo: "soon", clinicId: "c1", channel: VOICE, type: APPOINTMENT_REMINDER) { __typename } }`,
      });
      expectValidationError(response, ['dateFrom', 'dateTo', 'clinicId', 'type']);
      expect(response.body.data).toEqual({ [field]: null });
    }
    const summary = await graphql(app, { key, query: '{ metricsSummary(dateFrom: "x", dateTo: "2025-01-01T00:00:00", clinicId: "1") { totalInteractions } }' });
    expectValidationError(summary, ['dateFrom', 'dateTo', 'clinicId']);
    expect(summary.body.data).toEqual({ metricsSummary: null });
  });

  it('metrics: dateFrom later than dateTo, and a dateTo before the default dateFrom', async () => {
    const response = await graphql(app, { key, query: '{ metricsSummary(dateFrom: "2025-02-02", dateTo: "2025-02-01") { totalInteractions } }' });
    expectValidationError(response, ['dateFrom']);
    expect(response.body.data).toEqual({ metricsSummary: null });
    const onlyTo = await graphql(app, { key, query: '{ metricsSummary(dateTo: "2001-01-01") { totalInteractions } }' });
    expect(errorsOf(onlyTo)).toHaveLength(1);
    expect(errorsOf(onlyTo)[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(onlyTo.body.data).toEqual({ metricsSummary: null });
  });
});

// Field errors keep the `path` and `locations` graphql-js gives them (maskError returns the located error).
it('field errors carry the path of their field (GraphQL spec 7.1.2)', async () => {
  const response = await graphql(app, {
    key,
    query: `query($id: ID!) { interactions(limit: 0) { nodes { id } } clinic(id: $id) { interactions(page: 0) { id } } }`,
    variables: { id: clinicId },
  });
  const paths = errorsOf(response).map((e) => e.path);
  expect(paths).toContainEqual(['interactions']);
  expect(paths).toContainEqual(['clinic', 'interactions']);
});

it('a variable-coercion error names the variable', async () => {
  const response = await graphql(app, { key, query: 'query($p: Int) { interactions(page: $p) { nodes { id } } }', variables: { p: 'abc' } });
  expect(errorsOf(response)[0]?.message).toContain('$p');
});

it('a by-id lookup with a NUL character finds nothing instead of failing', async () => {
  const response = await graphql(app, {
    key,
    query: 'query($id: ID!) { interaction(id: $id) { id } campaign(id: $id) { id } }',
    variables: { id: 'abc\u0000def' },
  });
  expect(response.status).toBe(200);
  expect(response.body.errors).toBeUndefined();
  expect(response.body.data).toEqual({ interaction: null, campaign: null });
});

// Yoga's executor takes any object with a `then` key for a promise: an alias `then` failed every
// object it was in with INTERNAL_ERROR ("completedItem.then is not a function"), once per list item.
describe('the response name then', () => {
  const refused = (response: Awaited<ReturnType<typeof graphql>>, count = 1) => {
    expect(response.status).toBe(400);
    expect(response.body.data ?? null).toBeNull();
    const errors = errorsOf(response);
    expect(errors.map((e) => e.extensions?.code)).toEqual(Array(count).fill('RESERVED_ALIAS'));
    expect(errors[0]?.message).toBe(
      '"then" cannot be a response name (alias): this server would take the object holding it for a promise; choose another alias',
    );
  };

  it("is refused with a validation error naming it: the issue's query, at the root, in a fragment, nested in a page", async () => {
    refused(await graphql(app, { key, query: '{ clinics(limit: 2) { nodes { then: name } } }' }));
    refused(await graphql(app, { key, query: '{ then: clinics(limit: 2) { nodes { id } } }' }));
    refused(await graphql(app, { key, query: '{ interactions(limit: 500) { nodes { ...F } } } fragment F on Interaction { id then: outcome }' }));
    refused(await graphql(app, { key, query: '{ interactions(limit: 500) { nodes { then: id clinic { then: name } } } }' }), 2);
  });

  it('any other alias is answered, __proto__ and constructor included', async () => {
    const response = await graphql(app, { key, query: '{ clinics(limit: 2) { nodes { than: name __proto__: id constructor: name } } }' });
    const nodes = expectNoErrors(response).clinics.nodes as Array<Record<string, unknown>>;
    expect(nodes).toHaveLength(1);
    expect(Object.keys(nodes[0]!)).toEqual(['than', '__proto__', 'constructor']);
    expect(nodes[0]!.than).toBeTypeOf('string');
  });
});
