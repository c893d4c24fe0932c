// Writes the demo data in one transaction over a single node-postgres connection: multi-row
// `INSERT ... SELECT FROM unnest(...)` statements of a few thousand rows, upserting by id so that
// re-running the same seed is idempotent (unchanged rows are not even rewritten). Interactions are
// generated while the previous batch is being written, and at most two batches exist at a time.

import pg from 'pg';
import type { ClinicEnvironmentValue } from '../auth/api-keys.js';
import { CLAIM_TRANSACTION_ID } from '../interactions/change-feed.js';
import { type DemoData, generateDemoData, type SeedCampaign, type SeedClinic, type SeedInteraction, type SeedOptions } from './generate.js';

export interface SeedDatabaseOptions extends SeedOptions {
  /** Called with the number of interactions written so far (0 first, `total` last). */
  onProgress?: (done: number, total: number) => void;
  /** The environment of the clinics written; default `sandbox` (demo data is testing data). */
  environment?: ClinicEnvironmentValue;
}

/** A clinic the seed would write is stored in the other environment: nothing was written. */
export class SeedEnvironmentError extends Error {
  constructor(
    readonly clinicId: string,
    readonly stored: ClinicEnvironmentValue,
    readonly wanted: ClinicEnvironmentValue,
  ) {
    super(
      `clinic ${clinicId} is a ${stored} clinic; this seed writes ${wanted} data, and data never moves between environments ` +
        `(seed with --environment ${stored}, or another --seed, whose clinics are others): nothing was written`,
    );
    this.name = 'SeedEnvironmentError';
  }
}

export interface SeedCounts {
  clinics: number;
  campaigns: number;
  interactions: number;
}

const BATCH_SIZE = 2_000;

/** `SET col = EXCLUDED.col, ... WHERE (t.col, ...) IS DISTINCT FROM (EXCLUDED.col, ...)`; `touched` adds to the SET (not to the comparison). */
function upsertColumns(table: string, columns: readonly string[], touched = ''): string {
  const set = columns.map((c) => `${c} = EXCLUDED.${c}`).join(', ') + touched;
  const current = columns.map((c) => `${table}.${c}`).join(', ');
  const incoming = columns.map((c) => `EXCLUDED.${c}`).join(', ');
  return `DO UPDATE SET ${set} WHERE (${current}) IS DISTINCT FROM (${incoming})`;
}

// The environment is written with a new clinic only, never updated (SeedEnvironmentError).
const CLINICS_SQL = `
  INSERT INTO clinics (id, name, address, phone, email, timezone, created_at, language, environment)
  SELECT *, $9::"ClinicEnvironment" FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::text[])
  ON CONFLICT (id) ${upsertColumns('clinics', ['name', 'address', 'phone', 'email', 'timezone', 'created_at', 'language'])}`;

const CAMPAIGNS_SQL = `
  INSERT INTO campaigns (id, name, description, type, channel, status, clinic_id, created_at, updated_at, settings)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::"CampaignType"[], $5::"CampaignChannel"[], $6::"CampaignStatus"[],
                       $7::uuid[], $8::timestamptz[], $9::timestamptz[], $10::jsonb[])
  ON CONFLICT (id) ${upsertColumns('campaigns', ['name', 'description', 'type', 'channel', 'status', 'clinic_id', 'created_at', 'updated_at', 'settings'])}`;

const INTERACTION_COLUMNS = [
  'channel',
  'type',
  'direction',
  'phone_number',
  'clinic_id',
  'campaign_id',
  'started_at',
  'ended_at',
  'duration_seconds',
  'outcome',
  'summary',
  'recording_url',
] as const;

/**
 * Interactions and their transcripts in one statement (one round trip per batch, so the database
 * works on a batch while the next one is generated). The transcript rows' foreign key is checked at
 * the end of the statement, when the interactions are in place.
 */
const INTERACTIONS_SQL = `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::"Channel"[], $3::"InteractionType"[], $4::"Direction"[], $5::text[], $6::uuid[], $7::text[],
                         $8::timestamptz[], $9::timestamptz[], $10::int[], $11::text[], $12::text[], $13::text[], $14::jsonb[])
      AS t(id, ${INTERACTION_COLUMNS.join(', ')}, entries)
  ), interaction_rows AS (
    INSERT INTO interactions (id, ${INTERACTION_COLUMNS.join(', ')})
    SELECT id, ${INTERACTION_COLUMNS.join(', ')} FROM input
    ON CONFLICT (id) ${upsertColumns('interactions', INTERACTION_COLUMNS, ', updated_at = statement_timestamp()')}
  )
  INSERT INTO interaction_transcripts (interaction_id, entries)
  SELECT id, entries FROM input
  ON CONFLICT (interaction_id) ${upsertColumns('interaction_transcripts', ['entries'])}`;

/** The first of `clinics` stored in another environment than `environment`, if any. */
async function clinicOfOtherEnvironment(client: pg.Client, clinics: readonly SeedClinic[], environment: ClinicEnvironmentValue) {
  const { rows } = await client.query<{ id: string; environment: ClinicEnvironmentValue }>(
    `SELECT id::text AS id, environment::text AS environment FROM clinics WHERE id = ANY($1::uuid[]) AND environment <> $2::"ClinicEnvironment" ORDER BY id LIMIT 1`,
    [clinics.map((c) => c.id), environment],
  );
  return rows[0];
}

