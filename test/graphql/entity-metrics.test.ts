// GraphQL: metricsBreakdown and metricsDurations answer what REST answers; `metrics(...)` on Clinic and
// Campaign equals metricsSummary for that clinic or campaign, and a page of 500 campaigns with their
// metrics costs as many SQL statements as a page of 3; the clinic and campaign objects of groups need
// their scopes; campaignId on the root fields.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeyResolver } from '../../src/auth/api-keys.js';
import { createPrismaClient } from '../../src/db/client.js';
import { createKey, expectNoErrors, graphql, testApp } from '../helpers/app.js';
import { databaseUrl, testDb } from '../helpers/db.js';
import { createCampaign, createClinic } from '../helpers/factories.js';
import {
  type Dataset,
  type Dimension,
  type Scope,
  seedDataset,
  sqlBreakdown,
  sqlDurations,
  sqlInteractionIds,
  sqlSummary,
  WINDOWS,
  ZERO_SUMMARY,
} from '../rest/breakdown-support.js';
import { get, type Json } from '../rest/client.js';
import { errorsOf, expectValidationError, scopeErrors, tag } from './support.js';

const db = testDb();
const app = testApp(db);

let ds: Dataset;
let keyAB = '';

beforeAll(async () => {
  ds = await seedDataset(db, tag());
  keyAB = await createKey(db, { clinicIds: [ds.A.id, ds.B.id] });
});

const SUMMARY_FIELDS =
  'totalInteractions totalCalls totalConversations inboundCount outboundCount avgDurationSeconds totalDurationSeconds successRate appointmentsScheduled';
const SNAKE: Record<string, string> = {
  totalInteractions: 'total_interactions',
  totalCalls: 'total_calls',
  totalConversations: 'total_conversations',
  inboundCount: 'inbound_count',
  outboundCount: 'outbound_count',
  avgDurationSeconds: 'avg_duration_seconds',
  totalDurationSeconds: 'total_duration_seconds',
  successRate: 'success_rate',
  appointmentsScheduled: 'appointments_scheduled',
};
/** A GraphQL MetricsSummary as REST spells it. */
const restSummary = (m: Json) => Object.fromEntries(Object.entries(SNAKE).map(([from, to]) => [to, m[from]]));

const q = (key: string, query: string, variables: Record<string, unknown> = {}) => graphql(app, { key, query, variables });

// --- metricsBreakdown and metricsDurations = REST ---------------------------------------------------

const BREAKDOWN = `query($groupBy: [MetricsDimension!], $page: Int, $limit: Int, $dateFrom: String, $dateTo: String, $clinicId: ID, $campaignId: ID,
                        $channel: Channel, $type: InteractionType, $timezone: String) {
  metricsBreakdown(groupBy: $groupBy, page: $page, limit: $limit, dateFrom: $dateFrom, dateTo: $dateTo, clinicId: $clinicId, campaignId: $campaignId,
                   channel: $channel, type: $type, timezone: $timezone) {
    groupBy
    groups { clinicId clinicName campaignId campaignName channel type direction outcome metrics { ${SUMMARY_FIELDS} } }
    pageInfo { page limit total totalPages hasMore }
  }
}`;

/** A GraphQL group as REST represents it for `groupBy` (only the keys grouped by); the others must be null. */
function restGroup(group: Json, groupBy: readonly Dimension[]): Json {
  const out: Json = {};
  const keys: Array<[Dimension, string, string, (v: Json) => Json]> = [
    ['clinic', 'clinicId', 'clinic_id', (v) => v],
    ['clinic', 'clinicName', 'clinic_name', (v) => v],
    ['campaign', 'campaignId', 'campaign_id', (v) => v],
    ['campaign', 'campaignName', 'campaign_name', (v) => v],
    ['channel', 'channel', 'channel', (v) => v?.toLowerCase()],
    ['type', 'type', 'type', (v) => v],
    ['direction', 'direction', 'direction', (v) => v?.toLowerCase()],
    ['outcome', 'outcome', 'outcome', (v) => v],
  ];
  for (const [dimension, from, to, convert] of keys) {
    if (groupBy.includes(dimension)) out[to] = convert(group[from]);
    else expect(group[from], `${from} of a breakdown by ${groupBy.join(',')}`).toBeNull();
  }
  return { ...out, ...restSummary(group.metrics) };
}

