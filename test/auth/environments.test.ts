// Environments (decisions section 12): `svc_live_` keys see only live clinics, `svc_test_` keys only
// sandbox ones, on every path; the other environment's data behaves as nonexistent (empty, zeros,
// 404). On a database of its own: what a key sees depends on every clinic in it (while only one
// environment exists, an unrestricted key reads the all-clinics rollups), so the shared test
// database, where other files create clinics all the time, cannot serve.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { createApiKey, visibleClinicsOf } from '../../src/auth/api-keys.js';
import { createPrismaClient, type Db, SQL_POOL, type SqlPool } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { ENVIRONMENTS_MIGRATION, ensureDemoSetup } from '../../src/demo.js';
import { createLogger } from '../../src/logging/logger.js';
import { generateDemoData } from '../../src/seed/generate.js';
import { createKey, expectNoErrors, graphql, testApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { migrateUpTo, withFreshDatabase } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';
import { campaignLine, clinicLine, voiceLine, writeLines } from '../importer/files.js';
import { expectError, expectStatus, get, type Json, type RestResponse } from '../rest/client.js';

/** A database of this file's own, migrated, dropped by `drop`. */
async function ownDatabase(prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let ready!: (url: string) => void;
  const url = new Promise<string>((resolve) => {
    ready = resolve;
  });
  const finished = withFreshDatabase(prefix, async (fresh) => {
    ready(fresh);
    await released;
  });
  const fresh = await Promise.race([url, finished.then(() => Promise.reject(new Error('the database was dropped before use')))]);
  await migrate(fresh);
  return {
    url: fresh,
    drop: async () => {
      release();
      await finished;
    },
  };
}

const RANGE = 'date_from=2026-03-01&date_to=2026-03-03';

let database: { url: string; drop: () => Promise<void> };
let db: Db;
let app: App;
let live: { id: string; name: string };
let sandbox: { id: string; name: string };
let liveCampaign: string;
let sandboxCampaign: string;
let liveInteractions: string[];
let sandboxInteractions: string[];
/** Unrestricted keys of each environment. */
let liveKey: string;
let testKey: string;

beforeAll(async () => {
  database = await ownDatabase('environments');
  db = createPrismaClient(database.url, 5);
  app = testApp(db);
  live = await createClinic(db, { name: 'Env Live Clinic' });
  liveCampaign = (await createCampaign(db, live.id, { name: 'Env live campaign' })).id;
  liveInteractions = [
    (
      await createInteraction(db, {
        clinicId: live.id,
        campaignId: liveCampaign,
        channel: 'voice',
        outcome: 'APPOINTMENT_BOOKED',
        startedAt: new Date('2026-03-01T10:00:00Z'),
      })
    ).id,
    (await createInteraction(db, { clinicId: live.id, channel: 'whatsapp', outcome: 'NO_ANSWER', startedAt: new Date('2026-03-02T10:00:00Z') })).id,
  ];
  liveKey = await createKey(db);
  testKey = await createKey(db, { environment: 'test' });
}, 120_000);

afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

const ids = (response: RestResponse, list: string): string[] => response.body.data[list].map((x: { id: string }) => x.id);
const summary = async (key: string, query = RANGE) => {
  const response = await get(app, `/api/v1/metrics/summary?${query}`, key);
  expectStatus(response, 200);
  return response.body.data;
};
const daily = async (key: string) => {
  const response = await get(app, `/api/v1/metrics/daily?${RANGE}`, key);
  expectStatus(response, 200);
  return response.body.data.daily.map((d: Json) => d.total);
};
const breakdown = async (key: string) => {
  const response = await get(app, `/api/v1/metrics/breakdown?group_by=clinic&${RANGE}`, key);
  expectStatus(response, 200);
  return response.body.data.groups.map((g: Json) => [g.clinic_id, g.total_interactions]);
};

const ZERO_SUMMARY = {
  total_interactions: 0,
  total_calls: 0,
  total_conversations: 0,
  inbound_count: 0,
  outbound_count: 0,
  avg_duration_seconds: 0,
  total_duration_seconds: 0,
  success_rate: 0,
  appointments_scheduled: 0,
};

/** What an unrestricted live key saw while the database held only live data (all-clinics rollups). */
let liveOnly: { summary: Json; daily: number[]; breakdown: unknown[] };

describe('a database with live clinics only', () => {
  it('an unrestricted live key sees every clinic (null: the all-clinics rollups), a test key nothing', async () => {
    expect(await visibleClinicsOf(db, { environment: 'live', clinicIds: null })).toBeNull();
    expect(await visibleClinicsOf(db, { environment: 'test', clinicIds: null })).toEqual([]);
    liveOnly = { summary: await summary(liveKey), daily: await daily(liveKey), breakdown: await breakdown(liveKey) };
    expect(liveOnly.summary).toMatchObject({ total_interactions: 2, total_calls: 1, total_conversations: 1, appointments_scheduled: 1 });
    expect(liveOnly.daily).toEqual([1, 1, 0]);
    expect(liveOnly.breakdown).toEqual([[live.id, 2]]);

    expect(await summary(testKey)).toEqual(ZERO_SUMMARY);
    expect(await daily(testKey)).toEqual([0, 0, 0]);
    expect(await breakdown(testKey)).toEqual([]);
    const clinics = await get(app, '/api/v1/clinics', testKey);
    expect(clinics.body.data.clinics).toEqual([]);
    expect(clinics.body.meta.total).toBe(0);
  });
});

describe('a database with a live and a sandbox clinic', () => {
  let liveRestrictedToSandbox: string;
  let liveRestrictedToBoth: string;
  let testRestrictedToLive: string;
  let liveRestrictedToLive: string;

  beforeAll(async () => {
    sandbox = await createClinic(db, { name: 'Env Sandbox Clinic', environment: 'sandbox' });
    sandboxCampaign = (await createCampaign(db, sandbox.id, { name: 'Env sandbox campaign' })).id;
    sandboxInteractions = [
      (
        await createInteraction(db, {
          clinicId: sandbox.id,
          campaignId: sandboxCampaign,
          channel: 'voice',
          outcome: 'OPT_OUT',
          durationSeconds: 120,
          startedAt: new Date('2026-03-01T11:00:00Z'),
          transcript: [{ role: 'user', content: 'sandbox secret' }],
        })
      ).id,
      (await createInteraction(db, { clinicId: sandbox.id, channel: 'voice', outcome: 'APPOINTMENT_BOOKED', startedAt: new Date('2026-03-02T11:00:00Z') })).id,
      (await createInteraction(db, { clinicId: sandbox.id, channel: 'whatsapp', outcome: 'OPT_OUT', startedAt: new Date('2026-03-03T11:00:00Z') })).id,
    ];
    liveRestrictedToSandbox = await createKey(db, { clinicIds: [sandbox.id] });
    liveRestrictedToBoth = await createKey(db, { clinicIds: [sandbox.id, live.id] });
    testRestrictedToLive = await createKey(db, { environment: 'test', clinicIds: [live.id] });
    liveRestrictedToLive = await createKey(db, { clinicIds: [live.id] });
  });

  /** What each key must never show: the other environment's ids and texts. */
  const secretsOf = (environment: 'live' | 'sandbox') =>
    environment === 'live'
      ? [sandbox.id, sandbox.name, sandboxCampaign, ...sandboxInteractions, 'sandbox secret']
      : [live.id, live.name, liveCampaign, ...liveInteractions];
  function expectNothingOf(response: RestResponse, environment: 'live' | 'sandbox', label = '') {
    expectStatus(response, 200);
    for (const secret of secretsOf(environment)) expect(response.text, `${label}: ${secret}`).not.toContain(secret);
  }

  it('the visible clinics are the environment’s: lists, not null', async () => {
    expect(await visibleClinicsOf(db, { environment: 'live', clinicIds: null })).toEqual([live.id]);
    expect(await visibleClinicsOf(db, { environment: 'test', clinicIds: null })).toEqual([sandbox.id]);
    expect(await visibleClinicsOf(db, { environment: 'live', clinicIds: [sandbox.id, live.id.toUpperCase()] })).toEqual([live.id.toUpperCase()]);
    expect(await visibleClinicsOf(db, { environment: 'test', clinicIds: [live.id] })).toEqual([]);
  });

  it('lists: clinics, campaigns, interactions', async () => {
    for (const [key, environment, clinic, campaign, interactions] of [
      [liveKey, 'live', live, liveCampaign, liveInteractions],
      [testKey, 'sandbox', sandbox, sandboxCampaign, sandboxInteractions],
    ] as const) {
      const clinics = await get(app, '/api/v1/clinics', key);
      expectNothingOf(clinics, environment === 'live' ? 'live' : 'sandbox', 'clinics');
      expect(ids(clinics, 'clinics')).toEqual([clinic.id]);
      expect(clinics.body.meta.total).toBe(1);
      const campaigns = await get(app, '/api/v1/campaigns', key);
      expectNothingOf(campaigns, environment, 'campaigns');
      expect(ids(campaigns, 'campaigns')).toEqual([campaign]);
      for (const query of ['', RANGE, 'channel=voice', 'outcome=OPT_OUT,APPOINTMENT_BOOKED', 'search=600', 'order=asc', 'include_total=false']) {
        const list = await get(app, `/api/v1/interactions?${query}`, key);
        expectNothingOf(list, environment, `interactions?${query}`);
      }
      const list = await get(app, `/api/v1/interactions?${RANGE}`, key);
      expect(ids(list, 'interactions').sort()).toEqual([...interactions].sort());
      expect(list.body.meta.total).toBe(interactions.length);
      // Asking for the other environment's clinic by clinic_id: empty, as an unknown clinic.
      const other = environment === 'live' ? sandbox : live;
      const empty = await get(app, `/api/v1/interactions?clinic_id=${other.id}`, key);
      expect(empty.body.data.interactions).toEqual([]);
      expect(empty.body.meta.total).toBe(0);
      expect((await get(app, `/api/v1/campaigns?clinic_id=${other.id}`, key)).body.data.campaigns).toEqual([]);
    }
  });

  it('by id: the other environment’s interaction is 404, exactly as an unknown id', async () => {
    const unknown = await get(app, '/api/v1/interactions/int_no_such_interaction', liveKey);
    for (const [key, mine, theirs] of [
      [liveKey, liveInteractions, sandboxInteractions],
      [testKey, sandboxInteractions, liveInteractions],
    ] as const) {
      for (const id of theirs) {
        const error = expectError(await get(app, `/api/v1/interactions/${id}`, key), 404, 'NOT_FOUND');
        expect(error).toEqual(unknown.body.error);
      }
      for (const id of mine) expectStatus(await get(app, `/api/v1/interactions/${id}`, key), 200);
    }
  });

  it('metrics: summary, daily and breakdown count only the key’s environment; live figures are those of the live-only database', async () => {
    expect(await summary(liveKey)).toEqual(liveOnly.summary);
    expect(await daily(liveKey)).toEqual(liveOnly.daily);
    expect(await breakdown(liveKey)).toEqual(liveOnly.breakdown);
    // The per-clinic path (a key restricted to the live clinic) agrees.
    expect(await summary(liveRestrictedToLive)).toEqual(liveOnly.summary);

    expect(await summary(testKey)).toMatchObject({
      total_interactions: 3,
      total_calls: 2,
      total_conversations: 1,
      total_duration_seconds: 180,
      appointments_scheduled: 1,
    });
    expect(await daily(testKey)).toEqual([1, 1, 1]);
    expect(await breakdown(testKey)).toEqual([[sandbox.id, 3]]);
    const outcomes = await get(app, `/api/v1/metrics/outcomes?${RANGE}`, testKey);
    expect(outcomes.body.data.total).toBe(3);
    expectNothingOf(outcomes, 'sandbox', 'outcomes');
    // clinic_id of the other environment's clinic: zeros.
    expect(await summary(testKey, `${RANGE}&clinic_id=${live.id}`)).toEqual(ZERO_SUMMARY);
    expect(await summary(liveKey, `${RANGE}&clinic_id=${sandbox.id}`)).toEqual(ZERO_SUMMARY);
  });

  it('a restricted key whose clinics name one of the other environment sees nothing of it', async () => {
    for (const key of [liveRestrictedToSandbox, testRestrictedToLive]) {
      const clinics = await get(app, '/api/v1/clinics', key);
      expect(clinics.body.data.clinics).toEqual([]);
      expect((await get(app, '/api/v1/interactions', key)).body.meta.total).toBe(0);
      expect((await get(app, '/api/v1/campaigns', key)).body.data.campaigns).toEqual([]);
      expect(await summary(key)).toEqual(ZERO_SUMMARY);
      expect(await breakdown(key)).toEqual([]);
    }
    expectError(await get(app, `/api/v1/interactions/${sandboxInteractions[0]}`, liveRestrictedToSandbox), 404, 'NOT_FOUND');
    // Naming both: only the live one.
    const both = await get(app, `/api/v1/interactions?${RANGE}`, liveRestrictedToBoth);
    expectNothingOf(both, 'live');
    expect(ids(both, 'interactions').sort()).toEqual([...liveInteractions].sort());
    expect(await summary(liveRestrictedToBoth)).toEqual(liveOnly.summary);
    // The key's own clinic list is still what /me shows: it is the key's setting.
    expect((await get(app, '/api/v1/me', liveRestrictedToSandbox)).body.data.clinic_ids).toEqual([sandbox.id]);
  });

  it('GraphQL, nested paths included', async () => {
    const query = `query($other: ID!, $otherInteraction: ID!, $otherCampaign: ID!) {
      viewer { environment }
      clinics { nodes { id environment campaigns { id clinic { id } } interactions { id clinic { id environment } } metrics(dateFrom: "2026-03-01", dateTo: "2026-03-03") { totalInteractions } } pageInfo { total } }
      campaigns { nodes { id clinic { id } interactions { id } } }
      interactions(dateFrom: "2026-03-01", dateTo: "2026-03-03") { nodes { id clinic { id name environment } campaign { id clinic { id } } } pageInfo { total } }
      interactionsConnection(first: 10) { nodes { id clinic { id } } }
      metricsBreakdown(groupBy: [CLINIC], dateFrom: "2026-03-01", dateTo: "2026-03-03") { groups { clinic { id environment } metrics { totalInteractions } } }
      metricsSummary(dateFrom: "2026-03-01", dateTo: "2026-03-03") { totalInteractions }
      clinic(id: $other) { id }
      interaction(id: $otherInteraction) { id }
      campaign(id: $otherCampaign) { id }
    }`;
    for (const [key, clinic, campaign, interactions, other, keyEnvironment, clinicEnvironment] of [
      [liveKey, live, liveCampaign, liveInteractions, { clinic: sandbox, campaign: sandboxCampaign, interaction: sandboxInteractions[0]! }, 'LIVE', 'LIVE'],
      [testKey, sandbox, sandboxCampaign, sandboxInteractions, { clinic: live, campaign: liveCampaign, interaction: liveInteractions[0]! }, 'TEST', 'SANDBOX'],
    ] as const) {
      const response = await graphql(app, {
        key,
        query,
        variables: { other: other.clinic.id, otherInteraction: other.interaction, otherCampaign: other.campaign },
      });
      const data = expectNoErrors(response);
      const text = JSON.stringify(data);
      for (const secret of [other.clinic.id, other.clinic.name, other.campaign, other.interaction]) expect(text).not.toContain(secret);
      expect(data.viewer.environment).toBe(keyEnvironment);
      expect(data.clinics.pageInfo.total).toBe(1);
      expect(data.clinics.nodes[0]).toMatchObject({ id: clinic.id, environment: clinicEnvironment, metrics: { totalInteractions: interactions.length } });
      expect(data.clinics.nodes[0].interactions.map((i: Json) => i.id).sort()).toEqual([...interactions].sort());
      expect(data.campaigns.nodes.map((c: Json) => c.id)).toEqual([campaign]);
      expect(data.interactions.pageInfo.total).toBe(interactions.length);
      expect(data.interactions.nodes.every((n: Json) => n.clinic.id === clinic.id && n.clinic.environment === clinicEnvironment)).toBe(true);
      expect(data.interactionsConnection.nodes.map((n: Json) => n.id).sort()).toEqual([...interactions].sort());
      expect(data.metricsBreakdown.groups).toEqual([
        { clinic: { id: clinic.id, environment: clinicEnvironment }, metrics: { totalInteractions: interactions.length } },
      ]);
      expect(data.metricsSummary.totalInteractions).toBe(interactions.length);
      expect([data.clinic, data.interaction, data.campaign]).toEqual([null, null, null]);
    }
  });

  it('exports, cursor pages and the change feed', async () => {
    for (const [key, environment, interactions] of [
      [liveKey, 'live', liveInteractions],
      [testKey, 'sandbox', sandboxInteractions],
    ] as const) {
      const csv = await app.fetch(`http://localhost/api/v1/interactions?${RANGE}`, { headers: { authorization: `Bearer ${key}`, accept: 'text/csv' } });
      expect(csv.status).toBe(200);
      const rows = (await csv.text()).trim().split('\n');
      expect(rows).toHaveLength(1 + interactions.length);
      for (const id of interactions) expect(rows.some((row) => row.startsWith(`${id},`))).toBe(true);
      for (const secret of secretsOf(environment)) expect(rows.join('\n')).not.toContain(secret);

      const page = await get(app, '/api/v1/interactions?limit=10&cursor=', key);
      expectNothingOf(page, environment, 'cursor page');
      expect(ids(page, 'interactions').sort()).toEqual([...interactions].sort());
      expect(page.body.meta).toMatchObject({ total: interactions.length, has_more: false, next_cursor: null });

      const feed = await get(app, '/api/v1/interactions?updated_since=2000-01-01T00:00:00.000Z&limit=10&cursor=', key);
      expectNothingOf(feed, environment, 'change feed');
      expect(ids(feed, 'interactions').sort()).toEqual([...interactions].sort());
    }
    // A metrics export too.
    const daily = await app.fetch(`http://localhost/api/v1/metrics/daily?${RANGE}`, {
      headers: { authorization: `Bearer ${testKey}`, accept: 'application/x-ndjson' },
    });
    expect(daily.status).toBe(200);
    const days = (await daily.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).total);
    expect(days).toEqual([1, 1, 1]);
  });

  it('/me shows the key’s environment', async () => {
    expect((await get(app, '/api/v1/me', liveKey)).body.data.environment).toBe('live');
    expect((await get(app, '/api/v1/me', testKey)).body.data.environment).toBe('test');
  });

  it('304s: a change to the other environment leaves a test key’s answer confirmed; a change to its own does not', async () => {
    const path = '/api/v1/interactions?date_from=2026-04-01&date_to=2026-04-30';
    const first = await get(app, path, testKey);
    const etag = first.headers.get('etag')!;
    expect(etag).toBeTruthy();
    expect((await get(app, path, testKey, { 'if-none-match': etag })).status).toBe(304);
    await createInteraction(db, { clinicId: live.id, startedAt: new Date('2026-04-02T10:00:00Z') });
    expect((await get(app, path, testKey, { 'if-none-match': etag })).status).toBe(304);
    const added = await createInteraction(db, { clinicId: sandbox.id, startedAt: new Date('2026-04-02T10:00:00Z') });
    const changed = await get(app, path, testKey, { 'if-none-match': etag });
    expectStatus(changed, 200);
    expect(ids(changed, 'interactions')).toEqual([added.id]);
  });

  it('a clinic made in the other environment is not seen by a key that saw every clinic a moment ago', async () => {
    const second = await createClinic(db, { name: 'Env Second Sandbox', environment: 'sandbox' });
    expect(ids(await get(app, '/api/v1/clinics', testKey), 'clinics').sort()).toEqual([sandbox.id, second.id].sort());
    expect(ids(await get(app, '/api/v1/clinics', liveKey), 'clinics')).toEqual([live.id]);
  });
});

