// What the export tests share: CSV records as objects (parsed by bench/csv.ts, strict), requests over real HTTP that read the body as it arrives, many rows written in SQL, and
// what PostgreSQL is running for an export.
import http from 'node:http';
import { parseCsv } from '../../bench/csv.js';
import { sql } from '../helpers/db.js';

/** Records as objects keyed by the header record; checks that every record has the header's width. */
export function csvObjects(text: string): { header: string[]; rows: Array<Record<string, string>> } {
  const [header, ...records] = parseCsv(text);
  if (!header) throw new Error('CSV: no header record');
  return {
    header,
    rows: records.map((record, n) => {
      if (record.length !== header.length) throw new Error(`CSV: record ${n + 2} has ${record.length} fields, the header ${header.length}`);
      return Object.fromEntries(header.map((name, j) => [name, record[j]!]));
    }),
  };
}

/**
 * A CSV record's cells as stored: the quote that guards a cell against formulas (src/rest/exports/csv.ts)
 * removed, by the rule the docs give readers (one leading quote, when quotes then =, +, -, @, tab
 * or CR in NFKC form follow).
 */
export function unguarded(row: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(row).map(([name, cell]) => [name, /^'+[=+\-@\t\r]/.test(cell.normalize('NFKC')) ? cell.slice(1) : cell]));
}

/** NDJSON lines parsed; every line (the last one too) must end with LF. */
export function parseNdjson(text: string): Array<Record<string, unknown>> {
  if (text === '') return [];
  if (!text.endsWith('\n')) throw new Error('NDJSON: the last line has no LF');
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export interface Streaming {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Resolves with the next chunk of the body, or null at its end; rejects when the transfer breaks off. */
  read(): Promise<Buffer | null>;
  /** Reads the rest of the body. */
  rest(): Promise<Buffer>;
  /** Stops reading (the socket's receive buffer fills and the server must wait). */
  pause(): void;
  /** Closes the connection mid-body. */
  destroy(): void;
}

/** A GET over real HTTP whose body is read as the test asks for it. */
export function streamingGet(baseUrl: string, path: string, headers: Record<string, string>): Promise<Streaming> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${baseUrl}${path}`, { headers, agent: false }, (response) => {
      response.pause();
      const chunks: Buffer[] = [];
      let ended = false;
      let failed: Error | undefined;
      let waiter: (() => void) | undefined;
      const wake = () => {
        const w = waiter;
        waiter = undefined;
        w?.();
      };
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        response.pause();
        wake();
      });
      response.on('end', () => {
        ended = true;
        wake();
      });
      // A transfer cut off before its last chunk: 'aborted' / an error, and 'close' without 'end'.
      response.on('error', (error) => {
        failed = error;
        wake();
      });
      response.on('close', () => {
        if (!ended && !failed) failed = new Error('the transfer ended before the body did');
        wake();
      });
      const read = async (): Promise<Buffer | null> => {
        for (;;) {
          const chunk = chunks.shift();
          if (chunk) return chunk;
          if (ended) return null;
          if (failed) throw failed;
          const arrived = new Promise<void>((r) => {
            waiter = r;
          });
          response.resume();
          await arrived;
        }
      };
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        read,
        async rest() {
          const all: Buffer[] = [];
          for (let chunk = await read(); chunk; chunk = await read()) all.push(chunk);
          return Buffer.concat(all);
        },
        pause: () => response.pause(),
        destroy: () => request.destroy(),
      });
    });
    request.on('error', reject);
  });
}

/**
 * `count` interactions of `clinicId` written in one statement (the rollup triggers run as for any
 * write), ids `<prefix>_000001`...: one a minute from 2024-01-01, every other one a WhatsApp
 * conversation, a third with a transcript. Returns their ids newest first (the export's order).
 */
export async function insertMany(clinicId: string, prefix: string, count: number): Promise<void> {
  await sql(
    `WITH rows AS (
       SELECT n, $2 || '_' || lpad(n::text, 6, '0') AS id, n % 2 = 0 AS whatsapp FROM generate_series(1, $3::int) AS n
     ), inserted AS (
       INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, started_at, ended_at, duration_seconds, outcome, summary, recording_url)
       SELECT id,
         (CASE WHEN whatsapp THEN 'whatsapp' ELSE 'voice' END)::"Channel",
         (CASE WHEN whatsapp THEN 'APPOINTMENT_REMINDER' ELSE 'INBOUND' END)::"InteractionType",
         (CASE WHEN whatsapp THEN 'outbound' ELSE 'inbound' END)::"Direction",
         '+34 600 ' || lpad((n % 1000000)::text, 6, '0'),
         $1::uuid,
         timestamptz '2024-01-01T00:00:00Z' + make_interval(mins => n),
         CASE WHEN n % 5 = 0 THEN NULL ELSE timestamptz '2024-01-01T00:00:30Z' + make_interval(mins => n) END,
         CASE WHEN whatsapp THEN NULL ELSE 30 + n % 600 END,
         CASE WHEN n % 7 = 0 THEN NULL ELSE 'APPOINTMENT_BOOKED' END,
         'Summary of ' || id || ', with a comma and "quotes"',
         CASE WHEN whatsapp THEN NULL ELSE 'https://recordings.example.test/' || id || '.mp3' END
       FROM rows
       RETURNING id
     )
     INSERT INTO interaction_transcripts (interaction_id, entries)
     SELECT id, jsonb_build_array(jsonb_build_object('role', 'assistant', 'content', 'Hello ' || id), jsonb_build_object('role', 'user', 'content', 'Hi, "there"'))
     FROM inserted WHERE right(id, 1) IN ('0', '3', '6')`,
    [clinicId, prefix, count],
  );
}

/** The sessions of PostgreSQL whose statement is the export of the request `requestId` (its X-Request-Id). */
export async function runningExports(requestId: string): Promise<Array<{ pid: number; state: string }>> {
  return sql<{ pid: number; state: string }>(
    `SELECT pid, state FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND starts_with(query, $1)`,
    [`/* export ${requestId} */ COPY (`],
  );
}

/** A fresh X-Request-Id, to find the request's export in pg_stat_activity. */
export function requestId(): string {
  return `export-test-${Math.random().toString(36).slice(2, 12)}`;
}

/** Waits until `check` holds (polling), or fails after `timeoutMs`. */
export async function eventually(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
