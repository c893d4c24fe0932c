// The `interactions` field of clinics and campaigns: a bounded, batched list per parent.
import type { Interaction as InteractionRow } from '../../generated/prisma/client.js';
import { nestedListLoader } from '../../interactions/nested-pages.js';
import type { GraphQLContext } from '../builder.js';
import { checkedList, type ListArgs, searchedRows } from './interaction.js';

export function interactionsOf(
  kind: 'clinic' | 'campaign',
  parentId: string,
  args: Omit<ListArgs, 'clinicId' | 'campaignId'>,
  context: GraphQLContext,
): Promise<InteractionRow[]> {
  const page = checkedList(args, context);
  return searchedRows(nestedListLoader(context, kind, page).load(parentId), page.filters.text);
}
