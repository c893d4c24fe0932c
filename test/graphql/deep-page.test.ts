// Deep pages found by skipping whole days (src/graphql/deep-page.ts) are the pages OFFSET gives:
// every offset, filters on each rollup dimension, windows with partial days, ties across midnight.
import { afterAll, describe, expect, it } from 'vitest';
import { and, createPrismaClient, queryRows } from '../../src/db/client.js';
import type { Filters } from '../../src/filters/interaction-filters.js';
import { Prisma } from '../../src/generated/prisma/client.js';
import { deepPageIds } from '../../src/interactions/read-page.js';
import { interactionConditions } from '../../src/interactions/rows.js';
import { databaseUrl } from '../helpers/db.js';
import { createClinic } from '../helpers/factories.js';

const db = createPrismaClient(databaseUrl, 2);
afterAll(() => db.$disconnect());

/** The page as a plain OFFSET reads it. */
async function offsetPage(filters: Filters, visible: string[] | null, skip: number, take: number): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(
    db,
    Prisma.sql`SELECT i.id FROM interactions i WHERE ${and(interactionConditions(filters, visible))}
               ORDER BY i.started_at DESC, i.id DESC LIMIT ${take} OFFSET ${skip}`,
  );
  return rows.map((row) => row.id);
}

describe('deep pages by day counts', () => {
  it('equal OFFSET pages for every offset, filter and window, ties across midnight included', async () => {
    const clinic = await createClinic(db);
    const other = await createClinic(db);
    const prefix = `deep_${clinic.id.slice(0, 8)}`;
    // 420 interactions over about 13 UTC days, in pairs with equal started_at; every 40th pair sits
    // on a midnight (one at 23:59:59.999, its twin at 00:00), and the days have unequal counts.
    await db.$executeRaw`
      INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, started_at, outcome, summary)
      SELECT ${prefix} || '_' || lpad(i::text, 4, '0'),
             'voice', CASE WHEN i % 3 = 0 THEN 'CAMPAIGN_OUTBOUND' ELSE 'INBOUND' END::"InteractionType",
             CASE WHEN i % 3 = 0 THEN 'outbound' ELSE 'inbound' END::"Direction",
             '+34 600 000 000', ${clinic.id}::uuid,
             CASE WHEN (i / 2) % 40 = 0
                  THEN '2026-02-01T00:00:00Z'::timestamptz + ((i / 2) / 40) * interval '1 day' - (i % 2) * interval '1 millisecond'
                  ELSE '2026-02-01T00:00:00Z'::timestamptz + power((i / 2)::float / 210, 1.5) * interval '13 days' END,
             CASE WHEN i % 10 = 0 THEN NULL WHEN i % 4 = 0 THEN 'APPOINTMENT_BOOKED' ELSE 'NO_ANSWER' END,
             'Deep page by days'
      FROM generate_series(1, 420) AS i`;
    const visible = [clinic.id];
    const cases: Array<[string, Filters]> = [
      ['no filter', {}],
      ['channel and type', { channel: 'voice', type: 'CAMPAIGN_OUTBOUND' }],
      ['outcomes', { outcomes: ['APPOINTMENT_BOOKED'] }],
      ['window with partial days', { from: new Date('2026-02-03T10:30:00.000Z'), to: new Date('2026-02-09T05:00:00.000Z') }],
      ['window and outcome', { from: new Date('2026-02-02T12:00:00.000Z'), to: new Date('2026-02-12T12:00:00.000Z'), outcomes: ['NO_ANSWER'] }],
      ['within one day', { from: new Date('2026-02-05T01:00:00.000Z'), to: new Date('2026-02-05T23:00:00.000Z') }],
      ['a clinic the key cannot see', { clinicId: other.id }],
    ];
    for (const [name, filters] of cases) {
      const all = await offsetPage(filters, visible, 0, 1000);
      if (name !== 'a clinic the key cannot see') expect(all.length, name).toBeGreaterThan(10);
      for (const take of [1, 7, 25]) {
        for (let skip = 0; skip <= all.length + 2; skip += take === 1 ? 1 : 5) {
          const expected = all.slice(skip, skip + take);
          expect(await deepPageIds(db, filters, visible, skip, take), `${name}, skip ${skip}, take ${take}`).toEqual(expected);
        }
      }
    }
  });

  it('equal OFFSET pages for a key that sees every clinic (day counts from interaction_days)', async () => {
    const [a, b] = [await createClinic(db), await createClinic(db)];
    const prefix = `deep_all_${a.id.slice(0, 8)}`;
    // In 2031, which no other test writes: the window below holds only these rows, whoever runs beside.
    await db.$executeRaw`
      INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, started_at, outcome, summary)
      SELECT ${prefix} || '_' || lpad(i::text, 4, '0'), 'voice', 'INBOUND', 'inbound', '+34 600 000 000',
             CASE WHEN i % 2 = 0 THEN ${a.id}::uuid ELSE ${b.id}::uuid END,
             '2031-07-01T00:00:00Z'::timestamptz + power((i / 2)::float / 150, 2) * interval '9 days', 'NO_ANSWER', 'Deep page by days'
      FROM generate_series(1, 300) AS i`;
    const windows: Filters[] = [
      { from: new Date('2031-07-01T00:00:00.000Z'), to: new Date('2031-07-31T23:59:59.999Z') },
      { from: new Date('2031-07-02T09:15:00.000Z'), to: new Date('2031-07-08T18:00:00.000Z') },
    ];
    for (const filters of windows) {
      const all = await offsetPage(filters, null, 0, 1000);
      expect(all.length).toBeGreaterThan(100);
      for (let skip = 0; skip <= all.length + 2; skip += 3) {
        expect(await deepPageIds(db, filters, null, skip, 10), `skip ${skip}`).toEqual(all.slice(skip, skip + 10));
      }
    }
  });

  it('have no answer for a search (its matches are not in the rollups)', async () => {
    expect(await deepPageIds(db, { search: '600' }, null, 20_000, 25)).toBeNull();
  });
});
