// The tombstones of deleted interactions (`GET /api/v1/interactions/deleted`, GraphQL
// `deletedInteractions`): what a client that mirrors the data must delete from its copy.
//
// A DELETE on interactions (a purge) leaves, by a statement trigger in the same transaction, one
// row per interaction: its id, clinic and deleted_at (the DELETE statement's time; no patient data).
// An INSERT of the id (an import after a purge) removes it the same way: a tombstone always names an
// id that is gone, so a mirror that deletes the listed ids never deletes a row the API serves, and
// the row, stamped by the later statement, comes back through the change feed. A cursor is a
// position, not a row: one past a removed tombstone resumes after it all the same.
//
// They are read in (deleted_at, id) order after a cursor, up to the change feed's horizon
// (change-feed.ts): a purge batch takes its transaction id before it deletes, so its tombstones,
// stamped later, stay behind the horizon until it commits, and a client resuming from the largest
// deleted_at it saw never steps past a batch that commits late.
import type { VisibleClinics } from '../auth/api-keys.js';
import type { Db } from '../db/client.js';
import { and, instant, num, queryRows } from '../db/client.js';
import { Prisma } from '../generated/prisma/client.js';
import { feedHorizon } from './change-feed.js';
import { type CursorList, cursorCodec, type Position } from './cursor.js';
import { lazy } from './read-page.js';

export interface Tombstone {
  id: string;
  clinicId: string;
  deletedAt: Date;
}

export interface TombstoneRequest {
  visibleClinics: VisibleClinics;
  /** Tombstones with deleted_at at or after it; absent: from the first. */
  since?: Date;
  /** Where the previous page ended; null for the first page. */
  after: Position | null;
  limit: number;
  /** False: `total()` answers null without counting. */
  includeTotal: boolean;
}

export interface TombstonePage {
  limit: number;
  total(): Promise<number | null>;
  hasMore(): Promise<boolean>;
  nextCursor(): Promise<string | null>;
  nodes(): Promise<Tombstone[]>;
}

/** The list a tombstone cursor belongs to (no filters; its start is part of it). */
export function tombstoneList(since: Date | undefined): CursorList {
  return { filters: {}, order: 'deleted', updatedSince: since };
}

export function listTombstonesAfter(db: Db, request: TombstoneRequest): TombstonePage {
  const { visibleClinics, since, after, limit, includeTotal } = request;
  // Read once, so that a page and its total stop at the same horizon.
  const conditions = lazy(async (): Promise<Prisma.Sql[]> => {
    const horizon = await feedHorizon(db);
    return [
      ...(visibleClinics === null ? [] : [Prisma.sql`clinic_id = ANY(${[...visibleClinics]}::uuid[])`]),
      ...(since ? [Prisma.sql`deleted_at >= ${instant(since, 'since')}`] : []),
      Prisma.sql`deleted_at < ${instant(horizon, 'horizon')}`,
    ];
  });

  const found = lazy(async () => {
    const position = after ? [Prisma.sql`(deleted_at, id) > (${instant(new Date(after.at), 'cursor position')}, ${after.id})`] : [];
    const rows = await queryRows<{ id: string; clinic_id: string; deleted_at: Date }>(
      db,
      Prisma.sql`SELECT id, clinic_id, deleted_at FROM interaction_tombstones
        WHERE ${and([...(await conditions()), ...position])}
        ORDER BY deleted_at, id LIMIT ${limit + 1}`,
    );
    return { page: rows.slice(0, limit), more: rows.length > limit };
  });

  return {
    limit,
    total: lazy(async () => {
      if (!includeTotal) return null;
      const [row] = await queryRows<{ n: bigint }>(db, Prisma.sql`SELECT count(*) AS n FROM interaction_tombstones WHERE ${and(await conditions())}`);
      return num(row?.n);
    }),
    hasMore: async () => (await found()).more,
    nextCursor: async () => {
      const { page, more } = await found();
      const last = page.at(-1);
      if (!more || !last) return null;
      return (await cursorCodec(db)).encode(tombstoneList(since), { at: last.deleted_at.getTime(), id: last.id });
    },
    nodes: async () => (await found()).page.map((r) => ({ id: r.id, clinicId: r.clinic_id, deletedAt: r.deleted_at })),
  };
}
