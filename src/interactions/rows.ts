// Which interactions a read selects and how their rows are read: the filters compiled to SQL and
// to a Prisma `where` (interactionConditions, interactionWhere), and the rows in hand-written SQL.
//
// The rows of a page of root `interactions`, in hand-written SQL when the page asks for nothing but
// the interaction's own columns and, optionally, its transcript (what every REST list selects), with
// the clinic and campaign read by id afterwards when asked for.
//
// Why not findMany for these: Prisma's client does most of a list page's work in the service (about
// 1.7x the CPU per page: bench/results/2026-11-23-design-measurements.md): it maps every row field by field from the driver's
// result into tagged values and back, and a transcript (a JSON column read through a relation) is
// parsed, serialized again and parsed once more. Here each transcript arrives as text and is parsed
// once. The rows have the shape findMany gives for the same selection, so the fields beneath
// (`transcript` included) resolve from them exactly as they would from Prisma's.

import { clinicCondition, clinicScope, type VisibleClinics } from '../auth/api-keys.js';
import { and, columnOf, type Db, num, prepared, queryRows, SQL_POOL } from '../db/client.js';
import { declarationOf, FILTER_KEYS, type Filters, ROLLUP_FILTER_KEYS } from '../filters/interaction-filters.js';
import { type Campaign, type Clinic, type Interaction, Prisma } from '../generated/prisma/client.js';
import { DIMENSION_KEYS, type Dimensions, dimensionConditions, rawRangeConditions } from '../rollups/counted.js';

/** A select list naming each column as the model's field (`i.phone_number AS "phoneNumber"`). */
function selectList(columns: Record<string, string>): Prisma.Sql {
  return Prisma.raw(
    Object.entries(columns)
      .map(([field, column]) => `${column} AS "${field}"`)
      .join(', '),
  );
}

/**
 * Each field of Prisma's `Interaction` model and the column it is read from, as Prisma's client
 * names and types it. Typed by the model itself: a column added to prisma/schema.prisma and missing
 * here fails the type check, so no hand-written page can silently leave it out.
 */
const COLUMN_OF: { readonly [Field in keyof Interaction]-?: string } = {
  id: 'i.id',
  channel: 'i.channel::text',
  type: 'i.type::text',
  direction: 'i.direction::text',
  phoneNumber: 'i.phone_number',
  clinicId: 'i.clinic_id::text',
  campaignId: 'i.campaign_id',
  startedAt: 'i.started_at',
  endedAt: 'i.ended_at',
  durationSeconds: 'i.duration_seconds',
  outcome: 'i.outcome',
  summary: 'i.summary',
  recordingUrl: 'i.recording_url',
  updatedAt: 'i.updated_at',
};

/** The interaction's own columns, named as Prisma's model names them (the select list of every hand-written page). */
export const INTERACTION_COLUMNS = selectList(COLUMN_OF);

/** A row as findMany returns it with `include: { transcript: { select: { entries: true } } }`. */
export type InteractionRow = Interaction & { transcript?: { entries: Prisma.JsonValue } | null };

/** Each field of Prisma's `Clinic` model and its column (typed by the model, as COLUMN_OF). */
const CLINIC_COLUMN_OF: { readonly [Field in keyof Clinic]-?: string } = {
  id: 'id::text',
  name: 'name',
  address: 'address',
  phone: 'phone',
  email: 'email',
  timezone: 'timezone',
  environment: 'environment::text',
  language: 'language',
  createdAt: 'created_at',
};

/** Each field of Prisma's `Campaign` model and its column (`settings`, jsonb, arrives parsed as Prisma gives it). */
const CAMPAIGN_COLUMN_OF: { readonly [Field in keyof Campaign]-?: string } = {
  id: 'id',
  name: 'name',
  description: 'description',
  type: 'type::text',
  channel: 'channel::text',
  status: 'status::text',
  clinicId: 'clinic_id::text',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  settings: 'settings',
};

/** Under which kinds the catalogue in memory keeps clinics and campaigns by id (db/client.ts, CatalogCache). */
export const CLINIC_KIND = 'clinic';
export const CAMPAIGN_KIND = 'campaign';

// Prepared: looked up by primary key whatever the ids, so one generic plan serves every call.
const CLINICS_BY_ID = (ids: string[]) =>
  prepared('clinics_by_id', Prisma.sql`SELECT ${selectList(CLINIC_COLUMN_OF)} FROM clinics WHERE id = ANY(${ids}::uuid[])`);
