// Interactions: calls and WhatsApp conversations, their root fields and filters.

import { countInteractions } from '../../analytics/count.js';
import { checkFilters, checkPaging, type Filters, GRAPHQL_NAMES, hasControlCharacter, type Paging } from '../../filters/parameters.js';
import { clinicCondition, interactionWhere, type VisibleClinics } from '../../filters/visibility.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { phoneSearchPaging, phoneSearchRows } from '../../interactions/phone-search.js'; // phone-search: wiring
import { builder } from '../builder.js';
import { DAY_SKIPPING_FROM, deepPageIds } from '../deep-page.js';
import { checked } from '../errors.js';
import { type InteractionRow, pageRows, plainSelection, rowsById } from '../interaction-rows.js';
import { interactionConditions } from '../loaders.js';
import { type MatchesPage, matchesPage } from '../matches-page.js';
import { ChannelEnum, DirectionEnum, InteractionTypeEnum, OutcomeEnum } from './enums.js';
import { COST_COUNTED_BY_PARENT, costByLimit, lazy, PAGING_NAMES, PageInfo, type PageInfoShape, pagingArgs } from './paging.js';

/**
 * A transcript is read whole with its interaction, but its response holds every turn (about ten):
 * priced as a list, so that the cost limit bounds the response too (at one unit, a query could
 * ask for 7,500 transcripts, 14 MB that held the event loop for seconds).
 */
const TRANSCRIPT_COST = { field: 1, multiplier: 10 };

export const ORDER_INTERACTIONS: Prisma.InteractionOrderByWithRelationInput[] = [{ startedAt: 'desc' }, { id: 'desc' }];

/** From this offset on, a page's ids are found first and its rows read by id (see `nodes`). */
const DEFERRED_JOIN_FROM = 1_000;

interface TranscriptEntryShape {
  role: string;
  content: string;
}

const TranscriptEntry = builder.objectRef<TranscriptEntryShape>('TranscriptEntry').implement({
  description: 'One turn of a conversation transcript.',
  fields: (t) => ({
    role: t.exposeString('role', { description: 'Who spoke: `assistant` (the automated agent) or `user` (the patient).' }),
    content: t.exposeString('content', { description: 'What was said.' }),
  }),
});

export const Interaction = builder.prismaObject('Interaction', {
  description: 'One voice call or WhatsApp conversation with a patient.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Unique interaction id.' }),
    channel: t.expose('channel', { type: ChannelEnum, description: 'Voice call or WhatsApp conversation.' }),
    type: t.expose('type', { type: InteractionTypeEnum, description: 'Interaction type; valid values depend on the channel.' }),
    direction: t.expose('direction', { type: DirectionEnum, description: 'Inbound (from the patient) or outbound (from the clinic).' }),
    phoneNumber: t.exposeString('phoneNumber', { description: "The patient's phone number." }),
    clinicId: t.exposeID('clinicId', { description: 'UUID of the clinic.' }),
    campaignId: t.exposeID('campaignId', { nullable: true, description: 'Id of the campaign that caused the interaction, if any.' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', description: 'When it started.' }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true, description: 'When it ended.' }),
    durationSeconds: t.exposeInt('durationSeconds', { nullable: true, description: 'Call duration in seconds; null for WhatsApp conversations.' }),
    outcome: t.exposeString('outcome', {
      nullable: true,
      description: 'UPPERCASE outcome, usually one of the `Outcome` enum values (stored as text: other values can occur).',
    }),
    summary: t.exposeString('summary', { nullable: true, description: 'AI-generated summary.' }),
    recordingUrl: t.exposeString('recordingUrl', { nullable: true, description: 'Call recording; null for WhatsApp conversations.' }),
    transcript: t.field({
      complexity: TRANSCRIPT_COST,
      type: [TranscriptEntry],
      nullable: true,
      description: 'The conversation transcript, in order; null when none was recorded.',
      select: { transcript: { select: { entries: true } } },
      resolve: (interaction) => (interaction.transcript?.entries as TranscriptEntryShape[] | undefined) ?? null,
    }),
    clinic: t.relation('clinic', {
      nullable: true,
      description: 'The clinic (needs scope `clinics:read`).',
      authScopes: { 'clinics:read': true },
    }),
    campaign: t.relation('campaign', {
      nullable: true,
      description: 'The campaign, if any (needs scope `campaigns:read`).',
      authScopes: { 'campaigns:read': true },
    }),
  }),
});

