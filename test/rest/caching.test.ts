// HTTP caching of REST answers: ETag over data and meta, If-None-Match -> 304 (a request all the
// same), the caching headers, the data version that lets a 304 skip the query, and Link headers.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKey, testApp } from '../helpers/app.js';
import { databaseUrl, sql, testDb } from '../helpers/db.js';
import { createClinic, createInteraction } from '../helpers/factories.js';
import { expectStatus, get, type RestResponse } from './client.js';

const db = testDb();
const app = testApp(db);

async function scenario(calls = 3) {
  const clinic = await createClinic(db);
  const key = await createKey(db, { clinicIds: [clinic.id], tier: 'premium' });
  const rows = [];
  for (let i = 0; i < calls; i++) {
    rows.push(await createInteraction(db, { clinicId: clinic.id, startedAt: new Date(Date.UTC(2025, 5, 1 + i, 9)) }));
  }
  return { clinic, key, rows };
}

const conditional = (etag: string) => ({ 'If-None-Match': etag });

function expectCachingHeaders(response: RestResponse) {
  expect(response.headers.get('etag')).toMatch(/^W\/"[A-Za-z0-9_-]{32}"$/);
  expect(response.headers.get('cache-control')).toBe('private, no-cache');
  expect(response.headers.get('vary')).toMatch(/^Authorization, Accept, Accept-Encoding$/);
}

