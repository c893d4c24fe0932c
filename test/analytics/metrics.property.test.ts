// Property: for random small fixture sets, windows and filters, the SQL metrics equal the JavaScript
// reference. Each run creates its own clinics; the third clinic is never selected, so its rows must
// never show up.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { metricsDaily } from '../../src/analytics/daily.js';
import type { MetricsFilter } from '../../src/analytics/filter.js';
import { metricsOutcomes } from '../../src/analytics/outcomes.js';
import { metricsSummary } from '../../src/analytics/summary.js';
import { CHANNELS, type ChannelValue, INTERACTION_TYPES, type InteractionTypeValue, OUTCOMES, TYPES_BY_CHANNEL } from '../../src/domain/values.js';
import { testDb } from '../helpers/db.js';
import { createClinic } from '../helpers/factories.js';
import { insertAll } from './fixtures.js';
import { referenceDaily, referenceOutcomes, referenceSummary } from './reference.js';

const db = testDb();

const DAY = 86_400_000;
const BASE = Date.UTC(2025, 9, 1); // 2025-10-01T00:00:00.000Z

/** Instants around a few UTC days and months, biased towards the milliseconds at day and month boundaries. */
const instantArb = fc.oneof(
  fc.record({ day: fc.integer({ min: -1, max: 5 }), ms: fc.constantFrom(0, 1, DAY - 1, DAY - 2, DAY / 2) }).map(({ day, ms }) => BASE + day * DAY + ms),
  fc.integer({ min: BASE - DAY, max: BASE + 6 * DAY - 1 }),
  // Months around BASE, and their boundaries: windows then hold whole months (the monthly levels).
  fc
    .record({ month: fc.integer({ min: -2, max: 2 }), ms: fc.constantFrom(0, -1, 1, DAY / 2, 10 * DAY) })
    .map(({ month, ms }) => Date.UTC(2025, 9 + month, 1) + ms),
  fc.integer({ min: BASE - 70 * DAY, max: BASE + 70 * DAY }),
);

const PAIRS = CHANNELS.flatMap((channel) => TYPES_BY_CHANNEL[channel].map((type) => ({ channel, type })));

const fixtureArb = fc.record({
  clinic: fc.constantFrom(0, 0, 1, 1, 2), // clinic 2 is never selected
  pair: fc.constantFrom(...PAIRS),
  outcome: fc.option(fc.constantFrom<string>(...OUTCOMES, 'FOLLOW_UP'), { nil: null, freq: 4 }),
  duration: fc.option(fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 7_200 })), { nil: null, freq: 5 }),
  startedAt: instantArb,
});

/**
 * A window edge: a free instant, an end of the fixtures' range (wide windows), or an instant one
 * millisecond around a fixture's started_at.
 */
const edgeArb = fc.oneof(
  instantArb.map((t) => ({ kind: 'at' as const, t })),
  fc.constantFrom(BASE - DAY, BASE + 6 * DAY - 1, Date.UTC(2025, 7, 1), Date.UTC(2025, 11, 1) - 1).map((t) => ({ kind: 'at' as const, t })),
  fc.record({ kind: fc.constant('near' as const), ref: fc.nat(), delta: fc.constantFrom(-1, 0, 1) }),
);

const filterArb = fc.record({
  clinics: fc.oneof({ arbitrary: fc.constant<number[]>([0, 1]), weight: 3 }, { arbitrary: fc.subarray([0, 1]), weight: 2 }),
  // Mostly unfiltered: a channel and a type together often select nothing.
  channel: fc.oneof({ arbitrary: fc.constant(undefined), weight: 2 }, { arbitrary: fc.constantFrom<ChannelValue>(...CHANNELS), weight: 1 }),
  type: fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: fc.constantFrom<InteractionTypeValue>(...INTERACTION_TYPES), weight: 1 }),
});

describe('metrics (property-based, against the JavaScript reference)', () => {
  it('summary, daily and outcomes equal the reference for any fixtures, window and filter', { timeout: 180_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fixtureArb, { minLength: 1, maxLength: 24, size: 'max' }), edgeArb, edgeArb, filterArb, async (specs, edgeA, edgeB, f) => {
        const clinics = await Promise.all([createClinic(db), createClinic(db), createClinic(db)]);
        const fixtures = await insertAll(
          db,
          specs.map((s) => ({
            clinicId: clinics[s.clinic]!.id,
            channel: s.pair.channel,
            type: s.pair.type,
            outcome: s.outcome,
            durationSeconds: s.pair.channel === 'voice' ? s.duration : null,
            startedAt: new Date(s.startedAt),
          })),
        );
        const resolve = (edge: typeof edgeA): number =>
          edge.kind === 'at' ? edge.t : (specs[edge.ref % Math.max(specs.length, 1)]?.startedAt ?? BASE) + edge.delta;
        const [from, to] = [resolve(edgeA), resolve(edgeB)].sort((a, b) => a - b) as [number, number];
        const filter: MetricsFilter = {
          from: new Date(from),
          to: new Date(to),
          clinicIds: f.clinics.map((i) => clinics[i]!.id),
          ...(f.channel ? { channel: f.channel } : {}),
          ...(f.type ? { type: f.type } : {}),
        };

        const [summary, daily, outcomes] = await Promise.all([metricsSummary(db, filter), metricsDaily(db, filter), metricsOutcomes(db, filter)]);
        expect(summary).toEqual(referenceSummary(fixtures, filter));
        expect(daily).toEqual(referenceDaily(fixtures, filter));
        expect(outcomes).toEqual(referenceOutcomes(fixtures, filter));
        // Invariants tying the three together.
        expect(daily.reduce((s, d) => s + d.total, 0)).toBe(summary.totalInteractions);
        expect(daily.reduce((s, d) => s + d.appointmentsScheduled, 0)).toBe(summary.appointmentsScheduled);
        expect(outcomes.outcomes.reduce((s, o) => s + o.count, 0)).toBe(outcomes.total);
      }),
      { numRuns: 100 },
    );
  });
});
