// Example values of the OpenAPI document (openapi.ts): one realistic clinic's data, shared by the
// component schemas' examples and the responses' examples. The document's test validates every
// example against its schema, so an example cannot show a shape the API does not serve.
import { OUTCOME_LABELS } from '../domain/values.js';

export const EXAMPLE_REQUEST_ID = 'req_6f1c2d9a4b8e4c0f9a3d5e7b1c2f4a6d';
export const EXAMPLE_TIMESTAMP = '2026-01-31T09:05:00.000Z';
export const EXAMPLE_CLINIC_ID = '3f6c1e2a-8b4d-4c7e-9a15-2d8f0b6e4c31';

/**
 * Interaction number 0 of the demo data (`npm start` without DATABASE_URL; src/seed/generate.ts,
 * default seed): the id "Try it out" pre-fills in GET /api/v1/interactions/{id}. A record's id
 * depends only on the seed and its index, so every demo database has this one; a test checks it.
 */
export const EXAMPLE_DEMO_INTERACTION_ID = '2215f102-35f4-4f93-a7b1-87a87435899a';

/** A tombstone of GET /api/v1/interactions/deleted. */
export const EXAMPLE_DELETED_INTERACTION = { id: 'int_7d41a9c2', clinic_id: EXAMPLE_CLINIC_ID, deleted_at: '2026-01-31T09:05:12.345Z' };

export const EXAMPLE_VOICE_CALL = {
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

export const EXAMPLE_TRANSCRIPT = [
  { role: 'assistant', content: 'Hello, this is Sonrisa Dental Clinic. You are due for your check-up: would you like to book it?' },
  { role: 'user', content: 'Yes, is next Wednesday morning possible?' },
  { role: 'assistant', content: 'Wednesday 4 February at 10:30 is free. Shall I book it for you?' },
  { role: 'user', content: 'Perfect, thank you.' },
];

export const EXAMPLE_CONVERSATION = {
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

export const EXAMPLE_CLINIC = {
  id: EXAMPLE_CLINIC_ID,
  name: 'Sonrisa Dental Clinic',
  address: 'Calle de Alcalá 120, 28009 Madrid',
  phone: '+34 915 550 123',
  email: 'recepcion@sonrisa-dental.example.com',
  timezone: 'Europe/Madrid',
  created_at: '2025-03-14T09:30:00.000Z',
};

export const EXAMPLE_CAMPAIGN = {
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

export const EXAMPLE_SUMMARY = {
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

export const EXAMPLE_DAILY = [
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

export const EXAMPLE_OUTCOMES = {
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

/** The example call as read by id: with its transcript, in the representation's field order. */
export function withTranscriptOf(call: typeof EXAMPLE_VOICE_CALL): Record<string, unknown> {
  const { recording_url, summary, ...head } = call;
  return { ...head, transcript: EXAMPLE_TRANSCRIPT, summary, recording_url };
}

/** A weekly series in Europe/Madrid, cut to a window starting on a Wednesday. */
export const EXAMPLE_SERIES = [
  {
    start: '2026-10-21T00:00:00.000+02:00',
    end: '2026-10-26T00:00:00.000+01:00',
    total: 212,
    calls: 149,
    conversations: 63,
    inbound: 85,
    outbound: 127,
    appointments_scheduled: 61,
    success_rate: 40.57,
    avg_duration_seconds: 142.08,
  },
  {
    start: '2026-10-26T00:00:00.000+01:00',
    end: '2026-11-02T00:00:00.000+01:00',
    total: 301,
    calls: 214,
    conversations: 87,
    inbound: 119,
    outbound: 182,
    appointments_scheduled: 90,
    success_rate: 42.19,
    avg_duration_seconds: 138.7,
  },
];

export const EXAMPLE_SUMMARY_PREVIOUS = {
  total_interactions: 1107,
  total_calls: 790,
  total_conversations: 317,
  inbound_count: 460,
  outbound_count: 647,
  avg_duration_seconds: 150.02,
  total_duration_seconds: 110_711,
  success_rate: 39.5,
  appointments_scheduled: 0,
};

export const EXAMPLE_SUMMARY_CHANGE = {
  total_interactions: 15.99,
  total_calls: 14.18,
  total_conversations: 20.5,
  inbound_count: 12.39,
  outbound_count: 18.55,
  avg_duration_seconds: -4.5,
  total_duration_seconds: 7.41,
  success_rate: 5.9,
  appointments_scheduled: null,
};

/** A breakdown by campaign and outcome: keys first, then the summary of the group. */
export const EXAMPLE_BREAKDOWN = {
  groups: [
    {
      campaign_id: EXAMPLE_CAMPAIGN.id,
      campaign_name: EXAMPLE_CAMPAIGN.name,
      outcome: 'APPOINTMENT_BOOKED',
      total_interactions: 212,
      total_calls: 212,
      total_conversations: 0,
      inbound_count: 0,
      outbound_count: 212,
      avg_duration_seconds: 241.5,
      total_duration_seconds: 51_198,
      success_rate: 100,
      appointments_scheduled: 212,
    },
    {
      campaign_id: null,
      campaign_name: null,
      outcome: 'NO_ANSWER',
      total_interactions: 97,
      total_calls: 97,
      total_conversations: 0,
      inbound_count: 12,
      outbound_count: 85,
      avg_duration_seconds: 31.04,
      total_duration_seconds: 3011,
      success_rate: 0,
      appointments_scheduled: 0,
    },
  ],
};

export const EXAMPLE_DURATIONS = {
  count: 902,
  percentiles: { p50: 128.41, p75: 214.07, p90: 301.5, p95: 352.88, p99: 411.12 },
  histogram: [
    { from_seconds: 0, to_seconds: 10, count: 14 },
    { from_seconds: 10, to_seconds: 20, count: 51 },
    { from_seconds: 20, to_seconds: 30, count: 88 },
  ],
  precision_seconds: 10,
};

/** GET /api/v1/me at EXAMPLE_TIMESTAMP (09:05:00.000Z) by a Standard key: its third request of that minute. */
export const EXAMPLE_VIEWER = {
  id: '7d2f9c4e-1a3b-4e6f-8c0d-5b9a2e7f1c34',
  name: 'Sonrisa reporting dashboard',
  prefix: 'svc_live_AbCd',
  environment: 'live',
  scopes: ['interactions:read', 'metrics:read'],
  clinic_ids: [EXAMPLE_CLINIC_ID],
  tier: 'standard',
  quota: {
    minute: { limit: 60, remaining: 57, reset_seconds: 60 },
    hour: { limit: 1000, remaining: 912, reset_seconds: 3300 },
    day: { limit: 10000, remaining: 8765, reset_seconds: 53700 },
  },
  expires_at: null,
  created_at: '2025-11-03T14:20:11.532Z',
  last_used_at: '2026-01-31T09:04:12.000Z',
};
