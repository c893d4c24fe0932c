// Property: for random rows (campaigns or none, outcomes or none, durations or none), random filters
// (a clinic restriction including [], a campaign of the selected clinic, of another clinic or
// unknown, a channel, a type) and random windows (date-only bounds, instants inside days, whole and
// partial calendar months), metricsBreakdown by every one and two dimensions equals a raw-SQL
// reference over `interactions` (GROUPING SETS with the summary's definitions, ordered in
// JavaScript), group for group, in order, with the same total; a page of it is the same slice.
// metricsSummary, metricsDaily and metricsOutcomes filtered by a campaign equal the raw reference
// too, and the zoned metrics of a campaign equal those of its clinic when the clinic has no other
// interactions.
//
// The runs share one database of their own (dimension-fixtures.ts: its default collation is
// linguistic, so byte order must come from COLLATE "C"): without a clinic restriction the metrics
// read every clinic (all-clinics rollup levels), which in the run's shared database would include
// other files' rows being written concurrently. Rows of earlier runs stay; the reference sees them.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BreakdownGroup, DIMENSIONS, type Dimension, metricsBreakdown } from '../../src/analytics/breakdown.js';
import { type DailyMetric, metricsDaily } from '../../src/analytics/daily.js';
import type { MetricsFilter } from '../../src/analytics/filter.js';
import { metricsOutcomes, type OutcomesResult } from '../../src/analytics/outcomes.js';
import { metricsSummary, type SummaryMetrics } from '../../src/analytics/summary.js';
import { type Comparison, type LocalBound, type ZonedQuery, zonedDaily, zonedOutcomes, zonedSeries, zonedSummary } from '../../src/analytics/zoned.js';
import {
  CHANNELS,
  type ChannelValue,
  INTERACTION_TYPES,
  type InteractionTypeValue,
  OUTCOMES,
  outcomeLabel,
  SCHEDULED_OUTCOME,
  SUCCESSFUL_OUTCOMES,
  TYPES_BY_CHANNEL,
} from '../../src/domain/values.js';
import type { Dimensions } from '../../src/rollups/counted.js';
import type { Granularity } from '../../src/zones/local-calendar.js';
import {
  BASE,
  createCampaigns as createCampaignsIn,
  createClinics as createClinicsIn,
  DAY,
  describeFilter,
  fileDatabase,
  insertRows as insertRowsIn,
  instantArb,
  type Row,
  rawWhere,
  windowArb,
  windowOf,
} from './dimension-fixtures.js';

/** Every group-by of one and two (distinct, ordered) dimensions. */
const GROUP_BYS: Dimension[][] = [...DIMENSIONS.map((d) => [d]), ...DIMENSIONS.flatMap((a) => DIMENSIONS.filter((b) => b !== a).map((b) => [a, b]))];

const file = fileDatabase('breakdown');
const createClinics = (n: number) => createClinicsIn(file.q, n);
const createCampaigns = (campaigns: ReadonlyArray<{ id: string; clinicId: string }>) => createCampaignsIn(file.q, campaigns);
const insertRows = (rows: readonly Row[]) => insertRowsIn(file.q, rows);

// --- the raw-SQL reference -------------------------------------------------------------------------
/** The columns of the dimensions, in the order of GROUPING()'s arguments (the first is its highest bit). */
const COLUMN: Record<Dimension, string> = {
  clinic: 'clinic_id',
  campaign: 'campaign_id',
  channel: 'channel',
  type: 'type',
  direction: 'direction',
  outcome: 'outcome',
};
const GROUPING = `GROUPING(${DIMENSIONS.map((d) => COLUMN[d]).join(', ')})`;
/** GROUPING()'s value for a grouping set: a bit set for each dimension that is not grouped by. */
const maskOf = (dimensions: readonly Dimension[]) =>
  DIMENSIONS.reduce((mask, d, i) => (dimensions.includes(d) ? mask : mask | (1 << (DIMENSIONS.length - 1 - i))), 0);

