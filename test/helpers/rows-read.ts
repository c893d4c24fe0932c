// What a request costs the database, counted rather than timed: the hand-written statements the
// app sends (through the SQL pool beneath the Prisma client) are recorded, then each is run again
// under EXPLAIN ANALYZE and the rows its plan reads from the data tables are summed. A count does
// not depend on the machine's load, so a test can assert "reads no more than this" at any size.
import { expect } from 'vitest';
import type { Db } from '../../src/db/client.js';
import { SQL_POOL, type SqlPool } from '../../src/db/client.js';
import { sql } from './db.js';

export interface Statement {
  text: string;
  values: unknown[];
}

/** `db` whose hand-written statements are added to `statements` as they are sent. */
export function recording(db: Db): { db: Db; statements: Statement[] } {
  const statements: Statement[] = [];
  const pool = db[SQL_POOL];
  const sqlPool: SqlPool = {
    ...pool,
    statementName: (text) => pool.statementName(text),
    query: (config) => {
      statements.push({ text: config.text, values: [...((config.values as unknown[] | undefined) ?? [])] });
      return pool.query(config);
    },
    connect: () => pool.connect(),
    get stats() {
      return pool.stats;
    },
  };
  return { db: new Proxy(db, { get: (target, prop, receiver) => (prop === SQL_POOL ? sqlPool : Reflect.get(target, prop, receiver)) }), statements };
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** The data tables and their indexes (everything whose name begins with `interaction`): what is counted unless told. */
export const DATA_TABLES = /^interaction/;

/** Rows a plan's nodes read from the data tables (kept or filtered out), per table or index. */
function rowsOf(node: PlanNode, into: Map<string, number>, tables: RegExp): void {
  const name = node['Relation Name'] ?? node['Index Name'];
  if (name !== undefined && tables.test(name)) {
    const loops = node['Actual Loops'] ?? 0;
    const perLoop = (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
    into.set(name, (into.get(name) ?? 0) + Math.round(perLoop * loops));
  }
  for (const child of node.Plans ?? []) rowsOf(child, into, tables);
}

/** Runs `statement` again under EXPLAIN ANALYZE: the rows it reads from the data tables, by table or index. */
export async function rowsReadBy(statement: Statement, tables = DATA_TABLES): Promise<Map<string, number>> {
  const [row] = await sql<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, statement.values);
  const into = new Map<string, number>();
  for (const plan of row?.['QUERY PLAN'] ?? []) rowsOf(plan.Plan, into, tables);
  return into;
}

/** Whether a recorded statement only reads (only those are run again). */
const READS = /^\s*(\/\*[^*]*\*\/\s*)?(SELECT|WITH)\b/i;

/** The rows the statements read from the data tables, in all and per statement (for the failure message). */
export async function rowsRead(statements: readonly Statement[], tables = DATA_TABLES): Promise<{ total: number; detail: string[] }> {
  let total = 0;
  const detail: string[] = [];
  for (const statement of statements) {
    if (!READS.test(statement.text) || !/\binteraction/.test(statement.text)) continue;
    const read = await rowsReadBy(statement, tables);
    const n = [...read.values()].reduce((sum, x) => sum + x, 0);
    total += n;
    if (n > 0) detail.push(`${n} rows (${[...read].map(([k, v]) => `${k}: ${v}`).join(', ')}) by ${statement.text.replace(/\s+/g, ' ').slice(0, 200)}`);
  }
  return { total, detail };
}

/** Runs `request` with `recorder`'s statements cleared, then asserts they read at most `max` data rows. */
export async function expectReadsAtMost<T>(
  recorder: { statements: Statement[] },
  max: number,
  request: () => Promise<T>,
  label = '',
  tables = DATA_TABLES,
): Promise<T> {
  recorder.statements.length = 0;
  const result = await request();
  const { total, detail } = await rowsRead(recorder.statements, tables);
  expect(total, `${label}: ${detail.join('\n')}`).toBeLessThanOrEqual(max);
  return result;
}
