// The metrics SQL is kept prepared on each connection (src/db/client.ts); Prisma's own queries are not.
import { afterAll, describe, expect, it } from 'vitest';
import { metricsDaily } from '../../src/analytics/daily.js';
import { metricsOutcomes } from '../../src/analytics/outcomes.js';
import { metricsSummary } from '../../src/analytics/summary.js';
import { createPrismaClient, statementNames } from '../../src/db/client.js';
import { countInteractions } from '../../src/interactions/read-page.js';
import { pageRows, rowsById } from '../../src/interactions/rows.js';
import { at, insertAll } from '../analytics/fixtures.js';
import { referenceSummary } from '../analytics/reference.js';
import { databaseUrl } from '../helpers/db.js';
import { createClinic } from '../helpers/factories.js';

// One connection, so that the statements it prepared can be listed on it.
const db = createPrismaClient(databaseUrl, 1);
afterAll(() => db.$disconnect());

describe('prepared statements', () => {
  it('keep each metrics statement and the page by id prepared once per connection, and leave the rest unnamed', async () => {
    const clinic = await createClinic(db);
    const window = { from: at('2025-03-01T06:00:00.000Z'), to: at('2025-03-20T18:00:00.000Z'), clinicIds: [clinic.id] };
    await insertAll(db, [
      { clinicId: clinic.id, startedAt: at('2025-03-01T07:00:00.000Z'), outcome: 'APPOINTMENT_BOOKED' },
      { clinicId: clinic.id, startedAt: at('2025-03-10T12:00:00.000Z'), channel: 'whatsapp', type: 'INBOUND', outcome: 'OPT_OUT' },
    ]);
    for (let run = 0; run < 3; run++) {
      await metricsSummary(db, window);
      await metricsDaily(db, window);
      await metricsOutcomes(db, window);
      await countInteractions(db, { from: window.from, to: window.to }, [clinic.id]);
      await rowsById(db, [`${clinic.id}-none`], true);
      await pageRows(db, [], 0, 2, { transcript: true });
      await db.interaction.findMany({ where: { clinicId: clinic.id } });
    }
    const statements = await db.$queryRaw<Array<{ name: string; statement: string }>>`
      SELECT name, statement FROM pg_prepared_statements ORDER BY name`;
    expect(statements).toHaveLength(5); // a page by id is prepared, a page by LIMIT/OFFSET is not
    // Named for what they do, the same in every process (a hash of the text), and labelled in the
    // text itself, which is what pg_stat_statements shows.
    expect(statements.map((s) => s.name.replace(/_[0-9a-f]{8}$/, '')).sort()).toEqual([
      'count_interactions',
      'interactions_by_id',
      'metrics_daily',
      'metrics_outcomes',
      'metrics_summary',
    ]);
    for (const { name, statement } of statements) {
      expect(name).toMatch(/^[a-z_]+_[0-9a-f]{8}$/);
      expect(statement.startsWith(`/* prepared ${name.slice(0, -9)} */`)).toBe(true);
      expect(statementNames()(statement)).toBe(name);
    }
    expect(statements.some((s) => s.statement.includes('string_agg'))).toBe(true); // the daily series
  });

  it('give the same answers with generic plans (which PostgreSQL may choose after five runs)', async () => {
    const clinics = await Promise.all(Array.from({ length: 8 }, () => createClinic(db)));
    const fixtures = await insertAll(
      db,
      clinics.flatMap((clinic, i) =>
        Array.from({ length: i + 1 }, (_, j) => ({
          clinicId: clinic.id,
          startedAt: at(`2025-04-${String(2 + j).padStart(2, '0')}T10:00:00.000Z`),
          outcome: j % 2 ? 'NO_ANSWER' : 'APPOINTMENT_BOOKED',
          durationSeconds: 30 + i,
        })),
      ),
    );
    // On the client's one connection: plans made without the values bound, from the first run on.
    await db.$executeRaw`SET plan_cache_mode = force_generic_plan`;
    try {
      for (const clinic of clinics) {
        const filter = { from: at('2025-04-01T12:00:00.000Z'), to: at('2025-04-30T23:59:59.999Z'), clinicIds: [clinic.id] };
        const expected = referenceSummary(fixtures, filter);
        expect(await metricsSummary(db, filter)).toEqual(expected);
        const days = await metricsDaily(db, filter);
        expect(days.reduce((sum, day) => sum + day.total, 0)).toBe(expected.totalInteractions);
      }
    } finally {
      await db.$executeRaw`RESET plan_cache_mode`;
    }
  });

  it('name at most the given number of distinct texts, and only marked ones', () => {
    const names = statementNames(2);
    const one = names('/* prepared count_x */ SELECT 1');
    expect(one).toMatch(/^count_x_[0-9a-f]{8}$/);
    const two = names('/* prepared count_x */ SELECT 2');
    expect(two).toMatch(/^count_x_[0-9a-f]{8}$/);
    expect(two).not.toBe(one);
    expect(names('/* prepared count_x */ SELECT 1')).toBe(one);
    expect(statementNames(2)('/* prepared count_x */ SELECT 1')).toBe(one); // stable across processes
    expect(names('/* prepared count_x */ SELECT 3')).toBeUndefined();
    expect(names('/* prepared */ SELECT 1')).toBeUndefined();
    expect(names('SELECT 1')).toBeUndefined();
  });
});
