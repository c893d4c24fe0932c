// The REST facade's plugin, and the conditional requests it answers (ETags, If-None-Match).
//
// The REST facade as a Yoga plugin (the pattern of graphql-yoga's SOFA plugin): requests under
// /api/ are answered here, by executing the route's fixed GraphQL document through the same
// envelop pipeline as /graphql (same context, scopes, masking and plugins), in-process.
// Documents are validated once, at start-up; requests skip parsing and validation, and execute
// compiled (graphql/use-compiled-execution.ts).

import { createHash, type Hash } from 'node:crypto';
import { type DocumentNode, type ExecutionResult, type GraphQLError, type GraphQLSchema, getOperationAST, validate } from 'graphql';
import type { Plugin, YogaInitialContext, YogaServerInstance } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { type ApiKeyPrincipal, readsPhi, type VisibleClinics } from '../auth/api-keys.js';
import { type Db, queryRows } from '../db/client.js';
import { isDatabaseUnavailable } from '../db/errors.js';
import type { ErrorCode } from '../domain/error-catalogue.js';
import type { Problems } from '../domain/parameters.js';
import { Prisma } from '../generated/prisma/client.js';
import {
  CALLER_PARAMETERS,
  type CallerParameters,
  concurrencyRefusal,
  databaseCosts,
  type GraphQLContext,
  REST_EXECUTION,
  type RootFieldUnits,
  rootFieldUnits,
} from '../graphql/builder.js';
import { operationErrors } from '../graphql/use-operation-errors.js';
import { type Admitter, type KeyConcurrency, refusalAnswer, TimeSlice } from '../limits/admission.js';
import { type HeavyWork, isHeavy } from '../limits/heavy-lane.js';
import type { QuotaDecision } from '../limits/windows.js';
import { stateOf } from '../request/state.js';
import type { Exports } from './exports/index.js';
import { exportFormatsOf } from './exports/routes.js';
import {
  type ExportFormat,
  FORMAT_PARAM,
  failure,
  insufficientScope,
  listLinks,
  type MatchedRoute,
  negotiate,
  notModified,
  type QueryValues,
  REST_NAMES,
  type Route,
  readQuery,
  report,
  restVariables,
  routes,
  successFromPayload,
  successPayloadParts,
  withFormat,
} from './routes.js';

export interface RestOptions {
  /**
   * The REST route of a request, if it has one: the app's route table (http/app-plugins.ts, above
   * this facade) matches each request's path once and keeps the match in its request state.
   */
  restRouteOf: (request: Request, url: URL) => MatchedRoute | undefined;
  admitter: Admitter;
  now: () => Date;
  /** Where an unexpected failure of the facade itself is reported (the client gets a generic 500). */
  onError: (error: unknown, request: Request) => void;
  /** CSV and NDJSON exports (src/rest/exports), asked once a request is admitted and has the route's scope. */
  exports?: Exports;
  /** Serves heavy routes (a year of hourly buckets) in a worker thread; unset: here, in time slices. */
  heavyLane?: HeavyWork;
  /** The keys' units in flight (shared with builder.ts): taken here for what is handed to the heavy lane. */
  concurrency: KeyConcurrency;
}

/** The error code a failed execution answers with (its status, message and Retry-After are the catalogue's). */
function executionFailure(errors: readonly GraphQLError[]): Extract<ErrorCode, 'RATE_LIMITED' | 'SERVICE_UNAVAILABLE' | 'INTERNAL_ERROR'> {
  if (errors.some((e) => e.extensions?.code === 'RATE_LIMITED')) return 'RATE_LIMITED';
  if (errors.some((e) => e.extensions?.code === 'SERVICE_UNAVAILABLE')) return 'SERVICE_UNAVAILABLE';
  return 'INTERNAL_ERROR';
}

