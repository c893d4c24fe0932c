// Which parts of a window the metrics read from the rollups (full UTC days, whole months) and which from the
// raw table (the partial days at its edges).
import { describe, expect, it } from 'vitest';
import { splitDays, splitDaysWithComplement, splitWindow } from '../../src/rollups/counted.js';

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
    // Years 1 to 99 are not 1901 to 1999.
    expect(splitDays({ first: '0001-01-02', last: '0099-12-31' })).toEqual({
      months: { first: '0001-02-01', last: '0099-12-01' },
      days: [{ first: '0001-01-02', last: '0001-01-31' }],
    });
  });
});

describe('splitDaysWithComplement', () => {
  it('reads a month the range holds most of whole, less the days it does not hold', () => {
    // A year to yesterday: the current month less the days still to come; the first partial month
    // (7 of 30 days) as days.
    expect(splitDaysWithComplement({ first: '2025-11-24', last: '2026-11-23' })).toEqual({
      months: { first: '2025-12-01', last: '2026-11-01' },
      days: [{ first: '2025-11-24', last: '2025-11-30' }],
      minus: [{ first: '2026-11-24', last: '2026-11-30' }],
    });
    // Inside one month, on both sides.
    expect(splitDaysWithComplement({ first: '2025-11-03', last: '2025-11-28' })).toEqual({
      months: { first: '2025-11-01', last: '2025-11-01' },
      days: [],
      minus: [
        { first: '2025-11-01', last: '2025-11-02' },
        { first: '2025-11-29', last: '2025-11-30' },
      ],
    });
    // Two partial months next to each other, both read whole.
    expect(splitDaysWithComplement({ first: '2025-11-05', last: '2025-12-27' })).toEqual({
      months: { first: '2025-11-01', last: '2025-12-01' },
      days: [],
      minus: [
        { first: '2025-11-01', last: '2025-11-04' },
        { first: '2025-12-28', last: '2025-12-31' },
      ],
    });
    // Open on one side; a leap February.
    expect(splitDaysWithComplement({ first: '2024-02-02' })).toEqual({
      months: { first: '2024-02-01' },
      days: [],
      minus: [{ first: '2024-02-01', last: '2024-02-01' }],
    });
    expect(splitDaysWithComplement({ last: '2024-02-27' })).toEqual({
      months: { last: '2024-02-01' },
      days: [],
      minus: [{ first: '2024-02-28', last: '2024-02-29' }],
    });
  });

  it('reads days where they are fewer than the month and its other days, and as splitDays where no month is partial', () => {
    // 16 of 31 days: 1 + 15 is not fewer than 16.
    expect(splitDaysWithComplement({ first: '2025-03-16', last: '2025-03-31' })).toEqual({
      months: null,
      days: [{ first: '2025-03-16', last: '2025-03-31' }],
      minus: [],
    });
    // 17 of 31: the month less 14 days.
    expect(splitDaysWithComplement({ first: '2025-03-15', last: '2025-03-31' })).toEqual({
      months: { first: '2025-03-01', last: '2025-03-01' },
      days: [],
      minus: [{ first: '2025-03-01', last: '2025-03-14' }],
    });
    expect(splitDaysWithComplement({ first: '2025-03-10', last: '2025-03-20' })).toEqual({
      months: null,
      days: [{ first: '2025-03-10', last: '2025-03-20' }],
      minus: [],
    });
    expect(splitDaysWithComplement({ first: '2025-03-01', last: '2025-03-31' })).toEqual({
      months: { first: '2025-03-01', last: '2025-03-01' },
      days: [],
      minus: [],
    });
    expect(splitDaysWithComplement({})).toEqual({ months: {}, days: [], minus: [] });
    expect(splitDaysWithComplement({ first: '9999-12-31' })).toEqual({
      months: { first: '10000-01-01' },
      days: [{ first: '9999-12-31', last: '9999-12-31' }],
      minus: [],
    });
    expect(splitDaysWithComplement({ first: '0001-01-02', last: '0001-01-31' })).toEqual({
      months: { first: '0001-01-01', last: '0001-01-01' },
      days: [],
      minus: [{ first: '0001-01-01', last: '0001-01-01' }],
    });
  });
});
