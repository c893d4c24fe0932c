// Interactions: calls and WhatsApp conversations, their root fields and filters, and the mark a
// full-text search leaves on the rows it listed (for their highlights).

import type { ArgumentRef } from '@pothos/core';
import { type FieldNode, type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql';
import { clinicCondition, readsPhi } from '../../auth/api-keys.js';
import { hasControlCharacter } from '../../domain/parameters.js';
import {
  checkList,
  checkPageList,
  FILTER_KEYS,
  type FilterKey,
  type FilterOf,
  type FilterReader,
  filtersOf,
  INTERACTION_FILTERS,
  type RawFilters,
  requirePhiScope,
} from '../../filters/interaction-filters.js';
import { type InteractionList, listInteractions } from '../../interactions/read-page.js';
import { type RowsRead, SKIPPABLE_COLUMNS } from '../../interactions/rows.js';
import { maskPhoneNumber, redactText, redactTranscript } from '../../phi/masking.js';
import type { GraphQLContext } from '../builder.js';
import { builder, COST_COUNTED_BY_PARENT, checked, costByLimit, PageInfo, pagingArgs } from '../builder.js';
import { ChannelEnum, DirectionEnum, InteractionTypeEnum, OutcomeEnum, SortOrderEnum } from './enums.js';

/**
 * A transcript is read whole with its interaction, but its response holds every turn (about ten):
 * priced as a list, so that the cost limit bounds the response too (at one unit, a query could
 * ask for thousands of transcripts, megabytes that held the event loop for seconds).
 */
const TRANSCRIPT_COST = { field: 1, multiplier: 10 };

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
    // Patient data: masked for a key without phi:read here, where every path that exposes an
    // interaction (lists, by id, cursor pages, the change feed, nested lists, REST) resolves it.
    phoneNumber: t.string({
      description: "The patient's phone number. Without scope `phi:read`: masked (`+34 6** *** *89`).",
      resolve: (interaction, _args, context) => (readsPhi(context.key) ? interaction.phoneNumber : maskPhoneNumber(interaction.phoneNumber)),
    }),
    clinicId: t.exposeID('clinicId', { description: 'UUID of the clinic.' }),
    campaignId: t.exposeID('campaignId', { nullable: true, description: 'Id of the campaign that caused the interaction, if any.' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', description: 'When it started.' }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true, description: 'When it ended.' }),
    durationSeconds: t.exposeInt('durationSeconds', { nullable: true, description: 'Call duration in seconds; null for WhatsApp conversations.' }),
    outcome: t.exposeString('outcome', {
      nullable: true,
      description: 'UPPERCASE outcome, usually one of the `Outcome` enum values (stored as text: other values can occur).',
    }),
    summary: t.string({
      nullable: true,
      description: 'AI-generated summary. Without scope `phi:read`: phone numbers and e-mail addresses replaced by `[phone]` and `[email]`.',
      resolve: ({ summary }, _args, context) => (summary === null || readsPhi(context.key) ? summary : redactText(summary)),
    }),
    recordingUrl: t.string({
      nullable: true,
      description: 'Call recording; null for WhatsApp conversations, and without scope `phi:read`.',
      resolve: ({ recordingUrl }, _args, context) => (readsPhi(context.key) ? recordingUrl : null),
    }),
    updatedAt: t.expose('updatedAt', {
      type: 'DateTime',
      description:
        'When the interaction was stored or last changed by an import (its transcript included); an import that changes nothing leaves it alone. The order of the change feed (`interactionsConnection(updatedSince:)`).',
    }),
    transcript: t.field({
      // Read with the page's rows when the page selects it (rowsRead, below), else by id for
      // all the rows of the request at once (a nested list's).
      databaseCost: { readsDatabase: true, countedBy: 'parent' },
      complexity: TRANSCRIPT_COST,
      type: [TranscriptEntry],
      nullable: true,
      description:
        'The conversation transcript, in order; null when none was recorded. Without scope `phi:read`: phone numbers and e-mail addresses in each turn replaced by `[phone]` and `[email]`.',
      resolve: (interaction, _args, context) => {
        const shown = (transcript: { entries: unknown } | null | undefined) => {
          const entries = (transcript?.entries as TranscriptEntryShape[] | undefined) ?? null;
          return entries === null || readsPhi(context.key) ? entries : redactTranscript(entries);
        };
        const row = interaction as typeof interaction & { transcript?: { entries: unknown } | null };
        return row.transcript !== undefined ? shown(row.transcript) : context.entities.transcript.load(row.id).then(shown);
      },
    }),
    // `clinic` and `campaign` are declared with their types (clinic.ts, campaign.ts), which import this file.
  }),
});

// The GraphQL arguments of the interaction filters, derived from their declarations
// (filters/interaction-filters.ts): each read spreads the arguments of the filters it takes.

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The schema's enum of each enum a filter declares. */
const ENUMS = { Channel: ChannelEnum, InteractionType: InteractionTypeEnum, Direction: DirectionEnum, Outcome: OutcomeEnum } as const;