/** Filter arguments of interaction lists (root and nested), mirroring the REST parameters. */
export const interactionFilterArgs = builder.args((t) => ({
  dateFrom: t.string({ description: 'Start of the window on `startedAt`: `YYYY-MM-DD` (start of that UTC day) or an ISO 8601 date-time.' }),
  dateTo: t.string({ description: 'End of the window on `startedAt`, inclusive: `YYYY-MM-DD` (end of that UTC day) or an ISO 8601 date-time.' }),
  channel: t.field({ type: ChannelEnum, description: 'Only this channel.' }),
  type: t.field({ type: InteractionTypeEnum, description: 'Only this type; must be valid for `channel` when both are given.' }),
  outcomes: t.field({ type: [OutcomeEnum], description: 'Only these outcomes (any of them).' }),
  search: t.string({ description: 'Case-insensitive substring of the phone number.' }),
}));

type FilterArgs = {
  dateFrom?: string | null;
  dateTo?: string | null;
  channel?: string | null;
  type?: string | null;
  outcomes?: readonly string[] | null;
  search?: string | null;
  clinicId?: string | null;
};

/** Paging and filters checked together, so that one VALIDATION_ERROR names every bad argument. */
export function checkedPageAndFilters(args: FilterArgs & { page?: number | null; limit?: number | null }): Paging & { filters: Filters } {
  return checked((problems) => ({ ...checkPaging(args, PAGING_NAMES, problems), filters: checkFilters(args, GRAPHQL_NAMES, problems) }));
}

interface InteractionPageShape {
  filters: Filters;
  visibleClinics: VisibleClinics;
  skip: number;
  take: number;
  pageInfo: PageInfoShape;
  /** The page's ids when known without walking the (started_at, id) order (matches-page.ts, or none left), else null. */
  matches?: () => Promise<MatchesPage | null>;
}

const InteractionPage = builder.objectRef<InteractionPageShape>('InteractionPage').implement({
  description: 'A page of interactions, newest first (`startedAt` descending, then `id` descending).',
  fields: (t) => ({
    nodes: t.prismaField({
      complexity: COST_COUNTED_BY_PARENT,
      type: ['Interaction'],
      description: 'The interactions on this page.',
      resolve: async (query, page, _args, { db }): Promise<InteractionRow[]> => {
        // The interaction's own columns and transcripts (every REST list) in hand-written SQL;
        // anything with relations through Prisma (interaction-rows.ts says why).
        const plain = plainSelection(query);
        // (Between finding a page's ids and reading its rows a row may be deleted: the page is then
        // one row short, as it would be a moment later anyway.)
        const rowsOf = async (ids: string[]) => {
          if (plain) return rowsById(db, ids, plain.transcript);
          // Built also for an empty page: reading `query` tells Pothos the selection was honoured
          // (outside production it warns about every resolver that leaves it unread).
          const args = { ...query, where: { id: { in: ids } }, orderBy: ORDER_INTERACTIONS };
          return ids.length === 0 ? [] : db.interaction.findMany(args);
        };
        const found = await page.matches?.();
        const searched = phoneSearchRows(found, plain); // phone-search: the page's rows came with the search's total
        if (searched) return searched; // phone-search
        if (found) return rowsOf(found.ids);
        const { filters, visibleClinics, skip, take } = page;
        if (skip < DEFERRED_JOIN_FROM && plain) return pageRows(db, interactionConditions(filters, visibleClinics), skip, take, plain.transcript);
        const paged = { where: interactionWhere(filters, visibleClinics), orderBy: ORDER_INTERACTIONS, skip, take };
        if (skip < DEFERRED_JOIN_FROM) return db.interaction.findMany({ ...query, ...paged });
        // A deep page: PostgreSQL reads and discards `skip` rows before the page. Selecting whole
        // rows makes each of those a heap fetch; selecting only the ids lets it walk the
        // (started_at, id) index alone (an index-only scan when unfiltered). The page's rows are
        // then read by id. Deeper still, whole days are skipped by their counts (deep-page.ts).
        const skipped = skip >= DAY_SKIPPING_FROM ? await deepPageIds(db, filters, visibleClinics, skip, take) : null;
        if (skipped) return rowsOf(skipped);
        const ids = await db.interaction.findMany({ ...paged, select: { id: true } });
        return rowsOf(ids.map((row) => row.id));
      },
    }),
    pageInfo: t.field({ type: PageInfo, description: 'Paging information.', resolve: (page) => page.pageInfo }),
  }),
});

