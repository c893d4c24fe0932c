// Answers that depend on the API key are never shared by caches. A proxy cache such as nginx's
// `proxy_cache` stores an answer to a request carrying Authorization unless the answer says
// `private` or `no-store` (RFC 9111 section 3.5 leaves that to the server), and by default it keys
// its entries by the URL alone: a GET /graphql answer with a phi:read key's phone numbers, or a 401,
// would be served to the next key that asks for the same URL. So every answer on a path that reads
// a key (by its route, whatever the status and whoever built it) varies by Authorization, and:
// - GraphQL answers say `private, no-store`: they carry no validator to revalidate with, and the
//   same URL answers GraphiQL's page, JSON or the GraphQL media type by Accept;
// - REST and /metrics keep their own (`private, no-cache` with an ETag, `no-store` on errors and
//   exports), and an answer that says neither private nor no-store gets `private, no-store`.
// The public files (/docs, /graphiql/, /, /api/v1) are left cacheable.
import type { Plugin } from 'graphql-yoga';
import { stateOf } from '../request/state.js';
import type { AppRoute } from './app-routes.js';
import { replaceHeader, varyWith } from './header-values.js';

/** The areas whose answers depend on the Authorization header (app-routes.ts). */
const KEYED: ReadonlySet<AppRoute['area']> = new Set(['graphql', 'rest', 'metrics']);
const NEVER_STORED = 'private, no-store';

function keepsItPrivate(cacheControl: string | null): boolean {
  const directives = (cacheControl ?? '').split(',').map((directive) => directive.trim().toLowerCase());
  return directives.includes('private') || directives.includes('no-store');
}

export function usePrivateAnswers(): Plugin {
  return {
    onResponse({ request, response }) {
      const area = stateOf(request).route?.area;
      if (!area || !KEYED.has(area)) return;
      const { headers } = response;
      replaceHeader(headers, 'Vary', varyWith(headers.get('vary'), 'Authorization'));
      if (area === 'graphql') {
        replaceHeader(headers, 'Cache-Control', NEVER_STORED);
        replaceHeader(headers, 'Vary', varyWith(headers.get('vary'), 'Accept'));
      } else if (!keepsItPrivate(headers.get('cache-control'))) {
        replaceHeader(headers, 'Cache-Control', NEVER_STORED);
      }
    },
  };
}
