import { GraphQLError } from 'graphql';
import { type Problems, throwIfProblems } from '../filters/parameters.js';

export function validationError(problems: Problems): GraphQLError {
  return new GraphQLError('Invalid query parameters', { extensions: { code: 'VALIDATION_ERROR', details: problems } });
}

/** Runs the checks in `fn`; any problem it records becomes one `VALIDATION_ERROR` naming every bad argument. */
export function checked<T>(fn: (problems: Problems) => T): T {
  const problems: Problems = {};
  const value = fn(problems);
  try {
    throwIfProblems(problems);
  } catch {
    throw validationError(problems);
  }
  return value;
}
