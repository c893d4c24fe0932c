// The OpenAPI 3.1 document of the REST facade, generated from the route table (routes.ts), the
// vocabularies (domain/values.ts) and the parameter rules (filters/parameters.ts), so that the
// published contract cannot drift from the code that serves it. Component schemas describe the
// exact shapes of representation.ts (decisions section 3); error responses follow decisions
// section 1. Validation examples are produced by the real validators, not written by hand.
import { execute } from 'graphql';
import { MISSING_HEADER } from '../auth/authenticate.js';
import type { Problems } from '../domain/parameters.js';
import {
  CAMPAIGN_CHANNELS,
  CAMPAIGN_STATUSES,
  CAMPAIGN_TYPES,
  CHANNELS,
  DEFAULT_PAGE_SIZE,
  DIRECTIONS,
  INTERACTION_TYPES,
  KEY_PREFIXES,
  MAX_PAGE_SIZE,
  OUTCOME_LABELS,
  OUTCOMES,
  SCHEDULED_OUTCOME,
  SCOPES,
  SUCCESSFUL_OUTCOMES,
  TIER_LIMITS,
  TYPES_BY_CHANNEL,
} from '../domain/values.js';
import { schema } from '../graphql/index.js';
import { MAX_SEARCH_LENGTH } from '../interactions/filters.js';
import type { ErrorCode } from './envelope.js';
import { readQuery } from './query-params.js';
import { REST_NAMES, type Route, routes } from './routes.js';
import { restVariables } from './variables.js';

type Json = Record<string, unknown>;

export const OPENAPI_VERSION = '3.1.0';
export const API_VERSION = '1.0.0';
export const BEARER_SCHEME = 'bearerAuth';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const JSON_TYPE = 'application/json';
const code = (text: string) => `\`${text}\``;
const list = (values: readonly string[]) => values.map(code).join(', ');

// ---------------------------------------------------------------------------------------------
// Example values (shared by schema examples and response examples)

const EXAMPLE_REQUEST_ID = 'req_6f1c2d9a4b8e4c0f9a3d5e7b1c2f4a6d';
const EXAMPLE_TIMESTAMP = '2026-01-31T09:05:00.000Z';
const EXAMPLE_CLINIC_ID = '3f6c1e2a-8b4d-4c7e-9a15-2d8f0b6e4c31';

const EXAMPLE_VOICE_CALL = {
  id: 'int_8c41f2a79d3e4b10',
  channel: 'voice',
  type: 'CAMPAIGN_OUTBOUND',
  direction: 'outbound',
  phone_number: '+34 612 345 678',
  clinic_id: EXAMPLE_CLINIC_ID,
  started_at: '2026-01-30T10:15:00.000Z',
  ended_at: '2026-01-30T10:17:42.000Z',
  duration_seconds: 162,
  outcome: 'APPOINTMENT_BOOKED',
  summary: 'The patient, overdue for a dental check-up, booked a cleaning for 4 February at 10:30.',
  recording_url: 'https://recordings.example.com/calls/int_8c41f2a79d3e4b10.mp3',
};

const EXAMPLE_TRANSCRIPT = [
  { role: 'assistant', content: 'Hello, this is Sonrisa Dental Clinic. You are due for your check-up: would you like to book it?' },
  { role: 'user', content: 'Yes, is next Wednesday morning possible?' },
  { role: 'assistant', content: 'Wednesday 4 February at 10:30 is free. Shall I book it for you?' },
  { role: 'user', content: 'Perfect, thank you.' },
];

const EXAMPLE_CONVERSATION = {
  id: 'int_2b7e90c1f45a4d38',
  channel: 'whatsapp',
  type: 'APPOINTMENT_REMINDER',
  direction: 'outbound',
  phone_number: '+34 655 901 224',
  clinic_id: EXAMPLE_CLINIC_ID,
  started_at: '2026-01-30T08:00:00.000Z',
  ended_at: '2026-01-30T08:12:05.000Z',
  outcome: 'APPOINTMENT_MODIFIED',
  transcript: [
    { role: 'assistant', content: 'Reminder: you have an appointment tomorrow, 31 January, at 17:00. Reply C to confirm or R to reschedule.' },
    { role: 'user', content: 'R, could we move it to Monday?' },
    { role: 'assistant', content: 'Done: your appointment is now on Monday 2 February at 17:00.' },
  ],
  summary: 'The patient moved their appointment from 31 January to 2 February at 17:00.',
};

const EXAMPLE_CLINIC = {
  id: EXAMPLE_CLINIC_ID,
  name: 'Sonrisa Dental Clinic',
  address: 'Calle de Alcalá 120, 28009 Madrid',
  phone: '+34 915 550 123',
  email: 'recepcion@sonrisa-dental.example.com',
  timezone: 'Europe/Madrid',
  created_at: '2025-03-14T09:30:00.000Z',
};

const EXAMPLE_CAMPAIGN = {
  id: 'cmp_5d2e8a1f7c3b4e90',
  name: 'Annual check-up recall',
  description: 'Invites patients who are due for their periodic check-up (last visit over 365 days ago).',
  type: 'recall',
  channel: 'voice',
  status: 'active',
  clinic_id: EXAMPLE_CLINIC_ID,
  created_at: '2025-11-02T10:00:00.000Z',
  updated_at: '2026-01-15T16:20:00.000Z',
  settings: {
    max_attempts: 3,
    retry_interval_hours: 48,
    call_window_start: '09:00',
    call_window_end: '19:00',
    inactivity_threshold_days: 365,
  },
};

const EXAMPLE_SUMMARY = {
  total_interactions: 1284,
  total_calls: 902,
  total_conversations: 382,
  inbound_count: 517,
  outbound_count: 767,
  avg_duration_seconds: 143.27,
  total_duration_seconds: 118_914,
  success_rate: 41.83,
  appointments_scheduled: 377,
};