describe('a database that cannot answer which clinics a key sees', () => {
  it('answers 503 SERVICE_UNAVAILABLE on REST, GraphQL and exports', async () => {
    const pool = db[SQL_POOL];
    const lost = () => Promise.reject(new Error('Connection terminated unexpectedly'));
    const failing: SqlPool = { ...pool, query: (config) => (/clinics_of_environment/.test(config.text) ? lost() : pool.query(config)) };
    const broken = new Proxy(db, { get: (target, prop, receiver) => (prop === SQL_POOL ? failing : Reflect.get(target, prop, receiver)) });
    const faulty = testApp(broken, { logger: createLogger({ level: 'silent' }) });
    for (const path of ['/api/v1/clinics', '/api/v1/interactions', `/api/v1/metrics/summary?${RANGE}`]) {
      expectError(await get(faulty, path, liveKey), 503, 'SERVICE_UNAVAILABLE');
    }
    const csv = await faulty.fetch(`http://localhost/api/v1/interactions?${RANGE}`, { headers: { authorization: `Bearer ${liveKey}`, accept: 'text/csv' } });
    expect(csv.status).toBe(503);
    const response = await graphql(faulty, { key: liveKey, query: '{ clinics { nodes { id } } }' });
    expect(response.status).toBe(503);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');
  });
});

