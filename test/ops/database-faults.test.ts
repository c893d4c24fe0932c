// The database misbehaving under the real server process, through real HTTP and a real PostgreSQL:
// hung (every connection, and every new one, gets no answer: a SIGSTOPped server as the service
// sees it) and dropping connections (pg_terminate_backend of the server's backends under load).
// Either way every request is answered, quickly, with 200 or 503 + Retry-After: never a hang, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../helpers/app.js';
import { databaseUrl, databaseUrlVia, sql, testDb } from '../helpers/db.js';
import { createCampaign, createClinic, uniqueId } from '../helpers/factories.js';
import { createTcpRelay, type ServerProcess, startServer } from '../helpers/server-process.js';

const target = new URL(databaseUrl);

let key: string;
beforeAll(async () => {
  const db = testDb();
  const clinic = await createClinic(db);
  await createCampaign(db, clinic.id);
  key = await createKey(db, { clinicIds: [clinic.id] });
});

interface Timed {
  what: string;
  status: number;
  retryAfter: string | null;
  code: string | undefined;
  ms: number;
}

/** Any request still unanswered after this is reported as a hang (status 0), not left to the test timeout. */
const GIVE_UP_MS = 20_000;
// Clinics and campaigns: the per-field GraphQL rate limits (which REST requests count against too)
// would answer a burst for metrics or interactions with 429s.
const GRAPHQL_QUERY = '{ clinics { nodes { id } } campaigns { nodes { id } } }';

async function timed(server: ServerProcess, what: 'rest-clinics' | 'rest-campaigns' | 'graphql' | 'ready' | 'live'): Promise<Timed> {
  const started = Date.now();
  const headers = { authorization: `Bearer ${key}` };
  const signal = AbortSignal.timeout(GIVE_UP_MS);
  const request =
    what === 'graphql'
      ? fetch(`${server.baseUrl}/graphql`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ query: GRAPHQL_QUERY }),
          signal,
        })
      : fetch(
          `${server.baseUrl}${{ 'rest-clinics': '/api/v1/clinics', 'rest-campaigns': '/api/v1/campaigns', ready: '/health/ready', live: '/health/live' }[what]}`,
          { headers, signal },
        );
  try {
    const response = await request;
    const body = (await response.json()) as { error?: { code?: string }; errors?: Array<{ extensions?: { code?: string } }> };
    const code = body.error?.code ?? body.errors?.[0]?.extensions?.code;
    return { what, status: response.status, retryAfter: response.headers.get('retry-after'), code, ms: Date.now() - started };
  } catch {
    return { what, status: 0, retryAfter: null, code: undefined, ms: Date.now() - started };
  }
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('a hung database (every connection open, nothing answered)', () => {
  // With the defaults (connect 2 s, query 5 s, readiness 1.5 s) a request is answered within about
  // 5 s; before, it waited for as long as the database did. Generous for a loaded 2-core runner.
  const REQUEST_BOUND_MS = 10_000;
  const READY_BOUND_MS = 4_000;

  it('REST, GraphQL and readiness answer 503 with Retry-After within seconds, 50 at once too; liveness 200; 200 again once it answers', async () => {
    const relay = await createTcpRelay({ host: target.hostname, port: Number(target.port || 5432) });
    const server = await startServer({ DATABASE_URL: databaseUrlVia({ port: relay.port }) });
    try {
      // Warm: the pool holds open connections, as a running service's does when its database hangs.
      expect((await timed(server, 'rest-clinics')).status).toBe(200);
      expect((await timed(server, 'graphql')).status).toBe(200);
      relay.freeze();

      const kinds = ['rest-clinics', 'rest-campaigns', 'graphql'] as const;
      const load = Array.from({ length: 50 }, (_, i) => timed(server, kinds[i % kinds.length]!));
      const [ready, live] = await Promise.all([timed(server, 'ready'), timed(server, 'live')]);
      const answers = await Promise.all(load);

      expect(live.status).toBe(200);
      expect(ready, 'readiness').toMatchObject({ status: 503 });
      expect(ready.ms, 'readiness').toBeLessThan(READY_BOUND_MS);
      for (const answer of answers) {
        expect(answer, answer.what).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
        expect(Number(answer.retryAfter), answer.what).toBeGreaterThanOrEqual(1);
        expect(answer.ms, answer.what).toBeLessThan(REQUEST_BOUND_MS);
      }

      relay.thaw();
      await until('readiness', async () => (await timed(server, 'ready')).status === 200);
      for (const what of kinds) expect((await timed(server, what)).status, what).toBe(200);
    } finally {
      relay.thaw();
      server.child.kill('SIGTERM');
      await server.exited;
      await relay.close();
    }
  });
});

describe("the server's connections terminated (pg_terminate_backend) under load", () => {
  const applicationName = uniqueId('faults-terminate');
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({ DATABASE_URL: databaseUrlVia({ applicationName }) });
  });
  afterAll(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });

  it('every answer is 200 or 503 with Retry-After, never a 500, and the service recovers', async () => {
    expect((await timed(server, 'rest-clinics')).status).toBe(200);
    const attackMs = 4_000;
    const stopAt = Date.now() + attackMs;
    let terminated = 0;
    // Only this server's backends: its application_name, in this run's database. The CTE is
    // MATERIALIZED so that the filter runs first: in one WHERE clause the planner may call
    // pg_terminate_backend before comparing the name, on every backend of the shared server.
    const attack = (async () => {
      while (Date.now() < stopAt) {
        const rows = await sql<{ pid: number }>(
          `WITH mine AS MATERIALIZED (SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = $2)
           SELECT pid FROM mine WHERE pg_terminate_backend(pid)`,
          [applicationName, target.pathname.slice(1)],
        );
        terminated += rows.length;
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const kinds = ['rest-clinics', 'rest-campaigns', 'graphql'] as const;
    const answers: Timed[] = [];
    const clients = Array.from({ length: 8 }, async (_, i) => {
      while (Date.now() < stopAt) answers.push(await timed(server, kinds[i % kinds.length]!));
    });
    await Promise.all([attack, ...clients]);

    // A 200 carries no error either: GraphQL answers a failed field with 200 and `errors` unless
    // the error says otherwise (SERVICE_UNAVAILABLE sets 503).
    const unexpected = answers.filter((a) => (a.status !== 200 && a.status !== 503) || (a.status === 200 && a.code !== undefined));
    expect(unexpected, JSON.stringify(unexpected.slice(0, 5))).toEqual([]);
    const unavailable = answers.filter((a) => a.status === 503);
    for (const answer of unavailable) {
      expect(answer.code, answer.what).toBe('SERVICE_UNAVAILABLE');
      expect(Number(answer.retryAfter), answer.what).toBeGreaterThanOrEqual(1);
    }
    // The attack did hit: backends were terminated, and requests in flight on them were answered 503.
    expect(terminated).toBeGreaterThan(0);
    expect(unavailable.length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);

    await until('recovery', async () => (await timed(server, 'rest-clinics')).status === 200);
    for (const what of kinds) expect((await timed(server, what)).status, what).toBe(200);
    expect((await timed(server, 'ready')).status).toBe(200);
  });
});
