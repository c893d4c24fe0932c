// Tracing (OpenTelemetry): a server span per request (method, route pattern, status), GraphQL spans
// below it (REST requests too: their documents execute in-process), SQL spans below those with the
// statement text and never a value; an incoming traceparent is honoured, a malformed one ignored;
// spans really reach an OTLP collector; and without an endpoint nothing is registered or patched.
// Spans are captured through the server's own setup (startTracing), given an in-memory exporter.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { propagation, type SpanContext, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { SQL_POOL } from '../../src/db/client.js';
import { redactLiterals, startTracing, type Tracing, tracesEndpoint } from '../../src/observability/tracing.js';
import { createKey, expectNoErrors, graphql, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createClinic, createInteraction } from '../helpers/factories.js';
import { request } from '../rest/client.js';

const db = testDb();
let tracing: Tracing | undefined;

afterEach(async () => {
  await tracing?.shutdown();
  tracing = undefined;
  vi.unstubAllEnvs();
});

async function traced(env: Record<string, string> = {}) {
  const exporter = new InMemorySpanExporter();
  const started = await startTracing(loadConfig(env), { exporter });
  if (!started) throw new Error('tracing did not start');
  tracing = started;
  const app = testApp(db, { tracing: started });
  const spans = async () => {
    await started.forceFlush();
    return exporter.getFinishedSpans();
  };
  return { app, spans, tracing: started, exporter };
}

const serverSpans = (spans: readonly ReadableSpan[]) => spans.filter((s) => s.kind === SpanKind.SERVER);
const childrenOf = (spans: readonly ReadableSpan[], parent: ReadableSpan) => spans.filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId);

/** Whether `span` is below `ancestor` (following parents through `spans`). */
function isBelow(spans: readonly ReadableSpan[], span: ReadableSpan, ancestor: ReadableSpan): boolean {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  for (let parent = span.parentSpanContext; parent; parent = byId.get(parent.spanId)?.parentSpanContext) {
    if (parent.spanId === ancestor.spanContext().spanId) return true;
  }
  return false;
}

const sqlSpans = (spans: readonly ReadableSpan[]) => spans.filter((s) => s.attributes['db.system.name'] === 'postgresql' && s.name.startsWith('pg.query'));
/** Every span name and attribute value, as one text, to search for what must never be there. */
const everything = (spans: readonly ReadableSpan[]) => JSON.stringify(spans.map((s) => [s.name, s.attributes, s.events.map((e) => e.attributes)]));

const PATIENT_WORD = 'quetzalcoatlus';
const PATIENT_PHONE = '+34 611 222 333';

async function clinicWithInteraction() {
  const clinic = await createClinic(db, { name: 'Clinica Tracing' });
  const interaction = await createInteraction(db, {
    clinicId: clinic.id,
    phoneNumber: PATIENT_PHONE,
    summary: `Patient asked about ${PATIENT_WORD} teeth.`,
    transcript: [{ role: 'user', content: `My name is ${PATIENT_WORD}` }],
  });
  const key = await createKey(db, { clinicIds: [clinic.id] });
  return { clinic, interaction, key };
}