const EXAMPLE_DAILY = [
  {
    date: '2026-01-28',
    total: 44,
    calls: 31,
    conversations: 13,
    inbound: 18,
    outbound: 26,
    appointments_scheduled: 12,
    success_rate: 38.64,
    avg_duration_seconds: 139.5,
  },
  { date: '2026-01-29', total: 0, calls: 0, conversations: 0, inbound: 0, outbound: 0, appointments_scheduled: 0, success_rate: 0, avg_duration_seconds: 0 },
  {
    date: '2026-01-30',
    total: 51,
    calls: 35,
    conversations: 16,
    inbound: 20,
    outbound: 31,
    appointments_scheduled: 16,
    success_rate: 43.14,
    avg_duration_seconds: 151.2,
  },
];

const EXAMPLE_OUTCOMES = {
  outcomes: [
    { outcome: 'APPOINTMENT_BOOKED', label: OUTCOME_LABELS.APPOINTMENT_BOOKED, count: 377, percentage: 29.36 },
    { outcome: 'NO_ANSWER', label: OUTCOME_LABELS.NO_ANSWER, count: 301, percentage: 23.44 },
    { outcome: 'VOICEMAIL_REACHED', label: OUTCOME_LABELS.VOICEMAIL_REACHED, count: 188, percentage: 14.64 },
    { outcome: 'CALLBACK_REQUESTED', label: OUTCOME_LABELS.CALLBACK_REQUESTED, count: 142, percentage: 11.06 },
    { outcome: 'DECISION_PENDING', label: OUTCOME_LABELS.DECISION_PENDING, count: 97, percentage: 7.55 },
    { outcome: 'APPOINTMENT_MODIFIED', label: OUTCOME_LABELS.APPOINTMENT_MODIFIED, count: 84, percentage: 6.54 },
    { outcome: 'APPOINTMENT_CANCELLED', label: OUTCOME_LABELS.APPOINTMENT_CANCELLED, count: 76, percentage: 5.92 },
    { outcome: 'OPT_OUT', label: OUTCOME_LABELS.OPT_OUT, count: 12, percentage: 0.93 },
    { outcome: 'UNREACHABLE', label: OUTCOME_LABELS.UNREACHABLE, count: 7, percentage: 0.55 },
  ],
  total: 1284,
};

// ---------------------------------------------------------------------------------------------
// Component schemas: the exact REST representations (representation.ts, envelope.ts)

const nullable = (type: string, extra: Json = {}) => ({ type: [type, 'null'], ...extra });

/** `toISOString()` output: UTC with milliseconds and `Z` (decisions section 1). */
const TIMESTAMP_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';
const timestamp = (description: string) => ({ type: 'string', format: 'date-time', pattern: TIMESTAMP_PATTERN, description });
const nullableTimestamp = (description: string) => ({ ...nullable('string'), format: 'date-time', pattern: TIMESTAMP_PATTERN, description });
const uuid = (description: string) => ({ type: 'string', format: 'uuid', description });
const count = (description: string) => ({ type: 'integer', minimum: 0, description });
const percentage = (description: string) => ({ type: 'number', minimum: 0, maximum: 100, description });

function object(properties: Record<string, Json>, extra: Json = {}, required = Object.keys(properties)): Json {
  return { type: 'object', additionalProperties: false, required, properties, ...extra };
}

const OUTCOME_VALUES = `UPPERCASE outcome, usually one of ${list(OUTCOMES)}. Outcomes are stored as text, so other UPPERCASE values can occur`;
const OUTCOME_DESCRIPTION = `${OUTCOME_VALUES}; null when the interaction has no outcome.`;

/** The fields every interaction has, in the order of the representation. */
function interactionFields(channel: 'voice' | 'whatsapp') {
  return {
    id: { type: 'string', description: 'Unique interaction id.' },
    channel: { type: 'string', const: channel, description: 'Channel of the interaction; discriminates the two shapes.' },
    type: {
      type: 'string',
      enum: [...TYPES_BY_CHANNEL[channel]],
      description: `Interaction type; for ${channel}: ${list(TYPES_BY_CHANNEL[channel])}.`,
    },
    direction: { type: 'string', enum: [...DIRECTIONS], description: '`inbound` (started by the patient) or `outbound` (started by the clinic).' },
    phone_number: { type: 'string', description: 'Patient phone number.' },
    clinic_id: uuid('Clinic UUID.'),
    started_at: timestamp('Start, ISO 8601 UTC with milliseconds.'),
    ended_at: nullableTimestamp('End, ISO 8601 UTC with milliseconds; null when not recorded.'),
  };
}

const VOICE_ONLY = {
  duration_seconds: nullable('integer', { minimum: 0, description: 'Call duration in seconds; null when not recorded.' }),
  recording_url: nullable('string', { description: 'Location of the call recording; null when there is none.' }),
};

const transcript = {
  type: 'array',
  items: ref('TranscriptEntry'),
  description: 'The conversation in order; an empty array when none was recorded.',
};

function voiceCall(withTranscript: boolean): Json {
  const { id, channel, type, direction, phone_number, clinic_id, started_at, ended_at } = interactionFields('voice');
  return object(
    {
      id,
      channel,
      type,
      direction,
      phone_number,
      clinic_id,
      started_at,
      ended_at,
      duration_seconds: VOICE_ONLY.duration_seconds,
      outcome: nullable('string', { description: OUTCOME_DESCRIPTION }),
      ...(withTranscript ? { transcript } : {}),
      summary: nullable('string', { description: 'AI-generated summary; null when there is none.' }),
      recording_url: VOICE_ONLY.recording_url,
    },
    {
      title: withTranscript ? 'Voice call (with transcript)' : 'Voice call',
      description: withTranscript
        ? 'A voice call as returned by `GET /api/v1/interactions/{id}`: with its transcript.'
        : 'A voice call as listed by `GET /api/v1/interactions`: lists carry no transcript for calls (read one by id for it).',
      examples: [withTranscript ? withTranscriptOf(EXAMPLE_VOICE_CALL) : EXAMPLE_VOICE_CALL],
    },
  );
}

