// What selects interactions: every filter of every interaction list, count, export and metric
// (root and nested, REST and GraphQL), declared once in INTERACTION_FILTERS below. From each
// declaration the rest is derived: the filter types, REST and GraphQL names, GraphQL arguments
// (graphql/schema/interaction.ts), REST documents' variables (documents/rest-documents.ts), route
// parameters (rest/routes.ts), the checks here, the SQL conditions on `interactions` and on the
// rollup levels (interactions/rows.ts, rollups/counted.ts), cursor digests
// (interactions/cursor.ts), exports and OpenAPI. Adding a filter means adding one declaration
// (docs/development.md). Below the rollups and the reads of interactions, which all compile it.
import type { GraphQLError } from 'graphql';
import { campaignVisible, PHI_SCOPE, readsPhi } from '../auth/api-keys.js';
import { codedError } from '../domain/coded-error.js';
import { checkPaging, hasControlCharacter, isUuid, type Paging, type Problems, parseDateBound } from '../domain/parameters.js';
import {
  CHANNELS,
  type ChannelValue,
  DIRECTIONS,
  type DirectionValue,
  INTERACTION_TYPES,
  type InteractionTypeValue,
  OUTCOMES,
  TYPES_BY_CHANNEL,
} from '../domain/values.js';
import { Prisma } from '../generated/prisma/client.js';
import { checkText, MAX_TEXT_LENGTH, MAX_TEXT_WORDS, textCondition } from './text-filter.js';

/** Longest accepted search string; phone numbers are far shorter. */
export const MAX_SEARCH_LENGTH = 64;

/** Longest campaign id: ids are strings chosen by whoever imports them (`cmp_...`), not UUIDs. */
export const MAX_CAMPAIGN_ID_LENGTH = 255;

/**
 * The reads a filter is an argument of: `lists` the root interaction lists (page, cursor, change
 * feed, export), `nestedLists` the lists under a clinic or campaign, `metrics` every metrics field
 * but the summary, `summary` the summary, `parentMetrics` the `metrics` of a clinic or campaign.
 */
export type FilterReader = 'lists' | 'nestedLists' | 'metrics' | 'summary' | 'parentMetrics';

/** A filter's GraphQL input type: a scalar, or an enum of the schema (as a list: any of its values). */
export type FilterInput = { scalar: 'String' | 'ID' } | { enum: 'Channel' | 'InteractionType' | 'Direction' | 'Outcome'; list?: true };

/** What a filter's SQL condition is given. */
export interface ConditionContext {
  /** The alias of the table read, if it has one (columns are qualified by it). */
  alias: string | undefined;
  /** A column of the table read, qualified by its alias. */
  column(name: string): Prisma.Sql;
  /** The clinics the request may read: undefined = every clinic; [] = none. */
  clinicIds: readonly string[] | undefined;
}

/** What REST adds to a filter's parameter in the OpenAPI document. */
export interface OpenApiRule {
  /** Appended to the description: what REST spells or checks beyond the GraphQL argument. */
  note: string;
  /** Merged into the parameter's schema. */
  schema?: Readonly<Record<string, unknown>>;
  /** Other fields of the Parameter Object (style, examples). */
  extra?: Readonly<Record<string, unknown>>;
}

/** Values as the OpenAPI notes list them. */
const codes = (values: readonly string[]) => values.map((value) => `\`${value}\``).join(', ');

export interface FilterDeclaration<Value> {
  /** The REST query parameter. */
  rest: string;
  input: FilterInput;
  /** What it selects, for the GraphQL argument and the OpenAPI parameter alike. */
  description: string;
  readers: readonly FilterReader[];
  /** The value sent (text, or the items of a list) checked: the value, or `problem` called with what is wrong. */
  check(sent: string & readonly string[], problem: (message: string) => void, checked: CheckedBefore): Value | undefined;
  /**
   * The condition on the columns of `interactions`. Absent for the clinic, which is folded into the
   * key's clinic restriction (dimensionsOf). With `rollup`, the same columns of every rollup level.
   */
  condition?(value: Value, at: ConditionContext): Prisma.Sql[];
  /** A key column of the rollup levels: a list or metric filtered by it is read from the rollups. */
  rollup: boolean;
  /**
   * A column of the search documents too (interaction_search_documents): a full-text search checks
   * it there rather than on each match's interaction (interactions/text-search.ts).
   */
  onSearchDocuments?: true;
  /** Reads patient data: refused to a key without `phi:read`, whatever its value. */
  phi?: true;
  /**
   * What REST adds to the description in the OpenAPI document (its spelling, its limits), and what
   * it merges into the parameter's schema or object; an enum without one is listed by its values.
   */
  openapi?: OpenApiRule;
  /**
   * The same selection as a Prisma `where`; absent for the clinic (folded into the key's clinic
   * restriction: clinicCondition) and where Prisma cannot express it (read in SQL).
   */
  prisma?(value: Value): Prisma.InteractionWhereInput;
}