const CAMPAIGNS_BY_ID = (ids: string[]) =>
  prepared('campaigns_by_id', Prisma.sql`SELECT ${selectList(CAMPAIGN_COLUMN_OF)} FROM campaigns WHERE id = ANY(${ids}::text[])`);

/**
 * Clinics by id as whole rows, shaped as Prisma's model (also the group keys of breakdowns:
 * graphql/builder.ts's entity loaders); kept in memory by the service until one changes
 * (db/client.ts, CatalogCache). The rows are then shared between requests, and frozen.
 */
export function clinicsById(db: Db, ids: string[]): Promise<Clinic[]> {
  const read = (missing: string[]) => queryRows<Clinic>(db, CLINICS_BY_ID(missing));
  // A uuid matches whatever its letters' case; the rows spell it in lower case.
  return db[SQL_POOL].catalog?.byIds(CLINIC_KIND, ids, read, (id) => id.toLowerCase()) ?? read(ids);
}

/** Campaigns by id as whole rows, shaped as Prisma's model (kept in memory as clinics are). */
export function campaignsById(db: Db, ids: string[]): Promise<Campaign[]> {
  const read = (missing: string[]) => queryRows<Campaign>(db, CAMPAIGNS_BY_ID(missing));
  return db[SQL_POOL].catalog?.byIds(CAMPAIGN_KIND, ids, read) ?? read(ids);
}

/** The transcripts of these interactions (by interaction id), as the rows of a page carry them. */
export async function transcriptsById(db: Db, ids: readonly string[]): Promise<Map<string, { entries: Prisma.JsonValue }>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows<{ id: string; text: string }>(
    db,
    prepared(
      'transcripts_by_id',
      Prisma.sql`SELECT interaction_id AS id, entries::text AS text FROM interaction_transcripts WHERE interaction_id = ANY(${ids}::text[])`,
    ),
  );
  return new Map(rows.map((row) => [row.id, { entries: JSON.parse(row.text) as Prisma.JsonValue }]));
}

/** The transcript of alias `t` as the text of its JSON (parsed once, by `sqlRows`). */
export const TRANSCRIPT_TEXT = Prisma.sql`t.entries::text AS "transcriptText"`;
const ORDER = Prisma.sql`ORDER BY i.started_at DESC, i.id DESC`;
const ORDER_ASC = Prisma.sql`ORDER BY i.started_at, i.id`;

/**
 * The columns a page may leave unread: each is read by the GraphQL field of its name and by nothing
 * else (graphql/schema/interaction.ts decides from the selection). Reading the six a page of
 * identifiers, times, outcomes and names does not show cost about a seventh of its CPU (parsed
 * values, two of them timestamps, and their garbage).
 */
export const SKIPPABLE_COLUMNS = ['direction', 'phoneNumber', 'endedAt', 'summary', 'recordingUrl', 'updatedAt'] as const satisfies ReadonlyArray<
  keyof Interaction
>;
export type SkippableColumn = (typeof SKIPPABLE_COLUMNS)[number];

/** What a list reads of its rows. */
export interface RowsRead {
  /** The transcripts too. */
  transcript: boolean;
  /** Columns left unread: NULL in the rows (no field of the selection reads them). Only the first pages honour it. */
  skipped?: ReadonlySet<SkippableColumn>;
}

/** The select list with `skipped` columns as NULL, by the set's members (at most 64 lists). */
const selectLists = new Map<string, Prisma.Sql>();
function selectListWithout(skipped: ReadonlySet<SkippableColumn> | undefined): Prisma.Sql {
  if (!skipped || skipped.size === 0) return INTERACTION_COLUMNS;
  const key = SKIPPABLE_COLUMNS.filter((column) => skipped.has(column)).join(',');
  let list = selectLists.get(key);
  if (!list) {
    list = selectList({ ...COLUMN_OF, ...Object.fromEntries([...skipped].map((column) => [column, 'NULL::text'])) });
    selectLists.set(key, list);
  }
  return list;
}