function withTranscriptOf(call: typeof EXAMPLE_VOICE_CALL): Json {
  const { recording_url, summary, ...head } = call;
  return { ...head, transcript: EXAMPLE_TRANSCRIPT, summary, recording_url };
}

function whatsAppConversation(): Json {
  return object(
    {
      ...interactionFields('whatsapp'),
      outcome: nullable('string', { description: OUTCOME_DESCRIPTION }),
      transcript,
      summary: nullable('string', { description: 'AI-generated summary; null when there is none.' }),
    },
    {
      title: 'WhatsApp conversation',
      description: 'A WhatsApp conversation: always with its transcript, and without `duration_seconds` or `recording_url` keys.',
      examples: [EXAMPLE_CONVERSATION],
    },
  );
}

function interactionUnion(voiceSchema: string, description: string): Json {
  return {
    description,
    oneOf: [ref(voiceSchema), ref('WhatsAppConversation')],
    discriminator: {
      propertyName: 'channel',
      mapping: { voice: `#/components/schemas/${voiceSchema}`, whatsapp: '#/components/schemas/WhatsAppConversation' },
    },
  };
}

const CAMPAIGN_SETTINGS: Json = {
  type: 'object',
  description: 'Type-dependent configuration. The keys below are the ones in use; others may appear.',
  additionalProperties: true,
  properties: {
    max_attempts: { type: 'integer', description: 'Contact attempts per patient.' },
    retry_interval_hours: { type: 'integer', description: 'Hours between attempts.' },
    call_window_start: { type: 'string', description: 'Start of the calling window, `HH:MM`.', examples: ['09:00'] },
    call_window_end: { type: 'string', description: 'End of the calling window, `HH:MM`.', examples: ['19:00'] },
    inactivity_threshold_days: { type: 'integer', description: 'Days without a visit after which a patient is contacted.' },
    message_template: { type: 'string', description: 'Text of the outbound message.' },
    reminder_hours_before: { type: 'integer', description: 'Hours before the appointment at which reminders are sent.' },
    allow_reschedule: { type: 'boolean', description: 'Whether the patient may reschedule from the reminder.' },
    allow_cancel: { type: 'boolean', description: 'Whether the patient may cancel from the reminder.' },
  },
};

