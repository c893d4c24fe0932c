// The time zone names a request may give: the tz database's names as the database server knows
// them, spelled exactly (figures are computed by that server's `AT TIME ZONE`, so its list is the
// one that counts). Left out: the `posix/` and `right/` copies (the latter count leap seconds,
// which PostgreSQL ignores), and names that are not zones a person picks (`localtime`,
// `posixrules`, `Factory`).
import type { Db } from '../db/client.js';
import { queryRows } from '../db/client.js';
import { Prisma } from '../generated/prisma/client.js';

/** Longer than any name of the tz database (the longest is 32 characters). */
export const MAX_ZONE_NAME_LENGTH = 64;

/** What a zone name may look like before the database is asked (`America/Argentina/Buenos_Aires`, `Etc/GMT+5`). */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]*$/;

export function looksLikeZoneName(value: string): boolean {
  return value.length <= MAX_ZONE_NAME_LENGTH && ZONE_NAME.test(value) && !value.includes('//') && !value.split('/').includes('..');
}

const names = new WeakMap<Db, Promise<ReadonlySet<string>>>();
const loaded = new WeakMap<Db, ReadonlySet<string>>();

/** The names once read (undefined before the first read): lets arguments be checked without waiting. */
export function knownZoneNames(db: Db | undefined): ReadonlySet<string> | undefined {
  return db ? loaded.get(db) : undefined;
}

/** The zone names of the database behind `db`, read once. */
export function zoneNames(db: Db): Promise<ReadonlySet<string>> {
  let known = names.get(db);
  if (!known) {
    known = queryRows<{ name: string }>(
      db,
      Prisma.sql`SELECT name FROM pg_timezone_names
                 WHERE name !~ '^(posix|right)/' AND name NOT IN ('localtime', 'posixrules', 'Factory')`,
    ).then((rows) => {
      const set = new Set(rows.map((row) => row.name));
      loaded.set(db, set);
      return set;
    });
    // A failed read is not remembered: the next request asks again.
    known.catch(() => names.delete(db));
    names.set(db, known);
  }
  return known;
}
