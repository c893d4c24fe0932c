// The REST facade runs fixed GraphQL documents: each is validated once, when the app starts, and a
// request only executes it (no parse, no validation). A plugin after the app's own counts what the
// envelop pipeline parses, validates and executes; the same query sent to /graphql shows that it
// would see a parse and a validation.
import type { DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../src/rest/routes.js';
import { createKey, expectNoErrors, graphql, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createClinic, createInteraction } from '../helpers/factories.js';
import { expectStatus, get } from './client.js';

const db = testDb();
const seen = { parses: 0, validations: 0, executed: [] as DocumentNode[] };
const counter: Plugin = {
  onParse: () => {
    seen.parses++;
  },
  onValidate: () => {
    seen.validations++;
  },
  onExecute: ({ args }) => {
    seen.executed.push(args.document);
  },
};
const app = testApp(db, { plugins: [counter] });

let key: string;
let interactionId: string;
let clinicId: string;
beforeAll(async () => {
  const clinic = await createClinic(db);
  clinicId = clinic.id;
  interactionId = (await createInteraction(db, { clinicId })).id;
  key = await createKey(db, { clinicIds: [clinicId] });
});

const reset = () => {
  seen.parses = 0;
  seen.validations = 0;
  seen.executed = [];
};

describe('fixed REST documents', () => {
  it('are executed as they are, with no parse or validation per request, at every endpoint', async () => {
    const paths = [
      '/api/v1/clinics',
      '/api/v1/campaigns',
      '/api/v1/interactions?limit=5',
      `/api/v1/interactions/${interactionId}`,
      '/api/v1/metrics/summary',
      '/api/v1/metrics/daily',
      '/api/v1/metrics/outcomes',
    ];
    reset();
    for (const round of [1, 2]) {
      for (const path of paths) expectStatus(await get(app, path, key), 200);
      expect(seen.executed, `round ${round}`).toHaveLength(paths.length * round);
    }
    expect(seen.parses).toBe(0);
    expect(seen.validations).toBe(0);
    // Every execution ran one of the routes' own document objects, not a copy parsed from text.
    const documents = new Set<DocumentNode>(routes.map((r) => r.document));
    expect(seen.executed.every((d) => documents.has(d))).toBe(true);
    expect(new Set(seen.executed).size).toBe(paths.length);
  });

  it('while the same query sent to /graphql is parsed and validated (the counter sees them)', async () => {
    reset();
    expectNoErrors(await graphql(app, { query: '{ clinics { nodes { id } } }', key }));
    expect(seen.parses).toBe(1);
    expect(seen.validations).toBe(1);
    expect(seen.executed).toHaveLength(1);
  });
});
