// What a full-text search costs when its words are rare or absent: a `q` that matches nothing, or
// one document far back, or words that never meet in one document, or a word of another clinic
// only, is answered from the index (and the word counts) in every mode - pages, cursors, the change
// feed, either order, with other filters, exports and GraphQL - and never by walking the clinic's
// documents one by one. Counted in rows read (EXPLAIN ANALYZE of the statements the app sent), not
// timed: a walk reads every row of the clinic, the index a handful.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportStatement } from '../../src/rest/exports/interactions.js';
import { createKey, expectNoErrors, graphql, testApp } from '../helpers/app.js';
import { sql, testDb } from '../helpers/db.js';
import { createClinic } from '../helpers/factories.js';
import { expectReadsAtMost as readsAtMost, recording, rowsRead, type Statement } from '../helpers/rows-read.js';
import { expectStatus, get } from '../rest/client.js';

const db = testDb();
const recorder = recording(db);
const app = testApp(recorder.db);

/** Rows in the key's clinic: a walk would read all of them; the index reads a few. */
const N = 3_000;
/** Most rows a request may read from the interactions, their search documents and transcripts. */
const FEW = 20;
/**
 * What a walk reads (the rollups and word counts it is counted from are small whatever the number
 * of rows, and are read alike by every request of the same clinic and window).
 */
const ROWS = /^(interactions|interaction_search_documents|interaction_transcripts)(_|$)/;

let clinicId = '';
let otherClinicId = '';
let key = '';
let oldest = '';

async function fill(clinic: string, prefix: string, n: number, summary: (g: string) => string): Promise<void> {
  await sql(
    `INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, started_at, summary)
     SELECT $1 || '_' || lpad(g::text, 6, '0'), 'voice', 'INBOUND', 'inbound', '+34 600 000 000', $2,
            timestamptz '2026-03-01' + g * interval '1 minute', ${summary('g')}
     FROM generate_series(1, $3::int) AS g`,
    [prefix, clinic, n],
  );
}

