// Erasure and retention (`purge`): which interactions a purge selects, what it would delete, and the
// deletion itself, in batches.
//
// Every batch is its own transaction, so a purge can be stopped at any moment (kill -9 included)
// and run again: committed batches are gone, the batch under way is rolled back whole by
// PostgreSQL, and the next run selects what is left. The database keeps everything else exact in the
// same transaction as each DELETE: the rollups, the phone counts, the search documents and the
// tombstones (statement triggers), the transcripts (foreign key cascade). A batch first takes its
// transaction id (CLAIM_TRANSACTION_ID), so the tombstones it writes are behind the horizon of every
// reader of /interactions/deleted until it commits (change-feed.ts).
import type { Db } from '../db/client.js';
import { and, instant, num, queryRows, SQL_POOL } from '../db/client.js';
import { Prisma } from '../generated/prisma/client.js';
import { CLAIM_TRANSACTION_ID } from '../interactions/change-feed.js';
import { foldDataChanges, foldPhoneChanges } from '../interactions/phone-fragments.js';
import { foldSearchTerms } from '../interactions/text-search.js';
import { candidatePattern, clinicCallingCode, type PatientNumber, readStoredNumber } from './phone-numbers.js';

/** Rows per batch (one transaction each): about a quarter of a second of work, so an interrupted run loses little. */
export const DEFAULT_BATCH_SIZE = 5_000;

export interface PurgeRequest {
  /** Interactions started before this instant. */
  before?: Date;
  /** Only this clinic's. */
  clinicId?: string;
  /** Every interaction of this patient's number, in whatever form it was stored. */
  phone?: PatientNumber;
}

/** One stored form of the patient's number, in one clinic. */
export interface PhoneForm {
  clinicId: string;
  phoneNumber: string;
  interactions: number;
}

/** A stored number ending with the patient's digits that cannot be compared (and is not erased). */
export interface UnresolvedForm extends PhoneForm {
  reason: string;
}

/** A purge request resolved against the database: for --phone, the stored forms that are the patient's. */
export interface PurgeSelection {
  request: PurgeRequest;
  /** null without --phone. */
  forms: PhoneForm[] | null;
  unresolved: UnresolvedForm[];
}

export interface ClinicShare {
  clinicId: string;
  name: string;
  interactions: number;
  transcripts: number;
  firstStartedAt: Date | null;
  lastStartedAt: Date | null;
}

export interface PurgeSummary {
  interactions: number;
  transcripts: number;
  firstStartedAt: Date | null;
  lastStartedAt: Date | null;
  clinics: ClinicShare[];
}

/** Input the operator must correct (exit code 2): an unknown clinic. */
export class PurgeInputError extends Error {}

/** Resolves the request: checks the clinic, and finds the patient's stored numbers. */
export async function selectForPurge(db: Db, request: PurgeRequest): Promise<PurgeSelection> {
  if (request.clinicId !== undefined) {
    const [clinic] = await queryRows<{ id: string }>(db, Prisma.sql`SELECT id FROM clinics WHERE id = ${request.clinicId}::uuid`);
    if (!clinic) throw new PurgeInputError(`--clinic: no clinic with id ${request.clinicId}`);
  }
  if (!request.phone) return { request, forms: null, unresolved: [] };
  const phone = request.phone;
  const candidates = await queryRows<{ clinic_id: string; phone_number: string; interactions: bigint; clinic_phone: string }>(
    db,
    Prisma.sql`SELECT p.clinic_id, p.phone_number, p.interactions, c.phone AS clinic_phone
      FROM interaction_phones p JOIN clinics c ON c.id = p.clinic_id
      WHERE p.phone_number ~ ${candidatePattern(phone)}
        ${request.clinicId === undefined ? Prisma.empty : Prisma.sql`AND p.clinic_id = ${request.clinicId}::uuid`}
      ORDER BY p.clinic_id, p.phone_number`,
  );
  const forms: PhoneForm[] = [];
  const unresolved: UnresolvedForm[] = [];
  const codes = new Map<string, string | null>();
  for (const candidate of candidates) {
    if (!codes.has(candidate.clinic_id)) codes.set(candidate.clinic_id, clinicCallingCode(candidate.clinic_phone));
    const reading = readStoredNumber(candidate.phone_number, codes.get(candidate.clinic_id)!);
    const form = { clinicId: candidate.clinic_id, phoneNumber: candidate.phone_number, interactions: num(candidate.interactions) };
    if ('e164' in reading) {
      if (reading.e164 === phone.e164) forms.push(form);
    } else unresolved.push({ ...form, reason: reading.unresolved });
  }
  return { request, forms, unresolved };
}

/** The rows a selection deletes, as SQL conditions on `interactions`. */
function conditions(selection: PurgeSelection): Prisma.Sql[] {
  const { before, clinicId } = selection.request;
  const list: Prisma.Sql[] = [];
  if (before) list.push(Prisma.sql`started_at < ${instant(before, 'before')}`);
  if (clinicId !== undefined) list.push(Prisma.sql`clinic_id = ${clinicId}::uuid`);
  if (selection.forms) {
    if (selection.forms.length === 0) return [Prisma.sql`FALSE`];
    // The numbers alone find the rows through the trigram index (it answers equality); the pairs
    // keep a form to the clinic it was found in.
    const clinics = selection.forms.map((f) => f.clinicId);
    const numbers = selection.forms.map((f) => f.phoneNumber);
    list.push(Prisma.sql`phone_number = ANY(${[...new Set(numbers)]}::text[])`);
    list.push(Prisma.sql`(clinic_id, phone_number) IN (SELECT * FROM unnest(${clinics}::uuid[], ${numbers}::text[]))`);
  }
  if (list.length === 0) throw new Error('purge: a selection needs --phone or --before');
  return list;
}

