// The `interactions` field of clinics and campaigns: a bounded, batched list per parent.
import type { Interaction as InteractionRow } from '../../generated/prisma/client.js';
import type { GraphQLContext } from '../context.js';
import { searchedRows } from '../searched-rows.js';
import { checkedList, type ListArgs } from './interaction.js';

export function interactionsOf(
  kind: 'clinic' | 'campaign',
  parentId: string,
  args: Omit<ListArgs, 'clinicId' | 'campaignId'>,
  context: GraphQLContext,
): Promise<InteractionRow[]> {
  const page = checkedList(args, context);
  const loader = kind === 'clinic' ? context.loaders.interactionsOfClinic(page) : context.loaders.interactionsOfCampaign(page);
  return searchedRows(loader.load(parentId), page.filters.text);
}
