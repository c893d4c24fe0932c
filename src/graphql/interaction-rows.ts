// The rows of a page of root `interactions`, in hand-written SQL when the page asks for nothing but
// the interaction's own columns and, optionally, its transcript: what every REST list and a plain
// GraphQL list select. Relations (clinic, campaign) keep going through Prisma's findMany, which
// reads them in the same statement.
//
// Why not findMany for these: Prisma's client does most of a list page's work in the service. For a
// page of 25 with transcripts it cost 0.57 ms of CPU per call against 0.33 ms here (10,000,000-row
// bench database, same pool and adapter): it maps every row field by field from the driver's
// result into tagged values and back, and a transcript (a JSON column read through a relation) is
// parsed, serialized again and parsed once more. Here each transcript arrives as text and is parsed
// once. The rows have the shape findMany gives for the same selection, so the fields beneath
// (`transcript` included) resolve from them exactly as they would from Prisma's.

import type { Db } from '../db/client.js';
import { and, prepared, queryRows } from '../db/sql.js';
import { type Interaction, Prisma } from '../generated/prisma/client.js';

/** The interaction's own columns, named as Prisma's model names them (shared with loaders.ts). */
export const INTERACTION_COLUMNS = Prisma.sql`i.id, i.channel::text AS channel, i.type::text AS type, i.direction::text AS direction,
  i.phone_number AS "phoneNumber", i.clinic_id::text AS "clinicId", i.campaign_id AS "campaignId",
  i.started_at AS "startedAt", i.ended_at AS "endedAt", i.duration_seconds AS "durationSeconds",
  i.outcome, i.summary, i.recording_url AS "recordingUrl"`;

/** A row as findMany returns it with `include: { transcript: { select: { entries: true } } }`. */
export type InteractionRow = Interaction & { transcript?: { entries: Prisma.JsonValue } | null };

/** What Pothos asks findMany for (its `query` argument of a prismaField). */
export interface PothosQuery {
  select?: unknown;
  include?: Record<string, unknown>;
}

/**
 * Whether the rows Pothos asks for can be read here, and whether with their transcripts; null when
 * the query needs Prisma (a relation other than the transcript, or a narrowed selection).
 */
export function plainSelection(query: PothosQuery): { transcript: boolean } | null {
  if (query.select !== undefined) return null;
  const include = query.include ?? {};
  let transcript = false;
  for (const [relation, value] of Object.entries(include)) {
    if (relation !== 'transcript' || !isEntriesSelection(value)) return null;
    transcript = true;
  }
  return { transcript };
}

/** `true` or `{ select: { entries: true } }`: the transcript field's own selection. */
function isEntriesSelection(value: unknown): boolean {
  if (value === true) return true;
  if (typeof value !== 'object' || value === null) return false;
  const { select, ...rest } = value as { select?: unknown };
  if (Object.keys(rest).length) return false;
  if (typeof select !== 'object' || select === null) return false;
  const keys = Object.keys(select);
  return keys.length === 1 && (select as { entries?: unknown }).entries === true;
}

const TRANSCRIPT_TEXT = Prisma.sql`t.entries::text AS "transcriptText"`;
const ORDER = Prisma.sql`ORDER BY i.started_at DESC, i.id DESC`;

type RawRow = Interaction & { transcriptText?: string | null };

function shaped(rows: RawRow[], transcript: boolean): InteractionRow[] {
  if (!transcript) return rows;
  return rows.map(({ transcriptText, ...row }) => ({
    ...row,
    transcript: transcriptText == null ? null : { entries: JSON.parse(transcriptText) as Prisma.JsonValue },
  }));
}

/**
 * The page of interactions matching `conditions` (SQL on alias `i`), newest first. Left unnamed
 * (planned for its values on every run): a generic plan could not see the LIMIT and OFFSET or how
 * rare a filtered value is. The transcripts are joined to the page's rows only, after the offset.
 */
export async function pageRows(db: Db, conditions: Prisma.Sql[], skip: number, take: number, transcript: boolean): Promise<InteractionRow[]> {
  const page = Prisma.sql`SELECT * FROM interactions i WHERE ${and(conditions)} ${ORDER} LIMIT ${take} OFFSET ${skip}`;
  const rows = await queryRows<RawRow>(
    db,
    transcript
      ? Prisma.sql`SELECT ${INTERACTION_COLUMNS}, ${TRANSCRIPT_TEXT} FROM (${page}) AS i
          LEFT JOIN interaction_transcripts t ON t.interaction_id = i.id ${ORDER}`
      : Prisma.sql`SELECT ${INTERACTION_COLUMNS} FROM (${page}) AS i ${ORDER}`,
  );
  return shaped(rows, transcript);
}

/** The interactions with these ids, newest first (rows deleted meanwhile are left out). */
export async function rowsById(db: Db, ids: readonly string[], transcript: boolean): Promise<InteractionRow[]> {
  if (ids.length === 0) return [];
  // Prepared: looked up by primary key whatever the ids, so one generic plan serves every call.
  const rows = await queryRows<RawRow>(
    db,
    prepared(
      'interactions_by_id',
      transcript
        ? Prisma.sql`SELECT ${INTERACTION_COLUMNS}, ${TRANSCRIPT_TEXT} FROM interactions i
            LEFT JOIN interaction_transcripts t ON t.interaction_id = i.id WHERE i.id = ANY(${ids}::text[]) ${ORDER}`
        : Prisma.sql`SELECT ${INTERACTION_COLUMNS} FROM interactions i WHERE i.id = ANY(${ids}::text[]) ${ORDER}`,
    ),
  );
  return shaped(rows, transcript);
}
