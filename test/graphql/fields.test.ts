// Every root field and every relation of the schema, with exact values from the test's own rows:
// camelCase fields, DateTime as ISO 8601 UTC with milliseconds, UPPERCASE enums, JSON settings.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createKey, expectNoErrors, graphql, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';
import { tag } from './support.js';

const db = testDb();
const app = testApp(db);

const t = tag();
const ids = {
  clinic: randomUUID(),
  recall: `cmp_${t}_1`,
  reminder: `cmp_${t}_2`,
  done: `cmp_${t}_3`,
  call: `int_${t}_call`,
  chat: `int_${t}_chat`,
  inbound: `int_${t}_inbound`,
};
const settings = {
  max_attempts: 3,
  call_window_start: '09:00',
  call_window_end: '18:30',
  days: ['mon', 'wed'],
  retry: { delay_hours: 24, enabled: true },
  note: null,
};
let key = '';

const CLINIC = {
  id: ids.clinic,
  name: `Clínica Fields ${t}`,
  address: 'Calle Mayor 1, 28013 Madrid',
  phone: '+34 910 000 001',
  email: 'recepcion@clinica.example.test',
  timezone: 'Europe/Madrid',
  createdAt: '2025-01-02T03:04:05.006Z',
};

const RECALL = {
  id: ids.recall,
  name: 'Spring recall',
  description: 'Recall patients due for a check-up',
  type: 'RECALL',
  channel: 'MULTI',
  status: 'PAUSED',
  clinicId: ids.clinic,
  createdAt: '2025-02-01T10:00:00.000Z',
  updatedAt: '2025-02-03T11:12:13.140Z',
  settings,
};

const CALL = {
  id: ids.call,
  channel: 'VOICE',
  type: 'CAMPAIGN_CALLBACK',
  direction: 'OUTBOUND',
  phoneNumber: '+34 611 222 333',
  clinicId: ids.clinic,
  campaignId: ids.recall,
  startedAt: '2025-03-04T05:06:07.089Z',
  endedAt: '2025-03-04T05:08:12.089Z',
  durationSeconds: 125,
  outcome: 'CALLBACK_REQUESTED',
  summary: 'Asked to be called back tomorrow.',
  recordingUrl: 'https://recordings.example.test/call.mp3',
};

const CHAT = {
  id: ids.chat,
  channel: 'WHATSAPP',
  type: 'APPOINTMENT_REMINDER',
  direction: 'OUTBOUND',
  phoneNumber: '+34 622 333 444',
  clinicId: ids.clinic,
  campaignId: ids.reminder,
  startedAt: '2025-03-05T00:00:00.000Z',
  endedAt: null,
  durationSeconds: null,
  outcome: null,
  summary: null,
  recordingUrl: null,
};

const INBOUND = {
  id: ids.inbound,
  channel: 'VOICE',
  type: 'INBOUND',
  direction: 'INBOUND',
  phoneNumber: '+34 633 444 555',
  clinicId: ids.clinic,
  campaignId: null,
  startedAt: '2025-03-03T23:59:59.999Z',
  endedAt: '2025-03-04T00:00:29.999Z',
  durationSeconds: 30,
  outcome: 'APPOINTMENT_BOOKED',
  summary: 'Booked a cleaning.',
  recordingUrl: 'https://recordings.example.test/inbound.mp3',
};

const CALL_TRANSCRIPT = [
  { role: 'assistant', content: 'Hola, le llamamos de la clínica.' },
  { role: 'user', content: 'Llámenme mañana, por favor.' },
];
const CHAT_TRANSCRIPT = [
  { role: 'assistant', content: 'Recordatorio: cita el lunes a las 10:00.' },
  { role: 'user', content: '👍' },
  { role: 'assistant', content: '¡Gracias!' },
];

const INTERACTION_FIELDS = `id channel type direction phoneNumber clinicId campaignId startedAt endedAt durationSeconds outcome summary recordingUrl`;
const CAMPAIGN_FIELDS = `id name description type channel status clinicId createdAt updatedAt settings`;
const CLINIC_FIELDS = `id name address phone email timezone createdAt`;

