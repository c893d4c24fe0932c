// What writers pay for one family of rollup levels (`node --import tsx bench/write-cost.ts [admin URL]
// [fine|dimension]`): 2,000-row INSERT statements (the importer's batch size) and single-row inserts,
// with that family's triggers enabled and disabled, alternating, on a scratch database `wc_scratch`
// that it creates and drops on the server of the admin URL (default: the machine's PostgreSQL).
// `fine`: the levels under the day (bench/results/2026-11-24-zoned-levels-write-cost.md);
// `dimension`: the levels of campaigns and dimensions (the campaign outcome grain, the duration
// histograms and the campaign totals: bench/results/2026-11-25-dimension-levels-write-cost.md);
// `campaign-totals`: the campaign totals alone (the same report); `versions`: the per-clinic data
// versions that confirm ETags (bench/results/2026-11-27-data-versions-write-cost.md); `quarter-totals`:
// the totals per quarter hour, clinic and campaign (bench/results/2026-11-28-quarter-totals-write-cost.md).
import pg from 'pg';
import { migrate } from '../src/db/migrate.js';

const admin = process.argv[2] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const family = process.argv[3] ?? 'fine';
const FAMILIES = ['fine', 'dimension', 'campaign-totals', 'versions', 'quarter-totals'];
if (!FAMILIES.includes(family)) throw new Error(`unknown family of levels ${family}: ${FAMILIES.join(', ')}`);
const scratch = new URL(admin);
scratch.pathname = '/wc_scratch';
const url = scratch.toString();
const a = new pg.Client(admin);
await a.connect();
await a.query('DROP DATABASE IF EXISTS wc_scratch');
await a.query('CREATE DATABASE wc_scratch');
await a.end();
await migrate(url);
const c = new pg.Client(url);
await c.connect();
await c.query(
  `INSERT INTO clinics (id, name, address, phone, email, timezone) SELECT ('00000000-0000-0000-0000-00000000000' || g)::uuid, 'c' || g, 'a', 'p', 'e', 'UTC' FROM generate_series(0, 9) g`,
);
// Five campaigns per clinic; two interactions in three belong to one.
await c.query(
  `INSERT INTO campaigns (id, name, description, type, channel, status, clinic_id)
   SELECT 'cmp_' || g || '_' || k, 'c', 'd', 'recall', 'voice', 'active', ('00000000-0000-0000-0000-00000000000' || g)::uuid
   FROM generate_series(0, 9) g, generate_series(0, 4) k`,
);
const TRIGGERS = ['insert', 'update', 'delete'].flatMap((op) =>
  family === 'fine'
    ? [`interaction_fine_levels_${op}`]
    : family === 'campaign-totals'
      ? [`interaction_campaign_totals_${op}`]
      : family === 'versions'
        ? [`interaction_data_versions_${op}`]
        : family === 'quarter-totals'
          ? [`interaction_quarter_totals_${op}`]
          : [`interaction_dimension_levels_${op}`, `interaction_campaign_totals_${op}`],
);
const setFine = async (on: boolean) => {
  for (const t of TRIGGERS) await c.query(`ALTER TABLE interactions ${on ? 'ENABLE' : 'DISABLE'} TRIGGER ${t}`);
};
const rows = (start: number, n: number, order: 'chronological' | 'random') => `
  INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, campaign_id, started_at, duration_seconds, outcome)
  SELECT 'i' || g, CASE WHEN g % 3 = 0 THEN 'whatsapp' ELSE 'voice' END::"Channel",
         CASE WHEN g % 3 = 0 THEN 'APPOINTMENT_REMINDER' ELSE 'INBOUND' END::"InteractionType",
         CASE WHEN g % 3 = 0 THEN 'outbound' ELSE 'inbound' END::"Direction",
         '+34612' || lpad((hashint8extended(g, 1) & 999999)::text, 6, '0'),
         ('00000000-0000-0000-0000-00000000000' || (g % 10))::uuid,
         CASE WHEN g % 3 <> 2 THEN 'cmp_' || (g % 10) || '_' || ((g / 10) % 5) END,
         ${
           order === 'chronological'
             ? `TIMESTAMPTZ '2024-01-01 00:00Z' + g * interval '315 seconds'`
             : `TIMESTAMPTZ '2024-01-01 00:00Z' + ((hashint8extended(g, 2) & 2147483647) % 63072000) * interval '1 second'`
         },
         CASE WHEN g % 3 = 0 THEN NULL ELSE (g % 600)::int END,
         (ARRAY['APPOINTMENT_BOOKED','NO_ANSWER','VOICEMAIL_REACHED','CALLBACK_REQUESTED',NULL])[1 + g % 5]
  FROM generate_series(${start}, ${start + n - 1}) g`;
const results: Record<string, number[]> = {};
const TOTAL = 200_000,
  BATCH = 2_000;
for (let rep = 0; rep < 3; rep++) {
  for (const order of ['chronological', 'random'] as const) {
    for (const on of [true, false]) {
      await c.query('TRUNCATE interactions CASCADE');
      await setFine(on);
      const t0 = performance.now();
      for (let s = 0; s < TOTAL; s += BATCH) await c.query(rows(s, BATCH, order));
      const rate = TOTAL / ((performance.now() - t0) / 1000);
      const label = `${order} ${on ? 'with' : 'without'}`;
      results[label] = [...(results[label] ?? []), Math.round(rate)];
      console.log(order, on ? 'with' : 'without', Math.round(rate), 'rows/s');
    }
  }
}
for (const on of [true, false]) {
  await setFine(on);
  const times: number[] = [];
  for (let i = 0; i < 400; i++) {
    const t0 = performance.now();
    await c.query(rows(1_000_000 + (on ? 0 : 10_000) + i, 1, 'random'));
    times.push(performance.now() - t0);
  }
  times.sort((x, y) => x - y);
  console.log('single insert', on ? 'with' : 'without', 'p50', times[200]!.toFixed(3), 'ms p95', times[380]!.toFixed(3));
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
for (const [k, v] of Object.entries(results)) console.log('median', k, median(v), v);
await c.end();
const b = new pg.Client(admin);
await b.connect();
await b.query('DROP DATABASE wc_scratch');
await b.end();
process.exit(0);
