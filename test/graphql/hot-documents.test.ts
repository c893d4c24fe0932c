// A free-form document runs compiled (graphql-jit) once it is hot, from its third execution
// (src/graphql/use-compiled-execution.ts): every answer must then be the one the reference executor gave the
// first time, errors and masked fields included; a document naming `__proto__` is never compiled.
import type { Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/domain/values.js';
import { createKey, graphql, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';

const db = testDb();
/** Whether each execution ran compiled: graphql-jit's results carry their own stringify. */
const compiled: boolean[] = [];
const observer: Plugin = {
  onExecute: () => ({
    onExecuteDone: ({ result }) => {
      compiled.push(typeof (result as { stringify?: unknown }).stringify === 'function');
    },
  }),
};
const app = testApp(db, { plugins: [observer] });

/** The same document four times: the answers (status, body) and whether each ran compiled. */
async function fourTimes(query: string, key: string, variables?: Record<string, unknown>) {
  compiled.length = 0;
  const answers = [];
  for (let i = 0; i < 4; i++) {
    const { status, body } = await graphql(app, { query, key, variables });
    answers.push({ status, body });
  }
  return { answers, compiled: [...compiled] };
}

describe('hot free-form documents', () => {
  it('run compiled from their third execution and answer as the reference executor did', async () => {
    const clinic = await createClinic(db);
    const campaign = await createCampaign(db, clinic.id);
    const transcript = [
      { role: 'assistant', content: 'Call me at +34 612 345 678 or write to ana@example.com' },
      { role: 'user', content: 'Vale.' },
    ];
    await createInteraction(db, { clinicId: clinic.id, campaignId: campaign.id, transcript, summary: 'Patient +34 612 345 678 asked to move it' });
    await createInteraction(db, { clinicId: clinic.id, channel: 'whatsapp', type: 'INBOUND', outcome: null, summary: null, durationSeconds: null });
    const full = await createKey(db, { clinicIds: [clinic.id] });
    // No phi:read (masked numbers, redacted texts) and no clinics:read (a refused field, the rest answered).
    const narrow = await createKey(db, { clinicIds: [clinic.id], scopes: SCOPES.filter((s) => s !== 'phi:read' && s !== 'clinics:read') });
    const page = `{ interactions(limit: 5) {
        nodes { __typename id startedAt endedAt channel type direction phoneNumber outcome summary durationSeconds recordingUrl
                clinic { name createdAt } campaign { name } transcript { role content } }
        pageInfo { total totalPages hasMore } } }`;
    const cases: Array<{ query: string; key: string; variables?: Record<string, unknown> }> = [
      { query: page, key: full },
      // (Another text, so that it starts cold: documents are told apart by their text.)
      { query: `${page} `, key: narrow },
      {
        query:
          'query Q($limit: Int, $channel: Channel) { interactions(limit: $limit, channel: $channel) { nodes { ...F } } } fragment F on Interaction { id outcome }',
        key: full,
        variables: { limit: 2, channel: 'WHATSAPP' },
      },
      { query: '{ missing: interaction(id: "nope") { id } found: clinic(id: "00000000-0000-0000-0000-000000000000") { name } }', key: full },
      { query: '{ interactions(limit: 5000) { nodes { id } } }', key: full },
      {
        query: '{ metricsSummary(dateFrom: "2020-01-01", dateTo: "2030-12-31") { totalInteractions successRate avgDurationSeconds inboundCount } }',
        key: full,
      },
      { query: '{ __typename clinics(limit: 1) { nodes { id than: name constructor: name } } }', key: full },
    ];
    for (const { query, key, variables } of cases) {
      const run = await fourTimes(query, key, variables);
      expect(run.compiled, query).toEqual([false, false, true, true]);
      for (const answer of run.answers.slice(1)) expect(answer, query).toEqual(run.answers[0]);
    }
  });

  it('answers the operation asked for: a hot document of two operations, and an operation name it lacks', async () => {
    const clinic = await createClinic(db, { name: 'Operation Clinic' });
    await createInteraction(db, { clinicId: clinic.id });
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const query = `query A { clinics(limit: 1) { nodes { name } } } query B { metricsSummary(dateFrom: "2020-01-01", dateTo: "2030-12-31") { totalInteractions } }`;
    const ask = async (operationName: string) => {
      const response = await app.fetch('http://localhost/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify({ query, operationName }),
      });
      return { status: response.status, body: (await response.json()) as unknown };
    };
    const expected = {
      A: { status: 200, body: { data: { clinics: { nodes: [{ name: 'Operation Clinic' }] } } } },
      B: { status: 200, body: { data: { metricsSummary: { totalInteractions: 1 } } } },
    };
    const missing = await ask('C');
    expect(missing.status).toBe(400);
    compiled.length = 0;
    for (const name of ['A', 'B', 'A', 'B', 'C', 'A', 'B', 'C', 'B', 'A'] as const) {
      expect(await ask(name), `operation ${name}`).toEqual(name === 'C' ? missing : expected[name]);
    }
    // From the third execution of the document on, whichever operation: compiled (C is refused before it executes).
    expect(compiled.slice(3)).toEqual([true, true, true, true, true]);
  });

  it('never compiles a document that names __proto__', async () => {
    const clinic = await createClinic(db);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const run = await fourTimes('{ clinics(limit: 1) { nodes { __proto__: id constructor: name } } }', key);
    expect(run.compiled).toEqual([false, false, false, false]);
    for (const answer of run.answers) {
      expect(Object.keys((answer.body.data as { clinics: { nodes: object[] } }).clinics.nodes[0]!)).toEqual(['__proto__', 'constructor']);
    }
  });
});