/** The summary's definitions (docs/concepts.md, Metrics) as aggregates; $succ and $booked are placeholders. */
const METRICS = `
  count(*) AS total,
  count(*) FILTER (WHERE channel = 'voice') AS calls,
  count(*) FILTER (WHERE channel = 'whatsapp') AS conversations,
  count(*) FILTER (WHERE direction = 'inbound') AS inbound,
  count(*) FILTER (WHERE direction = 'outbound') AS outbound,
  count(*) FILTER (WHERE outcome = $booked::text) AS scheduled,
  coalesce(sum(duration_seconds) FILTER (WHERE channel = 'voice'), 0) AS duration_sum,
  (CASE WHEN count(outcome) = 0 THEN 0
        ELSE round(count(*) FILTER (WHERE outcome = ANY($succ::text[])) * 100::numeric / count(outcome), 2) END)::float8 AS success_rate,
  (CASE WHEN count(duration_seconds) FILTER (WHERE channel = 'voice') = 0 THEN 0
        ELSE round(sum(duration_seconds) FILTER (WHERE channel = 'voice')::numeric / count(duration_seconds) FILTER (WHERE channel = 'voice'), 2)
   END)::float8 AS avg_duration`;

/** METRICS with its two placeholders numbered after `values`, which it extends. */
function metricsWith(values: unknown[]): string {
  values.push([...SUCCESSFUL_OUTCOMES], SCHEDULED_OUTCOME);
  return METRICS.replace('$succ', `$${values.length - 1}`).replace('$booked', `$${values.length}`);
}

type MetricsRow = Record<'total' | 'calls' | 'conversations' | 'inbound' | 'outbound' | 'scheduled' | 'duration_sum', string> & {
  success_rate: number;
  avg_duration: number;
};

function summaryOf(r: MetricsRow): SummaryMetrics {
  return {
    totalInteractions: Number(r.total),
    totalCalls: Number(r.calls),
    totalConversations: Number(r.conversations),
    inboundCount: Number(r.inbound),
    outboundCount: Number(r.outbound),
    avgDurationSeconds: r.avg_duration,
    totalDurationSeconds: Number(r.duration_sum),
    successRate: r.success_rate,
    appointmentsScheduled: Number(r.scheduled),
  };
}

/** Groups as the breakdown returns them, in the contract's order (written here in JavaScript, not SQL). */
function ordered(groups: BreakdownGroup[], groupBy: readonly Dimension[]): BreakdownGroup[] {
  const keyOf = (g: BreakdownGroup, d: Dimension): string | null | undefined =>
    ({ clinic: g.clinicId, campaign: g.campaignId, channel: g.channel, type: g.type, direction: g.direction, outcome: g.outcome })[d];
  return [...groups].sort((x, y) => {
    if (x.metrics.totalInteractions !== y.metrics.totalInteractions) return y.metrics.totalInteractions - x.metrics.totalInteractions;
    for (const d of groupBy) {
      const [a, b] = [keyOf(x, d) ?? null, keyOf(y, d) ?? null];
      if (a === b) continue;
      if (a === null) return 1; // nulls last
      if (b === null) return -1;
      return a < b ? -1 : 1; // UTF-16 code units: the bytes' order for these ASCII keys (clinics: lowercase hex uuids)
    }
    return 0;
  });
}

interface Reference {
  summary: SummaryMetrics;
  /** By group-by (its dimensions joined with ','): every group, in order. */
  breakdowns: Map<string, BreakdownGroup[]>;
}

/** Every breakdown and the summary of a filter, from one GROUPING SETS query over the raw table. */
async function reference(filter: MetricsFilter): Promise<Reference> {
  const { where, values } = rawWhere(filter);
  const sets = ['()', ...DIMENSIONS.map((d) => `(${COLUMN[d]})`)];
  DIMENSIONS.forEach((a, i) => {
    for (const b of DIMENSIONS.slice(i + 1)) sets.push(`(${COLUMN[a]}, ${COLUMN[b]})`);
  });
  const { rows } = await file.q.query<MetricsRow & { g: number; k: Record<Dimension, string | null> }>(
    `SELECT ${GROUPING} AS g,
            json_build_object('clinic', clinic_id, 'campaign', campaign_id, 'channel', channel, 'type', type, 'direction', direction, 'outcome', outcome) AS k,
            ${metricsWith(values)}
     FROM interactions WHERE ${where}
     GROUP BY GROUPING SETS (${sets.join(', ')})`,
    values,
  );
  const all = rows.find((r) => r.g === maskOf([]));
  if (!all) throw new Error('reference: no row for the empty grouping set');
  const breakdowns = new Map<string, BreakdownGroup[]>();
  for (const groupBy of GROUP_BYS) {
    const groups = rows
      .filter((r) => r.g === maskOf(groupBy))
      .map((r) => {
        const group: BreakdownGroup = { metrics: summaryOf(r) };
        for (const d of groupBy) {
          const value = r.k[d];
          if (d === 'clinic') group.clinicId = value!;
          else if (d === 'campaign') group.campaignId = value;
          else if (d === 'channel') group.channel = value as ChannelValue;
          else if (d === 'type') group.type = value as InteractionTypeValue;
          else if (d === 'direction') group.direction = value as BreakdownGroup['direction'];
          else group.outcome = value;
        }
        return group;
      });
    breakdowns.set(groupBy.join(','), ordered(groups, groupBy));
  }
  return { summary: summaryOf(all), breakdowns };
}

