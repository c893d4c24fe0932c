// What selects interactions: the filters of every interaction list and count (root and nested,
// REST and GraphQL), checked by one parser whatever the caller calls them. Compiled to a query by
// conditions.ts; adding a filter means adding it here and there (docs/development.md).
import { checkPaging, hasControlCharacter, isUuid, type Paging, type Problems, parseDateBound } from '../domain/parameters.js';
import { CHANNELS, type ChannelValue, INTERACTION_TYPES, type InteractionTypeValue, OUTCOMES, TYPES_BY_CHANNEL } from '../domain/values.js';
import { checkText } from './text-search.js';

/** Longest accepted search string; phone numbers are far shorter. */
export const MAX_SEARCH_LENGTH = 64;

/** Longest campaign id: ids are strings chosen by whoever imports them (`cmp_...`), not UUIDs. */
export const MAX_CAMPAIGN_ID_LENGTH = 255;

export interface RawFilters {
  dateFrom?: string | null;
  dateTo?: string | null;
  channel?: string | null;
  type?: string | null;
  outcomes?: readonly string[] | null;
  clinicId?: string | null;
  campaignId?: string | null;
  search?: string | null;
  text?: string | null;
  status?: string | null;
}

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

export const GRAPHQL_NAMES: ParameterNames = {
  page: 'page',
  limit: 'limit',
  dateFrom: 'dateFrom',
  dateTo: 'dateTo',
  channel: 'channel',
  type: 'type',
  outcomes: 'outcomes',
  clinicId: 'clinicId',
  campaignId: 'campaignId',
  search: 'search',
  text: 'text',
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
};

export interface Filters {
  from?: Date;
  to?: Date;
  channel?: ChannelValue;
  type?: InteractionTypeValue;
  outcomes?: string[];
  clinicId?: string;
  campaignId?: string;
  search?: string;
  /** Full-text search of summaries and transcripts (text-search.ts). */
  text?: string;
}

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
  if (raw.channel != null) {
    if ((CHANNELS as readonly string[]).includes(raw.channel)) filters.channel = raw.channel as ChannelValue;
    else problems[names.channel] = `must be one of: ${CHANNELS.join(', ')}`;
  }
  if (raw.type != null) {
    const allowed = filters.channel ? TYPES_BY_CHANNEL[filters.channel] : INTERACTION_TYPES;
    if (allowed.includes(raw.type as InteractionTypeValue)) filters.type = raw.type as InteractionTypeValue;
    else if (filters.channel && (INTERACTION_TYPES as readonly string[]).includes(raw.type)) {
      problems[names.type] = `is not a ${filters.channel} type; valid with channel ${filters.channel}: ${allowed.join(', ')}`;
    } else problems[names.type] = `must be one of: ${allowed.join(', ')}`;
  }
  if (raw.outcomes != null) {
    const invalid = raw.outcomes.filter((o) => !(OUTCOMES as readonly string[]).includes(o));
    if (raw.outcomes.length === 0 || invalid.length > 0) {
      const shown = invalid.map((o) => (o === '' ? '(empty)' : o)).join(', ');
      problems[names.outcomes] = `${shown ? `invalid value(s) ${shown}; ` : ''}must be a comma-separated list of: ${OUTCOMES.join(', ')} (UPPERCASE)`;
    } else filters.outcomes = [...new Set(raw.outcomes)];
  }
  if (raw.clinicId != null) {
    if (isUuid(raw.clinicId)) filters.clinicId = raw.clinicId.toLowerCase();
    else problems[names.clinicId] = 'must be a UUID';
  }
  if (raw.campaignId != null) {
    const id = raw.campaignId;
    if (id.length === 0) problems[names.campaignId] = 'must not be empty';
    else if ([...id].length > MAX_CAMPAIGN_ID_LENGTH) problems[names.campaignId] = `must be at most ${MAX_CAMPAIGN_ID_LENGTH} characters`;
    else if (hasControlCharacter(id)) problems[names.campaignId] = 'must not contain control characters';
    else filters.campaignId = id;
  }
  if (raw.search != null) {
    if (raw.search.length === 0) problems[names.search] = 'must not be empty';
    else if (raw.search.length > MAX_SEARCH_LENGTH) problems[names.search] = `must be at most ${MAX_SEARCH_LENGTH} characters`;
    else if (hasControlCharacter(raw.search)) problems[names.search] = 'must not contain control characters';
    else filters.search = raw.search;
  }
  if (raw.text != null) {
    const text = checkText(raw.text, names.text, problems);
    if (text !== undefined) filters.text = text;
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