beforeAll(async () => {
  await createClinic(db, { ...CLINIC, createdAt: new Date(CLINIC.createdAt) });
  await createCampaign(db, ids.clinic, {
    id: ids.recall,
    name: RECALL.name,
    description: RECALL.description,
    type: 'recall',
    channel: 'multi',
    status: 'paused',
    createdAt: new Date(RECALL.createdAt),
    updatedAt: new Date(RECALL.updatedAt),
    settings,
  });
  await createCampaign(db, ids.clinic, {
    id: ids.reminder,
    name: 'Reminders',
    type: 'appointment_reminder',
    channel: 'whatsapp',
    status: 'active',
    createdAt: new Date('2025-02-10T00:00:00.000Z'),
    settings: { hours_before: 24 },
  });
  await createCampaign(db, ids.clinic, {
    id: ids.done,
    name: 'Finished',
    type: 'no_show_recovery',
    channel: 'voice',
    status: 'completed',
    createdAt: new Date('2025-01-20T00:00:00.000Z'),
    settings: {},
  });
  await createInteraction(db, {
    ...CALL,
    channel: 'voice',
    type: 'CAMPAIGN_CALLBACK',
    direction: 'outbound',
    startedAt: new Date(CALL.startedAt),
    endedAt: new Date(CALL.endedAt),
    transcript: CALL_TRANSCRIPT,
  });
  await createInteraction(db, {
    ...CHAT,
    channel: 'whatsapp',
    type: 'APPOINTMENT_REMINDER',
    direction: 'outbound',
    startedAt: new Date(CHAT.startedAt),
    transcript: CHAT_TRANSCRIPT,
  });
  await createInteraction(db, {
    ...INBOUND,
    channel: 'voice',
    type: 'INBOUND',
    direction: 'inbound',
    startedAt: new Date(INBOUND.startedAt),
    endedAt: new Date(INBOUND.endedAt),
  });
  key = await createKey(db, { clinicIds: [ids.clinic] });
});