/** The daily series over the raw table: every UTC day of the window, zero-filled. */
async function referenceDaily(filter: MetricsFilter): Promise<DailyMetric[]> {
  const { where, values } = rawWhere(filter);
  const metrics = metricsWith(values);
  const { rows } = await file.q.query<MetricsRow & { date: string }>(
    `WITH per_day AS (
       SELECT (started_at AT TIME ZONE 'UTC')::date AS day, ${metrics} FROM interactions WHERE ${where} GROUP BY 1
     )
     SELECT to_char(d, 'YYYY-MM-DD') AS date, coalesce(total, 0) AS total, coalesce(calls, 0) AS calls, coalesce(conversations, 0) AS conversations,
            coalesce(inbound, 0) AS inbound, coalesce(outbound, 0) AS outbound, coalesce(scheduled, 0) AS scheduled,
            coalesce(duration_sum, 0) AS duration_sum, coalesce(success_rate, 0) AS success_rate, coalesce(avg_duration, 0) AS avg_duration
     FROM generate_series(($1::timestamptz AT TIME ZONE 'UTC')::date, ($2::timestamptz AT TIME ZONE 'UTC')::date, interval '1 day') AS d
     LEFT JOIN per_day ON per_day.day = d::date
     ORDER BY d`,
    values,
  );
  return rows.map((r) => {
    const s = summaryOf(r);
    return {
      date: r.date,
      total: s.totalInteractions,
      calls: s.totalCalls,
      conversations: s.totalConversations,
      inbound: s.inboundCount,
      outbound: s.outboundCount,
      appointmentsScheduled: s.appointmentsScheduled,
      successRate: s.successRate,
      avgDurationSeconds: s.avgDurationSeconds,
    };
  });
}

/** The outcome breakdown over the raw table (outcomes of the window; ties by the outcome's bytes). */
async function referenceOutcomes(filter: MetricsFilter): Promise<OutcomesResult> {
  const { where, values } = rawWhere(filter);
  const { rows } = await file.q.query<{ outcome: string; count: string; total: string; percentage: number }>(
    `SELECT outcome, count, total, round(count * 100::numeric / total, 2)::float8 AS percentage
     FROM (SELECT outcome, count(*) AS count, sum(count(*)) OVER () AS total FROM interactions WHERE ${where} AND outcome IS NOT NULL GROUP BY outcome) AS o`,
    values,
  );
  const outcomes = rows
    .map((r) => ({ outcome: r.outcome, label: outcomeLabel(r.outcome), count: Number(r.count), percentage: r.percentage }))
    .sort((a, b) => b.count - a.count || (a.outcome < b.outcome ? -1 : 1));
  return { outcomes, total: Number(rows[0]?.total ?? 0) };
}

// --- arbitraries -----------------------------------------------------------------------------------
const PAIRS = CHANNELS.flatMap((channel) => TYPES_BY_CHANNEL[channel].map((type) => ({ channel, type })));

const rowArb = fc.record({
  clinic: fc.constantFrom(0, 0, 0, 1, 1, 2),
  /** null: no campaign; otherwise an index among the clinic's campaigns. */
  campaign: fc.option(fc.nat(), { nil: null, freq: 3 }),
  pair: fc.constantFrom(...PAIRS),
  outcome: fc.option(fc.constantFrom<string>(...OUTCOMES, 'FOLLOW_UP'), { nil: null, freq: 4 }),
  duration: fc.option(fc.oneof(fc.constantFrom(0, 599, 600, 3599, 3600, 2147483647), fc.integer({ min: 0, max: 7_200 })), { nil: null, freq: 5 }),
  startedAt: instantArb,
});