/** The model's columns of the rows `from` names `i` (those `read` skips as NULL), with the text of each one's transcript when asked for. */
function columnsOf(from: Prisma.Sql, read: RowsRead): Prisma.Sql {
  const columns = selectListWithout(read.skipped);
  return read.transcript
    ? Prisma.sql`SELECT ${columns}, ${TRANSCRIPT_TEXT} FROM ${from} LEFT JOIN interaction_transcripts t ON t.interaction_id = i.id`
    : Prisma.sql`SELECT ${columns} FROM ${from}`;
}

/** A row as hand-written SQL reads it: the transcript (when read) as the text of its JSON. */
export type RawRow = Interaction & { transcriptText?: string | null };

/** The rows with their transcripts parsed (when read), as findMany gives them. */
export function sqlRows(rows: RawRow[], transcript: boolean): InteractionRow[] {
  if (!transcript) return rows;
  // In place: the rows were made for this read, and a copy of each (rest and spread) showed in the
  // profile of a REST page. `transcriptText` is left undefined (no field reads it).
  for (const row of rows as Array<RawRow & { transcript?: { entries: Prisma.JsonValue } | null }>) {
    const text = row.transcriptText;
    row.transcript = text == null ? null : { entries: JSON.parse(text) as Prisma.JsonValue };
    row.transcriptText = undefined;
  }
  return rows;
}

/**
 * The page of interactions matching `conditions` (SQL on alias `i`), newest first. Left unnamed
 * (planned for its values on every run): a generic plan could not see the LIMIT and OFFSET or how
 * rare a filtered value is. The transcripts are joined to the page's rows only, after the offset.
 */
export async function pageRows(db: Db, conditions: Prisma.Sql[], skip: number, take: number, read: RowsRead, ascending = false): Promise<InteractionRow[]> {
  const order = ascending ? ORDER_ASC : ORDER;
  const page = Prisma.sql`SELECT * FROM interactions i WHERE ${and(conditions)} ${order} LIMIT ${take} OFFSET ${skip}`;
  const rows = await queryRows<RawRow>(db, Prisma.sql`${columnsOf(Prisma.sql`(${page}) AS i`, read)} ${order}`);
  return sqlRows(rows, read.transcript);
}

/**
 * A newest-first page and the list's total in one statement: the count (`countSql`, one row with
 * `total`) joined to the page, so that a list that shows both costs one round trip (each is a
 * socket write and a reply to parse; a plain page's CPU was about a sixth more with two). With
 * `gated`, the page is read only when the count says rows remain at its offset: a one-time filter
 * in PostgreSQL, so a filter that matches nothing never walks the table (what reading the count
 * first was for).
 */
export async function pageAndTotal(
  db: Db,
  countSql: Prisma.Sql,
  conditions: Prisma.Sql[],
  skip: number,
  take: number,
  read: RowsRead,
  gated: boolean,
): Promise<{ rows: InteractionRow[]; total: number }> {
  const gate = gated ? Prisma.sql` AND c.total > ${skip}` : Prisma.empty;
  const page = Prisma.sql`SELECT * FROM interactions i WHERE ${and(conditions)}${gate} ${ORDER} LIMIT ${take} OFFSET ${skip}`;
  const rows = columnsOf(Prisma.sql`(${page}) AS i`, read);
  const found = await queryRows<RawRow & { listTotal?: bigint }>(
    db,
    Prisma.sql`SELECT c.total AS "listTotal", p.* FROM (${countSql}) AS c LEFT JOIN LATERAL (${rows}) AS p ON true ORDER BY p."startedAt" DESC, p.id DESC`,
  );
  const total = num(found[0]?.listTotal);
  // An empty page is the count's row alone, its page columns null.
  const pageRows = found[0]?.id == null ? [] : found;
  for (const row of pageRows) row.listTotal = undefined;
  return { rows: sqlRows(pageRows, read.transcript), total };
}

/** The interactions with these ids, newest first (rows deleted meanwhile are left out). */
export async function rowsById(db: Db, ids: readonly string[], transcript: boolean): Promise<InteractionRow[]> {
  if (ids.length === 0) return [];
  // Prepared: looked up by primary key whatever the ids, so one generic plan serves every call.
  const rows = await queryRows<RawRow>(
    db,
    prepared('interactions_by_id', Prisma.sql`${columnsOf(Prisma.sql`interactions i`, { transcript })} WHERE i.id = ANY(${ids}::text[]) ${ORDER}`),
  );
  return sqlRows(rows, transcript);
}