function componentSchemas(): Record<string, Json> {
  return {
    RequestId: {
      type: 'string',
      pattern: '^[A-Za-z0-9._:-]{8,128}$',
      description: 'Identifier of the request; equals the `X-Request-Id` header.',
      examples: [EXAMPLE_REQUEST_ID],
    },
    Timestamp: timestamp('When the response was produced: ISO 8601 UTC with milliseconds and `Z`.'),
    PaginationMeta: object(
      {
        page: { type: 'integer', minimum: 1, description: 'Current page, 1-indexed.' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, description: 'Items per page in use.' },
        total: count('Total items matching.'),
        total_pages: count('Number of pages: ceil(total / limit), 0 when total is 0.'),
        has_more: { type: 'boolean', description: '`true` when a further page exists (page < total_pages).' },
      },
      {
        description: 'Pagination of a list. A page beyond the last is a 200 with an empty list and `has_more: false`.',
        examples: [{ page: 1, limit: 25, total: 1284, total_pages: 52, has_more: true }],
      },
    ),
    TranscriptEntry: object(
      {
        role: { type: 'string', description: "Who spoke: `assistant` (the clinic's agent) or `user` (the patient).", examples: ['assistant', 'user'] },
        content: { type: 'string', description: 'What was said or written.' },
      },
      { examples: [EXAMPLE_TRANSCRIPT[0]] },
    ),
    VoiceCall: voiceCall(false),
    VoiceCallWithTranscript: voiceCall(true),
    WhatsAppConversation: whatsAppConversation(),
    Interaction: interactionUnion(
      'VoiceCall',
      'An interaction as listed: a voice call (without transcript) or a WhatsApp conversation (with transcript), by `channel`.',
    ),
    InteractionWithTranscript: interactionUnion(
      'VoiceCallWithTranscript',
      'One interaction read by id: a voice call or a WhatsApp conversation, both with their transcript.',
    ),
    Clinic: object(
      {
        id: uuid('Clinic UUID.'),
        name: { type: 'string' },
        address: { type: 'string' },
        phone: { type: 'string' },
        email: { type: 'string' },
        timezone: { type: 'string', description: 'IANA time zone name.', examples: ['Europe/Madrid'] },
        created_at: timestamp('ISO 8601 UTC with milliseconds.'),
      },
      { examples: [EXAMPLE_CLINIC] },
    ),
    CampaignSettings: CAMPAIGN_SETTINGS,
    Campaign: object(
      {
        id: { type: 'string', description: 'Unique campaign id.' },
        name: { type: 'string' },
        description: { type: 'string' },
        type: {
          type: 'string',
          enum: [...CAMPAIGN_TYPES],
          description:
            '`no_show_recovery` contacts patients who missed appointments; `reactivation` re-engages inactive patients; `appointment_reminder` sends reminders; ' +
            '`follow_up` is post-appointment follow-up; `recall` is periodic health-check reminders; `custom` is any custom type.',
        },
        channel: { type: 'string', enum: [...CAMPAIGN_CHANNELS] },
        status: { type: 'string', enum: [...CAMPAIGN_STATUSES] },
        clinic_id: uuid('Clinic UUID.'),
        created_at: timestamp('ISO 8601 UTC with milliseconds.'),
        updated_at: timestamp('ISO 8601 UTC with milliseconds.'),
        settings: ref('CampaignSettings'),
      },
      { examples: [EXAMPLE_CAMPAIGN] },
    ),
    InteractionList: object(
      { interactions: { type: 'array', items: ref('Interaction') } },
      { examples: [{ interactions: [EXAMPLE_VOICE_CALL, EXAMPLE_CONVERSATION] }] },
    ),
    InteractionDetail: object({ interaction: ref('InteractionWithTranscript') }, { examples: [{ interaction: withTranscriptOf(EXAMPLE_VOICE_CALL) }] }),
    ClinicList: object({ clinics: { type: 'array', items: ref('Clinic') } }, { examples: [{ clinics: [EXAMPLE_CLINIC] }] }),
    CampaignList: object({ campaigns: { type: 'array', items: ref('Campaign') } }, { examples: [{ campaigns: [EXAMPLE_CAMPAIGN] }] }),
    SummaryMetrics: object(
      {
        total_interactions: count('Interactions in the period.'),
        total_calls: count('Voice calls.'),
        total_conversations: count('WhatsApp conversations.'),
        inbound_count: count('Inbound interactions.'),
        outbound_count: count('Outbound interactions.'),
        avg_duration_seconds: { type: 'number', minimum: 0, description: 'Mean `duration_seconds` of the voice calls that have one, 2 decimals; 0 when none.' },
        total_duration_seconds: count('Sum of `duration_seconds` of the voice calls.'),
        success_rate: percentage(SUCCESS_RATE),
        appointments_scheduled: count(`Interactions with outcome ${code(SCHEDULED_OUTCOME)}.`),
      },
      { examples: [EXAMPLE_SUMMARY] },
    ),
    DailyMetric: object(
      {
        date: { type: 'string', format: 'date', description: 'UTC day, `YYYY-MM-DD`.' },
        total: count('Total interactions.'),
        calls: count('Voice calls.'),
        conversations: count('WhatsApp conversations.'),
        inbound: count('Inbound interactions.'),
        outbound: count('Outbound interactions.'),
        appointments_scheduled: count(`Interactions with outcome ${code(SCHEDULED_OUTCOME)}.`),
        success_rate: percentage(SUCCESS_RATE),
        avg_duration_seconds: { type: 'number', minimum: 0, description: 'Mean call duration of the day, 2 decimals; 0 when none.' },
      },
      { examples: [EXAMPLE_DAILY[0]] },
    ),
    DailyMetrics: object(
      { daily: { type: 'array', items: ref('DailyMetric'), description: 'One entry for every UTC day of the window (zero-filled), by date ascending.' } },
      { examples: [{ daily: EXAMPLE_DAILY }] },
    ),
    OutcomeBreakdownEntry: object(
      {
        outcome: { type: 'string', description: `${OUTCOME_VALUES}.` },
        label: { type: 'string', description: 'Human-readable name (`Appointment Booked`, `No Answer`, ...).' },
        count: { type: 'integer', minimum: 1, description: 'Interactions with this outcome (entries with no interaction are left out).' },
        percentage: percentage('count / total x 100, rounded to 2 decimals.'),
      },
      { examples: [EXAMPLE_OUTCOMES.outcomes[0]] },
    ),
    OutcomeBreakdown: object(
      {
        outcomes: { type: 'array', items: ref('OutcomeBreakdownEntry'), description: 'Most frequent first; ties by outcome ascending.' },
        total: count('Interactions counted in the breakdown: those with an outcome (the sum of the counts).'),
      },
      { examples: [EXAMPLE_OUTCOMES] },
    ),
    ...errorSchemas(),
  };
}

const SUCCESS_RATE =
  `Percentage of successful outcomes, 0-100, rounded to 2 decimals: interactions whose outcome is ${list(SUCCESSFUL_OUTCOMES)} ` +
  "(the patient's scheduling request was completed) over interactions that have an outcome, x 100; 0 when there are none.";

// ---------------------------------------------------------------------------------------------
// Errors (decisions section 1)

interface ErrorKind {
  schema: string;
  status: number;
  codes: ErrorCode[];
  description: string;
  details?: Json;
}

const ERRORS = {
  validation: {
    schema: 'ValidationError',
    status: 400,
    codes: ['VALIDATION_ERROR'],
    description: 'Invalid query parameter(s): message `Invalid query parameters`; `details` maps EVERY offending parameter name to a message.',
    details: {
      type: 'object',
      minProperties: 1,
      additionalProperties: { type: 'string' },
      description: 'Parameter name -> what is wrong with it.',
    },
  },
  unauthorized: {
    schema: 'AuthenticationError',
    status: 401,
    codes: ['UNAUTHORIZED', 'INVALID_API_KEY', 'API_KEY_EXPIRED'],
    description:
      'Authentication failed: `UNAUTHORIZED` (header missing or not `Bearer <API key>`), `INVALID_API_KEY` (unknown, malformed or revoked key; message `Invalid API key`) ' +
      'or `API_KEY_EXPIRED` (message `API key has expired`).',
  },
  forbidden: {
    schema: 'InsufficientScopeError',
    status: 403,
    codes: ['INSUFFICIENT_SCOPE'],
    description: 'The API key lacks the scope the endpoint needs; `details.required_scope` names it.',
    details: {
      type: 'object',
      additionalProperties: false,
      required: ['required_scope'],
      properties: { required_scope: { type: 'string', enum: [...SCOPES] } },
    },
  },
  notFound: {
    schema: 'NotFoundError',
    status: 404,
    codes: ['NOT_FOUND'],
    description: 'No such resource, or one of a clinic the key may not see (existence is not revealed).',
  },
  rateLimited: {
    schema: 'RateLimitedError',
    status: 429,
    codes: ['RATE_LIMITED'],
    description: 'A rate-limit window is exhausted: message `Rate limit exceeded`; wait `Retry-After` seconds.',
  },
  internal: {
    schema: 'InternalError',
    status: 500,
    codes: ['INTERNAL_ERROR'],
    description: 'Unexpected failure; the message is generic and the details are in the server logs under the `request_id`.',
  },
  unavailable: {
    schema: 'ServiceUnavailableError',
    status: 503,
    codes: ['SERVICE_UNAVAILABLE'],
    description: 'The database is unreachable or saturated; retry after `Retry-After` seconds.',
  },
} satisfies Record<string, ErrorKind>;