const filterArb = fc.record({
  clinics: fc.oneof(
    { weight: 4, arbitrary: fc.constant<number[] | undefined>(undefined) },
    { weight: 1, arbitrary: fc.constant<number[] | undefined>([]) },
    { weight: 4, arbitrary: fc.constantFrom<number[] | undefined>([0], [1], [0, 1], [0, 1, 2]) },
  ),
  // own0, own1: campaigns of clinic 0; other: of clinic 1; stranger: of clinic 2; unknown: no such campaign.
  campaign: fc.oneof(
    { weight: 5, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: fc.constant('own0' as const) },
    { weight: 1, arbitrary: fc.constantFrom('own1' as const, 'other' as const, 'stranger' as const, 'unknown' as const) },
  ),
  channel: fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: fc.constantFrom<ChannelValue>(...CHANNELS), weight: 1 }),
  type: fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: fc.constantFrom<InteractionTypeValue>(...INTERACTION_TYPES), weight: 1 }),
});

/** A page of one breakdown: the group-by, and skip / take (past the last group too). */
const pageArb = fc.record({ groupBy: fc.constantFrom(...GROUP_BYS), skip: fc.integer({ min: 0, max: 40 }), take: fc.integer({ min: 1, max: 6 }) });

const ALL = { skip: 0, take: 1_000_000 };

