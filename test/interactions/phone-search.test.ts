// Phone search's exact total (src/interactions/phone-search.ts): `meta.total` of a search restricted
// by clinics alone comes from interaction_phones (4+ characters) or from the fragment counts plus
// the pending changes (1 to 3 characters), which triggers and folds keep in step with
// `interactions`. After every kind of write, each total must equal a plain COUNT of the matching
// rows, the tables must equal a GROUP BY of the raw rows (before and after a fold), and the page
// must be the one the old path (a date window sends a search there) returns. Every key is
// restricted to the test's own clinics (other files write to the same database at the same time).
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { foldPeriodically, foldPhoneChanges } from '../../src/interactions/phone-fragments.js';
import { countsByPhone } from '../../src/interactions/phone-search.js';
import { SEARCH_MATCHES_MAX as MATCHES_PAGE_MAX } from '../../src/interactions/read-page.js';
import { createClinics, session, testPool, waitUntilBlocked } from '../analytics/rollup-support.js';
import { createKey, testApp } from '../helpers/app.js';
import { migrateUpTo, testDb, withFreshDatabase } from '../helpers/db.js';
import { expectStatus, get } from '../rest/client.js';

const db = testDb();
const app = testApp(db);
const pool = testPool();

/** Inserts interactions (one multi-row INSERT) with these phone numbers, one a minute from `start`. */
async function insertPhones(q: pg.Pool | pg.ClientBase, clinicId: string, phones: readonly string[], start = '2025-03-01T08:00:00.000Z'): Promise<string[]> {
  const ids = phones.map(() => `int_phone_${randomUUID().replaceAll('-', '').slice(0, 16)}`);
  await q.query(
    `INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, started_at, outcome)
     SELECT id, 'voice', 'INBOUND', 'inbound', phone, $3::uuid, $4::timestamptz + (n - 1) * interval '1 minute', 'APPOINTMENT_BOOKED'
     FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(id, phone, n)`,
    [ids, phones, clinicId, start],
  );
  return ids;
}

/** interaction_phones of these clinics and the GROUP BY it stands for, as comparable strings. */
async function expectTableExact(clinicIds: readonly string[]): Promise<void> {
  const table = await pool.query<{ r: string }>(
    `SELECT clinic_id || '|' || phone_number || '|' || interactions AS r FROM interaction_phones WHERE clinic_id = ANY($1::uuid[]) ORDER BY 1`,
    [clinicIds],
  );
  const grouped = await pool.query<{ r: string }>(
    `SELECT clinic_id || '|' || phone_number || '|' || count(*) AS r FROM interactions WHERE clinic_id = ANY($1::uuid[]) GROUP BY clinic_id, phone_number ORDER BY 1`,
    [clinicIds],
  );
  expect(table.rows.map((x) => x.r)).toEqual(grouped.rows.map((x) => x.r));
}

/**
 * What the fragment counts of these clinics stand for, per clinic and DISTINCT substring of 1 to 3
 * characters of the lower-cased number: the interactions whose number has it (computed here from
 * the raw rows; the numbers of these tests are ASCII, where JavaScript's and PostgreSQL's
 * lower-casing agree). Checked twice: the folded counts plus the pending changes (what a search
 * reads), then, after a fold, the folded counts alone. Returns the rows, sorted.
 */