builder.queryFields((t) => ({
  interactions: t.field({
    complexity: costByLimit,
    type: InteractionPage,
    nullable: true,
    description: 'Interactions matching every given filter, newest first. Needs scope `interactions:read`.',
    authScopes: { 'interactions:read': true },
    args: {
      ...pagingArgs,
      ...interactionFilterArgs,
      clinicId: t.arg.id({ description: 'Only this clinic (UUID).' }),
    },
    resolve: (_root, args, { db, visibleClinics }) => {
      const { page, limit, filters } = checkedPageAndFilters({ ...args, clinicId: args.clinicId?.toString() });
      const skip = (page - 1) * limit;
      const paging = { skip, take: limit };
      let matches: (() => Promise<MatchesPage | null>) | undefined;
      let total: () => Promise<number>;
      if (filters.search !== undefined) {
        // phone-search: restricted by clinics alone, total and page source come from phone-search.ts.
        const byPhone = phoneSearchPaging(db, filters, visibleClinics, paging);
        // Shared by `nodes` and `pageInfo`: one statement for both, when the matches are few enough.
        matches = byPhone?.matches ?? lazy(() => matchesPage(db, filters, visibleClinics, paging)); // phone-search: byPhone?.matches ??
        total = byPhone?.total ?? lazy(async () => (await matches?.())?.total ?? countInteractions(db, filters, visibleClinics)); // phone-search: byPhone?.total ??
      } else {
        // Exact: from the rollups for full days (metrics/count.ts).
        const counted = lazy(() => countInteractions(db, filters, visibleClinics));
        total = counted;
        // Counted first (from the rollups) when the page could be empty at a high price: a filter on
        // channel, type or outcome has no index in (started_at, id) order, so a combination that
        // nothing matches would be walked through the whole table (seconds at 10,000,000 rows);
        // past page 1, a page after the last would be walked through every match to find none left.
        if (filters.channel !== undefined || filters.type !== undefined || filters.outcomes !== undefined || skip > 0) {
          matches = lazy(async () => {
            const n = await counted();
            return skip >= n ? { ids: [], total: n } : null;
          });
        }
      }
      return {
        filters,
        visibleClinics,
        skip,
        take: limit,
        matches,
        pageInfo: { page, limit, total },
      };
    },
  }),
  interaction: t.prismaField({
    type: 'Interaction',
    nullable: true,
    description: 'One interaction with its transcript; null when it does not exist or the key may not see its clinic. Needs scope `interactions:read`.',
    authScopes: { 'interactions:read': true },
    args: { id: t.arg.id({ required: true, description: 'The interaction id.' }) },
    resolve: (query, _root, args, { db, visibleClinics }) =>
      hasControlCharacter(String(args.id)) ? null : db.interaction.findFirst({ ...query, where: { id: String(args.id), ...clinicCondition(visibleClinics) } }),
  }),
}));