describe('metricsBreakdown and metricsDurations answer what REST answers', () => {
  it('metricsBreakdown: groups and pageInfo, for every dimension and pairs, filters and pages', async () => {
    const cases: Array<{ groupBy: Dimension[]; rest: string; vars: Record<string, unknown> }> = [];
    const window = { rest: WINDOWS.partial.query, vars: { dateFrom: WINDOWS.partial.from, dateTo: WINDOWS.partial.to } };
    for (const groupBy of [
      ['clinic'],
      ['campaign'],
      ['channel'],
      ['type'],
      ['direction'],
      ['outcome'],
      ['clinic', 'campaign'],
      ['campaign', 'outcome'],
      ['outcome', 'channel'],
    ] as Dimension[][]) {
      cases.push({ groupBy, rest: window.rest, vars: window.vars });
    }
    const days = { rest: WINDOWS.days.query, vars: { dateFrom: '2025-02-26', dateTo: '2025-04-03' } };
    cases.push(
      {
        groupBy: ['campaign'],
        rest: `${days.rest}&campaign_id=${ds.campaigns.a1.id}&channel=voice`,
        vars: { ...days.vars, campaignId: ds.campaigns.a1.id, channel: 'VOICE' },
      },
      { groupBy: ['type', 'outcome'], rest: `${days.rest}&clinic_id=${ds.B.id}&type=INBOUND`, vars: { ...days.vars, clinicId: ds.B.id, type: 'INBOUND' } },
      { groupBy: ['type', 'outcome'], rest: `${days.rest}&page=3&limit=4`, vars: { ...days.vars, page: 3, limit: 4 } },
      { groupBy: ['campaign', 'outcome'], rest: `${days.rest}&page=99&limit=10`, vars: { ...days.vars, page: 99, limit: 10 } },
      { groupBy: ['direction'], rest: `${days.rest}&timezone=America/New_York`, vars: { ...days.vars, timezone: 'America/New_York' } },
    );
    for (const c of cases) {
      const label = `${c.groupBy.join(',')} ${c.rest}`;
      const rest = await get(app, `/api/v1/metrics/breakdown?group_by=${c.groupBy.join(',')}&${c.rest}`, keyAB);
      expect(rest.status, label).toBe(200);
      const data = expectNoErrors(await q(keyAB, BREAKDOWN, { groupBy: c.groupBy.map((d) => d.toUpperCase()), ...c.vars }));
      const b = data.metricsBreakdown;
      expect(b.groupBy, label).toEqual(c.groupBy.map((d) => d.toUpperCase()));
      expect(
        b.groups.map((g: Json) => restGroup(g, c.groupBy)),
        label,
      ).toEqual(rest.body.data.groups);
      const { page, limit, total, totalPages, hasMore } = b.pageInfo;
      expect({ page, limit, total, total_pages: totalPages, has_more: hasMore }, label).toEqual(rest.body.meta);
    }
  });

  it('metricsBreakdown: the errors REST reports, as GraphQL validation errors', async () => {
    for (const groupBy of [['CAMPAIGN', 'CAMPAIGN'], ['CLINIC', 'CAMPAIGN', 'CHANNEL'], [], null]) {
      const response = await q(keyAB, BREAKDOWN, { groupBy });
      expectValidationError(response, ['groupBy']);
      expect(response.body.data?.metricsBreakdown).toBeNull();
    }
    const response = await q(keyAB, BREAKDOWN, { groupBy: ['CAMPAIGN'], campaignId: '', page: 0, limit: 501 });
    expectValidationError(response, ['campaignId', 'page', 'limit']);
    expectValidationError(await q(keyAB, BREAKDOWN, { groupBy: ['CAMPAIGN'], campaignId: 'x'.repeat(256) }), ['campaignId']);
    expectValidationError(await q(keyAB, BREAKDOWN, { groupBy: ['CAMPAIGN'], campaignId: 'a\u0000b' }), ['campaignId']);
  });

  it('metricsDurations', async () => {
    const DURATIONS = `query($dateFrom: String, $dateTo: String, $clinicId: ID, $campaignId: ID, $channel: Channel, $type: InteractionType, $timezone: String) {
      metricsDurations(dateFrom: $dateFrom, dateTo: $dateTo, clinicId: $clinicId, campaignId: $campaignId, channel: $channel, type: $type, timezone: $timezone) {
        count percentiles { p50 p75 p90 p95 p99 } histogram { fromSeconds toSeconds count } precisionSeconds
      }
    }`;
    const cases: Array<{ rest: string; vars: Record<string, unknown> }> = [
      { rest: WINDOWS.partial.query, vars: { dateFrom: WINDOWS.partial.from, dateTo: WINDOWS.partial.to } },
      {
        rest: `${WINDOWS.days.query}&campaign_id=${ds.campaigns.b1.id}`,
        vars: { dateFrom: '2025-02-26', dateTo: '2025-04-03', campaignId: ds.campaigns.b1.id },
      },
      {
        rest: `${WINDOWS.days.query}&clinic_id=${ds.A.id}&type=INBOUND`,
        vars: { dateFrom: '2025-02-26', dateTo: '2025-04-03', clinicId: ds.A.id, type: 'INBOUND' },
      },
      { rest: `${WINDOWS.days.query}&channel=whatsapp`, vars: { dateFrom: '2025-02-26', dateTo: '2025-04-03', channel: 'WHATSAPP' } },
      {
        rest: 'date_from=2025-03-14&date_to=2025-03-14&timezone=Asia/Kathmandu',
        vars: { dateFrom: '2025-03-14', dateTo: '2025-03-14', timezone: 'Asia/Kathmandu' },
      },
    ];
    for (const c of cases) {
      const rest = await get(app, `/api/v1/metrics/durations?${c.rest}`, keyAB);
      expect(rest.status).toBe(200);
      const d = expectNoErrors(await q(keyAB, DURATIONS, c.vars)).metricsDurations;
      expect(
        {
          count: d.count,
          percentiles: d.percentiles,
          histogram: d.histogram.map((b: Json) => ({ from_seconds: b.fromSeconds, to_seconds: b.toSeconds, count: b.count })),
          precision_seconds: d.precisionSeconds,
        },
        c.rest,
      ).toEqual(rest.body.data);
    }
    expect((await get(app, `/api/v1/metrics/durations?${WINDOWS.partial.query}`, keyAB)).body.data.count).toBeGreaterThan(100);
  });

  it('root interactions(campaignId:): the campaign’s interactions, exact total', async () => {
    const expected = await sqlInteractionIds({ ...WINDOWS.all, clinicIds: [ds.A.id, ds.B.id], campaignId: ds.campaigns.a2.id });
    const data = expectNoErrors(
      await q(keyAB, 'query($c: ID) { interactions(campaignId: $c, limit: 500) { nodes { id campaign { id } } pageInfo { total } } }', {
        c: ds.campaigns.a2.id,
      }),
    );
    expect(data.interactions.pageInfo.total).toBe(expected.length);
    expect(data.interactions.nodes.map((n: Json) => n.id)).toEqual(expected);
    expect(data.interactions.nodes.every((n: Json) => n.campaign.id === ds.campaigns.a2.id)).toBe(true);
  });
});

