// The filters of an interaction list compiled to a query, once for each dialect the read path
// speaks: a Prisma `where` (pages that read relations through Prisma) and SQL conditions on the
// columns of `interactions` (every hand-written statement). The columns the rollup tables share
// (clinic, channel, type, outcome) are compiled by the rollups' own `dimensionConditions`, so a
// count from the rollups and a page from the raw table cannot disagree on what they select.
import { clinicCondition, clinicScope, type VisibleClinics } from '../auth/clinic-scope.js';
import { Prisma } from '../generated/prisma/client.js';
import { type ClinicScope, type Dimensions, dimensionConditions, rawRangeConditions } from '../rollups/counted.js';
import type { Filters } from './filters.js';
import { textCondition } from './text-search.js';

/**
 * The filters that are columns of the rollup tables (with the window on `started_at`): a list
 * filtered by these alone is counted from the rollups (count.ts) and its deep pages skip whole days
 * (deep-page.ts). A filter not listed here is counted from the raw table.
 */
const ROLLUP_FILTERS: ReadonlySet<keyof Filters> = new Set(['from', 'to', 'clinicId', 'campaignId', 'channel', 'type', 'outcomes']);

/** Whether every filter given is a rollup dimension (or the window). */
export function countableByRollups(filters: Filters): boolean {
  return (Object.keys(filters) as Array<keyof Filters>).every((name) => filters[name] === undefined || ROLLUP_FILTERS.has(name));
}

/** The rollup dimensions of the filters with the key's clinic restriction folded in. */
export function dimensionsOf(filters: Filters, visible: VisibleClinics): Dimensions & { clinicIds: ClinicScope } {
  return {
    clinicIds: clinicScope(visible, filters.clinicId),
    campaignId: filters.campaignId,
    channel: filters.channel,
    type: filters.type,
    outcomes: filters.outcomes,
  };
}

/**
 * `search` is a plain substring: LIKE's wildcards `%`, `_` and its escape character are escaped,
 * for Prisma's `contains` (which passes them through) and for the SQL alike.
 */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** SQL conditions on the columns of `interactions` (unqualified, so any alias of the table reads them). */
export function interactionConditions(filters: Filters, visible: VisibleClinics): Prisma.Sql[] {
  return [
    ...dimensionConditions(dimensionsOf(filters, visible)),
    ...rawRangeConditions({ from: filters.from, to: filters.to }),
    ...(filters.search === undefined ? [] : [Prisma.sql`phone_number ILIKE ${`%${escapeLike(filters.search)}%`}`]),
    ...(filters.text === undefined ? [] : [textCondition(filters.text)]),
  ];
}

/**
 * The same selection as a Prisma `where`. Not for a full-text search (`text`), which Prisma cannot
 * express: its lists and counts are read in SQL (read-page.ts, count.ts).
 */
export function interactionWhere(filters: Filters, visible: VisibleClinics): Prisma.InteractionWhereInput {
  if (filters.text !== undefined) throw new Error('interactionWhere: a full-text search is read in SQL (text-search.ts)');
  return {
    ...clinicCondition(visible, filters.clinicId),
    ...(filters.from || filters.to ? { startedAt: { ...(filters.from ? { gte: filters.from } : {}), ...(filters.to ? { lte: filters.to } : {}) } } : {}),
    ...(filters.campaignId ? { campaignId: filters.campaignId } : {}),
    ...(filters.channel ? { channel: filters.channel } : {}),
    ...(filters.type ? { type: filters.type } : {}),
    ...(filters.outcomes ? { outcome: { in: filters.outcomes } } : {}),
    ...(filters.search ? { phoneNumber: { contains: escapeLike(filters.search), mode: 'insensitive' as const } } : {}),
  };
}
