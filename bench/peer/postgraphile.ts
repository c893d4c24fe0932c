// The bench's peer: PostGraphile 4 serving the bench database, as a user would run it in production
// (bench/README.md, "PostGraphile peer"), so that the service's GraphQL and REST are measured beside
// a widely used GraphQL server on the same data, in the same run (bench/peer.ts).
//
// Plain node:http; `/health/ready` answers 200 once the schema is built (startServer in
// bench/processes.ts waits for it); everything else goes to PostGraphile's handler (`/graphql`).
// No authentication: every request is served as the database user of DATABASE_URL.
//
// PostGraphile and its plugins come from bench/peer/deps, an npm project of their own (its
// package.json says why), loaded with require() from there. The few of their functions used here are
// typed below, so that the project type-checks without that folder installed.
//
// Environment: DATABASE_URL (required), PORT (default 4200), HOST (127.0.0.1), DATABASE_POOL_SIZE
// (10, as the service's default).
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

const DATABASE_URL = process.env.DATABASE_URL;
const PORT = Number(process.env.PORT ?? 4200);
const HOST = process.env.HOST ?? '127.0.0.1';
const POOL_SIZE = Number(process.env.DATABASE_POOL_SIZE ?? 10);

/** A graphile-build plugin: opaque here, handed to PostGraphile as it is. */
type Plugin = (builder: unknown, options: unknown) => unknown;

interface PostGraphileHandler {
  /** Answers the request, errors included (with no `next`, anything but its routes is a 404). */
  (req: http.IncomingMessage, res: http.ServerResponse): void;
  /** Resolves once the schema is built (rejects when it cannot be: `retryOnInitFail: false`). */
  getGraphQLSchema(): Promise<unknown>;
}

interface PostGraphileModule {
  postgraphile(pool: pg.Pool, schema: string, options: Record<string, unknown>): PostGraphileHandler;
}

/** bench/peer/deps, from bench/peer (run by tsx) or dist/bench/peer (compiled). */
function depsFolder(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'bench', 'peer', 'deps');
    if (fs.existsSync(path.join(candidate, 'node_modules'))) return candidate;
  }
  throw new Error('bench/peer/deps is not installed: npm ci --prefix bench/peer/deps');
}

const deps = depsFolder();
const load = createRequire(path.join(deps, 'package.json'));
const { Pool } = load('pg') as typeof pg;
const { postgraphile } = load('postgraphile') as PostGraphileModule;
// connection-filter exports its plugin as the module, pg-aggregates as `default`.
const ConnectionFilterPlugin = load('postgraphile-plugin-connection-filter') as Plugin;
const PgAggregatesPlugin = (load('@graphile/pg-aggregates') as { default: Plugin }).default;

/**
 * The packages that must be loaded once, all from bench/peer/deps: a plugin that saw another graphql
 * or graphile-build than PostGraphile's (npm hoists them so beside graphql 16) builds types that
 * PostGraphile's graphql does not recognise, or fails its `instanceof` checks at run time.
 */
function checkSingleInstances(): void {
  for (const name of ['graphql', 'graphile-build', 'graphile-build-pg', 'graphile-utils', 'graphql-parse-resolve-info']) {
    const marker = `${path.sep}node_modules${path.sep}${name}${path.sep}`;
    const folders = new Set<string>();
    for (const file of Object.keys(load.cache)) {
      const at = file.lastIndexOf(marker);
      if (at >= 0) folders.add(file.slice(0, at + marker.length - 1));
    }
    const expected = path.join(deps, 'node_modules', name);
    if (folders.size !== 1 || !folders.has(expected)) {
      throw new Error(`${name} must be loaded once, from ${expected}; loaded from: ${[...folders].join(', ') || 'nowhere'}`);
    }
  }
}

async function main(): Promise<void> {
  if (!DATABASE_URL) throw new Error('DATABASE_URL is required');
  const pool = new Pool({ connectionString: DATABASE_URL, max: POOL_SIZE });
  const handler = postgraphile(pool, 'public', {
    appendPlugins: [ConnectionFilterPlugin, PgAggregatesPlugin],
    disableDefaultMutations: true,
    graphiql: false,
    watchPg: false,
    disableQueryLog: true,
    dynamicJson: true,
    setofFunctionsContainNulls: false,
    ignoreRBAC: false,
    legacyRelations: 'omit',
    retryOnInitFail: false,
    // No extendedErrors: errors carry their message only, as in production.
  });
  let ready = false;
  const server = http.createServer((req, res) => {
    if (req.url === '/health/ready' || req.url === '/health/live') {
      res.writeHead(ready || req.url === '/health/live' ? 200 : 503, { 'content-type': 'text/plain' }).end(ready ? 'ok' : 'starting');
      return;
    }
    handler(req, res);
  });
  server.listen(PORT, HOST);
  await handler.getGraphQLSchema();
  checkSingleInstances();
  ready = true;
  console.log(`PostGraphile peer ready on http://${HOST}:${PORT}/graphql (pool ${POOL_SIZE})`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
