// GET /api/v1/clinics and /api/v1/campaigns: exact fields, filters, ordering and pagination
// (decisions sections 2 and 3). Each test reads through a key restricted to its own clinics.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic } from '../helpers/factories.js';
import { expectError, expectStatus, expectSuccess, get, metaOf, UNKNOWN_CLINIC } from './client.js';

const db = testDb();
const app = testApp(db);

type ClinicRow = Awaited<ReturnType<typeof createClinic>>;
type CampaignRow = Awaited<ReturnType<typeof createCampaign>>;

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Walks every page of `path` at `limit` and returns the ids in order, checking each meta. */
async function walk(path: string, key: string, limit: number, total: number, list: 'clinics' | 'campaigns'): Promise<string[]> {
  const pages = Math.ceil(total / limit);
  const ids: string[] = [];
  for (let page = 1; page <= pages + 1; page++) {
    const response = await get(app, `${path}${path.includes('?') ? '&' : '?'}page=${page}&limit=${limit}`, key);
    expectStatus(response, 200);
    expect(response.body.meta).toEqual(metaOf(page, limit, total));
    const pageIds = response.body.data[list].map((item: { id: string }) => item.id);
    if (page > pages) expect(pageIds).toEqual([]);
    ids.push(...pageIds);
  }
  return ids;
}

describe('GET /api/v1/clinics', () => {
  it('shows exactly the spec fields of a clinic, in order', async () => {
    const clinic = await createClinic(db, {
      name: 'Clínica Dental Sonrisa',
      address: 'Calle Mayor 1, 28013 Madrid',
      phone: '+34 910 000 000',
      email: 'hola@sonrisa.example.test',
      timezone: 'Europe/Madrid',
      createdAt: new Date('2025-11-03T08:15:30.120Z'),
    });
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const response = await get(app, '/api/v1/clinics', key);
    expectSuccess(
      response,
      {
        clinics: [
          {
            id: clinic.id,
            name: 'Clínica Dental Sonrisa',
            address: 'Calle Mayor 1, 28013 Madrid',
            phone: '+34 910 000 000',
            email: 'hola@sonrisa.example.test',
            timezone: 'Europe/Madrid',
            created_at: '2025-11-03T08:15:30.120Z',
          },
        ],
      },
      { page: 1, limit: 25, total: 1, total_pages: 1, has_more: false },
    );
    expect(Object.keys(response.body.data)).toEqual(['clinics']);
    expect(Object.keys(response.body.data.clinics[0])).toEqual(['id', 'name', 'address', 'phone', 'email', 'timezone', 'created_at']);
  });

  it('orders by name then id, stable across pages (no duplicate, no miss), with last page and beyond', async () => {
    const names = ['Charlie Clinic', 'Alpha Clinic', 'Bravo Clinic', 'Alpha Clinic', 'Delta Clinic', 'Alpha Clinic', 'Bravo Clinic'];
    const clinics: ClinicRow[] = [];
    for (const name of names) clinics.push(await createClinic(db, { name }));
    const key = await createKey(db, { clinicIds: clinics.map((c) => c.id) });
    const expected = [...clinics].sort((a, b) => cmp(a.name, b.name) || cmp(a.id, b.id)).map((c) => c.id);

    for (const limit of [1, 2, 3, 7, 500]) {
      expect(await walk('/api/v1/clinics', key, limit, 7, 'clinics'), `limit ${limit}`).toEqual(expected);
    }
    const last = await get(app, '/api/v1/clinics?page=4&limit=2', key);
    expect(last.body.meta).toEqual({ page: 4, limit: 2, total: 7, total_pages: 4, has_more: false });
    expect(last.body.data.clinics.map((c: { id: string }) => c.id)).toEqual(expected.slice(6));
    expectSuccess(await get(app, '/api/v1/clinics?page=9&limit=2', key), { clinics: [] }, { page: 9, limit: 2, total: 7, total_pages: 4, has_more: false });
    expectError(await get(app, '/api/v1/clinics?limit=501', key), 400, 'VALIDATION_ERROR');
  });

  it('a restricted key lists only its clinics', async () => {
    const mine = await createClinic(db, { name: 'Mine' });
    const other = await createClinic(db, { name: 'Other' });
    const key = await createKey(db, { clinicIds: [mine.id] });
    const response = await get(app, '/api/v1/clinics?limit=500', key);
    expectStatus(response, 200);
    expect(response.body.data.clinics.map((c: { id: string }) => c.id)).toEqual([mine.id]);
    expect(response.body.meta.total).toBe(1);
    expect(JSON.stringify(response.body)).not.toContain(other.id);
  });
});

