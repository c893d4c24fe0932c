// The one place arguments are judged: every resolver that takes filters or paging checks them
// through `checked`, for GraphQL clients and the REST facade alike (the facade only maps names).
import { GraphQLError } from 'graphql';
import type { Problems } from '../domain/parameters.js';
import type { ParameterNames } from '../filters/interaction-filters.js';
import type { GraphQLContext } from './context.js';

function validationError(problems: Problems): GraphQLError {
  return new GraphQLError('Invalid query parameters', { extensions: { code: 'VALIDATION_ERROR', details: problems } });
}

/**
 * Runs the checks in `check` on the arguments as the caller sent them (with the texts no variable
 * could carry: context.ts), naming problems as the caller names the arguments; any problem becomes
 * one `VALIDATION_ERROR` naming every bad argument. A caller with problems of its own gets this
 * field's problems and no data (`checkOnly`).
 */
export function checked<A extends object, T>(
  context: Pick<GraphQLContext, 'parameters'>,
  args: A,
  check: (args: A, names: ParameterNames, problems: Problems) => T,
): T {
  const { names, unconverted, checkOnly } = context.parameters;
  const problems: Problems = {};
  const value = check({ ...args, ...unconverted }, names, problems);
  if (checkOnly || Object.keys(problems).length > 0) throw validationError(problems);
  return value;
}

/**
 * A VALIDATION_ERROR found after the arguments' first check (one that needed the database, such as
 * whether a time zone exists), its problems named as the caller names the arguments.
 */
export function rejected(context: Pick<GraphQLContext, 'parameters'>, problems: (names: ParameterNames) => Problems): GraphQLError {
  return validationError(problems(context.parameters.names));
}
