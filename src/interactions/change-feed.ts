// The change feed's consistency rule: a client that walks `updated_since` in (updated_at, id) order
// and resumes from the last updated_at it saw must never step past a row that is not yet visible.
//
// updated_at is set by the writing statement, but the row becomes visible only when its transaction
// commits, possibly much later (an import of a million rows is one transaction). A feed read that
// went up to "now" would pass the uncommitted rows' updated_at, and the client, resuming from a
// later position, would never see them. So the feed stops at a horizon: the start of the oldest
// transaction that holds a transaction id (every writer that could still commit rows), or now when
// there is none. Rows at or after the horizon are listed by a later request, once committed.
//
// For the horizon to cover a writer, the writer must hold its transaction id before it stamps any
// row: writers take one first (CLAIM_TRANSACTION_ID) and stamp rows with statement_timestamp() of
// later statements (the column's default, and the import's upsert), which is then after the id was
// taken and so after the horizon of any feed read that did not see the writer yet.
import type { Db } from '../db/client.js';
import { queryRows } from '../db/client.js';
import { Prisma } from '../generated/prisma/client.js';

/** Run first in every transaction that writes interactions (import, seed): assigns its transaction id. */
export const CLAIM_TRANSACTION_ID = 'SELECT pg_current_xact_id()';

/**
 * The first instant the feed may not yet show. updated_at has millisecond precision (rounded), the
 * transaction start microsecond: one millisecond below the start, truncated, is below every stamp
 * the writer can store. pg_stat_activity shows other sessions' transactions only to the same role
 * or to members of pg_read_all_stats: the service's role must be one of them for the importer's
 * (docs/rest-api.md, Change feed).
 */
const HORIZON = Prisma.sql`
  SELECT date_trunc('milliseconds', least(statement_timestamp(), min(xact_start))) - interval '1 millisecond' AS horizon
  FROM pg_stat_activity
  WHERE backend_xid IS NOT NULL AND datname = current_database() AND pid <> pg_backend_pid()`;

export async function feedHorizon(db: Db): Promise<Date> {
  const [row] = await queryRows<{ horizon: Date }>(db, HORIZON);
  if (!row) throw new Error('change feed: no horizon');
  return row.horizon;
}
