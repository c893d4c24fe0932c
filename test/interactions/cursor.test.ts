// The cursor codec alone: a cursor is bound to every field of the filters (the samples below are a
// `Required<Filters>`, so a filter added to Filters does not compile here until it is tested), to
// its order and start, and what binds it is keyed: without the service's secret nothing in a
// cursor can be recomputed from a guess of a filter.
import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Filters } from '../../src/filters/interaction-filters.js';
import { CursorCodec, CursorError, type CursorList } from '../../src/interactions/cursor.js';

const position = { at: Date.UTC(2025, 2, 1), id: 'int_0001' };

/** Two different values of every filter. */
const ONE: Required<Filters> = {
  from: new Date('2025-03-01T00:00:00Z'),
  to: new Date('2025-03-31T23:59:59.999Z'),
  channel: 'voice',
  type: 'INBOUND',
  direction: 'inbound',
  outcomes: ['APPOINTMENT_BOOKED'],
  clinicId: '7a1c9a52-4b1e-4d0f-9a4e-2b8f3c1d5e60',
  campaignId: 'cmp_one',
  search: '+34612',
  text: 'appointment',
};
const OTHER: Required<Filters> = {
  from: new Date('2025-02-01T00:00:00Z'),
  to: new Date('2025-04-30T23:59:59.999Z'),
  channel: 'whatsapp',
  type: 'CAMPAIGN_OUTBOUND',
  direction: 'outbound',
  outcomes: ['APPOINTMENT_BOOKED', 'NO_ANSWER'],
  clinicId: '00000000-0000-4000-8000-000000000000',
  campaignId: 'cmp_other',
  search: '+34613',
  text: 'booked',
};

const fields = Object.keys(ONE) as Array<keyof Filters>;
const refuses = (codec: CursorCodec, cursor: string, list: CursorList) => expect(() => codec.decode(cursor, list)).toThrow(CursorError);
const payloadOf = (cursor: string) => JSON.parse(Buffer.from(cursor.split('.')[0] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;

describe('CursorCodec', () => {
  const codec = new CursorCodec(randomBytes(32));

  it.each(fields)('binds a cursor to %s', (field) => {
    const withOne: CursorList = { filters: { [field]: ONE[field] }, order: 'desc' };
    const withOther: CursorList = { filters: { [field]: OTHER[field] }, order: 'desc' };
    const without: CursorList = { filters: {}, order: 'desc' };
    const cursor = codec.encode(withOne, position);
    expect(codec.decode(cursor, { filters: { [field]: ONE[field] }, order: 'desc' })).toEqual(position);
    refuses(codec, cursor, withOther);
    refuses(codec, cursor, without);
    refuses(codec, codec.encode(without, position), withOne);
    // And with every other filter set alike.
    const all = codec.encode({ filters: ONE, order: 'desc' }, position);
    refuses(codec, all, { filters: { ...ONE, [field]: OTHER[field] }, order: 'desc' });
  });

  it('binds a cursor to its order and start, and keeps lists of values as sets', () => {
    const since = new Date('2025-01-01T00:00:00Z');
    const feed = codec.encode({ filters: {}, order: 'feed', updatedSince: since }, position);
    expect(codec.decode(feed, { filters: {}, order: 'feed', updatedSince: new Date(since) })).toEqual(position);
    refuses(codec, feed, { filters: {}, order: 'feed', updatedSince: new Date(since.getTime() + 1) });
    refuses(codec, feed, { filters: {}, order: 'feed' });
    refuses(codec, feed, { filters: {}, order: 'deleted', updatedSince: since });
    refuses(codec, codec.encode({ filters: {}, order: 'asc' }, position), { filters: {}, order: 'desc' });
    const outcomes = codec.encode({ filters: { outcomes: ['NO_ANSWER', 'APPOINTMENT_BOOKED'] }, order: 'desc' }, position);
    expect(codec.decode(outcomes, { filters: { outcomes: ['APPOINTMENT_BOOKED', 'NO_ANSWER'] }, order: 'desc' })).toEqual(position);
  });

  it('derives what binds a cursor from the secret: another secret gives another digest, and refuses the cursor', () => {
    const list: CursorList = { filters: { search: '+34612' }, order: 'desc' };
    const other = new CursorCodec(randomBytes(32));
    const mine = codec.encode(list, position);
    const theirs = other.encode(list, position);
    const digests = [mine, theirs].map((cursor) => Object.entries(payloadOf(cursor)).filter(([, value]) => value !== position.id && value !== position.at));
    expect(digests[0]).not.toEqual(digests[1]);
    refuses(other, mine, list);
  });

  it('refuses a cursor of the earlier format, signed with the same secret, saying to start again', () => {
    const secret = randomBytes(32);
    const body = Buffer.from(JSON.stringify({ o: 'd', t: position.at, i: position.id, l: 'CMkA3SqgQfeXdT13' })).toString('base64url');
    const signature = createHmac('sha256', secret).update(body).digest().subarray(0, 16).toString('base64url');
    expect(() => new CursorCodec(secret).decode(`${body}.${signature}`, { filters: {}, order: 'desc' })).toThrow(/earlier version.*empty cursor/);
  });

  it('puts nothing of the filters in the clear: only the position and a keyed digest', () => {
    const cursor = codec.encode({ filters: ONE, order: 'asc' }, position);
    const text = Buffer.from(cursor.split('.')[0] ?? '', 'base64url').toString('utf8');
    for (const value of Object.values(ONE).flat()) expect(text).not.toContain(value instanceof Date ? value.toISOString() : String(value));
    expect(Object.values(payloadOf(cursor))).toEqual(expect.arrayContaining([position.at, position.id]));
  });
});
