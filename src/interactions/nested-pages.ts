// Batched loading of the interaction lists under clinics and campaigns.
// Prisma's nested `take` does not bound each parent's rows in SQL, and at millions of interactions
// that matters; one LATERAL query per batch of parents reads at most `limit` rows per parent
// from the (clinic_id|campaign_id, started_at DESC, id DESC) indexes.
import DataLoader from 'dataloader';
import type { VisibleClinics } from '../auth/api-keys.js';
import type { Db } from '../db/client.js';
import { queryRows } from '../db/client.js';
import type { Filters } from '../filters/interaction-filters.js';
import { textCondition } from '../filters/text-filter.js';
import { type Interaction, Prisma } from '../generated/prisma/client.js';
import { textPlanOf } from './read-page.js';
import { INTERACTION_COLUMNS, interactionConditions } from './rows.js';
import { fewTextMatchIds } from './text-search.js';

export interface ChildPage {
  filters: Filters;
  page: number;
  limit: number;
}

/**
 * One request's loaders of nested lists, by parent kind and arguments: one per distinct argument
 * set, so sibling fields with the same arguments share a batch. Empty until a nested list asks.
 */
export type NestedLists = Map<string, DataLoader<string, Interaction[]>>;

function childLoader(db: Db, visible: VisibleClinics, parentColumn: 'clinic_id' | 'campaign_id', { filters, page, limit }: ChildPage) {
  return new DataLoader<string, Interaction[]>(async (parentIds) => {
    const { text, ...others } = filters;
    // A full-text search is counted first (read-page.ts): none match, nothing is read; few, they are
    // looked up by id; many, each parent's rows are walked in list order and checked.
    const plan = text === undefined ? undefined : await textPlanOf(db, { ...others, text }, visible, (page - 1) * limit, limit);
    if (plan?.matches === 0) return parentIds.map(() => []);
    const textConditions = plan ? [plan.few ? await fewTextMatchIds(db, plan.scope, 'i') : textCondition(plan.scope.text, 'i')] : [];
    const conditions = [...interactionConditions(others, visible, 'i'), ...textConditions];
    const parentType = parentColumn === 'clinic_id' ? Prisma.sql`uuid` : Prisma.sql`text`;
    const rows = await queryRows<Interaction & { parentId: string }>(
      db,
      Prisma.sql`
      SELECT p.id::text AS "parentId", ${INTERACTION_COLUMNS}
      FROM unnest(${[...parentIds]}::${parentType}[]) AS p(id)
      CROSS JOIN LATERAL (
        SELECT * FROM interactions i
        WHERE i.${Prisma.raw(parentColumn)} = p.id ${conditions.length ? Prisma.sql`AND ${Prisma.join(conditions, ' AND ')}` : Prisma.empty}
        ORDER BY i.started_at DESC, i.id DESC
        LIMIT ${limit} OFFSET ${(page - 1) * limit}
      ) i
      ORDER BY p.id, i.started_at DESC, i.id DESC`,
    );
    const byParent = new Map<string, Interaction[]>();
    for (const { parentId, ...interaction } of rows) {
      const list = byParent.get(parentId) ?? [];
      list.push(interaction as Interaction);
      byParent.set(parentId, list);
    }
    return parentIds.map((id) => byParent.get(id) ?? []);
  });
}

/**
 * The loader of the interactions under clinics (or campaigns) with these arguments, for one request:
 * made when a nested list first asks for it, and kept in the request's `nestedLists`.
 */
export function nestedListLoader(
  request: { db: Db; visibleClinics: VisibleClinics; nestedLists: NestedLists },
  parent: 'clinic' | 'campaign',
  page: ChildPage,
): DataLoader<string, Interaction[]> {
  const kind = parent === 'clinic' ? 'clinic_id' : 'campaign_id';
  const key = `${kind}:${JSON.stringify(page)}`;
  let loader = request.nestedLists.get(key);
  if (!loader) {
    loader = childLoader(request.db, request.visibleClinics, kind, page);
    request.nestedLists.set(key, loader);
  }
  return loader;
}
