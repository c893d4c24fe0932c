// A key restricted to clinic A sees nothing of clinic B, by any path of the schema.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createKey, expectNoErrors, graphql, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';
import { tag } from './support.js';

const db = testDb();
const app = testApp(db);

const t = tag();
const A = randomUUID();
const B = randomUUID();
const ids = {
  campaignA: `cmp_${t}_a`,
  campaignB: `cmp_${t}_b`,
  callA: `int_${t}_a1`,
  chatA: `int_${t}_a2`,
  callB: `int_${t}_b1`,
  chatB: `int_${t}_b2`,
};
// Phone numbers unique to this file, so a search finds only these rows.
const phoneA = `+34 61${t.replace(/\D/g, '0').slice(0, 7)}`;
const phoneB = `+34 69${t.replace(/\D/g, '9').slice(0, 7)}`;
const WINDOW = 'dateFrom: "2025-04-01", dateTo: "2025-04-30"';

let keyA = '';
let keyAB = '';
let unrestricted = '';

beforeAll(async () => {
  await createClinic(db, { id: A, name: `Restricted A ${t}` });
  await createClinic(db, { id: B, name: `Restricted B ${t}` });
  await createCampaign(db, A, { id: ids.campaignA });
  await createCampaign(db, B, { id: ids.campaignB });
  const rows = [
    {
      id: ids.callA,
      clinicId: A,
      campaignId: ids.campaignA,
      phoneNumber: phoneA,
      at: '2025-04-10T10:00:00.000Z',
      outcome: 'APPOINTMENT_BOOKED',
      durationSeconds: 100,
    },
    { id: ids.chatA, clinicId: A, campaignId: null, phoneNumber: phoneA, at: '2025-04-11T10:00:00.000Z', outcome: 'NO_ANSWER', channel: 'whatsapp' as const },
    { id: ids.callB, clinicId: B, campaignId: ids.campaignB, phoneNumber: phoneB, at: '2025-04-10T11:00:00.000Z', outcome: 'OPT_OUT', durationSeconds: 300 },
    { id: ids.chatB, clinicId: B, campaignId: null, phoneNumber: phoneB, at: '2025-04-12T10:00:00.000Z', outcome: 'OPT_OUT', channel: 'whatsapp' as const },
  ];
  for (const { at, channel = 'voice' as const, ...row } of rows) {
    await createInteraction(db, {
      ...row,
      channel,
      type: row.campaignId ? 'CAMPAIGN_OUTBOUND' : 'INBOUND',
      startedAt: new Date(at),
      transcript: [{ role: 'user', content: `transcript of ${row.id}` }],
    });
  }
  keyA = await createKey(db, { clinicIds: [A] });
  keyAB = await createKey(db, { clinicIds: [A, B] });
  unrestricted = await createKey(db);
});

const q = (key: string, query: string, variables?: Record<string, unknown>) => graphql(app, { key, query, ...(variables ? { variables } : {}) });

