// GET /api/v1/interactions/deleted and GraphQL `deletedInteractions`: the tombstones a purge leaves,
// as a mirroring client reads them: in (deleted_at, id) order across cursor pages, only its
// clinics', from `since`, never past a deletion still being committed.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { createKey, expectNoErrors, graphql, testApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { databaseUrl, migrateUpTo, sql, testDb, withFreshDatabase } from '../helpers/db.js';
import { createClinic, createInteraction } from '../helpers/factories.js';
import { expectEnvelope, expectError, expectIsoInstant, expectStatus, expectValidationError, get, type RestResponse } from './client.js';

const db = testDb();
const app = testApp(db);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Tombstone {
  id: string;
  clinic_id: string;
  deleted_at: string;
}

/** A clinic with `n` calls whose ids start with a fresh prefix. */
async function clinicWithCalls(n: number) {
  const clinic = await createClinic(db);
  const prefix = `del_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  await sql(
    `INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, started_at)
     SELECT $1 || '_' || lpad(i::text, 4, '0'), 'voice', 'INBOUND', 'inbound', '+34 600 000 ' || i, $2::uuid, timestamptz '2025-03-01T00:00:00Z' + i * interval '1 hour'
     FROM generate_series(0, $3::int - 1) AS i`,
    [prefix, clinic.id, n],
  );
  return { clinic, prefix };
}

/** Deletes these ids in one statement (one deleted_at for all), as a purge batch does. */
async function deleteIds(ids: string[]): Promise<void> {
  await sql('DELETE FROM interactions WHERE id = ANY($1)', [ids]);
  // deleted_at is rounded to the millisecond and the horizon is a millisecond below a read's start.
  await pause(5);
}

const tombstones = (response: RestResponse): Tombstone[] => response.body.data.deleted_interactions;

/** Every page from the start: the tombstones in order and the responses. */
async function walk(key: string, query: string) {
  const seen: Tombstone[] = [];
  const responses: RestResponse[] = [];
  let cursor = '';
  for (let page = 1; page < 100; page++) {
    const response = await get(app, `/api/v1/interactions/deleted?${query}&cursor=${encodeURIComponent(cursor)}`, key);
    expectStatus(response, 200);
    responses.push(response);
    seen.push(...tombstones(response));
    if (!response.body.meta.next_cursor) break;
    cursor = response.body.meta.next_cursor;
  }
  return { seen, responses };
}

describe('GET /api/v1/interactions/deleted', () => {
  it('lists the tombstones of the clinics the key may see, by deleted_at then id, across cursor pages', async () => {
    const { clinic, prefix } = await clinicWithCalls(8);
    const other = await clinicWithCalls(3);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const first = [`${prefix}_0003`, `${prefix}_0001`, `${prefix}_0005`];
    await deleteIds([...first, `${other.prefix}_0000`]);
    await deleteIds([`${prefix}_0000`, `${prefix}_0007`]);

    const { seen, responses } = await walk(key, 'limit=2');
    expect(seen.map((t) => t.id)).toEqual([`${prefix}_0001`, `${prefix}_0003`, `${prefix}_0005`, `${prefix}_0000`, `${prefix}_0007`]);
    expect(responses).toHaveLength(3);
    for (const t of seen) {
      expect(Object.keys(t)).toEqual(['id', 'clinic_id', 'deleted_at']);
      expect(t.clinic_id).toBe(clinic.id);
      expectIsoInstant(t.deleted_at);
    }
    // One statement, one deleted_at; the second statement's is later.
    expect(new Set(seen.slice(0, 3).map((t) => t.deleted_at)).size).toBe(1);
    expect(seen[3]!.deleted_at > seen[0]!.deleted_at).toBe(true);

    const page1 = responses[0]!;
    expectEnvelope(page1, 'list');
    expect(page1.body.meta).toEqual({ limit: 2, total: 5, has_more: true, next_cursor: expect.any(String) });
    expect(page1.headers.get('link')).toBe(`</api/v1/interactions/deleted?limit=2&cursor=${encodeURIComponent(page1.body.meta.next_cursor)}>; rel="next"`);
    expect(responses[2]!.body.meta).toEqual({ limit: 2, total: 5, has_more: false, next_cursor: null });
    expect(responses[2]!.headers.get('link')).toBeNull();

    // Without a cursor: the first page; include_total=false counts nothing.
    const plain = await get(app, '/api/v1/interactions/deleted?include_total=false', key);
    expect(tombstones(plain)).toEqual(seen);
    expect(plain.body.meta).toEqual({ limit: 25, total: null, has_more: false, next_cursor: null });

    // The rows are gone from the lists and by id.
    expectStatus(await get(app, `/api/v1/interactions/${prefix}_0001`, key), 404);
  });

  it('starts at since (a date-time or a date), and binds the cursor to it', async () => {
    const { clinic, prefix } = await clinicWithCalls(4);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    await deleteIds([`${prefix}_0000`, `${prefix}_0001`]);
    await pause(5);
    const since = new Date().toISOString();
    await deleteIds([`${prefix}_0002`]);
    await deleteIds([`${prefix}_0003`]);

    const later = await walk(key, `since=${since}&limit=1`);
    expect(later.seen.map((t) => t.id)).toEqual([`${prefix}_0002`, `${prefix}_0003`]);
    expect(later.responses[0]!.body.meta.total).toBe(2);
    // Resuming from the last deleted_at seen gives it again (a client deletes twice, harmlessly).
    const resumed = await get(app, `/api/v1/interactions/deleted?since=${later.seen[1]!.deleted_at}`, key);
    expect(tombstones(resumed).map((t) => t.id)).toEqual([`${prefix}_0003`]);

    const today = since.slice(0, 10);
    expect(tombstones(await get(app, `/api/v1/interactions/deleted?since=${today}`, key))).toHaveLength(4);
    const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    expect(tombstones(await get(app, `/api/v1/interactions/deleted?since=${tomorrow}`, key))).toEqual([]);

    // A cursor belongs to its since.
    const cursor = later.responses[0]!.body.meta.next_cursor as string;
    const moved = await get(app, `/api/v1/interactions/deleted?since=${today}&limit=1&cursor=${cursor}`, key);
    expect(expectValidationError(moved, ['cursor']).cursor).toMatch(/other filters/);
    expectValidationError(await get(app, `/api/v1/interactions/deleted?limit=1&cursor=${cursor}`, key), ['cursor']);
  });

  it('refuses a bad since, a bad or foreign cursor, bad paging and unknown parameters', async () => {
    const { clinic } = await clinicWithCalls(3);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    expectValidationError(await get(app, '/api/v1/interactions/deleted?since=yesterday', key), ['since']);
    expectValidationError(await get(app, '/api/v1/interactions/deleted?since=2025-02-30', key), ['since']);
    expectValidationError(await get(app, '/api/v1/interactions/deleted?since=2025-01-01T10:00:00', key), ['since']);
    expectValidationError(await get(app, '/api/v1/interactions/deleted?cursor=abc', key), ['cursor']);
    expectValidationError(await get(app, '/api/v1/interactions/deleted?limit=0&since=x', key), ['limit', 'since']);
    expectValidationError(await get(app, '/api/v1/interactions/deleted?include_total=maybe', key), ['include_total']);
    expectValidationError(await get(app, '/api/v1/interactions/deleted?clinic_id=x', key), ['clinic_id']);
    expectValidationError(await get(app, '/api/v1/interactions/deleted?page=1', key), ['page']);

    // A cursor of the interaction list (same key, same signing key) is not one of this list.
    const list = await get(app, '/api/v1/interactions?limit=1&cursor=', key);
    const foreign = list.body.meta.next_cursor as string;
    expect(foreign).toEqual(expect.any(String));
    expectValidationError(await get(app, `/api/v1/interactions/deleted?cursor=${foreign}`, key), ['cursor']);
    // And the other way round.
    const { prefix } = await clinicWithCalls(2);
    await deleteIds([`${prefix}_0000`, `${prefix}_0001`]);
    const all = await createKey(db);
    const deleted = await get(app, '/api/v1/interactions/deleted?limit=1', all);
    expectValidationError(await get(app, `/api/v1/interactions?cursor=${deleted.body.meta.next_cursor}`, all), ['cursor']);
    // An altered cursor.
    const tampered = `${(deleted.body.meta.next_cursor as string).slice(0, -2)}AA`;
    expectValidationError(await get(app, `/api/v1/interactions/deleted?limit=1&cursor=${tampered}`, all), ['cursor']);
  });

  it('needs interactions:read', async () => {
    const key = await createKey(db, { scopes: ['metrics:read'] });
    const response = await get(app, '/api/v1/interactions/deleted', key);
    expect(expectError(response, 403, 'INSUFFICIENT_SCOPE').details).toEqual({ required_scope: 'interactions:read' });
    expectStatus(await get(app, '/api/v1/interactions/deleted'), 401);
  });

  it('holds back a deletion still being committed, and everything committed after it began', async () => {
    const { clinic, prefix } = await clinicWithCalls(3);
    // Another clinic and year: the open transaction holds the rollup rows of its own clinic and day.
    const other = await createClinic(db);
    const early = await createInteraction(db, { clinicId: other.id, startedAt: new Date('2020-01-01T00:00:00Z') });
    const key = await createKey(db, { clinicIds: [clinic.id, other.id] });
    const since = new Date(Date.now() - 1_000).toISOString();
    const purger = new pg.Client({ connectionString: databaseUrl });
    await purger.connect();
    try {
      // A purge batch: its transaction id first, then the DELETE (tombstone written, not committed).
      await purger.query('BEGIN');
      await purger.query('SELECT pg_current_xact_id()');
      await pause(5);
      await purger.query('DELETE FROM interactions WHERE id = $1', [`${prefix}_0000`]);
      await pause(20);
      // Committed by another session after the open one began: a client resuming from its deleted_at
      // would step past the open batch's tombstone, so it is held back too.
      await deleteIds([early.id]);
      const during = await get(app, `/api/v1/interactions/deleted?since=${since}`, key);
      expect(tombstones(during)).toEqual([]);
      expect(during.body.meta.total).toBe(0);
      await purger.query('COMMIT');
      await pause(5);
      const after = await get(app, `/api/v1/interactions/deleted?since=${since}`, key);
      expect(tombstones(after).map((t) => t.id)).toEqual([`${prefix}_0000`, early.id]);
    } finally {
      await purger.end();
    }
  });

  it('lists what purge --before --clinic deleted, and never answers 304 from a stale version', async () => {
    const { clinic, prefix } = await clinicWithCalls(6);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const empty = await get(app, '/api/v1/interactions/deleted', key);
    expect(tombstones(empty)).toEqual([]);
    const run = await runCli(['purge', '--before', '2025-03-01T03:00:00Z', '--clinic', clinic.id, '--yes']);
    expect(run.code).toBe(0);
    await pause(5);
    const listed = await get(app, '/api/v1/interactions/deleted', key, { 'if-none-match': empty.headers.get('etag')! });
    expectStatus(listed, 200);
    expect(tombstones(listed).map((t) => t.id)).toEqual([`${prefix}_0000`, `${prefix}_0001`, `${prefix}_0002`]);
  });
});

describe('an id stored again', () => {
  /** The rows `deleteIds` took, stored again as they were (the columns of `clinicWithCalls`). */
  async function storeAgain(prefix: string, clinicId: string, indexes: number[], upsert = false): Promise<void> {
    await sql(
      `INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, started_at)
       SELECT $1 || '_' || lpad(i::text, 4, '0'), 'voice', 'INBOUND', 'inbound', '+34 600 000 ' || i, $2::uuid, timestamptz '2025-03-01T00:00:00Z' + i * interval '1 hour'
       FROM unnest($3::int[]) AS i
       ${upsert ? 'ON CONFLICT (id) DO UPDATE SET outcome = EXCLUDED.outcome' : ''}`,
      [prefix, clinicId, indexes],
    );
    await pause(5);
  }

  it('loses its tombstone (plain INSERT and upsert), and a cursor past the cleared tombstone goes on', async () => {
    const { clinic, prefix } = await clinicWithCalls(6);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    await deleteIds([`${prefix}_0000`, `${prefix}_0001`]);
    await deleteIds([`${prefix}_0002`]);
    await deleteIds([`${prefix}_0003`, `${prefix}_0004`]);
    const first = await get(app, '/api/v1/interactions/deleted?limit=2', key);
    expect(tombstones(first).map((t) => t.id)).toEqual([`${prefix}_0000`, `${prefix}_0001`]);

    // The page's last tombstone and the next page's first come back: the cursor still resumes
    // after its position, skipping nothing that is still deleted.
    await storeAgain(prefix, clinic.id, [1, 2]);
    await storeAgain(prefix, clinic.id, [3], true);
    const rest = await get(app, `/api/v1/interactions/deleted?limit=2&cursor=${first.body.meta.next_cursor}`, key);
    expect(tombstones(rest).map((t) => t.id)).toEqual([`${prefix}_0004`]);
    expect(rest.body.meta).toEqual({ limit: 2, total: 2, has_more: false, next_cursor: null });
    expect((await walk(key, 'limit=1')).seen.map((t) => t.id)).toEqual([`${prefix}_0000`, `${prefix}_0004`]);

    // Served again, and listed by the change feed after their deletion.
    const since = tombstones(first)[1]!.deleted_at;
    const feed = await get(app, `/api/v1/interactions?updated_since=${since}`, key);
    const back = (feed.body.data.interactions as Array<{ id: string; updated_at: string }>).filter((i) => i.id <= `${prefix}_0003`);
    expect(back.map((i) => i.id).sort()).toEqual([`${prefix}_0001`, `${prefix}_0002`, `${prefix}_0003`]);
    for (const row of back) expect(row.updated_at > since).toBe(true);
    expectStatus(await get(app, `/api/v1/interactions/${prefix}_0002`, key), 200);
  });

  it('deleted again: one tombstone, at the later time', async () => {
    const { clinic, prefix } = await clinicWithCalls(2);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    await deleteIds([`${prefix}_0000`, `${prefix}_0001`]);
    const once = tombstones(await get(app, '/api/v1/interactions/deleted', key));
    await storeAgain(prefix, clinic.id, [0]);
    expect(tombstones(await get(app, '/api/v1/interactions/deleted', key)).map((t) => t.id)).toEqual([`${prefix}_0001`]);
    await deleteIds([`${prefix}_0000`]);
    const twice = tombstones(await get(app, '/api/v1/interactions/deleted', key));
    expect(twice.map((t) => t.id)).toEqual([`${prefix}_0001`, `${prefix}_0000`]);
    expect(twice[1]!.deleted_at > once[0]!.deleted_at).toBe(true);

    // GraphQL lists the same.
    const data = expectNoErrors(await graphql(app, { key, query: '{ deletedInteractions { nodes { id deletedAt } pageInfo { total } } }' }));
    expect(data.deletedInteractions.nodes).toEqual(twice.map((t) => ({ id: t.id, deletedAt: t.deleted_at })));
    await storeAgain(prefix, clinic.id, [0, 1]);
    const none = expectNoErrors(await graphql(app, { key, query: '{ deletedInteractions { nodes { id } pageInfo { total } } }' }));
    expect(none.deletedInteractions).toEqual({ nodes: [], pageInfo: { total: 0 } });
  });
});

describe('upgrading a database whose tombstones outlived a re-import', () => {
  it('drops those tombstones and stamps the rows now, so that the feed lists them to mirrors that deleted them', async () => {
    await withFreshDatabase('tombstones_cleared', async (url, client) => {
      await migrateUpTo(url, '_tombstones_cleared_on_insert');
      await client.connect();
      const clinic = randomUUID();
      await client.query(
        `INSERT INTO clinics (id, name, address, phone, email, timezone) VALUES ($1, 'C', 'Street 1', '+34 910 000 000', 'desk@example.test', 'UTC')`,
        [clinic],
      );
      const insert = (ids: string[]) =>
        client.query(
          `INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, started_at)
           SELECT id, 'voice', 'INBOUND', 'inbound', '+34 600 000 000', $2::uuid, timestamptz '2025-03-01T00:00:00Z' FROM unnest($1::text[]) AS id`,
          [ids, clinic],
        );
      await insert(['kept', 'gone', 'back']);
      await client.query(`DELETE FROM interactions WHERE id IN ('gone', 'back')`);
      await pause(5);
      await insert(['back']);
      const stamped = async () =>
        new Map(
          (await client.query<{ id: string; updated_at: Date }>('SELECT id, updated_at FROM interactions')).rows.map((r) => [r.id, r.updated_at.getTime()]),
        );
      const before = await stamped();
      const stones = async () => (await client.query<{ id: string }>('SELECT id FROM interaction_tombstones ORDER BY id')).rows.map((r) => r.id);
      expect(await stones()).toEqual(['back', 'gone']);
      const upgradeStarted = Date.now();

      expect((await migrate(url))[0]).toMatch(/_tombstones_cleared_on_insert$/);
      expect(await stones()).toEqual(['gone']);
      const after = await stamped();
      expect(after.get('kept')).toBe(before.get('kept'));
      expect(after.get('back')!).toBeGreaterThanOrEqual(upgradeStarted - 1_000);
      expect(after.get('back')!).toBeGreaterThan(before.get('back')!);
      await insert(['gone']);
      expect(await stones()).toEqual([]);
    });
  });
});

describe('GraphQL deletedInteractions', () => {
  it('pages the same tombstones, with the clinic restriction', async () => {
    const { clinic, prefix } = await clinicWithCalls(3);
    const other = await clinicWithCalls(1);
    await createInteraction(db, { clinicId: clinic.id, id: `${prefix}_x`, transcript: [{ role: 'user', content: 'hola' }] });
    await deleteIds([`${prefix}_0002`, `${prefix}_x`, `${other.prefix}_0000`]);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const query = `query($after: String) { deletedInteractions(first: 1, after: $after) {
      nodes { id clinicId deletedAt } pageInfo { limit total hasMore nextCursor } } }`;
    const first = expectNoErrors(await graphql(app, { key, query }));
    expect(first.deletedInteractions.nodes).toEqual([{ id: `${prefix}_0002`, clinicId: clinic.id, deletedAt: expect.any(String) }]);
    expect(first.deletedInteractions.pageInfo).toEqual({ limit: 1, total: 2, hasMore: true, nextCursor: expect.any(String) });
    const second = expectNoErrors(await graphql(app, { key, query, variables: { after: first.deletedInteractions.pageInfo.nextCursor } }));
    expect(second.deletedInteractions.nodes.map((n: { id: string }) => n.id)).toEqual([`${prefix}_x`]);
    expect(second.deletedInteractions.pageInfo.hasMore).toBe(false);
    // Its transcript went with it (foreign key cascade).
    expect(await sql('SELECT 1 FROM interaction_transcripts WHERE interaction_id = $1', [`${prefix}_x`])).toEqual([]);

    const bad = await graphql(app, { key, query: '{ deletedInteractions(since: "soon") { nodes { id } } }' });
    expect(bad.body.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: { since: expect.any(String) } });
  });
});
