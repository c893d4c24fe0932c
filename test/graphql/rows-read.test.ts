// A page reads only the columns its selection needs (graphql/schema/interaction.ts, rowsRead): the
// answer to any selection must be the one the whole row gives, with masking, fragments, aliases and
// the search's highlights.
import { type GraphQLObjectType, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/domain/values.js';
import { schema } from '../../src/graphql/index.js';
import { READS_ANY_COLUMN, READS_ITS_OWN_COLUMN } from '../../src/graphql/schema/interaction.js';
import { createKey, graphql, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';

const db = testDb();
const app = testApp(db);

const EVERY_FIELD =
  'id channel type direction phoneNumber clinicId campaignId startedAt endedAt durationSeconds outcome summary recordingUrl updatedAt transcript { role content } clinic { name } campaign { name }';

describe('what a page reads of its rows', () => {
  it('every field of Interaction is classified: it reads its own column, or any', () => {
    const type = schema.getType('Interaction') as GraphQLObjectType;
    expect(isObjectType(type)).toBe(true);
    for (const name of Object.keys(type.getFields())) {
      expect(READS_ITS_OWN_COLUMN.has(name) || READS_ANY_COLUMN.has(name), `Interaction.${name}`).toBe(true);
    }
  });

  it('any selection answers what the whole row answers, with and without phi:read', async () => {
    const clinic = await createClinic(db);
    const campaign = await createCampaign(db, clinic.id);
    const transcript = [{ role: 'user', content: 'Call me on +34 612 345 678' }];
    await createInteraction(db, { clinicId: clinic.id, campaignId: campaign.id, summary: 'Wrote from ana@example.com', transcript });
    await createInteraction(db, { clinicId: clinic.id, channel: 'whatsapp', type: 'INBOUND', outcome: null, summary: null, durationSeconds: null, transcript });
    await createInteraction(db, { clinicId: clinic.id, endedAt: null, recordingUrl: 'https://example.com/r.mp3' });
    for (const scopes of [SCOPES, SCOPES.filter((s) => s !== 'phi:read')]) {
      const key = await createKey(db, { clinicIds: [clinic.id], scopes: [...scopes] });
      const whole = await graphql(app, { key, query: `{ interactions(limit: 10) { nodes { ${EVERY_FIELD} } } }` });
      expect(whole.status).toBe(200);
      const rows = (whole.body.data as { interactions: { nodes: Array<Record<string, unknown>> } }).interactions.nodes;
      expect(rows).toHaveLength(3);
      const selections: Array<{ query: string; fields: string[] }> = [
        { query: '{ interactions(limit: 10) { nodes { id startedAt } } }', fields: ['id', 'startedAt'] },
        { query: '{ interactions(limit: 10) { nodes { id phoneNumber summary } } }', fields: ['id', 'phoneNumber', 'summary'] },
        { query: '{ interactions(limit: 10) { nodes { id ...F } } } fragment F on Interaction { endedAt updatedAt }', fields: ['id', 'endedAt', 'updatedAt'] },
        { query: '{ interactions(limit: 10) { nodes { id ... on Interaction { direction recordingUrl } } } }', fields: ['id', 'direction', 'recordingUrl'] },
        { query: '{ interactions(limit: 10) { nodes { id transcript { role content } clinic { name } } } }', fields: ['id', 'transcript', 'clinic'] },
        { query: '{ interactions(limit: 10) { pageInfo { total } nodes { id summary } } }', fields: ['id', 'summary'] },
      ];
      for (const { query, fields } of selections) {
        const answer = await graphql(app, { key, query });
        expect(answer.status, query).toBe(200);
        const nodes = (answer.body.data as { interactions: { nodes: unknown[] } }).interactions.nodes;
        expect(nodes, query).toEqual(rows.map((row) => Object.fromEntries(fields.map((field) => [field, row[field]]))));
      }
      // Aliases name the response, not the field read.
      const aliased = await graphql(app, { key, query: '{ interactions(limit: 10) { nodes { id number: phoneNumber } } }' });
      expect((aliased.body.data as { interactions: { nodes: unknown[] } }).interactions.nodes).toEqual(
        rows.map((row) => ({ id: row.id, number: row.phoneNumber })),
      );
    }
  });

  it("a searched page's highlights, with the columns it skips", async () => {
    const clinic = await createClinic(db);
    await createInteraction(db, { clinicId: clinic.id, summary: 'The patient asked about whitening' });
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const answer = await graphql(app, { key, query: '{ interactions(limit: 5, text: "whitening") { nodes { id highlights } } }' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const nodes = (answer.body.data as { interactions: { nodes: Array<{ highlights: string[] }> } }).interactions.nodes;
    expect(nodes).toHaveLength(1);
    expect(nodes[0]!.highlights.join(' ')).toContain('**whitening**');
  });
});
