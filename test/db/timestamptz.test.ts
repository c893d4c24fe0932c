// Timestamps of hand-written SQL are read by position (src/db/client.ts, parseTimestamptz): the same
// instants node-postgres's own parser gives, for every text PostgreSQL writes in a UTC session.
import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isoOf, parseTimestamptz } from '../../src/db/client.js';
import { databaseUrl } from '../helpers/db.js';

const reference = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => Date;

/** An instant as PostgreSQL writes a timestamptz in a UTC session: trailing zeros of the fraction dropped. */
function asPostgresWrites(ms: number, micros: number): string {
  const iso = new Date(ms).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  const fraction = `${iso.slice(20, 23)}${String(micros).padStart(3, '0')}`.replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}+00`;
}

const instantOf = (date: Date | null) => (date === null ? null : Number.isNaN(date.getTime()) ? 'NaN' : date.getTime());

describe('timestamptz read by position', () => {
  it('gives the instants postgres-date gives, whatever the fraction', () => {
    const instant = fc.integer({ min: Date.UTC(100, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) });
    fc.assert(
      fc.property(instant, fc.integer({ min: 0, max: 999 }), (ms, micros) => {
        const text = asPostgresWrites(ms, micros);
        expect(parseTimestamptz(text).getTime()).toBe(reference(text).getTime());
        // Written back as toISOString writes it (the DateTime scalar's form), from the text.
        expect(isoOf(parseTimestamptz(text))).toBe(reference(text).toISOString());
      }),
      { numRuns: 5_000 },
    );
  });

  it('leaves every other form to postgres-date', () => {
    for (const text of [
      '2026-12-06 10:00:00+01',
      '2026-12-06 10:00:00.5-03:30',
      '0099-12-06 10:00:00+00',
      '12026-12-06 10:00:00+00',
      '2026-12-06 10:00:00+00 BC',
      '2026-1x-06 10:00:00+00',
      '2026-12-06 10:00:00.+00',
    ]) {
      expect(instantOf(parseTimestamptz(text))).toBe(instantOf(reference(text)));
    }
    expect(String(parseTimestamptz('infinity'))).toBe(String(reference('infinity')));
  });

  it('reads what PostgreSQL writes, microseconds and all', async () => {
    // In a session of its own pinned to UTC, as the service's connections are.
    const client = new pg.Client({ connectionString: databaseUrl, options: '-c TimeZone=UTC' });
    await client.connect();
    const { rows } = await client
      .query<{ text: string }>(
        `SELECT (timestamptz '2024-02-28 23:59:59.999999+00' + g * interval '1 hour 17 minutes 3.012345 seconds')::text AS text FROM generate_series(0, 2000) AS g`,
      )
      .finally(() => client.end());
    expect(rows.length).toBe(2001);
    for (const { text } of rows) {
      expect(parseTimestamptz(text).getTime()).toBe(reference(text).getTime());
      expect(isoOf(parseTimestamptz(text))).toBe(reference(text).toISOString());
    }
    // Dates of any other origin are formatted by toISOString.
    expect(isoOf(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)))).toBe('2026-01-02T03:04:05.006Z');
  });
});
