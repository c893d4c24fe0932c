// The closed vocabularies of the spec, in one place: REST validation, GraphQL enums, the importer,
// the demo data and the metrics all read these.

export const CHANNELS = ['voice', 'whatsapp'] as const;
export type ChannelValue = (typeof CHANNELS)[number];

export const INTERACTION_TYPES = ['INBOUND', 'FORM_OUTBOUND', 'CAMPAIGN_OUTBOUND', 'CAMPAIGN_CALLBACK', 'APPOINTMENT_REMINDER'] as const;
export type InteractionTypeValue = (typeof INTERACTION_TYPES)[number];

/** The seven valid channel/type pairs of the spec. */
export const TYPES_BY_CHANNEL: Record<ChannelValue, readonly InteractionTypeValue[]> = {
  voice: ['INBOUND', 'FORM_OUTBOUND', 'CAMPAIGN_OUTBOUND', 'CAMPAIGN_CALLBACK'],
  whatsapp: ['INBOUND', 'CAMPAIGN_OUTBOUND', 'APPOINTMENT_REMINDER'],
};

export const DIRECTIONS = ['inbound', 'outbound'] as const;
export type DirectionValue = (typeof DIRECTIONS)[number];

/** Every type but INBOUND is initiated by the clinic. */
export function directionOfType(type: InteractionTypeValue): DirectionValue {
  return type === 'INBOUND' ? 'inbound' : 'outbound';
}

export const OUTCOMES = [
  'APPOINTMENT_BOOKED',
  'APPOINTMENT_MODIFIED',
  'APPOINTMENT_CANCELLED',
  'NO_ANSWER',
  'VOICEMAIL_REACHED',
  'CALLBACK_REQUESTED',
  'DECISION_PENDING',
  'OPT_OUT',
  'UNREACHABLE',
] as const;
export type OutcomeValue = (typeof OUTCOMES)[number];

export const OUTCOME_LABELS: Record<OutcomeValue, string> = {
  APPOINTMENT_BOOKED: 'Appointment Booked',
  APPOINTMENT_MODIFIED: 'Appointment Modified',
  APPOINTMENT_CANCELLED: 'Appointment Cancelled',
  NO_ANSWER: 'No Answer',
  VOICEMAIL_REACHED: 'Voicemail Reached',
  CALLBACK_REQUESTED: 'Callback Requested',
  DECISION_PENDING: 'Decision Pending',
  OPT_OUT: 'Opt Out',
  UNREACHABLE: 'Unreachable',
};

/** Human-readable name of any stored outcome, including ones outside the nine known values. */
export function outcomeLabel(outcome: string): string {
  return (
    OUTCOME_LABELS[outcome as OutcomeValue] ??
    outcome
      .toLowerCase()
      .split('_')
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join(' ')
  );
}

/**
 * Outcomes counted as successful in `success_rate`: the patient's scheduling request was completed
 * (docs/concepts.md, Metrics).
 */
export const SUCCESSFUL_OUTCOMES: readonly OutcomeValue[] = ['APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED'];

/** The outcome counted by `appointments_scheduled`. */
export const SCHEDULED_OUTCOME: OutcomeValue = 'APPOINTMENT_BOOKED';

export const CAMPAIGN_TYPES = ['no_show_recovery', 'reactivation', 'appointment_reminder', 'follow_up', 'recall', 'custom'] as const;
export type CampaignTypeValue = (typeof CAMPAIGN_TYPES)[number];

export const CAMPAIGN_CHANNELS = ['voice', 'whatsapp', 'multi'] as const;
export type CampaignChannelValue = (typeof CAMPAIGN_CHANNELS)[number];

export const CAMPAIGN_STATUSES = ['active', 'paused', 'completed'] as const;
export type CampaignStatusValue = (typeof CAMPAIGN_STATUSES)[number];

/**
 * `phi:read` refuses no endpoint: without it, interactions are answered with their patient data
 * masked (src/phi/masking.ts) and the filters that read patient data are refused (src/filters/interaction-filters.ts).
 */
export const SCOPES = ['interactions:read', 'metrics:read', 'campaigns:read', 'clinics:read', 'phi:read'] as const;
export type Scope = (typeof SCOPES)[number];

export const KEY_TIERS = ['standard', 'premium', 'unlimited'] as const;
export type KeyTierValue = (typeof KEY_TIERS)[number];

export const KEY_PREFIXES = { live: 'svc_live_', test: 'svc_test_' } as const;

/** Per-window request quotas of each tier; `null` means unlimited. */
export const TIER_LIMITS: Record<KeyTierValue, { minute: number; hour: number; day: number } | null> = {
  standard: { minute: 60, hour: 1_000, day: 10_000 },
  premium: { minute: 300, hour: 5_000, day: 50_000 },
  unlimited: null,
};

export const MAX_PAGE_SIZE = 500;
export const DEFAULT_PAGE_SIZE = 25;
