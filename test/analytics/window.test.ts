// Which parts of a window the metrics read from the rollups (full UTC days, whole months) and which from the
// raw table (the partial days at its edges).
import { describe, expect, it } from 'vitest';
import { splitDays, splitWindow } from '../../src/rollups/window.js';

const at = (iso: string) => new Date(iso);

describe('splitWindow', () => {
  it('reads whole days, 00:00:00.000 to 23:59:59.999, from the rollup only', () => {
    expect(splitWindow(at('2025-03-01T00:00:00.000Z'), at('2025-03-31T23:59:59.999Z'))).toEqual({
      days: { first: '2025-03-01', last: '2025-03-31' },
      raw: [],
    });
    expect(splitWindow(at('2025-03-01T00:00:00.000Z'), at('2025-03-01T23:59:59.999Z'))).toEqual({
      days: { first: '2025-03-01', last: '2025-03-01' },
      raw: [],
    });
  });

  it('reads a window inside one day, or one missing a millisecond of its only day, from the raw table only', () => {
    const inside = { from: at('2025-03-01T08:00:00.000Z'), to: at('2025-03-01T17:00:00.000Z') };
    expect(splitWindow(inside.from, inside.to)).toEqual({ days: null, raw: [inside] });
    const almost = { from: at('2025-03-01T00:00:00.000Z'), to: at('2025-03-01T23:59:59.998Z') };
    expect(splitWindow(almost.from, almost.to)).toEqual({ days: null, raw: [almost] });
    const acrossMidnight = { from: at('2025-03-01T12:00:00.000Z'), to: at('2025-03-02T12:00:00.000Z') };
    expect(splitWindow(acrossMidnight.from, acrossMidnight.to)).toEqual({ days: null, raw: [acrossMidnight] });
  });

  it('reads the partial first and last days raw and the days between from the rollup', () => {
    expect(splitWindow(at('2025-03-01T00:00:00.001Z'), at('2025-03-05T06:00:00.000Z'))).toEqual({
      days: { first: '2025-03-02', last: '2025-03-04' },
      raw: [
        { from: at('2025-03-01T00:00:00.001Z'), before: at('2025-03-02T00:00:00.000Z') },
        { from: at('2025-03-05T00:00:00.000Z'), to: at('2025-03-05T06:00:00.000Z') },
      ],
    });
    // One partial edge only; a window from midnight to midnight ends with one raw millisecond.
    expect(splitWindow(at('2025-03-01T00:00:00.000Z'), at('2025-03-03T00:00:00.000Z'))).toEqual({
      days: { first: '2025-03-01', last: '2025-03-02' },
      raw: [{ from: at('2025-03-03T00:00:00.000Z'), to: at('2025-03-03T00:00:00.000Z') }],
    });
  });

  it('leaves a missing bound open (list counts without dates)', () => {
    expect(splitWindow(undefined, undefined)).toEqual({ days: {}, raw: [] });
    expect(splitWindow(at('2025-03-01T12:00:00.000Z'), undefined)).toEqual({
      days: { first: '2025-03-02' },
      raw: [{ from: at('2025-03-01T12:00:00.000Z'), before: at('2025-03-02T00:00:00.000Z') }],
    });
    expect(splitWindow(undefined, at('2025-03-01T23:59:59.999Z'))).toEqual({ days: { last: '2025-03-01' }, raw: [] });
  });

  it('handles days before 1970 and rejects invalid dates', () => {
    expect(splitWindow(at('1969-12-31T00:00:00.000Z'), at('1970-01-01T23:59:59.999Z'))).toEqual({
      days: { first: '1969-12-31', last: '1970-01-01' },
      raw: [],
    });
    expect(() => splitWindow(new Date('nope'), undefined)).toThrow(/from is not a valid date/);
  });
});

describe('splitDays', () => {
  it('reads whole calendar months from the monthly level and the days around them from the daily one', () => {
    expect(splitDays({ first: '2025-03-01', last: '2025-03-31' })).toEqual({ months: { first: '2025-03-01', last: '2025-03-01' }, days: [] });
    // A year ending yesterday: eleven whole months and two partial ones.
    expect(splitDays({ first: '2025-11-21', last: '2026-11-20' })).toEqual({
      months: { first: '2025-12-01', last: '2026-10-01' },
      days: [
        { first: '2025-11-21', last: '2025-11-30' },
        { first: '2026-11-01', last: '2026-11-20' },
      ],
    });
    // Leap years: February 2024 ends on the 29th.
    expect(splitDays({ last: '2024-02-28' })).toEqual({ months: { last: '2024-01-01' }, days: [{ first: '2024-02-01', last: '2024-02-28' }] });
    expect(splitDays({ last: '2024-02-29' })).toEqual({ months: { last: '2024-02-01' }, days: [] });
  });

  it('reads no month when none is whole, and opens the months on an open side', () => {
    expect(splitDays({ first: '2025-03-02', last: '2025-03-31' })).toEqual({ months: null, days: [{ first: '2025-03-02', last: '2025-03-31' }] });
    expect(splitDays({ first: '2025-12-31', last: '2026-01-01' })).toEqual({ months: null, days: [{ first: '2025-12-31', last: '2026-01-01' }] });
    expect(splitDays({})).toEqual({ months: {}, days: [] });
    expect(splitDays({ first: '2025-02-15' })).toEqual({ months: { first: '2025-03-01' }, days: [{ first: '2025-02-15', last: '2025-02-28' }] });
    // The last day a date parameter can name: the next month is in year 10000, written as PostgreSQL reads it.
    expect(splitDays({ first: '9999-12-31' })).toEqual({ months: { first: '10000-01-01' }, days: [{ first: '9999-12-31', last: '9999-12-31' }] });
  });
});