/** The filters declared before a filter, as its check may read them (a type is judged by the channel). */
export interface CheckedBefore {
  readonly channel?: ChannelValue;
}

const declare = <Value, const Rollup extends boolean, const Input extends FilterInput, const Readers extends readonly FilterReader[]>(
  declaration: FilterDeclaration<Value> & { rollup: Rollup; input: Input; readers: Readers },
): FilterDeclaration<Value> & { rollup: Rollup; input: Input; readers: Readers } => declaration;

/**
 * `search` is a plain substring: LIKE's wildcards `%`, `_` and its escape character are escaped,
 * for Prisma's `contains` (which passes them through) and for the SQL alike.
 */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** One value of an enum: the value, or the problem naming the values allowed. */
function oneOf<T extends string>(values: readonly T[], sent: string, problem: (message: string) => void): T | undefined {
  if ((values as readonly string[]).includes(sent)) return sent as T;
  problem(`must be one of: ${values.join(', ')}`);
  return undefined;
}

/**
 * Every filter, in the order they are listed (GraphQL arguments, REST parameters, OpenAPI). The
 * window (`dateFrom`/`dateTo`) is not here: every read has one, and the rollups split it by days.
 */
export const INTERACTION_FILTERS = {
  clinicId: declare({
    rest: 'clinic_id',
    input: { scalar: 'ID' },
    description: 'Only this clinic (UUID).',
    readers: ['lists', 'metrics', 'summary'],
    rollup: true,
    openapi: {
      note: 'Not a UUID: 400. A well-formed id of a clinic that does not exist or that the key may not see gives empty results (zeros for metrics), not an error.',
      schema: { format: 'uuid' },
    },
    check: (sent: string, problem) => (isUuid(sent) ? sent.toLowerCase() : void problem('must be a UUID')),
  }),
  campaignId: declare({
    rest: 'campaign_id',
    input: { scalar: 'ID' },
    description: `Only this campaign (its id: any text of 1 to ${MAX_CAMPAIGN_ID_LENGTH} printable characters). A campaign of a clinic the key may not see selects nothing.`,
    readers: ['lists', 'metrics', 'summary'],
    rollup: true,
    onSearchDocuments: true,
    openapi: {
      note: `Any id of 1 to ${MAX_CAMPAIGN_ID_LENGTH} printable characters (campaign ids are not UUIDs). An id of a campaign that does not exist or belongs to a clinic the key may not see gives empty results (zeros for metrics), not an error.`,
      schema: { minLength: 1, maxLength: MAX_CAMPAIGN_ID_LENGTH },
    },
    check: (sent: string, problem) => {
      if (sent.length === 0) problem('must not be empty');
      else if ([...sent].length > MAX_CAMPAIGN_ID_LENGTH) problem(`must be at most ${MAX_CAMPAIGN_ID_LENGTH} characters`);
      else if (hasControlCharacter(sent)) problem('must not contain control characters');
      else return sent;
      return undefined;
    },
    // (text on both sides: the raw table's nullable campaign_id, the levels' '' for none; a filter is never '')
    condition: (campaignId: string, at) => [Prisma.sql`${at.column('campaign_id')} = ${campaignId}::text`, campaignVisible(campaignId, at.clinicIds)],
    prisma: (campaignId: string) => ({ campaignId }),
  }),
  channel: declare({
    rest: 'channel',
    input: { enum: 'Channel' },
    description: 'Only this channel.',
    readers: ['lists', 'nestedLists', 'metrics', 'summary', 'parentMetrics'],
    rollup: true,
    onSearchDocuments: true,
    openapi: { note: `Lowercase: ${codes(CHANNELS)}.` },
    check: (sent: string, problem) => oneOf<ChannelValue>(CHANNELS, sent, problem),
    condition: (channel: ChannelValue, at) => [Prisma.sql`${at.column('channel')} = ${channel}::"Channel"`],
    prisma: (channel: ChannelValue) => ({ channel }),
  }),
  type: declare({
    rest: 'type',
    input: { enum: 'InteractionType' },
    description: 'Only this interaction type; must be valid for `channel` when both are given.',
    readers: ['lists', 'nestedLists', 'metrics', 'parentMetrics'],
    rollup: true,
    onSearchDocuments: true,
    openapi: {
      note:
        `With \`channel=voice\`: ${codes(TYPES_BY_CHANNEL.voice)}; with \`channel=whatsapp\`: ${codes(TYPES_BY_CHANNEL.whatsapp)} ` +
        '(a type not valid for the given channel is a 400). Without `channel`, any type.',
    },
    check: (sent: string, problem, checked): InteractionTypeValue | undefined => {
      const allowed = checked.channel ? TYPES_BY_CHANNEL[checked.channel] : INTERACTION_TYPES;
      if (allowed.includes(sent as InteractionTypeValue)) return sent as InteractionTypeValue;
      if (checked.channel && (INTERACTION_TYPES as readonly string[]).includes(sent)) {
        problem(`is not a ${checked.channel} type; valid with channel ${checked.channel}: ${allowed.join(', ')}`);
      } else problem(`must be one of: ${allowed.join(', ')}`);
      return undefined;
    },
    condition: (type: InteractionTypeValue, at) => [Prisma.sql`${at.column('type')} = ${type}::"InteractionType"`],
    prisma: (type: InteractionTypeValue) => ({ type }),
  }),
  direction: declare({
    rest: 'direction',
    input: { enum: 'Direction' },
    description: 'Only interactions in this direction: `inbound` (the patient called or wrote) or `outbound` (the clinic did).',
    readers: ['lists', 'nestedLists', 'metrics', 'summary', 'parentMetrics'],
    rollup: true,
    check: (sent: string, problem) => oneOf<DirectionValue>(DIRECTIONS, sent, problem),
    condition: (direction: DirectionValue, at) => [Prisma.sql`${at.column('direction')} = ${direction}::"Direction"`],
    prisma: (direction: DirectionValue) => ({ direction }),
  }),
  outcomes: declare({
    rest: 'outcome',
    input: { enum: 'Outcome', list: true },
    description: 'Only these outcomes (any of them).',
    readers: ['lists', 'nestedLists'],
    rollup: true,
    onSearchDocuments: true,
    openapi: {
      note: `Comma-separated: ${codes(OUTCOMES)}. UPPERCASE, case-sensitive; any other item (wrong case, empty) is a 400.`,
      extra: { style: 'form', explode: false, examples: { one: { value: ['APPOINTMENT_BOOKED'] }, several: { value: ['NO_ANSWER', 'VOICEMAIL_REACHED'] } } },
    },
    check: (sent: readonly string[], problem) => {
      const invalid = sent.filter((o) => !(OUTCOMES as readonly string[]).includes(o));
      if (sent.length > 0 && invalid.length === 0) return [...new Set(sent)];
      const shown = invalid.map((o) => (o === '' ? '(empty)' : o)).join(', ');
      problem(`${shown ? `invalid value(s) ${shown}; ` : ''}must be a comma-separated list of: ${OUTCOMES.join(', ')} (UPPERCASE)`);
      return undefined;
    },
    // Never matches a null outcome (the rollup's '').
    condition: (outcomes: string[], at) => [Prisma.sql`${at.column('outcome')} = ANY(${outcomes}::text[])`],
    prisma: (outcomes: string[]) => ({ outcome: { in: outcomes } }),
  }),
  search: declare({
    rest: 'search',
    input: { scalar: 'String' },
    description: 'Case-insensitive substring of the phone number. Needs scope `phi:read`.',
    readers: ['lists', 'nestedLists'],
    rollup: false,
    phi: true,
    openapi: {
      note: `1 to ${MAX_SEARCH_LENGTH} characters. A literal \`+\` must be URL-encoded as \`%2B\`.`,
      schema: { minLength: 1, maxLength: MAX_SEARCH_LENGTH },
      // The examples match the demo data (its US numbers are +1 (xxx) 555-xxxx, its UK ones +44),
      // together with the other parameters' first examples: "Try it out" sends them all at once.
      extra: { examples: { digits: { value: '555' }, international: { summary: 'sent as search=%2B44', value: '+44' } } },
    },
    check: (sent: string, problem) => {
      if (sent.length === 0) problem('must not be empty');
      else if (sent.length > MAX_SEARCH_LENGTH) problem(`must be at most ${MAX_SEARCH_LENGTH} characters`);
      else if (hasControlCharacter(sent)) problem('must not contain control characters');
      else return sent;
      return undefined;
    },
    condition: (search: string, at) => [Prisma.sql`${at.column('phone_number')} ILIKE ${`%${escapeLike(search)}%`}`],
    prisma: (search: string) => ({ phoneNumber: { contains: escapeLike(search), mode: 'insensitive' as const } }),
  }),
  text: declare({
    rest: 'q',
    input: { scalar: 'String' },
    description:
      "Full-text search of the summary and transcript: every word must appear, in any case and with or without accents, stemmed in the clinic's language (`cancelled` finds `cancel` and `cancelling`). At most 200 characters and 16 words. Needs scope `phi:read`.",
    readers: ['lists', 'nestedLists'],
    rollup: false,
    phi: true,
    openapi: {
      note: `1 to ${MAX_TEXT_LENGTH} characters, at most ${MAX_TEXT_WORDS} words (runs of letters or digits; everything else separates them and is never an operator). A text of stop words only matches nothing.`,
      schema: { minLength: 1, maxLength: MAX_TEXT_LENGTH },
      extra: { examples: { word: { value: 'appointment' }, words: { summary: 'every word must match', value: 'cancel appointment' } } },
    },
    check: (sent: string, problem) => checkText(sent, problem),
    condition: (text: string, at) => [textCondition(text, at.alias)],
  }),
};