describe('import --environment', () => {
  const importJson = async (...args: string[]) => {
    const run = await runCli(['--json', 'import', ...args], database.url);
    return { code: run.code, out: JSON.parse(run.stdout) as Json, stderr: run.stderr };
  };
  const environmentOf = async (id: string) => (await db.clinic.findUnique({ where: { id }, select: { environment: true } }))?.environment;

  it('writes new clinics in the environment asked for (default live) and says which', async () => {
    const clinic = clinicLine({ language: 'es' });
    const run = await importJson(
      '--environment',
      'sandbox',
      '--clinics',
      writeLines('clinics.ndjson', [clinic]),
      '--interactions',
      writeLines('i.ndjson', [voiceLine(clinic.id)]),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.out).toMatchObject({ environment: 'sandbox', written: { clinics: 1, campaigns: 0, interactions: 1 }, invalid: 0 });
    expect(await db.clinic.findUnique({ where: { id: clinic.id }, select: { environment: true, language: true } })).toEqual({
      environment: 'sandbox',
      language: 'es',
    });
    expect(ids(await get(app, '/api/v1/clinics', testKey), 'clinics')).toContain(clinic.id);
    expect(ids(await get(app, '/api/v1/clinics', liveKey), 'clinics')).not.toContain(clinic.id);

    const human = await runCli(['import', '--clinics', writeLines('clinics.ndjson', [clinicLine()])], database.url);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('Written in one transaction, to the live environment (svc_live_ keys see it).');
  });

  it('refuses the records of a stored clinic of the other environment, naming the clinic and both environments', async () => {
    const stored = clinicLine();
    expect((await importJson('--environment', 'sandbox', '--clinics', writeLines('clinics.ndjson', [stored]))).code).toBe(0);
    const fresh = clinicLine();
    const clinics = writeLines('clinics.ndjson', [{ ...stored, name: 'Moved?' }, fresh]);
    const interactions = writeLines('interactions.ndjson', [voiceLine(stored.id), voiceLine(fresh.id)]);
    const refused = await importJson('--clinics', clinics, '--interactions', interactions);
    const reason = `clinic ${stored.id} is a sandbox clinic; this import writes live data (--environment live), and data never moves between environments`;
    expect(refused.code).toBe(1);
    expect(refused.out).toEqual({
      environment: 'live',
      written: { clinics: 0, campaigns: 0, interactions: 0 },
      invalid: 2,
      errors: [`${clinics}:1 id: ${reason}`, `${interactions}:1 clinic_id: unknown clinic ${stored.id} (its line ${clinics}:1 is invalid)`],
      error: '2 invalid lines: nothing was written (--skip-invalid writes the valid lines)',
    });
    // Records of the stored clinic without its clinic line: refused by their clinic_id.
    const campaigns = writeLines('campaigns.ndjson', [campaignLine(stored.id)]);
    const alone = await importJson('--campaigns', campaigns);
    expect(alone.out.errors).toEqual([`${campaigns}:1 clinic_id: ${reason}`]);

    // --skip-invalid writes the rest; the stored clinic keeps its environment and name.
    const skipped = await importJson('--skip-invalid', '--clinics', clinics, '--interactions', interactions);
    expect(skipped.code).toBe(0);
    expect(skipped.out).toMatchObject({ environment: 'live', written: { clinics: 1, interactions: 1 }, invalid: 2 });
    expect(await db.clinic.findUnique({ where: { id: stored.id }, select: { environment: true, name: true } })).toEqual({
      environment: 'sandbox',
      name: stored.name,
    });
    expect(await environmentOf(fresh.id)).toBe('live');
    // The same import into its own environment updates it.
    expect((await importJson('--environment', 'sandbox', '--clinics', writeLines('clinics.ndjson', [{ ...stored, name: 'Renamed' }]))).code).toBe(0);
    expect(await db.clinic.findUnique({ where: { id: stored.id }, select: { environment: true, name: true } })).toEqual({
      environment: 'sandbox',
      name: 'Renamed',
    });
  });

  it('language: ISO 639-1, checked like any field; a line without it keeps the stored one', async () => {
    const withoutLanguage = clinicLine();
    const clinic = { ...withoutLanguage, language: 'fr' };
    expect((await importJson('--clinics', writeLines('clinics.ndjson', [clinic]))).code).toBe(0);
    expect((await importJson('--clinics', writeLines('clinics.ndjson', [{ ...withoutLanguage, name: 'Same language' }]))).code).toBe(0);
    expect(await db.clinic.findUnique({ where: { id: clinic.id }, select: { language: true, name: true } })).toEqual({ language: 'fr', name: 'Same language' });
    const bad = writeLines('clinics.ndjson', [clinicLine({ language: 'ES' }), clinicLine({ language: 'spa' }), clinicLine({ language: 7 })]);
    const refused = await importJson('--clinics', bad);
    expect(refused.code).toBe(1);
    expect(refused.out.errors).toEqual([
      `${bad}:1 language: must be an ISO 639-1 language code: two lowercase letters (es)`,
      `${bad}:2 language: must be an ISO 639-1 language code: two lowercase letters (es)`,
      `${bad}:3 language: expected a string, got number`,
    ]);
  });

  it('refuses an unknown environment (usage error, exit 2)', async () => {
    const run = await importJson('--environment', 'production', '--clinics', writeLines('clinics.ndjson', [clinicLine()]));
    expect(run.code).toBe(2);
    expect(run.out).toEqual({ error: 'import: --environment must be one of live, sandbox, got "production"' });
  });
});

