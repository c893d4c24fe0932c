// Tracing (OpenTelemetry), on only when an OTLP endpoint is configured: a tracer provider that
// batches spans to the endpoint (OTLP over HTTP, JSON), registered as the process's global one with
// W3C trace-context propagation, and spans for the SQL sent through node-postgres. The request and
// GraphQL spans are the app's (use-tracing.ts, as `plugin`). Unconfigured, nothing of OpenTelemetry
// is even loaded (the API included): no provider, no context manager, `pg` untouched, and the app
// has no tracing plugin.
//
// SQL spans: @opentelemetry/instrumentation-pg, applied to the `pg` module object this process has
// already loaded, rather than through its require/import hooks: under ESM those need
// import-in-the-middle registered (`--import`) before `pg` is first imported, which every way of
// starting the service (npm start, tsx, the cluster's workers, tests) would have to get right. Its
// patch wraps pg.Client.prototype.query, which every connection of every pool calls - Prisma's (the
// pg driver adapter) and the hand-written SQL's alike. Not @prisma/instrumentation: it traces Prisma
// alone (not `queryRows`, which bypasses Prisma), with spans of Prisma's own internals.
import type { Tracer } from '@opentelemetry/api';
import type { PgRequestHookInformation } from '@opentelemetry/instrumentation-pg';
import type { Sampler, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Plugin } from 'graphql-yoga';
import pg from 'pg';
import type { TracingConfig } from '../config.js';
import type { Logger } from '../logging/logger.js';

export interface TracingOptions {
  /** Where spans go instead of the OTLP endpoint (tests pass an in-memory exporter). */
  exporter?: SpanExporter;
  /** Where the SDK's own errors go (an export that failed), as warnings. */
  logger?: Logger;
}

export interface Tracing {
  /** The app's request and GraphQL spans (use-tracing.ts on `tracer`): the app's outermost plugin. */
  readonly plugin: Plugin;
  readonly tracer: Tracer;
  /** Exports every span ended so far. */
  forceFlush(): Promise<void>;
  /** Exports what is left, then undoes everything startTracing did (pg's patch, the globals). */
  shutdown(): Promise<void>;
}

export const DEFAULT_SERVICE_NAME = 'clinic-analytics-api';

/**
 * The URL spans are sent to, as the OTLP exporter specification derives it: the traces endpoint as
 * given, else the general endpoint with `v1/traces` appended; undefined: tracing is off.
 */
export function tracesEndpoint(config: TracingConfig): string | undefined {
  if (config.OTEL_SDK_DISABLED || config.OTEL_TRACES_EXPORTER === 'none') return undefined;
  if (config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  return base === undefined ? undefined : `${base.endsWith('/') ? base : `${base}/`}v1/traces`;
}

/**
 * Starts tracing for this process when an endpoint is configured (or an exporter given); undefined
 * otherwise, having loaded and registered nothing. Call before the database client is created: its
 * connections take `query` from pg.Client's prototype when they connect (db/client.ts).
 */
export async function startTracing(config: TracingConfig, options: TracingOptions = {}): Promise<Tracing | undefined> {
  if (config.OTEL_SDK_DISABLED) return undefined;
  const url = tracesEndpoint(config);
  if (url === undefined && !options.exporter) return undefined;

  const [api, { NodeTracerProvider }, { BatchSpanProcessor }, { OTLPTraceExporter }, resources, { PgInstrumentation }, { ATTR_SERVICE_NAME }, { useTracing }] =
    await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/instrumentation-pg'),
      import('@opentelemetry/semantic-conventions'),
      import('./use-tracing.js'),
    ]);
  const { context, diag, propagation, trace } = api;
  // OTEL_SERVICE_NAME, then a service.name in OTEL_RESOURCE_ATTRIBUTES (the env detector applies
  // that order), then ours.
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ [ATTR_SERVICE_NAME]: DEFAULT_SERVICE_NAME }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  // OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT and _COMPRESSION are read by the exporter itself.
  const exporter = options.exporter ?? new OTLPTraceExporter({ url });
  const provider = new NodeTracerProvider({
    resource,
    sampler: await samplerOf(config),
    // OTEL_BSP_* (queue size, delay) are read by the processor itself.
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  // Global tracer provider, AsyncLocalStorage context manager, W3C traceparent/tracestate and baggage.
  provider.register();
  const { logger } = options;
  if (logger) {
    const warn = (message: string, ...args: unknown[]) => logger.warn({ otel: args.map(String) }, `tracing: ${message}`);
    diag.setLogger({ error: warn, warn, info: () => {}, debug: () => {}, verbose: () => {} }, api.DiagLogLevel.WARN);
  }

  const pgInstrumentation = new PgInstrumentation({
    // Patched by hand below, not through module hooks (see the top of this file).
    enabled: false,
    // Only statements of a traced request: the background work (folding phone numbers every few
    // seconds) would otherwise make a trace of its own each time.
    requireParentSpan: true,
    // Never the bound values (patient data): statement text only.
    enhancedDatabaseReporting: false,
    requestHook: withoutInlinedValues,
  });
  pgInstrumentation.setTracerProvider(provider);
  const pgModule = pgInstrumentation.getModuleDefinitions().find((definition) => definition.name === 'pg');
  if (!pgModule?.patch || !pgModule.unpatch) throw new Error('tracing: @opentelemetry/instrumentation-pg no longer defines a patch for pg');
  pgModule.patch(pg);
  const { unpatch } = pgModule;

  const tracer = provider.getTracer(DEFAULT_SERVICE_NAME);
  return {
    plugin: useTracing(tracer),
    tracer,
    forceFlush: () => provider.forceFlush(),
    async shutdown() {
      unpatch(pg);
      try {
        await provider.shutdown();
      } finally {
        trace.disable();
        context.disable();
        propagation.disable();
        diag.disable();
      }
    },
  };
}

/** The standard sampler variables (validated in config.ts); the SDK's default is parentbased_always_on. */
async function samplerOf(config: TracingConfig): Promise<Sampler> {
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } = await import('@opentelemetry/sdk-trace-base');
  const ratio = () => new TraceIdRatioBasedSampler(config.OTEL_TRACES_SAMPLER_ARG ?? 1);
  switch (config.OTEL_TRACES_SAMPLER) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/**
 * A statement sent without bind values may carry its values inlined as literals: the COPY of an
 * export does (rest/exports/interactions.ts: COPY takes no parameters), with a search's text among them.
 * Its recorded text has every string literal replaced by `?`; statements with bind values keep
 * theirs (literals written in the code, never a request's values).
 */
function withoutInlinedValues(span: { setAttribute(key: string, value: string): unknown }, info: PgRequestHookInformation): void {
  const { text, values } = info.query;
  if (values?.length || !text.includes("'")) return;
  span.setAttribute('db.query.text', redactLiterals(text));
}

/** `text` with each SQL string literal (`'...'`, `''` inside it; to the end if unterminated) as `?`. */
export function redactLiterals(text: string): string {
  return text.replace(/'(?:[^']|'')*(?:'|$)/g, '?');
}
