// Admission for the GraphQL endpoint (the REST facade admits inside its own handler, after route
// matching), and the rate-limit headers on every response to a request that carried a valid key
// (429s included).
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { type Admission, type Admitter, rateLimitHeaders } from './admission.js';

/** GraphiQL's page itself needs no key: only the queries it sends do. */
function isGraphiQLPage(request: Request): boolean {
  return request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html');
}

function graphqlFailure(admission: Exclude<Admission, { ok: true }>): { status: number; error: GraphQLError; headers: Record<string, string> } {
  if (admission.status === 401) {
    const { code, message, challenge } = admission.failure;
    return { status: 401, error: new GraphQLError(message, { extensions: { code } }), headers: { 'WWW-Authenticate': challenge } };
  }
  if (admission.status === 429) {
    return {
      status: 429,
      error: new GraphQLError('Rate limit exceeded', { extensions: { code: 'RATE_LIMITED', retryAfterSeconds: admission.retryAfterSeconds } }),
      headers: { 'Retry-After': String(admission.retryAfterSeconds) },
    };
  }
  return {
    status: 503,
    error: new GraphQLError('The service is temporarily unavailable; retry shortly', { extensions: { code: 'SERVICE_UNAVAILABLE' } }),
    headers: { 'Retry-After': '5' },
  };
}

export function useAdmission(admitter: Admitter, graphqlPath: string, onError: (error: unknown, request: Request) => void): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== graphqlPath || isGraphiQLPage(request)) return;
      let admission: Admission;
      try {
        admission = await admitter.admit(request);
      } catch (error) {
        onError(error, request);
        const body = { errors: [new GraphQLError('An unexpected error occurred', { extensions: { code: 'INTERNAL_ERROR' } }).toJSON()] };
        endResponse(new fetchAPI.Response(JSON.stringify(body), { status: 500, headers: { 'Content-Type': 'application/json; charset=utf-8' } }));
        return;
      }
      if (admission.ok) return;
      const { status, error, headers } = graphqlFailure(admission);
      endResponse(
        new fetchAPI.Response(JSON.stringify({ errors: [error.toJSON()] }), {
          status,
          headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
        }),
      );
    },
    onResponse({ request, response }) {
      const admission = admitter.decided(request);
      const quota = admission && 'quota' in admission ? admission.quota : undefined;
      for (const [name, value] of Object.entries(rateLimitHeaders(quota))) {
        if (!response.headers.has(name)) response.headers.set(name, value);
      }
    },
  };
}