// --- the properties --------------------------------------------------------------------------------
describe('metricsBreakdown (property-based, against GROUPING SETS over the raw table)', () => {
  it('equals the reference, group for group, in order, with its total, for every group-by of one and two dimensions; pages are slices of it', async () => {
    let runs = 0;
    let nonEmpty = 0;
    const checked = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(rowArb, { minLength: 0, maxLength: 30, size: 'max' }), windowArb, filterArb, pageArb, async (specs, w, f, page) => {
        runs++;
        const clinics = await createClinics(3);
        // Ids whose order differs between byte order and a linguistic collation ('A' < 'B' < 'a' in bytes; '-' < '_').
        const prefix = `cmp_${randomUUID().slice(0, 8)}`;
        const campaignsOf = [[`${prefix}_a`, `${prefix}_B`, `${prefix}-z`], [`${prefix}_A`, `${prefix}_b`], [`${prefix}_c`]];
        await createCampaigns(campaignsOf.flatMap((ids, i) => ids.map((id) => ({ id, clinicId: clinics[i]! }))));
        const rows: Row[] = specs.map((s) => ({
          clinicId: clinics[s.clinic]!,
          campaignId: s.campaign === null ? null : campaignsOf[s.clinic]![s.campaign % campaignsOf[s.clinic]!.length]!,
          channel: s.pair.channel,
          type: s.pair.type,
          startedAt: s.startedAt,
          durationSeconds: s.pair.channel === 'voice' ? s.duration : null,
          outcome: s.outcome,
        }));
        await insertRows(rows);
        const { from, to } = windowOf(w, rows);
        const campaignId = {
          own0: campaignsOf[0]![0],
          own1: campaignsOf[0]![1],
          other: campaignsOf[1]![0],
          stranger: campaignsOf[2]![0],
          unknown: `${prefix}_unknown`,
        };
        const filter: MetricsFilter = {
          from: new Date(from),
          to: new Date(to),
          ...(f.clinics ? { clinicIds: f.clinics.map((i) => clinics[i]!) } : {}),
          ...(f.campaign ? { campaignId: campaignId[f.campaign] } : {}),
          ...(f.channel ? { channel: f.channel } : {}),
          ...(f.type ? { type: f.type } : {}),
        };
        const context = describeFilter(filter);

        const expected = await reference(filter);
        if (expected.summary.totalInteractions > 0) nonEmpty++;
        // Every single dimension, and a quarter of the pairs in turn (all of them every 4 runs).
        for (const groupBy of GROUP_BYS.filter((g, i) => g.length === 1 || i % 4 === runs % 4)) {
          checked.add(groupBy.join(','));
          const groups = expected.breakdowns.get(groupBy.join(','))!;
          const actual = await metricsBreakdown(file.db, filter, groupBy, ALL);
          expect(actual, `by ${groupBy.join(', ')}: ${context}`).toEqual({ groups, total: groups.length });
          // The groups of each dimension add up to the summary.
          expect(groups.reduce((s, g) => s + g.metrics.totalInteractions, 0)).toBe(expected.summary.totalInteractions);
        }
        const groups = expected.breakdowns.get(page.groupBy.join(','))!;
        expect(await metricsBreakdown(file.db, filter, page.groupBy, { skip: page.skip, take: page.take }), `page ${JSON.stringify(page)}: ${context}`).toEqual(
          {
            groups: groups.slice(page.skip, page.skip + page.take),
            total: groups.length,
          },
        );

        // The other metrics with the same filter (the campaign read from the campaign levels).
        expect(await metricsSummary(file.db, filter), `summary: ${context}`).toEqual(expected.summary);
        expect(await metricsDaily(file.db, filter), `daily: ${context}`).toEqual(await referenceDaily(filter));
        expect(await metricsOutcomes(file.db, filter), `outcomes: ${context}`).toEqual(await referenceOutcomes(filter));
      }),
      { numRuns: 24 },
    );
    expect(runs).toBe(24);
    // (not a vacuous property: about half the runs select some interactions)
    expect(nonEmpty).toBeGreaterThanOrEqual(4);
    expect(checked.size).toBe(GROUP_BYS.length);
  });

  it('summary, daily and outcomes filtered by a campaign equal the raw reference (a campaign always set; with and without a clinic restriction)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { minLength: 1, maxLength: 30, size: 'max' }),
        windowArb,
        fc.constantFrom('own', 'other', 'unknown'),
        fc.constantFrom<'none' | 'own' | 'both' | 'empty'>('none', 'none', 'own', 'both', 'empty'),
        async (specs, w, which, scope) => {
          const clinics = await createClinics(3);
          const prefix = `cmp_${randomUUID().slice(0, 8)}`;
          const campaignsOf = [[`${prefix}_0`], [`${prefix}_1`], [`${prefix}_2`]];
          await createCampaigns(campaignsOf.flatMap((ids, i) => ids.map((id) => ({ id, clinicId: clinics[i]! }))));
          const rows: Row[] = specs.map((s) => ({
            clinicId: clinics[s.clinic]!,
            campaignId: s.campaign === null ? null : campaignsOf[s.clinic]![0]!,
            channel: s.pair.channel,
            type: s.pair.type,
            startedAt: s.startedAt,
            durationSeconds: s.pair.channel === 'voice' ? s.duration : null,
            outcome: s.outcome,
          }));
          await insertRows(rows);
          const { from, to } = windowOf(w, rows);
          const clinicIds = { none: undefined, own: [clinics[0]!], both: [clinics[0]!, clinics[1]!], empty: [] }[scope];
          const filter: MetricsFilter = {
            from: new Date(from),
            to: new Date(to),
            ...(clinicIds ? { clinicIds } : {}),
            campaignId: which === 'own' ? campaignsOf[0]![0] : which === 'other' ? campaignsOf[1]![0] : `${prefix}_unknown`,
          };
          const context = describeFilter(filter);
          const expected = await reference(filter);
          expect(await metricsSummary(file.db, filter), `summary: ${context}`).toEqual(expected.summary);
          expect(await metricsDaily(file.db, filter), `daily: ${context}`).toEqual(await referenceDaily(filter));
          expect(await metricsOutcomes(file.db, filter), `outcomes: ${context}`).toEqual(await referenceOutcomes(filter));
          if (which === 'unknown' || scope === 'empty' || (which === 'other' && scope === 'own')) {
            expect(expected.summary.totalInteractions, context).toBe(0);
          }
        },
      ),
      { numRuns: 20 },
    );
  });
});

