// Property: whatever sequence of writes a clinic's interactions go through (plain multi-row INSERTs,
// the importer's INSERT ... ON CONFLICT DO UPDATE that moves rows across days, outcomes, channels,
// types, clinics and durations, UPDATEs, DELETEs), the rollup equals a GROUP BY over the raw rows,
// and the rollup-based metrics and list counts equal the previous raw-only queries
// (raw-reference.ts), the JavaScript reference and Prisma's count, for random windows and filters.
// Each run creates its own clinics and reads only them (clinic 2 is never selected by the metrics).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { metricsDaily } from '../../src/analytics/daily.js';
import type { MetricsFilter } from '../../src/analytics/filter.js';
import { metricsOutcomes } from '../../src/analytics/outcomes.js';
import { metricsSummary } from '../../src/analytics/summary.js';
import type { VisibleClinics } from '../../src/auth/api-keys.js';
import {
  CHANNELS,
  type ChannelValue,
  directionOfType,
  INTERACTION_TYPES,
  type InteractionTypeValue,
  OUTCOMES,
  TYPES_BY_CHANNEL,
} from '../../src/domain/values.js';
import type { Filters } from '../../src/filters/interaction-filters.js';
import { countInteractions } from '../../src/interactions/read-page.js';
import { interactionWhere } from '../../src/interactions/rows.js';
import { testDb } from '../helpers/db.js';
import { rawDaily, rawOutcomes, rawSummary } from './raw-reference.js';
import { type Fixture, referenceDaily, referenceOutcomes, referenceSummary } from './reference.js';
import { createClinics, expectRollupExact, importRows, insertRows, newId, type Row, testPool } from './rollup-support.js';

const db = testDb();
const pool = testPool();

const DAY = 86_400_000;
const BASE = Date.UTC(2025, 10, 1); // 2025-11-01T00:00:00.000Z

/** Instants around a few UTC days and months, biased towards the milliseconds at day and month boundaries. */
const instantArb = fc.oneof(
  fc.record({ day: fc.integer({ min: -1, max: 5 }), ms: fc.constantFrom(0, 1, DAY - 1, DAY - 2, DAY / 2) }).map(({ day, ms }) => BASE + day * DAY + ms),
  fc.integer({ min: BASE - DAY, max: BASE + 6 * DAY - 1 }),
  // Months around BASE, and their boundaries: windows then hold whole months (the monthly levels).
  fc
    .record({ month: fc.integer({ min: -2, max: 2 }), ms: fc.constantFrom(0, -1, 1, DAY / 2, 10 * DAY) })
    .map(({ month, ms }) => Date.UTC(2025, 10 + month, 1) + ms),
  fc.integer({ min: BASE - 70 * DAY, max: BASE + 70 * DAY }),
);

const PAIRS = CHANNELS.flatMap((channel) => TYPES_BY_CHANNEL[channel].map((type) => ({ channel, type })));

const specArb = fc.record({
  clinic: fc.constantFrom(0, 0, 1, 1, 2),
  pair: fc.constantFrom(...PAIRS),
  outcome: fc.option(fc.constantFrom<string>(...OUTCOMES, 'FOLLOW_UP'), { nil: null, freq: 4 }),
  duration: fc.option(fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 2_147_483_647 })), { nil: null, freq: 5 }),
  startedAt: instantArb,
});
type Spec = typeof specArb extends fc.Arbitrary<infer T> ? T : never;

const changeArb = fc.oneof(
  fc.record({ kind: fc.constant('shift' as const), days: fc.integer({ min: -2, max: 2 }), ms: fc.constantFrom(-1, 0, 1, 3_600_000) }),
  fc.record({ kind: fc.constant('outcome' as const), outcome: fc.option(fc.constantFrom<string>(...OUTCOMES), { nil: null }) }),
  fc.record({ kind: fc.constant('duration' as const), duration: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: null }) }),
  fc.record({ kind: fc.constant('pair' as const), pair: fc.constantFrom(...PAIRS) }),
  fc.record({ kind: fc.constant('clinic' as const), clinic: fc.constantFrom(0, 1, 2) }),
  fc.record({ kind: fc.constant('summary' as const) }),
);

