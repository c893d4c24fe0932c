// Every Query field declares what it costs the database where it is declared (builder.ts
// DatabaseCost), and so does every other field that reads it (NestedDatabaseCost); the per-field
// rate limits and the concurrency limit are derived from those declarations: a field cannot be
// added without one, and a field declared to read nothing (or declaring nothing) must not read.
import fs from 'node:fs';
import { type GraphQLField, type GraphQLObjectType, getNamedType, isLeafType, isNonNullType, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config.js';
import { createPrismaClient } from '../../src/db/client.js';
import { databaseCosts, nestedDatabaseCosts } from '../../src/graphql/builder.js';
import { FIELD_RATE_LIMITS, schema } from '../../src/graphql/index.js';
import { createKey, graphql, testApp } from '../helpers/app.js';
import { databaseUrl } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';

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

  it("docs/graphql.md's table of nested fields says what each one that reads declares", () => {
    const docs = fs.readFileSync(`${projectRoot}/docs/graphql.md`, 'utf8');
    const rows = [...docs.matchAll(/^\| `(\w+\.\w+)` \| (\d+|with its parent) \|$/gm)].map(([, name, units]) => `${name}: ${units}`);
    const declared = [...nestedDatabaseCosts(schema)].flatMap(([name, cost]) =>
      cost.readsDatabase ? [`${name}: ${'units' in cost ? cost.units : 'with its parent'}`] : [],
    );
    expect(rows.toSorted()).toEqual(declared.toSorted());
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

/** One field of a document's path: the field of `type`. */
interface Step {
  type: GraphQLObjectType;
  field: GraphQLField<unknown, unknown>;
}

const nameOf = ({ type, field }: Step) => `${type.name}.${field.name}`;

/**
 * The paths from Query to each object type, one per field that returns it (each through the
 * shortest path to that field's own type): a type reached by several fields is read differently by
 * each (a page's rows by the page's reader, a nested list's by a batch, an object by id), and a
 * field beneath it may read on one path and not on another.
 */
function pathsInto(): Map<GraphQLObjectType, Step[][]> {
  const query = schema.getQueryType()!;
  const shortest = new Map<GraphQLObjectType, Step[]>([[query, []]]);
  const queue = [query];
  for (let type = queue.shift(); type; type = queue.shift()) {
    for (const field of Object.values(type.getFields())) {
      const target = getNamedType(field.type);
      if (isObjectType(target) && !shortest.has(target)) {
        shortest.set(target, [...shortest.get(type)!, { type, field }]);
        queue.push(target);
      }
    }
  }
  const into = new Map<GraphQLObjectType, Step[][]>([[query, [[]]]]);
  for (const [type, path] of shortest) {
    for (const field of Object.values(type.getFields())) {
      const target = getNamedType(field.type);
      if (isObjectType(target)) into.set(target, [...(into.get(target) ?? []), [...path, { type, field }]]);
    }
  }
  return into;
}

describe('every field of every object type reachable from Query', () => {
  it('declares the database reads its selection adds: reading ones declare them, the others read nothing', async () => {
    // Statements about the key (authentication, its last use, recorded at most once a minute) are
    // the same with and without a field, and may land in a later request: not counted.
    const statements: string[] = [];
    const db = createPrismaClient(databaseUrl, 2, { onStatement: (text) => (/api_keys/.test(text) ? undefined : statements.push(text)) });
    try {
      // One of everything, in the default windows of lists and metrics (the last 30 days).
      const yesterday = new Date(Date.now() - 86_400_000);
      const clinic = await createClinic(db);
      const campaign = await createCampaign(db, clinic.id);
      const interaction = await createInteraction(db, {
        clinicId: clinic.id,
        campaignId: campaign.id,
        startedAt: yesterday,
        transcript: [
          { role: 'assistant', content: 'Shall I book your appointment for Monday?' },
          { role: 'user', content: 'Yes, please.' },
        ],
      });
      // A tombstone for deletedInteractions.
      const deleted = await createInteraction(db, { clinicId: clinic.id, startedAt: yesterday });
      await db.interaction.delete({ where: { id: deleted.id } });
      const app = testApp(db);
      const key = await createKey(db, { clinicIds: [clinic.id] });

      // Required arguments: the fixture's ids by the type a field returns; and the arguments a field
      // needs to answer, or to answer what its fields read (a comparison window, a search's text).
      const ids: Record<string, string> = { Clinic: clinic.id, Campaign: campaign.id, Interaction: interaction.id };
      const needed: Record<string, string> = {
        'Query.metricsSeries': 'granularity: DAY, compare: PREVIOUS_PERIOD',
        'Query.metricsBreakdown': 'groupBy: [CLINIC, CAMPAIGN]',
        'Query.metricsSummary': 'compare: PREVIOUS_PERIOD',
        'Query.metricsDailyReport': 'compare: PREVIOUS_PERIOD',
        'Query.metricsOutcomes': 'compare: PREVIOUS_PERIOD',
      };
      const call = (step: Step): string => {
        const args = needed[nameOf(step)] ? [needed[nameOf(step)]] : [];
        for (const arg of step.field.args) {
          if (arg.name === 'text') args.push('text: "appointment"');
          else if (isNonNullType(arg.type)) {
            const id = ids[getNamedType(step.field.type).name];
            if (arg.name !== 'id' || !id) throw new Error(`${nameOf(step)}(${arg.name}:) is required: give it a value here`);
            args.push(`id: "${id}"`);
          }
        }
        return args.length ? `${step.field.name}(${args.join(', ')})` : step.field.name;
      };
      const documentOf = (path: Step[], extra: string) => `{ ${path.reduceRight((inner, step) => `${call(step)} { ${inner} }`, `__typename ${extra}`)} }`;
      const run = async (query: string) => {
        const before = statements.length;
        const response = await graphql(app, { key, query });
        expect(response.body.errors, query).toBeUndefined();
        return { sent: statements.length - before, data: response.body.data };
      };
      /** Whether the path's last object is in the answer (a field beneath a null, or an empty list, never runs). */
      const reaches = (data: unknown, path: Step[]): boolean => {
        let values = [data];
        for (const { field } of path) values = values.flatMap((value) => (value as Record<string, unknown> | null)?.[field.name] ?? []).flat();
        return values.length > 0;
      };

      const declared = new Map<string, unknown>([
        ...[...databaseCosts(schema)].map(([name, cost]) => [`Query.${name}`, cost] as const),
        ...nestedDatabaseCosts(schema),
      ]);
      const reads = new Map<string, string[]>();
      const checked = new Set<string>();
      const failures: string[] = [];
      for (const [type, paths] of pathsInto()) {
        for (const path of paths) {
          // Twice: the first run of a document may fill the process's caches (a zone's name, the cursor key).
          await run(documentOf(path, ''));
          const baseline = await run(documentOf(path, ''));
          if (!reaches(baseline.data, path)) continue;
          const via = path.map(nameOf).join(' > ') || 'the root';
          for (const field of Object.values(type.getFields())) {
            const name = nameOf({ type, field });
            const selection = isLeafType(getNamedType(field.type)) ? call({ type, field }) : `${call({ type, field })} { __typename }`;
            let { sent } = await run(documentOf(path, selection));
            const cost = declared.get(name) as { readsDatabase: boolean } | undefined;
            // Confirmed with warm caches before it is called a read the field does not declare.
            if (sent > baseline.sent && !cost?.readsDatabase) sent = (await run(documentOf(path, selection))).sent;
            checked.add(name);
            if (sent > baseline.sent) {
              reads.set(name, [...(reads.get(name) ?? []), via]);
              if (!cost?.readsDatabase)
                failures.push(`${name} adds ${sent - baseline.sent} statement(s) under ${via} but declares ${JSON.stringify(cost) ?? 'nothing'}`);
            }
          }
        }
      }
      for (const type of pathsInto().keys()) {
        for (const field of Object.values(type.getFields())) {
          const name = nameOf({ type, field });
          if (!checked.has(name))
            failures.push(`${name} was never reached (its parent null or empty on every path): give the fixture or arguments that reach it`);
        }
      }
      // A nested field declared to read is seen reading on some path (root fields' pages read lazily, beneath them).
      for (const [name, cost] of nestedDatabaseCosts(schema)) {
        if (cost.readsDatabase && !reads.has(name)) failures.push(`${name} declares reads but sent no statement on any path`);
      }
      expect(failures).toEqual([]);
      // What the reads look like: a nested list reads on its own; a row's transcript is read with a
      // root page's rows, and by a statement of its own for the rows of a nested list.
      expect(reads.size).toBeGreaterThan(30);
      expect(reads.get('Clinic.interactions')).toContain('Query.clinic');
      expect(reads.get('Interaction.transcript')).toEqual(expect.arrayContaining(['Query.clinic > Clinic.interactions']));
      expect(reads.get('Interaction.transcript')).not.toContain('Query.interactions > InteractionPage.nodes');
    } finally {
      await db.$disconnect();
    }
  });
});