export type FilterKey = keyof typeof INTERACTION_FILTERS;
type ValueOf<K extends FilterKey> = (typeof INTERACTION_FILTERS)[K] extends FilterDeclaration<infer V> ? V : never;
export type SentOf<K extends FilterKey> = (typeof INTERACTION_FILTERS)[K]['input'] extends { list: true } ? readonly string[] : string;

/** The filters a read takes (as a type). */
export type FilterOf<R extends FilterReader> = { [K in FilterKey]: R extends (typeof INTERACTION_FILTERS)[K]['readers'][number] ? K : never }[FilterKey];

/** The filters in their declared order. */
export const FILTER_KEYS = Object.keys(INTERACTION_FILTERS) as FilterKey[];

/** The filters that are key columns of the rollup levels. */
export type RollupFilterKey = { [K in FilterKey]: (typeof INTERACTION_FILTERS)[K]['rollup'] extends true ? K : never }[FilterKey];
export const ROLLUP_FILTER_KEYS = FILTER_KEYS.filter((key): key is RollupFilterKey => INTERACTION_FILTERS[key].rollup);

/** The filters that read patient data (need `phi:read`). */
export type PhiFilterKey = { [K in FilterKey]: (typeof INTERACTION_FILTERS)[K] extends { phi: true } ? K : never }[FilterKey];
export const PHI_FILTER_KEYS = FILTER_KEYS.filter((key): key is PhiFilterKey => 'phi' in INTERACTION_FILTERS[key]);