async function writeClinics(client: pg.Client, clinics: readonly SeedClinic[], environment: ClinicEnvironmentValue): Promise<void> {
  for (let i = 0; i < clinics.length; i += BATCH_SIZE) {
    const batch = clinics.slice(i, i + BATCH_SIZE);
    await client.query(CLINICS_SQL, [
      batch.map((c) => c.id),
      batch.map((c) => c.name),
      batch.map((c) => c.address),
      batch.map((c) => c.phone),
      batch.map((c) => c.email),
      batch.map((c) => c.timezone),
      batch.map((c) => c.createdAt.toISOString()),
      batch.map((c) => c.language),
      environment,
    ]);
  }
}

async function writeCampaigns(client: pg.Client, campaigns: readonly SeedCampaign[]): Promise<void> {
  for (let i = 0; i < campaigns.length; i += BATCH_SIZE) {
    const batch = campaigns.slice(i, i + BATCH_SIZE);
    await client.query(CAMPAIGNS_SQL, [
      batch.map((c) => c.id),
      batch.map((c) => c.name),
      batch.map((c) => c.description),
      batch.map((c) => c.type),
      batch.map((c) => c.channel),
      batch.map((c) => c.status),
      batch.map((c) => c.clinicId),
      batch.map((c) => c.createdAt.toISOString()),
      batch.map((c) => c.updatedAt.toISOString()),
      batch.map((c) => JSON.stringify(c.settings)),
    ]);
  }
}

/** One batch of interactions, column by column, as the statements take them. */
class InteractionBatch {
  readonly columns: unknown[][] = Array.from({ length: 14 }, () => []);

  get size(): number {
    return this.columns[0]!.length;
  }

  add(x: SeedInteraction): void {
    const c = this.columns;
    c[0]!.push(x.id);
    c[1]!.push(x.channel);
    c[2]!.push(x.type);
    c[3]!.push(x.direction);
    c[4]!.push(x.phoneNumber);
    c[5]!.push(x.clinicId);
    c[6]!.push(x.campaignId);
    c[7]!.push(x.startedAt.toISOString());
    c[8]!.push(x.endedAt.toISOString());
    c[9]!.push(x.durationSeconds);
    c[10]!.push(x.outcome);
    c[11]!.push(x.summary);
    c[12]!.push(x.recordingUrl);
    c[13]!.push(JSON.stringify(x.transcript));
  }

  write(client: pg.Client): Promise<void> {
    return client.query(INTERACTIONS_SQL, this.columns).then(() => undefined);
  }
}

/**
 * Writes `data` through an open connection, inside the caller's transaction, its clinics in
 * `environment` (SeedEnvironmentError when one of them is stored in the other).
 */
export async function writeDemoData(
  client: pg.Client,
  data: DemoData,
  onProgress?: (done: number, total: number) => void,
  environment: ClinicEnvironmentValue = 'sandbox',
): Promise<SeedCounts> {
  const conflict = await clinicOfOtherEnvironment(client, data.clinics, environment);
  if (conflict) throw new SeedEnvironmentError(conflict.id, conflict.environment, environment);
  const total = data.options.interactions;
  onProgress?.(0, total);
  await writeClinics(client, data.clinics, environment);
  await writeCampaigns(client, data.campaigns);

  let done = 0;
  let inFlight: { promise: Promise<void>; size: number } | null = null;
  const settle = async (): Promise<void> => {
    if (!inFlight) return;
    const { promise, size } = inFlight;
    inFlight = null;
    await promise;
    done += size;
    onProgress?.(done, total);
  };
  const send = (batch: InteractionBatch): void => {
    const promise = batch.write(client);
    // Awaited in settle(); this only keeps a failure from being reported as unhandled meanwhile.
    promise.catch(() => {});
    inFlight = { promise, size: batch.size };
  };

  let batch = new InteractionBatch();
  for (const interaction of data.interactions()) {
    batch.add(interaction);
    if (batch.size >= BATCH_SIZE) {
      await settle();
      send(batch);
      batch = new InteractionBatch();
    }
  }
  await settle();
  if (batch.size > 0) {
    send(batch);
    await settle();
  }
  return { clinics: data.clinics.length, campaigns: data.campaigns.length, interactions: done };
}

/**
 * Seeds deterministic demo data into the (migrated) database at `url`, in one transaction: either
 * everything is written or nothing is. Also used by the server's first start on an empty database.
 */
export async function seedDemoData(url: string, options: SeedDatabaseOptions = {}): Promise<SeedCounts> {
  const { onProgress, environment = 'sandbox', ...seedOptions } = options;
  const data = generateDemoData(seedOptions);
  const client = new pg.Client({ connectionString: url, application_name: 'clinic-analytics seed' });
  await client.connect();
  try {
    await client.query('BEGIN');
    try {
      await client.query(CLAIM_TRANSACTION_ID);
      const counts = await writeDemoData(client, data, onProgress, environment);
      await client.query('COMMIT');
      // The phone numbers' changes folded into the fragment counts at once (interactions/phone-fragments.ts).
      await client.query('SELECT interaction_phone_changes_fold(), clinic_data_changes_fold(), interaction_search_terms_fold()');
      return counts;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  } finally {
    await client.end();
  }
}
