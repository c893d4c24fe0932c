// Creates a test's interactions and returns them in the reference's shape.
import type { Db } from '../../src/db/client.js';
import { createInteraction, type InteractionInput } from '../helpers/factories.js';
import type { Fixture } from './reference.js';

export async function insertAll(db: Db, inputs: InteractionInput[]): Promise<Fixture[]> {
  const rows: Fixture[] = [];
  // A few at a time: the test client's pool is small and other files share the server.
  for (let i = 0; i < inputs.length; i += 10) {
    const batch = await Promise.all(inputs.slice(i, i + 10).map((input) => createInteraction(db, input)));
    for (const r of batch) {
      rows.push({
        clinicId: r.clinicId,
        channel: r.channel,
        type: r.type,
        direction: r.direction,
        startedAt: r.startedAt,
        durationSeconds: r.durationSeconds,
        outcome: r.outcome,
      });
    }
  }
  return rows;
}

export const at = (iso: string): Date => new Date(iso);
