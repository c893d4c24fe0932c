// One line at a time, no database: every rule and the exact `field: reason` it produces.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isTimeZone, parseTimestamp } from '../../src/importer/records.js';
import { checkLine } from '../../src/importer/validate.js';
import { campaignLine, clinicLine, voiceLine, whatsappLine } from './files.js';

const clinicId = randomUUID();

function problems(resource: 'clinics' | 'campaigns' | 'interactions', value: unknown): string[] {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return checkLine(resource, text).problems.map((p) => `${p.field}: ${p.reason}`);
}

function without<T extends object>(value: T, ...keys: string[]): T {
  const copy = { ...value } as Record<string, unknown>;
  for (const key of keys) delete copy[key];
  return copy as T;
}

describe('a valid line', () => {
  it('gives the record and no problem, for each resource', () => {
    for (const [resource, line] of [
      ['clinics', clinicLine()],
      ['campaigns', campaignLine(clinicId)],
      ['interactions', voiceLine(clinicId)],
      ['interactions', whatsappLine(clinicId)],
    ] as const) {
      const check = checkLine(resource, JSON.stringify(line));
      expect(check.problems).toEqual([]);
      expect(check.record).toEqual(line);
    }
  });

  it('may leave out or null the optional interaction fields', () => {
    const minimal = without(voiceLine(clinicId), 'ended_at', 'duration_seconds', 'summary', 'recording_url', 'transcript', 'outcome');
    expect(problems('interactions', minimal)).toEqual([]);
    const nulls = {
      ...minimal,
      ended_at: null,
      duration_seconds: null,
      summary: null,
      recording_url: null,
      transcript: null,
      outcome: null,
      campaign_id: null,
    };
    expect(problems('interactions', nulls)).toEqual([]);
    expect(problems('interactions', whatsappLine(clinicId, { duration_seconds: null, recording_url: null }))).toEqual([]);
  });

  it('accepts outcomes beyond the nine common ones when UPPERCASE', () => {
    expect(problems('interactions', voiceLine(clinicId, { outcome: 'WRONG_NUMBER' }))).toEqual([]);
  });
});

