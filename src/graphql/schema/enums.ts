// GraphQL enums. Values are UPPERCASE by GraphQL convention; each maps to the stored (REST) value.

import { COMPARISONS } from '../../analytics/zoned.js';
import {
  CAMPAIGN_CHANNELS,
  CAMPAIGN_STATUSES,
  CAMPAIGN_TYPES,
  CHANNELS,
  DIRECTIONS,
  INTERACTION_TYPES,
  OUTCOME_LABELS,
  OUTCOMES,
  TYPES_BY_CHANNEL,
} from '../../domain/values.js';
import { GRANULARITIES } from '../../zones/local-calendar.js';
import { builder } from '../builder.js';

function valuesOf<T extends string>(values: readonly T[], describe: (value: T) => string) {
  return Object.fromEntries(values.map((value) => [value.toUpperCase(), { value, description: describe(value) }])) as Record<
    string,
    { value: T; description: string }
  >;
}

export const ChannelEnum = builder.enumType('Channel', {
  description: 'How the patient was contacted.',
  values: valuesOf(CHANNELS, (c) => (c === 'voice' ? 'A voice call (REST `voice`).' : 'A WhatsApp conversation (REST `whatsapp`).')),
});

const TYPE_MEANINGS: Record<(typeof INTERACTION_TYPES)[number], string> = {
  INBOUND: 'Started by the patient: an incoming call or WhatsApp message.',
  FORM_OUTBOUND: 'Outbound call triggered by a form submission (voice only).',
  CAMPAIGN_OUTBOUND: 'Outbound call or message of a campaign.',
  CAMPAIGN_CALLBACK: 'Callback call of a campaign (voice only).',
  APPOINTMENT_REMINDER: 'Appointment reminder message (WhatsApp only).',
};

export const InteractionTypeEnum = builder.enumType('InteractionType', {
  description: `Kind of interaction. Valid per channel: voice ${TYPES_BY_CHANNEL.voice.join(', ')}; whatsapp ${TYPES_BY_CHANNEL.whatsapp.join(', ')}.`,
  values: valuesOf(INTERACTION_TYPES, (t) => TYPE_MEANINGS[t]),
});

export const DirectionEnum = builder.enumType('Direction', {
  description: 'Who started the interaction.',
  values: valuesOf(DIRECTIONS, (d) => (d === 'inbound' ? 'Started by the patient.' : 'Started by the clinic.')),
});

export const OutcomeEnum = builder.enumType('Outcome', {
  description: 'The common outcome values, usable as filters. Stored outcomes are plain strings and may include other UPPERCASE values.',
  values: valuesOf(OUTCOMES, (o) => OUTCOME_LABELS[o]),
});

export const CampaignTypeEnum = builder.enumType('CampaignType', {
  description: 'Purpose of a campaign.',
  values: valuesOf(CAMPAIGN_TYPES, (t) => `REST \`${t}\`.`),
});

export const CampaignChannelEnum = builder.enumType('CampaignChannel', {
  description: 'Channel(s) a campaign uses.',
  values: valuesOf(CAMPAIGN_CHANNELS, (c) => `REST \`${c}\`.`),
});

export const CampaignStatusEnum = builder.enumType('CampaignStatus', {
  description: 'Lifecycle state of a campaign.',
  values: valuesOf(CAMPAIGN_STATUSES, (s) => `REST \`${s}\`.`),
});

export const MetricsComparisonEnum = builder.enumType('MetricsComparison', {
  description: 'The window a metric is compared with.',
  values: valuesOf(COMPARISONS, (c) =>
    c === 'previous_period'
      ? 'The window shifted back by its own length: with date bounds, the same number of local days just before (REST `previous_period`).'
      : 'The same local dates one calendar year earlier, 29 February read as 28 February (REST `previous_year`).',
  ),
});

export const GranularityEnum = builder.enumType('Granularity', {
  description: 'The calendar unit of a series, in the requested time zone.',
  values: valuesOf(GRANULARITIES, (g) =>
    g === 'week'
      ? 'ISO weeks, from Monday 00:00 (REST `week`).'
      : g === 'hour'
        ? 'Local hours; an hour a DST fold repeats is two buckets (REST `hour`).'
        : `Local calendar ${g}s (REST \`${g}\`).`,
  ),
});

export const SortOrderEnum = builder.enumType('SortOrder', {
  description: 'Direction of a list ordered by time (`startedAt`, then `id` the same way).',
  values: {
    DESC: { value: 'desc', description: 'Newest first (REST `desc`, the default).' },
    ASC: { value: 'asc', description: 'Oldest first (REST `asc`).' },
  } as const,
});
