// The bench's baseline: plain node:http and a pg Pool answering the bench scenarios with
// hand-written SQL (handlers.ts) in the service's envelope. What a minimal implementation of the
// same contract costs, so that the service's figures can be read as ratios.
//
// Same authentication as the service: `Authorization: Bearer <key>`, looked up by the SHA-256 of
// the key on the unique index, answers cached for 5 s per key, `last_used_at` written at most once
// a minute per key, scopes and clinic restriction applied; no quotas (the bench's keys are of the
// Unlimited tier, which has none).
//
// Environment: DATABASE_URL (required), PORT (default 4100), HOST (127.0.0.1), DATABASE_POOL_SIZE
// (10, as the service), WORKERS (processes, default 1, as node:cluster workers).
import cluster from 'node:cluster';
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';
import {
  BadRequest,
  graphqlOperation,
  listInteractions,
  metricsBreakdown,
  metricsDaily,
  metricsDurations,
  metricsOutcomes,
  metricsSeries,
  metricsSummary,
  type Principal,
  type Query,
  type Result,
} from './handlers.js';

const DATABASE_URL = process.env.DATABASE_URL;
const PORT = Number(process.env.PORT ?? 4100);
const HOST = process.env.HOST ?? '127.0.0.1';
const POOL_SIZE = Number(process.env.DATABASE_POOL_SIZE ?? 10);
const WORKERS = Math.max(1, Number(process.env.WORKERS ?? 1) || 1);

interface Route {
  scope: string;
  params: string[];
  handle(pool: pg.Pool, query: Query, key: Principal): Promise<Result>;
}

const FILTERS = ['date_from', 'date_to', 'clinic_id', 'channel'];
/** What every metrics endpoint takes besides its filters: the zone of its dates and a comparison. */
const ZONED = [...FILTERS, 'timezone', 'compare'];
const ROUTES: Record<string, Route> = {
  '/api/v1/interactions': {
    scope: 'interactions:read',
    params: ['page', 'limit', 'date_from', 'date_to', 'channel', 'type', 'outcome', 'clinic_id', 'search'],
    handle: listInteractions,
  },
  '/api/v1/metrics/summary': { scope: 'metrics:read', params: ZONED, handle: metricsSummary },
  '/api/v1/metrics/daily': { scope: 'metrics:read', params: [...ZONED, 'type'], handle: metricsDaily },
  '/api/v1/metrics/outcomes': { scope: 'metrics:read', params: [...ZONED, 'type'], handle: metricsOutcomes },
  '/api/v1/metrics/series': { scope: 'metrics:read', params: [...ZONED, 'type', 'granularity'], handle: metricsSeries },
  '/api/v1/metrics/breakdown': {
    scope: 'metrics:read',
    params: ['group_by', ...FILTERS, 'campaign_id', 'type', 'timezone', 'page', 'limit'],
    handle: metricsBreakdown,
  },
  '/api/v1/metrics/durations': { scope: 'metrics:read', params: [...FILTERS, 'campaign_id', 'type', 'timezone'], handle: metricsDurations },
};

const WELL_FORMED = /^svc_(live|test)_[0-9A-Za-z]{40}$/;
const KEY_TTL_MS = 5_000;
const TOUCH_INTERVAL_MS = 60_000;

interface KeyRow {
  id: string;
  scopes: string[] | null;
  clinic_ids: string[] | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

function createAuth(pool: pg.Pool) {
  const cache = new Map<string, { row: KeyRow | null; at: number }>();
  const touched = new Map<string, number>();
  return async (header: string | undefined): Promise<{ key: Principal } | { status: 401; code: string; message: string }> => {
    const token = /^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1];
    if (!token) return { status: 401, code: 'UNAUTHORIZED', message: 'Missing Authorization header: expected "Bearer <API key>"' };
    if (!WELL_FORMED.test(token)) return { status: 401, code: 'INVALID_API_KEY', message: 'Invalid API key' };
    const hash = createHash('sha256').update(token, 'utf8').digest('hex');
    const now = Date.now();
    let entry = cache.get(hash);
    if (!entry || now - entry.at >= KEY_TTL_MS) {
      const { rows } = await pool.query<KeyRow>('SELECT id, scopes, clinic_ids, expires_at, revoked_at FROM api_keys WHERE hash = $1', [hash]);
      entry = { row: rows[0] ?? null, at: now };
      cache.set(hash, entry);
      if (cache.size > 10_000) cache.delete(cache.keys().next().value!);
    }
    const row = entry.row;
    if (!row || row.revoked_at) return { status: 401, code: 'INVALID_API_KEY', message: 'Invalid API key' };
    if (row.expires_at && row.expires_at.getTime() <= now) return { status: 401, code: 'API_KEY_EXPIRED', message: 'API key has expired' };
    if (now - (touched.get(row.id) ?? 0) >= TOUCH_INTERVAL_MS) {
      touched.set(row.id, now);
      pool
        .query('UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)', [row.id, new Date(now).toISOString()])
        .catch(() => {});
    }
    return { key: { id: row.id, scopes: row.scopes ?? [], clinicIds: row.clinic_ids?.length ? row.clinic_ids : null } };
  };
}

