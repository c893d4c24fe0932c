// A campaign_id or clinic_id the key may not see - another clinic's, another environment's -
// costs what an id that does not exist costs, on every endpoint that takes one: the same
// statements (texts) are sent, they read no more rows, and the answer is the same. Its visibility
// is settled by one lookup of the campaign by primary key before any row is read; otherwise the
// rows of the foreign campaign were read and thrown away one by one, and the time taken told how
// big another tenant's campaign is.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { exportStatement } from '../../src/rest/exports/interactions.js';
import { createKey, graphql, testApp } from '../helpers/app.js';
import { sql, testDb } from '../helpers/db.js';
import { createCampaign, createClinic } from '../helpers/factories.js';
import { recording, rowsRead, type Statement } from '../helpers/rows-read.js';
import { get } from './client.js';

const db = testDb();
const recorder = recording(db);
const app = testApp(recorder.db);

/** Rows of each foreign campaign: what a scan of it would read. */
const CAMPAIGN_ROWS = 1_500;

let own = { clinic: '', campaign: '' };
let otherClinicCampaign = '';
let otherClinic = '';
let sandboxCampaign = '';
let sandboxClinic = '';
let keyOfOwnClinic = '';
let sandboxKey = '';

async function fill(clinicId: string, campaignId: string | null, n: number): Promise<void> {
  const prefix = `int_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await sql(
    `INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, campaign_id, started_at, ended_at, duration_seconds, outcome, summary)
     SELECT $1 || '_' || g, 'voice', 'CAMPAIGN_OUTBOUND', 'outbound', '+34 600 000 000', $2, $3,
            timestamptz '2026-03-01' + g * interval '17 minutes', timestamptz '2026-03-01' + g * interval '17 minutes' + interval '2 minutes', 120,
            CASE WHEN g % 2 = 0 THEN 'APPOINTMENT_BOOKED' ELSE 'NO_ANSWER' END, 'asked for a refund'
     FROM generate_series(1, $4::int) AS g`,
    [prefix, clinicId, campaignId, n],
  );
}

beforeAll(async () => {
  const clinic = await createClinic(db);
  const campaign = await createCampaign(db, clinic.id);
  own = { clinic: clinic.id, campaign: campaign.id };
  const other = await createClinic(db);
  otherClinic = other.id;
  otherClinicCampaign = (await createCampaign(db, other.id)).id;
  const sandbox = await createClinic(db, { environment: 'sandbox' });
  sandboxClinic = sandbox.id;
  sandboxCampaign = (await createCampaign(db, sandbox.id)).id;
  await fill(clinic.id, campaign.id, 200);
  await fill(clinic.id, null, 1_000);
  await fill(other.id, otherClinicCampaign, CAMPAIGN_ROWS);
  await fill(sandbox.id, sandboxCampaign, CAMPAIGN_ROWS);
  await sql('ANALYZE interactions');
  keyOfOwnClinic = await createKey(db, { clinicIds: [clinic.id] });
  sandboxKey = await createKey(db, { environment: 'test', clinicIds: [sandbox.id] });
}, 120_000);

const WINDOW = 'date_from=2026-03-01&date_to=2026-03-31';

/** Every endpoint that takes campaign_id, in the modes that read differently. */
const PATHS = [
  '/api/v1/interactions?campaign_id=ID',
  '/api/v1/interactions?campaign_id=ID&page=3&limit=10',
  '/api/v1/interactions?campaign_id=ID&order=asc',
  '/api/v1/interactions?campaign_id=ID&channel=voice&outcome=NO_ANSWER',
  `/api/v1/interactions?campaign_id=ID&${WINDOW}`,
  '/api/v1/interactions?campaign_id=ID&cursor=',
  '/api/v1/interactions?campaign_id=ID&cursor=&order=asc',
  '/api/v1/interactions?campaign_id=ID&updated_since=2020-01-01T00:00:00Z',
  '/api/v1/interactions?campaign_id=ID&q=refund',
  '/api/v1/interactions?campaign_id=ID&search=600',
  `/api/v1/metrics/summary?${WINDOW}&campaign_id=ID`,
  `/api/v1/metrics/summary?${WINDOW}&campaign_id=ID&compare=previous_period`,
  `/api/v1/metrics/summary?${WINDOW}&campaign_id=ID&timezone=Asia/Kathmandu`,
  `/api/v1/metrics/daily?${WINDOW}&campaign_id=ID`,
  `/api/v1/metrics/daily?${WINDOW}&campaign_id=ID&channel=voice&timezone=Asia/Kolkata`,
  `/api/v1/metrics/series?${WINDOW}&campaign_id=ID&granularity=hour`,
  `/api/v1/metrics/series?${WINDOW}&campaign_id=ID&granularity=day&timezone=America/St_Johns`,
  `/api/v1/metrics/outcomes?${WINDOW}&campaign_id=ID`,
  `/api/v1/metrics/breakdown?${WINDOW}&campaign_id=ID&group_by=campaign`,
  `/api/v1/metrics/breakdown?${WINDOW}&campaign_id=ID&group_by=outcome,channel`,
  `/api/v1/metrics/durations?${WINDOW}&campaign_id=ID`,
  `/api/v1/metrics/durations?${WINDOW}&campaign_id=ID&timezone=Asia/Kathmandu`,
];

interface Observed {
  status: number;
  body: unknown;
  statements: string[];
  rows: number;
  detail: string[];
}

async function observe(path: string, key: string): Promise<Observed> {
  recorder.statements.length = 0;
  const response = await get(app, path, key);
  const sent: Statement[] = [...recorder.statements];
  const { total, detail } = await rowsRead(sent);
  return { status: response.status, body: response.body, statements: sent.map((s) => s.text), rows: total, detail };
}

/** The body with the id asked for, and what differs between any two answers (request id, time), left out. */
function comparable(body: unknown, id: string): unknown {
  const { request_id: _id, timestamp: _at, ...rest } = JSON.parse(JSON.stringify(body).replaceAll(id, 'ID')) as Record<string, unknown>;
  return rest;
}

/** Both ids asked the same way: the foreign one's answer, statements and rows read are a nonexistent one's. */
async function expectLikeNonexistent(
  path: string,
  key: string,
  foreign: string,
  nonexistent = `cmp_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
): Promise<void> {
  // Once each first, so that both find the same statements already prepared.
  await get(app, path.replace('ID', encodeURIComponent(foreign)), key);
  await get(app, path.replace('ID', encodeURIComponent(nonexistent)), key);
  const asForeign = await observe(path.replace('ID', encodeURIComponent(foreign)), key);
  const asNothing = await observe(path.replace('ID', encodeURIComponent(nonexistent)), key);
  expect(asForeign.status, path).toBe(200);
  expect(asForeign.status, path).toBe(asNothing.status);
  expect(comparable(asForeign.body, foreign), path).toEqual(comparable(asNothing.body, nonexistent));
  expect(asForeign.statements, path).toEqual(asNothing.statements);
  // (PostgreSQL still estimates the campaign's size from its statistics, so a plan may differ above
  // the gate: a join whose other side is empty may read its first row. Never the campaign's rows.)
  expect(asForeign.rows, `${path}\nforeign:\n${asForeign.detail.join('\n')}\nnonexistent:\n${asNothing.detail.join('\n')}`).toBeLessThanOrEqual(
    asNothing.rows + 1,
  );
}

