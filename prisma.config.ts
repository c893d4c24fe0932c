// Configuration for the Prisma CLI (used with internet access; offline we generate and migrate
// through src/db, see README). The URL is only needed by CLI commands that talk to a database.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/postgres' },
});