beforeAll(async () => {
  const clinic = await createClinic(db, { language: 'en' });
  const other = await createClinic(db, { language: 'en' });
  clinicId = clinic.id;
  otherClinicId = other.id;
  key = await createKey(db, { clinicIds: [clinicId] });
  const prefix = `int_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  // Every row says "refund" or "nothing", never both; the oldest alone says "zebra".
  await fill(
    clinicId,
    prefix,
    N,
    (g) => `CASE WHEN ${g} = 1 THEN 'a zebra asked for a refund' WHEN ${g} % 2 = 0 THEN 'asked for a refund' ELSE 'nothing to see' END`,
  );
  oldest = `${prefix}_000001`;
  // Another clinic's rows say "giraffe", which the key's clinic never does.
  await fill(otherClinicId, `${prefix}x`, N, () => `'a giraffe called'`);
  await sql('ANALYZE interactions, interaction_search_documents');
}, 120_000);

const expectReadsAtMost = <T>(r: { statements: Statement[] }, max: number, request: () => Promise<T>, label: string) =>
  readsAtMost(r, max, request, label, ROWS);

const ids = (body: { data: { interactions: Array<{ id: string }> } }) => body.data.interactions.map((row) => row.id);

async function rest(path: string) {
  const response = await get(app, path, key);
  expectStatus(response, 200);
  return response.body;
}

describe('a rare or absent q is answered from the index, in every mode', () => {
  const nothing = [
    'q=zzqqxx&cursor=',
    'q=zzqqxx&cursor=&order=asc',
    'q=zzqqxx&cursor=&include_total=false',
    'q=zzqqxx&updated_since=2020-01-01T00:00:00Z',
    'q=zzqqxx&cursor=&channel=voice',
    'q=zzqqxx&cursor=&type=INBOUND&outcome=NO_ANSWER',
    'q=zzqqxx',
    'q=zzqqxx&order=asc',
    'q=zzqqxx&channel=voice&page=3',
    // With a phone search that every row matches.
    'q=zzqqxx&search=600',
    'q=zzqqxx&search=6',
    'q=zzqqxx&search=600&cursor=',
    'q=zzqqxx&search=600&order=asc',
    'q=zzqqxx&search=600&include_total=false',
    // Two words, each common, never in one document.
    'q=refund%20nothing&cursor=',
    'q=refund%20nothing&cursor=&order=asc',
    'q=refund%20nothing',
    // A word of another clinic only.
    'q=giraffe&cursor=',
    'q=giraffe&updated_since=2020-01-01T00:00:00Z',
    'q=giraffe',
  ];
  it.each(nothing)('%s: empty, reading a handful of rows', async (query) => {
    const body = await expectReadsAtMost(recorder, FEW, () => rest(`/api/v1/interactions?limit=50&${query}`), query);
    expect(ids(body)).toEqual([]);
  });

  it.each([
    'q=zebra&cursor=',
    'q=zebra&cursor=&order=asc',
    'q=zebra&updated_since=2020-01-01T00:00:00Z',
    'q=zebra&cursor=&channel=voice',
    'q=zebra',
    'q=zebra%20refund&cursor=',
    'q=zebra&search=600',
    'q=zebra&search=600&order=asc',
    'q=zebra&search=600&cursor=',
  ])('%s: the one match far back, reading a handful of rows', async (query) => {
    const body = await expectReadsAtMost(recorder, FEW, () => rest(`/api/v1/interactions?limit=50&${query}`), query);
    expect(ids(body)).toEqual([oldest]);
  });

  it('GraphQL text: root pages and cursor lists', async () => {
    for (const text of ['zzqqxx', 'refund nothing', 'giraffe']) {
      const page = await expectReadsAtMost(
        recorder,
        FEW,
        () =>
          graphql(app, { query: 'query($t: String) { interactions(text: $t, limit: 50) { nodes { id } pageInfo { total } } }', variables: { t: text }, key }),
        text,
      );
      expect(expectNoErrors(page).interactions).toEqual({ nodes: [], pageInfo: { total: 0 } });
      const cursor = await expectReadsAtMost(
        recorder,
        FEW,
        () =>
          graphql(app, {
            query: 'query($t: String) { interactionsConnection(text: $t, first: 50) { nodes { id } pageInfo { hasMore } } }',
            variables: { t: text },
            key,
          }),
        text,
      );
      expect(expectNoErrors(cursor).interactionsConnection).toEqual({ nodes: [], pageInfo: { hasMore: false } });
    }
  });

  it('GraphQL text under a clinic', async () => {
    for (const [text, expected] of [
      ['zzqqxx', []],
      ['refund nothing', []],
      ['giraffe', []],
      ['zebra', [oldest]],
    ] as const) {
      const response = await expectReadsAtMost(
        recorder,
        FEW,
        () =>
          graphql(app, {
            query: 'query($c: ID!, $t: String) { clinic(id: $c) { interactions(text: $t, limit: 50) { id } } }',
            variables: { c: clinicId, t: text },
            key,
          }),
        text,
      );
      expect(expectNoErrors(response).clinic.interactions.map((row: { id: string }) => row.id)).toEqual(expected);
    }
  });

  it('exports find their matches through the index', async () => {
    for (const text of ['zzqqxx', 'refund nothing', 'giraffe', 'zebra']) {
      for (const order of ['desc', 'asc', 'feed'] as const) {
        const statement = exportStatement(
          'ndjson',
          { filters: { text, channel: 'voice' }, order, ...(order === 'feed' ? { updatedSince: new Date('2020-01-01') } : {}) },
          [clinicId],
          order === 'feed' ? new Date('2100-01-01') : undefined,
          'test',
        );
        const select = /COPY \((.*)\) TO STDOUT/s.exec(statement)?.[1];
        expect(select).toBeDefined();
        const { total, detail } = await rowsRead([{ text: select!, values: [] }], ROWS);
        expect(total, `${text} ${order}: ${detail.join('\n')}`).toBeLessThanOrEqual(FEW);
      }
    }
  });
});
