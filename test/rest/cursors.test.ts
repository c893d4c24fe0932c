// Cursor paging of /interactions and the change feed (`cursor`, `order`, `include_total`,
// `updated_since`), as a client walks them: every row once across pages while rows are inserted,
// cursors bound to their list and refused when altered, the feed listing what an import changed.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKey, expectNoErrors, graphql, testApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { databaseUrl, sql, testDb } from '../helpers/db.js';
import { createClinic, createInteraction } from '../helpers/factories.js';
import { clinicLine, voiceLine, writeLines } from '../importer/files.js';
import { expectStatus, expectValidationError, get, type RestResponse } from './client.js';

const db = testDb();
const app = testApp(db);

/** A clinic with `n` calls, one a minute from 2025-03-01 (two share each minute, so ids break ties), and a key for it. */
async function clinicWithCalls(n: number) {
  const clinic = await createClinic(db);
  const key = await createKey(db, { clinicIds: [clinic.id] });
  const prefix = `cur_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  await sql(
    `INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, started_at, outcome)
     SELECT $1 || '_' || lpad(i::text, 4, '0'), 'voice', 'INBOUND', 'inbound', '+34 600 000 ' || i, $2::uuid,
            timestamptz '2025-03-01T00:00:00Z' + (i / 2) * interval '1 minute', CASE WHEN i % 3 = 0 THEN 'NO_ANSWER' ELSE 'APPOINTMENT_BOOKED' END
     FROM generate_series(0, $3::int - 1) AS i`,
    [prefix, clinic.id, n],
  );
  return { clinic, key, prefix };
}

const ids = (response: RestResponse): string[] => response.body.data.interactions.map((i: { id: string }) => i.id);

/** Every page of a cursor walk from the start: the ids in order and the responses. */
async function walk(key: string, query: string, onPage?: (page: number) => Promise<void>) {
  const seen: string[] = [];
  const responses: RestResponse[] = [];
  let cursor = '';
  for (let page = 1; page < 1_000; page++) {
    const response = await get(app, `/api/v1/interactions?${query}&cursor=${encodeURIComponent(cursor)}`, key);
    expectStatus(response, 200);
    responses.push(response);
    seen.push(...ids(response));
    if (!response.body.meta.next_cursor) break;
    cursor = response.body.meta.next_cursor;
    await onPage?.(page);
  }
  return { seen, responses };
}

describe('cursor paging', () => {
  it('walks every row once, in the order of the pages, newest or oldest first', async () => {
    const { key } = await clinicWithCalls(23);
    const paged = await get(app, '/api/v1/interactions?limit=500', key);
    const expected = ids(paged);
    expect(expected).toHaveLength(23);

    const { seen, responses } = await walk(key, 'limit=5');
    expect(seen).toEqual(expected);
    expect(responses).toHaveLength(5);
    expect(responses[0]!.body.meta).toEqual({ limit: 5, total: 23, has_more: true, next_cursor: expect.any(String) });
    expect(responses[4]!.body.meta).toEqual({ limit: 5, total: 23, has_more: false, next_cursor: null });
    // The representation is the list's: no updated_at outside the change feed.
    expect(Object.keys(responses[0]!.body.data.interactions[0])).toEqual(Object.keys(paged.body.data.interactions[0]));

    const ascending = await walk(key, 'limit=7&order=asc');
    expect(ascending.seen).toEqual([...expected].reverse());
    const pagedAsc = await get(app, '/api/v1/interactions?limit=500&order=asc', key);
    expect(ids(pagedAsc)).toEqual([...expected].reverse());
  });

  it('neither skips nor repeats a row when rows are inserted between pages', async () => {
    const { clinic, key, prefix } = await clinicWithCalls(20);
    const before = ids(await get(app, '/api/v1/interactions?limit=500', key));
    const inserted: string[] = [];
    const { seen } = await walk(key, 'limit=6', async (page) => {
      if (page !== 1) return;
      // One newer than every row (before the cursor: not in later pages), one among the rows still
      // to come, and one with the same started_at as the first page's last row (_0014) but a smaller id.
      for (const [suffix, at] of [
        ['new', '2025-03-02T00:00:00Z'],
        ['mid', '2025-03-01T00:02:30Z'],
        ['0013a', '2025-03-01T00:07:00Z'],
      ] as const) {
        const row = await createInteraction(db, { id: `${prefix}_${suffix}`, clinicId: clinic.id, startedAt: new Date(at) });
        inserted.push(row.id);
      }
    });
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of before) expect(seen).toContain(id);
    expect(seen).not.toContain(`${prefix}_new`);
    expect(seen).toContain(`${prefix}_mid`);
    expect(seen).toContain(`${prefix}_0013a`);
  });

  it('counts nothing with include_total=false, with has_more still exact', async () => {
    const { key } = await clinicWithCalls(10);
    const first = await get(app, '/api/v1/interactions?limit=5&cursor=&include_total=false', key);
    expect(first.body.meta).toEqual({ limit: 5, total: null, has_more: true, next_cursor: expect.any(String) });
    const second = await get(app, `/api/v1/interactions?limit=5&include_total=false&cursor=${first.body.meta.next_cursor}`, key);
    expect(second.body.meta).toEqual({ limit: 5, total: null, has_more: false, next_cursor: null });

    const page = await get(app, '/api/v1/interactions?limit=5&page=2&include_total=false', key);
    expect(page.body.meta).toEqual({ page: 2, limit: 5, total: null, total_pages: null, has_more: false });
    const search = await get(app, '/api/v1/interactions?limit=3&page=3&include_total=false&search=600%20000', key);
    expect(search.body.meta).toEqual({ page: 3, limit: 3, total: null, total_pages: null, has_more: true });
    const oldest = await get(app, '/api/v1/interactions?limit=3&page=4&include_total=false&search=600&order=asc', key);
    expect(oldest.body.meta).toEqual({ page: 4, limit: 3, total: null, total_pages: null, has_more: false });
    expect(ids(oldest)).toHaveLength(1);
  });

  it('refuses a cursor used with other filters or another order, altered or malformed', async () => {
    const { key, clinic } = await clinicWithCalls(6);
    const first = await get(app, '/api/v1/interactions?limit=2&cursor=&outcome=APPOINTMENT_BOOKED', key);
    const cursor: string = first.body.meta.next_cursor;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);

    const same = await get(app, `/api/v1/interactions?limit=3&cursor=${cursor}&outcome=APPOINTMENT_BOOKED`, key);
    expectStatus(same, 200);
    for (const other of ['outcome=NO_ANSWER', '', 'outcome=APPOINTMENT_BOOKED&order=asc', `outcome=APPOINTMENT_BOOKED&clinic_id=${clinic.id}`]) {
      const response = await get(app, `/api/v1/interactions?cursor=${cursor}&${other}`, key);
      expect(expectValidationError(response, ['cursor']).cursor).toMatch(/other filters or another order/);
    }
    const [body, signature] = cursor.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...payload, t: payload.t - 60_000 })).toString('base64url');
    const flipped = `${body}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of [`${forged}.${signature}`, flipped, 'abc', 'a.b', `${'x'.repeat(5_000)}.y`, "1' OR '1'='1", '%00', encodeURIComponent('é.é')]) {
      const response = await get(app, `/api/v1/interactions?outcome=APPOINTMENT_BOOKED&cursor=${bad}`, key);
      expectValidationError(response, ['cursor']);
    }
    const withPage = await get(app, `/api/v1/interactions?cursor=${cursor}&page=2&outcome=APPOINTMENT_BOOKED`, key);
    expectValidationError(withPage, ['page']);
    const badValues = await get(app, '/api/v1/interactions?cursor=&order=sideways&include_total=maybe&limit=0', key);
    expectValidationError(badValues, ['order', 'include_total', 'limit']);
    const pageBad = await get(app, '/api/v1/interactions?order=up&include_total=1', key);
    expectValidationError(pageBad, ['order', 'include_total']);
  });

  it('sees only what the key may see', async () => {
    const { clinic: mine, key } = await clinicWithCalls(3);
    const other = await clinicWithCalls(4);
    const { seen } = await walk(key, 'limit=2');
    expect(seen).toHaveLength(3);
    const foreign = await get(app, `/api/v1/interactions?cursor=&clinic_id=${other.clinic.id}`, key);
    expect(ids(foreign)).toEqual([]);
    expect(foreign.body.meta).toEqual({ limit: 25, total: 0, has_more: false, next_cursor: null });
    expect(mine.id).not.toBe(other.clinic.id);
  });

  it('shares its cursors with GraphQL interactionsConnection', async () => {
    const { key } = await clinicWithCalls(9);
    const rest = await get(app, '/api/v1/interactions?limit=4&cursor=&channel=voice', key);
    const query = `query($after: String) { interactionsConnection(first: 4, after: $after, channel: VOICE) {
      nodes { id updatedAt } pageInfo { limit total hasMore nextCursor } } }`;
    const data = expectNoErrors(await graphql(app, { query, variables: { after: rest.body.meta.next_cursor }, key }));
    const restNext = await get(app, `/api/v1/interactions?limit=4&channel=voice&cursor=${rest.body.meta.next_cursor}`, key);
    expect(data.interactionsConnection.nodes.map((n: { id: string }) => n.id)).toEqual(ids(restNext));
    expect(data.interactionsConnection.pageInfo).toEqual({ limit: 4, total: 9, hasMore: true, nextCursor: restNext.body.meta.next_cursor });
    const wrong = await graphql(app, { query, variables: { after: 'nonsense' }, key });
    expect(wrong.body.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: { after: expect.any(String) } });
  });
});