/** The filters a read takes, in their declared order. */
export function filtersOf<R extends FilterReader>(reader: R): FilterOf<R>[] {
  return FILTER_KEYS.filter((key): key is FilterOf<R> => (INTERACTION_FILTERS[key].readers as readonly FilterReader[]).includes(reader));
}

/** The REST parameters of the filters a read takes, in their declared order. */
export function restNamesOf(reader: FilterReader): string[] {
  return filtersOf(reader).map((key) => INTERACTION_FILTERS[key].rest);
}

/** A declaration as its parts are used generically (its value's type erased). */
export function declarationOf(key: FilterKey): FilterDeclaration<unknown> {
  return INTERACTION_FILTERS[key] as unknown as FilterDeclaration<unknown>;
}

/** The filters as sent (GraphQL arguments, REST parameters read as them), before they are checked. */
export type RawFilters = { dateFrom?: string | null; dateTo?: string | null; status?: string | null } & { [K in FilterKey]?: SentOf<K> | null };

/** What a caller calls each filter, for the problems reported (GraphQL's argument names, or REST's). */
export type FilterNames = { [K in keyof RawFilters]-?: string };

/** What a caller calls each parameter, for the problems reported (GraphQL's argument names, or REST's). */
export type ParameterNames = FilterNames & {
  page: string;
  limit: string;
  timezone: string;
  compare: string;
  granularity: string;
  groupBy: string;
  /** Cursor paging (interactionsConnection / REST `cursor`, `order`, `include_total`, `updated_since`). */
  first: string;
  after: string;
  order: string;
  includeTotal: string;
  updatedSince: string;
};

