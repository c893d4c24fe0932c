// Authentication (HTTP 401 with the REST codes) and scopes (INSUFFICIENT_SCOPE on the field only).
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/auth/api-keys.js';
import { SCOPES, type Scope } from '../../src/domain/values.js';
import { createKey, expectNoErrors, graphql, testApp } from '../helpers/app.js';
import { sql, testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';
import { errorsOf, scopeErrors } from './support.js';

const db = testDb();
const app = testApp(db);

const INTROSPECTION = '{ __schema { queryType { name } } }';

function expectUnauthorized(response: Awaited<ReturnType<typeof graphql>>, code: string, message?: string): void {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  const errors = errorsOf(response);
  expect(errors).toHaveLength(1);
  expect(errors[0]?.extensions?.code).toBe(code);
  if (message) expect(errors[0]?.message).toBe(message);
  expect(response.body.data ?? null).toBeNull();
}

describe('authentication', () => {
  let clinicId = '';
  beforeAll(async () => {
    clinicId = (await createClinic(db)).id;
  });

  it('no Authorization header: 401 UNAUTHORIZED with a Bearer challenge', async () => {
    const response = await graphql(app, { query: '{ clinics { nodes { id } } }' });
    expectUnauthorized(response, 'UNAUTHORIZED');
    expect(response.body.errors?.[0]?.message).toMatch(/Bearer/);
    expect(response.headers.get('www-authenticate')).not.toMatch(/invalid_token/);
  });

  it('a malformed Authorization header: 401 UNAUTHORIZED', async () => {
    const key = await createKey(db, { clinicIds: [clinicId] });
    for (const authorization of [`Basic ${Buffer.from('a:b').toString('base64')}`, 'Bearer', 'Bearer ', key, `Token ${key}`, `Bearer ${key} extra`]) {
      const response = await graphql(app, { authorization, query: '{ clinics { nodes { id } } }' });
      expectUnauthorized(response, 'UNAUTHORIZED');
    }
  });

  it('an unknown key: 401 INVALID_API_KEY with error="invalid_token"', async () => {
    const unknown = `svc_live_${'A'.repeat(40)}`;
    for (const token of [unknown, 'svc_live_nope', `svc_test_${randomUUID().replaceAll('-', '')}abcdefgh`, 'x']) {
      const response = await graphql(app, { key: token, query: '{ clinics { nodes { id } } }' });
      expectUnauthorized(response, 'INVALID_API_KEY', 'Invalid API key');
      expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    }
  });

  it('a revoked key: 401 INVALID_API_KEY, like an unknown one', async () => {
    const { key, record } = await createApiKey(db, { name: 'to revoke', clinicIds: [clinicId] });
    expect(expectNoErrors(await graphql(app, { key, query: '{ clinics { pageInfo { total } } }' }))).toEqual({ clinics: { pageInfo: { total: 1 } } });
    await revokeApiKey(db, record.id);
    const response = await graphql(app, { key, query: '{ clinics { pageInfo { total } } }' });
    expectUnauthorized(response, 'INVALID_API_KEY', 'Invalid API key');
    expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('an expired key: 401 API_KEY_EXPIRED', async () => {
    const { key, record } = await createApiKey(db, { name: 'to expire', clinicIds: [clinicId], expiresAt: new Date(Date.now() + 3_600_000) });
    expect((await graphql(app, { key, query: '{ clinics { pageInfo { total } } }' })).status).toBe(200);
    await sql("UPDATE api_keys SET expires_at = now() - interval '1 minute' WHERE id = $1", [record.id]);
    const response = await graphql(app, { key, query: '{ clinics { pageInfo { total } } }' });
    expectUnauthorized(response, 'API_KEY_EXPIRED', 'API key has expired');
    expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('introspection needs a key too', async () => {
    expectUnauthorized(await graphql(app, { query: INTROSPECTION }), 'UNAUTHORIZED');
    expectUnauthorized(await graphql(app, { query: '{ __typename }' }), 'UNAUTHORIZED');
    expectUnauthorized(await graphql(app, { key: `svc_live_${'B'.repeat(40)}`, query: INTROSPECTION }), 'INVALID_API_KEY');
    const key = await createKey(db, { clinicIds: [clinicId], scopes: ['metrics:read'] });
    const response = await graphql(app, { key, query: INTROSPECTION });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
  });

  it('a valid key in either case of the scheme (`bearer`) is accepted', async () => {
    const key = await createKey(db, { clinicIds: [clinicId] });
    const response = await graphql(app, { authorization: `bearer ${key}`, query: '{ clinics { pageInfo { total } } }' });
    expect(expectNoErrors(response)).toEqual({ clinics: { pageInfo: { total: 1 } } });
  });
});

describe('scopes', () => {
  let clinicId = '';
  let campaignId = '';
  const interactionIds: string[] = [];

  beforeAll(async () => {
    clinicId = (await createClinic(db)).id;
    campaignId = (await createCampaign(db, clinicId)).id;
    for (const startedAt of ['2025-05-01T10:00:00.000Z', '2025-05-02T10:00:00.000Z']) {
      interactionIds.unshift(
        (
          await createInteraction(db, {
            clinicId,
            campaignId,
            type: 'CAMPAIGN_OUTBOUND',
            startedAt: new Date(startedAt),
            transcript: [{ role: 'user', content: 'hi' }],
          })
        ).id,
      );
    }
  });

  const keyWithout = (missing: Scope) => createKey(db, { clinicIds: [clinicId], scopes: SCOPES.filter((s) => s !== missing) });

  it('metricsSummary without metrics:read fails alone; clinics in the same query resolve', async () => {
    const key = await keyWithout('metrics:read');
    const response = await graphql(app, {
      key,
      query: '{ metricsSummary { totalInteractions } clinics { nodes { id } pageInfo { total } } }',
    });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ metricsSummary: null, clinics: { nodes: [{ id: clinicId }], pageInfo: { total: 1 } } });
    expect(scopeErrors(errorsOf(response))).toEqual({ 'metrics:read': 1 });
  });

  it('every root field needs its scope, and only that scope', async () => {
    const query = `query($clinic: ID!, $campaign: ID!, $interaction: ID!) {
      clinics { pageInfo { total } }
      clinic(id: $clinic) { id }
      campaigns { pageInfo { total } }
      campaign(id: $campaign) { id }
      interactions { pageInfo { total } }
      interaction(id: $interaction) { id }
      metricsSummary(dateFrom: "2025-05-01", dateTo: "2025-05-02") { totalInteractions }
      metricsDaily(dateFrom: "2025-05-01", dateTo: "2025-05-02") { total }
      metricsOutcomes(dateFrom: "2025-05-01", dateTo: "2025-05-02") { total }
    }`;
    const variables = { clinic: clinicId, campaign: campaignId, interaction: interactionIds[0] };
    const full = {
      clinics: { pageInfo: { total: 1 } },
      clinic: { id: clinicId },
      campaigns: { pageInfo: { total: 1 } },
      campaign: { id: campaignId },
      interactions: { pageInfo: { total: 2 } },
      interaction: { id: interactionIds[0] },
      metricsSummary: { totalInteractions: 2 },
      metricsDaily: [{ total: 1 }, { total: 1 }],
      metricsOutcomes: { total: 2 },
    };
    // phi:read refuses no field (a key without it sees interactions masked: test/phi).
    const fieldsOf: Record<Exclude<Scope, 'phi:read'>, Array<keyof typeof full>> = {
      'clinics:read': ['clinics', 'clinic'],
      'campaigns:read': ['campaigns', 'campaign'],
      'interactions:read': ['interactions', 'interaction'],
      'metrics:read': ['metricsSummary', 'metricsDaily', 'metricsOutcomes'],
    };
    const all = await createKey(db, { clinicIds: [clinicId] });
    expect(expectNoErrors(await graphql(app, { key: all, query, variables }))).toEqual(full);
    for (const missing of SCOPES.filter((s) => s !== 'phi:read')) {
      const response = await graphql(app, { key: await keyWithout(missing), query, variables });
      expect(response.status).toBe(200);
      const expected = { ...full, ...Object.fromEntries(fieldsOf[missing].map((f) => [f, null])) };
      expect(response.body.data, missing).toEqual(expected);
      expect(scopeErrors(errorsOf(response)), missing).toEqual({ [missing]: fieldsOf[missing].length });
    }
  });

  it('a key with one scope only', async () => {
    const key = await createKey(db, { clinicIds: [clinicId], scopes: ['interactions:read'] });
    const response = await graphql(app, { key, query: '{ clinics { pageInfo { total } } interactions { pageInfo { total } } metricsOutcomes { total } }' });
    expect(response.body.data).toEqual({ clinics: null, interactions: { pageInfo: { total: 2 } }, metricsOutcomes: null });
    expect(scopeErrors(errorsOf(response))).toEqual({ 'clinics:read': 1, 'metrics:read': 1 });
  });

  it('Interaction.clinic without clinics:read is null with INSUFFICIENT_SCOPE; the interactions still resolve', async () => {
    const key = await keyWithout('clinics:read');
    const response = await graphql(app, { key, query: '{ interactions { nodes { id clinic { name } campaign { id } transcript { role } } } }' });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      interactions: {
        nodes: interactionIds.map((id) => ({ id, clinic: null, campaign: { id: campaignId }, transcript: [{ role: 'user' }] })),
      },
    });
    expect(scopeErrors(errorsOf(response))).toEqual({ 'clinics:read': 2 });
  });

  it('Interaction.campaign without campaigns:read; Campaign.* is unreachable but Interaction fields resolve', async () => {
    const key = await keyWithout('campaigns:read');
    const response = await graphql(app, { key, query: '{ interactions { nodes { id campaignId clinic { id } campaign { id } } } }' });
    expect(response.body.data).toEqual({
      interactions: { nodes: interactionIds.map((id) => ({ id, campaignId, clinic: { id: clinicId }, campaign: null })) },
    });
    expect(scopeErrors(errorsOf(response))).toEqual({ 'campaigns:read': 2 });
  });

  it('Clinic.campaigns and Clinic.interactions need their scopes', async () => {
    const query = `query($id: ID!) { clinic(id: $id) { id campaigns { id } interactions { id } } }`;
    const noCampaigns = await graphql(app, { key: await keyWithout('campaigns:read'), query, variables: { id: clinicId } });
    expect(noCampaigns.body.data).toEqual({ clinic: { id: clinicId, campaigns: null, interactions: interactionIds.map((id) => ({ id })) } });
    expect(scopeErrors(errorsOf(noCampaigns))).toEqual({ 'campaigns:read': 1 });

    const noInteractions = await graphql(app, { key: await keyWithout('interactions:read'), query, variables: { id: clinicId } });
    expect(noInteractions.body.data).toEqual({ clinic: { id: clinicId, campaigns: [{ id: campaignId }], interactions: null } });
    expect(scopeErrors(errorsOf(noInteractions))).toEqual({ 'interactions:read': 1 });
  });

  it('Campaign.clinic and Campaign.interactions need their scopes', async () => {
    const query = '{ campaigns { nodes { id clinic { id } interactions { id } } } }';
    const noClinics = await graphql(app, { key: await keyWithout('clinics:read'), query });
    expect(noClinics.body.data).toEqual({ campaigns: { nodes: [{ id: campaignId, clinic: null, interactions: interactionIds.map((id) => ({ id })) }] } });
    expect(scopeErrors(errorsOf(noClinics))).toEqual({ 'clinics:read': 1 });

    const noInteractions = await graphql(app, { key: await keyWithout('interactions:read'), query });
    expect(noInteractions.body.data).toEqual({ campaigns: { nodes: [{ id: campaignId, clinic: { id: clinicId }, interactions: null }] } });
    expect(scopeErrors(errorsOf(noInteractions))).toEqual({ 'interactions:read': 1 });
  });

  it('a scope error comes before argument validation (decisions section 1: scope, then parameters)', async () => {
    const response = await graphql(app, { key: await keyWithout('interactions:read'), query: '{ interactions(limit: 0) { nodes { id } } }' });
    expect(response.body.data).toEqual({ interactions: null });
    expect(scopeErrors(errorsOf(response))).toEqual({ 'interactions:read': 1 });
  });
});

// A client must be able to tell which field an INSUFFICIENT_SCOPE belongs to.
it('scope errors carry the path of their field', async () => {
  const clinicId = (await createClinic(db)).id;
  await createInteraction(db, { clinicId });
  const key = await createKey(db, { clinicIds: [clinicId], scopes: ['interactions:read'] });
  const response = await graphql(app, { key, query: '{ metricsSummary { totalInteractions } interactions { nodes { clinic { id } } } }' });
  const paths = errorsOf(response).map((e) => e.path);
  expect(paths).toContainEqual(['metricsSummary']);
  expect(paths).toContainEqual(['interactions', 'nodes', 0, 'clinic']);
});