async function expectFragmentsExact(
  q: pg.Pool | pg.ClientBase,
  clinicIds: readonly string[],
  fold: () => Promise<unknown> = () => foldPhoneChanges(db),
): Promise<string[]> {
  const raw = await q.query<{ clinic_id: string; phone_number: string }>('SELECT clinic_id, phone_number FROM interactions WHERE clinic_id = ANY($1::uuid[])', [
    clinicIds,
  ]);
  const expected = new Map<string, number>();
  for (const { clinic_id: clinic, phone_number: phone } of raw.rows) {
    const lower = phone.toLowerCase();
    const fragments = new Set<string>();
    for (let n = 1; n <= 3; n++) for (let i = 0; i + n <= lower.length; i++) fragments.add(lower.slice(i, i + n));
    for (const f of fragments) expected.set(`${clinic}|${f}`, (expected.get(`${clinic}|${f}`) ?? 0) + 1);
  }
  const sorted = (rows: string[]) => rows.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const wanted = sorted([...expected].map(([k, n]) => `${k}|${n}`));
  const effective = await q.query<{ r: string }>(
    `SELECT clinic_id || '|' || fragment || '|' || sum(n) AS r FROM (
       SELECT clinic_id, fragment, interactions AS n FROM interaction_phone_fragments WHERE clinic_id = ANY($1::uuid[])
       UNION ALL
       SELECT c.clinic_id, o.fragment, c.delta FROM interaction_phone_changes c
       CROSS JOIN LATERAL interaction_phone_fragments_of(c.phone_number) AS o(fragment) WHERE c.clinic_id = ANY($1::uuid[])
     ) AS x GROUP BY clinic_id, fragment HAVING sum(n) <> 0`,
    [clinicIds],
  );
  expect(sorted(effective.rows.map((x) => x.r))).toEqual(wanted);
  await fold();
  const folded = await q.query<{ r: string }>(
    `SELECT clinic_id || '|' || fragment || '|' || interactions AS r FROM interaction_phone_fragments WHERE clinic_id = ANY($1::uuid[])`,
    [clinicIds],
  );
  const pending = await q.query('SELECT 1 FROM interaction_phone_changes WHERE clinic_id = ANY($1::uuid[])', [clinicIds]);
  expect(pending.rows).toEqual([]);
  expect(sorted(folded.rows.map((x) => x.r))).toEqual(wanted);
  return wanted;
}