const OTHER_NAMES = {
  page: 'page',
  limit: 'limit',
  dateFrom: 'dateFrom',
  dateTo: 'dateTo',
  status: 'status',
  timezone: 'timezone',
  compare: 'compare',
  granularity: 'granularity',
  groupBy: 'groupBy',
  first: 'first',
  after: 'after',
  order: 'order',
  includeTotal: 'includeTotal',
  updatedSince: 'updatedSince',
} as const;

const filterNames = (name: (key: FilterKey) => string) => Object.fromEntries(FILTER_KEYS.map((key) => [key, name(key)])) as Record<FilterKey, string>;

export const GRAPHQL_NAMES: ParameterNames = { ...OTHER_NAMES, ...filterNames((key) => key) };

/** The REST name of each GraphQL argument a parameter maps to (the names problems are reported under). */
export const REST_NAMES: ParameterNames = {
  ...OTHER_NAMES,
  dateFrom: 'date_from',
  dateTo: 'date_to',
  groupBy: 'group_by',
  first: 'limit',
  after: 'cursor',
  includeTotal: 'include_total',
  updatedSince: 'updated_since',
  ...filterNames((key) => INTERACTION_FILTERS[key].rest),
};

/**
 * The filters a read takes as a REST query sends them (under their REST names), before they are
 * checked. A list is comma-separated: `outcome=` is one empty value, refused as such.
 */
export function restFilters(query: Readonly<Record<string, string | undefined>>, reader: FilterReader): RawFilters {
  const raw: Record<string, string | readonly string[] | undefined> = {};
  for (const key of filtersOf(reader)) {
    const { rest, input } = INTERACTION_FILTERS[key];
    const sent = query[rest];
    raw[key] = sent !== undefined && 'list' in input ? sent.split(',') : sent;
  }
  return raw as RawFilters;
}

/** The filters, checked: the window's bounds as instants, each filter as its value. */
export type Filters = { from?: Date; to?: Date } & { [K in FilterKey]?: ValueOf<K> };

/**
 * Checks whichever of the filters are present; problems are added under the caller's names.
 * `inZone`: the dates are local days of a time zone, so their order is judged once read there.
 */
export function checkFilters(raw: RawFilters, names: FilterNames, problems: Problems, options: { inZone?: boolean } = {}): Filters {
  const filters: Filters = {};
  if (raw.dateFrom != null) {
    const from = parseDateBound(raw.dateFrom, 'from');
    if (from) filters.from = from;
    else problems[names.dateFrom] = 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time with Z or an offset';
  }
  if (raw.dateTo != null) {
    const to = parseDateBound(raw.dateTo, 'to');
    if (to) filters.to = to;
    else problems[names.dateTo] = 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time with Z or an offset';
  }
  if (!options.inZone && filters.from && filters.to && filters.from > filters.to) {
    problems[names.dateFrom] = `must not be later than ${names.dateTo}`;
  }
  const values = filters as Record<FilterKey, unknown>;
  for (const key of FILTER_KEYS) {
    const sent = raw[key];
    if (sent == null) continue;
    const value = declarationOf(key).check(sent as string & readonly string[], (message) => (problems[names[key]] = message), filters);
    if (value !== undefined) values[key] = value;
  }
  return filters;
}

/** The page and filters of an interaction list, checked together so one answer names every problem. */
export function checkList(
  raw: RawFilters & { page?: number | null; limit?: number | null },
  names: ParameterNames,
  problems: Problems,
): Paging & { filters: Filters } {
  return { ...checkPaging(raw, names, problems), filters: checkFilters(raw, names, problems) };
}

/** The orders of an interaction list: by `started_at`, newest (default) or oldest first, then by id the same way. */
export const LIST_ORDERS = ['desc', 'asc'] as const;
export type ListOrder = (typeof LIST_ORDERS)[number];

/** `order` and `includeTotal`, which pages and cursors share. */
function checkOrderAndTotal(raw: { order?: unknown; includeTotal?: unknown }, names: ParameterNames, problems: Problems) {
  let order: ListOrder = 'desc';
  if (raw.order != null) {
    if ((LIST_ORDERS as readonly unknown[]).includes(raw.order)) order = raw.order as ListOrder;
    else problems[names.order] = `must be one of: ${LIST_ORDERS.join(', ')}`;
  }
  let includeTotal = true;
  if (raw.includeTotal != null) {
    if (typeof raw.includeTotal === 'boolean') includeTotal = raw.includeTotal;
    else problems[names.includeTotal] = 'must be true or false';
  }
  return { order, includeTotal };
}

