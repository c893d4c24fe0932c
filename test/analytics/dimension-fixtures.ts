// Shared by the property tests of the campaign and duration levels (breakdown.property.test.ts,
// durations.test.ts): a database of the file's own, rows with campaigns, the raw WHERE of a
// MetricsFilter, and windows around a few UTC months.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import type { MetricsFilter } from '../../src/analytics/filter.js';
import { createPrismaClient, type Db } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { type ChannelValue, directionOfType, type InteractionTypeValue } from '../../src/domain/values.js';

export const DAY = 86_400_000;
export const BASE = Date.UTC(2025, 9, 1); // 2025-10-01T00:00:00.000Z
/** The first instant of the month `k` months from BASE's. */
export const monthStart = (k: number) => Date.UTC(2025, 9 + k, 1);

export interface FileDatabase {
  /** A plain connection, for the reference queries and the rows. */
  q: pg.Client;
  /** The Prisma client the functions under test read through. */
  db: Db;
}

/**
 * A migrated database of the file's own, open from beforeAll to afterAll: without a clinic
 * restriction the metrics read every clinic (all-clinics levels), which in the run's shared database
 * would include other files' rows written meanwhile. Its default collation is ICU's en-US, where
 * 'a' < 'B' (the server's databases are C.UTF-8, where text sorts by bytes anyway): orders the
 * contract gives as bytes must come from COLLATE "C", not from the database's default. Its fields
 * are set once beforeAll has run.
 */
export function fileDatabase(prefix: string): FileDatabase {
  const handle = {} as FileDatabase;
  const adminUrl = inject('adminUrl');
  const name = `${prefix}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`);
    } finally {
      await admin.end();
    }
    await migrate(url.toString());
    handle.q = new pg.Client({ connectionString: url.toString() });
    await handle.q.connect();
    const { rows } = await handle.q.query<{ linguistic: boolean }>(`SELECT 'a' < 'B' AS linguistic`);
    if (!rows[0]?.linguistic) throw new Error('the database of the file does not sort text linguistically');
    handle.db = createPrismaClient(url.toString(), 4);
    // (connected now, so that $disconnect closes the pool beneath it: the metrics read through that
    // pool, not through Prisma's engine, and a client never connected leaves it open on disconnect)
    await handle.db.$connect();
  });
  afterAll(async () => {
    await handle.db?.$disconnect();
    await handle.q?.end().catch(() => {});
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      // Wait (up to 5 s) for the connections to finish closing before dropping (see withFreshDatabase).
      for (let i = 0; i < 100; i++) {
        const { rows } = await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
        if (rows[0]!.n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  });
  return handle;
}

export interface Row {
  clinicId: string;
  campaignId: string | null;
  channel: ChannelValue;
  type: InteractionTypeValue;
  /** Milliseconds since the epoch. */
  startedAt: number;
  durationSeconds: number | null;
  outcome: string | null;
}

export async function createClinics(q: pg.ClientBase, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => randomUUID());
  await q.query(
    `INSERT INTO clinics (id, name, address, phone, email, timezone)
     SELECT id, 'Dimension test clinic', '1 Test Street', '+1 555 0100', 'dimensions@example.test', 'UTC' FROM unnest($1::uuid[]) AS id`,
    [ids],
  );
  return ids;
}

export async function createCampaigns(q: pg.ClientBase, campaigns: ReadonlyArray<{ id: string; clinicId: string }>): Promise<void> {
  await q.query(
    `INSERT INTO campaigns (id, name, description, type, channel, status, clinic_id)
     SELECT id, 'Dimension test', 'made by a test', 'recall', 'multi', 'active', clinic_id FROM unnest($1::text[], $2::uuid[]) AS t(id, clinic_id)`,
    [campaigns.map((c) => c.id), campaigns.map((c) => c.clinicId)],
  );
}

/** One multi-row INSERT (the triggers see one statement). */
export async function insertRows(q: pg.ClientBase, rows: readonly Row[]): Promise<void> {
  if (rows.length === 0) return;
  await q.query(
    `INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, campaign_id, started_at, duration_seconds, outcome)
     SELECT id, channel, type, direction, '+34 600 000 004', clinic_id, campaign_id, started_at, duration_seconds, outcome
     FROM unnest($1::text[], $2::"Channel"[], $3::"InteractionType"[], $4::"Direction"[], $5::uuid[], $6::text[], $7::timestamptz[], $8::int[], $9::text[])
       AS t(id, channel, type, direction, clinic_id, campaign_id, started_at, duration_seconds, outcome)`,
    [
      rows.map(() => `int_dim_${randomUUID().replaceAll('-', '').slice(0, 16)}`),
      rows.map((r) => r.channel),
      rows.map((r) => r.type),
      rows.map((r) => directionOfType(r.type)),
      rows.map((r) => r.clinicId),
      rows.map((r) => r.campaignId),
      rows.map((r) => new Date(r.startedAt).toISOString()),
      rows.map((r) => r.durationSeconds),
      rows.map((r) => r.outcome),
    ],
  );
}

