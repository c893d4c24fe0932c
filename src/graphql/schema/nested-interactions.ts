// The `interactions` field of clinics and campaigns: a bounded, batched list per parent.
import type { Interaction as InteractionRow } from '../../generated/prisma/client.js';
import type { GraphQLContext } from '../context.js';
import type { ChildPage } from '../loaders.js';
import { checkedPageAndFilters } from './interaction.js';

export function childPage(args: {
  page?: number | null;
  limit?: number | null;
  dateFrom?: string | null;
  dateTo?: string | null;
  channel?: string | null;
  type?: string | null;
  outcomes?: readonly string[] | null;
  search?: string | null;
}): ChildPage {
  return checkedPageAndFilters(args);
}

export function interactionsOf(
  kind: 'clinic' | 'campaign',
  parentId: string,
  args: Parameters<typeof childPage>[0],
  context: GraphQLContext,
): Promise<InteractionRow[]> {
  const page = childPage(args);
  const loader = kind === 'clinic' ? context.loaders.interactionsOfClinic(page) : context.loaders.interactionsOfCampaign(page);
  return loader.load(parentId);
}
