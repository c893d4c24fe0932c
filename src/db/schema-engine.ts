// Prisma's schema engine compiled to WebAssembly: migrations without the native binary that the
// Prisma CLI downloads (and cannot download offline).
// The package is built for bundlers (`import wasm from '*.wasm'`); Node 20 needs a flag for that,
// so we instantiate the module ourselves and hand it to the wasm-bindgen glue.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory, type SqlDriverAdapter, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SchemaEngine } from '@prisma/schema-engine-wasm';
import * as glue from '@prisma/schema-engine-wasm/schema_engine_bg';
import pg, { type PoolConfig } from 'pg';

const require = createRequire(import.meta.url);
let initialised = false;

function initialiseWasm(): void {
  if (initialised) return;
  const file = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg').replace(/\.js$/, '.wasm');
  const module = new WebAssembly.Module(fs.readFileSync(file));
  const instance = new WebAssembly.Instance(module, { './schema_engine_bg.js': glue as unknown as Record<string, WebAssembly.ImportValue> });
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports as unknown as { __wbindgen_start: () => void }).__wbindgen_start();
  initialised = true;
}

function poolConfig(url: string): PoolConfig {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username) || undefined,
    password: decodeURIComponent(u.password) || undefined,
    database: decodeURIComponent(u.pathname.slice(1)) || undefined,
    ssl: ['require', 'verify-ca', 'verify-full'].includes(u.searchParams.get('sslmode') ?? '') ? true : undefined,
  };
}

/**
 * Connections for the engine, closed with the engine. We create the shadow database ourselves:
 * @prisma/adapter-pg's own `connectToShadowDb` drops the database before closing its pool (so the
 * DROP fails), and with a `connectionString` config its "shadow" pool would reach the real database.
 */
class EngineConnections implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = 'postgres' as const;
  readonly adapterName = '@prisma/adapter-pg';
  private readonly open = new Set<SqlDriverAdapter>();

  constructor(private readonly config: PoolConfig) {}

  async connect(): Promise<SqlDriverAdapter> {
    return this.track(await new PrismaPg(this.config).connect());
  }

  async connectToShadowDb(): Promise<SqlDriverAdapter> {
    const database = `prisma_shadow_${randomUUID().replaceAll('-', '')}`;
    await this.admin(`CREATE DATABASE "${database}"`);
    const adapter = this.track(await new PrismaPg({ ...this.config, database }).connect());
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      await dispose();
      await this.admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    };
    return adapter;
  }

  async close(): Promise<void> {
    await Promise.all([...this.open].map((adapter) => adapter.dispose()));
  }

  private track(adapter: SqlDriverAdapter): SqlDriverAdapter {
    this.open.add(adapter);
    sendScriptWhole(adapter);
    const dispose = adapter.dispose.bind(adapter);
    let disposed = false;
    adapter.dispose = async () => {
      if (disposed) return;
      disposed = true;
      this.open.delete(adapter);
      await dispose();
    };
    return adapter;
  }

  private async admin(sql: string): Promise<void> {
    const client = new pg.Client(this.config);
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }
}

/** What @prisma/adapter-pg's adapter has beyond the SqlDriverAdapter interface. */
interface PgAdapterInternals {
  underlyingDriver(): pg.Pool;
  /** Converts a pg error into the DriverAdapterError the engine understands, and throws it. */
  onError(error: unknown): never;
}

/**
 * Makes the adapter send a migration script to PostgreSQL as ONE simple-protocol query, as Prisma's
 * native engine does. The adapter's own executeScript cuts the script at every `;` character (inside
 * function bodies, strings and comments too) and runs the pieces one by one outside a transaction.
 * Sent whole, a script runs in one implicit transaction: a failing migration leaves nothing behind.
 * (Statements that cannot run in a transaction, like CREATE INDEX CONCURRENTLY, cannot be used in a
 * migration; the same holds for `prisma migrate deploy`.)
 */
function sendScriptWhole(adapter: SqlDriverAdapter): void {
  const internals = adapter as unknown as PgAdapterInternals;
  adapter.executeScript = async (script: string) => {
    try {
      await internals.underlyingDriver().query(script);
    } catch (error) {
      internals.onError(error);
    }
  };
}

/** Runs `fn` with a schema engine connected to `url` and the given Prisma schema as its datamodel. */
export async function withSchemaEngine<T>(url: string, schema: { path: string; content: string }, fn: (engine: SchemaEngine) => Promise<T>): Promise<T> {
  initialiseWasm();
  const connections = new EngineConnections(poolConfig(url));
  const { SchemaEngine: Engine } = glue as unknown as { SchemaEngine: typeof SchemaEngine };
  const engine = await Engine.new({ datamodels: [[schema.path, schema.content]] }, () => {}, bindMigrationAwareSqlAdapterFactory(connections));
  try {
    return await fn(engine);
  } finally {
    engine.free();
    await connections.close();
  }
}
