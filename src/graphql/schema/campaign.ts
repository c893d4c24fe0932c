// Campaigns and their root fields.
import { campaignWhere, clinicCondition } from '../../auth/api-keys.js';
import { checkPaging, hasControlCharacter, isUuid } from '../../domain/parameters.js';
import { CAMPAIGN_STATUSES } from '../../domain/values.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { lazy } from '../../interactions/read-page.js';
import { builder, COST_COUNTED_BY_PARENT, checked, costByLimit, keyScoped, PageInfo, type PageInfoShape, pagingArgs } from '../builder.js';
import { CampaignChannelEnum, CampaignStatusEnum, CampaignTypeEnum } from './enums.js';
import { Interaction, interactionFilterArgs } from './interaction.js';
import { interactionsOf } from './nested-interactions.js';
import { ORDER_CAMPAIGNS } from './order.js';

export const Campaign = builder.prismaObject('Campaign', {
  description: 'An outreach campaign of a clinic.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Unique campaign id.' }),
    name: t.exposeString('name', { description: 'Name of the campaign.' }),
    description: t.exposeString('description', { description: 'What the campaign does.' }),
    type: t.expose('type', { type: CampaignTypeEnum, description: 'Purpose of the campaign.' }),
    channel: t.expose('channel', { type: CampaignChannelEnum, description: 'Channel(s) it uses.' }),
    status: t.expose('status', { type: CampaignStatusEnum, description: 'Lifecycle state.' }),
    clinicId: t.exposeID('clinicId', { description: 'UUID of the clinic.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the campaign was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed.' }),
    settings: t.expose('settings', { type: 'JSON', description: 'Type-dependent configuration (e.g. `max_attempts`, `call_window_start`).' }),
    clinic: t.relation('clinic', {
      databaseCost: { readsDatabase: true, countedBy: 'parent' },
      nullable: true,
      description: 'The clinic running the campaign (needs scope `clinics:read`).',
      authScopes: { 'clinics:read': true },
    }),
    interactions: t.field({
      // One LATERAL statement for every campaign of the level with these arguments (nested-interactions.ts).
      databaseCost: { readsDatabase: true, units: 1 },
      complexity: costByLimit,
      type: [Interaction],
      nullable: true,
      description: "The campaign's interactions, newest first (needs scope `interactions:read`).",
      authScopes: { 'interactions:read': true },
      args: { ...pagingArgs, ...interactionFilterArgs },
      resolve: (campaign, args, context) => interactionsOf('campaign', campaign.id, args, context),
    }),
  }),
});

interface CampaignPageShape {
  where: Prisma.CampaignWhereInput;
  skip: number;
  take: number;
  pageInfo: PageInfoShape;
}

const CampaignPage = builder.objectRef<CampaignPageShape>('CampaignPage').implement({
  description: 'A page of campaigns, newest first (`createdAt` descending, then `id` descending).',
  fields: (t) => ({
    nodes: t.prismaField({
      databaseCost: { readsDatabase: true, countedBy: 'parent' },
      complexity: COST_COUNTED_BY_PARENT,
      type: ['Campaign'],
      description: 'The campaigns on this page.',
      resolve: (query, page, _args, { db }) =>
        db.campaign.findMany({ ...query, where: page.where, orderBy: ORDER_CAMPAIGNS, skip: page.skip, take: page.take }),
    }),
    pageInfo: t.field({ databaseCost: { readsDatabase: false }, type: PageInfo, description: 'Paging information.', resolve: (page) => page.pageInfo }),
  }),
});

builder.queryFields((t) => ({
  campaigns: t.field({
    databaseCost: { readsDatabase: true, units: 1, perSecond: 20 },
    complexity: costByLimit,
    type: CampaignPage,
    nullable: true,
    description: 'Campaigns of the clinics this key may see, newest first. Needs scope `campaigns:read`.',
    authScopes: { 'campaigns:read': true },
    args: {
      ...pagingArgs,
      clinicId: t.arg.id({ description: 'Only this clinic (UUID).' }),
      status: t.arg({ type: CampaignStatusEnum, description: 'Only campaigns in this status.' }),
    },
    resolve: (_root, args, { db, visibleClinics, parameters }) => {
      const clinicId = args.clinicId == null ? undefined : String(args.clinicId);
      // One check for every argument, so that one VALIDATION_ERROR names all the bad ones.
      const { page, limit } = checked({ parameters }, { ...args, clinicId }, (raw, names, problems) => {
        const paging = checkPaging(raw, names, problems);
        if (raw.clinicId !== undefined && !isUuid(raw.clinicId)) problems[names.clinicId] = 'must be a UUID';
        // (GraphQL's enum admits only these; a REST caller's text arrives as sent: context.ts.)
        if (raw.status != null && !(CAMPAIGN_STATUSES as readonly string[]).includes(raw.status)) {
          problems[names.status] = `must be one of: ${CAMPAIGN_STATUSES.join(', ')}`;
        }
        return paging;
      });
      const where = campaignWhere({ clinicId: clinicId?.toLowerCase(), status: args.status ?? undefined }, visibleClinics);
      return { where, skip: (page - 1) * limit, take: limit, pageInfo: { page, limit, total: lazy(() => db.campaign.count({ where })) } };
    },
  }),
  campaign: t.prismaField({
    databaseCost: { readsDatabase: true, units: 1, perSecond: 50 },
    type: 'Campaign',
    nullable: true,
    description: 'One campaign; null when it does not exist or the key may not see its clinic. Needs scope `campaigns:read`.',
    authScopes: { 'campaigns:read': true },
    args: { id: t.arg.id({ required: true, description: 'The campaign id.' }) },
    resolve: (query, _root, args, context) => {
      checked(context, args, () => undefined);
      const id = String(args.id);
      return hasControlCharacter(id) ? null : context.db.campaign.findFirst({ ...query, where: { id, ...clinicCondition(context.visibleClinics) } });
    },
  }),
}));

builder.prismaObjectField(Interaction, 'campaign', (t) =>
  t.field({
    type: Campaign,
    databaseCost: { readsDatabase: true, countedBy: 'parent' },
    nullable: true,
    description: 'The campaign, if any (needs scope `campaigns:read`).',
    resolve: keyScoped('campaigns:read', (row, context) => (row.campaignId === null ? null : context.entities.campaignOf(row.campaignId))),
  }),
);
