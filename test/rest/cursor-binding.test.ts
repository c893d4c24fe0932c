// A cursor belongs to the list it was issued for, whatever selects that list: for every argument of
// `interactionsConnection` (and so every REST parameter of the cursor list of /interactions), a
// cursor issued with one value is refused with another value or without it, and a cursor issued
// without it is refused with it. The arguments are read from the schema, so a filter added later
// is tested here as soon as it has sample values (the first test fails until it does).
import { createHash } from 'node:crypto';
import { type GraphQLArgument, getNamedType, getNullableType, isEnumType, isListType } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/index.js';
import { REST_NAMES, routes } from '../../src/rest/routes.js';
import { createKey, graphql, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';
import { expectStatus, expectValidationError, get, UNKNOWN_CLINIC } from './client.js';

const db = testDb();
const app = testApp(db);

const connection = schema.getQueryType()?.getFields().interactionsConnection;
if (!connection) throw new Error('the schema has no interactionsConnection');
/** Arguments that do not select the list: the page size (which may change between pages), the cursor itself, and whether to count. */
const NOT_SELECTING = new Set(['first', 'after', 'includeTotal']);
const selecting = connection.args.filter((arg) => !NOT_SELECTING.has(arg.name));
const interactionsRoute = routes.find((route) => route.path === '/api/v1/interactions');

interface Fixture {
  clinicId: string;
  campaignId: string;
}

/**
 * Two values of each selecting argument, as GraphQL variables: the first matches every row of the
 * fixture (so a page of one has a next cursor), the second is any other valid value.
 */
function samples(fixture: Fixture): Record<string, readonly [unknown, unknown]> {
  return {
    order: ['ASC', 'DESC'],
    updatedSince: ['2020-01-01T00:00:00Z', '2021-06-01T00:00:00Z'],
    dateFrom: ['2025-03-01', '2025-02-01'],
    dateTo: ['2025-03-31', '2025-04-30T12:00:00Z'],
    channel: ['VOICE', 'WHATSAPP'],
    type: ['INBOUND', 'CAMPAIGN_OUTBOUND'],
    direction: ['INBOUND', 'OUTBOUND'],
    outcomes: [['APPOINTMENT_BOOKED'], ['APPOINTMENT_BOOKED', 'NO_ANSWER']],
    search: ['612', '345'],
    text: ['appointment', 'booked'],
    clinicId: [fixture.clinicId, UNKNOWN_CLINIC],
    campaignId: [fixture.campaignId, 'cmp_someone_else'],
  };
}

/** A GraphQL variable value as its REST parameter spells it (an enum as its REST value, a list comma-separated). */
function restValue(arg: GraphQLArgument, value: unknown): string {
  const type = getNullableType(arg.type);
  const named = getNamedType(arg.type);
  const one = (item: unknown) => (isEnumType(named) ? String(named.getValue(String(item))?.value) : String(item));
  return isListType(type) ? (value as unknown[]).map(one).join(',') : one(value);
}

const restName = (arg: GraphQLArgument) => (REST_NAMES as unknown as Record<string, string | undefined>)[arg.name] ?? arg.name;
const restParam = (arg: GraphQLArgument, value: unknown) => `${restName(arg)}=${encodeURIComponent(restValue(arg, value))}`;

let fixture: Fixture;
let key: string;

beforeAll(async () => {
  const clinic = await createClinic(db, { language: 'en' });
  const campaign = await createCampaign(db, clinic.id);
  key = await createKey(db, { clinicIds: [clinic.id] });
  for (const day of [3, 4, 5]) {
    await createInteraction(db, {
      clinicId: clinic.id,
      campaignId: campaign.id,
      phoneNumber: '+34612345678',
      startedAt: new Date(Date.UTC(2025, 2, day, 10)),
      summary: 'Patient booked an appointment.',
    });
  }
  fixture = { clinicId: clinic.id, campaignId: campaign.id };
  // The change feed holds back what was written less than a millisecond before a read.
  await new Promise((resolve) => setTimeout(resolve, 5));
});

describe('cursors are bound to every argument that selects the list', () => {
  it('has sample values for every such argument, each a parameter of the REST cursor list', () => {
    expect(selecting.map((arg) => arg.name).sort()).toEqual(Object.keys(samples({ clinicId: '', campaignId: '' })).sort());
    for (const arg of selecting) expect(interactionsRoute?.params, arg.name).toContain(restName(arg));
  });

  it.each(selecting.map((arg) => [restName(arg), arg] as const))('REST %s', async (_name, arg) => {
    const [value, other] = samples(fixture)[arg.name] ?? [];
    const first = await get(app, `/api/v1/interactions?limit=1&cursor=&${restParam(arg, value)}`, key);
    expectStatus(first, 200);
    const cursor = first.body.meta.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    expectStatus(await get(app, `/api/v1/interactions?limit=1&cursor=${cursor}&${restParam(arg, value)}`, key), 200);

    const refusals = [
      await get(app, `/api/v1/interactions?limit=1&cursor=${cursor}&${restParam(arg, other)}`, key),
      await get(app, `/api/v1/interactions?limit=1&cursor=${cursor}`, key),
    ];
    const unfiltered = (await get(app, '/api/v1/interactions?limit=1&cursor=', key)).body.meta.next_cursor as string;
    refusals.push(await get(app, `/api/v1/interactions?limit=1&cursor=${unfiltered}&${restParam(arg, value)}`, key));
    for (const response of refusals) expect(expectValidationError(response, ['cursor']).cursor).toMatch(/other filters or another order/);
  });

  it.each(selecting.map((arg) => [arg.name, arg] as const))('GraphQL %s', async (_name, arg) => {
    const [value, other] = samples(fixture)[arg.name] ?? [];
    const selected = `query($after: String, $value: ${arg.type}) {
      interactionsConnection(first: 1, after: $after, ${arg.name}: $value) { pageInfo { nextCursor } } }`;
    const unselected = 'query($after: String) { interactionsConnection(first: 1, after: $after) { pageInfo { nextCursor } } }';
    const read = (query: string, variables: Record<string, unknown>) => graphql(app, { query, variables, key });

    const first = await read(selected, { value });
    const cursor = first.body.data?.interactionsConnection?.pageInfo.nextCursor;
    expect(cursor, JSON.stringify(first.body)).toEqual(expect.any(String));
    expect((await read(selected, { value, after: cursor })).body.errors).toBeUndefined();

    const unfiltered = (await read(unselected, {})).body.data?.interactionsConnection?.pageInfo.nextCursor;
    const refusals = [
      await read(selected, { value: other, after: cursor }),
      await read(unselected, { after: cursor }),
      await read(selected, { value, after: unfiltered }),
    ];
    for (const response of refusals) {
      expect(response.body.errors?.[0]?.extensions).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { after: expect.stringMatching(/other filters or another order/) },
      });
    }
  });
});

