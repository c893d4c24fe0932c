// Multi-row upserts: each batch is one `INSERT ... SELECT * FROM unnest($1::type[], ...)
// ON CONFLICT (id) DO UPDATE` per table, whatever the batch size. One batch is in flight while the
// next one is parsed. Rows that would not change are left alone (no dead tuples on a re-import).
import type pg from 'pg';
import type { ClinicEnvironmentValue } from '../auth/api-keys.js';
import type { CampaignRecord, ClinicRecord, InteractionRecord, RecordOf, Resource } from './records.js';
import { parseTimestamp } from './records.js';

/** What holds for every row of an import. */
export interface WriteContext {
  /** The environment new clinics are written in (an existing clinic's never changes). */
  environment: ClinicEnvironmentValue;
}

interface Column<R> {
  name: string;
  /** PostgreSQL type of the column (the parameter is an array of it). */
  type: string;
  value: (record: R, context: WriteContext) => unknown;
  /**
   * `insert`: written only with a new row, never updated (a clinic's environment: data never moves
   * between environments). `keep-null`: a null leaves the stored value as it is.
   */
  update?: 'insert' | 'keep-null';
}

interface Table<R> {
  name: string;
  columns: Column<R>[];
}

/** Timestamps go to PostgreSQL as UTC ISO strings with milliseconds, the precision of the columns. */
function utc(value: string): string;
function utc(value: string | null | undefined): string | null;
function utc(value: string | null | undefined): string | null {
  return value == null ? null : new Date(parseTimestamp(value)!).toISOString();
}

const clinics: Table<ClinicRecord> = {
  name: 'clinics',
  columns: [
    { name: 'id', type: 'uuid', value: (r) => r.id },
    { name: 'name', type: 'text', value: (r) => r.name },
    { name: 'address', type: 'text', value: (r) => r.address },
    { name: 'phone', type: 'text', value: (r) => r.phone },
    { name: 'email', type: 'text', value: (r) => r.email },
    { name: 'timezone', type: 'text', value: (r) => r.timezone },
    { name: 'created_at', type: 'timestamptz', value: (r) => utc(r.created_at) },
    { name: 'environment', type: '"ClinicEnvironment"', value: (_r, context) => context.environment, update: 'insert' },
    { name: 'language', type: 'text', value: (r) => r.language ?? null, update: 'keep-null' },
  ],
};

const campaigns: Table<CampaignRecord> = {
  name: 'campaigns',
  columns: [
    { name: 'id', type: 'text', value: (r) => r.id },
    { name: 'name', type: 'text', value: (r) => r.name },
    { name: 'description', type: 'text', value: (r) => r.description },
    { name: 'type', type: '"CampaignType"', value: (r) => r.type },
    { name: 'channel', type: '"CampaignChannel"', value: (r) => r.channel },
    { name: 'status', type: '"CampaignStatus"', value: (r) => r.status },
    { name: 'clinic_id', type: 'uuid', value: (r) => r.clinic_id },
    { name: 'created_at', type: 'timestamptz', value: (r) => utc(r.created_at) },
    { name: 'updated_at', type: 'timestamptz', value: (r) => utc(r.updated_at) },
    { name: 'settings', type: 'jsonb', value: (r) => JSON.stringify(r.settings) },
  ],
};

const interactions: Table<InteractionRecord> = {
  name: 'interactions',
  columns: [
    { name: 'id', type: 'text', value: (r) => r.id },
    { name: 'channel', type: '"Channel"', value: (r) => r.channel },
    { name: 'type', type: '"InteractionType"', value: (r) => r.type },
    { name: 'direction', type: '"Direction"', value: (r) => r.direction },
    { name: 'phone_number', type: 'text', value: (r) => r.phone_number },
    { name: 'clinic_id', type: 'uuid', value: (r) => r.clinic_id },
    { name: 'campaign_id', type: 'text', value: (r) => r.campaign_id ?? null },
    { name: 'started_at', type: 'timestamptz', value: (r) => utc(r.started_at) },
    { name: 'ended_at', type: 'timestamptz', value: (r) => utc(r.ended_at) },
    { name: 'duration_seconds', type: 'integer', value: (r) => r.duration_seconds ?? null },
    { name: 'outcome', type: 'text', value: (r) => r.outcome ?? null },
    { name: 'summary', type: 'text', value: (r) => r.summary ?? null },
    { name: 'recording_url', type: 'text', value: (r) => r.recording_url ?? null },
  ],
};

function upsertSql<R>(table: Table<R>): string {
  const q = (name: string) => `"${name}"`;
  const names = table.columns.map((c) => q(c.name));
  const params = table.columns.map((c, i) => `$${i + 1}::${c.type}[]`);
  const updatedColumns = table.columns.filter((c) => c.name !== 'id' && c.update !== 'insert');
  const updated = updatedColumns.map((c) => q(c.name));
  const incoming = updatedColumns.map((c) =>
    c.update === 'keep-null' ? `coalesce(EXCLUDED.${q(c.name)}, ${q(table.name)}.${q(c.name)})` : `EXCLUDED.${q(c.name)}`,
  );
  // An interaction's updated_at moves only when the row changes (the WHERE leaves identical rows
  // alone): the change feed must not list a re-import that changed nothing. RETURNING names the
  // rows written, so a transcript-only change can move updated_at afterwards (Batch.execute).
  const feed = table.name === 'interactions';
  return [
    `INSERT INTO ${q(table.name)} (${names.join(', ')}${feed ? ', "updated_at"' : ''})`,
    `SELECT *${feed ? ', statement_timestamp()' : ''} FROM unnest(${params.join(', ')})`,
    `ON CONFLICT ("id") DO UPDATE SET ${updated.map((n, i) => `${n} = ${incoming[i]}`).join(', ')}${feed ? ', "updated_at" = EXCLUDED."updated_at"' : ''}`,
    `WHERE (${updated.map((n) => `${q(table.name)}.${n}`).join(', ')}) IS DISTINCT FROM (${incoming.join(', ')})`,
    ...(feed ? ['RETURNING "id"'] : []),
  ].join('\n');
}

