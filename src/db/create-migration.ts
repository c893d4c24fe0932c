// Developer tool (`npm run db:diff -- <name>`): writes prisma/migrations/<timestamp>_<name>/migration.sql
// with the SQL that brings the committed migrations up to prisma/schema.prisma, and moves the
// schema snapshot forward. Works offline (see migrate.ts); the engine wants a database connection,
// so it uses DATABASE_URL or the embedded cluster, but reads nothing from it.
import fs from 'node:fs';
import path from 'node:path';
import { loadDatabaseConfig } from '../config.js';
import { locateDatabase } from './database.js';
import { diffAgainstSnapshot, migrationsDir, readSchema, snapshotPath } from './migrate.js';

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('Usage: npm run db:diff -- <name>   (lower-case letters, digits and underscores)');
  process.exit(2);
}

const database = await locateDatabase(loadDatabaseConfig());
const sql = await diffAgainstSnapshot(database.url).finally(() => database.release());
if (!sql.trim() || sql.includes('This is an empty migration')) {
  // A change outside the data model (a generator setting, a comment) needs no migration, but the
  // snapshot is the schema the migrations were last written for: it follows.
  if (fs.readFileSync(snapshotPath, 'utf8') !== readSchema().content) {
    fs.writeFileSync(snapshotPath, readSchema().content);
    console.log('prisma/schema.prisma changed outside the database schema: no migration needed; the snapshot was updated (commit it).');
  } else {
    console.error('prisma/schema.prisma matches the committed migrations: nothing to write.');
  }
} else {
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const dir = path.join(migrationsDir, `${stamp}_${name}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'migration.sql'), sql);
  fs.writeFileSync(snapshotPath, readSchema().content);
  const lock = path.join(migrationsDir, 'migration_lock.toml');
  if (!fs.existsSync(lock)) fs.writeFileSync(lock, 'provider = "postgresql"\n');
  console.log(`Wrote ${path.relative(process.cwd(), path.join(dir, 'migration.sql'))}; review it, then commit it with the snapshot.`);
}