describe('campaignId on every root metrics field and on interactions', () => {
  const ALL = `query($c: ID) {
    metricsSummary(campaignId: $c, dateFrom: "2025-02-26", dateTo: "2025-04-03") { totalInteractions totalCalls successRate }
    metricsDaily(campaignId: $c, dateFrom: "2025-02-26", dateTo: "2025-04-03") { date total }
    metricsDailyReport(campaignId: $c, dateFrom: "2025-02-26", dateTo: "2025-04-03") { daily { total } }
    metricsSeries(campaignId: $c, dateFrom: "2025-02-26", dateTo: "2025-04-03", granularity: WEEK) { series { total } }
    metricsOutcomes(campaignId: $c, dateFrom: "2025-02-26", dateTo: "2025-04-03") { total outcomes { outcome count } }
    metricsBreakdown(campaignId: $c, dateFrom: "2025-02-26", dateTo: "2025-04-03", groupBy: [CAMPAIGN]) { groups { campaignId metrics { totalInteractions } } }
    metricsDurations(campaignId: $c, dateFrom: "2025-02-26", dateTo: "2025-04-03") { count }
    interactions(campaignId: $c, dateFrom: "2025-02-26", dateTo: "2025-04-03", limit: 1) { pageInfo { total } }
  }`;
  const sumOf = (xs: Json[]) => xs.reduce((s, x) => s + x.total, 0);

  it('each counts the campaign’s interactions only; a key that cannot see the campaign’s clinic counts none', async () => {
    const keyA = await createKey(db, { clinicIds: [ds.A.id] });
    for (const campaign of [ds.campaigns.a1, ds.campaigns.b1]) {
      const scope = { ...WINDOWS.days, clinicIds: [ds.A.id, ds.B.id], campaignId: campaign.id };
      const total = (await sqlSummary(scope)).total_interactions;
      expect(total).toBeGreaterThan(0);
      const data = expectNoErrors(await q(keyAB, ALL, { c: campaign.id }));
      expect(data.metricsSummary.totalInteractions).toBe(total);
      expect(sumOf(data.metricsDaily)).toBe(total);
      expect(sumOf(data.metricsDailyReport.daily)).toBe(total);
      expect(sumOf(data.metricsSeries.series)).toBe(total);
      expect(data.metricsOutcomes.total).toBe(total - (await sqlBreakdown(scope, ['outcome'])).filter((g) => g.outcome === null)[0]!.total_interactions);
      expect(data.metricsBreakdown.groups).toEqual([{ campaignId: campaign.id, metrics: { totalInteractions: total } }]);
      expect(data.metricsDurations.count).toBe((await sqlDurations(scope)).count);
      expect(data.interactions.pageInfo.total).toBe(total);

      const restricted = expectNoErrors(await q(keyA, ALL, { c: campaign.id }));
      if (campaign === ds.campaigns.a1) {
        expect(restricted).toEqual(data);
        continue;
      }
      expect(restricted.metricsSummary).toEqual({ totalInteractions: 0, totalCalls: 0, successRate: 0 });
      expect(sumOf(restricted.metricsDaily)).toBe(0);
      expect(sumOf(restricted.metricsDailyReport.daily)).toBe(0);
      expect(sumOf(restricted.metricsSeries.series)).toBe(0);
      expect(restricted.metricsOutcomes).toEqual({ total: 0, outcomes: [] });
      expect(restricted.metricsBreakdown.groups).toEqual([]);
      expect(restricted.metricsDurations.count).toBe(0);
      expect(restricted.interactions.pageInfo.total).toBe(0);
    }
  });
});

