// Every error code the service answers with, in one place: its HTTP status, the message a client
// sees when nothing more specific is said, the Retry-After it carries, and what it means. The REST
// envelope, GraphQL's error masking, the answers written below the app (malformed HTTP) and the
// OpenAPI document all read it, so a code cannot mean two things in two places.

export interface ErrorEntry {
  /** The status it is answered with (REST, and GraphQL over HTTP where a status applies). */
  status: number;
  /** The message when the answer says nothing more specific. */
  message: string;
  /** Seconds in Retry-After when the condition passes by itself (a quota's own answer may say more exactly). */
  retryAfterSeconds?: number;
  /** What it means and what the client should do: the OpenAPI document's description. */
  description: string;
}

export const ERRORS = {
  UNAUTHORIZED: {
    status: 401,
    message: 'The Authorization header is missing or malformed; expected "Authorization: Bearer <API key>".',
    description: 'No API key was sent (or not as `Authorization: Bearer <key>`).',
  },
  INVALID_API_KEY: { status: 401, message: 'Invalid API key', description: 'The key is unknown, malformed or revoked.' },
  API_KEY_EXPIRED: { status: 401, message: 'API key has expired', description: 'The key has passed its expiry.' },
  INSUFFICIENT_SCOPE: {
    status: 403,
    message: 'This API key lacks the scope needed for this endpoint',
    description: 'The key is valid but lacks the scope the endpoint needs (`details.required_scope`).',
  },
  VALIDATION_ERROR: {
    status: 400,
    message: 'Invalid query parameters',
    description: 'One or more parameters are invalid; `details` names every one of them with what is wrong.',
  },
  NOT_FOUND: { status: 404, message: 'Not found', description: 'No endpoint at this path, or no resource with that id visible to this key.' },
  NOT_ACCEPTABLE: {
    status: 406,
    message: 'The Accept header names no media type this endpoint answers with',
    description:
      'The `Accept` header accepts none of the media types the endpoint answers with (`details.available`: `application/json`, and on endpoints with exports `text/csv` and `application/x-ndjson`); omit it, or send `*/*`.',
  },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Only GET and HEAD are allowed', description: 'The API is read-only: only GET and HEAD (see `Allow`).' },
  RATE_LIMITED: {
    status: 429,
    message: 'Rate limit exceeded',
    retryAfterSeconds: 1,
    description:
      "A quota of the key (or of the client address's failed attempts) is used up, or the key already has as much work running at once as it may (`details.limit`); retry after `Retry-After` seconds.",
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    message: 'The service is temporarily unavailable; retry shortly',
    retryAfterSeconds: 5,
    description: 'A dependency (the database) is unavailable or the service is shutting down; retry after `Retry-After` seconds.',
  },
  INTERNAL_ERROR: { status: 500, message: 'An unexpected error occurred', description: 'A failure of the service; the request id identifies it in the logs.' },
  // Yoga also answers BAD_REQUEST for a /graphql request it cannot read (a body that is not JSON,
  // and 405 for methods other than GET and POST): its own answers, left as Yoga writes them.
  BAD_REQUEST: { status: 400, message: 'The request is malformed', description: 'The HTTP request itself is malformed (request line, headers or Host).' },
  REQUEST_TOO_LARGE: {
    status: 413,
    message: 'The request is too large',
    description: 'The body (413), URL (414) or headers (431) exceed their limits.',
  },
  REQUEST_TIMEOUT: {
    status: 408,
    message: 'The request was not received in time; send it again, faster',
    description: 'The request was not received in time.',
  },
  EXPECTATION_FAILED: { status: 417, message: 'Only "Expect: 100-continue" is supported', description: 'An `Expect` header other than 100-continue.' },
  TOO_MANY_TOKENS: { status: 400, message: 'The GraphQL document is too long', description: 'A GraphQL document of more tokens than allowed.' },
  TOO_MANY_ALIASES: { status: 400, message: 'The GraphQL document uses too many aliases', description: 'A GraphQL document with more aliases than allowed.' },
  RESERVED_ALIAS: { status: 400, message: 'The alias is reserved', description: 'A GraphQL alias the service cannot answer under (`then`).' },
  QUERY_TOO_DEEP: { status: 400, message: 'The query nests too deeply', description: 'A GraphQL operation nested deeper than allowed.' },
  QUERY_TOO_BROAD: { status: 400, message: 'The query selects too many fields', description: 'A GraphQL operation selecting more fields than allowed.' },
  QUERY_TOO_COMPLEX: { status: 400, message: 'The query is too expensive', description: 'A GraphQL operation whose cost exceeds the limit.' },
  // Yoga's own codes for a GraphQL document it cannot run; the service answers them as Yoga writes them.
  GRAPHQL_PARSE_FAILED: { status: 400, message: 'Syntax Error', description: 'A GraphQL document that does not parse (GraphQL only).' },
  GRAPHQL_VALIDATION_FAILED: {
    status: 400,
    message: 'The GraphQL document is invalid',
    description: 'A GraphQL document that fails validation against the schema (GraphQL only).',
  },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERRORS;

/** The catalogue's entry for a code. */
export function errorEntry(code: ErrorCode): ErrorEntry {
  return ERRORS[code];
}

/** The Retry-After header of a code, when it has one (`seconds` overrides the catalogue's). */
export function retryAfterHeader(code: ErrorCode, seconds?: number): Record<string, string> {
  const value = seconds ?? (ERRORS[code] as ErrorEntry).retryAfterSeconds;
  return value === undefined ? {} : { 'Retry-After': String(value) };
}
