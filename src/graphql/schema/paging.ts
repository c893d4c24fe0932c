// Paging arguments and the PageInfo type shared by every list (the REST `meta`).
import { checkPaging, type Paging } from '../../domain/parameters.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../domain/values.js';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import { checked } from '../errors.js';

export interface PageInfoShape {
  page: number;
  limit: number;
  /** Counted only when a client asks for a total. */
  total: () => Promise<number>;
  /** Whether a page follows, when the list can tell without counting; else derived from `total`. */
  hasMore?: () => Promise<boolean>;
}

export const PageInfo = builder.objectRef<PageInfoShape>('PageInfo').implement({
  description: 'Position of a page in an ordered list (the REST `meta`).',
  fields: (t) => ({
    page: t.exposeInt('page', { description: 'Current page, 1-indexed.' }),
    limit: t.exposeInt('limit', { description: 'Items per page in use.' }),
    // The lists' totals are counted when asked for, in the unit the list declared.
    total: t.int({ databaseCost: { readsDatabase: true, countedBy: 'parent' }, description: 'Total items matching the filters.', resolve: (p) => p.total() }),
    totalPages: t.int({
      databaseCost: { readsDatabase: true, countedBy: 'parent' },
      description: 'Number of pages (0 when nothing matches).',
      resolve: async (p) => Math.ceil((await p.total()) / p.limit),
    }),
    hasMore: t.boolean({
      databaseCost: { readsDatabase: true, countedBy: 'parent' },
      description: 'True when a further page exists.',
      resolve: async (p) => (p.hasMore ? p.hasMore() : p.page < Math.ceil((await p.total()) / p.limit)),
    }),
  }),
});

export const pagingArgs = builder.args((t) => ({
  page: t.int({ description: 'Page number, 1-indexed. Default 1.' }),
  limit: t.int({ description: 'Items per page, 1 to 500. Default 25.' }),
}));

export const PAGING_NAMES = { page: 'page', limit: 'limit' } as const;

/** A list's page and limit, checked (graphql/errors.ts) as the caller named them. */
export function checkedPaging(args: { page?: number | null; limit?: number | null }, context: Pick<GraphQLContext, 'parameters'>): Paging {
  return checked(context, args, checkPaging);
}

/** Query cost of a list field: its children times the page size asked for (see builder.ts). */
export function costByLimit(args: { limit?: number | null }): { field: number; multiplier: number } {
  const limit = args.limit ?? DEFAULT_PAGE_SIZE;
  return { field: 1, multiplier: Math.min(Math.max(Number.isFinite(limit) ? limit : 1, 1), MAX_PAGE_SIZE) };
}

/** Query cost of a list whose length the parent's `limit` already counted (a page's `nodes`). */
export const COST_COUNTED_BY_PARENT = { field: 0, multiplier: 1 };