// --- metrics(...) on Clinic and Campaign -----------------------------------------------------------

describe('Clinic.metrics and Campaign.metrics equal metricsSummary for the clinic or campaign', () => {
  // (metricsSummary takes no type: the arguments with one are compared with SQL below)
  const ARGS = [
    {},
    { dateFrom: '2025-02-26', dateTo: '2025-04-03' },
    { dateFrom: WINDOWS.partial.from, dateTo: WINDOWS.partial.to },
    { dateFrom: '2025-03-01', dateTo: '2025-03-31', channel: 'VOICE' },
    { dateFrom: '2025-03-01', dateTo: '2025-03-31', timezone: 'Asia/Kathmandu' },
    { dateFrom: '2025-03-14T06:00:00+02:00', dateTo: '2025-03-20T12:00:00Z', channel: 'WHATSAPP' },
  ];
  const ARG_DEFS = '$dateFrom: String, $dateTo: String, $channel: Channel, $timezone: String';
  const ARG_USE = 'dateFrom: $dateFrom, dateTo: $dateTo, channel: $channel, timezone: $timezone';
  const WITH_TYPE: Array<{ args: string; scope: Partial<Scope> }> = [
    {
      args: 'dateFrom: "2025-03-01", dateTo: "2025-03-31", type: CAMPAIGN_OUTBOUND',
      scope: { from: '2025-03-01T00:00:00.000Z', to: '2025-03-31T23:59:59.999Z', type: 'CAMPAIGN_OUTBOUND' },
    },
    {
      args: 'dateFrom: "2025-03-14T06:00:00+02:00", dateTo: "2025-03-20T12:00:00Z", channel: WHATSAPP, type: INBOUND',
      scope: { from: '2025-03-14T04:00:00.000Z', to: '2025-03-20T12:00:00.000Z', channel: 'whatsapp', type: 'INBOUND' },
    },
    { args: `dateFrom: "${WINDOWS.partial.from}", dateTo: "${WINDOWS.partial.to}", type: INBOUND`, scope: { ...WINDOWS.partial, type: 'INBOUND' } },
  ];

  it('with a type: clinics’ and campaigns’ metrics equal SQL', async () => {
    for (const { args, scope } of WITH_TYPE) {
      const data = expectNoErrors(
        await q(keyAB, `{ clinics { nodes { id metrics(${args}) { ${SUMMARY_FIELDS} } } } campaigns { nodes { id metrics(${args}) { ${SUMMARY_FIELDS} } } } }`),
      );
      const base = { from: '', to: '', clinicIds: [ds.A.id, ds.B.id], ...scope } as Scope;
      for (const node of data.clinics.nodes)
        expect(restSummary(node.metrics), `${args} ${node.id}`).toEqual(await sqlSummary({ ...base, clinicIds: [node.id] }));
      for (const node of data.campaigns.nodes)
        expect(restSummary(node.metrics), `${args} ${node.id}`).toEqual(await sqlSummary({ ...base, campaignId: node.id }));
      expect(data.clinics.nodes.some((n: Json) => n.metrics.totalInteractions > 0)).toBe(true);
      expect(data.campaigns.nodes.some((n: Json) => n.metrics.totalInteractions > 0)).toBe(true);
    }
  });

  it('every clinic of a page, by clinics, clinic(id) and a campaign’s clinic', async () => {
    const query = `query(${ARG_DEFS}, $a: ID!, $b: ID!) {
      clinics(limit: 10) { nodes { id metrics(${ARG_USE}) { ${SUMMARY_FIELDS} } } }
      a: metricsSummary(clinicId: $a, ${ARG_USE}) { ${SUMMARY_FIELDS} }
      b: metricsSummary(clinicId: $b, ${ARG_USE}) { ${SUMMARY_FIELDS} }
      one: clinic(id: $b) { metrics(${ARG_USE}) { ${SUMMARY_FIELDS} } }
      campaign(id: "${ds.campaigns.a1.id}") { clinic { metrics(${ARG_USE}) { ${SUMMARY_FIELDS} } } }
    }`;
    for (const args of ARGS) {
      const data = expectNoErrors(await q(keyAB, query, { ...args, a: ds.A.id, b: ds.B.id }));
      const label = JSON.stringify(args);
      expect(data.clinics.nodes.map((n: Json) => n.id).sort(), label).toEqual([ds.A.id, ds.B.id].sort());
      for (const node of data.clinics.nodes) expect(node.metrics, label).toEqual(node.id === ds.A.id ? data.a : data.b);
      expect(data.one.metrics, label).toEqual(data.b);
      expect(data.campaign.clinic.metrics, label).toEqual(data.a);
    }
    // And the values are the clinic's, not zeros nor the sum of both.
    const data = expectNoErrors(await q(keyAB, query, { ...ARGS[1], a: ds.A.id, b: ds.B.id }));
    expect(restSummary(data.a)).toEqual(await sqlSummary({ ...WINDOWS.days, clinicIds: [ds.A.id] }));
    expect(restSummary(data.b)).toEqual(await sqlSummary({ ...WINDOWS.days, clinicIds: [ds.B.id] }));
  });

  it('every campaign, by campaigns, a clinic’s campaigns and campaign(id)', async () => {
    const empty = await createCampaign(db, ds.A.id, { id: `cmp_${ds.tag}_empty` });
    const query = `query(${ARG_DEFS}, $a1: ID, $a2: ID, $b1: ID, $a: ID!) {
      campaigns(limit: 10) { nodes { id metrics(${ARG_USE}) { ${SUMMARY_FIELDS} } } }
      clinic(id: $a) { campaigns(limit: 10) { id metrics(${ARG_USE}) { ${SUMMARY_FIELDS} } } }
      one: campaign(id: "${ds.campaigns.b1.id}") { metrics(${ARG_USE}) { ${SUMMARY_FIELDS} } }
      a1: metricsSummary(campaignId: $a1, ${ARG_USE}) { ${SUMMARY_FIELDS} }
      a2: metricsSummary(campaignId: $a2, ${ARG_USE}) { ${SUMMARY_FIELDS} }
      b1: metricsSummary(campaignId: $b1, ${ARG_USE}) { ${SUMMARY_FIELDS} }
    }`;
    const ids = { a1: ds.campaigns.a1.id, a2: ds.campaigns.a2.id, b1: ds.campaigns.b1.id, a: ds.A.id };
    for (const args of ARGS) {
      const label = JSON.stringify(args);
      const data = expectNoErrors(await q(keyAB, query, { ...args, ...ids }));
      const expected = new Map([
        [ids.a1, data.a1],
        [ids.a2, data.a2],
        [ids.b1, data.b1],
        [empty.id, Object.fromEntries(Object.keys(SNAKE).map((k) => [k, 0]))],
      ]);
      expect(data.campaigns.nodes.map((n: Json) => n.id).sort(), label).toEqual([...expected.keys()].sort());
      for (const node of [...data.campaigns.nodes, ...data.clinic.campaigns]) expect(node.metrics, `${label} ${node.id}`).toEqual(expected.get(node.id));
      expect(data.clinic.campaigns).toHaveLength(3);
      expect(data.one.metrics, label).toEqual(data.b1);
    }
    const data = expectNoErrors(await q(keyAB, query, { ...ARGS[2], ...ids }));
    for (const name of ['a1', 'a2', 'b1'] as const) {
      const expected = await sqlSummary({ ...WINDOWS.partial, clinicIds: [ds.A.id, ds.B.id], campaignId: ds.campaigns[name].id });
      expect(expected.total_interactions).toBeGreaterThan(0);
      expect(restSummary(data[name])).toEqual(expected);
    }
  });

  it('a key restricted to A: A’s metrics are A’s only', async () => {
    const keyA = await createKey(db, { clinicIds: [ds.A.id] });
    const data = expectNoErrors(
      await q(
        keyA,
        `{ clinics { nodes { id metrics(dateFrom: "2025-02-26", dateTo: "2025-04-03") { ${SUMMARY_FIELDS} } } }
           campaigns { nodes { id metrics(dateFrom: "2025-02-26", dateTo: "2025-04-03") { ${SUMMARY_FIELDS} } } } }`,
      ),
    );
    expect(data.clinics.nodes.map((n: Json) => [n.id, restSummary(n.metrics)])).toEqual([
      [ds.A.id, await sqlSummary({ ...WINDOWS.days, clinicIds: [ds.A.id] })],
    ]);
    for (const node of data.campaigns.nodes) {
      expect(node.id).not.toBe(ds.campaigns.b1.id);
      const expected = await sqlSummary({ ...WINDOWS.days, clinicIds: [ds.A.id], campaignId: node.id });
      expect(restSummary(node.metrics), node.id).toEqual(expected);
    }
  });

  it('needs metrics:read; bad arguments are validation errors', async () => {
    const noMetrics = await createKey(db, { scopes: ['clinics:read', 'campaigns:read'], clinicIds: [ds.A.id] });
    const response = await q(noMetrics, `{ clinics { nodes { id metrics { totalInteractions } } } campaigns { nodes { id metrics { totalInteractions } } } }`);
    expect(response.body.data?.clinics.nodes).toEqual([{ id: ds.A.id, metrics: null }]);
    expect(response.body.data?.campaigns.nodes.every((n: Json) => n.metrics === null)).toBe(true);
    expect(scopeErrors(errorsOf(response))).toEqual({ 'metrics:read': 1 + response.body.data?.campaigns.nodes.length });
    const bad = await q(keyAB, `{ clinics { nodes { metrics(dateFrom: "2025-02-30") { totalInteractions } } } }`);
    expect(errorsOf(bad).length).toBeGreaterThan(0);
    expect(errorsOf(bad).every((e) => e.extensions?.code === 'VALIDATION_ERROR' && Object.keys(e.extensions?.details ?? {}).includes('dateFrom'))).toBe(true);
  });
});

