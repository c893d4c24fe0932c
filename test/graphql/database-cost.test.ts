// Every Query field declares what it costs the database where it is declared (builder.ts
// DatabaseCost), and the per-field rate limits and the concurrency limit are derived from those
// declarations: a field cannot be added without one, and a field declared to read nothing must not.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config.js';
import { createPrismaClient } from '../../src/db/client.js';
import { schema } from '../../src/graphql/index.js';
import { databaseCosts, FIELD_RATE_LIMITS } from '../../src/graphql/use-query-limits.js';
import { createKey, graphql, testApp } from '../helpers/app.js';
import { databaseUrl } from '../helpers/db.js';

const queryFields = Object.entries(schema.getQueryType()!.getFields());

describe('Query fields and their declared database cost', () => {
  it('every Query field of the built schema declares one', () => {
    const undeclared = queryFields
      .filter(([, field]) => !(field.extensions as { pothosOptions?: { databaseCost?: unknown } }).pothosOptions?.databaseCost)
      .map(([name]) => name);
    expect(undeclared).toEqual([]);
    expect([...databaseCosts(schema).keys()]).toEqual(queryFields.map(([name]) => name));
  });

  it('every field that reads the database has a per-field rate limit and at least one unit', () => {
    const reading = [...databaseCosts(schema)].filter(([, cost]) => cost.readsDatabase);
    expect(reading.length).toBeGreaterThan(10);
    for (const [name, cost] of reading) {
      expect(cost.readsDatabase && (typeof cost.units !== 'number' || cost.units >= 1) && cost.perSecond >= 1, name).toBe(true);
      expect(FIELD_RATE_LIMITS.find((limit) => limit.field === name)?.max, name).toBe(cost.readsDatabase ? cost.perSecond : undefined);
    }
    // Fields of the metrics and search families that had no limit before.
    for (const name of ['metricsSeries', 'metricsDailyReport', 'interactionsConnection', 'deletedInteractions']) {
      expect(
        FIELD_RATE_LIMITS.some((limit) => limit.field === name),
        name,
      ).toBe(true);
    }
  });

  it("docs/graphql.md's table says what each field declares", () => {
    const docs = fs.readFileSync(`${projectRoot}/docs/graphql.md`, 'utf8');
    const rows = [...docs.matchAll(/^\| `(\w+)` \| (\d+|1 per [\d,]+ \w+)(?: \(reads nothing\))? \| (\d+|no limit) \|$/gm)].map(
      ([, name, units, perSecond]) => [name, /^\d+$/.test(units!) ? Number(units) : units, perSecond === 'no limit' ? undefined : Number(perSecond)],
    );
    expect(rows).toEqual(
      [...databaseCosts(schema)].map(([name, cost]) => [
        name,
        cost.readsDatabase ? (typeof cost.units === 'number' ? cost.units : cost.units.text) : 0,
        cost.readsDatabase ? cost.perSecond : undefined,
      ]),
    );
  });

  it('a field declared to read nothing sends no statement', async () => {
    const statements: string[] = [];
    const db = createPrismaClient(databaseUrl, 2, { onStatement: (text) => statements.push(text) });
    try {
      const app = testApp(db);
      const key = await createKey(db);
      const free = [...databaseCosts(schema)].filter(([, cost]) => !cost.readsDatabase).map(([name]) => name);
      expect(free).toEqual(['viewer']);
      // The same request with and without the fields: authentication and context cost the same.
      const count = async (query: string) => {
        const before = statements.length;
        const response = await graphql(app, { key, query });
        expect(response.body.errors).toBeUndefined();
        return statements.length - before;
      };
      // The key's first request also records its use; the comparison is between later ones.
      await count('{ __typename }');
      const baseline = await count('{ __typename }');
      expect(await count('{ __typename viewer { name tier scopes quota { minute { limit remaining } } } }')).toBe(baseline);
    } finally {
      await db.$disconnect();
    }
  });
});