describe('a campaign the key may not see costs what a nonexistent one does', () => {
  it.each(PATHS)("another clinic's campaign: %s", async (path) => {
    await expectLikeNonexistent(path, keyOfOwnClinic, otherClinicCampaign);
  });

  it.each(PATHS)("another environment's campaign: %s", async (path) => {
    await expectLikeNonexistent(path, keyOfOwnClinic, sandboxCampaign);
    await expectLikeNonexistent(path, sandboxKey, otherClinicCampaign);
  });

  it.each(PATHS.map((path) => path.replace('campaign_id=ID', 'clinic_id=ID')))("another clinic's or environment's clinic_id: %s", async (path) => {
    await expectLikeNonexistent(path, keyOfOwnClinic, otherClinic, randomUUID());
    await expectLikeNonexistent(path, keyOfOwnClinic, sandboxClinic, randomUUID());
    await expectLikeNonexistent(path, sandboxKey, otherClinic, randomUUID());
  });

  it('the key still sees its own campaign everywhere', async () => {
    const list = await get(app, `/api/v1/interactions?campaign_id=${own.campaign}&limit=5`, keyOfOwnClinic);
    expect(list.body.meta.total).toBe(200);
    const summary = await get(app, `/api/v1/metrics/summary?${WINDOW}&campaign_id=${own.campaign}`, keyOfOwnClinic);
    expect(summary.body.data.totalInteractions ?? summary.body.data.total_interactions).toBe(200);
    const page = await graphql(app, {
      query: 'query($c: ID) { metricsSummary(campaignId: $c, dateFrom: "2026-03-01", dateTo: "2026-03-31") { totalInteractions } }',
      variables: { c: own.campaign },
      key: keyOfOwnClinic,
    });
    expect(page.body.data?.metricsSummary).toEqual({ totalInteractions: 200 });
  });

  it('exports: the statement reads nothing for a foreign campaign, as for a nonexistent one', async () => {
    for (const [visible, foreign] of [
      [[own.clinic], otherClinicCampaign],
      [[own.clinic], sandboxCampaign],
      [[sandboxClinic], otherClinicCampaign],
    ] as const) {
      for (const order of ['desc', 'asc'] as const) {
        const statement = exportStatement('csv', { filters: { campaignId: foreign }, order }, visible, undefined, 'test');
        const select = /COPY \((.*)\) TO STDOUT/s.exec(statement)?.[1];
        const { total, detail } = await rowsRead([{ text: select!, values: [] }]);
        expect(total, detail.join('\n')).toBe(0);
      }
    }
  });

  it('GraphQL metrics arguments', async () => {
    const nonexistent = `cmp_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    const query = `query($c: ID) {
      metricsSummary(campaignId: $c, dateFrom: "2026-03-01", dateTo: "2026-03-31") { totalInteractions }
      metricsDurations(campaignId: $c, dateFrom: "2026-03-01", dateTo: "2026-03-31") { count }
      interactions(campaignId: $c, limit: 5) { pageInfo { total } }
    }`;
    const run = async (c: string) => {
      recorder.statements.length = 0;
      const response = await graphql(app, { query, variables: { c }, key: keyOfOwnClinic });
      return { body: response.body, statements: recorder.statements.map((s) => s.text), ...(await rowsRead([...recorder.statements])) };
    };
    await run(otherClinicCampaign);
    await run(nonexistent);
    const asForeign = await run(otherClinicCampaign);
    const asNothing = await run(nonexistent);
    expect(asForeign.body).toEqual(asNothing.body);
    expect(asForeign.statements).toEqual(asNothing.statements);
    expect(asForeign.total, asForeign.detail.join('\n')).toBeLessThanOrEqual(asNothing.total);
  });
});
