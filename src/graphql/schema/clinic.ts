// Clinics and their root fields.
import { clinicWhere } from '../../auth/api-keys.js';
import { checkPaging, isUuid } from '../../domain/parameters.js';
import { lazy } from '../../interactions/read-page.js';
import {
  builder,
  COST_COUNTED_BY_PARENT,
  checked,
  checkedPaging,
  costByLimit,
  keyScoped,
  PAGING_NAMES,
  PageInfo,
  type PageInfoShape,
  pagingArgs,
} from '../builder.js';
import { Campaign } from './campaign.js';
import { CampaignStatusEnum } from './enums.js';
import { Interaction, interactionFilterArgs } from './interaction.js';
import { interactionsOf } from './nested-interactions.js';
import { ORDER_CAMPAIGNS } from './order.js';

const ClinicEnvironmentEnum = builder.enumType('ClinicEnvironment', {
  description: 'Which API keys see a clinic and its data.',
  values: {
    LIVE: { value: 'live', description: 'Production data: seen by `svc_live_` keys only.' },
    SANDBOX: { value: 'sandbox', description: 'Testing data (the embedded demo data, `seed`): seen by `svc_test_` keys only.' },
  } as const,
});

export const Clinic = builder.prismaObject('Clinic', {
  description: 'A clinic whose patients are contacted.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Clinic UUID.' }),
    name: t.exposeString('name', { description: 'Name of the clinic.' }),
    address: t.exposeString('address', { description: 'Postal address.' }),
    phone: t.exposeString('phone', { description: 'Phone number of the clinic.' }),
    email: t.exposeString('email', { description: 'Contact e-mail address.' }),
    timezone: t.exposeString('timezone', { description: 'IANA time zone name, e.g. `Europe/Madrid`.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the clinic was created.' }),
    environment: t.expose('environment', {
      type: ClinicEnvironmentEnum,
      description: "The clinic's environment: always the key's own (`LIVE` for `svc_live_` keys, `SANDBOX` for `svc_test_` keys), since no key sees another's.",
    }),
    // A field with a selection rather than `t.relation`: the relation's `query` runs while the
    // parent's query is built, so a bad `limit` thrown there would null the clinic (or the whole
    // clinics page) instead of this field. Here it is checked in the field's own resolver.
    campaigns: t.field({
      // A list of its own per clinic: read with the page of clinics by Prisma, or after the clinics of a
      // level read another way (a breakdown's groups), for all of them at once.
      databaseCost: { readsDatabase: true, units: 1 },
      complexity: costByLimit,
      type: [Campaign],
      nullable: true,
      description: "The clinic's campaigns, newest first (needs scope `campaigns:read`).",
      authScopes: { 'campaigns:read': true },
      args: {
        status: t.arg({ type: CampaignStatusEnum, description: 'Only campaigns in this status.' }),
        limit: t.arg.int({ description: 'At most this many, 1 to 500. Default 25.' }),
      },
      select: (args, _context, nestedSelection) => ({
        campaigns: nestedSelection({
          where: args.status ? { status: args.status } : {},
          orderBy: ORDER_CAMPAIGNS,
          take: validLimit(args.limit),
        }),
      }),
      resolve: (clinic, args, context) => {
        checkedPaging({ limit: args.limit }, context);
        return clinic.campaigns;
      },
    }),
    interactions: t.field({
      // One LATERAL statement for every clinic of the level with these arguments (nested-interactions.ts).
      databaseCost: { readsDatabase: true, units: 1 },
      complexity: costByLimit,
      type: [Interaction],
      nullable: true,
      description: "The clinic's interactions, newest first (needs scope `interactions:read`). For totals, use the root `interactions(clinicId:)`.",
      authScopes: { 'interactions:read': true },
      args: { ...pagingArgs, ...interactionFilterArgs },
      resolve: (clinic, args, context) => interactionsOf('clinic', clinic.id, args, context),
    }),
  }),
});

/** The limit to load with; an invalid one is reported by the field's resolver, so any valid value will do here. */
function validLimit(limit: number | null | undefined): number {
  const problems = {};
  const paging = checkPaging({ limit }, PAGING_NAMES, problems);
  return Object.keys(problems).length ? 1 : paging.limit;
}

interface ClinicPageShape {
  where: ReturnType<typeof clinicWhere>;
  skip: number;
  take: number;
  pageInfo: PageInfoShape;
}

const ClinicPage = builder.objectRef<ClinicPageShape>('ClinicPage').implement({
  description: 'A page of clinics, by name (then id).',
  fields: (t) => ({
    nodes: t.prismaField({
      databaseCost: { readsDatabase: true, countedBy: 'parent' },
      complexity: COST_COUNTED_BY_PARENT,
      type: ['Clinic'],
      description: 'The clinics on this page.',
      resolve: (query, page, _args, { db }) =>
        db.clinic.findMany({ ...query, where: page.where, orderBy: [{ name: 'asc' }, { id: 'asc' }], skip: page.skip, take: page.take }),
    }),
    pageInfo: t.field({ databaseCost: { readsDatabase: false }, type: PageInfo, description: 'Paging information.', resolve: (page) => page.pageInfo }),
  }),
});

builder.queryFields((t) => ({
  clinics: t.field({
    databaseCost: { readsDatabase: true, units: 1, perSecond: 20 },
    complexity: costByLimit,
    type: ClinicPage,
    nullable: true,
    description: 'The clinics this API key may see, by name. Needs scope `clinics:read`.',
    authScopes: { 'clinics:read': true },
    args: pagingArgs,
    resolve: (_root, args, { db, visibleClinics, parameters }) => {
      const { page, limit } = checkedPaging(args, { parameters });
      const where = clinicWhere(visibleClinics);
      return { where, skip: (page - 1) * limit, take: limit, pageInfo: { page, limit, total: lazy(() => db.clinic.count({ where })) } };
    },
  }),
  clinic: t.prismaField({
    databaseCost: { readsDatabase: true, units: 1, perSecond: 50 },
    type: 'Clinic',
    nullable: true,
    description: 'One clinic; null when it does not exist or the key may not see it. Needs scope `clinics:read`.',
    authScopes: { 'clinics:read': true },
    args: { id: t.arg.id({ required: true, description: 'Clinic UUID.' }) },
    resolve: (query, _root, args, { db, visibleClinics, parameters }) => {
      const id = String(args.id);
      checked({ parameters }, { id }, (raw, _names, problems) => {
        if (!isUuid(raw.id)) problems.id = 'must be a UUID';
      });
      if (visibleClinics !== null && !visibleClinics.includes(id.toLowerCase())) return null;
      return db.clinic.findUnique({ ...query, where: { id: id.toLowerCase() } });
    },
  }),
}));

builder.prismaObjectField(Interaction, 'clinic', (t) =>
  t.field({
    type: Clinic,
    databaseCost: { readsDatabase: true, countedBy: 'parent' },
    nullable: true,
    description: 'The clinic (needs scope `clinics:read`).',
    resolve: keyScoped('clinics:read', (row, context) => context.entities.clinicOf(row.clinicId)),
  }),
);
