// GraphQL over HTTP at /graphql: which media type an answer is written in (the Accept header with
// its q-values, RFC 9110 section 12.5.1), the status of an answer without `data`, and the one shape
// of every error's `extensions`. Yoga's result processors, the answers plugins write before Yoga
// runs (admission, methods) and those written below the app (client-errors.ts) all go through it.
import { GraphQLError, type GraphQLErrorExtensions, type GraphQLErrorOptions } from 'graphql';
import { type Plugin, processRegularResult } from 'graphql-yoga';
import { ERRORS, type ErrorCode } from '../domain/error-catalogue.js';

type ResultProcessPayload = Parameters<NonNullable<Plugin['onResultProcess']>>[0];
type ResultProcessorInput = ResultProcessPayload['result'];
type ResultProcessor = Parameters<ResultProcessPayload['setResultProcessor']>[0];

export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json';
export const APPLICATION_JSON = 'application/json';
/**
 * What /graphql answers in, by preference when the client's ranges leave a choice (`*` / `*`):
 * JSON first, as GraphQL over HTTP asks of servers that still serve legacy clients; then the
 * streaming types, which Yoga's own processors write.
 */
const OFFERED = [APPLICATION_JSON, GRAPHQL_RESPONSE_JSON, 'text/event-stream', 'multipart/mixed'] as const;
export type GraphQLMediaType = (typeof OFFERED)[number];
const REGULAR: ReadonlySet<GraphQLMediaType> = new Set([APPLICATION_JSON, GRAPHQL_RESPONSE_JSON]);
const REGULAR_OFFERED: readonly GraphQLMediaType[] = [APPLICATION_JSON, GRAPHQL_RESPONSE_JSON];
const STREAMING_OFFERED: readonly GraphQLMediaType[] = OFFERED.filter((type) => !REGULAR.has(type));

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
  index: number;
}

function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const [index, part] of accept.split(',').entries()) {
    const [mediaType = '', ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const [type, subtype] = mediaType.split('/');
    if (!type || !subtype) continue;
    let q = 1;
    let utf8 = true;
    for (const param of params) {
      const [name, value = ''] = param.split('=').map((piece) => piece.trim());
      if (name === 'q') q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value) ? Number(value) : 0;
      // Every answer is UTF-8: a range asking for another charset does not match it.
      if (name === 'charset' && value.replaceAll('"', '') !== 'utf-8') utf8 = false;
    }
    if (utf8) ranges.push({ type, subtype, q, index });
  }
  return ranges;
}

/** How exactly a range names a type: 2 for itself, 1 for `type/*`, 0 for `* / *`, -1 for another. */
function specificity(range: MediaRange, mediaType: string): number {
  const [type, subtype] = mediaType.split('/');
  if (range.type === '*' && range.subtype === '*') return 0;
  if (range.type !== type) return -1;
  if (range.subtype === '*') return 1;
  return range.subtype === subtype ? 2 : -1;
}

/**
 * The offered type the client prefers: each type takes the q of the most specific range naming it
 * (q=0 refuses it); the highest q wins, then the range the client listed first, then our order.
 * No Accept header is taken as `application/json` (GraphQL over HTTP); undefined: nothing acceptable.
 */
export function negotiate(accept: string | null, offered: readonly GraphQLMediaType[] = OFFERED): GraphQLMediaType | undefined {
  // Clients send a few Accept headers over and over: each one's choice is kept (per offered list,
  // at most NEGOTIATED_MAX, then started again), not parsed on every request.
  let chosen = negotiated.get(offered);
  if (!chosen) {
    chosen = new Map();
    negotiated.set(offered, chosen);
  }
  const key = accept ?? '';
  if (chosen.has(key)) return chosen.get(key);
  const answer = negotiateOnce(accept, offered);
  if (chosen.size >= NEGOTIATED_MAX) chosen.clear();
  chosen.set(key, answer);
  return answer;
}

const NEGOTIATED_MAX = 256;
const negotiated = new WeakMap<readonly GraphQLMediaType[], Map<string, GraphQLMediaType | undefined>>();

function negotiateOnce(accept: string | null, offered: readonly GraphQLMediaType[]): GraphQLMediaType | undefined {
  const ranges = parseAccept(accept?.trim() ? accept : APPLICATION_JSON);
  let best: { mediaType: GraphQLMediaType; q: number; index: number; order: number } | undefined;
  for (const [order, mediaType] of offered.entries()) {
    let match: MediaRange | undefined;
    let matchSpecificity = -1;
    for (const range of ranges) {
      const s = specificity(range, mediaType);
      if (s > matchSpecificity) [match, matchSpecificity] = [range, s];
    }
    if (!match || match.q === 0) continue;
    const candidate = { mediaType, q: match.q, index: match.index, order };
    if (!best || candidate.q > best.q || (candidate.q === best.q && candidate.index < best.index)) best = candidate;
  }
  return best?.mediaType;
}

/** The regular (non-streaming) type for an answer written outside Yoga: JSON when nothing fits. */
export function answerMediaType(accept: string | null): GraphQLMediaType {
  const chosen = negotiate(accept, REGULAR_OFFERED);
  return chosen ?? APPLICATION_JSON;
}

/**
 * Every error's `extensions`, as clients see them: `code` (the catalogue's), `details` (what
 * the code says more: limits, names, problems) and `retryAfterSeconds` (when retrying helps).
 * `http` stays for Yoga, which reads the status and headers from it and never writes it out.
 */