/** The rows in the order of `ids` (rows read by id come newest first; a row deleted meanwhile is left out). */
export function inIdOrder<T extends { id: string }>(ids: readonly string[], rows: readonly T[]): T[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** A page of a search with its exact number of matches (search-page.ts, phone-search.ts). */
export interface MatchesPage {
  /** The page's ids (in no particular order: the caller reads and orders the rows). */
  ids: string[];
  total: number;
  /** The page's rows with their transcripts, newest first, when the statement that found them read them too. */
  rows?: InteractionRow[];
}

/**
 * The page's rows as the statement that found them read them, for a page that selects only the
 * interaction's own fields and (`transcript`) its transcript; undefined when they were not read
 * (no search found the page, or its statement read only ids).
 */
export function foundRows(found: MatchesPage | null | undefined, transcript: boolean): InteractionRow[] | undefined {
  if (!found?.rows) return undefined;
  return transcript ? found.rows : found.rows.map(({ transcript: _transcript, ...row }) => row);
}

// The filters of an interaction list compiled to a query, once for each dialect the read path
// speaks: a Prisma `where` (pages that read relations through Prisma) and SQL conditions on the
// columns of `interactions` (every hand-written statement, with the table's alias if it has one).
// Both come from the filters' declarations (filters/interaction-filters.ts). The filters that are
// columns of the rollup levels are compiled by the rollups' own `dimensionConditions` from the
// same declarations, so a count from the rollups and a page from the raw table cannot disagree on
// what they select.

const ROLLUP_FILTERS: ReadonlySet<string> = new Set([...ROLLUP_FILTER_KEYS, 'from', 'to']);

/**
 * Whether every filter given is a rollup dimension (or the window): a list filtered by these alone
 * is counted from the rollups (read-page.ts) and its deep pages skip whole days (read-page.ts).
 */
export function countableByRollups(filters: Filters): boolean {
  return (Object.keys(filters) as Array<keyof Filters>).every((name) => filters[name] === undefined || ROLLUP_FILTERS.has(name));
}

/** Whether a rollup dimension other than the clinic is given (one without an index in list order). */
export function restrictsBeyondClinic(filters: Filters): boolean {
  return DIMENSION_KEYS.some((key) => filters[key] !== undefined);
}

/** The rollup dimensions of the filters with the key's clinic restriction folded in. */
export function dimensionsOf(filters: Filters, visible: VisibleClinics): Dimensions {
  const dimensions: Dimensions = { clinicIds: clinicScope(visible, filters.clinicId) };
  for (const key of DIMENSION_KEYS) {
    if (filters[key] !== undefined) (dimensions as Record<(typeof DIMENSION_KEYS)[number], unknown>)[key] = filters[key];
  }
  return dimensions;
}

/** SQL conditions on the columns of `interactions`, qualified by `alias` when the statement names the table so. */
export function interactionConditions(filters: Filters, visible: VisibleClinics, alias?: string): Prisma.Sql[] {
  const dimensions = dimensionsOf(filters, visible);
  const others = FILTER_KEYS.filter((key) => !declarationOf(key).rollup && filters[key] !== undefined);
  return [
    ...dimensionConditions(dimensions, alias),
    ...rawRangeConditions({ from: filters.from, to: filters.to }, alias),
    ...others.flatMap((key) => {
      const condition = declarationOf(key).condition;
      if (!condition) throw new Error(`interaction filter ${key} declares no condition`);
      return condition(filters[key], { alias, clinicIds: dimensions.clinicIds, column: columnOf(alias) });
    }),
  ];
}

/**
 * The same selection as a Prisma `where`. Not for a filter Prisma cannot express (a full-text
 * search, `text`): its lists and counts are read in SQL (read-page.ts).
 */
export function interactionWhere(filters: Filters, visible: VisibleClinics): Prisma.InteractionWhereInput {
  const where: Prisma.InteractionWhereInput = {
    ...clinicCondition(visible, filters.clinicId),
    ...(filters.from || filters.to ? { startedAt: { ...(filters.from ? { gte: filters.from } : {}), ...(filters.to ? { lte: filters.to } : {}) } } : {}),
  };
  for (const key of FILTER_KEYS) {
    if (key === 'clinicId' || filters[key] === undefined) continue;
    const prisma = declarationOf(key).prisma;
    if (!prisma) throw new Error(`interactionWhere: the ${key} filter is read in SQL`);
    Object.assign(where, prisma(filters[key]));
  }
  return where;
}