/** The filters declared as GraphQL IDs. */
type IdFilterKey = { [K in FilterKey]: (typeof INTERACTION_FILTERS)[K]['input'] extends { scalar: 'ID' } ? K : never }[FilterKey];

/** What Pothos gives a resolver for a filter's argument (an ID may arrive as a number). */
type ArgumentOf<K> = K extends IdFilterKey ? string | number : K extends keyof RawFilters ? NonNullable<RawFilters[K]> : never;

export type FilterArgs<R extends FilterReader> = { [K in FilterOf<R>]: ArgumentRef<Types, ArgumentOf<K> | null | undefined> };

/** The filter arguments of any read, as a resolver gets them. */
export type FilterArgValues = { [K in keyof RawFilters]?: ArgumentOf<K> | null };

/** The arguments of the filters `reader` takes, in their declared order. */
export function filterArgs<R extends FilterReader>(reader: R): FilterArgs<R> {
  return builder.args((t) =>
    Object.fromEntries(
      filtersOf(reader).map((key) => {
        const { input, description } = INTERACTION_FILTERS[key];
        if ('scalar' in input) return [key, input.scalar === 'ID' ? t.id({ description }) : t.string({ description })];
        const type = ENUMS[input.enum];
        return [key, 'list' in input ? t.field({ type: [type], description }) : t.field({ type, description })];
      }),
    ),
  ) as unknown as FilterArgs<R>;
}

/** The filters of a resolver's arguments as the checks take them: IDs as text. */
export function sentFilters<A extends { [K in keyof RawFilters]?: unknown }>(args: A): A & RawFilters {
  const sent: Record<string, unknown> = { ...args };
  for (const key of FILTER_KEYS) {
    const value = args[key];
    if (value != null && 'scalar' in INTERACTION_FILTERS[key].input && typeof value === 'number') sent[key] = String(value);
  }
  return sent as A & RawFilters;
}

/** The window of interaction lists (root and nested), on `startedAt`. */
export const listWindowArgs = builder.args((t) => ({
  dateFrom: t.string({ description: 'Start of the window on `startedAt`: `YYYY-MM-DD` (start of that UTC day) or an ISO 8601 date-time.' }),
  dateTo: t.string({ description: 'End of the window on `startedAt`, inclusive: `YYYY-MM-DD` (end of that UTC day) or an ISO 8601 date-time.' }),
}));

/** The window and filters of the lists under a clinic or campaign, mirroring the REST parameters. */
export const interactionFilterArgs = { ...listWindowArgs, ...filterArgs('nestedLists') };

/** The window and filters of the root lists (page, cursor). */
export const rootListArgs = { ...listWindowArgs, ...filterArgs('lists') };

/** An interaction list's arguments as Pothos gives them (enum arguments as their internal values). */
export type ListArgs = { page?: number | null; limit?: number | null; dateFrom?: string | null; dateTo?: string | null } & FilterArgValues;

// Which full-text search listed a row: lists searched by `text` (this page, the cursor pages, the
// nested lists) mark their rows, and `Interaction.highlights` (text-highlights.ts) reads the mark.
// Rows are objects of one request, so the map holds them weakly.

/** Row -> the text of the search that listed it. */
export const searchedBy = new WeakMap<object, string>();

/** The rows, marked as found by `text` (nothing to mark without a search). */
export async function searchedRows<T extends object>(rows: Promise<T[]>, text: string | undefined): Promise<T[]> {
  const found = await rows;
  if (text !== undefined) for (const row of found) searchedBy.set(row, text);
  return found;
}

/** The list's page and filters, checked (graphql/builder.ts) as the caller named them. */
export function checkedList(args: ListArgs, context: Pick<GraphQLContext, 'parameters' | 'key'>) {
  requirePhiScope(context, args);
  return checked(context, sentFilters(args), checkList);
}

// Transcripts are read with the rows that carry them when a list selects them: one statement for
// the page, where Pothos' per-row selection bookkeeping (a `select` on the field) cost about a tenth
// of a REST page's CPU. Rows read without them (a nested list's) are completed by id (entities).

/**
 * The fields of Interaction whose resolvers read no column of the row but their own (their name's)
 * or those every page reads (`id`, `channel`, `type`, `clinicId`, `campaignId`, `startedAt`,
 * `durationSeconds`, `outcome`). A selection of these alone lets a page skip the skippable columns
 * it does not name; any other field has every column read.
 * test/graphql/rows-read.test.ts fails on a field of Interaction that is neither here nor in
 * READS_ANY_COLUMN.
 */
