// Liveness and readiness probes: no key needed, never rate limited or counted.
// Live: the process answers. Ready: not shutting down, the database answers within the readiness
// budget, and it has every committed migration (checked until it is true once; migrations are
// never un-applied).
import type { Db } from '../db/client.js';
import { SQL_POOL } from '../db/client.js';
import { listMigrations } from '../db/migrate.js';
import type { Page } from './app-plugins.js';
import type { Lifecycle } from './lifecycle.js';

type Check = 'ok' | 'down' | 'pending' | 'draining';

/** How long readiness waits for the database when the client sets no bound of its own (DatabaseBounds.readyTimeoutMs). */
export const DEFAULT_READY_TIMEOUT_MS = 1_500;

const TIMED_OUT = Symbol('timedOut');

/** `work`, or TIMED_OUT once `ms` have passed without it settling. */
async function within<T>(work: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(resolve, ms, TIMED_OUT);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** /health/live and /health/ready (app-plugins.ts calls it for their paths alone). */
export function healthPage(db: Db, lifecycle?: Lifecycle): Page<'health'> {
  const committed = listMigrations().migrationDirectories.map((d) => d.path);
  const pool = db[SQL_POOL];
  // A probe must fail fast, well before an orchestrator's probe timeout: a hung database is "not
  // ready" within this budget, not after the request bounds (connect, then query) run out.
  const budgetMs = pool.bounds?.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  let migrated = false;

  /**
   * One statement, on the probe's own connection: requests may keep every connection of the pool
   * busy (one key's saturation, or all of them), and a probe waiting behind them would pull a
   * serving instance out of its balancer. A database that does not answer still fails it.
   */
  async function rows<T>(text: string): Promise<T[]> {
    // The statement's own query_timeout frees the connection once the budget is spent, so probes
    // against a hung database do not pile up. Waiting for the connection is bounded by the race
    // in checkDatabase (and by the probe pool's connect timeout behind it).
    return (await pool.probe(text, budgetMs)).rows as T[];
  }

  async function queryDatabase(): Promise<{ database: Check; migrations: Check }> {
    if (migrated) {
      await rows('SELECT 1');
      return { database: 'ok', migrations: 'ok' };
    }
    const applied = await rows<{ name: string }>(
      'SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const names = new Set(applied.map((r) => r.name));
    migrated = committed.every((name) => names.has(name));
    return { database: 'ok', migrations: migrated ? 'ok' : 'pending' };
  }

  async function checkDatabase(): Promise<{ database: Check; migrations: Check }> {
    const down = { database: 'down', migrations: 'pending' } as const;
    const checks = queryDatabase();
    checks.catch(() => {}); // after a time-out nobody awaits it any more
    try {
      const result = await within(checks, budgetMs);
      return result === TIMED_OUT ? down : result;
    } catch {
      return down;
    }
  }

  return async (_request, route, fetchAPI) => {
    const json = (status: number, body: Record<string, unknown>) =>
      new fetchAPI.Response(JSON.stringify(body), {
        status,
        headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' },
      });
    if (route.label === '/health/live') return json(200, { status: 'ok' });
    if (lifecycle?.draining) return json(503, { status: 'unavailable', reason: 'shutting down' });
    const checks = await checkDatabase();
    const ready = checks.database === 'ok' && checks.migrations === 'ok';
    return json(ready ? 200 : 503, { status: ready ? 'ok' : 'unavailable', ...checks });
  };
}
