// Hand-written SQL: running it on the Prisma client's own pool (`queryRows`), keeping it prepared
// under a stable name (`prepared`), and the small builders every statement uses (`and`, `instant`,
// `num`). Nothing here knows a table: the statements live with what they read (src/interactions,
// src/analytics, src/auth).
import { createHash } from 'node:crypto';
import type pg from 'pg';
import pgTypes from 'pg';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import type { DatabaseBounds } from './bounds.js';

/** The node-postgres pool beneath a client, on which `queryRows` runs hand-written SQL. */
export interface SqlPool {
  /** `query_timeout`: node-postgres's client-side bound for this query alone (readiness sets its own). */
  query(config: pg.QueryConfig & { query_timeout?: number }): Promise<pg.QueryResult>;
  /**
   * A statement on the readiness probe's own connection, outside the requests' pool and its queues
   * (`timeoutMs` bounds both getting the connection and the answer).
   */
  probe(text: string, timeoutMs: number): Promise<pg.QueryResult>;
  /** The name to prepare a text under (`prepared`), or undefined to run it unnamed. */
  statementName(text: string): string | undefined;
  /**
   * A connection of the pool for the caller alone, for work that spans statements or streams (an
   * export: src/rest/exports). Release it when done; released with an error, it is closed, not reused.
   */
  connect(): Promise<pg.PoolClient>;
  /** The pool's live counts (for the pool metrics). */
  readonly stats: Pick<pg.Pool, 'totalCount' | 'idleCount' | 'waitingCount'>;
  /** The bounds its connections were opened with; undefined: unbounded (a CLI's or a test's client). */
  readonly bounds?: DatabaseBounds;
}

export const SQL_POOL = Symbol('sqlPool');

/** The Prisma client with the pool beneath it (made by createPrismaClient in client.ts). */
export type Db = PrismaClient & { readonly [SQL_POOL]: SqlPool };

/** How a statement kept prepared begins: `/* prepared <label> *\/` (see `prepared`). */
const PREPARED_MARK = /^\/\* prepared ([a-z][a-z0-9_]*) \*\//;

/** At most this many distinct statements are kept prepared on each connection. */
const PREPARED_STATEMENTS_MAX = 200;

/**
 * `sql`, marked to be kept prepared on each connection that runs it: node-postgres then parses it
 * once per connection and afterwards sends only its parameters, and PostgreSQL skips parsing and
 * analysing its text and, once its plan cache has settled on a generic plan (after five runs),
 * planning it. For the metrics statements that was about as much of PostgreSQL's CPU per request
 * as executing a summary (bench/results/2026-11-23-design-measurements.md).
 *
 * `label` (lower case, digits, `_`) says what the statement is for: the text begins with it as a
 * comment, so `pg_stat_statements` shows it, and the statement's name in `pg_prepared_statements` is
 * the label and a hash of the text (`count_interactions_1f0c9a2e`): the same in every process and
 * after every restart, and distinct for each shape of a statement (a window split into more parts
 * is another text).
 *
 * Only for statements whose plan does not depend on the values bound: the metrics SQL reads the
 * small rollup tables and at most a day or two of the raw table by `started_at`, and rows looked up
 * by primary key are found the same way whatever the key. The other statements, Prisma's own queries
 * included, stay unnamed (planned for their values on every run): a generic plan for a page filtered
 * on a rare outcome, or for a LIMIT and OFFSET it cannot see, can be far worse than the custom one.
 */
export function prepared(label: string, sql: Prisma.Sql): Prisma.Sql {
  if (!/^[a-z][a-z0-9_]*$/.test(label)) throw new TypeError(`prepared: ${label} is not a statement label`);
  return Prisma.sql`${Prisma.raw(`/* prepared ${label} */`)} ${sql}`;
}

/**
 * Statement names: one per distinct text marked by `prepared`, none for the rest (node-postgres's
 * unnamed statement). The statements come in a bounded number of shapes (lists are bound as one
 * array parameter); past `max` texts further ones also run unnamed, so that neither this map nor
 * each connection's statements can grow without bound.
 */
export function statementNames(max = PREPARED_STATEMENTS_MAX): (text: string) => string | undefined {
  const names = new Map<string, string>();
  return (text) => {
    const label = PREPARED_MARK.exec(text)?.[1];
    if (label === undefined) return undefined;
    let name = names.get(text);
    if (name === undefined && names.size < max) {
      name = `${label}_${createHash('sha1').update(text).digest('hex').slice(0, 8)}`;
      names.set(text, name);
    }
    return name;
  };
}

/**
 * How node-postgres converts the columns of hand-written SQL: as Prisma's `$queryRaw` would, so that
 * queries read the same whichever runs them. int8 (counts and sums) as bigint, exact beyond 2^53;
 * a date as midnight UTC of that day (node-postgres's own parser reads it in the process's time
 * zone). The other types keep node-postgres's parsers: int4 and float8 as numbers, timestamptz as a
 * Date (read with its offset), arrays as arrays.
 */
const PRISMA_LIKE_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pgTypes.types.builtins.INT8) return (value: string) => BigInt(value);
    if (oid === pgTypes.types.builtins.DATE) return (value: string) => new Date(`${value}T00:00:00.000Z`);
    return pgTypes.types.getTypeParser(oid, format);
  },
} as const;

/**
 * The rows of hand-written SQL (`Prisma.sql`), run by node-postgres on the client's pool rather than
 * by `$queryRaw`. Prisma's raw queries go through its query interpreter and map every value of
 * every row into tagged values and back, about twice the service's CPU for a page of 25
 * interactions (bench/results/2026-11-23-design-measurements.md). Values come back as `$queryRaw` gives them
 * (PRISMA_LIKE_TYPES). A text marked by `prepared` runs as a named statement.
 */
export async function queryRows<T>(db: Db, sql: Prisma.Sql): Promise<T[]> {
  const pool = db[SQL_POOL];
  const result = await pool.query({ text: sql.text, values: sql.values as unknown[], name: pool.statementName(sql.text), types: PRISMA_LIKE_TYPES });
  return result.rows as T[];
}

/** The conditions joined by AND; TRUE when there are none. */
export function and(conditions: readonly Prisma.Sql[]): Prisma.Sql {
  return conditions.length ? Prisma.join(conditions, ' AND ') : Prisma.sql`TRUE`;
}

/** A column, qualified by its table's alias when the statement names the table so. */
export function columnOf(alias: string | undefined): (name: string) => Prisma.Sql {
  return (name) => Prisma.raw(alias ? `${alias}.${name}` : name);
}

/**
 * A timestamptz parameter for an instant, independent of the session's TimeZone: bound as an ISO
 * 8601 string with `Z`. (A JS Date bound directly is sent by the pg driver adapter as a wall-clock
 * string without an offset, which `::timestamptz` would read in the session's time zone.)
 */
export function instant(value: Date, name: string): Prisma.Sql {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new RangeError(`sql: ${name} is not a valid date`);
  }
  return Prisma.sql`${value.toISOString()}::timestamptz`;
}

/** A bigint / numeric / float result as a JS number (counts stay exact up to 2^53). */
export function num(value: bigint | number | string | null | undefined): number {
  if (value === null || value === undefined) return 0;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new TypeError(`sql: unexpected numeric value ${String(value)}`);
  return n;
}
