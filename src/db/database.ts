// Where the database is: DATABASE_URL when set, otherwise the embedded cluster in DATA_DIR.
import type { DatabaseConfig } from '../config.js';
import { useEmbeddedPostgres } from './embedded.js';

export interface DatabaseLocation {
  url: string;
  /** True when the embedded cluster is in use (and so demo data may be created). */
  embedded: boolean;
  /** The embedded cluster was made by this call: a new, empty database (never for DATABASE_URL). */
  created: boolean;
  release(): Promise<void>;
}

export async function locateDatabase(config: DatabaseConfig, log: (m: string) => void = () => {}): Promise<DatabaseLocation> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, embedded: false, created: false, release: async () => {} };
  const cluster = await useEmbeddedPostgres(config.DATA_DIR, log);
  return { url: cluster.url, embedded: true, created: cluster.created, release: () => cluster.release() };
}
