// An independent JavaScript reference of the metrics definitions (docs/concepts.md, Metrics), over the fixture rows a test created.
// Rounding is exact (BigInt arithmetic, half away from zero), never binary floating point.
import type { DailyMetric } from '../../src/analytics/daily.js';
import type { MetricsFilter } from '../../src/analytics/filter.js';
import type { OutcomeBreakdown } from '../../src/analytics/outcomes.js';
import type { SummaryMetrics } from '../../src/analytics/summary.js';

/** The columns of an interaction the metrics read (what the factory returns). */
export interface Fixture {
  clinicId: string;
  channel: string;
  type: string;
  direction: string;
  startedAt: Date;
  durationSeconds: number | null;
  outcome: string | null;
}

const SUCCESS = new Set(['APPOINTMENT_BOOKED', 'APPOINTMENT_MODIFIED', 'APPOINTMENT_CANCELLED']);
const SCHEDULED = 'APPOINTMENT_BOOKED';
const LABELS: Record<string, string> = {
  APPOINTMENT_BOOKED: 'Appointment Booked',
  APPOINTMENT_MODIFIED: 'Appointment Modified',
  APPOINTMENT_CANCELLED: 'Appointment Cancelled',
  NO_ANSWER: 'No Answer',
  VOICEMAIL_REACHED: 'Voicemail Reached',
  CALLBACK_REQUESTED: 'Callback Requested',
  DECISION_PENDING: 'Decision Pending',
  OPT_OUT: 'Opt Out',
  UNREACHABLE: 'Unreachable',
  FOLLOW_UP: 'Follow Up',
  NOTE: 'Note',
};

/** numerator / denominator rounded to 2 decimals, half away from zero (exact); 0 when the denominator is 0. */
export function div2(numerator: number, denominator: number): number {
  if (denominator === 0) return 0;
  const n = BigInt(numerator) * 100n;
  const d = BigInt(denominator);
  const negative = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const hundredths = (2n * an + ad) / (2n * ad); // floor(an / ad + 1/2)
  return (negative ? -Number(hundredths) : Number(hundredths)) / 100;
}

/** part / whole x 100, rounded to 2 decimals; 0 when whole is 0. */
export function percent2(part: number, whole: number): number {
  return div2(part * 100, whole);
}

export function selects(f: MetricsFilter, row: Fixture): boolean {
  const t = row.startedAt.getTime();
  return (
    t >= f.from.getTime() &&
    t <= f.to.getTime() &&
    (f.clinicIds === undefined || f.clinicIds.includes(row.clinicId)) &&
    (f.channel === undefined || row.channel === f.channel) &&
    (f.type === undefined || row.type === f.type)
  );
}

function aggregate(rows: Fixture[]) {
  const calls = rows.filter((r) => r.channel === 'voice');
  const timed = calls.filter((r) => r.durationSeconds !== null);
  const durationSum = timed.reduce((s, r) => s + (r.durationSeconds ?? 0), 0);
  const withOutcome = rows.filter((r) => r.outcome !== null);
  const successful = rows.filter((r) => r.outcome !== null && SUCCESS.has(r.outcome));
  return {
    total: rows.length,
    calls: calls.length,
    conversations: rows.filter((r) => r.channel === 'whatsapp').length,
    inbound: rows.filter((r) => r.direction === 'inbound').length,
    outbound: rows.filter((r) => r.direction === 'outbound').length,
    scheduled: rows.filter((r) => r.outcome === SCHEDULED).length,
    durationSum,
    avg: div2(durationSum, timed.length),
    successRate: percent2(successful.length, withOutcome.length),
  };
}

export function referenceSummary(fixtures: Fixture[], f: MetricsFilter): SummaryMetrics {
  const a = aggregate(fixtures.filter((r) => selects(f, r)));
  return {
    totalInteractions: a.total,
    totalCalls: a.calls,
    totalConversations: a.conversations,
    inboundCount: a.inbound,
    outboundCount: a.outbound,
    avgDurationSeconds: a.avg,
    totalDurationSeconds: a.durationSum,
    successRate: a.successRate,
    appointmentsScheduled: a.scheduled,
  };
}

const DAY_MS = 86_400_000;

function utcDate(d: Date | number): string {
  return new Date(d).toISOString().slice(0, 10);
}

export function referenceDaily(fixtures: Fixture[], f: MetricsFilter): DailyMetric[] {
  const selected = fixtures.filter((r) => selects(f, r));
  const out: DailyMetric[] = [];
  const first = Date.parse(`${utcDate(f.from)}T00:00:00.000Z`);
  const last = Date.parse(`${utcDate(f.to)}T00:00:00.000Z`);
  for (let day = first; day <= last; day += DAY_MS) {
    const date = utcDate(day);
    const a = aggregate(selected.filter((r) => utcDate(r.startedAt) === date));
    out.push({
      date,
      total: a.total,
      calls: a.calls,
      conversations: a.conversations,
      inbound: a.inbound,
      outbound: a.outbound,
      appointmentsScheduled: a.scheduled,
      successRate: a.successRate,
      avgDurationSeconds: a.avg,
    });
  }
  return out;
}

export function referenceOutcomes(fixtures: Fixture[], f: MetricsFilter): { outcomes: OutcomeBreakdown[]; total: number } {
  const counts = new Map<string, number>();
  for (const r of fixtures) {
    if (r.outcome !== null && selects(f, r)) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
  }
  const total = [...counts.values()].reduce((s, c) => s + c, 0);
  const outcomes = [...counts.entries()]
    .sort(([a, ca], [b, cb]) => cb - ca || (a < b ? -1 : a > b ? 1 : 0))
    .map(([outcome, count]) => {
      const label = LABELS[outcome];
      if (label === undefined) throw new Error(`reference: no label for ${outcome}; add it to LABELS`);
      return { outcome, label, count, percentage: percent2(count, total) };
    });
  return { outcomes, total };
}
