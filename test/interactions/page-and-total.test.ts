// A page and its total are read in one statement when both are asked for (interactions/read-page.ts,
// pairedRead; rows.ts, pageAndTotal), and a page that may be empty is gated by its count inside that
// statement: same rows and totals as reading them apart, one round trip fewer.
import { afterAll, describe, expect, it } from 'vitest';
import { createPrismaClient } from '../../src/db/client.js';
import { createKey, graphql, testApp } from '../helpers/app.js';
import { databaseUrl } from '../helpers/db.js';
import { createClinic, createInteraction } from '../helpers/factories.js';
import { get } from '../rest/client.js';

const statements: string[] = [];
const db = createPrismaClient(databaseUrl, 4, { onStatement: (text) => statements.push(text) });
afterAll(() => db.$disconnect());
const app = testApp(db);
/** The statements that read interactions (the key's lookup and its clinics are not counted). */
const reads = () => statements.filter((text) => /\binteractions\b|interaction_month|interaction_day|interaction_hour/.test(text));

describe('a page and its total', () => {
  it('are one statement over REST and GraphQL, and equal to counting apart', async () => {
    const clinic = await createClinic(db);
    const base = Date.UTC(2026, 0, 5, 9);
    for (let i = 0; i < 7; i++)
      await createInteraction(db, {
        clinicId: clinic.id,
        startedAt: new Date(base + i * 3_600_000),
        channel: i % 2 ? 'whatsapp' : 'voice',
        type: i % 2 ? 'INBOUND' : 'CAMPAIGN_OUTBOUND',
        durationSeconds: i % 2 ? null : 60,
      });
    const key = await createKey(db, { clinicIds: [clinic.id] });

    statements.length = 0;
    const rest = await get(app, '/api/v1/interactions?limit=3&page=2', key);
    expect(rest.status).toBe(200);
    expect(rest.body.meta).toMatchObject({ total: 7, page: 2, limit: 3 });
    expect((rest.body.data as { interactions: unknown[] }).interactions).toHaveLength(3);
    expect(reads()).toHaveLength(1);
    expect(reads()[0]).toContain('"listTotal"');

    statements.length = 0;
    const page = await graphql(app, { key, query: '{ interactions(limit: 3, channel: VOICE) { nodes { id channel } pageInfo { total hasMore } } }' });
    expect(page.body.data?.interactions).toMatchObject({ pageInfo: { total: 4, hasMore: true } });
    expect(page.body.data?.interactions?.nodes).toHaveLength(3);
    expect(reads()).toHaveLength(1);

    // A page past the last (gated by the count in the same statement) and a filter nothing matches.
    statements.length = 0;
    const past = await get(app, '/api/v1/interactions?limit=3&page=4', key);
    expect(past.body).toMatchObject({ data: { interactions: [] }, meta: { total: 7 } });
    const none = await get(app, '/api/v1/interactions?channel=whatsapp&outcome=NO_ANSWER', key);
    expect(none.body).toMatchObject({ data: { interactions: [] }, meta: { total: 0 } });
    expect(reads()).toHaveLength(2);

    // Without the total: the page alone.
    statements.length = 0;
    const alone = await graphql(app, { key, query: '{ interactions(limit: 2) { nodes { id } } }' });
    expect(alone.body.data?.interactions?.nodes).toHaveLength(2);
    expect(reads()).toHaveLength(1);
    expect(reads()[0]).not.toContain('"listTotal"');
  });

  it('a first page of filters lately seen to match is read without its count; filters that match nothing stay gated', async () => {
    const clinic = await createClinic(db);
    for (let i = 0; i < 3; i++) await createInteraction(db, { clinicId: clinic.id, startedAt: new Date(Date.UTC(2026, 1, 2, 9 + i)), channel: 'voice' });
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const voice = `{ interactions(limit: 2, clinicId: "${clinic.id}", channel: VOICE) { nodes { id channel } } }`;

    statements.length = 0;
    const first = await graphql(app, { key, query: voice });
    expect(first.body.data?.interactions?.nodes).toHaveLength(2);
    expect(reads()).toHaveLength(1);
    expect(reads()[0]).toContain('"listTotal"');

    statements.length = 0;
    const again = await graphql(app, { key, query: voice });
    expect(again.body).toEqual(first.body);
    expect(reads()).toHaveLength(1);
    expect(reads()[0]).not.toContain('"listTotal"');

    // Nothing matches: counted first every time, so no page walks the table to find nothing.
    const whatsapp = `{ interactions(limit: 2, clinicId: "${clinic.id}", channel: WHATSAPP) { nodes { id } } }`;
    for (let i = 0; i < 2; i++) {
      statements.length = 0;
      const none = await graphql(app, { key, query: whatsapp });
      expect(none.body.data?.interactions?.nodes).toEqual([]);
      expect(reads()[0]).toContain('"listTotal"');
    }

    // A combination that stops matching is still answered exactly (ungated, as any page is).
    await db.interaction.deleteMany({ where: { clinicId: clinic.id } });
    const emptied = await graphql(app, { key, query: voice });
    expect(emptied.body.data?.interactions?.nodes).toEqual([]);
  });
});
