// HTTP caching of REST answers: a weak ETag over what a 200 says (`data` and `meta`, not the
// request id or timestamp, which differ on every answer) and the request it answers, and 304 Not
// Modified for an `If-None-Match` that names it.
//
// A 304 should not cost the query it saves the client from downloading. Each clinic counts its
// changes (clinic_data_versions plus the pending clinic_data_changes), added by triggers in the
// same transaction as any change to its row, its campaigns, its interactions or their transcripts;
// the count over the clinics a key can see grows whenever anything it could be shown changes. The ETag of a request
// is remembered here with the version it was computed at: while that version stands, a matching
// `If-None-Match` is answered 304 after reading one row of versions, without running the request.
// Otherwise the request runs, and its ETag decides.
//
// The version is read before the request runs, so an answer is never remembered under a version
// older than the data it was computed from (a change in between only costs one more run).
// Answers that depend on more than the data are not remembered: the change feed and the tombstones
// of deleted interactions (their horizon moves with other sessions' transactions) and /me (live
// quota). Metrics whose window defaults to "today" are remembered under a 15-minute bucket of the
// clock as well, since a new day changes them.
import { createHash, type Hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { VisibleClinics } from '../auth/clinic-visibility.js';
import type { Db } from '../db/client.js';
import { queryRows } from '../db/sql.js';
import { Prisma } from '../generated/prisma/client.js';
import type { TimeSlice } from '../limits/time-slices.js';
import type { QueryValues } from './query-params.js';

/** How long a metrics answer with a window relative to today is remembered at most (whole quarters of an hour cover every zone offset). */
const CLOCK_BUCKET_MS = 15 * 60_000;

/** Remembered ETags; each entry is a few hundred bytes. */
const MAX_REMEMBERED = 20_000;

export interface Conditional {
  /** What the answer depends on besides the data: path, parameters, what the key may see. */
  identity: string;
  /** Whether an answer to it can be confirmed by the data version alone. */
  confirmable: boolean;
}

/** The request an answer is for, in a canonical form (parameters sorted; values as decoded). */
export function conditionalOf(
  request: {
    path: string;
    query: QueryValues;
    pathParams: Record<string, string>;
    visibleClinics: VisibleClinics;
    /** The key lacks phi:read: the same request is answered with patient data masked (src/phi). */
    masked?: boolean;
  },
  nowMs: number,
): Conditional {
  const { path, query, pathParams, visibleClinics, masked = false } = request;
  const names = Object.keys(query).sort();
  const relativeToToday = path.startsWith('/api/v1/metrics/') && (query.date_from === undefined || query.date_to === undefined);
  // The change feed and the tombstones stop at a horizon that moves with other sessions' transactions.
  const confirmable = path !== '/api/v1/me' && path !== '/api/v1/interactions/deleted' && query.updated_since === undefined;
  const identity = JSON.stringify([
    path,
    pathParams,
    names.map((name) => [name, query[name]]),
    visibleClinics === null ? null : [...visibleClinics].sort(),
    relativeToToday ? Math.floor(nowMs / CLOCK_BUCKET_MS) : null,
    // Last and only when true, so that every other answer keeps the ETag it had before.
    ...(masked ? ['masked'] : []),
  ]);
  return { identity, confirmable };
}

/** The weak ETag of an answer: the request's identity and the text of `data` and `meta`. */
export function etagOf(identity: string, payloadText: string): string {
  return weakTag(etagHash(identity).update(payloadText));
}

/** etagOf over a payload in parts (successPayloadParts), hashed in time slices: the same tag. */
export async function etagOfParts(identity: string, parts: ReadonlyArray<string | Uint8Array>, slice: TimeSlice): Promise<string> {
  const hash = etagHash(identity);
  for (const part of parts) {
    hash.update(part);
    await slice.pause();
  }
  return weakTag(hash);
}

const etagHash = (identity: string) => createHash('sha256').update(identity).update('\n');
const weakTag = (hash: Hash) => `W/"${hash.digest('base64url').slice(0, 32)}"`;

/**
 * Whether `If-None-Match` names `etag` (RFC 9110 13.1.2: weak comparison, a list, or `*`). Hostile
 * values are only compared, never parsed further; the header's size is bounded by the server.
 */
export function ifNoneMatchNames(header: string | null, etag: string): boolean {
  if (header === null) return false;
  const opaque = etag.replace(/^W\//, '');
  for (const raw of header.split(',')) {
    const tag = raw.trim();
    if (tag === '*' || tag.replace(/^W\//, '') === opaque) return true;
  }
  return false;
}

/**
 * How many changes the clinics a key may see have had: the folded counts plus the changes still
 * pending, in one snapshot. Every commit that touches one of them adds to it.
 */
async function dataVersion(db: Db, visibleClinics: VisibleClinics): Promise<string> {
  const only = visibleClinics === null ? Prisma.sql`TRUE` : Prisma.sql`clinic_id = ANY(${[...visibleClinics]}::uuid[])`;
  const [row] = await queryRows<{ version: string | null }>(
    db,
    Prisma.sql`SELECT ((SELECT coalesce(sum(version), 0) FROM clinic_data_versions WHERE ${only})
                     + (SELECT count(*) FROM clinic_data_changes WHERE ${only}))::text AS version`,
  );
  return row?.version ?? '0';
}

interface Remembered {
  version: string;
  etag: string;
}

/** The ETags this instance has computed, with the data version each was computed at. */
export class EtagMemory {
  private readonly remembered = new LRUCache<string, Remembered>({ max: MAX_REMEMBERED });

  /**
   * For a request with `If-None-Match`: the data version now (read before the request runs), and
   * the ETag that still holds if one was remembered at that version and the header names it.
   */
  async confirm(db: Db, visibleClinics: VisibleClinics, conditional: Conditional, ifNoneMatch: string): Promise<{ version: string; etag?: string }> {
    const version = await dataVersion(db, visibleClinics);
    const known = this.remembered.get(conditional.identity);
    if (known && known.version === version && ifNoneMatchNames(ifNoneMatch, known.etag)) return { version, etag: known.etag };
    return { version };
  }

  remember(conditional: Conditional, version: string, etag: string): void {
    this.remembered.set(conditional.identity, { version, etag });
  }
}
