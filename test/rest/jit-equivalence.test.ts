// The REST facade executes its fixed documents with graphql-jit (src/rest/use-rest.ts); /graphql
// keeps graphql-js's executor. Each REST answer here must equal the same document run on /graphql
// with the same variables and shaped by the same route, so a difference between the two executors
// (nulls, enums, custom scalars, nested lists, errors) shows up as a failing endpoint.
import { print } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { Problems } from '../../src/domain/parameters.js';
import { schema } from '../../src/graphql/index.js';
import { TimeSlice } from '../../src/limits/admission.js';
import { matchRoute, REST_NAMES, restVariables } from '../../src/rest/routes.js';
import { createKey, expectNoErrors, graphql, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';
import { expectStatus, get } from './client.js';

const db = testDb();
const app = testApp(db);

/** GET `pathAndQuery` on the REST facade and compare it with its document run on /graphql. */
async function expectSameAsReferenceExecutor(pathAndQuery: string, key: string, _now: Date): Promise<void> {
  const url = new URL(pathAndQuery, 'http://localhost');
  const matched = matchRoute(url.pathname);
  if (!matched) throw new Error(`no route for ${url.pathname}`);
  const problems: Problems = {};
  const query = Object.fromEntries(url.searchParams);
  const { variables, unconverted } = restVariables(schema, matched.route.document, REST_NAMES, { query, pathParams: matched.pathParams }, problems);
  expect(problems).toEqual({});
  expect(unconverted).toEqual({});

  const rest = await get(app, pathAndQuery, key);
  expectStatus(rest, 200);
  const reference = expectNoErrors(await graphql(app, { query: print(matched.route.document), variables: variables as Record<string, unknown>, key }));
  const shaped = await matched.route.shape(reference as never, query, new TimeSlice());
  expect(shaped).not.toBeNull();
  expect(rest.body.data).toEqual(shaped?.data);
  expect(rest.body.meta).toEqual(shaped?.meta);
}

describe('REST documents under graphql-jit', () => {
  it('answer every endpoint exactly as the reference executor does', async () => {
    const clinic = await createClinic(db);
    const campaign = await createCampaign(db, clinic.id, { channel: 'whatsapp', type: 'appointment_reminder', settings: { hours: [9, 17] } });
    const day = Date.UTC(2026, 2, 10, 9);
    const transcript = [
      { role: 'assistant', content: 'Hola, le llamamos de la clínica.' },
      { role: 'user', content: 'Sí, dígame.' },
    ];
    const voice = await createInteraction(db, { clinicId: clinic.id, startedAt: new Date(day), transcript, campaignId: campaign.id });
    await createInteraction(db, { clinicId: clinic.id, startedAt: new Date(day + 3_600_000), outcome: null, summary: null, durationSeconds: null });
    await createInteraction(db, {
      clinicId: clinic.id,
      channel: 'whatsapp',
      type: 'APPOINTMENT_REMINDER',
      startedAt: new Date(day + 86_400_000),
      outcome: 'NO_ANSWER',
      transcript,
      campaignId: campaign.id,
    });
    await createInteraction(db, { clinicId: clinic.id, channel: 'whatsapp', type: 'APPOINTMENT_REMINDER', startedAt: new Date(day + 2 * 86_400_000) });
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const now = new Date(Date.UTC(2026, 2, 20, 12));
    const window = 'date_from=2026-03-01&date_to=2026-03-31';

    for (const path of [
      '/api/v1/interactions',
      '/api/v1/interactions?limit=2&page=2',
      `/api/v1/interactions?channel=voice&outcome=APPOINTMENT_BOOKED,NO_ANSWER&${window}`,
      `/api/v1/interactions/${voice.id}`,
      '/api/v1/clinics',
      `/api/v1/campaigns?clinic_id=${clinic.id}`,
      `/api/v1/metrics/summary?${window}`,
      `/api/v1/metrics/daily?${window}&channel=whatsapp`,
      `/api/v1/metrics/outcomes?${window}`,
    ]) {
      await expectSameAsReferenceExecutor(path, key, now).catch((error: unknown) => {
        throw new Error(`${path}: ${error instanceof Error ? error.message : String(error)}`);
      });
    }
  });
});
