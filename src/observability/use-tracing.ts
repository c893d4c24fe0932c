// The app's spans (tracing.ts sets up the rest): one server span per HTTP request, named by method
// and route pattern (`GET /api/v1/interactions/{id}`), a child of the caller's trace when the
// request carries a valid W3C `traceparent`; inside it graphql.parse, graphql.validate and one
// execution span per GraphQL execution named by operation (`query ClinicNames`) - REST requests
// too, whose route documents execute in-process (rest/use-rest.ts). The SQL spans hang below them.
//
// Written on @opentelemetry/api rather than @envelop/opentelemetry, which is built on the 1.x SDK
// (the service runs the 2.x one). Only in the app when tracing is configured (app.ts).
//
// Nothing a client wrote goes into a span: never the raw path (ids), the query string, the GraphQL
// document or variables, or an error's message (a syntax error quotes the document).
// Health checks and metrics scrapes are not traced: a probe every few seconds would bury the
// requests in traces of its own.
import { context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, type TextMapGetter, type Tracer, trace } from '@opentelemetry/api';
import { type GraphQLError, getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { routeOf } from '../http/app-plugins.js';
import { admissionOf } from '../limits/admission.js';
import { methodOf, stateOf } from '../request/state.js';

const headers: TextMapGetter<Headers> = {
  keys: (carrier) => [...carrier.keys()],
  get: (carrier, key) => carrier.get(key) ?? undefined,
};

/** Codes of failures of the service itself; the others are the client's (a bad argument, a refusal). */
const SERVER_FAILURES: ReadonlySet<unknown> = new Set(['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']);

function isServerFailure(error: GraphQLError): boolean {
  const code = error.extensions?.code;
  if (code !== undefined) return SERVER_FAILURES.has(code);
  // Not yet masked (app.ts maskError): an error thrown by a resolver that is not a GraphQL error.
  return error.originalError !== undefined && !('extensions' in error.originalError);
}

/**
 * Runs `wrapped` (sync or async) with `span` active, as a child of `parent`, and ends the span once
 * it is done; `failed` marks the span when it throws or rejects.
 */
function within<T>(span: Span, wrapped: () => T, parent = context.active(), failed = markFailed): T {
  const fail = (error: unknown): never => {
    failed(span);
    span.end();
    throw error;
  };
  let result: T;
  try {
    result = context.with(trace.setSpan(parent, span), wrapped);
  } catch (error) {
    return fail(error);
  }
  if (!(result instanceof Promise)) {
    span.end();
    return result;
  }
  return result.then((value: unknown) => {
    span.end();
    return value;
  }, fail) as T;
}

/** No message: it may quote what the client sent. */
function markFailed(span: Span): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** The handling failed outside Yoga's error handling: the server answers 500 itself, and no onResponse runs. */
function markRequestFailed(span: Span): void {
  span.setAttribute('http.response.status_code', 500);
  span.setAttribute('error.type', '500');
  span.setStatus({ code: SpanStatusCode.ERROR });
}

export function useTracing(tracer: Tracer): Plugin {
  const requestSpans = new WeakMap<Request, Span>();
  const executionSpans = new WeakSet<Span>();

  return {
    instrumentation: {
      request({ request }, wrapped) {
        const route = routeOf(request);
        if (route.area === 'health' || route.area === 'metrics') return wrapped();
        const method = methodOf(request);
        // The semantic conventions' `_OTHER` for methods outside the standard ones.
        const label = method === 'OTHER' ? '_OTHER' : method;
        // A malformed traceparent is ignored by the propagator: the request starts a new trace.
        const parent = propagation.extract(ROOT_CONTEXT, request.headers, headers);
        const matched = route.area !== 'none' && route.area !== 'yoga';
        const span = tracer.startSpan(
          matched ? `${label} ${route.label}` : label,
          {
            kind: SpanKind.SERVER,
            attributes: {
              'http.request.method': label,
              ...(matched ? { 'http.route': route.label } : {}),
              'clinic_analytics.request_id': stateOf(request).id,
            },
          },
          parent,
        );
        requestSpans.set(request, span);
        // Ended once the response is ready (onResponse below has run), before a streamed body is sent.
        return within(span, wrapped, parent, markRequestFailed);
      },
      parse(_payload, wrapped) {
        within(tracer.startSpan('graphql.parse'), wrapped);
      },
      validate(_payload, wrapped) {
        within(tracer.startSpan('graphql.validate'), wrapped);
      },
      execute(_payload, wrapped) {
        const span = tracer.startSpan('graphql.execute');
        executionSpans.add(span);
        return within(span, wrapped);
      },
    },
    // The execution span was started by the instrumentation above, which sees no document; named
    // here, where the document is known (this hook runs inside it, with that span active).
    onExecute({ args }) {
      const span = trace.getActiveSpan();
      if (!span || !executionSpans.has(span)) return;
      const operation = getOperationAST(args.document, args.operationName);
      if (operation) {
        // Cut as in the request log: the client chooses it.
        const name = operation.name?.value.slice(0, 100);
        span.updateName(name ? `${operation.operation} ${name}` : operation.operation);
        span.setAttribute('graphql.operation.type', operation.operation);
        if (name) span.setAttribute('graphql.operation.name', name);
      }
      return {
        onExecuteDone({ result }) {
          if (Symbol.asyncIterator in result) return;
          const failure = result.errors?.find(isServerFailure);
          if (failure) span.setStatus({ code: SpanStatusCode.ERROR, message: String(failure.extensions?.code ?? 'INTERNAL_ERROR') });
        },
      };
    },
    onResponse({ request, response }) {
      const span = requestSpans.get(request);
      if (!span) return;
      span.setAttribute('http.response.status_code', response.status);
      if (response.status >= 500) {
        span.setAttribute('error.type', String(response.status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      const keyId = admissionOf(request)?.keyId;
      if (keyId) span.setAttribute('clinic_analytics.key_id', keyId);
    },
  };
}
