// Admission for the GraphQL endpoint (the REST facade admits inside its own handler, after route
// matching), and the rate-limit headers on every response to a request that carried a valid key
// (429s included).
import type { Plugin } from 'graphql-yoga';
import { codedError } from '../domain/coded-error.js';
import { ERRORS, type ErrorCode, retryAfterHeader } from '../domain/error-catalogue.js';
import { type Admission, type Admitter, rateLimitHeaders, refusalAnswer } from '../limits/admission.js';
import { stateOf } from '../request/state.js';
import { graphqlErrorResponse } from './graphql-http.js';

/** GraphiQL's page itself needs no key: only the queries it sends do. */
function isGraphiQLPage(request: Request): boolean {
  return request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html');
}

/** The GraphQL answer of a request refused before its operation: the code's status, one error. */
function errorResponse(
  request: Request,
  fetchAPI: { Response: typeof Response },
  code: ErrorCode,
  message: string,
  extensions: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return graphqlErrorResponse(request, fetchAPI, [codedError(code, message, { extensions })], { status: ERRORS[code].status, headers });
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
        endResponse(errorResponse(request, fetchAPI, 'INTERNAL_ERROR', ERRORS.INTERNAL_ERROR.message, {}));
        return;
      }
      if (admission.ok) return;
      const { code, message, retryAfterSeconds, headers } = refusalAnswer(admission);
      const extensions = retryAfterSeconds === undefined ? {} : { retryAfterSeconds };
      endResponse(errorResponse(request, fetchAPI, code, message, extensions, { ...headers, ...retryAfterHeader(code, retryAfterSeconds) }));
    },
    onResponse({ request, response }) {
      const admission = stateOf(request).admitted;
      const quota = admission && 'quota' in admission ? admission.quota : undefined;
      for (const [name, value] of Object.entries(rateLimitHeaders(quota))) {
        if (!response.headers.has(name)) response.headers.set(name, value);
      }
    },
  };
}
