// The GraphQL arguments of the interaction filters, derived from their declarations
// (filters/interaction-filters.ts): each read spreads the arguments of the filters it takes.
import type { ArgumentRef } from '@pothos/core';
import {
  FILTER_KEYS,
  type FilterKey,
  type FilterOf,
  type FilterReader,
  filtersOf,
  INTERACTION_FILTERS,
  type RawFilters,
} from '../../filters/interaction-filters.js';
import { builder } from '../builder.js';
import { ChannelEnum, DirectionEnum, InteractionTypeEnum, OutcomeEnum } from './enums.js';

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