function errorSchemas(): Record<string, Json> {
  const schemas: Record<string, Json> = {};
  for (const kind of Object.values(ERRORS) as ErrorKind[]) {
    const error: Record<string, Json> = {
      code: kind.codes.length === 1 ? { type: 'string', const: kind.codes[0] } : { type: 'string', enum: kind.codes },
      message: { type: 'string', description: 'Human-readable text.' },
    };
    if (kind.details) error.details = kind.details;
    schemas[kind.schema] = object(
      {
        success: { type: 'boolean', const: false },
        error: object(error),
        request_id: ref('RequestId'),
        timestamp: ref('Timestamp'),
      },
      { description: `HTTP ${kind.status}. ${kind.description}` },
    );
  }
  return schemas;
}

function errorBody(code: ErrorCode, message: string, details?: unknown): Json {
  return {
    success: false,
    error: details === undefined ? { code, message } : { code, message, details },
    request_id: EXAMPLE_REQUEST_ID,
    timestamp: EXAMPLE_TIMESTAMP,
  };
}

// ---------------------------------------------------------------------------------------------
// Headers

const RATE_LIMIT_HEADERS = ['Minute', 'Hour', 'Day'].flatMap((window) => [`X-RateLimit-Limit-${window}`, `X-RateLimit-Remaining-${window}`]);

function componentHeaders(): Record<string, Json> {
  const headers: Record<string, Json> = {
    'X-Request-Id': {
      description: "Identifier of the request, equal to the body's `request_id`. A well-formed incoming `X-Request-Id` (8-128 of `A-Za-z0-9._:-`) is reused.",
      required: true,
      schema: { type: 'string' },
    },
    'Retry-After': { description: 'Whole seconds to wait before retrying.', required: true, schema: { type: 'integer', minimum: 1 } },
    'WWW-Authenticate': { description: 'Bearer challenge (RFC 6750).', required: true, schema: { type: 'string' } },
  };
  for (const name of RATE_LIMIT_HEADERS) {
    const window = name.slice(name.lastIndexOf('-') + 1).toLowerCase();
    const what = name.includes('-Limit-') ? 'Requests allowed' : 'Requests left';
    headers[name] = {
      description:
        `${what} in the current UTC ${window} window (fixed windows aligned to UTC boundaries). ` +
        'Present on every response to a Standard or Premium key; absent for Unlimited-tier keys and on 401 responses.',
      required: false,
      schema: { type: 'integer', minimum: 0 },
    };
  }
  return headers;
}