export const READS_ITS_OWN_COLUMN: ReadonlySet<string> = new Set([
  '__typename',
  'id',
  'channel',
  'type',
  'direction',
  'phoneNumber',
  'clinicId',
  'campaignId',
  'startedAt',
  'endedAt',
  'durationSeconds',
  'outcome',
  'summary',
  'recordingUrl',
  'updatedAt',
  'transcript',
  'clinic',
  'campaign',
  // By the row's id (text-highlights.ts).
  'highlights',
]);
/** The fields of Interaction that may read any column of the row: with one of them selected, a page reads them all (none today). */
export const READS_ANY_COLUMN: ReadonlySet<string> = new Set([]);

/** What a field's selection reads of its rows; once per field of a document. */
const rowsReadByNode = new WeakMap<FieldNode, RowsRead>();

/**
 * What a list's rows are read with: their transcripts when the selection asks for them, and
 * without the skippable columns no selected field reads. Every field of an Interaction completes
 * from the row or reads on its own (its clinic and campaign), so the lists' `nodes` are plain
 * fields: Pothos' Prisma plugin would map the whole selection on every request to find the same.
 */
export function rowsRead(info: GraphQLResolveInfo): RowsRead {
  const node = info.fieldNodes[0];
  let read = node ? rowsReadByNode.get(node) : undefined;
  if (read === undefined) {
    const names = new Set<string>();
    for (const field of info.fieldNodes) if (field.selectionSet) collectNames(field.selectionSet, info.fragments, new Set(), names);
    const own = [...names].every((name) => READS_ITS_OWN_COLUMN.has(name));
    read = {
      transcript: names.has('transcript'),
      skipped: own ? new Set(SKIPPABLE_COLUMNS.filter((column) => !names.has(column))) : undefined,
    };
    if (node) rowsReadByNode.set(node, read);
  }
  return read;
}

/** Whether a list's rows are read with their transcripts (Query.interaction's one row). */
export function withTranscripts(info: GraphQLResolveInfo): boolean {
  return rowsRead(info).transcript;
}

/** The names of the fields a selection set selects at its own level (fragments followed). */
function collectNames(set: SelectionSetNode, fragments: GraphQLResolveInfo['fragments'], seen: Set<string>, names: Set<string>): void {
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) names.add(selection.name.value);
    else if (selection.kind === Kind.INLINE_FRAGMENT) collectNames(selection.selectionSet, fragments, seen, names);
    else {
      const fragment = fragments[selection.name.value];
      if (fragment && !seen.has(fragment.name.value)) {
        seen.add(fragment.name.value);
        collectNames(fragment.selectionSet, fragments, seen, names);
      }
    }
  }
}

export const InteractionPage = builder.objectRef<InteractionList>('InteractionPage').implement({
  description: 'A page of interactions, newest first (`startedAt` descending, then `id` descending).',
  fields: (t) => ({
    nodes: t.field({
      databaseCost: { readsDatabase: true, countedBy: 'parent' },
      complexity: COST_COUNTED_BY_PARENT,
      type: [Interaction],
      description: 'The interactions on this page.',
      resolve: (list, _args, _context, info) => searchedRows(list.rows(rowsRead(info)), list.text),
    }),
    pageInfo: t.field({ databaseCost: { readsDatabase: false }, type: PageInfo, description: 'Paging information.', resolve: (list) => list }),
  }),
});

builder.queryFields((t) => ({
  interactions: t.field({
    databaseCost: { readsDatabase: true, units: 1, perSecond: 20 },
    complexity: costByLimit,
    type: InteractionPage,
    nullable: true,
    description: 'Interactions matching every given filter, newest first. Needs scope `interactions:read`.',
    authScopes: { 'interactions:read': true },
    args: {
      ...pagingArgs,
      ...rootListArgs,
      order: t.arg({ type: SortOrderEnum, description: 'Newest first (`DESC`, the default) or oldest first (`ASC`), by `startedAt` then `id`.' }),
      includeTotal: t.arg.boolean({
        description:
          'False: whether a further page exists is found without counting every match where counting costs more (a phone search); a total asked for is counted all the same. Over REST, the total and the number of pages are then null.',
      }),
    },
    resolve: (_root, args, context) => {
      requirePhiScope(context, args);
      const { page, limit, filters, order, includeTotal } = checked(context, sentFilters(args), checkPageList);
      return listInteractions(context.db, { filters, visibleClinics: context.visibleClinics, page, limit, order, includeTotal });
    },
  }),
  interaction: t.field({
    databaseCost: { readsDatabase: true, units: 1, perSecond: 50 },
    type: Interaction,
    nullable: true,
    description: 'One interaction with its transcript; null when it does not exist or the key may not see its clinic. Needs scope `interactions:read`.',
    authScopes: { 'interactions:read': true },
    args: { id: t.arg.id({ required: true, description: 'The interaction id.' }) },
    resolve: (_root, args, { db, visibleClinics }, info) =>
      hasControlCharacter(String(args.id))
        ? null
        : db.interaction.findFirst({
            where: { id: String(args.id), ...clinicCondition(visibleClinics) },
            include: withTranscripts(info) ? { transcript: { select: { entries: true } } } : undefined,
          }),
  }),
}));
