// Checks one line on its own: JSON, the REST shape and the rules that tie fields of one record
// together. References to other records and duplicate ids are checked by the importer, which sees
// the whole files and the database.
import type { z } from 'zod';
import { type ChannelValue, directionOfType, type InteractionTypeValue, TYPES_BY_CHANNEL } from '../domain/values.js';
import { parseTimestamp, type RecordOf, type Resource, SCHEMAS } from './records.js';

export interface Problem {
  /** The field at fault (`transcript[2].role`), or `(line)` when the line as a whole is. */
  field: string;
  reason: string;
}

export const WHOLE_LINE = '(line)';

export interface LineCheck<R> {
  /** The parsed object, when the line is a JSON object (even an invalid one: its id still counts). */
  value?: Record<string, unknown>;
  /** Present only when there is no problem. */
  record?: R;
  problems: Problem[];
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  record: 'a JSON object',
  array: 'an array',
};

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Reasons phrased for people fixing a file; messages given in the schemas take precedence. */
const reasons: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return 'required';
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      const got = kindOf(issue.input);
      return issue.expected === 'int' && got === 'number' ? `expected an integer, got ${shown(issue.input)}` : `expected ${expected}, got ${got}`;
    }
    case 'invalid_value':
      return `expected one of ${issue.values.join(', ')}; got ${shown(issue.input)}`;
    default:
      return undefined;
  }
};

export function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || WHOLE_LINE;
}

function problemsOf(error: z.ZodError): Problem[] {
  const problems: Problem[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) problems.push({ field: fieldPath([...issue.path, key]), reason: 'unknown field' });
    } else {
      problems.push({ field: fieldPath(issue.path), reason: issue.message });
    }
  }
  return problems;
}

/** Finds strings with U+0000, which PostgreSQL text and jsonb cannot store. */
function findNul(value: unknown, path: PropertyKey[], found: Problem[]): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) found.push({ field: fieldPath(path), reason: 'must not contain the character U+0000' });
  } else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) findNul(v, [...path, i], found);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) findNul(v, [...path, k], found);
  }
}

/** Rules across fields of an interaction, checked on the fields that are valid by themselves. */
function interactionRules(value: Record<string, unknown>, invalid: Set<string>): Problem[] {
  const problems: Problem[] = [];
  const usable = (field: string) => !invalid.has(field) && value[field] !== undefined && value[field] !== null;
  const channel = value.channel as ChannelValue;
  const type = value.type as InteractionTypeValue;
  if (usable('channel') && usable('type') && !TYPES_BY_CHANNEL[channel].includes(type)) {
    problems.push({ field: 'type', reason: `${type} is not a ${channel} type (${channel}: ${TYPES_BY_CHANNEL[channel].join(', ')})` });
  }
  if (usable('type') && usable('direction') && value.direction !== directionOfType(type)) {
    problems.push({ field: 'direction', reason: `must be ${directionOfType(type)} for type ${type}` });
  }
  if (usable('started_at') && usable('ended_at')) {
    if (parseTimestamp(value.ended_at as string)! < parseTimestamp(value.started_at as string)!) {
      problems.push({ field: 'ended_at', reason: 'must not be before started_at' });
    }
  }
  if (usable('channel') && channel === 'whatsapp') {
    for (const field of ['duration_seconds', 'recording_url']) {
      if (value[field] !== undefined && value[field] !== null) {
        problems.push({ field, reason: 'must be absent or null for a whatsapp conversation' });
      }
    }
  }
  return problems;
}

export function checkLine<R extends Resource>(resource: R, text: string): LineCheck<RecordOf[R]> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problems: [{ field: WHOLE_LINE, reason: `invalid JSON: ${(error as Error).message}` }] };
  }
  if (kindOf(value) !== 'object') {
    return { problems: [{ field: WHOLE_LINE, reason: `expected a JSON object, got ${kindOf(value)}` }] };
  }
  const object = value as Record<string, unknown>;
  const result = SCHEMAS[resource].safeParse(object, { error: reasons });
  const problems = result.success ? [] : problemsOf(result.error);
  if (resource === 'interactions') {
    problems.push(...interactionRules(object, new Set(problems.map((p) => p.field.split(/[.[]/)[0]!))));
  }
  // Cheap test first: a NUL can only come from a \u0000 escape, JSON forbids raw control characters.
  if (/\\u0000/i.test(text)) findNul(object, [], problems);
  if (problems.length > 0 || !result.success) return { value: object, problems };
  return { value: object, record: result.data, problems };
}
