// The Prisma client, over node-postgres through Prisma 7's driver adapter.
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';

export type Db = PrismaClient;

export function createPrismaClient(url: string, poolSize = 10): PrismaClient {
  // The adapter sends timestamps without an offset, which PostgreSQL reads in the session's time
  // zone: pin it to UTC so stored instants never depend on the server's configuration.
  const adapter = new PrismaPg({ connectionString: url, max: poolSize, options: '-c TimeZone=UTC' });
  return new PrismaClient({ adapter });
}
