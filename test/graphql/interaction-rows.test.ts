// The hand-written page of interactions (src/graphql/interaction-rows.ts) must give exactly what
// Prisma's findMany gives for the same filters, page and selection: same rows, same order, same
// values (Dates, nulls, transcripts), so that the fields beneath resolve the same either way.
import { describe, expect, it } from 'vitest';
import type { VisibleClinics } from '../../src/auth/api-keys.js';
import { queryRows } from '../../src/db/client.js';
import type { Filters } from '../../src/filters/interaction-filters.js';
import { Prisma } from '../../src/generated/prisma/client.js';
import { ORDER_INTERACTIONS } from '../../src/interactions/read-page.js';
import { campaignsById, clinicsById, interactionConditions, interactionWhere, pageRows, rowsById, SKIPPABLE_COLUMNS } from '../../src/interactions/rows.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';

const db = testDb();
const TRANSCRIPT = { transcript: { select: { entries: true } } } as const;

async function seed() {
  const clinics = [await createClinic(db), await createClinic(db)];
  const campaign = await createCampaign(db, clinics[0]!.id);
  const base = Date.UTC(2025, 5, 1, 8);
  for (let i = 0; i < 24; i++) {
    const clinicId = clinics[i % 2]!.id;
    const whatsapp = i % 3 === 0;
    await createInteraction(db, {
      clinicId,
      channel: whatsapp ? 'whatsapp' : 'voice',
      campaignId: i % 4 === 0 && clinicId === clinics[0]!.id ? campaign.id : null,
      // Every third pair starts at the same instant: the order falls back on the id.
      startedAt: new Date(base + Math.floor(i / 2) * 3_600_000 + (i % 6 < 2 ? 0 : i * 1_000)),
      endedAt: i % 5 === 0 ? null : new Date(base + i * 3_600_000 + 61_234),
      phoneNumber: `+34 600 ${String(100_000 + i * 7)}`,
      outcome: i % 7 === 0 ? null : i % 2 ? 'NO_ANSWER' : 'APPOINTMENT_BOOKED',
      summary: i % 5 === 1 ? null : `Summary "${i}" with a newline\nand ünïcode ✓`,
      ...(whatsapp || i % 4 === 1
        ? { transcript: [{ role: 'assistant', content: `Hello ${i} "quoted" \\ back\nslash 🙂` }, ...(i % 2 ? [{ role: 'user', content: '' }] : [])] }
        : {}),
    });
  }
  return clinics.map((c) => c.id);
}

describe('hand-written interaction pages', () => {
  it('equal findMany for the same filters and pages, with and without transcripts', async () => {
    const visible: VisibleClinics = await seed();
    const windows: Filters[] = [
      {},
      { clinicId: visible[0]! },
      { channel: 'voice' },
      { channel: 'whatsapp', type: 'APPOINTMENT_REMINDER' },
      { outcomes: ['NO_ANSWER'] },
      { from: new Date(Date.UTC(2025, 5, 1, 10)), to: new Date(Date.UTC(2025, 5, 1, 15, 30)) },
      { search: '600 1000' },
      { clinicId: visible[1]!, outcomes: ['APPOINTMENT_BOOKED', 'NO_ANSWER'], search: '1' },
    ];
    let compared = 0;
    for (const filters of windows) {
      for (const [skip, take] of [
        [0, 25],
        [0, 1],
        [5, 7],
        [20, 10],
        [30, 5],
      ] as const) {
        for (const transcript of [true, false]) {
          const expected = await db.interaction.findMany({
            where: interactionWhere(filters, visible),
            orderBy: ORDER_INTERACTIONS,
            skip,
            take,
            ...(transcript ? { include: TRANSCRIPT } : {}),
          });
          const actual = await pageRows(db, interactionConditions(filters, visible), skip, take, { transcript });
          expect(actual, JSON.stringify({ filters, skip, take, transcript })).toEqual(expected);
          // Columns left unread are NULL; every other column as findMany reads it.
          const skipped = new Set(SKIPPABLE_COLUMNS.filter((_, i) => (skip + take + i) % 2 === 0));
          const narrow = await pageRows(db, interactionConditions(filters, visible), skip, take, { transcript, skipped });
          expect(narrow, JSON.stringify({ filters, skip, take, transcript, skipped: [...skipped] })).toEqual(
            expected.map((row) => ({ ...row, ...Object.fromEntries([...skipped].map((column) => [column, null])) })),
          );
          compared += expected.length;
        }
      }
    }
    // The windows do select rows (an empty page equals an empty page whatever the SQL says).
    expect(compared).toBeGreaterThan(200);
  });

  it('read rows by id as findMany does, newest first, leaving out unknown ids', async () => {
    const visible = await seed();
    const all = await db.interaction.findMany({ where: { clinicId: { in: visible } }, orderBy: ORDER_INTERACTIONS, include: TRANSCRIPT });
    const ids = [all[3]!.id, all[0]!.id, 'no-such-id', all[17]!.id, all[8]!.id];
    const expected = await db.interaction.findMany({ where: { id: { in: ids } }, orderBy: ORDER_INTERACTIONS, include: TRANSCRIPT });
    expect(expected).toHaveLength(4);
    expect(await rowsById(db, ids, true)).toEqual(expected);
    expect(await rowsById(db, ids, false)).toEqual(expected.map(({ transcript: _, ...row }) => row));
    expect(await rowsById(db, [], true)).toEqual([]);
  });
});

describe('clinicsById and campaignsById (the rows Interaction.clinic and .campaign resolve to)', () => {
  it("equal findMany's whole rows, including JSON settings, and leave out unknown ids", async () => {
    const visible = await seed();
    await db.campaign.updateMany({ where: { clinicId: visible[0]! }, data: { settings: { reminderHoursBefore: 24, note: 'ünï ✓' } } });
    const campaignIds = (await db.campaign.findMany({ where: { clinicId: { in: visible } }, select: { id: true } })).map((c) => c.id);
    const byId = <T extends { id: string }>(rows: T[]) => [...rows].sort((x, y) => x.id.localeCompare(y.id));
    expect(byId(await clinicsById(db, [...visible, '00000000-0000-0000-0000-000000000000']))).toEqual(
      byId(await db.clinic.findMany({ where: { id: { in: visible } } })),
    );
    expect(byId(await campaignsById(db, [...campaignIds, 'cmp-unknown']))).toEqual(byId(await db.campaign.findMany({ where: { id: { in: campaignIds } } })));
  });
});

describe('queryRows', () => {
  it('gives values as $queryRaw does: int8 as bigint, dates at UTC midnight, instants as Dates, arrays, nulls', async () => {
    const sql = Prisma.sql`SELECT ${'9007199254740993'}::int8 AS big, 7::int4 AS small, 1.5::float8 AS ratio,
      DATE '2025-03-30' AS day, ${'2025-03-30T01:02:03.456Z'}::timestamptz AS at, ${['a', 'b']}::text[] AS list,
      NULL::int8 AS nothing, 'x' AS text`;
    const [direct] = await queryRows<Record<string, unknown>>(db, sql);
    const [viaPrisma] = await db.$queryRaw<Array<Record<string, unknown>>>(sql);
    expect(direct).toEqual({
      big: 9007199254740993n,
      small: 7,
      ratio: 1.5,
      day: new Date('2025-03-30T00:00:00.000Z'),
      at: new Date('2025-03-30T01:02:03.456Z'),
      list: ['a', 'b'],
      nothing: null,
      text: 'x',
    });
    expect(direct).toEqual(viaPrisma);
  });
});