describe('metrics in a time zone filtered by a campaign (property-based, metamorphic)', () => {
  // The zoned metrics of a clinic whose every interaction is the campaign's, filtered by the
  // campaign (read from the campaign levels, anchored at UTC days, the rest raw), equal the same
  // metrics filtered by the clinic (the clinic plan, checked against raw SQL by zoned.property.test.ts).
  const ZONES = ['UTC', 'Asia/Kathmandu', 'America/St_Johns', 'Europe/Madrid', 'Pacific/Chatham', 'Australia/Lord_Howe'] as const;
  const boundArb = fc.oneof(
    fc.record({ kind: fc.constant('date' as const), days: fc.integer({ min: -35, max: 35 }) }),
    fc.record({ kind: fc.constant('instant' as const), at: instantArb }),
  );
  const toBound = (b: typeof boundArb extends fc.Arbitrary<infer T> ? T : never): LocalBound =>
    b.kind === 'date' ? { kind: 'date', wall: BASE + b.days * DAY } : { kind: 'instant', at: b.at };
  const start = (b: LocalBound) => (b.kind === 'date' ? b.wall : b.at);
  // A local date and an instant ordered by their numbers may still be out of order in the zone (a
  // St. John's date begins at 03:30 UTC): both reads must then refuse the window alike.
  const settled = <T>(read: Promise<T>): Promise<{ value: T } | { refused: string }> =>
    read.then(
      (value) => ({ value }),
      (error: unknown) => ({ refused: error instanceof Error ? error.constructor.name : String(error) }),
    );

  it('zoned summary, daily, series and outcomes with the campaign equal those of its clinic', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { minLength: 1, maxLength: 25, size: 'max' }),
        fc.constantFrom(...ZONES),
        boundArb,
        boundArb,
        fc.constantFrom<Granularity>('hour', 'day', 'week', 'month'),
        fc.constantFrom<Comparison | undefined>(undefined, undefined, 'previous_period', 'previous_year'),
        fc.constantFrom<ChannelValue | undefined>(undefined, undefined, 'voice', 'whatsapp'),
        async (specs, zone, a, b, granularity, compare, channel) => {
          const clinics = await createClinics(3);
          const prefix = `cmp_${randomUUID().slice(0, 8)}`;
          const [only, other] = [`${prefix}_only`, `${prefix}_other`];
          await createCampaigns([
            { id: only, clinicId: clinics[0]! },
            { id: other, clinicId: clinics[1]! },
          ]);
          // Clinic 0: every interaction the campaign's. The others: another campaign's or none.
          await insertRows(
            specs.map((s) => ({
              clinicId: clinics[s.clinic]!,
              campaignId: s.clinic === 0 ? only : s.clinic === 1 && s.campaign !== null ? other : null,
              channel: s.pair.channel,
              type: s.pair.type,
              startedAt: s.startedAt,
              durationSeconds: s.pair.channel === 'voice' ? s.duration : null,
              outcome: s.outcome,
            })),
          );
          let [from, to] = [toBound(a), toBound(b)];
          if (start(from) > start(to)) [from, to] = [to, from];
          // An hourly series over a few days at most.
          if (granularity === 'hour' && start(to) - start(from) > 4 * DAY) to = from.kind === 'date' ? from : { kind: 'instant', at: from.at + 4 * DAY };
          const query = (dims: Dimensions): ZonedQuery => ({
            zone,
            from,
            to,
            dims: { ...dims, channel },
            ...(compare ? { compare } : {}),
            now: new Date(BASE),
          });
          const byClinic = query({ clinicIds: [clinics[0]!] });
          const context = JSON.stringify({ zone, from, to, granularity, compare, channel });
          for (const dims of [
            { campaignId: only },
            { clinicIds: [clinics[0]!], campaignId: only },
            { clinicIds: [clinics[0]!, clinics[2]!], campaignId: only },
          ]) {
            const byCampaign = query(dims);
            const label = `${JSON.stringify(dims)} ${context}`;
            expect(await settled(zonedSummary(file.db, byCampaign)), `summary ${label}`).toEqual(await settled(zonedSummary(file.db, byClinic)));
            expect(await settled(zonedOutcomes(file.db, byCampaign)), `outcomes ${label}`).toEqual(await settled(zonedOutcomes(file.db, byClinic)));
            expect(await settled(zonedDaily(file.db, byCampaign, 400)), `daily ${label}`).toEqual(await settled(zonedDaily(file.db, byClinic, 400)));
            expect(await settled(zonedSeries(file.db, byCampaign, granularity)), `series ${label}`).toEqual(
              await settled(zonedSeries(file.db, byClinic, granularity)),
            );
          }
          // The campaign seen through another clinic: nothing.
          const elsewhere = await zonedSummary(file.db, query({ clinicIds: [clinics[1]!], campaignId: only }));
          expect(elsewhere.current.totalInteractions).toBe(0);
        },
      ),
      { numRuns: 12 },
    );
  });
});

