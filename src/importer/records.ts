// The REST representation of the three importable resources (docs/concepts.md), as zod schemas.
// A line of an import file is exactly one of these objects; unknown fields are rejected so that a
// typo (`clinc_id`) is reported instead of silently dropped.
import { z } from 'zod';
import { hasControlCharacter } from '../domain/parameters.js';
import { CAMPAIGN_CHANNELS, CAMPAIGN_STATUSES, CAMPAIGN_TYPES, CHANNELS, DIRECTIONS, INTERACTION_TYPES } from '../domain/values.js';
import { MAX_CAMPAIGN_ID_LENGTH as MAX_ID_LENGTH } from '../filters/interaction-filters.js';

export const RESOURCES = ['clinics', 'campaigns', 'interactions'] as const;
export type Resource = (typeof RESOURCES)[number];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EXAMPLE_UUID = '3f2b8c1e-9a4d-4e6f-8b2a-1c5d7e9f0a12';

/** A rejected id as a reason quotes it: JSON, cut short. */
function shownId(value: string): string {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** As the clinics_language_check constraint (`es`, `en`). */
const ISO_639_1 = /^[a-z]{2}$/;

// ISO 8601 extended format with a date, a time and an explicit zone (Z or +-HH:MM).
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):(\d{2}))$/;

/** Outcomes are stored as text: the spec lists nine values only as "the common ones". */
const OUTCOME = /^[A-Z][A-Z_]*$/;

/** PostgreSQL `integer`. */
const MAX_INT4 = 2_147_483_647;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const MIN_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const MAX_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/**
 * The instant of an ISO 8601 timestamp with zone, or undefined when it is not one (Feb 30 included).
 * Digits beyond milliseconds are dropped, as `Date.parse` does.
 */
export function parseTimestamp(value: string): number | undefined {
  const m = TIMESTAMP.exec(value);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6] ?? 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offset = 0;
  if (m[9] !== undefined) {
    const offsetHours = Number(m[10]);
    const offsetMinutes = Number(m[11]);
    if (offsetHours > 23 || offsetMinutes > 59) return undefined;
    offset = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, Number((m[7] ?? '').padEnd(3, '0').slice(0, 3)));
  const ms = date.getTime() - offset;
  // Stored as UTC: it must stay within years 0001-9999 once the offset is applied.
  return ms < MIN_INSTANT || ms > MAX_INSTANT ? undefined : ms;
}

const timeZones = new Map<string, boolean>();

/** An IANA time zone name (`Europe/Madrid`, `UTC`, `America/Argentina/Buenos_Aires`), exactly cased. */
export function isTimeZone(name: string): boolean {
  let known = timeZones.get(name);
  if (known === undefined) {
    known = /^[A-Z][A-Za-z0-9_+-]*(?:\/[A-Z][A-Za-z0-9_+-]*)*$/.test(name);
    if (known) {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: name });
      } catch {
        known = false;
      }
    }
    if (timeZones.size < 10_000) timeZones.set(name, known);
  }
  return known;
}

// The ids the API can name: a request's campaign_id (and an id in a path) is 1 to 255 characters
// without control characters, so a record whose id could never be asked for is refused here.
const id = z
  .string()
  .min(1, 'must not be empty')
  .refine((v) => [...v].length <= MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`)
  .refine((v) => !hasControlCharacter(v), 'must not contain control characters');
// Clinic ids alone are UUIDs (the database's type); the reason shows the form and the value, since
// hand-written files tend to use names such as `clinic-1` there.
const uuid = z.string().refine((v) => UUID.test(v), {
  error: (issue) => `must be a UUID: 32 hexadecimal digits grouped 8-4-4-4-12, such as ${EXAMPLE_UUID}; got ${shownId(String(issue.input))}`,
});
const timestamp = z.string().refine((v) => parseTimestamp(v) !== undefined, 'must be an ISO 8601 timestamp with Z or an offset (2024-05-01T09:30:00.000Z)');

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/**
 * A JSON object, passed through as JSON.parse made it. Not `z.record`: that copies the keys into a
 * new `{}`, where a `__proto__` key (an own property after JSON.parse) sets the copy's prototype
 * instead, so the key vanished from the stored settings without a word. Kept as is, `__proto__`,
 * `constructor` and `prototype` are plain data: JSON.stringify writes them to the jsonb column and
 * the API returns them as written.
 */
const jsonObject = z.custom<Record<string, unknown>>((value) => kindOf(value) === 'object', {
  error: (issue) => (issue.input === undefined ? 'required' : `expected a JSON object, got ${kindOf(issue.input)}`),
});

export const clinicRecord = z.strictObject({
  id: uuid,
  name: z.string(),
  address: z.string(),
  phone: z.string(),
  email: z.string(),
  timezone: z.string().refine(isTimeZone, 'must be an IANA time zone name (Europe/Madrid)'),
  created_at: timestamp,
  // Not part of the REST representation: the language its patients are spoken to in, for the
  // full-text search's stemming. Absent or null: the stored one is kept (none for a new clinic).
  language: z.string().regex(ISO_639_1, 'must be an ISO 639-1 language code: two lowercase letters (es)').nullish(),
});
export type ClinicRecord = z.infer<typeof clinicRecord>;

export const campaignRecord = z.strictObject({
  id,
  name: z.string(),
  description: z.string(),
  type: z.enum(CAMPAIGN_TYPES),
  channel: z.enum(CAMPAIGN_CHANNELS),
  status: z.enum(CAMPAIGN_STATUSES),
  clinic_id: uuid,
  created_at: timestamp,
  updated_at: timestamp,
  settings: jsonObject,
});
export type CampaignRecord = z.infer<typeof campaignRecord>;

export const transcriptEntry = z.strictObject({ role: z.string(), content: z.string() });

export const interactionRecord = z.strictObject({
  id,
  channel: z.enum(CHANNELS),
  type: z.enum(INTERACTION_TYPES),
  direction: z.enum(DIRECTIONS),
  phone_number: z.string(),
  clinic_id: uuid,
  campaign_id: id.nullish(),
  started_at: timestamp,
  ended_at: timestamp.nullish(),
  duration_seconds: z.int().min(0, 'must not be negative').max(MAX_INT4, `must be at most ${MAX_INT4}`).nullish(),
  outcome: z.string().regex(OUTCOME, 'must be an UPPERCASE value such as APPOINTMENT_BOOKED').nullish(),
  transcript: z.array(transcriptEntry).nullish(),
  summary: z.string().nullish(),
  recording_url: z.string().nullish(),
  // Accepted so that an export or a change-feed page imports as it is, and ignored: the database
  // sets updated_at when the row changes (the change feed depends on it being the server's clock).
  updated_at: timestamp.optional(),
});
export type InteractionRecord = z.infer<typeof interactionRecord>;

export interface RecordOf {
  clinics: ClinicRecord;
  campaigns: CampaignRecord;
  interactions: InteractionRecord;
}

export const SCHEMAS: { [R in Resource]: z.ZodType<RecordOf[R]> } = {
  clinics: clinicRecord,
  campaigns: campaignRecord,
  interactions: interactionRecord,
};

/** Ids as the database compares them: PostgreSQL folds UUIDs to lower case. */
export function normalizeUuid(value: string): string {
  return value.toLowerCase();
}
