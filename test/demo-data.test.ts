// The demo data a first start loads (src/demo.ts), as a user of the printed key sees them: long
// enough that year-over-year comparisons and the months 13 to 15 back have data, and with most
// interactions in a campaign, so a breakdown by campaign leads with a named one. Seeded at a tenth
// of the demo's size but otherwise as the demo has them (default seed and period, ending now).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../src/app.js';
import { createPrismaClient, type Db } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { ensureDemoSetup } from '../src/demo.js';
import { testApp } from './helpers/app.js';
import { withFreshDatabase } from './helpers/db.js';
import { get, type Json } from './rest/client.js';

const DAY = 86_400_000;
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-data-'));
let db: Db;
let app: App;
let key: string;
let done: () => void;
let dropped: Promise<void>;

beforeAll(async () => {
  const ready = new Promise<string>((resolve) => {
    dropped = withFreshDatabase('demo_data', async (fresh) => {
      resolve(fresh);
      await new Promise<void>((release) => {
        done = release;
      });
    });
  });
  const url = await ready;
  await migrate(url);
  db = createPrismaClient(url, 2);
  app = testApp(db);
  key = (await ensureDemoSetup(db, url, folder, () => {}, { interactions: 10_000 })).key;
}, 180_000);

afterAll(async () => {
  await db?.$disconnect();
  done?.();
  await dropped;
  fs.rmSync(folder, { recursive: true, force: true });
});

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The first day of the UTC month `back` months before this one. */
const monthStart = (back: number) => {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1);
};

async function data(pathAndQuery: string): Promise<Json> {
  const response = await get(app, `/api/v1${pathAndQuery}`, key);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

describe('the demo data of a first start', () => {
  it('have interactions in each of the months 13, 14 and 15 before this one', async () => {
    const from = isoDay(monthStart(15));
    const to = isoDay(monthStart(12) - DAY);
    const { series } = await data(`/metrics/series?granularity=month&date_from=${from}&date_to=${to}`);
    expect(series.map((bucket: Json) => bucket.start.slice(0, 7))).toEqual([15, 14, 13].map((back) => isoDay(monthStart(back)).slice(0, 7)));
    for (const bucket of series) expect(bucket.total, bucket.start).toBeGreaterThan(0);
  });

  it('compare the last 90 days with the same days a year earlier: figures on both sides, every whole week', async () => {
    const today = Date.now();
    const window = `date_from=${isoDay(today - 89 * DAY)}&date_to=${isoDay(today)}`;
    const summary = await data(`/metrics/summary?${window}&compare=previous_year`);
    expect(summary.total_interactions).toBeGreaterThan(0);
    expect(summary.previous.total_interactions).toBeGreaterThan(0);
    expect(summary.change.total_interactions).not.toBeNull();

    const { previous } = await data(`/metrics/series?granularity=week&${window}&compare=previous_year`);
    const weeks = previous.series.filter((bucket: Json) => Date.parse(bucket.end) - Date.parse(bucket.start) === 7 * DAY);
    expect(weeks.length).toBeGreaterThanOrEqual(11);
    for (const week of weeks) expect(week.total, week.start).toBeGreaterThan(0);
  });

  it('break down by campaign with a named campaign first, alone and with the outcome', async () => {
    const since = `date_from=${isoDay(Date.now() - 90 * DAY)}`;
    const byCampaign = await data(`/metrics/breakdown?group_by=campaign&${since}`);
    expect(byCampaign.groups[0].campaign_id).not.toBeNull();
    expect(byCampaign.groups[0].campaign_name).toEqual(expect.any(String));
    const byCampaignAndOutcome = await data(`/metrics/breakdown?group_by=campaign,outcome&limit=5&${since}`);
    for (const group of byCampaignAndOutcome.groups) expect(group.campaign_id).not.toBeNull();
  });
});