/** What the selection holds now: per clinic, with the window of `started_at`. */
export async function summarizePurge(db: Db, selection: PurgeSelection): Promise<PurgeSummary> {
  const rows = await queryRows<{ clinic_id: string; name: string; interactions: bigint; transcripts: bigint; first: Date | null; last: Date | null }>(
    db,
    Prisma.sql`SELECT s.clinic_id, c.name, s.interactions, s.transcripts, s.first, s.last
      FROM (
        SELECT i.clinic_id, count(*) AS interactions, count(t.interaction_id) AS transcripts, min(i.started_at) AS first, max(i.started_at) AS last
        FROM interactions i LEFT JOIN interaction_transcripts t ON t.interaction_id = i.id
        WHERE ${and(conditions(selection).map((c) => Prisma.sql`(${c})`))}
        GROUP BY i.clinic_id
      ) s JOIN clinics c ON c.id = s.clinic_id
      ORDER BY c.name, s.clinic_id`,
  );
  const clinics = rows.map((r) => ({
    clinicId: r.clinic_id,
    name: r.name,
    interactions: num(r.interactions),
    transcripts: num(r.transcripts),
    firstStartedAt: r.first,
    lastStartedAt: r.last,
  }));
  const times = (pick: (c: ClinicShare) => Date | null) =>
    clinics
      .map(pick)
      .filter((d): d is Date => d !== null)
      .map((d) => d.getTime());
  const firsts = times((c) => c.firstStartedAt);
  const lasts = times((c) => c.lastStartedAt);
  return {
    interactions: clinics.reduce((sum, c) => sum + c.interactions, 0),
    transcripts: clinics.reduce((sum, c) => sum + c.transcripts, 0),
    firstStartedAt: firsts.length ? new Date(Math.min(...firsts)) : null,
    lastStartedAt: lasts.length ? new Date(Math.max(...lasts)) : null,
    clinics,
  };
}

export interface PurgeProgress {
  /** After each committed batch: rows deleted so far. */
  onBatch?(deleted: number): void;
}

export interface PurgeResult {
  deleted: number;
  batches: number;
  /** Phone-number changes and clinic data changes folded after the last batch. */
  folded: number;
}

/**
 * Deletes the selection in batches of `batchSize` rows, oldest first (keyset over started_at, id),
 * each batch committed on its own; then folds the change counts (as the importer does after a load).
 */
export async function purgeInBatches(db: Db, selection: PurgeSelection, options: PurgeProgress & { batchSize?: number } = {}): Promise<PurgeResult> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const where = and(conditions(selection).map((c) => Prisma.sql`(${c})`));
  const client = await db[SQL_POOL].connect();
  let deleted = 0;
  let batches = 0;
  let after: { at: string; id: string } | null = null;
  let failed: unknown;
  try {
    for (;;) {
      const position: Prisma.Sql = after ? Prisma.sql`AND (started_at, id) > (${after.at}::timestamptz, ${after.id})` : Prisma.empty;
      const statement = Prisma.sql`
        WITH batch AS MATERIALIZED (
          SELECT id, started_at FROM interactions
          WHERE ${where} ${position}
          ORDER BY started_at, id
          LIMIT ${batchSize}
        ), gone AS (
          DELETE FROM interactions i USING batch b WHERE i.id = b.id RETURNING i.id
        ), last AS (
          SELECT to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, id FROM batch ORDER BY started_at DESC, id DESC LIMIT 1
        )
        SELECT (SELECT count(*) FROM gone)::int AS deleted, (SELECT count(*) FROM batch)::int AS selected, last.at, last.id
        FROM (SELECT 1) AS one LEFT JOIN last ON TRUE`;
      await client.query('BEGIN');
      let row: { deleted: number; selected: number; at: string | null; id: string | null };
      try {
        await client.query(CLAIM_TRANSACTION_ID);
        const result = await client.query<typeof row>({ text: statement.text, values: statement.values as unknown[] });
        row = result.rows[0]!;
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
      if (row.selected === 0 || row.at === null || row.id === null) break;
      deleted += row.deleted;
      batches++;
      after = { at: row.at, id: row.id };
      options.onBatch?.(deleted);
      if (row.selected < batchSize) break;
    }
  } catch (error) {
    failed = error;
    throw error;
  } finally {
    // A connection whose transaction failed is closed rather than reused.
    client.release(failed instanceof Error ? failed : undefined);
  }
  // The phone numbers' changes folded now rather than by the service over the next seconds, and
  // the clinics' change counts (what confirms ETags) and the search word counts with them.
  const folded = (await foldPhoneChanges(db)) + (await foldDataChanges(db)) + (await foldSearchTerms(db));
  return { deleted, batches, folded };
}
