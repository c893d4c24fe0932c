// Rows for tests. Every call makes fresh random ids, so tests never collide and need no reset.
// Restrict what a test reads to its own clinics (clinicId filters or a clinic-restricted key).
import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/db/client.js';
import { type ChannelValue, directionOfType, type InteractionTypeValue } from '../../src/domain/values.js';
import type { Prisma } from '../../src/generated/prisma/client.js';

export function uniqueId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
}

export async function createClinic(db: Db, data: Partial<Prisma.ClinicUncheckedCreateInput> = {}) {
  return db.clinic.create({
    data: {
      id: randomUUID(),
      name: `Clinic ${randomUUID().slice(0, 8)}`,
      address: '1 Test Street, Testville',
      phone: '+1 555 0100',
      email: 'front-desk@example.test',
      timezone: 'Europe/Madrid',
      ...data,
    },
  });
}

export async function createCampaign(db: Db, clinicId: string, data: Partial<Prisma.CampaignUncheckedCreateInput> = {}) {
  return db.campaign.create({
    data: {
      id: uniqueId('cmp'),
      name: 'Test campaign',
      description: 'A campaign made by a test',
      type: 'reactivation',
      channel: 'voice',
      status: 'active',
      clinicId,
      settings: { max_attempts: 3 },
      ...data,
    },
  });
}

export interface InteractionInput extends Partial<Omit<Prisma.InteractionUncheckedCreateInput, 'transcript'>> {
  clinicId: string;
  transcript?: Array<{ role: string; content: string }>;
}

/** An interaction with consistent defaults for its channel (voice: duration and recording). */
export async function createInteraction(db: Db, input: InteractionInput) {
  const channel = (input.channel ?? 'voice') as ChannelValue;
  const type = (input.type ?? (channel === 'voice' ? 'INBOUND' : 'APPOINTMENT_REMINDER')) as InteractionTypeValue;
  const startedAt = input.startedAt ? new Date(input.startedAt) : new Date();
  const { transcript, ...rest } = input;
  return db.interaction.create({
    data: {
      id: uniqueId('int'),
      channel,
      type,
      direction: directionOfType(type),
      phoneNumber: '+34 600 000 000',
      startedAt,
      endedAt: new Date(startedAt.getTime() + 60_000),
      durationSeconds: channel === 'voice' ? 60 : null,
      outcome: 'APPOINTMENT_BOOKED',
      summary: 'Patient booked an appointment.',
      recordingUrl: channel === 'voice' ? 'https://recordings.example.test/r.mp3' : null,
      ...rest,
      ...(transcript ? { transcript: { create: { entries: transcript } } } : {}),
    },
  });
}
