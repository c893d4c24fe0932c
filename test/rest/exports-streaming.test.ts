// Exports of many rows over real HTTP: streamed whole and parseable, stopped in PostgreSQL when the
// client goes away or stops reading, limited to a few at once per process, cut off (not silently
// short) when the database fails mid-way, and a 503 when it fails before the first byte.
import { beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../../bench/csv.js';
import { SQL_POOL, type SqlPool } from '../../src/db/client.js';
import { CSV_COLUMNS } from '../../src/rest/exports/interactions.js';
import { createKey, testApp } from '../helpers/app.js';
import { sql, testDb } from '../helpers/db.js';
import { createClinic } from '../helpers/factories.js';
import { serveOverHttp } from '../helpers/http-server.js';
import { eventually, insertMany, requestId, runningExports, streamingGet } from './exports-support.js';

const db = testDb();
const ROWS = 100_000;

/** The service as it runs; with a one-second stall timeout; with one export at a time. */
const server = await serveOverHttp(testApp(db));
const stalling = await serveOverHttp(testApp(db), { stallTimeoutMs: 1_000 });
const single = await serveOverHttp(testApp(db, { exportLimits: { concurrency: 1 } }));
/** The default share: two slots, one per key; with a two-second stall timeout. */
const shared = await serveOverHttp(testApp(db, { exportLimits: { concurrency: 2 } }), { stallTimeoutMs: 2_000 });

let clinicId: string;
let key: string;
/** Another key of the same clinic. */
let otherKey: string;

beforeAll(async () => {
  clinicId = (await createClinic(db, { name: 'Exports streaming clinic' })).id;
  await insertMany(clinicId, `exs${clinicId.slice(0, 8)}`, ROWS);
  key = await createKey(db, { clinicIds: [clinicId] });
  otherKey = await createKey(db, { clinicIds: [clinicId] });
}, 300_000);

/** How a body's transfer ended (never the body itself in an assertion: tens of megabytes). */
const outcomeOf = (body: Promise<Buffer>) =>
  body.then(
    () => 'complete',
    () => 'broken off',
  );

const headers = (accept: string, id = requestId(), bearer = key) => ({
  authorization: `Bearer ${bearer}`,
  accept,
  'accept-encoding': 'identity',
  'x-request-id': id,
});

interface Envelope {
  success: boolean;
  error: { code: string; message: string; details?: Record<string, unknown> };
}

describe(`an export of ${ROWS.toLocaleString('en-US')} interactions`, () => {
  it('CSV: every row, parsed whole, newest first', async () => {
    const { baseUrl } = server;
    const answer = await streamingGet(baseUrl, '/api/v1/interactions', headers('text/csv'));
    expect(answer.status).toBe(200);
    expect(answer.headers['transfer-encoding']).toBe('chunked');
    const [header, ...records] = parseCsv((await answer.rest()).toString('utf8'));
    expect(header).toEqual([...CSV_COLUMNS]);
    expect(records.length).toBe(ROWS);
    const started = header!.indexOf('started_at');
    let outOfOrder = 0;
    for (let i = 1; i < records.length; i++) if (records[i - 1]![started]! < records[i]![started]!) outOfOrder++;
    expect(outOfOrder).toBe(0);
    expect(new Set(records.map((r) => r[0])).size).toBe(ROWS);
    expect(records.filter((r) => r.length !== CSV_COLUMNS.length).length).toBe(0);
  });

  it('NDJSON: every line parses, transcripts where stored', async () => {
    const { baseUrl } = server;
    const answer = await streamingGet(baseUrl, '/api/v1/interactions?order=asc', headers('application/x-ndjson'));
    expect(answer.status).toBe(200);
    const text = (await answer.rest()).toString('utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n');
    expect(lines.length).toBe(ROWS);
    let withTranscript = 0;
    let outOfOrder = 0;
    let previous = '';
    for (const line of lines) {
      const row = JSON.parse(line) as { id: string; started_at: string; transcript: unknown[]; updated_at: string };
      if (row.started_at < previous) outOfOrder++;
      previous = row.started_at;
      if (row.transcript.length) withTranscript++;
    }
    expect(outOfOrder).toBe(0);
    expect(withTranscript).toBe(
      Number(
        (
          await sql<{ n: string }>(
            'SELECT count(*) AS n FROM interaction_transcripts t JOIN interactions i ON i.id = t.interaction_id WHERE i.clinic_id = $1',
            [clinicId],
          )
        )[0]!.n,
      ),
    );
  });
});

describe('ending an export early', () => {
  it('a client that drops the connection mid-export leaves no query running', async () => {
    const { baseUrl } = server;
    for (const accept of ['text/csv', 'application/x-ndjson']) {
      const id = requestId();
      const answer = await streamingGet(baseUrl, '/api/v1/interactions', headers(accept, id));
      expect(answer.status).toBe(200);
      expect((await answer.read())!.length).toBeGreaterThan(0);
      expect(await runningExports(id)).toHaveLength(1);
      answer.destroy();
      await eventually(async () => (await runningExports(id)).length === 0, 2_000, 'the export query ended');
    }
  });

  it('a client that stops reading is dropped after the stall timeout', async () => {
    const { baseUrl } = stalling;
    const id = requestId();
    const answer = await streamingGet(baseUrl, '/api/v1/interactions', headers('application/x-ndjson', id));
    expect((await answer.read())!.length).toBeGreaterThan(0);
    answer.pause();
    expect(await runningExports(id)).toHaveLength(1);
    // Socket buffers fill, the service pauses the COPY, and a second later ends it.
    await eventually(async () => (await runningExports(id)).length === 0, 15_000, 'the stalled export ended');
    // What the client had not read yet is there, then the transfer breaks off: never a clean end.
    expect(await outcomeOf(answer.rest())).toBe('broken off');
  });

  it('a failure after the first byte cuts the transfer off rather than ending it cleanly', async () => {
    const { baseUrl } = server;
    const id = requestId();
    const answer = await streamingGet(baseUrl, '/api/v1/interactions', headers('text/csv', id));
    expect(answer.status).toBe(200);
    await answer.read();
    const running = await runningExports(id);
    expect(running).toHaveLength(1);
    await sql('SELECT pg_terminate_backend($1)', [running[0]!.pid]);
    expect(await outcomeOf(answer.rest())).toBe('broken off');
  });
});

describe('exports at once', () => {
  it('past the limit: 503 with Retry-After, while ordinary requests are served; a freed slot serves the next', async () => {
    const { baseUrl } = single;
    const firstId = requestId();
    const first = await streamingGet(baseUrl, '/api/v1/interactions', headers('text/csv', firstId));
    expect(first.status).toBe(200);
    await first.read();

    // Another key: the instance is full (503); the same key: its own share is used (429).
    const refused = await fetch(`${baseUrl}/api/v1/interactions?order=asc`, { headers: headers('application/x-ndjson', requestId(), otherKey) });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('10');
    expect(refused.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await refused.json()) as Envelope;
    expect(body.success).toBe(false);
    expect(body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(body.error.message).toMatch(/exports are already running/);
    const own = await fetch(`${baseUrl}/api/v1/interactions?order=asc`, { headers: headers('application/x-ndjson') });
    expect(own.status).toBe(429);
    expect(((await own.json()) as Envelope).error.details).toEqual({ limit: 'export_concurrency', max_exports: 1, in_flight_exports: 1 });

    const ordinary = await fetch(`${baseUrl}/api/v1/interactions?limit=5`, { headers: { authorization: `Bearer ${key}` } });
    expect(ordinary.status).toBe(200);
    const metrics = await fetch(`${baseUrl}/api/v1/metrics/daily`, { headers: headers('text/csv') });
    expect(metrics.status).toBe(200);
    await metrics.text();

    first.destroy();
    await eventually(async () => (await runningExports(firstId)).length === 0, 2_000, 'the first export ended');
    const next = await streamingGet(baseUrl, `/api/v1/interactions?date_from=2024-01-01&date_to=2024-01-01`, headers('text/csv'));
    expect(next.status).toBe(200);
    expect(parseCsv((await next.rest()).toString('utf8')).length).toBe(1 + 24 * 60 - 1);
  });
});

describe('export slots shared between keys', () => {
  it("a key holding stalled exports gets 429 for more, and another key's export is served", async () => {
    const { baseUrl } = shared;
    // The attacker: two exports it stops reading at once (real sockets whose buffers fill).
    const heldIds = [requestId(), requestId()];
    const held = [];
    for (const id of heldIds) {
      const answer = await streamingGet(baseUrl, '/api/v1/interactions', headers('application/x-ndjson', id));
      if (answer.status === 200) answer.pause();
      held.push(answer);
    }
    // The victim: its export is served while the attacker's are held.
    const victim = await streamingGet(baseUrl, `/api/v1/interactions?date_from=2024-01-01&date_to=2024-01-01`, headers('text/csv', requestId(), otherKey));
    expect(victim.status).toBe(200);
    expect(parseCsv((await victim.rest()).toString('utf8')).length).toBe(1 + 24 * 60 - 1);

    // The attacker's first export runs; its second was over its share: 429 with Retry-After and details naming the limit.
    expect(held[0]!.status).toBe(200);
    expect(await runningExports(heldIds[0]!)).toHaveLength(1);
    expect(held[1]!.status).toBe(429);
    expect(held[1]!.headers['retry-after']).toBe('10');
    const body = JSON.parse((await held[1]!.rest()).toString('utf8')) as Envelope;
    expect(body.error.code).toBe('RATE_LIMITED');
    expect(body.error.message).toMatch(/export/);
    expect(body.error.details).toEqual({ limit: 'export_concurrency', max_exports: 1, in_flight_exports: 1 });
    for (const answer of held) answer.destroy();
    await eventually(async () => (await runningExports(heldIds[0]!)).length === 0, 5_000, 'the held export ended');
  });

  it("a stalled reader is cut after the stall timeout, and its key's slot is free again", async () => {
    const { baseUrl } = shared;
    const id = requestId();
    const stalled = await streamingGet(baseUrl, '/api/v1/interactions', headers('application/x-ndjson', id));
    expect((await stalled.read())!.length).toBeGreaterThan(0);
    stalled.pause();
    expect((await fetch(`${baseUrl}/api/v1/interactions`, { headers: headers('text/csv') })).status).toBe(429);
    await eventually(async () => (await runningExports(id)).length === 0, 20_000, 'the stalled export ended');
    // The slot was given back with the connection: the same key exports again.
    const next = await streamingGet(baseUrl, `/api/v1/interactions?date_from=2024-01-02&date_to=2024-01-02`, headers('text/csv'));
    expect(next.status).toBe(200);
    expect(parseCsv((await next.rest()).toString('utf8')).length).toBe(1 + 24 * 60);
    expect(await outcomeOf(stalled.rest())).toBe('broken off');
  });
});

/** The database refuses the export's connection (everything else works: keys, quotas). */
const refusing: SqlPool = {
  ...db[SQL_POOL],
  connect: () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })),
};
const broken = await serveOverHttp(
  testApp(new Proxy(db, { get: (target, prop, receiver) => (prop === SQL_POOL ? refusing : Reflect.get(target, prop, receiver)) })),
);

describe('a database that cannot answer', () => {
  it('before the first byte: 503 SERVICE_UNAVAILABLE in the envelope', async () => {
    const { baseUrl } = broken;
    const answer = await fetch(`${baseUrl}/api/v1/interactions`, { headers: headers('text/csv') });
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('5');
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('SERVICE_UNAVAILABLE');
    // The slot was given back: the next export is refused for the database, not for being busy.
    const again = await fetch(`${baseUrl}/api/v1/interactions`, { headers: headers('text/csv') });
    expect(((await again.json()) as { error: { message: string } }).error.message).not.toMatch(/already running/);
  });
});
