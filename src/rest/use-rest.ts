// The REST facade as a Yoga plugin (the pattern of graphql-yoga's SOFA plugin): requests under
// /api/ are answered here, by executing the route's fixed GraphQL document through the same
// envelop pipeline as /graphql (same context, scopes, masking and plugins), in-process.
// Documents are validated once, at start-up; requests skip parsing and validation, and execute
// through graphql-jit (compiled once per document).
import { useGraphQlJit } from '@envelop/graphql-jit';
import { type ExecutionResult, type GraphQLError, validate } from 'graphql';
import type { Plugin, YogaInitialContext, YogaServerInstance } from 'graphql-yoga';
import type { Problems } from '../domain/parameters.js';
import { CALLER_PARAMETERS, type CallerParameters, type GraphQLContext } from '../graphql/context.js';
import { isRestExecution, REST_EXECUTION } from '../graphql/use-query-limits.js';
import type { Admitter } from '../limits/admission.js';
import { failure, success } from './envelope.js';
import { readQuery } from './query-params.js';
import { matchRoute, REST_NAMES, type Route, routes } from './routes.js';
import { restVariables } from './variables.js';

export interface RestOptions {
  admitter: Admitter;
  now: () => Date;
  /** Paths served by other plugins or by Yoga itself (GraphQL, health, docs). */
  passThrough: (pathname: string) => boolean;
  /** Where an unexpected failure of the facade itself is reported (the client gets a generic 500). */
  onError: (error: unknown, request: Request) => void;
}

const ALLOW = 'GET, HEAD';

/** The error code a failed execution maps to, with its HTTP status. */
function executionFailure(errors: readonly GraphQLError[]): { status: number; code: 'RATE_LIMITED' | 'SERVICE_UNAVAILABLE' | 'INTERNAL_ERROR' } {
  if (errors.some((e) => e.extensions?.code === 'RATE_LIMITED')) return { status: 429, code: 'RATE_LIMITED' };
  if (errors.some((e) => e.extensions?.code === 'SERVICE_UNAVAILABLE')) return { status: 503, code: 'SERVICE_UNAVAILABLE' };
  return { status: 500, code: 'INTERNAL_ERROR' };
}

const FAILURE_MESSAGES = {
  RATE_LIMITED: 'Rate limit exceeded',
  SERVICE_UNAVAILABLE: 'The service is temporarily unavailable; retry shortly',
  INTERNAL_ERROR: 'An unexpected error occurred',
} as const;

export function useRest(options: RestOptions): Plugin {
  let yoga: YogaServerInstance<Record<string, never>, GraphQLContext> | undefined;

  return {
    onPluginInit({ addPlugin }) {
      // A REST document is fixed, so compiling it to JavaScript once pays off from the second
      // request: a year of daily metrics is 365 objects of 9 fields, which graphql-js resolves one
      // field at a time. Free-form /graphql queries keep the reference executor: each new document
      // would be a compilation, and its behaviour there is what GraphiQL users see.
      addPlugin(useGraphQlJit({}, { enableIf: ({ contextValue }) => isRestExecution(contextValue) }) as Plugin);
    },
    onYogaInit({ yoga: instance }) {
      yoga = instance as unknown as YogaServerInstance<Record<string, never>, GraphQLContext>;
      for (const route of routes) {
        const errors = validate(instance.getEnveloped().schema, route.document);
        if (errors.length) throw new Error(`REST document for ${route.path} is invalid: ${errors.map((e) => e.message).join('; ')}`);
      }
    },
    async onRequest({ request, url, endResponse, serverContext }) {
      if (options.passThrough(url.pathname)) return;
      const matched = matchRoute(url.pathname);
      if (!matched) {
        endResponse(failure(request, 404, { code: 'NOT_FOUND', message: `No endpoint at ${url.pathname}` }));
        return;
      }
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(failure(request, 405, { code: 'METHOD_NOT_ALLOWED', message: `${request.method} is not allowed; use GET or HEAD` }, { Allow: ALLOW }));
        return;
      }
      try {
        endResponse(await handle(request, url, matched.route, matched.pathParams, serverContext as Record<string, unknown>));
      } catch (error) {
        options.onError(error, request);
        endResponse(failure(request, 500, { code: 'INTERNAL_ERROR', message: FAILURE_MESSAGES.INTERNAL_ERROR }));
      }
    },
  };

  async function handle(request: Request, url: URL, route: Route, pathParams: Record<string, string>, serverContext: Record<string, unknown>) {
    const admission = await options.admitter.admit(request);
    if (!admission.ok) {
      if (admission.status === 401) {
        const { code, message, challenge } = admission.failure;
        return failure(request, 401, { code, message }, { 'WWW-Authenticate': challenge });
      }
      if (admission.status === 429) {
        return failure(request, 429, { code: 'RATE_LIMITED', message: 'Rate limit exceeded' }, { 'Retry-After': String(admission.retryAfterSeconds) });
      }
      return failure(request, 503, { code: 'SERVICE_UNAVAILABLE', message: 'The service is temporarily unavailable; retry shortly' }, { 'Retry-After': '5' });
    }
    const auth = admission;
    if (!auth.key.scopes.includes(route.scope)) {
      return failure(
        request,
        403,
        {
          code: 'INSUFFICIENT_SCOPE',
          message: `This API key lacks the scope ${route.scope} needed for this endpoint`,
          details: { required_scope: route.scope },
        },
        { 'WWW-Authenticate': `Bearer realm="api", error="insufficient_scope", scope="${route.scope}"` },
      );
    }
    // Problems of the query string itself (unknown or repeated names, encodings, numbers that are
    // not digits); the values' rules are the resolvers', which name problems as REST does and, when
    // the query string already has problems, only check (graphql/errors.ts).
    const problems: Problems = {};
    const query = readQuery(url, route.params, problems);
    const { variables, unconverted } = restVariables(yoga!.getEnveloped().schema, route.document, REST_NAMES, { query, pathParams }, problems);
    const caller: CallerParameters = { names: REST_NAMES, unconverted, checkOnly: Object.keys(problems).length > 0 };

    const initialContext = {
      ...serverContext,
      request,
      params: { variables },
      [REST_EXECUTION]: true,
      [CALLER_PARAMETERS]: caller,
    } as unknown as YogaInitialContext;
    const { execute, contextFactory, schema } = yoga!.getEnveloped(initialContext);
    const result = (await execute({
      schema,
      document: route.document,
      variableValues: variables,
      contextValue: await contextFactory(),
    })) as ExecutionResult<Record<string, unknown>>;

    if (caller.checkOnly || result.errors?.length) {
      const validation = result.errors?.find((e) => e.extensions?.code === 'VALIDATION_ERROR');
      if (validation || caller.checkOnly) {
        const details = Object.assign(problems, validation?.extensions.details as Problems | undefined);
        return failure(request, 400, { code: 'VALIDATION_ERROR', message: 'Invalid query parameters', details });
      }
      if (!result.errors) throw new Error('unreachable');
      const { status, code } = executionFailure(result.errors);
      const retryAfter = { RATE_LIMITED: '1', SERVICE_UNAVAILABLE: '5', INTERNAL_ERROR: undefined }[code];
      return failure(request, status, { code, message: FAILURE_MESSAGES[code] }, retryAfter ? { 'Retry-After': retryAfter } : {});
    }
    const shaped = route.shape(result.data as never);
    if (!shaped)
      return failure(request, 404, { code: 'NOT_FOUND', message: `No ${route.dataSchema === 'InteractionDetail' ? 'interaction' : 'resource'} with that id` });
    return success(request, shaped.data, shaped.meta);
  }
}