describe('root fields', () => {
  it('clinics: the clinic with every field and the page info', async () => {
    const data = expectNoErrors(
      await graphql(app, { key, query: `{ clinics { nodes { ${CLINIC_FIELDS} } pageInfo { page limit total totalPages hasMore } } }` }),
    );
    expect(data).toEqual({ clinics: { nodes: [CLINIC], pageInfo: { page: 1, limit: 25, total: 1, totalPages: 1, hasMore: false } } });
  });

  it('clinic(id): one clinic, also by an upper-case id; null for an unknown id', async () => {
    const data = expectNoErrors(
      await graphql(app, {
        key,
        query: `query($id: ID!, $upper: ID!, $unknown: ID!) {
          clinic(id: $id) { ${CLINIC_FIELDS} }
          upper: clinic(id: $upper) { id }
          unknown: clinic(id: $unknown) { id }
        }`,
        variables: { id: ids.clinic, upper: ids.clinic.toUpperCase(), unknown: randomUUID() },
      }),
    );
    expect(data).toEqual({ clinic: CLINIC, upper: { id: ids.clinic }, unknown: null });
  });

  it('campaigns: every field, settings as JSON, newest first, with page info', async () => {
    const data = expectNoErrors(
      await graphql(app, {
        key,
        query: `query($c: ID) { campaigns(clinicId: $c) { nodes { ${CAMPAIGN_FIELDS} } pageInfo { page limit total totalPages hasMore } } }`,
        variables: { c: ids.clinic },
      }),
    );
    expect(data.campaigns.pageInfo).toEqual({ page: 1, limit: 25, total: 3, totalPages: 1, hasMore: false });
    expect(data.campaigns.nodes.map((c: { id: string }) => c.id)).toEqual([ids.reminder, ids.recall, ids.done]);
    expect(data.campaigns.nodes[1]).toEqual(RECALL);
    expect(data.campaigns.nodes[0]).toMatchObject({ type: 'APPOINTMENT_REMINDER', channel: 'WHATSAPP', status: 'ACTIVE', settings: { hours_before: 24 } });
    expect(data.campaigns.nodes[2]).toMatchObject({ type: 'NO_SHOW_RECOVERY', channel: 'VOICE', status: 'COMPLETED', settings: {} });
  });

  it('campaign(id): one campaign; null for an unknown id', async () => {
    const data = expectNoErrors(
      await graphql(app, {
        key,
        query: `query($id: ID!) { campaign(id: $id) { ${CAMPAIGN_FIELDS} } unknown: campaign(id: "cmp_does_not_exist") { id } }`,
        variables: { id: ids.recall },
      }),
    );
    expect(data).toEqual({ campaign: RECALL, unknown: null });
  });

  it('interactions: every field of both channels, newest first, with page info', async () => {
    const data = expectNoErrors(
      await graphql(app, {
        key,
        query: `query($c: ID) { interactions(clinicId: $c) { nodes { ${INTERACTION_FIELDS} } pageInfo { page limit total totalPages hasMore } } }`,
        variables: { c: ids.clinic },
      }),
    );
    expect(data).toEqual({
      interactions: { nodes: [CHAT, CALL, INBOUND], pageInfo: { page: 1, limit: 25, total: 3, totalPages: 1, hasMore: false } },
    });
  });

  it('interaction(id): one interaction with its transcript; null transcript when none; null for an unknown id', async () => {
    const data = expectNoErrors(
      await graphql(app, {
        key,
        query: `query($call: ID!, $chat: ID!, $inbound: ID!) {
          call: interaction(id: $call) { ${INTERACTION_FIELDS} transcript { role content } }
          chat: interaction(id: $chat) { ${INTERACTION_FIELDS} transcript { role content } }
          inbound: interaction(id: $inbound) { id transcript { role content } }
          unknown: interaction(id: "int_does_not_exist") { id }
        }`,
        variables: { call: ids.call, chat: ids.chat, inbound: ids.inbound },
      }),
    );
    expect(data).toEqual({
      call: { ...CALL, transcript: CALL_TRANSCRIPT },
      chat: { ...CHAT, transcript: CHAT_TRANSCRIPT },
      inbound: { id: ids.inbound, transcript: null },
      unknown: null,
    });
  });

  it('metricsSummary, metricsDaily and metricsOutcomes answer over the clinic (values: metrics.test.ts)', async () => {
    const data = expectNoErrors(
      await graphql(app, {
        key,
        query: `{
          metricsSummary(dateFrom: "2025-03-03", dateTo: "2025-03-05") { totalInteractions totalCalls totalConversations inboundCount outboundCount
            avgDurationSeconds totalDurationSeconds successRate appointmentsScheduled }
          metricsDaily(dateFrom: "2025-03-03", dateTo: "2025-03-05") { date total calls conversations inbound outbound appointmentsScheduled successRate avgDurationSeconds }
          metricsOutcomes(dateFrom: "2025-03-03", dateTo: "2025-03-05") { total outcomes { outcome label count percentage } }
        }`,
      }),
    );
    expect(data.metricsSummary).toEqual({
      totalInteractions: 3,
      totalCalls: 2,
      totalConversations: 1,
      inboundCount: 1,
      outboundCount: 2,
      avgDurationSeconds: 77.5,
      totalDurationSeconds: 155,
      successRate: 50,
      appointmentsScheduled: 1,
    });
    expect(data.metricsDaily).toEqual([
      { date: '2025-03-03', total: 1, calls: 1, conversations: 0, inbound: 1, outbound: 0, appointmentsScheduled: 1, successRate: 100, avgDurationSeconds: 30 },
      { date: '2025-03-04', total: 1, calls: 1, conversations: 0, inbound: 0, outbound: 1, appointmentsScheduled: 0, successRate: 0, avgDurationSeconds: 125 },
      { date: '2025-03-05', total: 1, calls: 0, conversations: 1, inbound: 0, outbound: 1, appointmentsScheduled: 0, successRate: 0, avgDurationSeconds: 0 },
    ]);
    expect(data.metricsOutcomes).toEqual({
      total: 2,
      outcomes: [
        { outcome: 'APPOINTMENT_BOOKED', label: 'Appointment Booked', count: 1, percentage: 50 },
        { outcome: 'CALLBACK_REQUESTED', label: 'Callback Requested', count: 1, percentage: 50 },
      ],
    });
  });
});

