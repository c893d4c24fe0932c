// Reading a page of interactions after a cursor (keyset paging): the rows after the last one a
// client saw, in (started_at, id) order either way or, for the change feed, in (updated_at, id)
// order. A row inserted between two pages is neither skipped nor repeated, and every page costs an
// index range walk whatever its depth. The page's ids and sort keys are read first (take + 1, to
// know exactly whether more follow without counting), then its rows by id (rows.ts), so the rows,
// the next cursor and `has_more` come from one read.
//
// A full-text search (`text`) is counted first (from the word counts or the GIN index: text-search.ts),
// and the count says how its page is found, as for numbered pages: none match, no page is read;
// few, they are found through the index and sorted; many, the list order is walked (the documents'
// own index; for the change feed, the interactions' (updated_at, id) index), which stops after the
// page. Walking when few or none match would read every row after the position.
import type { VisibleClinics } from '../auth/api-keys.js';
import type { Db } from '../db/client.js';
import { and, instant, queryRows } from '../db/client.js';
import type { Filters } from '../filters/interaction-filters.js';
import { textCondition } from '../filters/text-filter.js';
import { Prisma } from '../generated/prisma/client.js';
import { feedHorizon } from './change-feed.js';
import { type CursorList, type CursorOrder, cursorCodec, type Position } from './cursor.js';
import { countInteractions, lazy, textPlanOf } from './read-page.js';
import { type InteractionRow, inIdOrder, interactionConditions, type RowsRead, rowsById } from './rows.js';
import { fewTextMatchIds, textMatchIds, textPageIds } from './text-search.js';

export interface CursorListRequest {
  filters: Filters;
  visibleClinics: VisibleClinics;
  order: CursorOrder;
  /** The change feed's start (order `feed`): rows with updated_at at or after it. */
  updatedSince?: Date;
  /** Where the previous page ended; null for the first page. */
  after: Position | null;
  limit: number;
  /** False: `total()` answers null without counting. */
  includeTotal: boolean;
}

export interface CursorPage {
  limit: number;
  total(): Promise<number | null>;
  hasMore(): Promise<boolean>;
  /** The cursor of the page's last row when more follow, else null. */
  nextCursor(): Promise<string | null>;
  rows(read: RowsRead): Promise<InteractionRow[]>;
  /** The full-text search of the list, if any (GraphQL's highlights read it). */
  text?: string;
}

const KEY_COLUMN: Record<CursorOrder, Prisma.Sql> = {
  desc: Prisma.sql`started_at`,
  asc: Prisma.sql`started_at`,
  feed: Prisma.sql`updated_at`,
};

function positionCondition(order: CursorOrder, after: Position | null): Prisma.Sql[] {
  if (!after) return [];
  const key = KEY_COLUMN[order];
  const at = instant(new Date(after.at), 'cursor position');
  // A row comparison: PostgreSQL walks the (key, id) index from the position.
  return order === 'desc' ? [Prisma.sql`(${key}, id) < (${at}, ${after.id})`] : [Prisma.sql`(${key}, id) > (${at}, ${after.id})`];
}

function orderBy(order: CursorOrder): Prisma.Sql {
  return order === 'desc' ? Prisma.sql`ORDER BY started_at DESC, id DESC` : Prisma.sql`ORDER BY ${KEY_COLUMN[order]}, id`;
}

export function listInteractionsAfter(db: Db, request: CursorListRequest): CursorPage {
  const { filters, visibleClinics, order, updatedSince, after, limit, includeTotal } = request;
  const list: CursorList = { filters, order, updatedSince };
  // The feed's window: from updated_since to the horizon (change-feed.ts), read once so that the
  // page and its total agree.
  const feedWindow = lazy(async (): Promise<Prisma.Sql[]> => {
    if (order !== 'feed') return [];
    const horizon = await feedHorizon(db);
    return [
      ...(updatedSince ? [Prisma.sql`updated_at >= ${instant(updatedSince, 'updated_since')}`] : []),
      Prisma.sql`updated_at < ${instant(horizon, 'horizon')}`,
    ];
  });
  const { text, ...others } = filters;
  // A search's exact number of matches, and whether walking finds a page sooner than sorting them all.
  const searched = lazy(async () => (text === undefined ? undefined : textPlanOf(db, { ...filters, text }, visibleClinics, 0, limit + 1)));
  const conditions = lazy(async () => {
    const search = await searched();
    const textConditions = search === undefined ? [] : [search.few ? await fewTextMatchIds(db, search.scope) : textCondition(search.scope.text)];
    return [...interactionConditions(others, visibleClinics), ...textConditions, ...(await feedWindow())];
  });

  const positions = lazy(async () => {
    const search = await searched();
    let found: Array<{ id: string; at: Date }>;
    if (search?.matches === 0) found = [];
    else if (search && order !== 'feed') {
      const request = { skip: 0, take: limit + 1, ascending: order === 'asc', fewMatches: search.few };
      found = await textPageIds(db, search.scope, after ? { ...request, after: { at: new Date(after.at), id: after.id } } : request);
    } else {
      found = await queryRows<{ id: string; at: Date }>(
        db,
        Prisma.sql`SELECT id, ${KEY_COLUMN[order]} AS at FROM interactions
          WHERE ${and([...(await conditions()), ...positionCondition(order, after)])}
          ${orderBy(order)} LIMIT ${limit + 1}`,
      );
    }
    return { page: found.slice(0, limit), more: found.length > limit };
  });

  const total = lazy(async (): Promise<number | null> => {
    if (!includeTotal) return null;
    const search = await searched();
    if (search) {
      if (order !== 'feed' || search.matches === 0) return search.matches;
      // The feed's window is not a column of the documents: its matches are found through the
      // index, then their interactions counted in the window (looked up by id when few).
      const matching = search.few ? await fewTextMatchIds(db, search.scope) : textMatchIds(search.scope);
      const window = [...interactionConditions(others, visibleClinics), matching, ...(await feedWindow())];
      const [row] = await queryRows<{ n: bigint }>(db, Prisma.sql`SELECT count(*) AS n FROM interactions WHERE ${and(window)}`);
      return Number(row?.n ?? 0);
    }
    if (order !== 'feed') return countInteractions(db, filters, visibleClinics);
    const [row] = await queryRows<{ n: bigint }>(db, Prisma.sql`SELECT count(*) AS n FROM interactions WHERE ${and(await conditions())}`);
    return Number(row?.n ?? 0);
  });

  async function rows({ transcript }: RowsRead): Promise<InteractionRow[]> {
    const ids = (await positions()).page.map((p) => p.id);
    return inIdOrder(ids, await rowsById(db, ids, transcript));
  }

  return {
    limit,
    text: filters.text,
    total,
    hasMore: async () => (await positions()).more,
    nextCursor: async () => {
      const { page, more } = await positions();
      const last = page.at(-1);
      if (!more || !last) return null;
      return (await cursorCodec(db)).encode(list, { at: last.at.getTime(), id: last.id });
    },
    rows,
  };
}