describe('seed --environment', () => {
  const seedArgs = (seed: string) => ['seed', '--clinics', '1', '--interactions', '30', '--days', '2', '--seed', seed, '--end-date', '2026-02-01'];
  const clinicOf = (seed: string) => generateDemoData({ clinics: 1, interactions: 30, seed }).clinics[0]!.id;

  it('writes sandbox clinics by default, live ones when asked, and says which', async () => {
    const sandboxRun = await runCli(['--json', ...seedArgs('env-seed-sandbox')], database.url);
    expect(sandboxRun.code, sandboxRun.stderr).toBe(0);
    expect(JSON.parse(sandboxRun.stdout)).toMatchObject({ environment: 'sandbox', clinics: 1, interactions: 30 });
    const liveRun = await runCli([...seedArgs('env-seed-live'), '--environment', 'live'], database.url);
    expect(liveRun.code, liveRun.stderr).toBe(0);
    expect(liveRun.stdout).toMatch(/^Seeded 1 live clinics, 5 campaigns and 30 interactions .* svc_live_ keys see them\.\n$/);
    expect(
      await db.clinic.findMany({
        where: { id: { in: [clinicOf('env-seed-sandbox'), clinicOf('env-seed-live')] } },
        select: { id: true, environment: true },
        orderBy: { id: 'asc' },
      }),
    ).toEqual(
      [
        { id: clinicOf('env-seed-sandbox'), environment: 'sandbox' },
        { id: clinicOf('env-seed-live'), environment: 'live' },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
  });

  it('refuses to seed into clinics of the other environment, and writes nothing', async () => {
    const before = await db.interaction.count({ where: { clinicId: clinicOf('env-seed-sandbox') } });
    const run = await runCli(['--json', ...seedArgs('env-seed-sandbox'), '--environment', 'live', '--interactions', '40'], database.url);
    expect(run.code).toBe(1);
    const { error } = JSON.parse(run.stdout);
    expect(error).toContain(`clinic ${clinicOf('env-seed-sandbox')} is a sandbox clinic; this seed writes live data`);
    expect(error).toContain('nothing was written');
    expect(await db.interaction.count({ where: { clinicId: clinicOf('env-seed-sandbox') } })).toBe(before);
    expect(await environmentOf(clinicOf('env-seed-sandbox'))).toBe('sandbox');
  });

  const environmentOf = async (id: string) => (await db.clinic.findUnique({ where: { id }, select: { environment: true } }))?.environment;
});

describe('the embedded demo database', () => {
  const DEMO_CLINICS = generateDemoData({}).clinics.map((c) => c.id);

  /** The demo key file a first start leaves in the data folder. */
  function dataFolder(): string {
    return fs.mkdtempSync(path.join(os.tmpdir(), 'demo-env-'));
  }

  it('a first start seeds sandbox data, which its demo key (svc_test_) sees', async () => {
    await withFreshDatabase('demo_new', async (url) => {
      await migrate(url);
      const demoDb = createPrismaClient(url, 2);
      const folder = dataFolder();
      try {
        // The demo's own data, smaller (the default 50,000 interactions take a minute here).
        const small = { clinics: 3, interactions: 300, days: 5 };
        const setup = await ensureDemoSetup(demoDb, url, folder, () => {}, small);
        expect(setup).toMatchObject({ seeded: true, replaced: null, upgraded: false, movedToSandbox: 0 });
        expect(setup.key).toMatch(/^svc_test_/);
        expect(await demoDb.clinic.groupBy({ by: ['environment'], _count: true })).toEqual([{ environment: 'sandbox', _count: 3 }]);
        const demoApp = testApp(demoDb);
        const clinics = await get(demoApp, '/api/v1/clinics?limit=100', setup.key);
        expect(ids(clinics, 'clinics').sort()).toEqual(
          generateDemoData(small)
            .clinics.map((c) => c.id)
            .sort(),
        );
        expect((await get(demoApp, '/api/v1/interactions', setup.key)).body.meta.total).toBe(300);
        // A later start moves nothing.
        expect(await ensureDemoSetup(demoDb, url, folder, () => {})).toMatchObject({ key: setup.key, seeded: false, movedToSandbox: 0 });
      } finally {
        await demoDb.$disconnect();
        fs.rmSync(folder, { recursive: true, force: true });
      }
    });
  }, 120_000);

  it('a demo database from before environments: its seeded clinics become sandbox ones again, nothing else', async () => {
    await withFreshDatabase('demo_old', async (url) => {
      // The database as the demo left it before the migration that made every clinic live.
      await migrateUpTo(url, `_${ENVIRONMENTS_MIGRATION.split('_').slice(1).join('_')}`);
      const demoDb = createPrismaClient(url, 2);
      const folder = dataFolder();
      const other = randomUUID();
      try {
        const old = new pg.Client({ connectionString: url });
        await old.connect();
        for (const id of [...DEMO_CLINICS, other]) {
          await old.query(`INSERT INTO clinics (id, name, address, phone, email, timezone) VALUES ($1, 'Old demo', 'a', 'p', 'e', 'UTC')`, [id]);
        }
        await old.end();
        const { key, record } = await createApiKey(demoDb, { name: 'Demo key (embedded database)', environment: 'test' });
        fs.writeFileSync(path.join(folder, 'demo-key.json'), JSON.stringify({ id: record.id, key }));
        await migrate(url);
        expect(await demoDb.clinic.count({ where: { environment: 'live' } })).toBe(9);
        const demoApp = testApp(demoDb);
        expect((await get(demoApp, '/api/v1/clinics', key)).body.meta.total).toBe(0);

        const logged: string[] = [];
        const setup = await ensureDemoSetup(demoDb, url, folder, (line) => logged.push(line));
        expect(setup).toEqual({ key, replaced: null, upgraded: true, seeded: false, movedToSandbox: 8 });
        expect(logged.join('\n')).toContain('its 8 clinics are now sandbox clinics');
        expect(ids(await get(demoApp, '/api/v1/clinics?limit=100', key), 'clinics').sort()).toEqual([...DEMO_CLINICS].sort());
        // A clinic the demo did not seed stays live.
        expect(await demoDb.clinic.findUnique({ where: { id: other }, select: { environment: true } })).toEqual({ environment: 'live' });
        expect((await ensureDemoSetup(demoDb, url, folder, () => {})).movedToSandbox).toBe(0);
      } finally {
        await demoDb.$disconnect();
        fs.rmSync(folder, { recursive: true, force: true });
      }
    });
  }, 120_000);

  it('a demo database set up after environments keeps its live clinics live', async () => {
    await withFreshDatabase('demo_after', async (url) => {
      await migrate(url);
      const demoDb = createPrismaClient(url, 2);
      const folder = dataFolder();
      try {
        // Someone seeded live data with the demo's seed before the first start.
        const live = new pg.Client({ connectionString: url });
        await live.connect();
        for (const id of DEMO_CLINICS) {
          await live.query(`INSERT INTO clinics (id, name, address, phone, email, timezone, environment) VALUES ($1, 'Live', 'a', 'p', 'e', 'UTC', 'live')`, [
            id,
          ]);
        }
        await live.end();
        const first = await ensureDemoSetup(demoDb, url, folder, () => {});
        expect(first).toMatchObject({ seeded: false, movedToSandbox: 0 });
        expect((await ensureDemoSetup(demoDb, url, folder, () => {})).movedToSandbox).toBe(0);
        expect(await demoDb.clinic.count({ where: { environment: 'live' } })).toBe(8);
      } finally {
        await demoDb.$disconnect();
        fs.rmSync(folder, { recursive: true, force: true });
      }
    });
  }, 120_000);
});