describe('spans of a request', () => {
  it('REST: a server span with method, route pattern and status; the route execution below it; SQL below that, without values', async () => {
    const { app, spans } = await traced();
    const { interaction, key } = await clinicWithInteraction();

    const response = await request(app, `/api/v1/interactions/${interaction.id}`, { key });
    expect(response.status).toBe(200);
    const search = await request(app, `/api/v1/interactions?q=${PATIENT_WORD}`, { key });
    expect(search.status).toBe(200);
    expect(search.body.data.interactions).toHaveLength(1);
    expect((await request(app, '/api/v1/interactions?search=611222', { key })).status).toBe(200);

    const all = await spans();
    const [detail, list] = serverSpans(all);
    expect(serverSpans(all)).toHaveLength(3);
    expect(detail!.name).toBe('GET /api/v1/interactions/{id}');
    expect(detail!.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/api/v1/interactions/{id}',
      'http.response.status_code': 200,
      'clinic_analytics.request_id': response.headers.get('x-request-id'),
    });
    expect(list!.attributes).toMatchObject({ 'http.route': '/api/v1/interactions', 'http.response.status_code': 200 });

    const [execution] = childrenOf(all, detail!).filter((s) => s.name.startsWith('query '));
    expect(execution?.name).toBe('query RestInteraction');
    expect(execution!.attributes).toMatchObject({ 'graphql.operation.type': 'query', 'graphql.operation.name': 'RestInteraction' });

    // The key's lookup and the clinics it may see (admission, context), the interaction (execution).
    const sql = sqlSpans(all).filter((s) => isBelow(all, s, detail!));
    expect(sql.length).toBeGreaterThanOrEqual(2);
    expect(sql.filter((s) => isBelow(all, s, execution!)).length).toBeGreaterThanOrEqual(1);
    for (const span of sqlSpans(all)) {
      expect(span.kind).toBe(SpanKind.CLIENT);
      expect(span.attributes['db.query.text']).toEqual(expect.any(String));
      expect(Object.keys(span.attributes).filter((name) => name.includes('values'))).toEqual([]);
    }
    expect(sqlSpans(all).some((s) => String(s.attributes['db.query.text']).includes('interactions'))).toBe(true);
    // Nothing of the request's values anywhere: path id, search words, phone digits, the key.
    const text = everything(all);
    for (const value of [interaction.id, PATIENT_WORD, '611222', key, PATIENT_PHONE]) expect(text).not.toContain(value);
  });

  it('an export (COPY, its values inlined) streams as before, and its search words reach no span', async () => {
    const { app, spans } = await traced();
    const { key } = await clinicWithInteraction();
    const response = await app.fetch(`http://localhost/api/v1/interactions?q=${PATIENT_WORD}`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/csv' },
    });
    expect(response.status).toBe(200);
    const csv = await response.text();
    expect(csv.trim().split('\n')).toHaveLength(2);
    expect(csv).toContain(PATIENT_WORD);
    const all = await spans();
    expect(serverSpans(all)[0]!.attributes['http.response.status_code']).toBe(200);
    expect(everything(all)).not.toContain(PATIENT_WORD);
    // The COPY has its span, ended (an unended span is never exported), below the request's.
    const copy = sqlSpans(all).find((span) => /^(\/\*.*?\*\/\s*)?COPY /s.test(String(span.attributes['db.query.text'])));
    expect(copy, 'a span for the COPY').toBeDefined();
    expect(isBelow(all, copy!, serverSpans(all)[0]!)).toBe(true);
  });

  it('GraphQL: parse, validate and the execution named by its operation, below the request span; variables never recorded', async () => {
    const { app, spans } = await traced();
    const { key } = await clinicWithInteraction();

    const response = await graphql(app, {
      key,
      query: 'query FindSaid($text: String) { interactions(text: $text) { nodes { id summary } } }',
      variables: { text: PATIENT_WORD },
    });
    expect(expectNoErrors(response).interactions.nodes).toHaveLength(1);

    const all = await spans();
    const [server] = serverSpans(all);
    expect(serverSpans(all)).toHaveLength(1);
    expect(server!.name).toBe('POST /graphql');
    expect(server!.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/graphql', 'http.response.status_code': 200 });
    const children = childrenOf(all, server!).map((s) => s.name);
    expect(children).toEqual(expect.arrayContaining(['graphql.parse', 'graphql.validate', 'query FindSaid']));
    const execution = all.find((s) => s.name === 'query FindSaid')!;
    expect(execution.attributes).toMatchObject({ 'graphql.operation.name': 'FindSaid', 'graphql.operation.type': 'query' });
    expect(sqlSpans(all).filter((s) => isBelow(all, s, execution)).length).toBeGreaterThanOrEqual(1);
    expect(everything(all)).not.toContain(PATIENT_WORD);
    expect(everything(all)).not.toContain(key);
  });

  it('a server failure marks the request span; a syntax error leaves no trace of the document', async () => {
    const { app, spans } = await traced();
    const { key } = await clinicWithInteraction();
    const syntax = await graphql(app, { key, query: `query { interactions(text: "x") { nodes { id } } ${PATIENT_WORD} ` });
    expect(syntax.status).toBe(400);
    const all = await spans();
    const parse = all.find((s) => s.name === 'graphql.parse');
    expect(parse?.status.code).toBe(2);
    expect(parse?.status.message).toBeUndefined();
    expect(everything(all)).not.toContain(PATIENT_WORD);
    expect(serverSpans(all)[0]!.attributes['http.response.status_code']).toBe(400);
  });

  it('unknown paths carry no route (never the raw path); health checks are not traced', async () => {
    const { app, spans } = await traced();
    expect((await request(app, `/api/v1/patients/${PATIENT_WORD}`)).status).toBe(404);
    expect((await request(app, '/health/live')).status).toBe(200);
    const all = await spans();
    expect(all.map((s) => s.name)).toEqual(['GET']);
    expect(all[0]!.attributes).not.toHaveProperty('http.route');
    expect(all[0]!.attributes['http.response.status_code']).toBe(404);
    expect(everything(all)).not.toContain(PATIENT_WORD);
  });
});

