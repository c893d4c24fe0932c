// Query-count guard: relations are batched, so the SQL a request costs does not grow with the number
// of rows on the page. An N+1 regression makes these tests fail.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createApiKeyResolver } from '../../src/auth/api-keys.js';
import { createPrismaClient } from '../../src/db/client.js';
import { createKey, expectNoErrors, graphql } from '../helpers/app.js';
import { databaseUrl, testDb } from '../helpers/db.js';
import { createCampaign, createClinic } from '../helpers/factories.js';
import { tag } from './support.js';

const db = testDb();

// The app reads through a client that logs every SQL statement it sends. API keys are resolved
// through the file's ordinary client, so authentication (and `last_used_at` bookkeeping) is not counted;
// nor is the one statement per request that reads which clinics the key's environment lets it see
// (auth/api-keys.ts), counted apart as `environment`.
const statements: string[] = [];
const counting = createPrismaClient(databaseUrl, 4, { onStatement: (text) => statements.push(text) });
afterAll(async () => {
  await counting.$disconnect();
});
const app = createApp({ db: counting, keyResolver: createApiKeyResolver(db, { ttlMs: 0 }) });

const ENVIRONMENT_STATEMENT = /^\/\* prepared (key_)?clinics_of_environment \*\//;

/** Runs a query and returns its data and the SQL statements it cost. */
async function measure(key: string, query: string, variables?: Record<string, unknown>) {
  statements.length = 0;
  const data = expectNoErrors(await graphql(app, { key, query, ...(variables ? { variables } : {}) }));
  const read = statements.filter((text) => !ENVIRONMENT_STATEMENT.test(text));
  return { data, statements: read, count: read.length, environment: statements.length - read.length };
}

