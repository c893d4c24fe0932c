// A REST request's parameters as the variables of its route's GraphQL document. Only names and
// types are mapped here - the rules every value must follow are the resolvers' (graphql/errors.ts
// `checked`), judged once for REST and GraphQL alike:
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
import { type QueryValues, readInteger } from './query-params.js';

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