describe('an invalid line', () => {
  it('that is not JSON, or not an object', () => {
    const text = '{"id": "int_1", "channel": "voice",';
    let message = '';
    try {
      JSON.parse(text);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(problems('interactions', text)).toEqual([`(line): invalid JSON: ${message}`]);
    expect(problems('clinics', '[1, 2]')).toEqual(['(line): expected a JSON object, got array']);
    expect(problems('clinics', '"clinic"')).toEqual(['(line): expected a JSON object, got string']);
  });

  it('with a missing field, a wrong type or null where a value is required', () => {
    expect(problems('clinics', without(clinicLine(), 'timezone', 'email'))).toEqual(['email: required', 'timezone: required']);
    expect(problems('interactions', voiceLine(clinicId, { phone_number: 600111222, summary: 5 }))).toEqual([
      'phone_number: expected a string, got number',
      'summary: expected a string, got number',
    ]);
    expect(problems('campaigns', campaignLine(clinicId, { name: null }))).toEqual(['name: expected a string, got null']);
  });

  it('with a value outside a vocabulary', () => {
    expect(problems('interactions', voiceLine(clinicId, { channel: 'sms' }))).toEqual(['channel: expected one of voice, whatsapp; got "sms"']);
    expect(problems('campaigns', campaignLine(clinicId, { status: 'Active', type: 'promo' }))).toEqual([
      'type: expected one of no_show_recovery, reactivation, appointment_reminder, follow_up, recall, custom; got "promo"',
      'status: expected one of active, paused, completed; got "Active"',
    ]);
    expect(problems('interactions', voiceLine(clinicId, { outcome: 'booked' }))).toEqual(['outcome: must be an UPPERCASE value such as APPOINTMENT_BOOKED']);
  });

  it('with an unknown field, at any depth', () => {
    expect(problems('interactions', voiceLine(clinicId, { clinc_id: clinicId }))).toEqual(['clinc_id: unknown field']);
    const transcript = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello', at: 3 },
    ];
    expect(problems('interactions', voiceLine(clinicId, { transcript }))).toEqual(['transcript[1].at: unknown field']);
  });

  it('with a malformed transcript', () => {
    expect(problems('interactions', voiceLine(clinicId, { transcript: { role: 'user' } }))).toEqual(['transcript: expected an array, got object']);
    expect(problems('interactions', voiceLine(clinicId, { transcript: [{ role: 'user' }, 'hello'] }))).toEqual([
      'transcript[0].content: required',
      'transcript[1]: expected an object, got string',
    ]);
  });

  it('with ids, time zones and timestamps that are not what they claim', () => {
    expect(problems('clinics', clinicLine({ id: 'clinic-1', timezone: 'Mars/Olympus_Mons' }))).toEqual([
      'id: must be a UUID: 32 hexadecimal digits grouped 8-4-4-4-12, such as 3f2b8c1e-9a4d-4e6f-8b2a-1c5d7e9f0a12; got "clinic-1"',
      'timezone: must be an IANA time zone name (Europe/Madrid)',
    ]);
    const timestampReason = 'must be an ISO 8601 timestamp with Z or an offset (2024-05-01T09:30:00.000Z)';
    for (const bad of ['2024-03-01 09:00:00', '2024-03-01T09:00:00', '2024-02-30T09:00:00Z', '2024-03-01T25:00:00Z', '1709283600000']) {
      expect(problems('clinics', clinicLine({ created_at: bad }))).toEqual([`created_at: ${timestampReason}`]);
    }
    expect(problems('campaigns', campaignLine(clinicId, { id: '', settings: [] }))).toEqual([
      'id: must not be empty',
      'settings: expected a JSON object, got array',
    ]);
    // Ids a request could never name (campaign_id, a path): too long, or with a control character.
    expect(problems('campaigns', campaignLine(clinicId, { id: 'c'.repeat(256) }))).toEqual(['id: must be at most 255 characters']);
    expect(problems('campaigns', campaignLine(clinicId, { id: `${'é'.repeat(255)}` }))).toEqual([]);
    for (const bad of ['cmp\u0001', 'cmp\u007f', 'cmp\u0085']) {
      expect(problems('campaigns', campaignLine(clinicId, { id: bad }))).toEqual(['id: must not contain control characters']);
    }
    expect(problems('interactions', voiceLine(clinicId, { id: 'int\u009f' }))).toEqual(['id: must not contain control characters']);
  });

  it('whose channel and type do not pair, or whose direction does not follow the type', () => {
    expect(problems('interactions', voiceLine(clinicId, { type: 'APPOINTMENT_REMINDER', direction: 'outbound' }))).toEqual([
      'type: APPOINTMENT_REMINDER is not a voice type (voice: INBOUND, FORM_OUTBOUND, CAMPAIGN_OUTBOUND, CAMPAIGN_CALLBACK)',
    ]);
    expect(problems('interactions', voiceLine(clinicId, { type: 'FORM_OUTBOUND' }))).toEqual(['direction: must be outbound for type FORM_OUTBOUND']);
  });

  it('of a WhatsApp conversation with a call duration or recording', () => {
    expect(problems('interactions', whatsappLine(clinicId, { duration_seconds: 30, recording_url: 'https://r.example/x.mp3' }))).toEqual([
      'duration_seconds: must be absent or null for a whatsapp conversation',
      'recording_url: must be absent or null for a whatsapp conversation',
    ]);
  });

  it('with a negative or fractional duration, or an end before the start', () => {
    expect(problems('interactions', voiceLine(clinicId, { duration_seconds: -1 }))).toEqual(['duration_seconds: must not be negative']);
    expect(problems('interactions', voiceLine(clinicId, { duration_seconds: 12.5 }))).toEqual(['duration_seconds: expected an integer, got 12.5']);
    expect(problems('interactions', voiceLine(clinicId, { started_at: '2024-03-01T10:00:00+01:00', ended_at: '2024-03-01T08:59:59Z' }))).toEqual([
      'ended_at: must not be before started_at',
    ]);
  });

  it('with a character PostgreSQL cannot store', () => {
    expect(problems('interactions', voiceLine(clinicId, { summary: 'a\u0000b' }))).toEqual(['summary: must not contain the character U+0000']);
  });
});

describe('timestamps and time zones', () => {
  it('read offsets and fractions exactly', () => {
    expect(new Date(parseTimestamp('2024-05-01T11:30:00.123+02:00')!).toISOString()).toBe('2024-05-01T09:30:00.123Z');
    expect(new Date(parseTimestamp('2024-02-29T23:59:59Z')!).toISOString()).toBe('2024-02-29T23:59:59.000Z');
    expect(parseTimestamp('2023-02-29T00:00:00Z')).toBeUndefined();
  });

  it('accept IANA names, exactly cased', () => {
    expect(['Europe/Madrid', 'UTC', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5', 'America/Port-au-Prince'].every(isTimeZone)).toBe(true);
    expect(['europe/madrid', 'Europe/Atlantis', '+02:00', ''].some(isTimeZone)).toBe(false);
  });
});