function headersOf(...names: string[]): Record<string, Json> {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

// ---------------------------------------------------------------------------------------------
// Parameters (decisions section 2)

const DATE_FORMATS = '`YYYY-MM-DD` or an ISO 8601 date-time with `Z` or an offset (`2026-01-31T09:05:00Z`, `2026-01-31T10:05:00+01:00`)';

const dateSchema = (example: string) => ({
  oneOf: [
    { type: 'string', format: 'date', title: 'Date (YYYY-MM-DD)' },
    { type: 'string', format: 'date-time', title: 'Date-time with Z or an offset' },
  ],
  examples: [example],
});

function queryParameter(name: string, route: Route): Json {
  const metrics = route.scope === 'metrics:read';
  const parameter = (description: string, schema: Json, extra: Json = {}): Json => ({ name, in: 'query', required: false, description, schema, ...extra });
  switch (name) {
    case 'page':
      return parameter('Page, 1-indexed. An integer of at least 1; anything else is a 400. A page beyond the last is an empty list.', {
        type: 'integer',
        minimum: 1,
        default: 1,
      });
    case 'limit':
      return parameter(`Items per page, 1 to ${MAX_PAGE_SIZE}; anything else is a 400 (no silent clamping).`, {
        type: 'integer',
        minimum: 1,
        maximum: MAX_PAGE_SIZE,
        default: DEFAULT_PAGE_SIZE,
      });
    case 'date_from':
      return parameter(
        `Start of the window on \`started_at\`: ${DATE_FORMATS}. A date means 00:00:00.000 UTC of that day. ` +
          (metrics ? 'Default: the start of the UTC day 30 days ago. ' : 'Default: no lower bound. ') +
          'Must not be later than `date_to`.',
        dateSchema('2026-01-01'),
      );
    case 'date_to':
      return parameter(
        `End of the window on \`started_at\`, inclusive: ${DATE_FORMATS}. A date means the end of that UTC day (23:59:59.999). ` +
          (metrics ? 'Default: the end of today (UTC).' : 'Default: no upper bound.'),
        dateSchema('2026-01-31'),
      );
    case 'channel':
      return parameter(`Only interactions of this channel: ${list(CHANNELS)}.`, { type: 'string', enum: [...CHANNELS] });
    case 'type':
      return parameter(
        `Only interactions of this type. With \`channel=voice\`: ${list(TYPES_BY_CHANNEL.voice)}; with \`channel=whatsapp\`: ${list(TYPES_BY_CHANNEL.whatsapp)} ` +
          '(a type not valid for the given channel is a 400). Without `channel`, any type.',
        { type: 'string', enum: [...INTERACTION_TYPES] },
      );
    case 'outcome':
      return parameter(
        `One or more outcomes, comma-separated (any of them matches): ${list(OUTCOMES)}. UPPERCASE, case-sensitive; any other item (wrong case, empty) is a 400.`,
        { type: 'array', minItems: 1, items: { type: 'string', enum: [...OUTCOMES] } },
        { style: 'form', explode: false, examples: { one: { value: ['APPOINTMENT_BOOKED'] }, several: { value: ['NO_ANSWER', 'VOICEMAIL_REACHED'] } } },
      );
    case 'clinic_id':
      return parameter(
        'Only this clinic (a UUID, else 400). A well-formed id of a clinic that does not exist or that the key may not see gives empty results (zeros for metrics), not an error.',
        { type: 'string', format: 'uuid' },
      );
    case 'search':
      return parameter(
        `Case-insensitive substring of \`phone_number\` (1 to ${MAX_SEARCH_LENGTH} characters). A literal \`+\` must be URL-encoded as \`%2B\`.`,
        { type: 'string', minLength: 1, maxLength: MAX_SEARCH_LENGTH },
        { examples: { digits: { value: '612 345' }, international: { summary: 'sent as search=%2B34', value: '+34' } } },
      );
    case 'status':
      return parameter(`Only campaigns in this status: ${list(CAMPAIGN_STATUSES)}.`, { type: 'string', enum: [...CAMPAIGN_STATUSES] });
    default:
      throw new Error(`openapi: no documentation for query parameter "${name}" of ${route.path}`);
  }
}

function pathParameters(route: Route): Json[] {
  const segments = route.path.split('/');
  return segments.flatMap((segment, i) => {
    const match = /^\{(.+)\}$/.exec(segment);
    if (!match) return [];
    const resource = (segments[i - 1] ?? 'resource').replace(/s$/, '');
    return [{ name: match[1], in: 'path', required: true, description: `Id of the ${resource}.`, schema: { type: 'string', minLength: 1 } }];
  });
}

/** A bad value per parameter, most telling first, to show what validation answers. */
const BAD_VALUES: ReadonlyArray<[string, string]> = [
  ['outcome', 'booked,NO_ANSWER'],
  ['status', 'running'],
  ['limit', '1000'],
  ['date_to', '2026-02-30'],
  ['channel', 'sms'],
  ['page', '0'],
  ['date_from', '31/01/2026'],
  ['type', 'SMS'],
  ['clinic_id', '42'],
  ['search', ''],
];

/**
 * The details of the 400 a request gets, found as the facade finds them: the query string read and
 * mapped to variables (variables.ts), then the route's document executed with the resolvers only
 * checking (graphql/errors.ts), by a key with every scope. Synchronous: a checking resolver throws
 * before it reads anything.
 */
function validationDetails(route: Route, url: URL): Problems {
  const problems: Problems = {};
  const query = readQuery(url, route.params, problems);
  const { variables, unconverted } = restVariables(schema, route.document, REST_NAMES, { query, pathParams: { id: 'example' } }, problems);
  const contextValue = {
    key: { scopes: [...SCOPES] },
    visibleClinics: null,
    now: new Date(EXAMPLE_TIMESTAMP),
    parameters: { names: REST_NAMES, unconverted, checkOnly: true },
  };
  const result = execute({ schema, document: route.document, variableValues: variables, contextValue });
  if (result instanceof Promise) throw new Error(`checking the parameters of ${route.path} did not finish synchronously`);
  const validation = result.errors?.find((e) => e.extensions?.code === 'VALIDATION_ERROR');
  return Object.assign(problems, validation?.extensions.details as Problems | undefined);
}

/**
 * The `VALIDATION_ERROR` details the route really gives for a bad query (two bad values, plus the
 * typo `clinicId` where `clinic_id` exists), computed by the route's own validation.
 */
function validationExample(route: Route): { query: string; details: Problems } {
  const search = new URLSearchParams(BAD_VALUES.filter(([name]) => route.params.includes(name)).slice(0, 2));
  if (route.params.includes('clinic_id')) search.set('clinicId', EXAMPLE_CLINIC_ID);
  if (route.params.length === 0) search.set('include', 'transcript');
  const url = new URL(`http://localhost${route.path.replace(/\{[^}]+\}/g, 'example')}?${search}`);
  return { query: decodeURIComponent(search.toString()), details: validationDetails(route, url) };
}

// ---------------------------------------------------------------------------------------------
// Operations

const SEGMENT_WORD = (segment: string) => segment.charAt(0).toUpperCase() + segment.slice(1);

/** `listInteractions`, `getInteractionById`, `getMetricsSummary`: from the path, stable across wording changes. */
function operationIdOf(route: Route): string {
  const segments = route.path.replace(/^\/api\/v1\//, '').split('/');
  const words = segments.map((segment, i) => {
    if (segment.startsWith('{')) return `By${SEGMENT_WORD(segment.slice(1, -1))}`;
    // A collection followed by an id names one item: `interactions/{id}` -> `InteractionById`.
    const word = segments[i + 1]?.startsWith('{') ? segment.replace(/s$/, '') : segment;
    return SEGMENT_WORD(word.replace(/[-_](.)/g, (_, c: string) => c.toUpperCase()));
  });
  return `${route.params.includes('page') ? 'list' : 'get'}${words.join('')}`;
}

const tagOf = (route: Route) => SEGMENT_WORD(route.path.replace(/^\/api\/v1\//, '').split('/')[0]!);

const paginated = (route: Route) => route.params.includes('page');

function successSchemaName(route: Route): string {
  return `${route.dataSchema}Envelope`;
}

function successSchema(route: Route, dataSchema: Json): Json {
  const properties: Record<string, Json> = { success: { type: 'boolean', const: true }, data: ref(route.dataSchema) };
  if (paginated(route)) properties.meta = ref('PaginationMeta');
  properties.request_id = ref('RequestId');
  properties.timestamp = ref('Timestamp');
  return object(properties, { description: `Success envelope of ${route.path}.`, examples: [successExample(route, dataSchema)] });
}

function successExample(route: Route, dataSchema: Json): Json {
  const data = (dataSchema.examples as unknown[] | undefined)?.[0];
  if (data === undefined) throw new Error(`openapi: schema ${route.dataSchema} has no example`);
  const body: Json = { success: true, data };
  if (paginated(route)) {
    const items = Object.values(data as Json)[0] as unknown[];
    body.meta = { page: 1, limit: DEFAULT_PAGE_SIZE, total: items.length, total_pages: 1, has_more: false };
  }
  return { ...body, request_id: EXAMPLE_REQUEST_ID, timestamp: EXAMPLE_TIMESTAMP };
}

const SUCCESS_HEADERS = headersOf('X-Request-Id', ...RATE_LIMIT_HEADERS);

function jsonContent(schema: string, examples?: Record<string, Json>): Json {
  return { [JSON_TYPE]: { schema: ref(schema), ...(examples ? { examples } : {}) } };
}

function sharedResponses(): Record<string, Json> {
  return {
    Unauthorized: {
      description: ERRORS.unauthorized.description,
      headers: headersOf('X-Request-Id', 'WWW-Authenticate'),
      content: jsonContent('AuthenticationError', {
        missingHeader: { summary: 'No Authorization header', value: errorBody('UNAUTHORIZED', MISSING_HEADER.message) },
        invalidKey: { summary: 'Unknown or revoked key', value: errorBody('INVALID_API_KEY', 'Invalid API key') },
        expiredKey: { summary: 'Expired key', value: errorBody('API_KEY_EXPIRED', 'API key has expired') },
      }),
    },
    NotFound: {
      description: ERRORS.notFound.description,
      headers: headersOf('X-Request-Id', ...RATE_LIMIT_HEADERS),
      content: jsonContent('NotFoundError', { notFound: { summary: 'Unknown id', value: errorBody('NOT_FOUND', 'No interaction with that id') } }),
    },
    RateLimited: {
      description:
        `${ERRORS.rateLimited.description} The exhausted window's \`X-RateLimit-Remaining-*\` is 0. Repeated failed authentications from one client IP are limited ` +
        'the same way (then without `X-RateLimit-*` headers).',
      headers: headersOf('X-Request-Id', 'Retry-After', ...RATE_LIMIT_HEADERS),
      content: jsonContent('RateLimitedError', {
        rateLimited: { summary: 'Minute window exhausted', value: errorBody('RATE_LIMITED', 'Rate limit exceeded') },
      }),
    },
    InternalError: {
      description: ERRORS.internal.description,
      headers: headersOf('X-Request-Id', ...RATE_LIMIT_HEADERS),
      content: jsonContent('InternalError', { internal: { value: errorBody('INTERNAL_ERROR', 'An unexpected error occurred') } }),
    },
    ServiceUnavailable: {
      description: ERRORS.unavailable.description,
      headers: headersOf('X-Request-Id', 'Retry-After', ...RATE_LIMIT_HEADERS),
      content: jsonContent('ServiceUnavailableError', {
        unavailable: { value: errorBody('SERVICE_UNAVAILABLE', 'The service is temporarily unavailable; retry shortly') },
      }),
    },
  };
}

const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });

function operation(route: Route, schemas: Record<string, Json>): Json {
  const dataSchema = schemas[route.dataSchema];
  if (!dataSchema) throw new Error(`openapi: no component schema ${route.dataSchema} for ${route.path}`);
  const envelopeName = successSchemaName(route);
  schemas[envelopeName] ??= successSchema(route, dataSchema);

  const validation = validationExample(route);
  const responses: Record<string, Json> = {
    200: {
      description: paginated(route) ? 'The page of results, with pagination `meta`.' : 'The result.',
      headers: SUCCESS_HEADERS,
      content: jsonContent(envelopeName, { success: { summary: 'Success', value: successExample(route, dataSchema) } }),
    },
    400: {
      description: ERRORS.validation.description,
      headers: headersOf('X-Request-Id', ...RATE_LIMIT_HEADERS),
      content: jsonContent('ValidationError', {
        invalidParameters: {
          summary: `?${validation.query}`,
          value: errorBody('VALIDATION_ERROR', 'Invalid query parameters', validation.details),
        },
      }),
    },
    401: responseRef('Unauthorized'),
    403: {
      description: `${ERRORS.forbidden.description} This endpoint needs \`${route.scope}\`.`,
      headers: headersOf('X-Request-Id', 'WWW-Authenticate', ...RATE_LIMIT_HEADERS),
      content: jsonContent('InsufficientScopeError', {
        insufficientScope: {
          summary: `Key without ${route.scope}`,
          value: errorBody('INSUFFICIENT_SCOPE', `This API key lacks the scope ${route.scope} needed for this endpoint`, { required_scope: route.scope }),
        },
      }),
    },
  };
  if (route.path.includes('{')) responses[404] = responseRef('NotFound');
  responses[429] = responseRef('RateLimited');
  responses[500] = responseRef('InternalError');
  responses[503] = responseRef('ServiceUnavailable');

  return {
    operationId: operationIdOf(route),
    tags: [tagOf(route)],
    summary: route.summary,
    description: `${route.description}\n\nRequired scope: \`${route.scope}\`.`,
    'x-required-scope': route.scope,
    security: [{ [BEARER_SCHEME]: [route.scope] }],
    parameters: [...pathParameters(route), ...route.params.map((name) => queryParameter(name, route))],
    responses,
  };
}

// ---------------------------------------------------------------------------------------------
// Document

function scopesTable(): string {
  const rows = SCOPES.map((scope) => {
    const endpoints = routes.filter((r) => r.scope === scope).map((r) => `\`GET ${r.path}\``);
    return `| \`${scope}\` | ${endpoints.join(', ') || '-'} |`;
  });
  return ['| Scope | Endpoints |', '|---|---|', ...rows].join('\n');
}

function tiersTable(): string {
  const rows = Object.entries(TIER_LIMITS).map(([tier, limits]) => {
    const name = tier.charAt(0).toUpperCase() + tier.slice(1);
    const n = (value: number) => value.toLocaleString('en-US');
    return limits ? `| ${name} | ${n(limits.minute)} | ${n(limits.hour)} | ${n(limits.day)} |` : `| ${name} | none | none | none |`;
  });
  return ['| Tier | Per minute | Per hour | Per day |', '|---|---|---|---|', ...rows].join('\n');
}

function errorsTable(): string {
  const rows = [
    ...(Object.values(ERRORS) as ErrorKind[]).map((kind) => `| ${kind.status} | ${kind.codes.map(code).join(', ')} | ${kind.description} |`),
    '| 404 | `NOT_FOUND` | Also for an unknown path. |',
    '| 405 | `METHOD_NOT_ALLOWED` | A method other than GET or HEAD; `Allow: GET, HEAD`. |',
  ];
  return ['| Status | Code | When |', '|---|---|---|', ...rows].join('\n');
}

function infoDescription(): string {
  return `Read-only analytics over the automated patient communications of clinics: voice calls and WhatsApp conversations (*interactions*), clinics, outreach campaigns, and aggregated metrics.
Every endpoint is \`GET\` (\`HEAD\` is answered too) and returns JSON in one envelope: \`{ success, data, meta?, request_id, timestamp }\` on success, \`{ success: false, error: { code, message, details? }, request_id, timestamp }\` on failure.
This document is served at \`GET /api/v1/openapi.json\` (no key needed); the same data is available through GraphQL at \`/graphql\`.

## Authentication

Send \`Authorization: Bearer <API key>\` with every request. Keys start with \`${KEY_PREFIXES.live}\` (production) or \`${KEY_PREFIXES.test}\` (testing and sandbox), followed by at least 32 random base62 characters; they are issued by your account manager and shown once.
A key may be restricted to specific clinics: other clinics' data is then invisible (empty lists, zeros in metrics, 404 on by-id lookups), never an error.

## Scopes

A key holds one or more scopes (by default all four). Each endpoint needs one (\`x-required-scope\`); without it the answer is 403 \`INSUFFICIENT_SCOPE\`.

${scopesTable()}

## Rate limits

Per API key, in three fixed windows aligned to UTC minute, hour and day boundaries; a request is admitted only when all three have room. Every request that passes authentication counts, whatever its status.

${tiersTable()}

Responses to Standard and Premium keys carry \`X-RateLimit-Limit-{Minute,Hour,Day}\` and \`X-RateLimit-Remaining-{Minute,Hour,Day}\` (integers); Unlimited-tier keys get none of these headers. When a window is exhausted the answer is 429 \`RATE_LIMITED\` with \`Retry-After\` (seconds). Failed authentications are limited per client IP.

## Pagination

List endpoints take \`page\` (1-indexed, default 1) and \`limit\` (1 to ${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}) and return \`meta: { page, limit, total, total_pages, has_more }\`. Orders are stable across pages. A parameter that an endpoint does not list, or one given twice, is a 400.

## Errors

Checks run in this order: route, authentication, rate limit, scope, parameters, execution. Every response carries \`X-Request-Id\`, equal to the body's \`request_id\`.

${errorsTable()}

## Metrics

- Default window: from the start of the UTC day 30 days ago to the end of today (UTC); all days are UTC days.
- \`success_rate\`: interactions with a successful outcome (${list(SUCCESSFUL_OUTCOMES)}: the patient's scheduling request was completed) divided by the interactions that have an outcome, x 100, rounded to 2 decimals; 0 when there are none.
- \`appointments_scheduled\`: interactions with outcome \`${SCHEDULED_OUTCOME}\`.
- \`avg_duration_seconds\`: mean \`duration_seconds\` of the voice calls that have one, rounded to 2 decimals (0 when none); \`total_duration_seconds\` is their sum.

Timestamps are ISO 8601 UTC with milliseconds and \`Z\` (\`2026-01-31T09:05:00.000Z\`).`;
}

function build(): Json {
  const schemas = componentSchemas();
  const paths: Record<string, Json> = {};
  const tags: string[] = [];
  for (const route of routes) {
    if (paths[route.path]) throw new Error(`openapi: duplicate route ${route.path}`);
    paths[route.path] = { get: operation(route, schemas) };
    if (!tags.includes(tagOf(route))) tags.push(tagOf(route));
  }
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Clinic Interaction Analytics API',
      version: API_VERSION,
      description: infoDescription(),
    },
    servers: [{ url: '/', description: 'This server' }],
    security: [{ [BEARER_SCHEME]: [] }],
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        [BEARER_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: `${KEY_PREFIXES.live}... / ${KEY_PREFIXES.test}...`,
          description:
            `An API key as a Bearer token: \`Authorization: Bearer ${KEY_PREFIXES.live}<random>\`. \`${KEY_PREFIXES.live}\` keys are for production, ` +
            `\`${KEY_PREFIXES.test}\` keys for testing and sandbox use. Keys are issued by your account manager.`,
        },
      },
      schemas,
      responses: sharedResponses(),
      headers: componentHeaders(),
    },
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

let document: Json | undefined;

/** The OpenAPI 3.1 document of the REST API, built once from the route table (and frozen). */
export function buildOpenApiDocument(): Json {
  document ??= deepFreeze(build());
  return document;
}