export function useRest(options: RestOptions): Plugin {
  const etags = new EtagMemory();
  // Each route's export formats, known at start-up: a request looks its route up instead of asking again.
  const exportFormats = new Map<Route, readonly ExportFormat[]>(routes.map((route) => [route, options.exports ? exportFormatsOf(route.path) : []]));
  let yoga: YogaServerInstance<Record<string, never>, GraphQLContext> | undefined;
  // The schema does not change after start-up: read once, not through getEnveloped() per request.
  let typeSchema: GraphQLSchema | undefined;
  let costs: ReturnType<typeof databaseCosts> | undefined;

  return {
    onYogaInit({ yoga: instance }) {
      const schema = instance.getEnveloped().schema;
      typeSchema = schema;
      yoga = instance as unknown as YogaServerInstance<Record<string, never>, GraphQLContext>;
      for (const route of routes) {
        for (const document of [route.document, ...(route.alternative ? [route.alternative.document] : [])]) {
          // Valid, and a query: use-operation-errors.ts, which refuses the other operations, is
          // not called for the facade's executions.
          const errors = [...validate(schema, document), ...operationErrors({ schema, document, contextValue: undefined })];
          if (errors.length) throw new Error(`REST document for ${route.path} is invalid: ${errors.map((e) => e.message).join('; ')}`);
        }
      }
    },
    // Unknown paths and methods other than GET and HEAD were answered by useRoutes (http/app-plugins.ts).
    async onRequest({ request, url, endResponse, serverContext }) {
      const matched = options.restRouteOf(request, url);
      if (!matched) return;
      try {
        endResponse(await handle(request, url, matched.route, matched.pathParams, serverContext as Record<string, unknown>));
      } catch (error) {
        // A context that could not be made (graphql/builder.ts reads which clinics the key may
        // see) arrives masked by Yoga, which has logged it once already: a database that cannot
        // answer is a 503 there as anywhere else.
        const masked = (error as { extensions?: { code?: unknown } } | null)?.extensions?.code === 'SERVICE_UNAVAILABLE';
        if (!masked) options.onError(error, request);
        endResponse(failure(request, masked || isDatabaseUnavailable(error) ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_ERROR'));
      }
    },
  };

  /** The units of database work a route's document takes with these variables, per root field (builder.ts). */
  function unitsOf(document: DocumentNode, variables: Record<string, unknown>): RootFieldUnits[] {
    const operation = getOperationAST(document);
    if (!operation) return [];
    costs ??= databaseCosts(typeSchema!);
    return rootFieldUnits(operation, document, costs, { schema: typeSchema!, variables, nowMs: options.now().getTime() });
  }

  /**
   * A heavy request is served by the heavy lane's worker (limits/heavy-lane.ts), with its units
   * taken here first, as an execution here would take them, and given back when its answer is back.
   */
  async function handOver(lane: HeavyWork, request: Request, key: ApiKeyPrincipal, quota: QuotaDecision | undefined, units: number[]): Promise<Response> {
    const decision = options.concurrency.acquire(key.id, key.tier, units);
    if (!decision.ok) {
      const refusal = concurrencyRefusal(decision);
      const { details, retryAfterSeconds } = refusal.extensions as { details: Record<string, unknown>; retryAfterSeconds?: number };
      return failure(request, 'RATE_LIMITED', { message: refusal.message, details, retryAfterSeconds });
    }
    try {
      // Everything but the key itself, which the worker never reads: the admission travels with the request.
      const headers = [...request.headers].filter(([name]) => name !== 'authorization' && name !== 'x-request-id');
      headers.push(['x-request-id', stateOf(request).id]);
      return await lane.serve({ method: request.method, url: request.url, headers, key, quota });
    } finally {
      decision.release();
    }
  }

  async function handle(request: Request, url: URL, route: Route, pathParams: Record<string, string>, serverContext: Record<string, unknown>) {
    const admission = await options.admitter.admit(request);
    if (!admission.ok) {
      const { code, message, retryAfterSeconds, headers } = refusalAnswer(admission);
      return failure(request, code, { message, retryAfterSeconds, headers });
    }
    const auth = admission;
    if (route.scope && !auth.key.scopes.includes(route.scope)) {
      return insufficientScope(request, route.scope, `This API key lacks the scope ${route.scope} needed for this endpoint`);
    }
    // `format` or Accept (src/rest/routes.ts): an export, on a route that has one, is every
    // matching row as a file, streamed; an Accept the route can meet with nothing is 406.
    const formats = exportFormats.get(route) ?? [];
    const negotiated = negotiate(url, request.headers.get('accept'), formats);
    if (!negotiated.acceptable) {
      return failure(request, 'NOT_ACCEPTABLE', { details: { available: negotiated.available } });
    }
    if (negotiated.format) {
      const execution = { yoga: yoga!, schema: typeSchema!, serverContext };
      return options.exports!.answer({ request, url, route, key: auth.key, execution, format: negotiated.format });
    }
    // Problems of the query string itself (unknown or repeated names, encodings, numbers that are
    // not digits); the values' rules are the resolvers', which name problems as REST does and, when
    // the query string already has problems, only check (graphql/builder.ts).
    const problems: Problems = {};
    const query = readQuery(url, withFormat(route.params, formats), problems);
    if (negotiated.problem) report(problems, FORMAT_PARAM, negotiated.problem);
    // The cursor list of /interactions is another document on the same path (routes.ts).
    const chosen = route.alternative?.when(query) ? route.alternative : route;
    if (chosen !== route) {
      for (const [name, message] of Object.entries(route.alternative!.refuses)) if (query[name] !== undefined) report(problems, name, message);
    }
    const { variables, unconverted } = restVariables(typeSchema!, chosen.document, REST_NAMES, { query, pathParams }, problems);
    const caller: CallerParameters = { names: REST_NAMES, unconverted, checkOnly: Object.keys(problems).length > 0 };
    if (options.heavyLane && !caller.checkOnly) {
      // Judged by each field's own units, as GraphQL's heavy lane judges them (use-heavy-lane.ts); the
      // limit takes what the fields hold.
      const fields = unitsOf(chosen.document, variables);
      if (isHeavy(fields.map((field) => field.own))) {
        return handOver(
          options.heavyLane,
          request,
          auth.key,
          auth.quota,
          fields.map((field) => field.held),
        );
      }
    }

    const initialContext = {
      ...serverContext,
      request,
      params: { variables },
      [REST_EXECUTION]: true,
      [CALLER_PARAMETERS]: caller,
    } as unknown as YogaInitialContext;
    const { execute, contextFactory, schema } = yoga!.getEnveloped(initialContext);
    const contextValue = (await contextFactory()) as unknown as GraphQLContext;

    // If-None-Match: answered 304 without running the request when the data it depends on has not
    // changed since its ETag was computed (EtagMemory, below).
    const ifNoneMatch = request.headers.get('if-none-match');
    const conditional = conditionalOf(
      { path: route.path, query, pathParams, visibleClinics: contextValue.visibleClinics, masked: !readsPhi(contextValue.key) },
      options.now().getTime(),
    );
    let version: string | undefined;
    if (ifNoneMatch !== null && conditional.confirmable && !caller.checkOnly) {
      const confirmed = await etags.confirm(contextValue.db, contextValue.visibleClinics, conditional, ifNoneMatch).catch(() => undefined);
      if (confirmed?.etag) return notModified(request, { ETag: confirmed.etag, ...CACHING_HEADERS });
      version = confirmed?.version;
    }

    const result = (await execute({
      schema,
      document: chosen.document,
      variableValues: variables,
      contextValue,
    })) as ExecutionResult<Record<string, unknown>>;

    if (caller.checkOnly || result.errors?.length) {
      // A parameter the key's scopes do not allow (filters/interaction-filters.ts: `search`, `q`): refused before
      // any value is judged, as the route's own scope is.
      const refused = result.errors?.find((e) => e.extensions?.code === 'INSUFFICIENT_SCOPE');
      const required = (refused?.extensions.details as { required_scope?: string } | undefined)?.required_scope;
      if (refused && required) return insufficientScope(request, required, refused.message);
      const validation = result.errors?.find((e) => e.extensions?.code === 'VALIDATION_ERROR');
      if (validation || caller.checkOnly) {
        return failure(request, 'VALIDATION_ERROR', { details: Object.assign(problems, validation?.extensions.details as Problems | undefined) });
      }
      if (!result.errors) throw new Error('unreachable');
      // The key's concurrency limit (graphql/builder.ts) says what it counted.
      const concurrency = result.errors.find((e) => e.extensions?.code === 'RATE_LIMITED' && e.extensions.details);
      if (concurrency) {
        const { details, retryAfterSeconds } = concurrency.extensions as { details: Record<string, unknown>; retryAfterSeconds?: number };
        return failure(request, 'RATE_LIMITED', { message: concurrency.message, details, retryAfterSeconds });
      }
      return failure(request, executionFailure(result.errors));
    }
    // Reshaped, serialized and hashed in time slices: a year of hourly buckets is 3-4 MB of JSON.
    const slice = new TimeSlice();
    const shaped = await chosen.shape(result.data as never, query, slice);
    if (!shaped) return failure(request, 'NOT_FOUND', { message: `No ${route.dataSchema === 'InteractionDetail' ? 'interaction' : 'resource'} with that id` });
    const parts = await successPayloadParts(shaped.data, shaped.meta, slice);
    const etag = await etagOfParts(conditional.identity, parts, slice);
    if (version !== undefined) etags.remember(conditional, version, etag);
    const headers: Record<string, string> = { ETag: etag, ...CACHING_HEADERS };
    const links = shaped.meta && listLinks(url, shaped.meta);
    if (links) headers.Link = links;
    if (ifNoneMatchNames(ifNoneMatch, etag)) return notModified(request, headers);
    return successFromPayload(request, parts, headers);
  }
}

/**
 * Caching of a 200 or 304: a private cache may keep it but must revalidate (If-None-Match) before
 * reusing it; the answer differs by key, by export format and by encoding.
 */
const CACHING_HEADERS = { 'Cache-Control': 'private, no-cache', Vary: 'Authorization, Accept, Accept-Encoding' } as const;

// HTTP caching of REST answers: a weak ETag over what a 200 says (`data` and `meta`, not the
// request id or timestamp, which differ on every answer) and the request it answers, and 304 Not
// Modified for an `If-None-Match` that names it.
//
// A 304 should not cost the query it saves the client from downloading. Each clinic counts its
// changes (clinic_data_versions plus the pending clinic_data_changes), added by triggers in the
// same transaction as any change to its row, its campaigns, its interactions or their transcripts;
// the count over the clinics a key can see grows whenever anything it could be shown changes. The ETag of a request
// is remembered here with the version it was computed at: while that version stands, a matching
// `If-None-Match` is answered 304 after reading one row of versions, without running the request.
// Otherwise the request runs, and its ETag decides.
//
// The version is read before the request runs, so an answer is never remembered under a version
// older than the data it was computed from (a change in between only costs one more run).
// Answers that depend on more than the data are not remembered: the change feed and the tombstones
// of deleted interactions (their horizon moves with other sessions' transactions) and /me (live
// quota). Metrics whose window defaults to "today" are remembered under a 15-minute bucket of the
// clock as well, since a new day changes them.

/** How long a metrics answer with a window relative to today is remembered at most (whole quarters of an hour cover every zone offset). */
const CLOCK_BUCKET_MS = 15 * 60_000;

/** Remembered ETags; each entry is a few hundred bytes. */
const MAX_REMEMBERED = 20_000;

export interface Conditional {
  /** What the answer depends on besides the data: path, parameters, what the key may see. */
  identity: string;
  /** Whether an answer to it can be confirmed by the data version alone. */
  confirmable: boolean;
}

/** The request an answer is for, in a canonical form (parameters sorted; values as decoded). */
export function conditionalOf(
  request: {
    path: string;
    query: QueryValues;
    pathParams: Record<string, string>;
    visibleClinics: VisibleClinics;
    /** The key lacks phi:read: the same request is answered with patient data masked (src/phi). */
    masked?: boolean;
  },
  nowMs: number,
): Conditional {
  const { path, query, pathParams, visibleClinics, masked = false } = request;
  const names = Object.keys(query).sort();
  const relativeToToday = path.startsWith('/api/v1/metrics/') && (query.date_from === undefined || query.date_to === undefined);
  // The change feed and the tombstones stop at a horizon that moves with other sessions' transactions.
  const confirmable = path !== '/api/v1/me' && path !== '/api/v1/interactions/deleted' && query.updated_since === undefined;
  const identity = JSON.stringify([
    path,
    pathParams,
    names.map((name) => [name, query[name]]),
    visibleClinics === null ? null : [...visibleClinics].sort(),
    relativeToToday ? Math.floor(nowMs / CLOCK_BUCKET_MS) : null,
    // Last and only when true, so that every other answer keeps the ETag it had before.
    ...(masked ? ['masked'] : []),
  ]);
  return { identity, confirmable };
}

/** The weak ETag of an answer: the request's identity and the text of `data` and `meta`. */
export function etagOf(identity: string, payloadText: string): string {
  return weakTag(etagHash(identity).update(payloadText));
}

/** etagOf over a payload in parts (successPayloadParts), hashed in time slices: the same tag. */
export async function etagOfParts(identity: string, parts: ReadonlyArray<string | Uint8Array>, slice: TimeSlice): Promise<string> {
  const hash = etagHash(identity);
  for (const part of parts) {
    hash.update(part);
    await slice.pause();
  }
  return weakTag(hash);
}

const etagHash = (identity: string) => createHash('sha256').update(identity).update('\n');
const weakTag = (hash: Hash) => `W/"${hash.digest('base64url').slice(0, 32)}"`;

/**
 * Whether `If-None-Match` names `etag` (RFC 9110 13.1.2: weak comparison, a list, or `*`). Hostile
 * values are only compared, never parsed further; the header's size is bounded by the server.
 */
export function ifNoneMatchNames(header: string | null, etag: string): boolean {
  if (header === null) return false;
  const opaque = etag.replace(/^W\//, '');
  for (const raw of header.split(',')) {
    const tag = raw.trim();
    if (tag === '*' || tag.replace(/^W\//, '') === opaque) return true;
  }
  return false;
}

/**
 * How many changes the clinics a key may see have had: the folded counts plus the changes still
 * pending, in one snapshot. Every commit that touches one of them adds to it.
 */
async function dataVersion(db: Db, visibleClinics: VisibleClinics): Promise<string> {
  const only = visibleClinics === null ? Prisma.sql`TRUE` : Prisma.sql`clinic_id = ANY(${[...visibleClinics]}::uuid[])`;
  const [row] = await queryRows<{ version: string | null }>(
    db,
    Prisma.sql`SELECT ((SELECT coalesce(sum(version), 0) FROM clinic_data_versions WHERE ${only})
                     + (SELECT count(*) FROM clinic_data_changes WHERE ${only}))::text AS version`,
  );
  return row?.version ?? '0';
}

interface Remembered {
  version: string;
  etag: string;
}

/** The ETags this instance has computed, with the data version each was computed at. */
export class EtagMemory {
  private readonly remembered = new LRUCache<string, Remembered>({ max: MAX_REMEMBERED });

  /**
   * For a request with `If-None-Match`: the data version now (read before the request runs), and
   * the ETag that still holds if one was remembered at that version and the header names it.
   */
  async confirm(db: Db, visibleClinics: VisibleClinics, conditional: Conditional, ifNoneMatch: string): Promise<{ version: string; etag?: string }> {
    const version = await dataVersion(db, visibleClinics);
    const known = this.remembered.get(conditional.identity);
    if (known && known.version === version && ifNoneMatchNames(ifNoneMatch, known.etag)) return { version, etag: known.etag };
    return { version };
  }

  remember(conditional: Conditional, version: string, etag: string): void {
    this.remembered.set(conditional.identity, { version, etag });
  }
}
