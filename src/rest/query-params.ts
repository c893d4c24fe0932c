// Reading a REST query string strictly (decisions section 2): a parameter that is not the
// endpoint's, or one given twice, is an error - a typo must never silently widen results.
//
// The query string is split and decoded here rather than through URLSearchParams, which decodes
// leniently: a broken escape (`%E0%A4%A`) or bytes that are not UTF-8 become U+FFFD and the
// request would be answered as if the client had meant it. Values and problems are kept in
// prototype-free records, so `__proto__` is a parameter name like any other (on a plain object,
// assigning it sets the prototype and the parameter vanishes).
import type { Problems } from '../domain/parameters.js';

export type QueryValues = Record<string, string>;

/** A record with no prototype: every name, `__proto__` and `constructor` included, is an own key. */
export function emptyRecord(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

/** Sets `name` as an own property even where `problems` is a plain object and `name` is `__proto__`. */
export function report(problems: Problems, name: string, message: string): void {
  Object.defineProperty(problems, name, { value: message, enumerable: true, writable: true, configurable: true });
}

/** `application/x-www-form-urlencoded` decoding as URLSearchParams does it, but failing on malformed input. */
function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

export function readQuery(url: URL, allowed: readonly string[], problems: Problems): QueryValues {
  const values = emptyRecord();
  const seen = new Set<string>();
  for (const pair of url.search.slice(1).split('&')) {
    if (!pair) continue;
    const equals = pair.indexOf('=');
    const rawName = equals === -1 ? pair : pair.slice(0, equals);
    const name = decode(rawName);
    if (name === undefined) {
      report(problems, rawName, 'is not a valid parameter name (malformed percent-encoding or not UTF-8)');
      continue;
    }
    const value = decode(equals === -1 ? '' : pair.slice(equals + 1));
    if (!allowed.includes(name)) {
      report(
        problems,
        name,
        allowed.length ? `is not a parameter of this endpoint (parameters: ${allowed.join(', ')})` : 'is not a parameter of this endpoint (it takes none)',
      );
    } else if (seen.has(name)) report(problems, name, 'is given more than once');
    else if (value === undefined) report(problems, name, 'is not validly encoded (malformed percent-encoding or not UTF-8)');
    else values[name] = value;
    seen.add(name);
  }
  return values;
}

/** A whole number written in decimal digits, or undefined (reported) when it is not one. */
export function readInteger(values: QueryValues, name: string, problems: Problems): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  if (!/^\d{1,15}$/.test(raw)) {
    report(problems, name, 'must be a whole number');
    return undefined;
  }
  return Number(raw);
}