const opArb = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), specs: fc.array(specArb, { minLength: 1, maxLength: 8 }) }),
  fc.record({
    kind: fc.constant('import' as const),
    changed: fc.array(fc.record({ ref: fc.nat(), spec: specArb }), { maxLength: 8 }),
    fresh: fc.array(specArb, { maxLength: 5 }),
    batchSize: fc.constantFrom(1, 3, 500),
  }),
  fc.record({ kind: fc.constant('update' as const), refs: fc.array(fc.nat(), { minLength: 1, maxLength: 5 }), change: changeArb }),
  fc.record({ kind: fc.constant('delete' as const), refs: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }) }),
);

/** A window edge: a free instant, an end of the data's range, or one millisecond around a row. */
const edgeArb = fc.oneof(
  instantArb.map((t) => ({ kind: 'at' as const, t })),
  fc.constantFrom(BASE - 3 * DAY, BASE + 8 * DAY - 1, Date.UTC(2025, 8, 1), Date.UTC(2026, 1, 1) - 1).map((t) => ({ kind: 'at' as const, t })),
  fc.record({ kind: fc.constant('near' as const), ref: fc.nat(), delta: fc.constantFrom(-1, 0, 1) }),
);
type Edge = typeof edgeArb extends fc.Arbitrary<infer T> ? T : never;

const metricsQueryArb = fc.record({
  edges: fc.tuple(edgeArb, edgeArb),
  clinics: fc.oneof({ arbitrary: fc.constant<number[]>([0, 1]), weight: 3 }, { arbitrary: fc.subarray([0, 1]), weight: 1 }),
  channel: fc.option(fc.constantFrom<ChannelValue>(...CHANNELS), { nil: undefined, freq: 2 }),
  type: fc.option(fc.constantFrom<InteractionTypeValue>(...INTERACTION_TYPES), { nil: undefined, freq: 3 }),
});

const countQueryArb = fc.record({
  from: fc.option(edgeArb, { nil: undefined, freq: 4 }),
  to: fc.option(edgeArb, { nil: undefined, freq: 4 }),
  // Always restricted to this run's clinics: by the key's clinics, a clinicId, or both.
  visible: fc.option(fc.subarray([0, 1, 2], { minLength: 1 }), { nil: null, freq: 3 }),
  clinicId: fc.option(fc.constantFrom(0, 1, 2), { nil: undefined, freq: 2 }),
  channel: fc.option(fc.constantFrom<ChannelValue>(...CHANNELS), { nil: undefined, freq: 2 }),
  type: fc.option(fc.constantFrom<InteractionTypeValue>(...INTERACTION_TYPES), { nil: undefined, freq: 3 }),
  outcomes: fc.option(fc.subarray([...OUTCOMES], { minLength: 1 }), { nil: undefined, freq: 2 }),
  search: fc.option(fc.constantFrom('600', '+34', 'nothing'), { nil: undefined, freq: 6 }),
});