describe('trace context', () => {
  const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
  const PARENT_ID = '00f067aa0ba902b7';

  it('an incoming traceparent makes every span part of that trace, the request span a child of the given span', async () => {
    const { app, spans } = await traced();
    const { key } = await clinicWithInteraction();
    const response = await request(app, '/api/v1/clinics', { key, headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` } });
    expect(response.status).toBe(200);
    const all = await spans();
    const [server] = serverSpans(all);
    expect(server!.parentSpanContext).toMatchObject<Partial<SpanContext>>({ traceId: TRACE_ID, spanId: PARENT_ID, isRemote: true });
    expect(all.length).toBeGreaterThanOrEqual(3);
    for (const span of all) expect(span.spanContext().traceId).toBe(TRACE_ID);
  });

  it.each([
    ['not hex', `00-${'z'.repeat(32)}-${PARENT_ID}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${PARENT_ID}-01`],
    ['a short parent id', `00-${TRACE_ID}-00f067aa-01`],
    ['version ff', `ff-${TRACE_ID}-${PARENT_ID}-01`],
    ['a header far too long', `00-${TRACE_ID}-${PARENT_ID}-01${'-x'.repeat(5000)}`],
  ])('a malformed traceparent (%s) is ignored: a new trace, and the request answered', async (_, traceparent) => {
    const { app, spans } = await traced();
    const { key } = await clinicWithInteraction();
    const response = await request(app, '/api/v1/clinics', { key, headers: { traceparent } });
    expect(response.status).toBe(200);
    const [server] = serverSpans(await spans());
    expect(server!.parentSpanContext).toBeUndefined();
    expect(server!.spanContext().traceId).not.toBe(TRACE_ID);
    expect(server!.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('OTEL_TRACES_SAMPLER=always_off records nothing; parentbased_always_off follows a sampled caller', async () => {
    const off = await traced({ OTEL_TRACES_SAMPLER: 'always_off' });
    const { key } = await clinicWithInteraction();
    expect((await request(off.app, '/api/v1/clinics', { key })).status).toBe(200);
    expect(await off.spans()).toEqual([]);
    await tracing?.shutdown();

    const parentBased = await traced({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' });
    expect((await request(parentBased.app, '/api/v1/clinics', { key })).status).toBe(200);
    expect(await parentBased.spans()).toEqual([]);
    await request(parentBased.app, '/api/v1/clinics', { key, headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` } });
    expect(serverSpans(await parentBased.spans())).toHaveLength(1);
  });
});

describe('SQL statements', () => {
  it('a statement sent without bind values has its literals replaced; one with bind values keeps its text and never its values', async () => {
    const { tracing: started, spans } = await traced();
    await started.tracer.startActiveSpan('test', async (span) => {
      await db[SQL_POOL].query({ text: `SELECT 'it''s ${PATIENT_WORD}' AS said, E'a\\\\b' AS e` });
      await db[SQL_POOL].query({ text: `SELECT 'UTC' AS zone, $1::text AS said`, values: [PATIENT_WORD] });
      span.end();
    });
    const texts = sqlSpans(await spans()).map((s) => s.attributes['db.query.text']);
    expect(texts).toEqual(['SELECT ? AS said, E? AS e', `SELECT 'UTC' AS zone, $1::text AS said`]);
  });

  it('statements outside a traced request make no spans (background work)', async () => {
    const { spans } = await traced();
    await db[SQL_POOL].query({ text: 'SELECT 1' });
    expect(await spans()).toEqual([]);
  });

  it('redactLiterals', () => {
    expect(redactLiterals(`COPY (SELECT * FROM t WHERE a = 'x''y' AND b = ANY(ARRAY['p', 'q'])) TO STDOUT`)).toBe(
      'COPY (SELECT * FROM t WHERE a = ? AND b = ANY(ARRAY[?, ?])) TO STDOUT',
    );
    expect(redactLiterals(`SELECT 'unterminated ${PATIENT_WORD}`)).toBe('SELECT ?');
  });
});

