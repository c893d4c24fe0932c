// The application in-process, and a small typed client for its GraphQL endpoint.
import { type App, type AppOptions, createApp } from '../../src/app.js';
import { type CreateApiKeyInput, createApiKey, createApiKeyResolver } from '../../src/auth/api-keys.js';
import type { Db } from '../../src/db/client.js';
import { testDb } from './db.js';

export function testApp(db: Db = testDb(), options: Partial<AppOptions> = {}): App {
  // No key cache: tests revoke and expire keys and expect the next request to see it. In-process
  // requests all come from one "address", so brute-force protection is off unless a test sets it;
  // so are the per-field GraphQL rate limits, which tests of other things would trip.
  const noLimit = Number.MAX_SAFE_INTEGER;
  return createApp({
    db,
    keyResolver: createApiKeyResolver(db, { ttlMs: 0 }),
    authFailureLimits: { minute: noLimit, hour: noLimit, day: noLimit },
    fieldRateLimits: [],
    ...options,
  });
}

/**
 * Creates an API key (all scopes unless given) and returns the key string. Unlimited tier unless
 * given, so that tests about other things never meet the per-minute quota.
 */
export async function createKey(db: Db, input: Partial<CreateApiKeyInput> = {}): Promise<string> {
  const { key } = await createApiKey(db, { name: 'test key', tier: 'unlimited', ...input });
  return key;
}

export interface GraphQLResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: {
    data?: T | null;
    errors?: Array<{ message: string; path?: Array<string | number>; extensions?: { code?: string; details?: Record<string, unknown> } }>;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: response data is asserted field by field in tests
export async function graphql<T = Record<string, any>>(
  app: App,
  options: { query: string; variables?: Record<string, unknown>; key?: string; authorization?: string },
): Promise<GraphQLResponse<T>> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' };
  const authorization = options.authorization ?? (options.key ? `Bearer ${options.key}` : undefined);
  if (authorization) headers.authorization = authorization;
  const response = await app.fetch('http://localhost/graphql', {
    method: 'POST',
    headers,
    body: JSON.stringify({ query: options.query, variables: options.variables ?? {} }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as GraphQLResponse<T>['body'] };
}

/** Fails the test with the errors' text when a response has any. */
export function expectNoErrors<T>(response: GraphQLResponse<T>): T {
  if (response.body.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(response.body.errors, null, 2)}`);
  return response.body.data as T;
}
