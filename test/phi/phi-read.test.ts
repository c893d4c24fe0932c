// The scope phi:read over real HTTP (decisions section 11): a key without it reads interactions with
// the phone number masked, phone numbers and e-mail addresses in transcripts and summaries replaced,
// and no recording - in REST lists, by id, cursor pages, the change feed, exports and every GraphQL
// path - and may not filter by `search` or `q` (403 INSUFFICIENT_SCOPE, required_scope phi:read).
// A default key holds the scope and reads everything as stored.
import { beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/domain/values.js';
import { REST_NAMES, routes } from '../../src/rest/routes.js';
import { createKey, graphql, testApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';
import { serveOverHttp } from '../helpers/http-server.js';
import { expectError, expectStatus, get, type Json, type RestResponse } from '../rest/client.js';
import { csvObjects, parseNdjson, unguarded } from '../rest/exports-support.js';

const db = testDb();
const app = testApp(db);
const server = await serveOverHttp(app);

/** Every scope but phi:read. */
const WITHOUT_PHI = SCOPES.filter((scope) => scope !== 'phi:read');

const STORED = {
  voice: {
    phone: '+34 612 345 689',
    summary: 'Asked to be called back on 06 12 34 56 78 or written to at ana.garcia+dentist@gmail.com; booked for 04/02/2026 at 10:30 (€45).',
    recording: 'https://recordings.example.test/call-1.mp3',
    transcript: [
      { role: 'assistant', content: 'Is +34 612 345 689 still your number?' },
      { role: 'user', content: 'Yes, or email me at ana@example.com. See you on 04/02/2026 at 10:30.' },
    ],
  },
  whatsapp: {
    phone: '612 345 678',
    summary: 'Confirmed the appointment of 5 February 2026 at 09:15.',
    transcript: [
      { role: 'assistant', content: 'Reply YES to confirm 05/02/2026 09:15.' },
      { role: 'user', content: 'YES. My new number is 0034 699 111 222.' },
    ],
  },
};

const MASKED = {
  voice: {
    phone: '+34 6** *** *89',
    summary: 'Asked to be called back on [phone] or written to at [email]; booked for 04/02/2026 at 10:30 (€45).',
    transcript: [
      { role: 'assistant', content: 'Is [phone] still your number?' },
      { role: 'user', content: 'Yes, or email me at [email]. See you on 04/02/2026 at 10:30.' },
    ],
  },
  whatsapp: {
    phone: '*** *** *78',
    // Nothing to redact: unchanged.
    summary: STORED.whatsapp.summary,
    transcript: [
      { role: 'assistant', content: 'Reply YES to confirm 05/02/2026 09:15.' },
      { role: 'user', content: 'YES. My new number is [phone].' },
    ],
  },
};

let clinicId: string;
let campaignId: string;
let voiceId: string;
let whatsappId: string;
/** Default scopes (phi:read among them). */
let keyFull: string;
/** Every scope but phi:read. */
let keyMasked: string;

beforeAll(async () => {
  clinicId = (await createClinic(db)).id;
  campaignId = (await createCampaign(db, clinicId)).id;
  voiceId = (
    await createInteraction(db, {
      clinicId,
      campaignId,
      channel: 'voice',
      startedAt: new Date('2026-02-01T09:00:00Z'),
      phoneNumber: STORED.voice.phone,
      summary: STORED.voice.summary,
      recordingUrl: STORED.voice.recording,
      transcript: STORED.voice.transcript,
    })
  ).id;
  whatsappId = (
    await createInteraction(db, {
      clinicId,
      campaignId,
      channel: 'whatsapp',
      startedAt: new Date('2026-02-02T09:00:00Z'),
      phoneNumber: STORED.whatsapp.phone,
      summary: STORED.whatsapp.summary,
      transcript: STORED.whatsapp.transcript,
    })
  ).id;
  keyFull = await createKey(db, { clinicIds: [clinicId] });
  keyMasked = await createKey(db, { clinicIds: [clinicId], scopes: WITHOUT_PHI });
});

const rest = (path: string, key: string) => get(app, path, key);
const byId = (rows: Json[]) => Object.fromEntries(rows.map((row) => [row.id, row]));

/** The patient data of a REST interaction (list, detail or feed), for comparison. */
function phiOf(row: Json) {
  return { phone: row.phone_number, summary: row.summary, recording: row.recording_url, transcript: row.transcript };
}

const INTERACTION_FIELDS = 'id phoneNumber summary recordingUrl transcript { role content }';

/** A GraphQL interaction's patient data in the shape of STORED / MASKED. */
function gqlPhiOf(node: Json) {
  return { phone: node.phoneNumber, summary: node.summary, recording: node.recordingUrl, transcript: node.transcript };
}

describe('a default key (phi:read) reads patient data as stored', () => {
  it('REST list and by id', async () => {
    const list = await rest(`/api/v1/interactions?clinic_id=${clinicId}`, keyFull);
    expectStatus(list, 200);
    const rows = byId(list.body.data.interactions);
    expect(phiOf(rows[voiceId])).toEqual({
      phone: STORED.voice.phone,
      summary: STORED.voice.summary,
      recording: STORED.voice.recording,
      transcript: undefined,
    });
    expect(phiOf(rows[whatsappId])).toEqual({
      phone: STORED.whatsapp.phone,
      summary: STORED.whatsapp.summary,
      recording: undefined,
      transcript: STORED.whatsapp.transcript,
    });
    const detail = await rest(`/api/v1/interactions/${voiceId}`, keyFull);
    expectStatus(detail, 200);
    expect(phiOf(detail.body.data.interaction)).toEqual({ ...STORED.voice, recording: STORED.voice.recording });
  });

  it('GraphQL', async () => {
    const response = await graphql(app, { key: keyFull, query: `{ interaction(id: "${voiceId}") { ${INTERACTION_FIELDS} } }` });
    expect(response.body.errors).toBeUndefined();
    expect(gqlPhiOf(response.body.data!.interaction)).toEqual(STORED.voice);
  });
});

describe('a key without phi:read reads patient data masked', () => {
  it('REST list: phone masked, summary and transcript redacted, no recording; every other field as for a default key', async () => {
    const [full, masked] = await Promise.all([
      rest(`/api/v1/interactions?clinic_id=${clinicId}`, keyFull),
      rest(`/api/v1/interactions?clinic_id=${clinicId}`, keyMasked),
    ]);
    expectStatus(masked, 200);
    expect(masked.body.meta).toEqual(full.body.meta);
    const rows = byId(masked.body.data.interactions);
    expect(phiOf(rows[voiceId])).toEqual({ phone: MASKED.voice.phone, summary: MASKED.voice.summary, recording: null, transcript: undefined });
    expect(phiOf(rows[whatsappId])).toEqual({
      phone: MASKED.whatsapp.phone,
      summary: MASKED.whatsapp.summary,
      recording: undefined,
      transcript: MASKED.whatsapp.transcript,
    });
    // The same rows, in the same order, with the same keys; only the patient data differs.
    expect(masked.body.data.interactions.map((row: Json) => Object.keys(row))).toEqual(full.body.data.interactions.map((row: Json) => Object.keys(row)));
    const { phone_number: _a, summary: _b, recording_url: _c, transcript: _d, ...rest1 } = rows[voiceId];
    const { phone_number: _e, summary: _f, recording_url: _g, transcript: _h, ...rest2 } = byId(full.body.data.interactions)[voiceId];
    expect(rest1).toEqual(rest2);
  });

  it('REST by id: the voice call with its transcript', async () => {
    const detail = await rest(`/api/v1/interactions/${voiceId}`, keyMasked);
    expectStatus(detail, 200);
    expect(phiOf(detail.body.data.interaction)).toEqual({ ...MASKED.voice, recording: null });
  });

  it('REST cursor page and change feed', async () => {
    const cursor = await rest(`/api/v1/interactions?clinic_id=${clinicId}&cursor=`, keyMasked);
    expectStatus(cursor, 200);
    expect(phiOf(byId(cursor.body.data.interactions)[whatsappId])).toEqual({
      phone: MASKED.whatsapp.phone,
      summary: MASKED.whatsapp.summary,
      recording: undefined,
      transcript: MASKED.whatsapp.transcript,
    });
    // The feed stops at the oldest open writing transaction (other test files import meanwhile): wait for the rows.
    let feed: RestResponse | undefined;
    for (let attempt = 0; attempt < 50; attempt++) {
      feed = await rest(`/api/v1/interactions?clinic_id=${clinicId}&updated_since=2000-01-01T00:00:00Z`, keyMasked);
      expectStatus(feed, 200);
      if (feed.body.data.interactions.length === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const rows = byId(feed!.body.data.interactions);
    expect(phiOf(rows[voiceId])).toEqual({ phone: MASKED.voice.phone, summary: MASKED.voice.summary, recording: null, transcript: undefined });
    expect(phiOf(rows[whatsappId]).transcript).toEqual(MASKED.whatsapp.transcript);
  });

  it('GraphQL: by id, root list, cursor connection, and the lists of a clinic and of a campaign', async () => {
    const query = `query($id: ID!, $clinic: ID!, $campaign: ID!) {
      interaction(id: $id) { ${INTERACTION_FIELDS} }
      interactions(clinicId: $clinic) { nodes { ${INTERACTION_FIELDS} } }
      interactionsConnection(clinicId: $clinic) { nodes { ${INTERACTION_FIELDS} } }
      clinic(id: $clinic) { interactions { ${INTERACTION_FIELDS} } }
      campaign(id: $campaign) { interactions { ${INTERACTION_FIELDS} } }
    }`;
    const variables = { id: voiceId, clinic: clinicId, campaign: campaignId };
    const response = await graphql(app, { key: keyMasked, query, variables });
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    const data = response.body.data!;
    const maskedVoice = { ...MASKED.voice, recording: null };
    const maskedWhatsapp = { ...MASKED.whatsapp, recording: null };
    const expectedList = [maskedWhatsapp, maskedVoice];
    expect(gqlPhiOf(data.interaction)).toEqual(maskedVoice);
    for (const nodes of [data.interactions.nodes, data.interactionsConnection.nodes, data.clinic.interactions, data.campaign.interactions]) {
      expect(nodes.map((node: Json) => node.id)).toEqual([whatsappId, voiceId]);
      expect(nodes.map(gqlPhiOf)).toEqual(expectedList);
    }

    // The same query with a default key: as stored.
    const full = await graphql(app, { key: keyFull, query, variables });
    expect(full.body.errors).toBeUndefined();
    expect(full.body.data!.campaign.interactions.map(gqlPhiOf)).toEqual([
      { ...STORED.whatsapp, recording: null },
      { ...STORED.voice, recording: STORED.voice.recording },
    ]);
  });

  it('exports: CSV and NDJSON rows masked as the JSON answer; a default key exports them as stored', async () => {
    const exported = async (key: string, accept: string) => {
      const response = await fetch(`${server.baseUrl}/api/v1/interactions?clinic_id=${clinicId}`, {
        headers: { authorization: `Bearer ${key}`, accept, 'accept-encoding': 'identity' },
      });
      expect(response.status).toBe(200);
      return response.text();
    };
    const csv = (text: string) => byId(csvObjects(text).rows.map(unguarded));
    const maskedCsv = csv(await exported(keyMasked, 'text/csv'));
    expect(maskedCsv[voiceId]).toMatchObject({ phone_number: MASKED.voice.phone, summary: MASKED.voice.summary, recording_url: '' });
    expect(maskedCsv[whatsappId]).toMatchObject({ phone_number: MASKED.whatsapp.phone, summary: MASKED.whatsapp.summary, recording_url: '' });
    const fullCsv = csv(await exported(keyFull, 'text/csv'));
    expect(fullCsv[voiceId]).toMatchObject({ phone_number: STORED.voice.phone, summary: STORED.voice.summary, recording_url: STORED.voice.recording });
    // Every other column as for a default key.
    const others = (row: Record<string, string>) => {
      const { phone_number: _a, summary: _b, recording_url: _c, ...rest } = row;
      return rest;
    };
    expect(others(maskedCsv[voiceId])).toEqual(others(fullCsv[voiceId]));

    const maskedLines = byId(parseNdjson(await exported(keyMasked, 'application/x-ndjson')));
    expect(phiOf(maskedLines[voiceId])).toEqual({ ...MASKED.voice, recording: null });
    expect(phiOf(maskedLines[whatsappId])).toEqual({ ...MASKED.whatsapp, recording: undefined });
    const fullLines = byId(parseNdjson(await exported(keyFull, 'application/x-ndjson')));
    expect(phiOf(fullLines[voiceId])).toEqual({ ...STORED.voice, recording: STORED.voice.recording });
    expect(phiOf(fullLines[whatsappId])).toEqual({ ...STORED.whatsapp, recording: undefined });

    // Each NDJSON line is the by-id answer of the same key, plus updated_at.
    const detail = await rest(`/api/v1/interactions/${voiceId}`, keyMasked);
    const { updated_at: _u, ...line } = maskedLines[voiceId];
    expect(line).toEqual(detail.body.data.interaction);
  });

  it('masked and unmasked answers have different ETags, and one does not confirm the other', async () => {
    const path = `/api/v1/interactions/${voiceId}`;
    const full = await rest(path, keyFull);
    const masked = await rest(path, keyMasked);
    const fullTag = full.headers.get('etag');
    const maskedTag = masked.headers.get('etag');
    expect(fullTag).toBeTruthy();
    expect(maskedTag).toBeTruthy();
    expect(maskedTag).not.toBe(fullTag);
    // Each key's own ETag: 304. The other's: the full answer, masked as the key reads it.
    expect((await get(app, path, keyMasked, { 'if-none-match': maskedTag! })).status).toBe(304);
    const crossed = await get(app, path, keyMasked, { 'if-none-match': fullTag! });
    expectStatus(crossed, 200);
    expect(crossed.body.data.interaction.phone_number).toBe(MASKED.voice.phone);
    expect((await get(app, path, keyFull, { 'if-none-match': fullTag! })).status).toBe(304);
  });
});

describe('search and q need phi:read', () => {
  const expectPhiRefusal = (response: RestResponse, parameter: string) => {
    const error = expectError(response, 403, 'INSUFFICIENT_SCOPE', `This API key lacks the scope phi:read needed to filter by ${parameter}`);
    expect(error.details).toEqual({ required_scope: 'phi:read' });
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="api", error="insufficient_scope", scope="phi:read"');
  };

  it('REST: the list, the cursor list, the change feed and exports refuse search; a default key searches', async () => {
    expectPhiRefusal(await rest(`/api/v1/interactions?search=612`, keyMasked), 'search');
    expectPhiRefusal(await rest(`/api/v1/interactions?search=612&cursor=`, keyMasked), 'search');
    expectPhiRefusal(await rest(`/api/v1/interactions?search=612&updated_since=2026-01-01`, keyMasked), 'search');
    for (const accept of ['text/csv', 'application/x-ndjson']) {
      expectPhiRefusal(await get(app, `/api/v1/interactions?search=612`, keyMasked, { accept }), 'search');
    }
    // The scope is judged before the values, as every scope is: an empty search, or a bad other parameter, is still a 403.
    expectPhiRefusal(await rest(`/api/v1/interactions?search=`, keyMasked), 'search');
    expectPhiRefusal(await rest(`/api/v1/interactions?search=612&limit=0&channel=fax`, keyMasked), 'search');
    expectPhiRefusal(await get(app, `/api/v1/interactions?search=612&limit=5`, keyMasked, { accept: 'text/csv' }), 'search');

    const found = await rest(`/api/v1/interactions?clinic_id=${clinicId}&search=${encodeURIComponent('612 345 6')}`, keyFull);
    expectStatus(found, 200);
    expect(found.body.data.interactions.map((row: Json) => row.id)).toEqual([whatsappId, voiceId]);
    // Without search, the same bad value is the usual 400.
    expectError(await rest(`/api/v1/interactions?clinic_id=${clinicId}&limit=0`, keyMasked), 400, 'VALIDATION_ERROR');
  });

  it('GraphQL: interactions, interactionsConnection and the nested lists refuse search; the rest of the query resolves', async () => {
    const query = `query($clinic: ID!, $campaign: ID!) {
      interactions(search: "612") { nodes { id } }
      interactionsConnection(search: "612") { nodes { id } }
      clinic(id: $clinic) { id interactions(search: "612") { id } }
      campaign(id: $campaign) { id interactions(search: "612") { id } }
      all: interactions(clinicId: $clinic) { pageInfo { total } }
    }`;
    const response = await graphql(app, { key: keyMasked, query, variables: { clinic: clinicId, campaign: campaignId } });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      interactions: null,
      interactionsConnection: null,
      clinic: { id: clinicId, interactions: null },
      campaign: { id: campaignId, interactions: null },
      all: { pageInfo: { total: 2 } },
    });
    const errors = response.body.errors ?? [];
    expect(errors.map((e) => e.path)).toEqual(
      expect.arrayContaining([['interactions'], ['interactionsConnection'], ['clinic', 'interactions'], ['campaign', 'interactions']]),
    );
    expect(errors).toHaveLength(4);
    for (const error of errors) {
      expect(error.extensions).toEqual({ code: 'INSUFFICIENT_SCOPE', details: { required_scope: 'phi:read' } });
      expect(error.message).toBe('This API key lacks the scope phi:read needed to filter by search');
    }

    const full = await graphql(app, { key: keyFull, query, variables: { clinic: clinicId, campaign: campaignId } });
    expect(full.body.errors).toBeUndefined();
    expect(full.body.data!.clinic.interactions.map((row: Json) => row.id)).toEqual([whatsappId, voiceId]);
  });

  // `q` (GraphQL `text`): full-text search of what was said, refused the same way once the filter exists.
  const q = (REST_NAMES as Partial<Record<string, string>>).text ?? 'q';
  const hasText = routes.some((route) => route.path === '/api/v1/interactions' && route.params.includes(q));
  it.skipIf(!hasText)('REST q and GraphQL text are refused the same way', async () => {
    expectPhiRefusal(await rest(`/api/v1/interactions?${q}=cancel`, keyMasked), q);
    expectPhiRefusal(await get(app, `/api/v1/interactions?${q}=cancel`, keyMasked, { accept: 'text/csv' }), q);
    const response = await graphql(app, { key: keyMasked, query: '{ interactions(text: "cancel") { nodes { id } } }' });
    expect(response.body.data).toEqual({ interactions: null });
    expect(response.body.errors?.[0]?.extensions).toEqual({ code: 'INSUFFICIENT_SCOPE', details: { required_scope: 'phi:read' } });
  });
});

describe('the scope on the key', () => {
  it('/api/v1/me and GraphQL viewer list phi:read for a default key, and not for a key without it', async () => {
    const full = await rest('/api/v1/me', keyFull);
    expectStatus(full, 200);
    expect(full.body.data.scopes).toEqual(['interactions:read', 'metrics:read', 'campaigns:read', 'clinics:read', 'phi:read']);
    const masked = await rest('/api/v1/me', keyMasked);
    expect(masked.body.data.scopes).toEqual(['interactions:read', 'metrics:read', 'campaigns:read', 'clinics:read']);
    const viewer = await graphql(app, { key: keyMasked, query: '{ viewer { scopes } }' });
    expect(viewer.body.data).toEqual({ viewer: { scopes: ['interactions:read', 'metrics:read', 'campaigns:read', 'clinics:read'] } });
  });

  it('keys create --scopes accepts phi:read; without --scopes a key gets it', async () => {
    const created = await runCli(['--json', 'keys', 'create', '--name', `phi ${clinicId}`, '--scopes', 'interactions:read,phi:read', '--clinics', clinicId]);
    expect(created.code, created.stderr).toBe(0);
    const { key, scopes } = JSON.parse(created.stdout) as { key: string; scopes: string[] };
    expect(scopes).toEqual(['interactions:read', 'phi:read']);
    const detail = await rest(`/api/v1/interactions/${voiceId}`, key);
    expectStatus(detail, 200);
    expect(detail.body.data.interaction.phone_number).toBe(STORED.voice.phone);

    const narrow = await runCli(['--json', 'keys', 'create', '--name', `no phi ${clinicId}`, '--scopes', 'interactions:read', '--clinics', clinicId]);
    expect(narrow.code, narrow.stderr).toBe(0);
    const narrowKey = (JSON.parse(narrow.stdout) as { key: string }).key;
    expect((await rest(`/api/v1/interactions/${voiceId}`, narrowKey)).body.data.interaction.phone_number).toBe(MASKED.voice.phone);

    const byDefault = await runCli(['--json', 'keys', 'create', '--name', `default ${clinicId}`]);
    expect(byDefault.code, byDefault.stderr).toBe(0);
    expect((JSON.parse(byDefault.stdout) as { scopes: string[] }).scopes).toContain('phi:read');

    const unknown = await runCli(['keys', 'create', '--name', 'bad scope', '--scopes', 'phi:write']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('phi:read');
  });
});
