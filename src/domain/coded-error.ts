// GraphQL errors that carry a code of the error catalogue (src/domain/error-catalogue.ts): taking an
// ErrorCode, the compiler refuses a code the catalogue lacks.
import { GraphQLError, type GraphQLErrorOptions } from 'graphql';
import { ERRORS, type ErrorCode, retryAfterHeader } from './error-catalogue.js';

/** `extensions.code` first (as every answer has written it), then the error's other extensions. */
export function codedError(code: ErrorCode, message: string = ERRORS[code].message, options: GraphQLErrorOptions = {}): GraphQLError {
  return new GraphQLError(message, { ...options, extensions: { code, ...options.extensions } });
}

/**
 * `extensions.http` for an error that decides the HTTP answer (Yoga reads it, and leaves it out of
 * the body): the catalogue's status unless the code has several, and its Retry-After.
 */
export function httpOf(code: ErrorCode, options: { status?: number; headers?: Record<string, string> } = {}) {
  return { status: options.status ?? ERRORS[code].status, headers: { ...options.headers, ...retryAfterHeader(code) } };
}