describe('change feed (updated_since)', () => {
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('lists what an import stored or changed, once, each with updated_at, in (updated_at, id) order', async () => {
    const clinic = clinicLine();
    const calls = [0, 1, 2, 3].map((i) =>
      voiceLine(clinic.id, { outcome: 'NO_ANSWER', started_at: `2025-05-0${i + 1}T10:00:00.000Z`, ended_at: `2025-05-0${i + 1}T10:01:00.000Z` }),
    );
    const clinics = writeLines('clinics.ndjson', [clinic]);
    const first = writeLines('interactions.ndjson', calls);
    const beforeImport = new Date();
    const imported = await runCli(['import', '--clinics', clinics, '--interactions', first]);
    expect(imported.code, imported.stderr + imported.stdout).toBe(0);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    await pause(5);

    const all = await walk(key, `limit=3&updated_since=${beforeImport.toISOString()}`);
    expect([...all.seen].sort()).toEqual(calls.map((c) => c.id).sort());
    const items = all.responses.flatMap((r) => r.body.data.interactions) as Array<{ id: string; updated_at: string }>;
    for (const item of items) expect(item.updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const order = items.map((i) => [i.updated_at, i.id].join(' '));
    expect(order).toEqual([...order].sort());
    const synced = items.at(-1)!.updated_at;

    // Re-imported unchanged: nothing new after the last position; one outcome changed: that row alone.
    expect((await runCli(['import', '--interactions', first])).code).toBe(0);
    await pause(5);
    const unchanged = await walk(key, `updated_since=${synced}`);
    expect(unchanged.seen.filter((id) => !items.some((i) => i.id === id && i.updated_at === synced))).toEqual([]);

    const changed = writeLines('interactions.ndjson', [{ ...calls[2]!, outcome: 'APPOINTMENT_BOOKED' }, ...calls.slice(0, 2), calls[3]!]);
    expect((await runCli(['import', '--interactions', changed])).code).toBe(0);
    await pause(5);
    const after = new Date(new Date(synced).getTime() + 1).toISOString();
    const feed = await walk(key, `updated_since=${after}`);
    expect(feed.seen).toEqual([calls[2]!.id]);
    expect(feed.responses[0]!.body.data.interactions[0]).toMatchObject({ id: calls[2]!.id, outcome: 'APPOINTMENT_BOOKED' });
    expect(feed.responses[0]!.body.meta).toEqual({ limit: 25, total: 1, has_more: false, next_cursor: null });

    // A transcript-only change moves updated_at too (the representation changed).
    const withTranscript = writeLines('interactions.ndjson', [{ ...calls[0]!, transcript: [{ role: 'user', content: 'Hola' }] }]);
    const since = new Date().toISOString();
    await pause(2);
    expect((await runCli(['import', '--interactions', withTranscript])).code).toBe(0);
    await pause(5);
    expect((await walk(key, `updated_since=${since}`)).seen).toEqual([calls[0]!.id]);
  });

  it('holds back rows of a transaction still open, and lists them once it commits', async () => {
    const clinic = await createClinic(db);
    const other = await createClinic(db);
    const key = await createKey(db, { clinicIds: [clinic.id, other.id] });
    const since = new Date(Date.now() - 1_000).toISOString();
    const { default: pg } = await import('pg');
    const writer = new pg.Client({ connectionString: databaseUrl });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await writer.query('SELECT pg_current_xact_id()');
      await pause(5);
      await writer.query(
        `INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, started_at) VALUES ($1, 'voice', 'INBOUND', 'inbound', '+1', $2, now())`,
        [`late_${randomUUID()}`, clinic.id],
      );
      await pause(20);
      // Committed by another session after the open one began: held back too, or a client resuming
      // from its updated_at would step past the open transaction's row. (Another clinic and year: the
      // open transaction holds the rollup rows of its own clinic and day until it ends.)
      const early = await createInteraction(db, { clinicId: other.id, startedAt: new Date('2020-01-01T00:00:00Z') });
      await pause(5);
      const during = await get(app, `/api/v1/interactions?updated_since=${since}`, key);
      expect(ids(during)).toEqual([]);
      await writer.query('COMMIT');
      await pause(5);
      const afterCommit = await get(app, `/api/v1/interactions?updated_since=${since}`, key);
      expect(ids(afterCommit)).toHaveLength(2);
      expect(ids(afterCommit)).toContain(early.id);
    } finally {
      await writer.end();
    }
  });

  it('refuses page and order with updated_since, and a bad instant', async () => {
    const key = await createKey(db);
    expectValidationError(await get(app, '/api/v1/interactions?updated_since=2025-01-01T00:00:00Z&page=1', key), ['page']);
    expectValidationError(await get(app, '/api/v1/interactions?updated_since=2025-01-01T00:00:00Z&order=asc', key), ['order']);
    expectValidationError(await get(app, '/api/v1/interactions?updated_since=yesterday', key), ['updated_since']);
  });
});