describe('a key restricted to clinic A', () => {
  it('clinics: only A, and a total of 1', async () => {
    const data = expectNoErrors(await q(keyA, '{ clinics(limit: 500) { nodes { id } pageInfo { total totalPages hasMore } } }'));
    expect(data.clinics).toEqual({ nodes: [{ id: A }], pageInfo: { total: 1, totalPages: 1, hasMore: false } });
  });

  it('clinic(id: B) is null, in any case of the id, without an error', async () => {
    const data = expectNoErrors(
      await q(keyA, 'query($b: ID!, $B: ID!, $a: ID!) { b: clinic(id: $b) { id } B: clinic(id: $B) { id } a: clinic(id: $a) { id } }', {
        b: B,
        B: B.toUpperCase(),
        a: A,
      }),
    );
    expect(data).toEqual({ b: null, B: null, a: { id: A } });
  });

  it('campaigns: only A, with or without clinicId: B', async () => {
    const data = expectNoErrors(
      await q(
        keyA,
        'query($b: ID) { all: campaigns(limit: 500) { nodes { id } pageInfo { total } } b: campaigns(clinicId: $b) { nodes { id } pageInfo { total totalPages hasMore } } }',
        {
          b: B,
        },
      ),
    );
    expect(data).toEqual({
      all: { nodes: [{ id: ids.campaignA }], pageInfo: { total: 1 } },
      b: { nodes: [], pageInfo: { total: 0, totalPages: 0, hasMore: false } },
    });
  });

  it('campaign(id of B) is null', async () => {
    const data = expectNoErrors(
      await q(keyA, 'query($b: ID!, $a: ID!) { b: campaign(id: $b) { id } a: campaign(id: $a) { id } }', { b: ids.campaignB, a: ids.campaignA }),
    );
    expect(data).toEqual({ b: null, a: { id: ids.campaignA } });
  });

  it('interactions: only A, with or without clinicId: B, also by a search for B’s phone number', async () => {
    const data = expectNoErrors(
      await q(
        keyA,
        `query($b: ID, $phoneB: String, $phoneA: String) {
          all: interactions(limit: 500) { nodes { id } pageInfo { total } }
          b: interactions(clinicId: $b) { nodes { id } pageInfo { total totalPages hasMore } }
          searchB: interactions(search: $phoneB) { nodes { id } pageInfo { total } }
          searchA: interactions(search: $phoneA) { nodes { id } pageInfo { total } }
          plus: interactions(search: "+", ${WINDOW}) { nodes { id } pageInfo { total } }
          outcomeB: interactions(outcomes: [OPT_OUT]) { nodes { id } pageInfo { total } }
        }`,
        { b: B, phoneB, phoneA },
      ),
    );
    expect(data).toEqual({
      all: { nodes: [{ id: ids.chatA }, { id: ids.callA }], pageInfo: { total: 2 } },
      b: { nodes: [], pageInfo: { total: 0, totalPages: 0, hasMore: false } },
      searchB: { nodes: [], pageInfo: { total: 0 } },
      searchA: { nodes: [{ id: ids.chatA }, { id: ids.callA }], pageInfo: { total: 2 } },
      plus: { nodes: [{ id: ids.chatA }, { id: ids.callA }], pageInfo: { total: 2 } },
      outcomeB: { nodes: [], pageInfo: { total: 0 } },
    });
  });

  it('interaction(id of B) is null', async () => {
    const data = expectNoErrors(
      await q(
        keyA,
        'query($b1: ID!, $b2: ID!, $a: ID!) { b1: interaction(id: $b1) { id } b2: interaction(id: $b2) { id transcript { content } } a: interaction(id: $a) { id } }',
        {
          b1: ids.callB,
          b2: ids.chatB,
          a: ids.callA,
        },
      ),
    );
    expect(data).toEqual({ b1: null, b2: null, a: { id: ids.callA } });
  });

  it('metrics: only A’s rows; with clinicId: B zeros and an empty breakdown', async () => {
    const data = expectNoErrors(
      await q(
        keyA,
        `query($b: ID) {
          summary: metricsSummary(${WINDOW}) { totalInteractions totalCalls totalDurationSeconds successRate appointmentsScheduled }
          summaryB: metricsSummary(${WINDOW}, clinicId: $b) { totalInteractions totalCalls totalConversations totalDurationSeconds avgDurationSeconds successRate appointmentsScheduled inboundCount outboundCount }
          daily: metricsDaily(dateFrom: "2025-04-10", dateTo: "2025-04-12") { date total }
          dailyB: metricsDaily(dateFrom: "2025-04-10", dateTo: "2025-04-12", clinicId: $b) { date total calls conversations }
          outcomes: metricsOutcomes(${WINDOW}) { total outcomes { outcome count } }
          outcomesB: metricsOutcomes(${WINDOW}, clinicId: $b) { total outcomes { outcome count } }
        }`,
        { b: B },
      ),
    );
    expect(data).toEqual({
      summary: { totalInteractions: 2, totalCalls: 1, totalDurationSeconds: 100, successRate: 50, appointmentsScheduled: 1 },
      summaryB: {
        totalInteractions: 0,
        totalCalls: 0,
        totalConversations: 0,
        totalDurationSeconds: 0,
        avgDurationSeconds: 0,
        successRate: 0,
        appointmentsScheduled: 0,
        inboundCount: 0,
        outboundCount: 0,
      },
      daily: [
        { date: '2025-04-10', total: 1 },
        { date: '2025-04-11', total: 1 },
        { date: '2025-04-12', total: 0 },
      ],
      dailyB: [
        { date: '2025-04-10', total: 0, calls: 0, conversations: 0 },
        { date: '2025-04-11', total: 0, calls: 0, conversations: 0 },
        { date: '2025-04-12', total: 0, calls: 0, conversations: 0 },
      ],
      outcomes: {
        total: 2,
        outcomes: [
          { outcome: 'APPOINTMENT_BOOKED', count: 1 },
          { outcome: 'NO_ANSWER', count: 1 },
        ],
      },
      outcomesB: { total: 0, outcomes: [] },
    });
  });

  it('nested relations from A’s objects lead only to A’s rows', async () => {
    const data = expectNoErrors(
      await q(
        keyA,
        `query($a: ID!) {
          clinic(id: $a) {
            id
            campaigns(limit: 20) { id clinic { id } interactions(limit: 50) { id clinic { id } } }
            interactions(limit: 100) { id clinic { id } campaign { id clinic { id } interactions { id } } }
          }
          campaigns { nodes { clinic { id campaigns { id } interactions { id } } } }
          interactions { nodes { clinic { id interactions { id } campaigns { id } } campaign { interactions { id } } } }
        }`,
        { a: A },
      ),
    );
    expect(data.clinic).toEqual({
      id: A,
      campaigns: [{ id: ids.campaignA, clinic: { id: A }, interactions: [{ id: ids.callA, clinic: { id: A } }] }],
      interactions: [
        { id: ids.chatA, clinic: { id: A }, campaign: null },
        { id: ids.callA, clinic: { id: A }, campaign: { id: ids.campaignA, clinic: { id: A }, interactions: [{ id: ids.callA }] } },
      ],
    });
    const clinicA = { id: A, campaigns: [{ id: ids.campaignA }], interactions: [{ id: ids.chatA }, { id: ids.callA }] };
    expect(data.campaigns).toEqual({ nodes: [{ clinic: clinicA }] });
    expect(data.interactions).toEqual({
      nodes: [
        { clinic: { id: A, interactions: clinicA.interactions, campaigns: clinicA.campaigns }, campaign: null },
        { clinic: { id: A, interactions: clinicA.interactions, campaigns: clinicA.campaigns }, campaign: { interactions: [{ id: ids.callA }] } },
      ],
    });
    // Nothing of B anywhere in the answer.
    const text = JSON.stringify(data);
    for (const id of [B, ids.campaignB, ids.callB, ids.chatB]) expect(text).not.toContain(id);
  });
});