describe('metricsBreakdown (examples)', () => {
  it('orders equal groups by their keys in byte order with no campaign and no outcome last, and counts a page past the last', async () => {
    const [c0, c1] = (await createClinics(2)).sort() as [string, string];
    const prefix = `cmp_${randomUUID().slice(0, 8)}`;
    const [lower, upper] = [`${prefix}_a`, `${prefix}_B`];
    await createCampaigns([
      { id: lower, clinicId: c0 },
      { id: upper, clinicId: c0 },
    ]);
    // A window of its own: 2030-01-31T12:00 to 2030-02-01T12:00 (two partial days, no full one).
    const at = (h: number) => Date.UTC(2030, 0, 31, 12 + h);
    const call = (campaignId: string | null, clinicId: string, h: number, outcome: string | null, durationSeconds: number | null): Row => ({
      clinicId,
      campaignId,
      channel: 'voice',
      type: 'INBOUND',
      startedAt: at(h),
      durationSeconds,
      outcome,
    });
    await insertRows([
      call(lower, c0, 0, 'NO_ANSWER', 10),
      call(lower, c0, 1, null, 20),
      call(upper, c0, 2, 'APPOINTMENT_BOOKED', 1),
      call(upper, c0, 3, null, null),
      call(null, c0, 4, 'APPOINTMENT_BOOKED', 3),
      call(null, c1, 13, 'OPT_OUT', 4),
      { ...call(null, c1, 14, null, null), channel: 'whatsapp', type: 'APPOINTMENT_REMINDER' },
    ]);
    const filter: MetricsFilter = { from: new Date(at(0)), to: new Date(at(24)), clinicIds: [c0, c1] };
    const byCampaign = await metricsBreakdown(file.db, filter, ['campaign'], ALL);
    expect(byCampaign.total).toBe(3);
    // 3 without a campaign first (the largest), then 2 and 2 in byte order: 'B' (0x42) before 'a' (0x61).
    expect(byCampaign.groups.map((g) => [g.campaignId, g.metrics.totalInteractions])).toEqual([
      [null, 3],
      [upper, 2],
      [lower, 2],
    ]);
    expect(byCampaign.groups[1]!.metrics).toEqual({
      totalInteractions: 2,
      totalCalls: 2,
      totalConversations: 0,
      inboundCount: 2,
      outboundCount: 0,
      avgDurationSeconds: 1,
      totalDurationSeconds: 1,
      successRate: 100,
      appointmentsScheduled: 1,
    });
    const byCampaignOutcome = await metricsBreakdown(file.db, filter, ['campaign', 'outcome'], ALL);
    expect(byCampaignOutcome.groups.map((g) => [g.campaignId, g.outcome, g.metrics.totalInteractions])).toEqual([
      [upper, 'APPOINTMENT_BOOKED', 1],
      [upper, null, 1],
      [lower, 'NO_ANSWER', 1],
      [lower, null, 1],
      [null, 'APPOINTMENT_BOOKED', 1],
      [null, 'OPT_OUT', 1],
      [null, null, 1],
    ]);
    const byClinicChannel = await metricsBreakdown(file.db, filter, ['clinic', 'channel'], ALL);
    expect(byClinicChannel.groups.map((g) => [g.clinicId, g.channel, g.metrics.totalInteractions])).toEqual([
      [c0, 'voice', 5],
      [c1, 'voice', 1],
      [c1, 'whatsapp', 1],
    ]);
    expect(await metricsBreakdown(file.db, filter, ['campaign', 'outcome'], { skip: 5, take: 5 })).toMatchObject({ total: 7, groups: [{}, {}] });
    expect(await metricsBreakdown(file.db, filter, ['campaign', 'outcome'], { skip: 7, take: 5 })).toEqual({ total: 7, groups: [] });
    expect(await metricsBreakdown(file.db, filter, ['type'], { skip: 100, take: 1 })).toEqual({ total: 2, groups: [] });
    expect(await metricsBreakdown(file.db, { ...filter, clinicIds: [] }, ['type'], ALL)).toEqual({ total: 0, groups: [] });
    expect(await metricsBreakdown(file.db, { ...filter, campaignId: lower }, ['clinic'], ALL)).toMatchObject({
      total: 1,
      groups: [{ clinicId: c0, metrics: { totalInteractions: 2, totalDurationSeconds: 30, avgDurationSeconds: 15, successRate: 0 } }],
    });
    expect(await metricsBreakdown(file.db, { ...filter, clinicIds: [c1], campaignId: lower }, ['clinic'], ALL)).toEqual({ total: 0, groups: [] });
  });
});