describe('ETag and If-None-Match', () => {
  it('gives every 200 an ETag that holds while data and parameters stay, and answers 304 for it', async () => {
    const { key, clinic } = await scenario();
    const path = `/api/v1/interactions?clinic_id=${clinic.id}`;
    const first = await get(app, path, key);
    expectStatus(first, 200);
    expectCachingHeaders(first);
    const etag = first.headers.get('etag')!;

    const again = await get(app, path, key);
    expect(again.body.timestamp === first.body.timestamp && again.body.request_id === first.body.request_id).toBe(false);
    expect(again.headers.get('etag')).toBe(etag);

    const remaining = Number(again.headers.get('x-ratelimit-remaining-minute'));
    const revalidated = await get(app, path, key, conditional(etag));
    expect(revalidated.status).toBe(304);
    expect(revalidated.text).toBe('');
    expect(revalidated.headers.get('etag')).toBe(etag);
    expect(revalidated.headers.get('x-request-id')).toMatch(/.+/);
    expectCachingHeaders(revalidated);
    // A 304 is a request: it counts against the quota and says so.
    expect(Number(revalidated.headers.get('x-ratelimit-remaining-minute'))).toBe(remaining - 1);
    // Weak comparison, lists and `*` (RFC 9110).
    expect((await get(app, path, key, conditional(`"x", ${etag.slice(2)}`))).status).toBe(304);
    expect((await get(app, path, key, conditional('*'))).status).toBe(304);
    expect((await get(app, path, key, conditional('W/"other"'))).status).toBe(200);
    const head = await app.fetch(`http://localhost${path}`, { method: 'HEAD', headers: { authorization: `Bearer ${key}`, ...conditional(etag) } });
    expect(head.status).toBe(304);

    // Other parameters: another ETag, even where the data is the same.
    const otherOrder = await get(app, `${path}&limit=25`, key);
    expect(otherOrder.body.data).toEqual(first.body.data);
    expect(otherOrder.headers.get('etag')).not.toBe(etag);

    // Changed data: another ETag, and the old one no longer gets a 304.
    await createInteraction(db, { clinicId: clinic.id, startedAt: new Date(Date.UTC(2025, 5, 9, 9)) });
    const changed = await get(app, path, key, conditional(etag));
    expectStatus(changed, 200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(changed.body.meta.total).toBe(4);
  });

  it('answers 304 from the data version without running the request again', async () => {
    const { key, clinic, rows } = await scenario();
    const path = `/api/v1/metrics/daily?clinic_id=${clinic.id}&date_from=2025-06-01&date_to=2025-06-30`;
    const first = await get(app, path, key);
    const etag = first.headers.get('etag')!;
    // The first conditional request runs it (nothing remembered yet) and remembers the ETag.
    expect((await get(app, path, key, conditional(etag))).status).toBe(304);

    // A change the data versions cannot see (triggers off, as a replica-mode load is): if the 304
    // ran the query, it would find the new outcome and answer 200.
    await sql(`BEGIN; SET LOCAL session_replication_role = replica; UPDATE interactions SET outcome = 'NO_ANSWER' WHERE id = '${rows[0]!.id}'; COMMIT;`);
    expect((await get(app, path, key, conditional(etag))).status).toBe(304);

    // The rebuild that such a load needs moves every version: now the request runs and the data changed.
    await sql('SELECT interaction_rollups_rebuild()');
    const rebuilt = await get(app, path, key, conditional(etag));
    expectStatus(rebuilt, 200);
    expect(rebuilt.headers.get('etag')).not.toBe(etag);
  });

  it('moves the version for changes to clinics, campaigns, transcripts and deletions', async () => {
    const { clinic, rows } = await scenario(1);
    const version = async () =>
      (
        await sql<{ version: string }>(
          `SELECT ((SELECT coalesce(sum(version), 0) FROM clinic_data_versions WHERE clinic_id = $1)
                 + (SELECT count(*) FROM clinic_data_changes WHERE clinic_id = $1))::text AS version`,
          [clinic.id],
        )
      )[0]!.version;
    let last = await version();
    const moved = async (statement: string, params: unknown[]) => {
      await sql(statement, params);
      const now = await version();
      expect(BigInt(now) > BigInt(last), statement).toBe(true);
      last = now;
    };
    await moved('UPDATE clinics SET name = name || $2 WHERE id = $1', [clinic.id, ' (renamed)']);
    await moved(
      `INSERT INTO campaigns (id, name, description, type, channel, status, clinic_id, created_at, updated_at, settings)
       VALUES ($1, 'c', 'd', 'recall', 'voice', 'active', $2, now(), now(), '{}')`,
      [`cmp_${randomUUID()}`, clinic.id],
    );
    await moved(`INSERT INTO interaction_transcripts (interaction_id, entries) VALUES ($1, '[]')`, [rows[0]!.id]);
    await moved('DELETE FROM interactions WHERE id = $1', [rows[0]!.id]);
  });

  it('never confirms an ETag across a commit that came late: a transaction that wrote first and committed last', async () => {
    const a = await createClinic(db);
    const b = await createClinic(db);
    const key = await createKey(db, { clinicIds: [a.id, b.id], tier: 'premium' });
    const path = '/api/v1/metrics/summary?date_from=2025-01-01&date_to=2025-12-31';
    const { default: pg } = await import('pg');
    const late = new pg.Client({ connectionString: databaseUrl });
    await late.connect();
    try {
      await late.query('BEGIN');
      await late.query(
        `INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, started_at) VALUES ($1, 'voice', 'INBOUND', 'inbound', '+1', $2, '2025-03-01T10:00:00Z')`,
        [`late_${randomUUID()}`, a.id],
      );
      // Meanwhile another clinic changes, committed at once (another day: no shared rollup row).
      await createInteraction(db, { clinicId: b.id, startedAt: new Date('2025-07-01T10:00:00Z') });
      const before = await get(app, path, key);
      const etag = before.headers.get('etag')!;
      expect((await get(app, path, key, conditional(etag))).status).toBe(304);
      expect((await get(app, path, key, conditional(etag))).status).toBe(304);
      await late.query('COMMIT');
      const after = await get(app, path, key, conditional(etag));
      expectStatus(after, 200);
      expect(after.body.data.total_interactions).toBe(before.body.data.total_interactions + 1);
    } finally {
      await late.end();
    }
  });

  it('does not share ETags or 304s between keys that see different clinics', async () => {
    const { clinic } = await scenario(1);
    const mine = await createKey(db, { clinicIds: [clinic.id] });
    const everything = await createKey(db);
    const path = `/api/v1/interactions?clinic_id=${clinic.id}`;
    const a = await get(app, path, mine);
    const b = await get(app, path, everything);
    expect(a.body.data).toEqual(b.body.data);
    expect(b.headers.get('etag')).not.toBe(a.headers.get('etag'));
    expect((await get(app, path, everything, conditional(a.headers.get('etag')!))).status).toBe(200);
  });

  it('keeps errors uncacheable and without ETag', async () => {
    const { key } = await scenario(0);
    const bad = await get(app, '/api/v1/interactions?limit=0', key, conditional('*'));
    expect(bad.status).toBe(400);
    expect(bad.headers.get('etag')).toBeNull();
    expect(bad.headers.get('cache-control')).toBe('no-store');
    const hostile = await get(app, '/api/v1/interactions', key, conditional(`${'W/"a",'.repeat(2_000)}"b"`));
    expect(hostile.status).toBe(200);
  });
});

describe('Link header', () => {
  const linksOf = (response: RestResponse) =>
    Object.fromEntries(
      (response.headers.get('link') ?? '')
        .split(', ')
        .filter(Boolean)
        .map((part) => {
          const match = /^<([^>]*)>; rel="(\w+)"$/.exec(part);
          if (!match) throw new Error(`bad link ${part}`);
          return [match[2], match[1]];
        }),
    );

  it('links first, prev, next and last pages, keeping the other parameters as written', async () => {
    const { key, clinic } = await scenario(7);
    const response = await get(app, `/api/v1/interactions?clinic_id=${clinic.id}&limit=2&page=2&channel=voice`, key);
    expect(linksOf(response)).toEqual({
      first: `/api/v1/interactions?clinic_id=${clinic.id}&limit=2&page=1&channel=voice`,
      prev: `/api/v1/interactions?clinic_id=${clinic.id}&limit=2&page=1&channel=voice`,
      next: `/api/v1/interactions?clinic_id=${clinic.id}&limit=2&page=3&channel=voice`,
      last: `/api/v1/interactions?clinic_id=${clinic.id}&limit=2&page=4&channel=voice`,
    });
    const next = await get(app, linksOf(response).next!, key);
    expect(next.body.meta.page).toBe(3);
    const first = await get(app, `/api/v1/interactions?limit=5&clinic_id=${clinic.id}`, key);
    expect(Object.keys(linksOf(first))).toEqual(['first', 'next', 'last']);
    const uncounted = await get(app, `/api/v1/interactions?limit=5&clinic_id=${clinic.id}&include_total=false`, key);
    expect(Object.keys(linksOf(uncounted))).toEqual(['first', 'next']);
    const clinics = await get(app, '/api/v1/clinics', key);
    expect(Object.keys(linksOf(clinics))).toEqual(['first', 'last']);
  });

  it('links the next page of a cursor list until the last', async () => {
    const { key, clinic } = await scenario(3);
    const first = await get(app, `/api/v1/interactions?clinic_id=${clinic.id}&limit=2&cursor=`, key);
    const links = linksOf(first);
    expect(Object.keys(links)).toEqual(['next']);
    const second = await get(app, links.next!, key);
    expectStatus(second, 200);
    expect(second.body.data.interactions).toHaveLength(1);
    expect(second.headers.get('link')).toBeNull();
  });
});