/** A plain COUNT of the rows of these clinics whose number contains `search`, case-insensitively. */
async function plainCount(clinicIds: readonly string[], search: string): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM interactions WHERE clinic_id = ANY($1::uuid[]) AND strpos(lower(phone_number), lower($2)) > 0`,
    [clinicIds, search],
  );
  return Number(rows[0]!.n);
}

async function list(key: string, query: string) {
  const response = await get(app, `/api/v1/interactions?${query}`, key);
  expectStatus(response, 200);
  return response.body as { data: { interactions: Array<{ id: string }> }; meta: { total: number; total_pages: number; has_more: boolean } };
}

/**
 * For each fragment: meta.total equals the plain COUNT, and the answer (page and meta) equals the
 * old path's, reached by adding a date window that covers every row.
 */
async function expectTotals(key: string, clinicIds: readonly string[], searches: readonly string[], extra = ''): Promise<void> {
  for (const search of searches) {
    const query = `search=${encodeURIComponent(search)}&limit=7${extra}`;
    const ours = await list(key, query);
    expect(ours.meta.total, `search ${JSON.stringify(search)}${extra}`).toBe(await plainCount(clinicIds, search));
    const old = await list(key, `${query}&date_from=2000-01-01`);
    expect(ours.data, `page of ${JSON.stringify(search)}${extra}`).toEqual(old.data);
    expect(ours.meta).toEqual(old.meta);
  }
}

describe('countsByPhone', () => {
  it('accepts a search with the clinic restriction only, and refuses every other filter, including ones added later', () => {
    expect(countsByPhone({ search: '555' })).toBe(true);
    expect(countsByPhone({ search: '555', clinicId: randomUUID() })).toBe(true);
    expect(countsByPhone({ search: '555', channel: 'voice' })).toBe(false);
    expect(countsByPhone({ search: '555', from: new Date() })).toBe(false);
    expect(countsByPhone({ search: '555', outcomes: ['NO_ANSWER'] })).toBe(false);
    expect(countsByPhone({ search: '555', campaignId: 'c1' } as never)).toBe(false);
    expect(countsByPhone({ clinicId: randomUUID() })).toBe(false);
  });
});

describe('phone search totals from interaction_phones', () => {
  it('are exact after inserts, updates of the number and of the clinic, and deletes, for every clinic restriction', async () => {
    const [a, b] = (await createClinics(pool, 2)) as [string, string];
    const both = await createKey(db, { clinicIds: [a, b] });
    const onlyA = await createKey(db, { clinicIds: [a] });
    // 1, 2 and 3 characters (fragments, "55" twice in "555") and longer (numbers).
    const searches = ['555', '5', '55', '+', ' ', '+34', '(2', '-0', '600 1', '(212)', '7', '0123', 'no such number'];
    const totals = async () => {
      await expectTotals(both, [a, b], searches);
      await expectTotals(onlyA, [a], searches);
      await expectTotals(both, [b], searches, `&clinic_id=${b}`);
      // A clinic the key may not see counts nothing.
      expect((await list(onlyA, `search=555&clinic_id=${b}`)).meta.total).toBe(0);
    };
    // The totals with the changes pending, then folded.
    const check = async () => {
      await expectTableExact([a, b]);
      await totals();
      await expectFragmentsExact(pool, [a, b]);
      await totals();
    };
    // Numbers repeat, as patients call again.
    const idsA = await insertPhones(pool, a, ['+34 600 555 123', '+34 600 555 123', '(212) 555-0123', '+34 600 111 222', '555', '+34 600 555 123']);
    const idsB = await insertPhones(pool, b, ['(212) 555-0123', '+44 7700 900123', '(212) 555-0123']);
    await check();

    // The number changes (to a new one, to one that exists, back), in one statement and in several.
    await pool.query(`UPDATE interactions SET phone_number = '+34 699 999 999' WHERE id = $1`, [idsA[0]]);
    await pool.query(`UPDATE interactions SET phone_number = '(212) 555-0123' WHERE id = ANY($1::text[])`, [[idsA[1], idsA[3]]]);
    await check();
    // The clinic changes; an update that changes neither number nor clinic leaves the table alone.
    await pool.query(`UPDATE interactions SET clinic_id = $2 WHERE id = $1`, [idsA[2], b]);
    await pool.query(`UPDATE interactions SET outcome = NULL, started_at = started_at + interval '1 day' WHERE id = ANY($1::text[])`, [idsB]);
    await check();
    // A number's last interaction is deleted: its row goes (no row left at 0).
    await pool.query(`DELETE FROM interactions WHERE id = $1`, [idsA[4]]);
    const { rows } = await pool.query(`SELECT 1 FROM interaction_phones WHERE clinic_id = $1 AND phone_number = '555'`, [a]);
    expect(rows).toEqual([]);
    // Fragments only that number had go with it (no row left at 0 either).
    await pool.query(`DELETE FROM interactions WHERE id = ANY($1::text[])`, [idsA]);
    await expectFragmentsExact(pool, [a]);
    expect((await pool.query(`SELECT fragment FROM interaction_phone_fragments WHERE clinic_id = $1`, [a])).rows).toEqual([]);
    await insertPhones(pool, a, ['+34 600 555 123', '(212) 555-0123', '555', '555']);
    await pool.query(`DELETE FROM interactions WHERE id = ANY($1::text[])`, [idsB.slice(0, 2)]);
    await check();
  });

  it('treat %, _ and \\ as literal characters and ignore case', async () => {
    const [c] = (await createClinics(pool, 1)) as [string];
    const key = await createKey(db, { clinicIds: [c] });
    await insertPhones(pool, c, ['100% 555', '1005 555', '12_34', '1234', 'a\\b 1', 'ab 1', 'EXT 12 Ab', 'ext 13 aB', '+1 555 0100 ext. 7']);
    await expectTableExact([c]);
    const searches = ['%', '0%', '_', '2_3', '\\', 'a\\b', 'ab', 'AB', 'Ext', 'EXT 1', 't. 7', 'E', 'x', '%%', '2_', '\\b'];
    await expectTotals(key, [c], searches);
    // Spelled out, so that the check does not only agree with itself; pending, then folded.
    for (const _ of ['pending', 'folded']) {
      const totals = await Promise.all(searches.map(async (s) => (await list(key, `search=${encodeURIComponent(s)}`)).meta.total));
      expect(totals).toEqual([1, 1, 1, 1, 1, 1, 3, 3, 3, 2, 1, 3, 3, 0, 1, 1]);
      await expectFragmentsExact(pool, [c]);
    }
  });

  it(`is exact past ${MATCHES_PAGE_MAX.toLocaleString('en-US')} matches, where the page is read in order, and on pages past the last`, async () => {
    const [c] = (await createClinics(pool, 1)) as [string];
    const key = await createKey(db, { clinicIds: [c] });
    const n = MATCHES_PAGE_MAX + 40;
    // 250 patients with 40 calls each and 40 others: the common fragment "55" matches them all.
    const phones = Array.from({ length: n }, (_, i) => (i < 10_000 ? `+1 (555) 01${String(i % 250).padStart(3, '0')}` : `+44 7555 ${i}`));
    await insertPhones(pool, c, phones);
    await expectTableExact([c]);
    const total = await plainCount([c], '55');
    expect(total).toBe(n);
    for (const page of [1, 2, 3, 1434, 1435, 1436, 5000]) {
      const query = `search=55&limit=7&page=${page}`;
      const ours = await list(key, query);
      const old = await list(key, `${query}&date_from=2000-01-01`);
      expect(ours.meta.total).toBe(n);
      expect(ours.data, `page ${page}`).toEqual(old.data);
      expect(ours.meta).toEqual(old.meta);
    }
    expect((await list(key, 'search=55&limit=7&page=1435')).data.interactions).toHaveLength(n - 1434 * 7);
    expect((await list(key, 'search=55&limit=7&page=1436')).data.interactions).toEqual([]);
  });

  it('is exact in GraphQL pageInfo.total too', async () => {
    const [c] = (await createClinics(pool, 1)) as [string];
    const key = await createKey(db, { clinicIds: [c] });
    await insertPhones(pool, c, ['+34 611 222 333', '+34 611 222 333', '+34 622 111 000']);
    const response = await app.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: '{ interactions(search: "611", limit: 1) { nodes { phoneNumber } pageInfo { total totalPages hasMore } } }' }),
    });
    expect(await response.json()).toEqual({
      data: { interactions: { nodes: [{ phoneNumber: '+34 611 222 333' }], pageInfo: { total: 2, totalPages: 2, hasMore: true } } },
    });
  });
});

describe('interaction_phones under concurrent writers', () => {
  it('stays exact when transactions add the same new number, or add one another empties', async () => {
    const [c] = (await createClinics(pool, 1)) as [string];
    const key = await createKey(db, { clinicIds: [c] });
    const [first, second] = await Promise.all([session(), session()]);
    try {
      // Both insert a number no row has yet: the second waits for the first's row, then adds to it.
      await first.query('BEGIN');
      const firstIds = await insertPhones(first, c, ['+34 633 444 555']);
      const blocked = insertPhones(second, c, ['+34 633 444 555', '+34 633 444 555']);
      await waitUntilBlocked(pool, second.pid);
      await first.query('COMMIT');
      await blocked;
      await expectTableExact([c]);
      expect((await list(key, 'search=633')).meta.total).toBe(3);

      // One deletes the number's interactions (its row goes) while another adds one.
      await first.query('BEGIN');
      await first.query('DELETE FROM interactions WHERE clinic_id = $1', [c]);
      const refill = insertPhones(second, c, ['+34 633 444 555']);
      await waitUntilBlocked(pool, second.pid);
      await first.query('COMMIT');
      await refill;
      await expectTableExact([c]);
      expect((await list(key, 'search=633')).meta.total).toBe(1);

      // Two transactions move interactions between numbers in opposite directions.
      const [x] = await insertPhones(pool, c, ['+34 644 000 001']);
      await first.query('BEGIN');
      await first.query(`UPDATE interactions SET phone_number = '+34 644 000 001' WHERE clinic_id = $1 AND phone_number = '+34 633 444 555'`, [c]);
      const moved = second.query(`UPDATE interactions SET phone_number = '+34 633 444 555' WHERE id = $1`, [x]);
      await first.query('COMMIT');
      await moved;
      await expectTableExact([c]);
      expect((await list(key, 'search=644')).meta.total).toBe(await plainCount([c], '644'));
      expect(firstIds).toHaveLength(1);
    } finally {
      await Promise.all([first.end(), second.end()]);
    }
  });
});

describe('interaction_phone_fragments under concurrent writers and folds', () => {
  it('lets transactions write different numbers of one clinic without waiting for each other, and stays exact', async () => {
    const [c, other] = (await createClinics(pool, 2)) as [string, string];
    const key = await createKey(db, { clinicIds: [c] });
    // Another clinic's rows with the same numbers: their fragments must stay apart.
    await insertPhones(pool, other, ['+1 212 000 0001', '+1 999 777 0003']);
    const [first, second] = await Promise.all([session(), session()]);
    try {
      // No number in common, fragments in common ("+", "1", "+1"): the second does not wait for the
      // fragments. (Their days and months differ: writers of one day, or month, wait for each
      // other on the rollups' rows.)
      await first.query('BEGIN');
      await insertPhones(first, c, ['+1 212 000 0001', '+1 999 000 0002']);
      await second.query('BEGIN');
      await insertPhones(second, c, ['+1 999 777 0003', '+1 212 777 0004', '+1 555 777 0005'], '2023-07-15T08:00:00.000Z');
      // A fold meanwhile moves neither transaction's changes (not committed: not in its snapshot).
      await foldPhoneChanges(db);
      await Promise.all([first.query('COMMIT'), second.query('COMMIT')]);
      for (const search of ['+', '1', '+1', '212', '777', '0'])
        expect((await list(key, `search=${encodeURIComponent(search)}`)).meta.total).toBe(await plainCount([c], search));
      await expectFragmentsExact(pool, [c, other]);

      // A transaction changes numbers while another deletes others; a fold runs between them.
      await first.query('BEGIN');
      await first.query(`UPDATE interactions SET phone_number = '+1 333 ' || phone_number WHERE clinic_id = $1 AND phone_number LIKE '+1 212%'`, [c]);
      await foldPhoneChanges(db);
      await first.query('COMMIT');
      await second.query(`DELETE FROM interactions WHERE clinic_id = $1 AND phone_number LIKE '+1 999%'`, [c]);
      await expectTableExact([c, other]);
      for (const search of ['+', '9', '99', '999', '33', '3', '('])
        expect((await list(key, `search=${encodeURIComponent(search)}`)).meta.total).toBe(await plainCount([c], search));
      await expectFragmentsExact(pool, [c, other]);
    } finally {
      await Promise.all([first.end(), second.end()]);
    }
  });

  it('keeps totals exact while a fold runs: a search during the fold sees the counts before or after it, never both or neither', async () => {
    const [c] = (await createClinics(pool, 1)) as [string];
    const key = await createKey(db, { clinicIds: [c] });
    await insertPhones(pool, c, ['+34 611 222 333', '+34 611 222 444', '+34 622 000 111']);
    const folder = await session();
    try {
      // The fold's transaction holds its changes deleted and its fragments added, uncommitted.
      await folder.query('BEGIN');
      const { rows } = await folder.query<{ n: string }>('SELECT interaction_phone_changes_fold() AS n');
      expect(Number(rows[0]!.n)).toBeGreaterThanOrEqual(3);
      // A second fold meanwhile folds nothing (one at a time) and waits for nobody.
      expect(await foldPhoneChanges(db)).toBe(0);
      for (const search of ['611', '6', '+34', '2'])
        expect((await list(key, `search=${encodeURIComponent(search)}`)).meta.total).toBe(await plainCount([c], search));
      await folder.query('COMMIT');
      for (const search of ['611', '6', '+34', '2'])
        expect((await list(key, `search=${encodeURIComponent(search)}`)).meta.total).toBe(await plainCount([c], search));
      await expectFragmentsExact(pool, [c]);
    } finally {
      await folder.end();
    }
  });

  it('folds in chunks of the given size until nothing is pending, and periodically until stopped', async () => {
    const [c] = (await createClinics(pool, 1)) as [string];
    const key = await createKey(db, { clinicIds: [c] });
    // Five statements: five change rows of this clinic at least.
    for (const phone of ['+34 655 000 001', '+34 655 000 002', '+34 655 000 003', '+34 655 000 004', '+34 655 000 005']) await insertPhones(pool, c, [phone]);
    await foldPhoneChanges(db, 2);
    expect((await pool.query('SELECT 1 FROM interaction_phone_changes WHERE clinic_id = $1', [c])).rows).toEqual([]);
    expect((await list(key, 'search=655')).meta.total).toBe(5);

    const errors: unknown[] = [];
    const folding = foldPeriodically(db, { everyMs: 50, onError: (e) => errors.push(e) });
    try {
      await insertPhones(pool, c, ['+34 655 000 006']);
      const deadline = Date.now() + 10_000;
      while ((await pool.query('SELECT 1 FROM interaction_phone_changes WHERE clinic_id = $1', [c])).rows.length > 0) {
        if (Date.now() > deadline) throw new Error('the periodic fold did not fold the change within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await folding.stop();
    }
    expect(errors).toEqual([]);
    expect((await list(key, 'search=655')).meta.total).toBe(6);
    await expectFragmentsExact(pool, [c]);
  });
});

describe('interaction_phone_fragments on a database of its own', () => {
  it('is backfilled by its migration, emptied by TRUNCATE and recomputed by interaction_rollups_rebuild()', async () => {
    await withFreshDatabase('fragments', async (url, client) => {
      // The migrations before this table's, then data, then the rest: the backfill sees the data.
      const rest = await migrateUpTo(url, '_interaction_phone_fragments');
      await client.connect();
      const clinics = await createClinics(client, 2);
      const phones = ['+34 600 555 123', '+34 600 555 123', '(212) 555-0123', 'EXT 12 Ab', '100% 555', 'a\\b 1', '555'];
      const load = async () => {
        for (const [i, clinic] of clinics.entries()) await insertPhones(client, clinic, i === 0 ? phones : phones.slice(2));
      };
      await load();
      expect(await migrate(url)).toEqual(rest);
      expect((await client.query('SELECT 1 FROM interaction_phone_changes')).rows).toEqual([]);
      const fold = () => client.query('SELECT interaction_phone_changes_fold()');
      const backfilled = await expectFragmentsExact(client, clinics, fold);
      expect(backfilled.length).toBeGreaterThan(50);

      // TRUNCATE (CASCADE: transcripts refer to interactions) empties it and the pending changes.
      await load();
      await client.query('TRUNCATE interactions CASCADE');
      expect((await client.query('SELECT 1 FROM interaction_phone_fragments UNION ALL SELECT 1 FROM interaction_phone_changes')).rows).toEqual([]);

      // A load with the triggers disabled leaves it behind; rebuild() recomputes it (and drops
      // pending changes, which the result already holds).
      await client.query('ALTER TABLE interactions DISABLE TRIGGER USER');
      await load();
      await client.query('ALTER TABLE interactions ENABLE TRIGGER USER');
      expect((await client.query('SELECT 1 FROM interaction_phone_fragments')).rows).toEqual([]);
      await client.query('SELECT interaction_rollups_rebuild()');
      expect(await expectFragmentsExact(client, clinics, fold)).toEqual(backfilled);
    });
  });
});