describe('configuration', () => {
  it('tracing is off without an endpoint, with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none: nothing registered, pg untouched', async () => {
    // Started and stopped once first: stopping undoes everything.
    await traced();
    await tracing?.shutdown();
    tracing = undefined;

    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    for (const env of [{}, { ...endpoint, OTEL_SDK_DISABLED: 'TRUE' }, { ...endpoint, OTEL_TRACES_EXPORTER: 'none' }]) {
      expect(await startTracing(loadConfig(env))).toBeUndefined();
    }
    const { key } = await clinicWithInteraction();
    const app = testApp(db);
    expect((await request(app, '/api/v1/clinics', { key, headers: { traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01` } })).status).toBe(200);
    // The API's no-op implementations: no provider, no propagator, no patched pg.
    expect(trace.getTracer('any').startSpan('any').isRecording()).toBe(false);
    expect(propagation.fields()).toEqual([]);
    expect(pg.Client.prototype.query).not.toHaveProperty('__wrapped');
  });

  it('the traces endpoint: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else /v1/traces under OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    expect(tracesEndpoint(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }))).toBe('http://collector:4318/v1/traces');
    expect(tracesEndpoint(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector/otlp/' }))).toBe('https://collector/otlp/v1/traces');
    expect(tracesEndpoint(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:9999/traces' }))).toBe(
      'http://b:9999/traces',
    );
  });

  it('invalid OTEL_* values are reported with the rest', () => {
    let error: unknown;
    try {
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
        OTEL_TRACES_SAMPLER: 'sometimes',
        OTEL_TRACES_SAMPLER_ARG: '2',
        OTEL_SDK_DISABLED: 'yes',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG', 'OTEL_SDK_DISABLED']) expect(problems).toContain(name);
  });
});

describe('OTLP export', () => {
  it('spans are POSTed to <OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces with the service name of OTEL_SERVICE_NAME', async () => {
    const received: Array<{ method?: string; url?: string; headers: IncomingHttpHeaders; body: string }> = [];
    const collector = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      vi.stubEnv('OTEL_SERVICE_NAME', 'clinic-analytics-tracing-test');
      const { port } = collector.address() as AddressInfo;
      tracing = await startTracing(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` }));
      expect(tracing).toBeDefined();
      const app = testApp(db, { tracing });
      const { key } = await clinicWithInteraction();
      expect((await request(app, '/api/v1/clinics', { key })).status).toBe(200);
      await tracing!.forceFlush();

      expect(received.length).toBeGreaterThanOrEqual(1);
      const [post] = received;
      expect(post).toMatchObject({ method: 'POST', url: '/v1/traces' });
      expect(post!.headers['content-type']).toMatch(/^application\/json/);
      const body = JSON.parse(post!.body) as {
        resourceSpans: Array<{
          resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
          scopeSpans: Array<{ spans: Array<{ name: string; traceId: string; kind: number }> }>;
        }>;
      };
      const resource = body.resourceSpans[0]!.resource.attributes;
      expect(resource).toContainEqual({ key: 'service.name', value: { stringValue: 'clinic-analytics-tracing-test' } });
      const names = body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((span) => span.name)));
      expect(names).toContain('GET /api/v1/clinics');
      expect(names.some((name) => name.startsWith('pg.query'))).toBe(true);
    } finally {
      await tracing?.shutdown();
      tracing = undefined;
      await new Promise<void>((resolve) => collector.close(() => resolve()));
    }
  });
});
