// What every metrics query selects: a window on started_at plus optional clinic, channel and type
// restrictions. The caller (REST or GraphQL) has already resolved defaults, date-only bounds and the
// API key's clinic restriction into this object.
import type { ChannelValue, InteractionTypeValue } from '../domain/values.js';

export interface MetricsFilter {
  /** Inclusive lower bound on started_at. */
  from: Date;
  /** Inclusive upper bound on started_at (a date-only `date_to` arrives as 23:59:59.999 UTC). */
  to: Date;
  /** undefined = every clinic; [] = none (all zeros / empty). */
  clinicIds?: readonly string[];
  /** Only this campaign's interactions. */
  campaignId?: string;
  channel?: ChannelValue;
  type?: InteractionTypeValue;
}
