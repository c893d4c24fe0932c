// List orderings of decisions section 3, stable across pages thanks to the id tie-breaker.
import type { Prisma } from '../../generated/prisma/client.js';

export const ORDER_CAMPAIGNS: Prisma.CampaignOrderByWithRelationInput[] = [{ createdAt: 'desc' }, { id: 'desc' }];