describe('metrics and counts from the rollups (property-based, after random writes)', () => {
  it('equal the raw-only queries, the JavaScript reference and Prisma counts', { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(specArb, { minLength: 1, maxLength: 20 }),
        fc.array(opArb, { maxLength: 6 }),
        fc.array(metricsQueryArb, { minLength: 1, maxLength: 3 }),
        fc.array(countQueryArb, { minLength: 1, maxLength: 3 }),
        async (initial, ops, metricsQueries, countQueries) => {
          const clinics = await createClinics(pool, 3);
          const toRow = (spec: Spec, id = newId()): Row => ({
            id,
            clinicId: clinics[spec.clinic]!,
            channel: spec.pair.channel,
            type: spec.pair.type,
            startedAt: new Date(spec.startedAt),
            durationSeconds: spec.duration,
            outcome: spec.outcome,
          });
          const live: string[] = [];
          const pick = (refs: number[]) => [...new Set(refs.map((r) => live[r % live.length]!))];

          const first = initial.map((s) => toRow(s));
          await importRows(pool, first);
          live.push(...first.map((r) => r.id));

          for (const op of ops) {
            if (op.kind === 'insert') {
              const rows = op.specs.map((s) => toRow(s));
              await insertRows(pool, rows);
              live.push(...rows.map((r) => r.id));
            } else if (op.kind === 'import') {
              const changed = live.length ? [...new Map(op.changed.map((c) => [live[c.ref % live.length]!, c.spec])).entries()] : [];
              const fresh = op.fresh.map((s) => toRow(s));
              await importRows(pool, [...changed.map(([id, spec]) => toRow(spec, id)), ...fresh], op.batchSize);
              live.push(...fresh.map((r) => r.id));
            } else if (op.kind === 'delete' && live.length) {
              const ids = pick(op.refs);
              await pool.query('DELETE FROM interactions WHERE id = ANY($1::text[])', [ids]);
              for (const id of ids) live.splice(live.indexOf(id), 1);
            } else if (op.kind === 'update' && live.length) {
              const ids = pick(op.refs);
              const c = op.change;
              if (c.kind === 'shift') {
                await pool.query(
                  `UPDATE interactions SET started_at = started_at + make_interval(days => $2) + $3 * interval '1 millisecond' WHERE id = ANY($1::text[])`,
                  [ids, c.days, c.ms],
                );
              } else if (c.kind === 'outcome') {
                await pool.query('UPDATE interactions SET outcome = $2 WHERE id = ANY($1::text[])', [ids, c.outcome]);
              } else if (c.kind === 'duration') {
                await pool.query('UPDATE interactions SET duration_seconds = $2 WHERE id = ANY($1::text[])', [ids, c.duration]);
              } else if (c.kind === 'pair') {
                await pool.query('UPDATE interactions SET channel = $2, type = $3, direction = $4 WHERE id = ANY($1::text[])', [
                  ids,
                  c.pair.channel,
                  c.pair.type,
                  directionOfType(c.pair.type),
                ]);
              } else if (c.kind === 'clinic') {
                await pool.query('UPDATE interactions SET clinic_id = $2 WHERE id = ANY($1::text[])', [ids, clinics[c.clinic]]);
              } else {
                await pool.query(`UPDATE interactions SET summary = 'edited' WHERE id = ANY($1::text[])`, [ids]);
              }
            }
          }

          await expectRollupExact(pool, clinics);

          const { rows } = await pool.query<Fixture & { startedAt: Date }>(
            `SELECT clinic_id AS "clinicId", channel, type, direction, started_at AS "startedAt", duration_seconds AS "durationSeconds", outcome
             FROM interactions WHERE clinic_id = ANY($1::uuid[])`,
            [clinics],
          );
          const fixtures: Fixture[] = rows;
          const instantOf = (edge: Edge): number =>
            edge.kind === 'at' ? edge.t : (fixtures[edge.ref % Math.max(fixtures.length, 1)]?.startedAt.getTime() ?? BASE) + edge.delta;

          for (const q of metricsQueries) {
            const [from, to] = q.edges.map(instantOf).sort((a, b) => a - b) as [number, number];
            const filter: MetricsFilter = {
              from: new Date(from),
              to: new Date(to),
              clinicIds: q.clinics.map((i) => clinics[i]!),
              ...(q.channel ? { channel: q.channel } : {}),
              ...(q.type ? { type: q.type } : {}),
            };
            const [summary, daily, outcomes, rawS, rawD, rawO] = await Promise.all([
              metricsSummary(db, filter),
              metricsDaily(db, filter),
              metricsOutcomes(db, filter),
              rawSummary(db, filter),
              rawDaily(db, filter),
              rawOutcomes(db, filter),
            ]);
            expect(summary).toEqual(rawS);
            expect(daily).toEqual(rawD);
            expect(outcomes).toEqual(rawO);
            expect(summary).toEqual(referenceSummary(fixtures, filter));
            expect(daily).toEqual(referenceDaily(fixtures, filter));
            expect(outcomes).toEqual(referenceOutcomes(fixtures, filter));
          }

          for (const q of countQueries) {
            let [from, to] = [q.from && instantOf(q.from), q.to && instantOf(q.to)];
            if (from !== undefined && to !== undefined && from > to) [from, to] = [to, from];
            const visible: VisibleClinics = q.visible === null ? null : q.visible.map((i) => clinics[i]!);
            const clinicIndex = q.clinicId ?? (visible === null ? 0 : undefined);
            const filters: Filters = {
              ...(from !== undefined ? { from: new Date(from) } : {}),
              ...(to !== undefined ? { to: new Date(to) } : {}),
              ...(clinicIndex !== undefined ? { clinicId: clinics[clinicIndex]! } : {}),
              ...(q.channel ? { channel: q.channel } : {}),
              ...(q.type ? { type: q.type } : {}),
              ...(q.outcomes ? { outcomes: q.outcomes } : {}),
              ...(q.search ? { search: q.search } : {}),
            };
            const [count, prismaCount] = await Promise.all([
              countInteractions(db, filters, visible),
              db.interaction.count({ where: interactionWhere(filters, visible) }),
            ]);
            expect(count).toBe(prismaCount);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
