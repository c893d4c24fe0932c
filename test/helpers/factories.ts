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

/**
 * `count` inbound voice calls of one clinic and campaign, one a minute from 2025-01-01, with ids
 * `<prefix>_0000`, `<prefix>_0001`, ... (a page of known size and order for protection tests).
 */
export async function createCallPage(
  db: Db,
  input: { prefix: string; count: number; clinicId: string; campaignId: string; summary?: string },
): Promise<string[]> {
  const ids = Array.from({ length: input.count }, (_, i) => `${input.prefix}_${String(i).padStart(4, '0')}`);
  await db.interaction.createMany({
    data: ids.map((id, i) => ({
      id,
      clinicId: input.clinicId,
      campaignId: input.campaignId,
      channel: 'voice' as const,
      type: 'INBOUND' as const,
      direction: 'inbound' as const,
      phoneNumber: '+34 600 000 000',
      startedAt: new Date(Date.UTC(2025, 0, 1) + i * 60_000),
      durationSeconds: 60,
      outcome: 'NO_ANSWER',
      summary: input.summary,
    })),
  });
  return ids;
}