/** The WHERE of a filter over `interactions` (the window inclusive at both ends), with its parameters from $1. */
export function rawWhere(filter: MetricsFilter): { where: string; values: unknown[] } {
  const values: unknown[] = [filter.from.toISOString(), filter.to.toISOString()];
  const conditions = ['started_at >= $1::timestamptz', 'started_at <= $2::timestamptz'];
  const add = (condition: (n: string) => string, value: unknown) => {
    values.push(value);
    conditions.push(condition(`$${values.length}`));
  };
  if (filter.clinicIds !== undefined) add((n) => `clinic_id = ANY(${n}::uuid[])`, [...filter.clinicIds]);
  if (filter.campaignId !== undefined) add((n) => `campaign_id = ${n}::text`, filter.campaignId);
  if (filter.channel !== undefined) add((n) => `channel = ${n}::"Channel"`, filter.channel);
  if (filter.type !== undefined) add((n) => `type = ${n}::"InteractionType"`, filter.type);
  return { where: conditions.join(' AND '), values };
}

/** A filter as text, for assertion messages. */
export function describeFilter(filter: MetricsFilter): string {
  return JSON.stringify({ ...filter, from: filter.from.toISOString(), to: filter.to.toISOString() });
}

/** Instants around BASE's days and the months around it, biased towards the milliseconds at day and month boundaries. */
export const instantArb = fc.oneof(
  fc.record({ day: fc.integer({ min: -2, max: 5 }), ms: fc.constantFrom(0, 1, DAY - 1, DAY / 2) }).map(({ day, ms }) => BASE + day * DAY + ms),
  fc
    .record({ month: fc.integer({ min: -2, max: 2 }), ms: fc.constantFrom(0, -1, 1, DAY / 2, 10 * DAY, 20 * DAY + 5) })
    .map(({ month, ms }) => monthStart(month) + ms),
  fc.integer({ min: monthStart(-2), max: monthStart(3) - 1 }),
);

/**
 * A window: date-only bounds (00:00:00.000 to 23:59:59.999), whole calendar months, partial months
 * (from and to inside months, at various times of day), free instants, one millisecond around a
 * row's instant, or most of the rows' five months.
 */
export const windowArb = fc.oneof(
  fc.record({ kind: fc.constant('dates' as const), a: fc.integer({ min: -40, max: 40 }), b: fc.integer({ min: -40, max: 40 }) }),
  fc.record({ kind: fc.constant('months' as const), a: fc.integer({ min: -2, max: 2 }), b: fc.integer({ min: -2, max: 2 }) }),
  fc.record({
    kind: fc.constant('partialMonths' as const),
    a: fc.integer({ min: -2, max: 2 }),
    b: fc.integer({ min: -2, max: 2 }),
    dayA: fc.integer({ min: 0, max: 27 }),
    dayB: fc.integer({ min: 0, max: 27 }),
    msA: fc.constantFrom(0, 1, DAY / 2, DAY - 1),
    msB: fc.constantFrom(0, DAY / 2, DAY - 2, DAY - 1),
  }),
  fc.record({ kind: fc.constant('instants' as const), a: instantArb, b: instantArb }),
  fc.record({ kind: fc.constant('near' as const), ref: fc.nat(), delta: fc.constantFrom(-1, 0, 1), b: instantArb }),
  // Most of the rows' months, with partial months at both ends.
  fc.record({ kind: fc.constant('wide' as const), a: fc.integer({ min: 0, max: 20 * DAY }), b: fc.integer({ min: 0, max: 20 * DAY }) }),
);
export type WindowSpec = typeof windowArb extends fc.Arbitrary<infer T> ? T : never;

/** The window's bounds (from <= to), in milliseconds since the epoch. */
export function windowOf(w: WindowSpec, rows: readonly Row[]): { from: number; to: number } {
  const sorted = (a: number, b: number) => (a <= b ? { from: a, to: b } : { from: b, to: a });
  switch (w.kind) {
    case 'dates': {
      const [first, last] = w.a <= w.b ? [w.a, w.b] : [w.b, w.a];
      return { from: BASE + first * DAY, to: BASE + (last + 1) * DAY - 1 };
    }
    case 'months': {
      const [first, last] = w.a <= w.b ? [w.a, w.b] : [w.b, w.a];
      return { from: monthStart(first), to: monthStart(last + 1) - 1 };
    }
    case 'partialMonths':
      return sorted(monthStart(w.a) + w.dayA * DAY + w.msA, monthStart(w.b) + w.dayB * DAY + w.msB);
    case 'instants':
      return sorted(w.a, w.b);
    case 'near':
      return sorted((rows[w.ref % Math.max(rows.length, 1)]?.startedAt ?? BASE) + w.delta, w.b);
    case 'wide':
      return { from: monthStart(-2) + w.a, to: monthStart(3) - 1 - w.b };
  }
}