describe('keys that may see B', () => {
  it('a key restricted to A and B sees both, and a clinicId filter still narrows', async () => {
    const data = expectNoErrors(
      await q(
        keyAB,
        `query($b: ID!) {
          clinics { nodes { id } pageInfo { total } }
          clinic(id: $b) { id campaigns { id } interactions { id } }
          campaigns { pageInfo { total } }
          interactions { pageInfo { total } }
          onlyB: interactions(clinicId: $b) { nodes { id } }
          metricsSummary(${WINDOW}) { totalInteractions }
          summaryB: metricsSummary(${WINDOW}, clinicId: $b) { totalInteractions totalDurationSeconds }
        }`,
        { b: B },
      ),
    );
    expect(data).toEqual({
      clinics: { nodes: [{ id: A }, { id: B }], pageInfo: { total: 2 } },
      clinic: { id: B, campaigns: [{ id: ids.campaignB }], interactions: [{ id: ids.chatB }, { id: ids.callB }] },
      campaigns: { pageInfo: { total: 2 } },
      interactions: { pageInfo: { total: 4 } },
      onlyB: { nodes: [{ id: ids.chatB }, { id: ids.callB }] },
      metricsSummary: { totalInteractions: 4 },
      summaryB: { totalInteractions: 2, totalDurationSeconds: 300 },
    });
  });

  it('an unrestricted key sees B by every path', async () => {
    const data = expectNoErrors(
      await q(
        unrestricted,
        `query($b: ID!, $cb: ID!, $ib: ID!, $phoneB: String) {
          clinic(id: $b) { id }
          campaign(id: $cb) { id clinic { id } }
          interaction(id: $ib) { id clinic { id } campaign { id } transcript { content } }
          campaigns(clinicId: $b) { nodes { id } }
          interactions(clinicId: $b) { nodes { id } }
          search: interactions(search: $phoneB) { nodes { id } }
          metricsSummary(${WINDOW}, clinicId: $b) { totalInteractions totalCalls totalConversations }
          metricsOutcomes(${WINDOW}, clinicId: $b) { total outcomes { outcome count percentage } }
        }`,
        { b: B, cb: ids.campaignB, ib: ids.callB, phoneB },
      ),
    );
    expect(data).toEqual({
      clinic: { id: B },
      campaign: { id: ids.campaignB, clinic: { id: B } },
      interaction: { id: ids.callB, clinic: { id: B }, campaign: { id: ids.campaignB }, transcript: [{ content: `transcript of ${ids.callB}` }] },
      campaigns: { nodes: [{ id: ids.campaignB }] },
      interactions: { nodes: [{ id: ids.chatB }, { id: ids.callB }] },
      search: { nodes: [{ id: ids.chatB }, { id: ids.callB }] },
      metricsSummary: { totalInteractions: 2, totalCalls: 1, totalConversations: 1 },
      metricsOutcomes: { total: 2, outcomes: [{ outcome: 'OPT_OUT', count: 2, percentage: 100 }] },
    });
    // The unrestricted key's clinic list includes both clinics (and possibly other files' clinics).
    const clinics = expectNoErrors(await q(unrestricted, '{ clinics(limit: 500) { nodes { id } pageInfo { total } } }'));
    expect(clinics.clinics.pageInfo.total).toBeGreaterThanOrEqual(2);
  });
});
