// Cursor paging of interactions and the change feed: `interactionsConnection`, the GraphQL side of
// REST's `cursor` and `updated_since` (the facade runs this field for them). Cursors are the
// REST cursors: a cursor from one works in the other.

import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../domain/values.js';
import { checkCursorList, requirePhiScope } from '../../filters/interaction-filters.js';
import { CursorError, cursorCodec, type Position } from '../../interactions/cursor.js';
import { type CursorPage, listInteractionsAfter } from '../../interactions/cursor-page.js';
import { builder, COST_COUNTED_BY_PARENT, checked, rejected } from '../builder.js';
import { SortOrderEnum } from './enums.js';
import { Interaction, rootListArgs, rowsRead, searchedRows, sentFilters } from './interaction.js';

/** What a cursor page's position needs (the tombstones' pages have it too: deleted-interactions.ts). */
export type CursorPosition = Pick<CursorPage, 'limit' | 'total' | 'hasMore' | 'nextCursor'>;

export const CursorPageInfo = builder.objectRef<CursorPosition>('CursorPageInfo').implement({
  description: 'Where a cursor page stands (the REST `meta` of a cursor list).',
  fields: (t) => ({
    limit: t.exposeInt('limit', { description: 'Items per page in use.' }),
    total: t.int({
      databaseCost: { readsDatabase: true, countedBy: 'parent' },
      nullable: true,
      description: 'Total items matching the filters (the whole list, not what is left); null when `includeTotal` is false.',
      resolve: (page) => page.total(),
    }),
    hasMore: t.boolean({
      databaseCost: { readsDatabase: true, countedBy: 'parent' },
      description: 'True when more items follow this page (exact, never counted).',
      resolve: (page) => page.hasMore(),
    }),
    nextCursor: t.string({
      databaseCost: { readsDatabase: true, countedBy: 'parent' },
      nullable: true,
      description: "Pass as `after` to read the next page; null on the last page. Opaque; valid only with this list's filters and order.",
      resolve: (page) => page.nextCursor(),
    }),
  }),
});

const InteractionConnection = builder.objectRef<CursorPage>('InteractionConnection').implement({
  description: 'A page of interactions read after a cursor.',
  fields: (t) => ({
    nodes: t.field({
      databaseCost: { readsDatabase: true, countedBy: 'parent' },
      complexity: COST_COUNTED_BY_PARENT,
      type: [Interaction],
      description: 'The interactions of this page, in the list order.',
      resolve: (page, _args, _context, info) => searchedRows(page.rows(rowsRead(info)), page.text),
    }),
    pageInfo: t.field({
      databaseCost: { readsDatabase: false },
      type: CursorPageInfo,
      description: 'The next cursor and whether more follow.',
      resolve: (page) => page,
    }),
  }),
});

builder.queryFields((t) => ({
  interactionsConnection: t.field({
    databaseCost: { readsDatabase: true, units: 1, perSecond: 20 },
    complexity: (args) => ({ field: 1, multiplier: Math.min(Math.max(args.first ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE) }),
    type: InteractionConnection,
    nullable: true,
    description:
      'Interactions matching every given filter, read by cursor: a row inserted between two pages is neither skipped nor repeated, and a deep page costs what the first does. Start without `after` (or with an empty one), then pass `pageInfo.nextCursor` until it is null. With `updatedSince`, the change feed: the interactions stored or changed since then, ordered by `updatedAt` then `id`, for clients that mirror the data. Needs scope `interactions:read`.',
    authScopes: { 'interactions:read': true },
    args: {
      first: t.arg.int({ description: 'Items per page, 1 to 500. Default 25.' }),
      after: t.arg.string({ description: 'The next cursor of the previous page; absent or empty for the first page.' }),
      order: t.arg({
        type: SortOrderEnum,
        description: 'Newest first (`DESC`, the default) or oldest first (`ASC`). Not with the change feed, which has its own order.',
      }),
      includeTotal: t.arg.boolean({ description: 'False: `total` is null and nothing is counted. Default true.' }),
      updatedSince: t.arg.string({
        description:
          'The change feed: interactions stored or last changed at or after this instant (ISO 8601 with Z or an offset; a date means the start of that UTC day), ordered by that time, then id, ascending. Resume a later sync from the largest such time seen (rows at exactly that instant come again: upsert by id).',
      }),
      ...rootListArgs,
    },
    resolve: async (_root, args, context) => {
      requirePhiScope(context, args);
      const list = checked(context, sentFilters(args), checkCursorList);
      const order = list.updatedSince ? 'feed' : list.order;
      let after: Position | null = null;
      if (list.after) {
        const codec = await cursorCodec(context.db);
        try {
          after = codec.decode(list.after, { filters: list.filters, order, updatedSince: list.updatedSince });
        } catch (error) {
          if (error instanceof CursorError) throw rejected(context, (names) => ({ [names.after]: error.message }));
          throw error;
        }
      }
      return listInteractionsAfter(context.db, {
        filters: list.filters,
        visibleClinics: context.visibleClinics,
        order,
        updatedSince: list.updatedSince,
        after,
        limit: list.limit,
        includeTotal: list.includeTotal,
      });
    },
  }),
}));
