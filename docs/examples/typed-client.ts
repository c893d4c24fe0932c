// A typed client of the REST API: paths, parameters and answers are types generated from the
// served OpenAPI document, so a misspelt path, parameter or field fails to compile. Beside this file:
//   npx openapi-typescript@6 http://localhost:4000/api/v1/openapi.json -o api.d.ts
// then, with a key (`npm start` prints the demo key):
//   API_KEY=svc_test_... npx tsx typed-client.ts
import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const apiKey = process.env.API_KEY;
if (!apiKey) throw new Error('Set API_KEY to an API key (npm start prints the demo key).');

// 'application/json': list endpoints also document their CSV and NDJSON exports; this client reads JSON.
const client = createClient<paths, 'application/json'>({
  baseUrl: process.env.API_URL ?? 'http://localhost:4000',
  headers: { Authorization: `Bearer ${apiKey}` },
  // Lists go comma-separated (`outcome=A,B`), as the document says (style form, explode: false);
  // by default openapi-fetch would repeat the parameter.
  querySerializer: { array: { style: 'form', explode: false } },
});

// openapi-fetch checks the types of known query parameters but lets unknown ones through
// (openapi-typescript issue 2329); `satisfies` catches a misspelt one.
type Query<Path extends keyof paths> = paths[Path]['get'] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

// The newest voice calls that booked an appointment or asked for a call back.
const filters = { channel: 'voice', outcome: ['APPOINTMENT_BOOKED', 'CALLBACK_REQUESTED'], limit: 5 } satisfies Query<'/api/v1/interactions'>;
const list = await client.GET('/api/v1/interactions', { params: { query: filters } });
if (list.error) throw new Error(`interactions: ${list.response.status} ${list.error.error.code}: ${list.error.error.message}`);
const { interactions } = list.data.data;
// Page meta (`total`), or cursor meta when the request used a cursor.
const total = 'total' in list.data.meta ? list.data.meta.total : null;
console.log(`interactions: ${interactions.length} shown of ${total ?? 'an uncounted number'}`);
for (const interaction of interactions) {
  // `channel` tells the two shapes apart: only voice calls have a duration.
  const length = interaction.channel === 'voice' ? `${interaction.duration_seconds ?? '?'} s` : `${interaction.transcript.length} messages`;
  console.log(`  ${interaction.started_at} ${interaction.id} ${interaction.channel} ${interaction.outcome ?? '-'} (${length})`);
}

// One interaction with its transcript; the path parameter is typed too.
const first = interactions[0];
if (first) {
  const detail = await client.GET('/api/v1/interactions/{id}', { params: { path: { id: first.id } } });
  if (detail.error) throw new Error(`interaction ${first.id}: ${detail.response.status} ${detail.error.error.code}`);
  const { interaction } = detail.data.data;
  console.log(`transcript of ${interaction.id}: ${interaction.transcript.length} entries`);
}

// Totals of voice calls over the last 30 days.
const summary = await client.GET('/api/v1/metrics/summary', { params: { query: { channel: 'voice' } satisfies Query<'/api/v1/metrics/summary'> } });
if (summary.error) throw new Error(`summary: ${summary.response.status} ${summary.error.error.code}`);
const metrics = summary.data.data;
console.log(`summary: ${metrics.total_calls} calls, ${metrics.appointments_scheduled} appointments, success rate ${metrics.success_rate}`);