export interface PageListArgs extends RawFilters {
  page?: number | null;
  limit?: number | null;
  order?: unknown;
  includeTotal?: unknown;
}

/** A page of a list with its order and whether to count (`interactions`). */
export function checkPageList(raw: PageListArgs, names: ParameterNames, problems: Problems) {
  return { ...checkList(raw, names, problems), ...checkOrderAndTotal(raw, names, problems) };
}

export interface CursorListArgs extends RawFilters {
  first?: number | null;
  after?: string | null;
  order?: unknown;
  includeTotal?: unknown;
  updatedSince?: string | null;
}

export interface CheckedCursorList {
  limit: number;
  /** The cursor sent; null or empty starts at the first item. */
  after: string | null;
  order: ListOrder;
  includeTotal: boolean;
  /** The change feed's start; when given, the list is ordered by updated_at then id, ascending. */
  updatedSince?: Date;
  filters: Filters;
}

/** A cursor list's arguments (`interactionsConnection`, REST `cursor`/`updated_since`). */
export function checkCursorList(raw: CursorListArgs, names: ParameterNames, problems: Problems): CheckedCursorList {
  const { limit } = checkPaging({ limit: raw.first }, { page: names.page, limit: names.first }, problems);
  const { order, includeTotal } = checkOrderAndTotal(raw, names, problems);
  let updatedSince: Date | undefined;
  if (raw.updatedSince != null) {
    updatedSince = parseDateBound(raw.updatedSince, 'from');
    if (!updatedSince) problems[names.updatedSince] = 'must be an ISO 8601 date-time with Z or an offset (or a date, meaning the start of that UTC day)';
    if (raw.order != null)
      problems[names.order] = `cannot be combined with ${names.updatedSince}: the change feed is ordered by updated_at, then id, ascending`;
  }
  if (raw.after != null && hasControlCharacter(raw.after)) problems[names.after] = 'is not a valid cursor';
  return { limit, after: raw.after || null, order, includeTotal, updatedSince, filters: checkFilters(raw, names, problems) };
}

// The filters of interaction lists that read patient data: `search` (a substring of the phone
// number) and `text` (REST `q`, full-text search of what was said). A key without `phi:read` may
// not use them (decisions section 11): 403 INSUFFICIENT_SCOPE with `required_scope: phi:read`,
// judged before the values of the arguments, as every scope is (decisions section 1).

/** The first filter of `args` that needs `phi:read`, if any is sent (an empty value counts: it is sent). */
export function phiFilterOf(args: { readonly [K in PhiFilterKey]?: unknown }): PhiFilterKey | undefined {
  return PHI_FILTER_KEYS.find((name) => args[name] != null);
}

/** The message of the refusal, naming the parameter as the caller does. */
export function phiScopeMessage(parameter: string): string {
  return `This API key lacks the scope ${PHI_SCOPE} needed to filter by ${parameter}`;
}

/** The error of a list field asked for a filter the key may not use, or undefined. */
export function phiScopeError(
  context: { key: { readonly scopes: readonly string[] }; parameters: { names: ParameterNames } },
  args: { readonly [K in PhiFilterKey]?: unknown },
): GraphQLError | undefined {
  if (readsPhi(context.key)) return undefined;
  const used = phiFilterOf(args);
  if (!used) return undefined;
  const names = context.parameters.names as Partial<Record<PhiFilterKey, string>>;
  return codedError('INSUFFICIENT_SCOPE', phiScopeMessage(names[used] ?? used), { extensions: { details: { required_scope: PHI_SCOPE } } });
}

/**
 * Refuses a list whose arguments use `search` or `text` when the key lacks `phi:read`. Called by
 * every interaction list (root, cursor, nested) before its arguments are checked.
 */
export function requirePhiScope(
  context: { key: { readonly scopes: readonly string[] }; parameters: { names: ParameterNames } },
  args: { readonly [K in PhiFilterKey]?: unknown },
): void {
  const error = phiScopeError(context, args);
  if (error) throw error;
}

/** The values of the PHI filters in a REST query, found by the caller's names for them. */
export function phiArgumentsOf(query: Readonly<Record<string, string | undefined>>, names: ParameterNames): { [K in PhiFilterKey]?: string } {
  const named = names as Partial<Record<PhiFilterKey, string>>;
  return Object.fromEntries(PHI_FILTER_KEYS.map((filter) => [filter, named[filter] === undefined ? undefined : query[named[filter]]]));
}