// --- the clinic and campaign objects of groups: scopes ---------------------------------------------

describe('clinic and campaign objects on groups', () => {
  const QUERY = `{ metricsBreakdown(groupBy: [CLINIC, CAMPAIGN], dateFrom: "2025-02-01", dateTo: "2025-04-30", limit: 100) {
    groups { clinicId clinicName campaignId campaignName clinic { id name } campaign { id name clinicId } metrics { totalInteractions } }
  } }`;

  it('with every scope: the clinic and campaign of each group (null campaign for the group without one)', async () => {
    const data = expectNoErrors(await q(keyAB, QUERY));
    const groups = data.metricsBreakdown.groups as Json[];
    expect(groups).toHaveLength(5);
    for (const g of groups) {
      expect(g.clinic).toEqual({ id: g.clinicId, name: g.clinicName });
      if (g.campaignId === null) expect(g.campaign).toBeNull();
      else expect(g.campaign).toEqual({ id: g.campaignId, name: g.campaignName, clinicId: g.clinicId });
    }
    expect(new Set(groups.map((g) => g.campaignName))).toEqual(new Set([ds.campaigns.a1.name, ds.campaigns.a2.name, ds.campaigns.b1.name, null]));
  });

  it('metrics:read alone: ids and names, but clinic needs clinics:read and campaign campaigns:read', async () => {
    const key = await createKey(db, { scopes: ['metrics:read'], clinicIds: [ds.A.id, ds.B.id] });
    const response = await q(key, QUERY);
    const groups = response.body.data!.metricsBreakdown.groups as Json[];
    expect(groups).toHaveLength(5);
    for (const g of groups) {
      expect(g.clinic).toBeNull();
      expect(g.campaign).toBeNull();
      expect(g.clinicName).toBe(g.clinicId === ds.A.id ? ds.A.name : ds.B.name);
    }
    expect(scopeErrors(errorsOf(response))).toEqual({ 'clinics:read': 5, 'campaigns:read': 5 });

    const withClinics = await createKey(db, { scopes: ['metrics:read', 'clinics:read'], clinicIds: [ds.A.id, ds.B.id] });
    const second = await q(withClinics, QUERY);
    for (const g of second.body.data!.metricsBreakdown.groups as Json[]) {
      expect(g.clinic).toEqual({ id: g.clinicId, name: g.clinicName });
      expect(g.campaign).toBeNull();
    }
    expect(scopeErrors(errorsOf(second))).toEqual({ 'campaigns:read': 5 });

    const withCampaigns = await createKey(db, { scopes: ['metrics:read', 'campaigns:read'], clinicIds: [ds.A.id, ds.B.id] });
    const third = await q(withCampaigns, QUERY);
    for (const g of third.body.data!.metricsBreakdown.groups as Json[]) {
      expect(g.clinic).toBeNull();
      if (g.campaignId !== null) expect(g.campaign.id).toBe(g.campaignId);
    }
    expect(scopeErrors(errorsOf(third))).toEqual({ 'clinics:read': 5 });
  });

  it('a key restricted to A: only A’s clinic and campaigns', async () => {
    const keyA = await createKey(db, { clinicIds: [ds.A.id] });
    const response = await q(keyA, QUERY);
    const data = expectNoErrors(response);
    const text = JSON.stringify(data);
    for (const secret of [ds.B.id, ds.B.name, ds.campaigns.b1.id, ds.campaigns.b1.name]) expect(text).not.toContain(secret);
    expect(data.metricsBreakdown.groups.map((g: Json) => g.campaignId).sort()).toEqual([ds.campaigns.a1.id, ds.campaigns.a2.id, null].sort());
    const b1 = expectNoErrors(
      await q(keyA, `{ metricsBreakdown(groupBy: [CAMPAIGN], campaignId: "${ds.campaigns.b1.id}") { groups { campaignId } pageInfo { total } } }`),
    );
    expect(b1.metricsBreakdown).toEqual({ groups: [], pageInfo: { total: 0 } });
    const summary = expectNoErrors(
      await q(keyA, `{ metricsSummary(campaignId: "${ds.campaigns.b1.id}", dateFrom: "2025-02-01", dateTo: "2025-04-30") { ${SUMMARY_FIELDS} } }`),
    );
    expect(restSummary(summary.metricsSummary)).toEqual(ZERO_SUMMARY);
  });
});

