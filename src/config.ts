// Environment variables, parsed once. Every problem is reported together so an operator fixes
// them in one go rather than one restart at a time.
import fs from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/**
 * The folder holding package.json: `src/..` when run from source (tsx), `dist/src/../..` when run
 * compiled (`npm start` runs the `tsc` output in dist/). prisma/, schema/ and .data/ are found from it.
 */
function findProjectRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`No package.json above ${start}: cannot locate the project's files`);
  }
}

export const projectRoot = findProjectRoot(path.dirname(fileURLToPath(import.meta.url)));

/** Where the embedded PostgreSQL's files go when DATA_DIR is unset (for the server and the CLI alike). */
export const DEFAULT_DATA_DIR = path.join(projectRoot, '.data');

/** Which hops are our proxies: the nearest `hops` (1: the TCP peer is a proxy) and any address in `ranges`. */
export interface ProxyTrust {
  hops: number;
  /** Addresses or CIDR ranges (`10.0.0.0/8`, `127.0.0.1`, `fd00::/8`). */
  ranges: readonly string[];
}

const MAX_HOPS = 32;

/**
 * Reads TRUST_PROXY: `false`/`0` (default), `true` (= 1), a hop count, and/or addresses and CIDR
 * ranges, comma-separated (`10.0.0.0/8,127.0.0.1`; `1,10.0.0.0/8` trusts the peer and that range).
 * Every bad entry is reported.
 */
function parseTrustProxy(text: string): { trust: false | ProxyTrust; problems: string[] } {
  const value = text.trim().toLowerCase();
  if (value === 'false' || value === '0') return { trust: false, problems: [] };
  if (value === 'true') return { trust: { hops: 1, ranges: [] }, problems: [] };
  const problems: string[] = [];
  let hops = 0;
  const ranges: string[] = [];
  for (const entry of value.split(',').map((e) => e.trim())) {
    if (/^\d+$/.test(entry)) {
      const n = Number(entry);
      if (n < 1 || n > MAX_HOPS) problems.push(`hop count ${entry} must be between 1 and ${MAX_HOPS}`);
      else if (hops) problems.push('gives more than one hop count');
      else hops = n;
      continue;
    }
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(address);
    const maxPrefix = family === 6 ? 128 : 32;
    if (!family || extra !== undefined || (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix))) {
      problems.push(`"${entry}" is not true, false, a hop count, an IP address or a CIDR range`);
    } else ranges.push(entry);
  }
  return problems.length ? { trust: false, problems } : { trust: { hops, ranges }, problems: [] };
}

const postgresUrl = z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL');

const databaseSchema = z.object({
  DATABASE_URL: postgresUrl.optional(),
  DATA_DIR: z.string().min(1).default(DEFAULT_DATA_DIR),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  // Bounds on the server's database work (db/client.ts DatabaseBounds); 0 turns one off.
  /** Getting a connection: a free one from the pool, or a new one opened (TCP, start-up, authentication). */
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(2_000),
  /** A query unanswered this long on the client's clock fails and its connection is closed. */
  DATABASE_QUERY_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  /** PostgreSQL cancels a statement running this long (statement_timeout); below the query timeout, so the server answers first. */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(4_000),
  /** /health/ready answers 503 when the database has not answered within this. */
  DATABASE_READY_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(1_500),
  /**
   * Connections of the pool one API key may hold at once, so that others always find some (the
   * rest of its work waits in its own queue; db/client.ts). 0: half the pool, at least 1.
   */
  DATABASE_CONNECTIONS_PER_KEY: z.coerce.number().int().min(0).max(200).default(0),
});

const logSchema = z.object({
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `json`: one JSON object a line (for log collectors); `pretty`: readable lines for a terminal. */
  LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
});