describe('GET /api/v1/campaigns', () => {
  it('shows exactly the spec fields of a campaign, enums lowercase, settings an object', async () => {
    const clinic = await createClinic(db);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const settings = {
      max_attempts: 3,
      retry_interval_hours: 24,
      call_window_start: '09:00',
      call_window_end: '18:30',
      allow_reschedule: true,
      allow_cancel: false,
    };
    const campaign = await createCampaign(db, clinic.id, {
      name: 'No-show recovery Q1',
      description: 'Calls patients who missed their appointment',
      type: 'no_show_recovery',
      channel: 'multi',
      status: 'paused',
      createdAt: new Date('2026-01-05T07:00:00.000Z'),
      updatedAt: new Date('2026-01-06T07:30:15.500Z'),
      settings,
    });
    const response = await get(app, '/api/v1/campaigns', key);
    expectSuccess(
      response,
      {
        campaigns: [
          {
            id: campaign.id,
            name: 'No-show recovery Q1',
            description: 'Calls patients who missed their appointment',
            type: 'no_show_recovery',
            channel: 'multi',
            status: 'paused',
            clinic_id: clinic.id,
            created_at: '2026-01-05T07:00:00.000Z',
            updated_at: '2026-01-06T07:30:15.500Z',
            settings,
          },
        ],
      },
      { page: 1, limit: 25, total: 1, total_pages: 1, has_more: false },
    );
    expect(Object.keys(response.body.data.campaigns[0])).toEqual([
      'id',
      'name',
      'description',
      'type',
      'channel',
      'status',
      'clinic_id',
      'created_at',
      'updated_at',
      'settings',
    ]);
  });

  it('shows every campaign type, channel and status in lowercase', async () => {
    const clinic = await createClinic(db);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const types = ['no_show_recovery', 'reactivation', 'appointment_reminder', 'follow_up', 'recall', 'custom'] as const;
    const channels = ['voice', 'whatsapp', 'multi'] as const;
    const statuses = ['active', 'paused', 'completed'] as const;
    const made: Array<[string, string, string]> = [];
    for (let i = 0; i < types.length; i++) {
      const row = [types[i]!, channels[i % 3]!, statuses[i % 3]!] as const;
      await createCampaign(db, clinic.id, { type: row[0], channel: row[1], status: row[2], createdAt: new Date(Date.UTC(2026, 0, 1, i)), settings: {} });
      made.push([...row]);
    }
    const response = await get(app, '/api/v1/campaigns', key);
    const seen = response.body.data.campaigns.map((c: { type: string; channel: string; status: string; settings: unknown }) => {
      expect(c.settings).toEqual({});
      return [c.type, c.channel, c.status];
    });
    expect(seen).toEqual(made.reverse());
  });

  it('orders by created_at descending then id descending (ties included), stable across pages', async () => {
    const clinic = await createClinic(db);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const prefix = `cmp_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const t1 = new Date('2026-02-01T00:00:00.000Z');
    const t2 = new Date('2026-01-01T00:00:00.000Z');
    const specs: Array<[string, Date]> = [
      ['b', t1],
      ['d', t2],
      ['a', t1],
      ['e', new Date('2026-03-01T00:00:00.000Z')],
      ['c', t1],
      ['f', t2],
    ];
    const campaigns: CampaignRow[] = [];
    for (const [suffix, createdAt] of specs) campaigns.push(await createCampaign(db, clinic.id, { id: `${prefix}_${suffix}`, createdAt }));
    const expected = [`${prefix}_e`, `${prefix}_c`, `${prefix}_b`, `${prefix}_a`, `${prefix}_f`, `${prefix}_d`];
    expect([...campaigns].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || cmp(b.id, a.id)).map((c) => c.id)).toEqual(expected);
    for (const limit of [1, 2, 4, 6, 500]) {
      expect(await walk('/api/v1/campaigns', key, limit, 6, 'campaigns'), `limit ${limit}`).toEqual(expected);
    }
  });

  it('filters by clinic_id and status, alone and combined; unknown clinic gives an empty page', async () => {
    const a = await createClinic(db);
    const b = await createClinic(db);
    const key = await createKey(db, { clinicIds: [a.id, b.id] });
    const made = {
      aActive: await createCampaign(db, a.id, { status: 'active', createdAt: new Date('2026-01-06T00:00:00Z') }),
      aPaused: await createCampaign(db, a.id, { status: 'paused', createdAt: new Date('2026-01-05T00:00:00Z') }),
      aCompleted: await createCampaign(db, a.id, { status: 'completed', createdAt: new Date('2026-01-04T00:00:00Z') }),
      bActive: await createCampaign(db, b.id, { status: 'active', createdAt: new Date('2026-01-03T00:00:00Z') }),
      bPaused: await createCampaign(db, b.id, { status: 'paused', createdAt: new Date('2026-01-02T00:00:00Z') }),
    };
    const ids = async (query: string) => {
      const response = await get(app, `/api/v1/campaigns?${query}`, key);
      expectStatus(response, 200);
      const list = response.body.data.campaigns.map((c: { id: string }) => c.id);
      expect(response.body.meta.total).toBe(list.length);
      return list;
    };
    expect(await ids('')).toEqual([made.aActive.id, made.aPaused.id, made.aCompleted.id, made.bActive.id, made.bPaused.id]);
    expect(await ids(`clinic_id=${a.id}`)).toEqual([made.aActive.id, made.aPaused.id, made.aCompleted.id]);
    expect(await ids(`clinic_id=${b.id.toUpperCase()}`)).toEqual([made.bActive.id, made.bPaused.id]);
    expect(await ids('status=active')).toEqual([made.aActive.id, made.bActive.id]);
    expect(await ids('status=paused')).toEqual([made.aPaused.id, made.bPaused.id]);
    expect(await ids('status=completed')).toEqual([made.aCompleted.id]);
    expect(await ids(`clinic_id=${b.id}&status=paused`)).toEqual([made.bPaused.id]);
    expect(await ids(`clinic_id=${b.id}&status=completed`)).toEqual([]);
    expectSuccess(
      await get(app, `/api/v1/campaigns?clinic_id=${UNKNOWN_CLINIC}`, key),
      { campaigns: [] },
      { page: 1, limit: 25, total: 0, total_pages: 0, has_more: false },
    );
    expectSuccess(
      await get(app, `/api/v1/campaigns?clinic_id=${a.id}&page=2&limit=2`, key),
      {
        campaigns: [
          {
            id: made.aCompleted.id,
            name: 'Test campaign',
            description: 'A campaign made by a test',
            type: 'reactivation',
            channel: 'voice',
            status: 'completed',
            clinic_id: a.id,
            created_at: '2026-01-04T00:00:00.000Z',
            updated_at: made.aCompleted.updatedAt.toISOString(),
            settings: { max_attempts: 3 },
          },
        ],
      },
      { page: 2, limit: 2, total: 3, total_pages: 2, has_more: false },
    );
  });

  it('a clinic without campaigns: total 0, total_pages 0', async () => {
    const clinic = await createClinic(db);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    expectSuccess(await get(app, '/api/v1/campaigns', key), { campaigns: [] }, { page: 1, limit: 25, total: 0, total_pages: 0, has_more: false });
    expectSuccess(await get(app, '/api/v1/campaigns?page=3', key), { campaigns: [] }, { page: 3, limit: 25, total: 0, total_pages: 0, has_more: false });
  });
});
