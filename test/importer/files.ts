// Import files for tests: lines in the REST representation with fresh random ids, written to a
// temporary directory of the test file (removed after its tests).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { uniqueId } from '../helpers/factories.js';

let dir: string | undefined;

/** Writes `lines` (objects as JSON, strings as they are) to a new file; returns its absolute path. */
export function writeLines(name: string, lines: Array<object | string>): string {
  if (!dir) {
    const created = fs.mkdtempSync(path.join(os.tmpdir(), 'import-test-'));
    dir = created;
    afterAll(() => fs.rmSync(created, { recursive: true, force: true }));
  }
  const file = path.join(dir, `${randomUUID().slice(0, 8)}-${name}`);
  fs.writeFileSync(file, `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`);
  return file;
}

export function clinicLine(overrides: Record<string, unknown> = {}) {
  return {
    id: randomUUID(),
    name: `Clinic ${randomUUID().slice(0, 8)}`,
    address: '1 Import Street, Testville',
    phone: '+34 910 000 000',
    email: 'desk@clinic.example',
    timezone: 'Europe/Madrid',
    created_at: '2024-01-15T08:00:00.000Z',
    ...overrides,
  };
}

export function campaignLine(clinicId: string, overrides: Record<string, unknown> = {}) {
  return {
    id: uniqueId('cmp'),
    name: 'Spring recall',
    description: 'Yearly check-up reminders',
    type: 'recall',
    channel: 'voice',
    status: 'active',
    clinic_id: clinicId,
    created_at: '2024-02-01T10:00:00.000Z',
    updated_at: '2024-02-02T10:00:00.000Z',
    settings: { max_attempts: 3, call_window_start: '09:00', allow_reschedule: true },
    ...overrides,
  };
}

export function voiceLine(clinicId: string, overrides: Record<string, unknown> = {}) {
  return {
    id: uniqueId('int'),
    channel: 'voice',
    type: 'INBOUND',
    direction: 'inbound',
    phone_number: '+34 600 111 222',
    clinic_id: clinicId,
    started_at: '2024-03-01T09:00:00.000Z',
    ended_at: '2024-03-01T09:03:20.000Z',
    duration_seconds: 200,
    outcome: 'APPOINTMENT_BOOKED',
    transcript: [
      { role: 'assistant', content: 'Good morning, how can I help?' },
      { role: 'user', content: 'I would like an appointment on "Tuesday" \\ please.' },
    ],
    summary: 'Patient booked an appointment.',
    recording_url: 'https://recordings.example/1.mp3',
    ...overrides,
  };
}

export function whatsappLine(clinicId: string, overrides: Record<string, unknown> = {}) {
  return {
    id: uniqueId('int'),
    channel: 'whatsapp',
    type: 'APPOINTMENT_REMINDER',
    direction: 'outbound',
    phone_number: '+34 600 333 444',
    clinic_id: clinicId,
    started_at: '2024-03-02T10:00:00.000Z',
    ended_at: '2024-03-02T10:20:00.000Z',
    outcome: 'APPOINTMENT_MODIFIED',
    transcript: [{ role: 'assistant', content: 'Reminder: your appointment is tomorrow at 10:00.' }],
    summary: 'Patient moved the appointment.',
    ...overrides,
  };
}
