// "Try it out" on /docs, with the values the page pre-fills, on the demo data (what `npm start`
// loads into an empty embedded database: src/demo.ts): every operation answers 200 with data. The
// requests are built from the OpenAPI document the way Swagger UI 5 builds them, and the demo data
// are seeded at a smaller size but otherwise as the demo has them (default seed, the last 90 days,
// sandbox clinics, a svc_test_ key with every scope).
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/rest/openapi.js';
import { EXAMPLE_DEMO_INTERACTION_ID } from '../../src/rest/openapi-examples.js';
import { API_INDEX_PATH, routes } from '../../src/rest/routes.js';
import { generateDemoData, type SeedOptions } from '../../src/seed/generate.js';
import { seedDemoData } from '../../src/seed/seed-database.js';
import { createKey, testApp } from '../helpers/app.js';
import { databaseUrl, testDb } from '../helpers/db.js';

interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  style?: string;
  explode?: boolean;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
  default?: unknown;
  schema?: { example?: unknown; default?: unknown; enum?: unknown[] };
}

interface Operation {
  operationId: string;
  parameters: Parameter[];
}

const doc = buildOpenApiDocument() as unknown as { paths: Record<string, { get: Operation }> };

/**
 * What Swagger UI 5 pre-fills in a parameter (parameter-row.jsx, setDefaultValue, OpenAPI 3): the
 * selected (at first: the first) of its `examples`, else its `example`, else its schema's `example`,
 * else the schema's `default`, else its own `default`; a required enum without any of these gets its
 * first value. A schema's `examples` (plural, JSON Schema) are shown, not pre-filled.
 */
function prefilled(parameter: Parameter, chosenExample?: string): unknown {
  const examples = parameter.examples ?? {};
  const example = examples[chosenExample ?? Object.keys(examples)[0] ?? '']?.value;
  for (const value of [example, parameter.example, parameter.schema?.example, parameter.schema?.default, parameter.default]) {
    if (value !== undefined) return value;
  }
  return parameter.required && parameter.schema?.enum ? parameter.schema.enum[0] : undefined;
}

/** The value as the query string carries it: a form-style array (`explode: false`) comma-separated. */
function serialized(parameter: Parameter, value: unknown): string {
  if (Array.isArray(value)) {
    expect(parameter.explode, `${parameter.name}: arrays are sent comma-separated`).toBe(false);
    return value.map(String).join(',');
  }
  return String(value);
}

/** The URL "Execute" requests: pre-filled values, with `choice` (a parameter's other example) where given. */
function tryItOutUrl(path: string, operation: Operation, choice?: { parameter: string; example: string }): string {
  let url = path;
  const query: string[] = [];
  for (const parameter of operation.parameters) {
    if (parameter.in === 'header') continue;
    const value = prefilled(parameter, choice?.parameter === parameter.name ? choice.example : undefined);
    if (value === undefined || value === '') {
      expect(parameter.required, `${operation.operationId}: required ${parameter.name} has no pre-filled value`).not.toBe(true);
      continue;
    }
    const text = encodeURIComponent(serialized(parameter, value));
    if (parameter.in === 'path') url = url.replace(`{${parameter.name}}`, text);
    else query.push(`${encodeURIComponent(parameter.name)}=${text}`);
  }
  return query.length ? `${url}?${query.join('&')}` : url;
}

/** A non-zero figure anywhere in the answer. */
function hasNonZeroNumber(value: unknown): boolean {
  if (typeof value === 'number') return value !== 0;
  if (value === null || typeof value !== 'object') return false;
  return Object.values(value).some(hasNonZeroNumber);
}

/** A non-empty list anywhere in the answer. */
function hasItems(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value === null || typeof value !== 'object') return false;
  return Object.values(value).some(hasItems);
}

/** The demo deletes nothing, so its tombstone list is empty whatever is sent. */
const EMPTY_ON_THE_DEMO: ReadonlySet<string> = new Set(['/api/v1/interactions/deleted']);

/** The dates and instants of the document: static, while the demo data are the last 90 days. */
const DATE_PARAMETERS: ReadonlySet<string> = new Set(['date_from', 'date_to', 'updated_since', 'since']);