describe('relations', () => {
  it('Clinic.campaigns: newest first, filtered by status, bounded by limit', async () => {
    const data = expectNoErrors(
      await graphql(app, {
        key,
        query: `query($id: ID!) { clinic(id: $id) {
          all: campaigns { id }
          active: campaigns(status: ACTIVE) { id status }
          paused: campaigns(status: PAUSED) { ${CAMPAIGN_FIELDS} }
          completed: campaigns(status: COMPLETED) { id }
          two: campaigns(limit: 2) { id }
          one: campaigns(limit: 1) { id }
        } }`,
        variables: { id: ids.clinic },
      }),
    );
    expect(data.clinic).toEqual({
      all: [{ id: ids.reminder }, { id: ids.recall }, { id: ids.done }],
      active: [{ id: ids.reminder, status: 'ACTIVE' }],
      paused: [RECALL],
      completed: [{ id: ids.done }],
      two: [{ id: ids.reminder }, { id: ids.recall }],
      one: [{ id: ids.reminder }],
    });
  });

  it('Clinic.interactions: newest first, with paging and filters', async () => {
    const data = expectNoErrors(
      await graphql(app, {
        key,
        query: `query($id: ID!) { clinic(id: $id) {
          all: interactions { ${INTERACTION_FIELDS} }
          first: interactions(limit: 1) { id }
          second: interactions(limit: 1, page: 2) { id }
          beyond: interactions(limit: 2, page: 3) { id }
          voice: interactions(channel: VOICE) { id }
          booked: interactions(outcomes: [APPOINTMENT_BOOKED]) { id }
          day: interactions(dateFrom: "2025-03-04", dateTo: "2025-03-04") { id }
          search: interactions(search: "622") { id }
        } }`,
        variables: { id: ids.clinic },
      }),
    );
    expect(data.clinic).toEqual({
      all: [CHAT, CALL, INBOUND],
      first: [{ id: ids.chat }],
      second: [{ id: ids.call }],
      beyond: [],
      voice: [{ id: ids.call }, { id: ids.inbound }],
      booked: [{ id: ids.inbound }],
      day: [{ id: ids.call }],
      search: [{ id: ids.chat }],
    });
  });

  it('Campaign.clinic and Campaign.interactions', async () => {
    const data = expectNoErrors(
      await graphql(app, {
        key,
        query: `query($c: ID) { campaigns(clinicId: $c) { nodes { id clinic { ${CLINIC_FIELDS} } interactions { id campaignId } } } }`,
        variables: { c: ids.clinic },
      }),
    );
    expect(data.campaigns.nodes).toEqual([
      { id: ids.reminder, clinic: CLINIC, interactions: [{ id: ids.chat, campaignId: ids.reminder }] },
      { id: ids.recall, clinic: CLINIC, interactions: [{ id: ids.call, campaignId: ids.recall }] },
      { id: ids.done, clinic: CLINIC, interactions: [] },
    ]);
    const one = expectNoErrors(
      await graphql(app, {
        key,
        query: `query($id: ID!) { campaign(id: $id) { clinic { id name } interactions(channel: WHATSAPP) { id } all: interactions { ${INTERACTION_FIELDS} } } }`,
        variables: { id: ids.recall },
      }),
    );
    expect(one.campaign).toEqual({ clinic: { id: ids.clinic, name: CLINIC.name }, interactions: [], all: [CALL] });
  });

  it('Interaction.clinic, Interaction.campaign and Interaction.transcript on the list', async () => {
    const data = expectNoErrors(
      await graphql(app, {
        key,
        query: `query($c: ID) { interactions(clinicId: $c) { nodes { id clinic { ${CLINIC_FIELDS} } campaign { ${CAMPAIGN_FIELDS} } transcript { role content } } } }`,
        variables: { c: ids.clinic },
      }),
    );
    expect(data.interactions.nodes).toEqual([
      {
        id: ids.chat,
        clinic: CLINIC,
        campaign: expect.objectContaining({ id: ids.reminder, name: 'Reminders', status: 'ACTIVE' }),
        transcript: CHAT_TRANSCRIPT,
      },
      { id: ids.call, clinic: CLINIC, campaign: RECALL, transcript: CALL_TRANSCRIPT },
      { id: ids.inbound, clinic: CLINIC, campaign: null, transcript: null },
    ]);
  });

  it('relations of relations: clinic -> interactions -> campaign -> clinic, campaign -> interactions -> transcript', async () => {
    const data = expectNoErrors(
      await graphql(app, {
        key,
        query: `query($id: ID!) { clinic(id: $id) {
          interactions { id campaign { id clinic { id } } clinic { id } transcript { role } }
          campaigns(status: PAUSED) { interactions { id transcript { content } clinic { name } } }
        } }`,
        variables: { id: ids.clinic },
      }),
    );
    expect(data.clinic).toEqual({
      interactions: [
        {
          id: ids.chat,
          campaign: { id: ids.reminder, clinic: { id: ids.clinic } },
          clinic: { id: ids.clinic },
          transcript: CHAT_TRANSCRIPT.map(({ role }) => ({ role })),
        },
        {
          id: ids.call,
          campaign: { id: ids.recall, clinic: { id: ids.clinic } },
          clinic: { id: ids.clinic },
          transcript: CALL_TRANSCRIPT.map(({ role }) => ({ role })),
        },
        { id: ids.inbound, campaign: null, clinic: { id: ids.clinic }, transcript: null },
      ],
      campaigns: [{ interactions: [{ id: ids.call, transcript: CALL_TRANSCRIPT.map(({ content }) => ({ content })), clinic: { name: CLINIC.name } }] }],
    });
  });
});
