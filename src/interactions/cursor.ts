// Paging cursors: opaque to clients, bound to the list they came from, and tamper-evident.
//
// A cursor names the last row of a page (its sort key and id) and the list it belongs to: a keyed
// digest of everything that selects and orders it (the whole CursorList, walked field by field, so
// a filter added to Filters binds cursors without being listed here). It is signed with
// HMAC-SHA-256 under a key the database holds (service_secrets, made by a migration), so every
// instance and every restart accepts the cursors of the others; the digest is an HMAC under a key
// derived from the same secret, so that a guess of a filter (a phone fragment in `search`) cannot
// be checked against a cursor without it. A cursor is checked before any of it is used: its
// signature, then its shape (the values could only be wrong if the key leaked), then that it
// belongs to this request's list.
// No library: the JSON payload and HMACs from node:crypto are the whole format, and the checks
// that matter here (which list, which parameter to blame) are the API's own.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/client.js';
import { queryRows } from '../db/client.js';
import { EARLIEST_INSTANT, hasControlCharacter, LATEST_INSTANT } from '../domain/parameters.js';
import type { Filters } from '../filters/interaction-filters.js';
import { Prisma } from '../generated/prisma/client.js';

/** How a cursor list is ordered: by started_at (newest or oldest first) or, for the change feed, by updated_at. */
export type CursorOrder = 'desc' | 'asc' | 'feed';

/** Every order a cursor can carry: the interaction lists', and the tombstones' of deleted interactions (by deleted_at). */
export type CursorListOrder = CursorOrder | 'deleted';

/** The last row of a page: its sort key (started_at, updated_at or deleted_at, epoch ms) and id. */
export interface Position {
  at: number;
  id: string;
}

/** The list a cursor belongs to: its filters and ordering (and the feed's start). */
export interface CursorList {
  filters: Filters;
  order: CursorListOrder;
  /** The start of the change feed (`updated_since`) or of the tombstones (`since`). */
  updatedSince?: Date;
}

/** Longest cursor accepted; the ones issued are about 100 characters (ids of up to 255 make them longer). */
export const MAX_CURSOR_LENGTH = 1_024;
const SIGNATURE_BYTES = 16;
const LIST_DIGEST_BYTES = 16;
const MAX_ID_LENGTH = 255;
/** The payload's format; cursors of the earlier one (an unkeyed digest, not bound to every filter) are refused. */
const CURSOR_VERSION = 2;

interface Payload {
  /** Format version. */
  v: typeof CURSOR_VERSION;
  /** Sort key, epoch ms. */
  t: number;
  /** Id of the last row. */
  i: string;
  /** Keyed digest of the list. */
  l: string;
}

export class CursorError extends Error {}

/** What a list is made of, as `canonical` walks it. */
type ListValue = string | number | boolean | Date | null | undefined | readonly ListValue[] | { readonly [name: string]: ListValue };

/**
 * One spelling of a list: every field present (an absent or undefined one selects nothing), names
 * sorted, dates as instants. A list of values filters by any of them, so it is spelt as a set.
 */
function canonical(value: ListValue): unknown {
  if (value === undefined || value === null || typeof value === 'string' || typeof value === 'boolean') return value ?? null;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('a cursor list holds a number that is not finite');
    return value;
  }
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) {
    const items = value.map((item: ListValue) => JSON.stringify(canonical(item)));
    return [...new Set(items)].sort();
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) throw new TypeError('a cursor list holds a value the digest cannot spell');
  const object = value as { readonly [name: string]: ListValue };
  return Object.fromEntries(
    Object.keys(object)
      .filter((name) => object[name] !== undefined)
      .sort()
      .map((name) => [name, canonical(object[name])]),
  );
}

export class CursorCodec {
  private readonly listKey: Buffer;

  constructor(private readonly key: Buffer) {
    // A key of its own for the digest, so that the digest and the signature never share an input space.
    this.listKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'interaction cursor list digest', 32));
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest().subarray(0, SIGNATURE_BYTES).toString('base64url');
  }

  /** A digest of everything that selects and orders the list (not the page size, which may change between pages). */
  private listDigest(list: CursorList): string {
    const spelt = JSON.stringify(canonical({ ...list, filters: { ...list.filters } }));
    return createHmac('sha256', this.listKey).update(spelt).digest().subarray(0, LIST_DIGEST_BYTES).toString('base64url');
  }

  encode(list: CursorList, position: Position): string {
    const payload: Payload = { v: CURSOR_VERSION, t: position.at, i: position.id, l: this.listDigest(list) };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  /** The position a cursor continues from; throws CursorError saying what is wrong with it. */
  decode(cursor: string, list: CursorList): Position {
    if (cursor.length > MAX_CURSOR_LENGTH) throw new CursorError(`is not a valid cursor (longer than ${MAX_CURSOR_LENGTH} characters)`);
    const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(cursor);
    if (!match) throw new CursorError('is not a valid cursor (use the next_cursor of a previous response, or an empty cursor to start)');
    const [, body, signature] = match as unknown as [string, string, string];
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new CursorError('is not a valid cursor (it was altered, or was not issued by this service)');
    }
    const payload = parsePayload(Buffer.from(body, 'base64url').toString('utf8'));
    if (payload.l !== this.listDigest(list)) {
      throw new CursorError(
        'belongs to a list with other filters or another order; send the same parameters as the request that returned it, or start again with an empty cursor',
      );
    }
    return { at: payload.t, id: payload.i };
  }
}

function parsePayload(text: string): Payload {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CursorError('is not a valid cursor');
  }
  const p = value as Partial<Payload> | null;
  if (typeof p === 'object' && p !== null && p.v !== CURSOR_VERSION && 'o' in p) {
    throw new CursorError('was issued by an earlier version of this service and is no longer accepted; start again with an empty cursor');
  }
  const valid =
    typeof p === 'object' &&
    p !== null &&
    p.v === CURSOR_VERSION &&
    typeof p.l === 'string' &&
    Number.isSafeInteger(p.t) &&
    (p.t as number) >= EARLIEST_INSTANT &&
    (p.t as number) <= LATEST_INSTANT &&
    typeof p.i === 'string' &&
    p.i.length > 0 &&
    p.i.length <= MAX_ID_LENGTH &&
    !hasControlCharacter(p.i);
  if (!valid) throw new CursorError('is not a valid cursor');
  return p as Payload;
}

const codecs = new WeakMap<Db, Promise<CursorCodec>>();

/** The codec signing with this database's key (read once per client; a failed read is retried next time). */
export function cursorCodec(db: Db): Promise<CursorCodec> {
  let codec = codecs.get(db);
  if (!codec) {
    codec = queryRows<{ value: string }>(db, Prisma.sql`SELECT value FROM service_secrets WHERE name = 'cursor_hmac'`).then(([row]) => {
      if (!row) throw new Error('service_secrets has no cursor_hmac: run the migrations');
      return new CursorCodec(Buffer.from(row.value, 'hex'));
    });
    codec.catch(() => codecs.delete(db));
    codecs.set(db, codec);
  }
  return codec;
}
