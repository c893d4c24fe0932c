// Helpers shared by the GraphQL test files (not a test file itself).
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { GraphQLResponse } from '../helpers/app.js';

/** A short random tag, to make names and ids of one test unique. */
export function tag(): string {
  return randomUUID().replaceAll('-', '').slice(0, 10);
}

export type GraphQLErrorBody = NonNullable<GraphQLResponse['body']['errors']>[number];

export function errorsOf(response: GraphQLResponse<unknown>): GraphQLErrorBody[] {
  return response.body.errors ?? [];
}

/**
 * Asserts that the response (HTTP 200) carries exactly one error, a VALIDATION_ERROR whose details
 * name exactly `names` (every bad argument at once), each with a message. Callers check that the
 * field resolved to null.
 */
export function expectValidationError(response: GraphQLResponse<unknown>, names: string[]): Record<string, unknown> {
  expect(response.status).toBe(200);
  const errors = errorsOf(response);
  expect(errors, JSON.stringify(errors)).toHaveLength(1);
  const [error] = errors;
  expect(error?.message).toBe('Invalid query parameters');
  expect(error?.extensions?.code).toBe('VALIDATION_ERROR');
  const details = error?.extensions?.details ?? {};
  expect(Object.keys(details).sort()).toEqual([...names].sort());
  for (const name of names) expect(typeof details[name] === 'string' && (details[name] as string).length > 0).toBe(true);
  return details;
}

/** Asserts that every error is INSUFFICIENT_SCOPE and returns how many name each required scope. */
export function scopeErrors(errors: GraphQLErrorBody[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const error of errors) {
    expect(error.extensions?.code, JSON.stringify(error)).toBe('INSUFFICIENT_SCOPE');
    const scope = String(error.extensions?.details?.required_scope);
    expect(error.message).toContain(scope);
    counts[scope] = (counts[scope] ?? 0) + 1;
  }
  return counts;
}

/** Rounds like the API: to 2 decimals, half away from zero, from an exact ratio of integers. */
export function ratio2(numerator: number, denominator: number, scale = 1): number {
  if (denominator === 0) return 0;
  return Math.round((numerator * scale * 100) / denominator) / 100;
}

/** Every UTC date from `from` to `to` (YYYY-MM-DD), inclusive. */
export function utcDates(from: string, to: string): string[] {
  const dates: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00.000Z`); t <= Date.parse(`${to}T00:00:00.000Z`); t += 86_400_000) {
    dates.push(new Date(t).toISOString().slice(0, 10));
  }
  return dates;
}

/** Byte-wise string order (what `COLLATE "C"` and uuid ordering give for ASCII ids). */
export function byteCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