// --- batching: a page of 500 campaigns costs what a page of 3 costs ---------------------------------

describe('metrics on a page of parents cost a constant number of statements', () => {
  // The app reads through a client that logs every SQL statement it sends; keys are resolved through
  // the file's ordinary client, so authentication is not counted (as in query-count.test.ts).
  const statements: string[] = [];
  const counting = createPrismaClient(databaseUrl, 4, { onStatement: (text) => statements.push(text) });
  afterAll(() => counting.$disconnect());
  const countingApp = testApp(counting, { keyResolver: createApiKeyResolver(db, { ttlMs: 0 }) });

  async function measure(key: string, query: string, variables: Record<string, unknown> = {}) {
    statements.length = 0;
    const data = expectNoErrors(await graphql(countingApp, { key, query, variables }));
    return { data, count: statements.length, statements: [...statements] };
  }

  /** A clinic with `n` campaigns, the first ones with interactions (campaign i has i % 7 of them). */
  async function clinicWithCampaigns(n: number) {
    const t = tag();
    const clinic = await createClinic(db, { name: `Batched ${t}` });
    const ids = Array.from({ length: n }, (_, i) => `cmp_${t}_${String(i).padStart(3, '0')}`);
    await db.campaign.createMany({
      data: ids.map((id, i) => ({
        id,
        clinicId: clinic.id,
        name: `Campaign ${i}`,
        description: 'batched',
        type: 'reactivation' as const,
        channel: 'voice' as const,
        status: 'active' as const,
        createdAt: new Date(Date.UTC(2024, 0, 1) + i * 1000),
      })),
    });
    const rows = ids.flatMap((campaignId, i) =>
      Array.from({ length: i % 7 }, (_, j) => ({
        id: `bt_${t}_${i}_${j}`,
        clinicId: clinic.id,
        campaignId,
        channel: j % 3 === 0 ? ('whatsapp' as const) : ('voice' as const),
        type: 'CAMPAIGN_OUTBOUND' as const,
        direction: 'outbound' as const,
        phoneNumber: '+34 600 000 000',
        startedAt: new Date(Date.UTC(2025, 2, 1 + (j % 20), i % 24, j)),
        durationSeconds: j % 3 === 0 ? null : 30 + i,
        outcome: j % 2 === 0 ? 'APPOINTMENT_BOOKED' : 'NO_ANSWER',
      })),
    );
    await db.interaction.createMany({ data: rows });
    return { clinic, ids };
  }

  const CAMPAIGNS = `query($c: ID) {
    campaigns(clinicId: $c, limit: 500) {
      nodes { id metrics(dateFrom: "2025-03-01", dateTo: "2025-03-31T12:00:00Z") { ${SUMMARY_FIELDS} } }
      pageInfo { total }
    }
  }`;

  it('campaigns(limit: 500) with metrics: the same statements for 500 campaigns as for 3, and the right values', async () => {
    const big = await clinicWithCampaigns(500);
    const small = await clinicWithCampaigns(3);
    const key = await createKey(db, { clinicIds: [big.clinic.id, small.clinic.id] });
    const large = await measure(key, CAMPAIGNS, { c: big.clinic.id });
    const few = await measure(key, CAMPAIGNS, { c: small.clinic.id });
    expect(large.data.campaigns.nodes).toHaveLength(500);
    expect(few.data.campaigns.nodes).toHaveLength(3);
    // campaigns, their count, and one statement for every campaign's metrics
    expect(large.count, large.statements.join('\n')).toBeLessThanOrEqual(4);
    expect(large.count, large.statements.join('\n')).toBe(few.count);
    // The values: each campaign's, zeros for those without interactions.
    const reference = new Map(
      (await sqlBreakdown({ from: '2025-03-01T00:00:00.000Z', to: '2025-03-31T12:00:00.000Z', clinicIds: [big.clinic.id] }, ['campaign'])).map((g) => [
        g.campaign_id,
        g,
      ]),
    );
    expect(reference.size).toBeGreaterThan(400);
    for (const node of large.data.campaigns.nodes) {
      const expected = reference.get(node.id);
      const { campaign_id: _id, campaign_name: _name, ...metrics } = expected ?? { ...ZERO_SUMMARY };
      expect(restSummary(node.metrics), node.id).toEqual(metrics);
    }
  });

  it('two sets of arguments: one statement more; nested under clinics: constant too', async () => {
    const big = await clinicWithCampaigns(500);
    const small = await clinicWithCampaigns(3);
    const key = await createKey(db, { clinicIds: [big.clinic.id, small.clinic.id] });
    const TWO = `query($c: ID) {
      campaigns(clinicId: $c, limit: 500) {
        nodes { id march: metrics(dateFrom: "2025-03-01", dateTo: "2025-03-31") { totalInteractions }
                     voice: metrics(dateFrom: "2025-03-01", dateTo: "2025-03-31", channel: VOICE) { totalInteractions totalCalls } }
        pageInfo { total }
      }
    }`;
    const one = await measure(key, CAMPAIGNS, { c: big.clinic.id });
    const two = await measure(key, TWO, { c: big.clinic.id });
    expect(two.count, two.statements.join('\n')).toBe(one.count + 1);
    expect(
      two.data.campaigns.nodes.every((n: Json) => n.voice.totalInteractions === n.voice.totalCalls && n.voice.totalCalls <= n.march.totalInteractions),
    ).toBe(true);
    expect(two.data.campaigns.nodes.some((n: Json) => n.voice.totalInteractions < n.march.totalInteractions)).toBe(true);

    const NESTED = `{ clinics(limit: 2) { nodes { id metrics(dateFrom: "2025-03-01", dateTo: "2025-03-31") { totalInteractions }
                      campaigns(limit: 500) { id metrics(dateFrom: "2025-03-01", dateTo: "2025-03-31") { totalInteractions } } } } }`;
    const keyOne = await createKey(db, { clinicIds: [small.clinic.id] });
    const nestedBig = await measure(key, NESTED);
    const nestedSmall = await measure(keyOne, NESTED);
    expect(nestedBig.data.clinics.nodes).toHaveLength(2);
    const bigNode = nestedBig.data.clinics.nodes.find((n: Json) => n.id === big.clinic.id);
    expect(bigNode.campaigns).toHaveLength(500);
    expect(bigNode.metrics.totalInteractions).toBe(bigNode.campaigns.reduce((s: number, c: Json) => s + c.metrics.totalInteractions, 0));
    expect(nestedBig.count, nestedBig.statements.join('\n')).toBe(nestedSmall.count);
  });

  it('interactions(limit: 500) with their campaign’s and clinic’s metrics: constant too, and each campaign’s own', async () => {
    const big = await clinicWithCampaigns(500);
    const small = await clinicWithCampaigns(4);
    const key = await createKey(db, { clinicIds: [big.clinic.id, small.clinic.id] });
    const QUERY = `query($c: ID) {
      interactions(clinicId: $c, limit: 500) {
        nodes { id campaign { id metrics(dateFrom: "2025-03-01", dateTo: "2025-03-31") { totalInteractions } }
                clinic { id metrics(dateFrom: "2025-03-01", dateTo: "2025-03-31") { totalInteractions } } }
        pageInfo { total }
      }
    }`;
    const large = await measure(key, QUERY, { c: big.clinic.id });
    const few = await measure(key, QUERY, { c: small.clinic.id });
    expect(large.data.interactions.nodes).toHaveLength(500);
    expect(few.data.interactions.nodes.length).toBeGreaterThan(1);
    expect(large.count, large.statements.join('\n')).toBe(few.count);
    const perCampaign = new Map(
      (await sqlBreakdown({ from: '2025-03-01T00:00:00.000Z', to: '2025-03-31T23:59:59.999Z', clinicIds: [big.clinic.id] }, ['campaign'])).map((g) => [
        g.campaign_id,
        g.total_interactions,
      ]),
    );
    const clinicTotal = [...perCampaign.values()].reduce((a, b) => a + b, 0);
    for (const node of large.data.interactions.nodes) {
      expect(node.campaign.metrics.totalInteractions, node.campaign.id).toBe(perCampaign.get(node.campaign.id));
      expect(node.clinic.metrics.totalInteractions).toBe(clinicTotal);
    }
  });
});