describe('"Try it out" on /docs with the pre-filled values, on the demo data', () => {
  const db = testDb();
  const app = testApp(db);
  // The default seed (the demo's, whose ids the examples name) at a tenth of the demo's size.
  const options: SeedOptions = { interactions: 5_000 };
  const data = generateDemoData(options);
  let key: string;

  beforeAll(async () => {
    await seedDemoData(databaseUrl, { ...options, environment: 'sandbox' });
    // The demo key sees every sandbox clinic; this one only the seeded ones (other test files add
    // sandbox data of their own), with every scope as the demo key has (phi:read for search and q).
    key = await createKey(db, { environment: 'test', clinicIds: data.clinics.map((clinic) => clinic.id) });
  }, 120_000);

  it('names an interaction the demo data has, whatever their size and end', () => {
    // Interaction number 0, the only one of a demo of one interaction (ids depend on the index alone).
    for (const endDate of [new Date(), new Date('2025-01-01T00:00:00.000Z')]) {
      expect([...generateDemoData({ interactions: 1, endDate }).interactions()].map((i) => i.id)).toEqual([EXAMPLE_DEMO_INTERACTION_ID]);
    }
    expect([...data.interactions()].some((i) => i.id === EXAMPLE_DEMO_INTERACTION_ID)).toBe(true);
  });

  it('pre-fills no date (the data are relative to today), and every pre-filled value is valid for its parameter', () => {
    const ajv = new Ajv2020({ strict: false });
    formats.default(ajv);
    for (const [path, { get: operation }] of Object.entries(doc.paths)) {
      for (const parameter of operation.parameters) {
        expect(parameter, `${path} ${parameter.name}: inline, not a $ref`).toHaveProperty('name');
        if (DATE_PARAMETERS.has(parameter.name)) expect(prefilled(parameter), `${path} ${parameter.name}`).toBeUndefined();
        for (const name of parameter.examples ? Object.keys(parameter.examples) : [undefined]) {
          const value = prefilled(parameter, name);
          if (value === undefined) continue;
          expect(ajv.validate(parameter.schema ?? {}, value), `${path} ${parameter.name} = ${JSON.stringify(value)}: ${ajv.errorsText()}`).toBe(true);
        }
      }
    }
  });

  /** Every request a person gets by pressing Execute: as pre-filled, and with each other example picked from a list. */
  const requests = () =>
    Object.entries(doc.paths).flatMap(([path, { get: operation }]) => [
      { path, url: tryItOutUrl(path, operation) },
      ...operation.parameters.flatMap((parameter) =>
        Object.keys(parameter.examples ?? {})
          .slice(1)
          .map((example) => ({ path, url: tryItOutUrl(path, operation, { parameter: parameter.name, example }) })),
      ),
    ]);

  it('covers every route of the route table', () => {
    expect(new Set(requests().map((request) => request.path))).toEqual(new Set([API_INDEX_PATH, ...routes.map((route) => route.path)]));
  });

  it('answers every operation 200 with data', async () => {
    const seen: string[] = [];
    for (const { path, url } of requests()) {
      const response = await app.fetch(`http://localhost${url}`, { headers: { authorization: `Bearer ${key}` } });
      const body = (await response.json()) as { success: boolean; data?: unknown; meta?: { total: number | null } };
      expect(response.status, `${url}: ${JSON.stringify(body)}`).toBe(200);
      expect(body.success).toBe(true);
      seen.push(url);
      if (EMPTY_ON_THE_DEMO.has(path)) continue;
      const metrics = path.startsWith('/api/v1/metrics/');
      expect(metrics ? hasNonZeroNumber(body.data) : hasItems(body.data) || hasNonZeroNumber(body.data), `${url}: ${JSON.stringify(body)}`).toBe(true);
      if (body.meta?.total !== undefined) expect(body.meta.total, url).toBeGreaterThan(0);
    }
    // The interactions list with its filters' first examples together, as the page sends them.
    expect(seen).toContain('/api/v1/interactions?page=1&limit=25&outcome=APPOINTMENT_BOOKED&search=555&q=appointment&order=desc&include_total=true');
    expect(seen).toContain(`/api/v1/interactions/${EXAMPLE_DEMO_INTERACTION_ID}`);
    expect(seen).toContain('/api/v1/metrics/series?granularity=day');
  });
});
