// Whether a database has every committed migration, read from the table the schema engine keeps.
import pg from 'pg';
import { listMigrations } from './migrate.js';

/** Names of committed migrations that the database has not finished applying. */
export async function pendingMigrations(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const applied = new Set(rows.map((r) => r.name));
    return listMigrations().migrationDirectories.map((d) => d.path).filter((name) => !applied.has(name));
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return listMigrations().migrationDirectories.map((d) => d.path);
    throw error;
  } finally {
    await client.end();
  }
}
