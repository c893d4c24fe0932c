// Paging cursors: opaque to clients, bound to the list they came from, and tamper-evident.
//
// A cursor names the last row of a page (its sort key and id) and the list it belongs to (a digest
// of the filters and the ordering); it is signed with HMAC-SHA-256 under a key the database holds
// (service_secrets, made by a migration), so every instance and every restart accepts the cursors
// of the others. A cursor is checked before any of it is used: its signature, then its shape (the
// values could only be wrong if the key leaked), then that it belongs to this request's list.
// No library: the JSON payload and an HMAC from node:crypto are the whole format, and the checks
// that matter here (which list, which parameter to blame) are the API's own.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/client.js';
import { queryRows } from '../db/sql.js';
import { EARLIEST_INSTANT, hasControlCharacter, LATEST_INSTANT } from '../domain/parameters.js';
import { Prisma } from '../generated/prisma/client.js';
import type { Filters } from './filters.js';

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

/** Longest cursor accepted; the ones issued are about 120 characters (ids of up to 255 make them longer). */
export const MAX_CURSOR_LENGTH = 1_024;
const SIGNATURE_BYTES = 16;
const ORDER_CODES: Record<CursorListOrder, string> = { desc: 'd', asc: 'a', feed: 'u', deleted: 'x' };
const MAX_ID_LENGTH = 255;

interface Payload {
  /** Order code. */
  o: string;
  /** Sort key, epoch ms. */
  t: number;
  /** Id of the last row. */
  i: string;
  /** Digest of the list. */
  l: string;
}

export class CursorError extends Error {}

/** A digest of everything that selects and orders the list (not the page size, which may change between pages). */
function listDigest(list: CursorList): string {
  const f = list.filters;
  const canonical = JSON.stringify([
    list.order,
    list.updatedSince?.toISOString() ?? null,
    f.from?.toISOString() ?? null,
    f.to?.toISOString() ?? null,
    f.channel ?? null,
    f.type ?? null,
    f.outcomes ? [...f.outcomes].sort() : null,
    f.clinicId ?? null,
    f.campaignId ?? null,
    f.search ?? null,
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}

export class CursorCodec {
  constructor(private readonly key: Buffer) {}

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest().subarray(0, SIGNATURE_BYTES).toString('base64url');
  }

  encode(list: CursorList, position: Position): string {
    const payload: Payload = { o: ORDER_CODES[list.order], t: position.at, i: position.id, l: listDigest(list) };
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
    if (payload.l !== listDigest(list) || payload.o !== ORDER_CODES[list.order]) {
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
  const valid =
    typeof p === 'object' &&
    p !== null &&
    typeof p.o === 'string' &&
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