function send(res: http.ServerResponse, status: number, body: Record<string, unknown>, requestId: string, extra: Record<string, string> = {}): void {
  const text = JSON.stringify({ ...body, request_id: requestId, timestamp: new Date().toISOString() });
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': requestId, 'Cache-Control': 'no-store', ...extra });
  res.end(text);
}

const fail = (res: http.ServerResponse, status: number, code: string, message: string, requestId: string, details?: unknown) =>
  send(res, status, { success: false, error: details ? { code, message, details } : { code, message } }, requestId);

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > 100_000) req.destroy();
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

function start(): void {
  if (!DATABASE_URL) throw new Error('DATABASE_URL is required');
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: POOL_SIZE, options: '-c TimeZone=UTC' });
  pool.on('error', () => {});
  const authenticate = createAuth(pool);

  const server = http.createServer(async (req, res) => {
    const requestId = randomUUID();
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === '/health/ready') return send(res, 200, { status: 'ok' }, requestId);
      const route = ROUTES[url.pathname.replace(/\/+$/, '')];
      const graphql = url.pathname === '/graphql';
      if (!route && !graphql) return fail(res, 404, 'NOT_FOUND', 'No such endpoint', requestId);
      if (route && req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('Allow', 'GET, HEAD');
        return fail(res, 405, 'METHOD_NOT_ALLOWED', 'Method not allowed', requestId);
      }
      const auth = await authenticate(req.headers.authorization);
      if (!('key' in auth)) {
        res.setHeader('WWW-Authenticate', 'Bearer');
        return fail(res, auth.status, auth.code, auth.message, requestId);
      }
      if (graphql) {
        const body = req.method === 'POST' ? await readBody(req) : '';
        let document = '';
        try {
          document = String((JSON.parse(body) as { query?: unknown }).query ?? '');
        } catch {}
        const operation = graphqlOperation(document);
        if (!operation) return fail(res, 400, 'VALIDATION_ERROR', "The baseline answers only the bench's documents", requestId);
        if (!operation.scopes.every((scope) => auth.key.scopes.includes(scope))) return fail(res, 403, 'INSUFFICIENT_SCOPE', 'Insufficient scope', requestId);
        const result = JSON.stringify(await operation.answer(pool, auth.key));
        res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
        return void res.end(result);
      }
      if (!route) return;
      if (!auth.key.scopes.includes(route.scope)) {
        return fail(res, 403, 'INSUFFICIENT_SCOPE', `This endpoint needs the scope ${route.scope}`, requestId, { required_scope: route.scope });
      }
      const query: Query = {};
      const problems: Record<string, string> = {};
      for (const [name, value] of url.searchParams) {
        if (!route.params.includes(name)) problems[name] = 'unknown parameter';
        else if (name in query) problems[name] = 'must be given once';
        else query[name] = value;
      }
      if (Object.keys(problems).length) return fail(res, 400, 'VALIDATION_ERROR', 'Invalid query parameters', requestId, problems);
      const result = await route.handle(pool, query, auth.key);
      send(res, 200, result.meta ? { success: true, data: result.data, meta: result.meta } : { success: true, data: result.data }, requestId);
    } catch (error) {
      if (error instanceof BadRequest) return fail(res, 400, 'VALIDATION_ERROR', 'Invalid query parameters', requestId, error.problems);
      console.error(error);
      fail(res, 500, 'INTERNAL_ERROR', 'Internal error', requestId);
    }
  });
  server.listen(PORT, HOST, () => {
    if (cluster.isPrimary) console.log(`Baseline listening on http://${HOST}:${PORT}`);
  });
  const stop = () => {
    server.close();
    server.closeAllConnections();
    void pool.end().finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (WORKERS > 1 && cluster.isPrimary) {
  for (let i = 0; i < WORKERS; i++) cluster.fork();
  console.log(`Baseline listening on http://${HOST}:${PORT} (${WORKERS} workers)`);
  const stop = () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill('SIGTERM');
    setTimeout(() => process.exit(0), 2_000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else {
  start();
}