export type ErrorExtensions = {
  code: ErrorCode;
  details?: Record<string, unknown>;
  retryAfterSeconds?: number;
};
const KEPT = new Set(['code', 'details', 'retryAfterSeconds', 'http']);
/** Yoga's and graphql-js's own internals, never shown to a client. */
const DROPPED = new Set(['originalError', 'unexpected', 'stack']);

function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERRORS, code);
}

/** A code for an error raised without one (Yoga's request errors): by its status. */
function fallbackCode(extensions: Record<string, unknown>): ErrorCode {
  const http = extensions.http as { status?: number } | undefined;
  const status = http?.status;
  if (status === 413) return 'REQUEST_TOO_LARGE';
  if (status === 405) return 'METHOD_NOT_ALLOWED';
  if (status !== undefined && status >= 400 && status < 500) return 'BAD_REQUEST';
  return 'INTERNAL_ERROR';
}

export function shapeExtensions(extensions: Record<string, unknown>): ErrorExtensions & Pick<GraphQLErrorExtensions, 'http'> {
  const code = isErrorCode(extensions.code) ? extensions.code : fallbackCode(extensions);
  const details: Record<string, unknown> = { ...(extensions.details as Record<string, unknown> | undefined) };
  for (const [name, value] of Object.entries(extensions)) if (!KEPT.has(name) && !DROPPED.has(name)) details[name] = value;
  const retryAfterSeconds = typeof extensions.retryAfterSeconds === 'number' ? extensions.retryAfterSeconds : undefined;
  return {
    code,
    ...(Object.keys(details).length > 0 ? { details } : {}),
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    ...(extensions.http === undefined ? {} : { http: extensions.http as GraphQLErrorExtensions['http'] }),
  };
}

export function shapeError(error: GraphQLError): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: shapeExtensions(error.extensions ?? {}),
  } satisfies GraphQLErrorOptions);
}

function shapeResult(result: ResultProcessorInput): ResultProcessorInput {
  if (Array.isArray(result)) return result.map((one) => shapeResult(one) as (typeof result)[number]);
  if (Symbol.asyncIterator in result || !result.errors?.length) return result;
  return { ...result, errors: result.errors.map((error) => (error instanceof GraphQLError ? shapeError(error) : error)) };
}

/**
 * Yoga's JSON answer, but an answer without `data` in application/graphql-response+json is never
 * a 2xx: the request was refused before execution (a 400 unless the error says which status).
 */
const processRegular: ResultProcessor = (result, fetchAPI, mediaType) => {
  const shaped = shapeResult(result);
  // Yoga's status reads the extensions the shape leaves out (`originalError`): the status and
  // headers are those of the result as it was, the body the shaped one's.
  const original = processRegularResult(result, fetchAPI, mediaType);
  const response = shaped === result ? original : reshaped(original, processRegularResult(shaped, fetchAPI, mediaType), fetchAPI);
  const noData = !Array.isArray(result) && !(Symbol.asyncIterator in result) && !('data' in result && result.data !== undefined);
  if (mediaType !== GRAPHQL_RESPONSE_JSON || !noData || response.status >= 400) return response;
  return new fetchAPI.Response(response.body, { status: 400, headers: response.headers });
};

/**
 * The shaped body with the original answer's status and headers, but its own Content-Length: the
 * shaped errors are shorter, and a length left from the original body cut the answer short (or
 * left bytes after it that broke the connection).
 */
function reshaped(original: Response, shapedAnswer: Response, fetchAPI: { Response: typeof Response }): Response {
  const headers = new Headers(original.headers);
  const length = shapedAnswer.headers.get('content-length');
  if (length === null) headers.delete('content-length');
  else headers.set('content-length', length);
  return new fetchAPI.Response(shapedAnswer.body, { status: original.status, statusText: original.statusText, headers });
}

/** Chooses the processor of each answer by the negotiated type (Yoga's own choice ignores q-values). */
export function useGraphQLOverHttp(): Plugin {
  return {
    onResultProcess({ request, result, setResultProcessor }) {
      const streaming = !Array.isArray(result) && Symbol.asyncIterator in result;
      const chosen = negotiate(request.headers.get('accept'), streaming ? STREAMING_OFFERED : OFFERED);
      // A streaming type: Yoga's own processor for it, as Yoga chose.
      if (chosen && !REGULAR.has(chosen)) return;
      if (!chosen) {
        setResultProcessor((_result, fetchAPI) => notAcceptable(fetchAPI), APPLICATION_JSON);
        return;
      }
      setResultProcessor(processRegular, chosen);
    },
  };
}

function notAcceptable(fetchAPI: { Response: typeof Response }): Response {
  return new fetchAPI.Response(null, { status: 406, headers: { Accept: `${GRAPHQL_RESPONSE_JSON}, ${APPLICATION_JSON}` } });
}

/**
 * A GraphQL error document written before Yoga runs (admission, methods): the status given,
 * in the negotiated type, its errors in the one shape.
 */
export function graphqlErrorResponse(
  request: Request,
  fetchAPI: { Response: typeof Response },
  errors: readonly GraphQLError[],
  init: { status: number; headers?: Record<string, string> },
): Response {
  const body = { errors: errors.map((error) => ({ ...error.toJSON(), extensions: withoutHttp(shapeExtensions(error.extensions ?? {})) })) };
  const mediaType = answerMediaType(request.headers.get('accept'));
  return new fetchAPI.Response(JSON.stringify(body), {
    status: init.status,
    headers: { 'Content-Type': `${mediaType}; charset=utf-8`, ...init.headers },
  });
}

function withoutHttp({ http: _http, ...extensions }: ErrorExtensions & Pick<GraphQLErrorExtensions, 'http'>): ErrorExtensions {
  return extensions;
}
