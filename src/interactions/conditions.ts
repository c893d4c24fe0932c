// The filters of an interaction list compiled to a query, once for each dialect the read path
// speaks: a Prisma `where` (pages that read relations through Prisma) and SQL conditions on the
// columns of `interactions` (every hand-written statement, with the table's alias if it has one).
// Both come from the filters' declarations (filters/interaction-filters.ts). The filters that are
// columns of the rollup levels are compiled by the rollups' own `dimensionConditions` from the
// same declarations, so a count from the rollups and a page from the raw table cannot disagree on
// what they select.
import { clinicCondition, clinicScope, type VisibleClinics } from '../auth/clinic-visibility.js';
import { columnOf } from '../db/sql.js';
import { declarationOf, FILTER_KEYS, type Filters, ROLLUP_FILTER_KEYS } from '../filters/interaction-filters.js';
import type { Prisma } from '../generated/prisma/client.js';
import { DIMENSION_KEYS, type Dimensions, dimensionConditions, rawRangeConditions } from '../rollups/counted.js';

const ROLLUP_FILTERS: ReadonlySet<string> = new Set([...ROLLUP_FILTER_KEYS, 'from', 'to']);

/**
 * Whether every filter given is a rollup dimension (or the window): a list filtered by these alone
 * is counted from the rollups (count.ts) and its deep pages skip whole days (deep-page.ts).
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
 * search, `text`): its lists and counts are read in SQL (read-page.ts, count.ts).
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
