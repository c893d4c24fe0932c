// Reading a REST query string strictly (decisions section 2): a parameter that is not the
// endpoint's, or one given twice, is an error - a typo must never silently widen results.
import type { Problems } from '../filters/parameters.js';

export type QueryValues = Record<string, string>;

export function readQuery(url: URL, allowed: readonly string[], problems: Problems): QueryValues {
  const values: QueryValues = {};
  for (const [name, value] of url.searchParams) {
    if (!allowed.includes(name)) {
      problems[name] = allowed.length
        ? `is not a parameter of this endpoint (parameters: ${allowed.join(', ')})`
        : 'is not a parameter of this endpoint (it takes none)';
    } else if (name in values) problems[name] = 'is given more than once';
    else values[name] = value;
  }
  return values;
}

/** A whole number written in decimal digits, or undefined (reported) when it is not one. */
export function readInteger(values: QueryValues, name: string, problems: Problems): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  if (!/^\d{1,15}$/.test(raw)) {
    problems[name] = 'must be a whole number';
    return undefined;
  }
  return Number(raw);
}
