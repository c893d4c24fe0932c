// A REST request's query string, read strictly, and its parameters as the variables of its route's
// GraphQL document.
//
// Reading (decisions section 2): a parameter that is not the endpoint's, or one given twice, is an
// error - a typo must never silently widen results. The query string is split and decoded here
// rather than through URLSearchParams, which decodes leniently: a broken escape (`%E0%A4%A`) or
// bytes that are not UTF-8 become U+FFFD and the request would be answered as if the client had
// meant it. Values and problems are kept in prototype-free records, so `__proto__` is a parameter
// name like any other (on a plain object, assigning it sets the prototype and the parameter
// vanishes).
//
// The variables: only names and types are mapped here - the rules every value must follow are the
// resolvers' (graphql/errors.ts `checked`), judged once for REST and GraphQL alike:
//   - each variable is read from the parameter of its REST name (REST_NAMES), or from the path;
//   - an `Int` must be written in decimal digits (a query string has no numbers, only text), a
//     `Boolean` as `true` or `false`;
//   - an enum value is its REST spelling, the value the schema's enum maps it to (`voice` for
//     `VOICE`); a list is comma-separated. A text that is no value of the enum is left for the
//     resolver to judge and name as sent (`unconverted`), with the variable null, and so is a
//     number too large for GraphQL's 32-bit `Int`.
import {
  type DocumentNode,
  type GraphQLEnumType,
  type GraphQLInputType,
  type GraphQLSchema,
  getNullableType,
  isEnumType,
  isListType,
  Kind,
  type OperationDefinitionNode,
  typeFromAST,
} from 'graphql';
import type { Problems } from '../domain/parameters.js';
import type { ParameterNames } from '../filters/interaction-filters.js';

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

/** The largest value of GraphQL's `Int`. */
const GRAPHQL_INT_MAX = 2_147_483_647;

export interface RestVariables {
  variables: Record<string, unknown>;
  /** Variable name -> the value sent, for values that no variable of its type can hold. */
  unconverted: Record<string, string | string[] | number>;
}

/** The enum value a REST text spells (its internal value), or undefined. */
function enumName(type: GraphQLEnumType, text: string): string | undefined {
  return type.getValues().find((value) => value.value === text)?.name;
}

function operationOf(document: DocumentNode): OperationDefinitionNode {
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (!operation) throw new TypeError('REST document without an operation');
  return operation;
}

export function restVariables(
  schema: GraphQLSchema,
  document: DocumentNode,
  names: ParameterNames,
  input: { query: QueryValues; pathParams: Record<string, string> },
  problems: Problems,
): RestVariables {
  const variables: Record<string, unknown> = {};
  const unconverted: RestVariables['unconverted'] = {};
  for (const definition of operationOf(document).variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const restName = (names as Record<string, string | undefined>)[name] ?? name;
    const text = input.pathParams[restName] ?? input.query[restName];
    const type = getNullableType(typeFromAST(schema, definition.type as never) as GraphQLInputType | undefined);
    if (text === undefined || type === undefined) {
      // A variable with a default takes it (a directive's `if` cannot be null).
      if (!definition.defaultValue) variables[name] = null;
      continue;
    }
    if (isListType(type)) {
      const itemType = getNullableType(type.ofType) as GraphQLInputType;
      const items = text.split(',');
      const converted = isEnumType(itemType) ? items.map((item) => enumName(itemType, item)) : items;
      if (converted.every((item) => item !== undefined)) variables[name] = converted;
      else {
        variables[name] = null;
        unconverted[name] = items;
      }
    } else if (isEnumType(type)) {
      const converted = enumName(type, text);
      variables[name] = converted ?? null;
      if (converted === undefined) unconverted[name] = text;
    } else if (type.name === 'Int') {
      const value = readInteger(input.query, restName, problems);
      // GraphQL's Int is 32-bit: a larger number is the resolver's to refuse, as out of range.
      const fits = value !== undefined && value <= GRAPHQL_INT_MAX;
      variables[name] = fits ? value : null;
      if (value !== undefined && !fits) unconverted[name] = value;
    } else if (type.name === 'Boolean') {
      // `true` or `false`, as written; anything else is the resolver's to name (the default, if
      // any, stands in meanwhile so that the document still executes).
      if (text === 'true' || text === 'false') variables[name] = text === 'true';
      else {
        if (!definition.defaultValue) variables[name] = null;
        unconverted[name] = text;
      }
    } else variables[name] = text;
  }
  return { variables, unconverted };
}