describe('a cursor reveals nothing of its filters', () => {
  it('holds no digest of the phone fragment an attacker could recompute offline', async () => {
    const fragment = '+34612';
    const response = await get(app, `/api/v1/interactions?limit=1&cursor=&search=${encodeURIComponent(fragment)}`, key);
    expectStatus(response, 200);
    const cursor = response.body.meta.next_cursor as string;
    const body = Buffer.from(cursor.split('.')[0] ?? '', 'base64url');
    const text = body.toString('utf8');
    expect(text).not.toContain(fragment);

    // Unsalted SHA-256 of the fragment, or of the list it was part of as the service once wrote it,
    // in any usual spelling: a guess of the fragment checked against the cursor would find it.
    const guesses = Array.from({ length: 100 }, (_, i) => `+346${String(i).padStart(2, '0')}`);
    const decoded = [text, ...Object.values(JSON.parse(text) as Record<string, unknown>).map(String)];
    const binary = decoded.flatMap((part) => [Buffer.from(part, 'base64url'), Buffer.from(part, 'utf8')]);
    for (const guess of guesses) {
      const inputs = [guess, JSON.stringify(['desc', null, null, null, null, null, null, null, null, guess])];
      for (const input of inputs) {
        const digest = createHash('sha256').update(input).digest();
        const spellings = [digest.toString('hex'), digest.toString('base64'), digest.toString('base64url')];
        for (const spelling of spellings) expect(text, guess).not.toContain(spelling.slice(0, 8));
        for (const bytes of binary) expect(bytes.includes(digest.subarray(0, 6)), guess).toBe(false);
      }
    }
  });
});