function interactionRows(clinicId: string, campaignIds: string[], prefix: string, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}_${String(i).padStart(4, '0')}`,
    clinicId,
    campaignId: i % 5 === 4 ? null : campaignIds[i % campaignIds.length]!,
    channel: i % 2 === 0 ? ('voice' as const) : ('whatsapp' as const),
    type: 'INBOUND' as const,
    direction: 'inbound' as const,
    phoneNumber: `+34 600 ${String(i).padStart(6, '0')}`,
    startedAt: new Date(Date.UTC(2025, 0, 1) + i * 60_000),
    durationSeconds: i % 2 === 0 ? 60 : null,
    outcome: 'NO_ANSWER',
  }));
}

async function seedClinic(interactions: number, name = `Counted ${tag()}`) {
  const clinic = await createClinic(db, { name });
  const campaigns = [];
  for (const n of [1, 2, 3]) campaigns.push(await createCampaign(db, clinic.id, { name: `Campaign ${n}`, createdAt: new Date(Date.UTC(2024, 11, n)) }));
  const rows = interactionRows(
    clinic.id,
    campaigns.map((c) => c.id),
    `q${tag()}`,
    interactions,
  );
  await db.interaction.createMany({ data: rows });
  // Every third interaction has a transcript.
  await db.interactionTranscript.createMany({
    data: rows.filter((_, i) => i % 3 === 0).map((r) => ({ interactionId: r.id, entries: [{ role: 'assistant', content: `hello ${r.id}` }] })),
  });
  return { clinic, campaigns, rows };
}

const PAGE = `query($limit: Int, $clinicId: ID) {
  interactions(limit: $limit, clinicId: $clinicId) {
    nodes { id clinic { name } campaign { name } transcript { role } }
    pageInfo { page limit total totalPages hasMore }
  }
}`;

describe('query counting', () => {
  it('counts: a plain clinic lookup is one statement, on the clinics table', async () => {
    const clinic = await createClinic(db);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const { data, statements: sqls, environment } = await measure(key, 'query($id: ID!) { clinic(id: $id) { id name } }', { id: clinic.id });
    expect(data.clinic).toEqual({ id: clinic.id, name: clinic.name });
    expect(sqls).toHaveLength(1);
    expect(sqls[0]).toMatch(/FROM "public"\."clinics"/);
    // Besides one statement per request for the clinics the key's environment lets it see.
    expect(environment).toBe(1);
    // And a query that reads nothing costs nothing more.
    expect(await measure(key, '{ __typename }')).toMatchObject({ count: 0, environment: 1 });
  });
});

describe('a page of 500 interactions with their relations', () => {
  let big: Awaited<ReturnType<typeof seedClinic>>;
  let small: Awaited<ReturnType<typeof seedClinic>>;
  let key = '';

  beforeAll(async () => {
    big = await seedClinic(500);
    small = await seedClinic(50);
    key = await createKey(db, { clinicIds: [big.clinic.id, small.clinic.id] });
  });

  it('costs a small constant number of statements, the same for 50 rows as for 500', async () => {
    const large = await measure(key, PAGE, { limit: 500, clinicId: big.clinic.id });
    expect(large.data.interactions.nodes).toHaveLength(500);
    expect(large.data.interactions.pageInfo).toEqual({ page: 1, limit: 500, total: 500, totalPages: 1, hasMore: false });
    // The values are really there: every node has its clinic, campaign (or none) and transcript (or none).
    const byId = new Map(big.rows.map((r, i) => [r.id, { row: r, i }]));
    const campaignNames = new Map(big.campaigns.map((c) => [c.id, c.name]));
    for (const node of large.data.interactions.nodes) {
      const { row, i } = byId.get(node.id)!;
      expect(node.clinic).toEqual({ name: big.clinic.name });
      expect(node.campaign).toEqual(row.campaignId ? { name: campaignNames.get(row.campaignId) } : null);
      expect(node.transcript).toEqual(i % 3 === 0 ? [{ role: 'assistant' }] : null);
    }

    const fifty = await measure(key, PAGE, { limit: 500, clinicId: small.clinic.id });
    expect(fifty.data.interactions.nodes).toHaveLength(50);
    const one = await measure(key, PAGE, { limit: 1, clinicId: big.clinic.id });
    expect(one.data.interactions.nodes).toHaveLength(1);

    // interactions, count, clinics, campaigns, transcripts: 5 today; 6 leaves room for one more.
    expect(large.count, large.statements.join('\n')).toBeLessThanOrEqual(6);
    expect(large.count).toBeGreaterThanOrEqual(2);
    expect(fifty.count).toBe(large.count);
    // One row may leave a related table unread (no campaign: no campaign to look up), never add one.
    expect(one.count).toBeLessThanOrEqual(large.count);
  });

  it('root lists of campaigns and clinics with relations are constant too', async () => {
    const campaignsQuery = `query($c: ID) { campaigns(clinicId: $c, limit: 10) { nodes { id clinic { name } interactions(limit: 200) { id campaign { name } transcript { role } } } pageInfo { total } } }`;
    const large = await measure(key, campaignsQuery, { c: big.clinic.id });
    const smaller = await measure(key, campaignsQuery, { c: small.clinic.id });
    const perCampaign = large.data.campaigns.nodes.map((c: { interactions: unknown[] }) => c.interactions.length);
    expect(perCampaign.reduce((a: number, b: number) => a + b, 0)).toBe(400); // 500 minus every fifth without a campaign
    expect(large.count, large.statements.join('\n')).toBeLessThanOrEqual(8);
    expect(smaller.count).toBe(large.count);
  });
});

describe('clinics with nested interactions and campaigns', () => {
  const QUERY = `{
    clinics(limit: 10) {
      nodes {
        id name
        campaigns { id name clinic { id } interactions(limit: 20) { id } }
        interactions(limit: 50) { id clinic { name } campaign { name } transcript { role } }
      }
      pageInfo { total }
    }
  }`;

  it('cost the same for 2 clinics as for 6', async () => {
    const two = [];
    for (let i = 0; i < 2; i++) two.push(await seedClinic(30 + i * 10));
    const six = [];
    for (let i = 0; i < 6; i++) six.push(await seedClinic(20 + i * 12));
    const keyTwo = await createKey(db, { clinicIds: two.map((s) => s.clinic.id) });
    const keySix = await createKey(db, { clinicIds: six.map((s) => s.clinic.id) });

    const small = await measure(keyTwo, QUERY);
    const large = await measure(keySix, QUERY);
    expect(small.data.clinics.nodes).toHaveLength(2);
    expect(large.data.clinics.nodes).toHaveLength(6);
    for (const node of large.data.clinics.nodes) {
      const seeded = six.find((s) => s.clinic.id === node.id)!;
      expect(node.campaigns).toHaveLength(3);
      expect(node.interactions).toHaveLength(Math.min(50, seeded.rows.length));
      expect(node.interactions[0].clinic).toEqual({ name: seeded.clinic.name });
    }
    expect(large.count, large.statements.join('\n')).toBeLessThanOrEqual(12);
    expect(large.count).toBe(small.count);
  });

  it('and the same with one clinic', async () => {
    const one = await seedClinic(10, `Single ${randomUUID().slice(0, 8)}`);
    const key = await createKey(db, { clinicIds: [one.clinic.id] });
    const single = await measure(key, QUERY);
    const keyMany = await createKey(db, { clinicIds: [one.clinic.id, (await seedClinic(70)).clinic.id, (await seedClinic(5)).clinic.id] });
    const many = await measure(keyMany, QUERY);
    expect(many.data.clinics.nodes).toHaveLength(3);
    expect(many.count).toBe(single.count);
  });
});
