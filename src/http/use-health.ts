// Liveness and readiness probes: no key needed, never rate limited or counted.
// Live: the process answers. Ready: not shutting down, the database answers, and it has every
// committed migration (checked until it is true once; migrations are never un-applied).
import type { Plugin } from 'graphql-yoga';
import type { Db } from '../db/client.js';
import { listMigrations } from '../db/migrate.js';
import type { Lifecycle } from './lifecycle.js';

type Check = 'ok' | 'down' | 'pending' | 'draining';

export function useHealth(db: Db, lifecycle?: Lifecycle): Plugin {
  const committed = listMigrations().migrationDirectories.map((d) => d.path);
  let migrated = false;

  async function checkDatabase(): Promise<{ database: Check; migrations: Check }> {
    try {
      if (migrated) {
        await db.$queryRaw`SELECT 1`;
        return { database: 'ok', migrations: 'ok' };
      }
      const rows = await db.$queryRaw<Array<{ name: string }>>`
        SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
      const applied = new Set(rows.map((r) => r.name));
      migrated = committed.every((name) => applied.has(name));
      return { database: 'ok', migrations: migrated ? 'ok' : 'pending' };
    } catch {
      return { database: 'down', migrations: 'pending' };
    }
  }

  return {
    async onRequest({ url, endResponse, fetchAPI }) {
      if (url.pathname !== '/health/live' && url.pathname !== '/health/ready') return;
      const json = (status: number, body: Record<string, unknown>) =>
        endResponse(
          new fetchAPI.Response(JSON.stringify(body), {
            status,
            headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' },
          }),
        );
      if (url.pathname === '/health/live') return json(200, { status: 'ok' });
      if (lifecycle?.draining) return json(503, { status: 'unavailable', reason: 'shutting down' });
      const checks = await checkDatabase();
      const ready = checks.database === 'ok' && checks.migrations === 'ok';
      return json(ready ? 200 : 503, { status: ready ? 'ok' : 'unavailable', ...checks });
    },
  };
}
