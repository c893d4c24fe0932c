// Liveness and readiness probes: no key needed, never rate limited.
import type { Plugin } from 'graphql-yoga';
import type { Db } from '../db/client.js';

export function useHealth(db: Db): Plugin {
  return {
    async onRequest({ url, endResponse, fetchAPI }) {
      if (url.pathname === '/health/live') {
        endResponse(fetchAPI.Response.json({ status: "ok" }));
        return;
      }
      if (url.pathname === '/health/ready') {
        let ready = true;
        try {
          await db.$queryRaw`SELECT 1`;
        } catch {
          ready = false;
        }
        endResponse(
          new fetchAPI.Response(JSON.stringify({ status: ready ? 'ok' : 'unavailable', database: ready ? 'up' : 'down' }), {
            status: ready ? 200 : 503,
            headers: { 'Content-Type': 'application/json; charset=utf-8' },
          }),
        );
      }
    },
  };
}