const serverSchema = logSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Bearer token for GET /metrics; unset: /metrics answers 404. */
  METRICS_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  /** How long a request waits for Redis before counting in memory (see limits/redis-breaker.ts). */
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(500),
  /** Consecutive Redis failures or timeouts after which requests count in memory without asking Redis. */
  REDIS_BREAKER_FAILURES: z.coerce.number().int().min(1).max(1_000).default(3),
  /** How long requests count in memory after that before Redis is probed again. */
  REDIS_BREAKER_COOLDOWN_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  WORKERS: z.coerce.number().int().min(1).max(64).default(1),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /** Which hops are our proxies (parseTrustProxy above; http/app-plugins.ts applies it): false, true (= 1 hop), a hop count and/or addresses and CIDR ranges. */
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((text, context) => {
      const { trust, problems } = parseTrustProxy(text);
      for (const problem of problems) context.addIssue({ code: 'custom', message: problem });
      return trust;
    }),
  /** Longest time a client has to send a whole request, headers and body (Node answers 408 after it). */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
  /** Longest time a client has to send the request line and headers; capped at the request timeout. */
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(10_000),
  /** How long an idle keep-alive connection stays open; above a load balancer's idle timeout when behind one. */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(5_000),
  /** Open connections per serving process; further ones are closed at once. */
  HTTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
  /**
   * Units of database work (a GraphQL document's root fields by their declared cost; a REST request
   * is one) an API key of each tier may have running at once in this process; more are answered
   * 429. 0: no limit for that tier.
   */
  KEY_CONCURRENCY_STANDARD: z.coerce.number().int().min(0).max(1_000).default(4),
  KEY_CONCURRENCY_PREMIUM: z.coerce.number().int().min(0).max(1_000).default(8),
  KEY_CONCURRENCY_UNLIMITED: z.coerce.number().int().min(0).max(1_000).default(0),
  /**
   * The heavy lane (limits/heavy-lane.ts): requests with a field of 2 units or more are served by a
   * worker thread with this many database connections of its own (beside DATABASE_POOL_SIZE). 0: no
   * worker; they are served on the main thread, in time slices.
   */
  HEAVY_LANE_CONNECTIONS: z.coerce.number().int().min(0).max(100).default(3),
  /**
   * The heavy lane's thread's nice value: 0 competes with the main thread as an equal, 19 runs on what
   * it leaves (in the soak at 10, the main thread's /health/live p99 was 111 ms; at 19, 77 ms).
   */
  HEAVY_LANE_NICE: z.coerce.number().int().min(0).max(19).default(19),
  /**
   * Keep clinics and campaigns in memory until PostgreSQL says they changed (db/client.ts,
   * CatalogCache; a LISTEN connection per process). Off behind a pooler in transaction mode, which
   * does not deliver notifications: every request then reads them.
   */
  CATALOG_CACHE: z.enum(['on', 'off']).default('on'),
  /** Exports of interactions running at once per serving process (each holds a database connection); more are answered 503. */
  EXPORT_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(2),
  /**
   * Of those, how many one API key may run at once; more are answered 429. Never all of them when
   * EXPORT_CONCURRENCY is above 1 (a larger value counts as EXPORT_CONCURRENCY - 1).
   */
  EXPORT_CONCURRENCY_PER_KEY: z.coerce.number().int().min(1).max(100).default(1),
  /** An export whose client reads nothing for this long is ended (its query stopped). */
  EXPORT_STALL_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
  /** Longest an export of interactions may run in PostgreSQL (its statement_timeout). */
  EXPORT_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(3_600_000),
});

/**
 * OpenTelemetry's standard variables for tracing (observability/tracing.ts), checked here like the
 * rest; tracing is off unless an endpoint is set. OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
 * OTEL_EXPORTER_OTLP_HEADERS/_TIMEOUT and OTEL_BSP_* are free-form and read by the SDK itself.
 */
const httpUrl = z.string().regex(/^https?:\/\/\S+$/i, 'must be an http:// or https:// URL');

const tracingSchema = z.object({
  OTEL_SDK_DISABLED: z
    .string()
    .regex(/^(true|false)$/i, 'must be true or false')
    .transform((value) => value.toLowerCase() === 'true')
    .default(false),
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl.optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl.optional(),
  /** `none` turns tracing off even with an endpoint set (the SDK's other exporters are not offered). */
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none']).default('otlp'),
  OTEL_TRACES_SAMPLER: z
    .enum(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'])
    .default('parentbased_always_on'),
  /** The ratio of the *traceidratio samplers (default 1). */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
});

export type DatabaseConfig = z.infer<typeof databaseSchema>;
export type TracingConfig = z.infer<typeof tracingSchema>;
export type LogConfig = z.infer<typeof logSchema>;
export type ServerConfig = z.infer<typeof serverSchema>;
export type Config = DatabaseConfig & ServerConfig & TracingConfig;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Empty strings count as unset, as in most shells' `VAR= command`. */
function withoutEmpty(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
}

function parse<T extends z.ZodType>(schema: T, env: Env): z.infer<T> {
  const result = schema.safeParse(withoutEmpty(env));
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  return result.data;
}

export function loadDatabaseConfig(env: Env = process.env): DatabaseConfig {
  return parse(databaseSchema, env);
}

/** Only the logging variables (what the app's default logger needs). */
export function loadLogConfig(env: Env = process.env): LogConfig {
  return parse(logSchema, env);
}

export function loadConfig(env: Env = process.env): Config {
  return parse(databaseSchema.extend(serverSchema.shape).extend(tracingSchema.shape), env);
}