const TABLES: { [R in Resource]: Table<RecordOf[R]> } = { clinics, campaigns, interactions };

const SQL: Record<Resource, string> = {
  clinics: upsertSql(clinics),
  campaigns: upsertSql(campaigns),
  interactions: upsertSql(interactions),
};

/** A line is the full representation: a transcript replaces the stored one, no transcript removes it. */
const UPSERT_TRANSCRIPTS = `INSERT INTO "interaction_transcripts" ("interaction_id", "entries")
SELECT * FROM unnest($1::text[], $2::jsonb[])
ON CONFLICT ("interaction_id") DO UPDATE SET "entries" = EXCLUDED."entries"
WHERE "interaction_transcripts"."entries" IS DISTINCT FROM EXCLUDED."entries"
RETURNING "interaction_id" AS "id"`;
const DELETE_TRANSCRIPTS = `DELETE FROM "interaction_transcripts" WHERE "interaction_id" = ANY($1::text[]) RETURNING "interaction_id" AS "id"`;
/** The interactions whose transcript alone changed: their representation changed, so the feed lists them. */
const TOUCH_INTERACTIONS = `UPDATE "interactions" SET "updated_at" = statement_timestamp() WHERE "id" = ANY($1::text[])`;

/** The parameters of one batch, column by column: records are converted as they arrive and then dropped. */
class Batch<R extends Resource> {
  readonly columns: unknown[][];
  readonly withTranscript: string[] = [];
  readonly entries: string[] = [];
  readonly withoutTranscript: string[] = [];
  size = 0;

  constructor(
    private readonly resource: R,
    private readonly table: Table<RecordOf[R]>,
    private readonly context: WriteContext,
  ) {
    this.columns = table.columns.map(() => []);
  }

  add(record: RecordOf[R]): void {
    this.table.columns.forEach((column, i) => {
      this.columns[i]!.push(column.value(record, this.context));
    });
    if (this.resource === 'interactions') {
      const r = record as InteractionRecord;
      if (r.transcript) {
        this.withTranscript.push(r.id);
        this.entries.push(JSON.stringify(r.transcript));
      } else {
        this.withoutTranscript.push(r.id);
      }
    }
    this.size++;
  }

  statements(): pg.QueryConfig[] {
    const queries: pg.QueryConfig[] = [{ name: `import-${this.resource}`, text: SQL[this.resource], values: this.columns }];
    if (this.withTranscript.length) {
      queries.push({ name: 'import-transcripts', text: UPSERT_TRANSCRIPTS, values: [this.withTranscript, this.entries] });
    }
    if (this.withoutTranscript.length) {
      queries.push({ name: 'import-transcripts-delete', text: DELETE_TRANSCRIPTS, values: [this.withoutTranscript] });
    }
    return queries;
  }
}

/** Buffers records of one resource and writes them in batches on `client` (inside the caller's transaction). */
export class BatchWriter<R extends Resource> {
  private batch: Batch<R>;
  private inflight: Promise<void> = Promise.resolve();
  private failure: unknown;
  written = 0;

  constructor(
    private readonly client: pg.ClientBase,
    private readonly resource: R,
    private readonly batchSize: number,
    private readonly context: WriteContext = { environment: 'live' },
  ) {
    this.batch = this.newBatch();
  }

  get full(): boolean {
    return this.batch.size >= this.batchSize;
  }

  push(record: RecordOf[R]): void {
    this.batch.add(record);
  }

  /** Sends the buffered rows once the previous batch is done; does not wait for this one. */
  async send(): Promise<void> {
    const batch = this.batch;
    this.batch = this.newBatch();
    await this.inflight;
    this.check();
    if (batch.size === 0) return;
    // The handler is attached at once: a failure is kept and rethrown by the next call, never unhandled.
    this.inflight = this.execute(batch).then(
      () => {
        this.written += batch.size;
      },
      (error: unknown) => {
        this.failure ??= error;
      },
    );
  }

  /** Writes what is left and waits for every batch. */
  async finish(): Promise<void> {
    await this.send();
    await this.inflight;
    this.check();
  }

  /** Waits for the batch in flight, if any, ignoring its outcome (before a ROLLBACK on the same client). */
  async settle(): Promise<void> {
    await this.inflight;
  }

  private newBatch(): Batch<R> {
    return new Batch(this.resource, TABLES[this.resource] as Table<RecordOf[R]>, this.context);
  }

  /** One statement at a time: node-postgres runs one query per client. */
  private async execute(batch: Batch<R>): Promise<void> {
    const written = new Set<string>();
    const changedTranscripts: string[] = [];
    for (const [i, query] of batch.statements().entries()) {
      const result = await this.client.query<{ id: string }>(query);
      if (this.resource !== 'interactions') continue;
      for (const row of result.rows) {
        if (i === 0) written.add(row.id);
        else changedTranscripts.push(row.id);
      }
    }
    const touched = changedTranscripts.filter((id) => !written.has(id));
    if (touched.length) await this.client.query({ name: 'import-touch', text: TOUCH_INTERACTIONS, values: [touched] });
  }

  private check(): void {
    if (this.failure !== undefined) throw this.failure;
  }
}
