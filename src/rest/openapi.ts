// The OpenAPI 3.1 document of the REST facade, derived from the code that serves it so that the
// published contract cannot drift from it:
// - paths, operations, scopes and parameters from the route table (routes.ts);
// - parameter types and descriptions from the GraphQL arguments the parameters map to (the route's
//   document names the root field; REST_NAMES maps REST names to argument names), with REST's own
//   rules added where REST differs (lowercase enums, comma-separated outcomes, strict validation);
// - response schemas from the representation tables (routes.ts), which also shape the
//   responses, with the GraphQL fields' descriptions;
// - error statuses, messages and meanings from the error catalogue (domain/error-catalogue.ts).
// Validation examples are produced by the real validators, not written by hand.
import {
  execute,
  type FieldNode,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  getNamedType,
  getNullableType,
  isEnumType,
  isListType,
  isObjectType,
  isScalarType,
  Kind,
} from 'graphql';
import { MISSING_HEADER, PHI_SCOPE } from '../auth/api-keys.js';
import { ERRORS, type ErrorCode } from '../domain/error-catalogue.js';
import { MAX_PAGE, type Problems } from '../domain/parameters.js';
import { DEFAULT_PAGE_SIZE, KEY_PREFIXES, MAX_PAGE_SIZE, SCHEDULED_OUTCOME, SCOPES, SUCCESSFUL_OUTCOMES, TIER_LIMITS } from '../domain/values.js';
import {
  declarationOf,
  FILTER_KEYS,
  INTERACTION_FILTERS,
  MAX_CAMPAIGN_ID_LENGTH as MAX_ID_LENGTH,
  PHI_FILTER_KEYS,
  phiScopeMessage,
} from '../filters/interaction-filters.js';
import { schema as graphqlSchema } from '../graphql/index.js';
import { exportDocs } from './exports/openapi.js';
import { exportFormatsOf } from './exports/routes.js';
import {
  EXAMPLE_BREAKDOWN,
  EXAMPLE_CAMPAIGN,
  EXAMPLE_CLINIC,
  EXAMPLE_CLINIC_ID,
  EXAMPLE_CONVERSATION,
  EXAMPLE_DAILY,
  EXAMPLE_DELETED_INTERACTION,
  EXAMPLE_DEMO_INTERACTION_ID,
  EXAMPLE_DURATIONS,
  EXAMPLE_OUTCOMES,
  EXAMPLE_REQUEST_ID,
  EXAMPLE_SERIES,
  EXAMPLE_SUMMARY,
  EXAMPLE_SUMMARY_CHANGE,
  EXAMPLE_SUMMARY_PREVIOUS,
  EXAMPLE_TIMESTAMP,
  EXAMPLE_TRANSCRIPT,
  EXAMPLE_VIEWER,
  EXAMPLE_VOICE_CALL,
  withTranscriptOf,
} from './openapi-examples.js';
import {
  API_INDEX_PATH,
  availableTypes,
  BREAKDOWN_GROUP_KEYS,
  CAMPAIGN,
  CAMPAIGN_SETTINGS_SCHEMA,
  CLINIC,
  CURSOR_META,
  DAILY_METRIC,
  DELETED_INTERACTION,
  DURATION_BUCKET,
  DURATION_PERCENTILES,
  DURATIONS,
  EXPORT_TYPES,
  type ExportFormat,
  fieldSchema,
  fieldsOf,
  INTERACTION,
  type InteractionVariant,
  OUTCOME_BREAKDOWN,
  OUTCOME_BREAKDOWN_ENTRY,
  PAGINATION_META,
  QUOTA_WINDOW,
  READ_METHODS,
  REST_NAMES,
  type Representation,
  type Route,
  readQuery,
  restVariables,
  routes,
  SERIES_BUCKET,
  SUMMARY_CHANGE,
  SUMMARY_METRICS,
  TRANSCRIPT_ENTRY,
  timestampSchema,
  VIEWER,
  VIEWER_QUOTA,
  withFormat,
} from './routes.js';

type Json = Record<string, unknown>;

export const OPENAPI_VERSION = '3.1.0';
export const API_VERSION = '1.0.0';
export const BEARER_SCHEME = 'bearerAuth';
export const API_TITLE = 'Clinic Interaction Analytics API';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const JSON_TYPE = 'application/json';
const code = (text: string) => `\`${text}\``;
const list = (values: readonly string[]) => values.map(code).join(', ');

function object(properties: Record<string, Json>, extra: Json = {}, required = Object.keys(properties)): Json {
  return { type: 'object', additionalProperties: false, required, properties, ...extra };
}

const COMPARED = 'Present with `compare`: the same figures over the comparison window.';
const DAILY_LIST: Json = {
  type: 'array',
  items: ref(DAILY_METRIC.name),
  description: 'One entry for every day of the window (UTC days, or local days with `timezone`), zero-filled, by date ascending.',
};
const SERIES_LIST: Json = {
  type: 'array',
  items: ref(SERIES_BUCKET.name),
  description: 'Every bucket of the window (zero-filled), oldest first; the first and last are cut to the window.',
};

/** An object schema with optional properties that only `compare` adds (not required). */
function withComparison(schema: Json, extra: Record<string, Json>): Json {
  return { ...schema, properties: { ...(schema.properties as Record<string, Json>), ...extra } };
}

/** A representation's schema without its description and examples: the shape of `previous`. */
function figuresOf(schema: Json): Json {
  const { description: _description, examples: _examples, ...rest } = schema;
  return rest;
}

// ---------------------------------------------------------------------------------------------
// The GraphQL schema as the source of descriptions

/** GraphQL names in code spans become their REST names (`startedAt` -> `started_at`). */
function restWording(text: string): string {
  return text.replace(/`([a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+)`/g, (_, name: string) => code(name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)));
}

function graphqlType(name: string) {
  const type = graphqlSchema.getType(name);
  if (!isObjectType(type)) throw new Error(`openapi: no GraphQL object type ${name}`);
  return type;
}

function describedBy(description: string | null | undefined, what: string): string {
  if (!description) throw new Error(`openapi: ${what} has no description`);
  return restWording(description);
}

/** A field's description; for a date or an instant, followed by its scalar's (the format). */
function fieldDescription(field: GraphQLField<unknown, unknown>, what: string): string {
  const own = describedBy(field.description, what);
  const type = getNamedType(field.type);
  return isScalarType(type) && ['Date', 'DateTime'].includes(type.name) ? `${own} ${describedBy(type.description, type.name)}` : own;
}

/** The root Query field a route's document selects. */
function rootFieldOf(route: Route): GraphQLField<unknown, unknown> {
  const operation = route.document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  const selection = operation?.selectionSet.selections[0] as FieldNode | undefined;
  const field = selection && graphqlSchema.getQueryType()?.getFields()[selection.name.value];
  if (!field) throw new Error(`openapi: the document of ${route.path} selects no root field`);
  return field;
}

// ---------------------------------------------------------------------------------------------
// Component schemas: the representation tables

/** A representation (in one variant) as a closed object schema, described by the GraphQL fields. */
function representationSchema<TSource, TVariant>(representation: Representation<TSource, TVariant>, variant: TVariant, extra: Json = {}): Json {
  const type = graphqlType(representation.graphqlType);
  const properties: Record<string, Json> = {};
  for (const field of fieldsOf(representation, variant)) {
    const schema = fieldSchema(field, variant);
    const source = type.getFields()[field.from];
    if (!source) throw new Error(`openapi: ${representation.name}.${field.name} reads ${field.from}, which ${representation.graphqlType} does not have`);
    // A reference carries the description of the schema it names.
    properties[field.name] =
      '$ref' in schema ? { ...schema } : { ...schema, description: field.description ?? fieldDescription(source, `${type.name}.${source.name}`) };
  }
  return object(properties, { description: representation.description ?? describedBy(type.description, type.name), ...extra });
}

function interactionSchema(variant: InteractionVariant, title: string, description: string, example: Json): Json {
  return representationSchema(INTERACTION, variant, { title, description, examples: [example] });
}

function interactionUnion(voiceSchema: string, description: string): Json {
  return {
    description,
    oneOf: [ref(voiceSchema), ref('WhatsAppConversation')],
    discriminator: {
      propertyName: 'channel',
      mapping: { voice: `#/components/schemas/${voiceSchema}`, whatsapp: '#/components/schemas/WhatsAppConversation' },
    },
  };
}

/** An example as the change feed lists it: with its `updated_at`. */
const changed = (example: Json): Json => ({ ...example, updated_at: EXAMPLE_TIMESTAMP });

const CAMPAIGN_SETTINGS: Json = {
  type: 'object',
  description: 'Type-dependent configuration. The keys below are the ones in use; others may appear.',
  additionalProperties: true,
  properties: {
    max_attempts: { type: 'integer', description: 'Contact attempts per patient.' },
    retry_interval_hours: { type: 'integer', description: 'Hours between attempts.' },
    call_window_start: { type: 'string', description: 'Start of the calling window, `HH:MM`.', examples: ['09:00'] },
    call_window_end: { type: 'string', description: 'End of the calling window, `HH:MM`.', examples: ['19:00'] },
    inactivity_threshold_days: { type: 'integer', description: 'Days without a visit after which a patient is contacted.' },
    message_template: { type: 'string', description: 'Text of the outbound message.' },
    reminder_hours_before: { type: 'integer', description: 'Hours before the appointment at which reminders are sent.' },
    allow_reschedule: { type: 'boolean', description: 'Whether the patient may reschedule from the reminder.' },
    allow_cancel: { type: 'boolean', description: 'Whether the patient may cancel from the reminder.' },
  },
};

/** The `data` of a list endpoint: one array of a representation. */
const listOf = (key: string, item: string, example: unknown[]) => object({ [key]: { type: 'array', items: ref(item) } }, { examples: [{ [key]: example }] });

function componentSchemas(): Record<string, Json> {
  const voiceList: InteractionVariant = { channel: 'voice', view: 'list' };
  return {
    RequestId: {
      type: 'string',
      pattern: '^[A-Za-z0-9._:-]{8,128}$',
      description: 'Identifier of the request; equals the `X-Request-Id` header.',
      examples: [EXAMPLE_REQUEST_ID],
    },
    Timestamp: { ...timestampSchema, description: 'When the response was produced: ISO 8601 UTC with milliseconds and `Z`.' },
    [CURSOR_META.name]: representationSchema(CURSOR_META, undefined, {
      examples: [
        { limit: 25, total: 1284, has_more: true, next_cursor: 'eyJvIjoiZCIsInQiOjE3Njk4NTAzMDAwMDAsImkiOiJpbnRfOGYyYyIsImwiOiJ4In0.c2lnbmF0dXJlLWV4YW1wbGU' },
      ],
    }),
    [PAGINATION_META.name]: representationSchema(PAGINATION_META, undefined, {
      examples: [{ page: 1, limit: 25, total: 1284, total_pages: 52, has_more: true }],
    }),
    [TRANSCRIPT_ENTRY.name]: representationSchema(TRANSCRIPT_ENTRY, undefined, { examples: [EXAMPLE_TRANSCRIPT[0]] }),
    VoiceCall: interactionSchema(
      voiceList,
      'Voice call',
      'A voice call as listed by `GET /api/v1/interactions`: lists carry no transcript for calls (read one by id for it).',
      EXAMPLE_VOICE_CALL,
    ),
    VoiceCallWithTranscript: interactionSchema(
      { channel: 'voice', view: 'detail' },
      'Voice call (with transcript)',
      'A voice call as returned by `GET /api/v1/interactions/{id}`: with its transcript.',
      withTranscriptOf(EXAMPLE_VOICE_CALL),
    ),
    // Listed and read by id alike (a test checks that both variants have the same fields).
    WhatsAppConversation: interactionSchema(
      { channel: 'whatsapp', view: 'list' },
      'WhatsApp conversation',
      'A WhatsApp conversation: always with its transcript, and without `duration_seconds` or `recording_url` keys.',
      EXAMPLE_CONVERSATION,
    ),
    VoiceCallChange: interactionSchema(
      { channel: 'voice', view: 'feed' },
      'Voice call (change feed)',
      'A voice call as the change feed (`GET /api/v1/interactions?updated_since=...`) lists it: as listed, with its `updated_at`.',
      changed(EXAMPLE_VOICE_CALL),
    ),
    WhatsAppConversationChange: interactionSchema(
      { channel: 'whatsapp', view: 'feed' },
      'WhatsApp conversation (change feed)',
      'A WhatsApp conversation as the change feed (`GET /api/v1/interactions?updated_since=...`) lists it: as listed, with its `updated_at`.',
      changed(EXAMPLE_CONVERSATION),
    ),
    [INTERACTION.name]: interactionUnion(
      'VoiceCall',
      'An interaction as listed: a voice call (without transcript) or a WhatsApp conversation (with transcript), by `channel`.',
    ),
    InteractionWithTranscript: interactionUnion(
      'VoiceCallWithTranscript',
      'One interaction read by id: a voice call or a WhatsApp conversation, both with their transcript.',
    ),
    [CLINIC.name]: representationSchema(CLINIC, undefined, { examples: [EXAMPLE_CLINIC] }),
    [CAMPAIGN_SETTINGS_SCHEMA]: CAMPAIGN_SETTINGS,
    [CAMPAIGN.name]: representationSchema(CAMPAIGN, undefined, { examples: [EXAMPLE_CAMPAIGN] }),
    // A page holds listed interactions, or, in the change feed (`updated_since`), changed ones: four
    // closed shapes, told apart by `channel` and `updated_at` (so no discriminator, which names one
    // property; generated clients narrow the union by `channel` as before).
    InteractionList: object(
      {
        interactions: {
          type: 'array',
          items: { oneOf: ['VoiceCall', 'WhatsAppConversation', 'VoiceCallChange', 'WhatsAppConversationChange'].map(ref) },
        },
      },
      { examples: [{ interactions: [EXAMPLE_VOICE_CALL, EXAMPLE_CONVERSATION] }, { interactions: [changed(EXAMPLE_VOICE_CALL)] }] },
    ),
    InteractionDetail: object({ interaction: ref('InteractionWithTranscript') }, { examples: [{ interaction: withTranscriptOf(EXAMPLE_VOICE_CALL) }] }),
    [DELETED_INTERACTION.name]: representationSchema(DELETED_INTERACTION, undefined, { examples: [EXAMPLE_DELETED_INTERACTION] }),
    DeletedInteractionList: listOf('deleted_interactions', DELETED_INTERACTION.name, [EXAMPLE_DELETED_INTERACTION]),
    ClinicList: listOf('clinics', CLINIC.name, [EXAMPLE_CLINIC]),
    CampaignList: listOf('campaigns', CAMPAIGN.name, [EXAMPLE_CAMPAIGN]),
    [SUMMARY_METRICS.name]: withComparison(
      representationSchema(SUMMARY_METRICS, undefined, {
        examples: [EXAMPLE_SUMMARY, { ...EXAMPLE_SUMMARY, previous: EXAMPLE_SUMMARY_PREVIOUS, change: EXAMPLE_SUMMARY_CHANGE }],
      }),
      {
        previous: { ...figuresOf(representationSchema(SUMMARY_METRICS, undefined)), description: COMPARED },
        change: ref(SUMMARY_CHANGE.name),
      },
    ),
    [SUMMARY_CHANGE.name]: representationSchema(SUMMARY_CHANGE, undefined, { examples: [EXAMPLE_SUMMARY_CHANGE] }),
    [DAILY_METRIC.name]: representationSchema(DAILY_METRIC, undefined, { examples: [EXAMPLE_DAILY[0]] }),
    DailyMetrics: withComparison(object({ daily: DAILY_LIST }, { examples: [{ daily: EXAMPLE_DAILY }] }), {
      previous: object({ daily: DAILY_LIST }, { description: COMPARED }),
    }),
    [SERIES_BUCKET.name]: representationSchema(SERIES_BUCKET, undefined, { examples: [EXAMPLE_SERIES[0]] }),
    SeriesMetrics: withComparison(object({ series: SERIES_LIST }, { examples: [{ series: EXAMPLE_SERIES }] }), {
      previous: object({ series: SERIES_LIST }, { description: COMPARED }),
    }),
    [OUTCOME_BREAKDOWN_ENTRY.name]: representationSchema(OUTCOME_BREAKDOWN_ENTRY, undefined, { examples: [EXAMPLE_OUTCOMES.outcomes[0]] }),
    [OUTCOME_BREAKDOWN.name]: withComparison(representationSchema(OUTCOME_BREAKDOWN, undefined, { examples: [EXAMPLE_OUTCOMES] }), {
      previous: { ...figuresOf(representationSchema(OUTCOME_BREAKDOWN, undefined)), description: COMPARED },
    }),
    // A group's keys depend on `group_by`: they are optional here, the summary's figures are not.
    BreakdownGroup: breakdownGroupSchema(),
    MetricsBreakdown: object(
      { groups: { type: 'array', items: ref('BreakdownGroup'), description: 'The groups on this page, largest first.' } },
      { examples: [EXAMPLE_BREAKDOWN] },
    ),
    [DURATION_BUCKET.name]: representationSchema(DURATION_BUCKET, undefined, { examples: [EXAMPLE_DURATIONS.histogram[0]] }),
    [DURATION_PERCENTILES.name]: representationSchema(DURATION_PERCENTILES, undefined, { examples: [EXAMPLE_DURATIONS.percentiles] }),
    [DURATIONS.name]: representationSchema(DURATIONS, undefined, { examples: [EXAMPLE_DURATIONS] }),
    [QUOTA_WINDOW.name]: representationSchema(QUOTA_WINDOW, undefined, { examples: [EXAMPLE_VIEWER.quota.minute] }),
    [VIEWER_QUOTA.name]: representationSchema(VIEWER_QUOTA, undefined, { examples: [EXAMPLE_VIEWER.quota] }),
    [VIEWER.name]: representationSchema(VIEWER, undefined, { examples: [EXAMPLE_VIEWER] }),
    ...errorSchemas(),
  };
}

/** Every key a group may have (each only with its dimension in `group_by`), then the summary's figures. */
function breakdownGroupSchema(): Json {
  const keys = representationSchema(BREAKDOWN_GROUP_KEYS, ['clinic', 'campaign', 'channel', 'type', 'direction', 'outcome']);
  const figures = representationSchema(SUMMARY_METRICS, undefined);
  const keyProperties = keys.properties as Record<string, Json>;
  return object(
    { ...keyProperties, ...(figures.properties as Record<string, Json>) },
    {
      description:
        'One group of a breakdown: the keys of the dimensions in `group_by` (only those: `clinic_id` and `clinic_name` for clinic, `campaign_id` and `campaign_name` for campaign, ...), then the summary metrics of its interactions.',
      examples: [EXAMPLE_BREAKDOWN.groups[0]],
    },
    Object.keys(figures.properties as Record<string, Json>),
  );
}

// ---------------------------------------------------------------------------------------------
// Errors: the catalogue's codes, grouped by the response that carries them

interface ErrorKind {
  schema: string;
  codes: readonly ErrorCode[];
  /** Shown before the codes' meanings when a kind has several. */
  lead?: string;
  details?: Json;
  /** The details are given for some answers of the kind only. */
  detailsOptional?: boolean;
}

const ERROR_KINDS = {
  validation: {
    schema: 'ValidationError',
    codes: ['VALIDATION_ERROR'],
    details: {
      type: 'object',
      minProperties: 1,
      additionalProperties: { type: 'string' },
      description: 'Parameter name -> what is wrong with it.',
    },
  },
  unauthorized: { schema: 'AuthenticationError', codes: ['UNAUTHORIZED', 'INVALID_API_KEY', 'API_KEY_EXPIRED'], lead: 'Authentication failed.' },
  forbidden: {
    schema: 'InsufficientScopeError',
    codes: ['INSUFFICIENT_SCOPE'],
    details: {
      type: 'object',
      additionalProperties: false,
      required: ['required_scope'],
      properties: { required_scope: { type: 'string', enum: [...SCOPES] } },
    },
  },
  notFound: { schema: 'NotFoundError', codes: ['NOT_FOUND'] },
  rateLimited: {
    schema: 'RateLimitedError',
    codes: ['RATE_LIMITED'],
    detailsOptional: true,
    details: {
      type: 'object',
      required: ['limit'],
      properties: {
        limit: {
          type: 'string',
          enum: ['concurrency', 'export_concurrency'],
          description:
            'Present when the limit met is not a quota: `concurrency`, the units of database work the key may have running at once (`max_units`, `in_flight_units`, `document_units`); `export_concurrency`, its exports running at once (`max_exports`, `in_flight_exports`).',
        },
        max_units: { type: 'integer', minimum: 0, description: 'The units of database work the key may have running at once.' },
        in_flight_units: { type: 'integer', minimum: 0, description: 'The units the key had running when the request came.' },
        document_units: { type: 'integer', minimum: 0, description: 'The units the refused request needed.' },
        max_exports: { type: 'integer', minimum: 0, description: 'The exports the key may have running at once.' },
        in_flight_exports: { type: 'integer', minimum: 0, description: 'The exports the key had running when the request came.' },
      },
      // Named, not an index signature: generated clients (openapi-typescript) then type each figure.
      additionalProperties: false,
    },
  },
  notAcceptable: {
    schema: 'NotAcceptableError',
    codes: ['NOT_ACCEPTABLE'],
    details: {
      type: 'object',
      additionalProperties: false,
      required: ['available'],
      properties: {
        available: {
          type: 'array',
          minItems: 1,
          items: { type: 'string', enum: availableTypes(Object.keys(EXPORT_TYPES) as ExportFormat[]) },
          description: 'The media types the endpoint answers with.',
        },
      },
    },
  },
  methodNotAllowed: { schema: 'MethodNotAllowedError', codes: ['METHOD_NOT_ALLOWED'] },
  internal: { schema: 'InternalError', codes: ['INTERNAL_ERROR'] },
  unavailable: { schema: 'ServiceUnavailableError', codes: ['SERVICE_UNAVAILABLE'] },
} satisfies Record<string, ErrorKind>;

/** The one status every code of a kind is answered with. */
function statusOf(kind: ErrorKind): number {
  const statuses = new Set(kind.codes.map((c) => ERRORS[c].status));
  if (statuses.size !== 1) throw new Error(`openapi: the codes of ${kind.schema} have different statuses`);
  return [...statuses][0]!;
}

/** What a kind means, from the catalogue. */
function meaningOf(kind: ErrorKind): string {
  if (kind.codes.length === 1) return ERRORS[kind.codes[0]!].description;
  return [kind.lead, ...kind.codes.map((c) => `${code(c)}: ${ERRORS[c].description}`)].filter(Boolean).join(' ');
}

function errorSchemas(): Record<string, Json> {
  const schemas: Record<string, Json> = {};
  for (const kind of Object.values(ERROR_KINDS) as ErrorKind[]) {
    const error: Record<string, Json> = {
      code: kind.codes.length === 1 ? { type: 'string', const: kind.codes[0] } : { type: 'string', enum: [...kind.codes] },
      message: { type: 'string', description: 'Human-readable text.' },
    };
    if (kind.details) error.details = kind.details;
    schemas[kind.schema] = object(
      {
        success: { type: 'boolean', const: false },
        error: object(error, {}, kind.detailsOptional ? ['code', 'message'] : undefined),
        request_id: ref('RequestId'),
        timestamp: ref('Timestamp'),
      },
      { description: `HTTP ${statusOf(kind)}. ${meaningOf(kind)}` },
    );
  }
  return schemas;
}

/**
 * An error body as the service answers it: the catalogue's message unless the answer says more
 * (a test compares these messages with real answers).
 */
function errorBody(errorCode: ErrorCode, message: string = ERRORS[errorCode].message, details?: unknown): Json {
  return {
    success: false,
    error: details === undefined ? { code: errorCode, message } : { code: errorCode, message, details },
    request_id: EXAMPLE_REQUEST_ID,
    timestamp: EXAMPLE_TIMESTAMP,
  };
}

// ---------------------------------------------------------------------------------------------
// Parameters: the GraphQL arguments they map to, plus REST's own rules (decisions section 2)

/** REST query parameter -> the GraphQL argument it is passed to. */
const ARGUMENT_OF: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.entries(REST_NAMES).map(([argument, rest]) => [rest, argument])),
  // `limit` is also the cursor list's `first`; on the list's own field it is `limit`.
  page: 'page',
  limit: 'limit',
};

/**
 * Arguments of the cursor lists' root fields (the alternative document of /interactions, and
 * /interactions/deleted), for parameters only they take (`cursor`, `updated_since`, `since`).
 */
const ALTERNATIVE_ARGUMENT_OF: Readonly<Record<string, string>> = { limit: 'first', cursor: 'after', updated_since: 'updatedSince', since: 'since' };

/** JSON schema of a GraphQL input type as REST spells it: enums by their stored (REST) values. */
function argumentSchema(type: GraphQLInputType): Json {
  const nullable = getNullableType(type);
  if (isListType(nullable)) return { type: 'array', minItems: 1, items: argumentSchema(nullable.ofType) };
  const named = getNamedType(type);
  if (isEnumType(named)) return { type: 'string', enum: named.getValues().map((value) => value.value as string) };
  if (isScalarType(named)) {
    const json = { Int: 'integer', Float: 'number', Boolean: 'boolean', String: 'string', ID: 'string' }[named.name];
    if (json) return { type: json };
  }
  throw new Error(`openapi: no JSON schema for the GraphQL input type ${named.name}`);
}

/** The REST spellings of an enum argument, for descriptions. */
const enumValues = (argument: GraphQLArgument) => (argumentSchema(argument.type).enum ?? (argumentSchema(argument.type).items as Json).enum) as string[];

const DATE_TIME_NOTE = 'A date-time needs `Z` or an offset (`2026-01-31T09:05:00Z`, `2026-01-31T10:05:00+01:00`).';

// `anyOf`, not `oneOf`: a validator that takes `format` as an annotation (as draft 2020-12 allows)
// finds a value matching both branches and would refuse every value under `oneOf`.
const dateSchema = (example: string) => ({
  anyOf: [
    { type: 'string', format: 'date', title: 'Date (YYYY-MM-DD)' },
    { type: 'string', format: 'date-time', title: 'Date-time with Z or an offset' },
  ],
  examples: [example],
});

interface RestRule {
  /** Added to the GraphQL argument's description: what REST adds or does differently. */
  note: string;
  /** Merged into the argument's schema. */
  schema?: Json;
  /** Replaces the argument's schema (REST reads the text more precisely than the GraphQL type says). */
  replace?: Json;
  /** Other fields of the Parameter Object. */
  extra?: Json;
}

/** REST's rules per parameter; `metrics` when the endpoint has a default window. */
function restRule(name: string, argument: GraphQLArgument, metrics: boolean): RestRule {
  const filter = FILTER_KEYS.find((key) => INTERACTION_FILTERS[key].rest === name);
  const declared = filter === undefined ? undefined : declarationOf(filter).openapi;
  if (declared) return declared;
  switch (name) {
    case 'page':
      return {
        note: 'Anything but a whole number of at least 1 is a 400. A page beyond the last is an empty list.',
        schema: { minimum: 1, maximum: MAX_PAGE, default: 1 },
      };
    case 'limit':
      return { note: 'Anything else is a 400 (no silent clamping).', schema: { minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE } };
    case 'date_from':
      return {
        // The metrics arguments state their default window; the list's has none to state.
        note: `${DATE_TIME_NOTE}${metrics ? '' : ' Default: no lower bound.'} Must not be later than \`date_to\`.`,
        replace: dateSchema('2026-01-01'),
      };
    case 'date_to':
      return { note: `${DATE_TIME_NOTE}${metrics ? '' : ' Default: no upper bound.'}`, replace: dateSchema('2026-01-31') };
    case 'status':
      return { note: `Lowercase: ${list(enumValues(argument))}.` };
    case 'group_by':
      return {
        note: `Required. Comma-separated, one or two distinct of: ${list(enumValues(argument))} (e.g. \`campaign,outcome\`). Repeating a dimension, a third one or an unknown one is a 400.`,
        schema: { maxItems: 2, uniqueItems: true },
        extra: { required: true, style: 'form', explode: false, examples: { one: { value: ['campaign'] }, two: { value: ['campaign', 'outcome'] } } },
      };
    case 'cursor':
      return {
        note: 'Empty (`cursor=`) starts a cursor list at its first item; the `meta.next_cursor` of a page continues it. A cursor is opaque and signed: used with other filters or another `order` (or altered) it is a 400. Not with `page`. `meta` of a cursor list is `{ limit, total, has_more, next_cursor }`.',
        schema: { maxLength: 1024 },
        extra: { allowEmptyValue: true },
      };
    case 'order':
      return {
        note: 'By `started_at`, then `id`, both the same way. Not with `updated_since` (the change feed has its own order).',
        schema: { default: 'desc' },
      };
    case 'include_total':
      return {
        note: '`false`: nothing is counted where counting costs more than the page: `meta.total` (and `total_pages`) are null, `has_more` stays exact. Anything but `true` or `false` is a 400.',
        schema: { default: true },
      };
    case 'updated_since':
      return {
        note: 'The change feed: with it the list holds the interactions stored or changed at or after this instant, each with its `updated_at`, ordered by `updated_at` then `id` ascending and read by cursor (an empty or absent `cursor` starts; not with `page` or `order`). Rows written by a transaction still open are held back until it commits, so resuming from the largest `updated_at` seen never skips one (rows at exactly that instant come again: upsert by id).',
        replace: dateSchema('2026-01-31T09:05:00Z'),
      };
    case 'since':
      return {
        note: 'Resume from the largest `deleted_at` seen (tombstones at exactly that instant come again). Deletions still being committed are held back until they commit. Default: every tombstone.',
        replace: dateSchema('2026-01-31T09:05:00Z'),
      };
    case 'granularity':
      // Required although the GraphQL argument is nullable (the resolver says which is missing);
      // the example is what "Try it out" sends: a bucket per day of the default window.
      return { note: `One of: ${list(enumValues(argument))}.`, extra: { required: true, example: 'day' } };
    default:
      // A parameter REST reads as GraphQL does needs no rule of its own: the argument's type and
      // description say it all (an enum is spelt as its values, which REST shares).
      return { note: isEnumType(getNamedType(argument.type)) ? `One of: ${list(enumValues(argument))}.` : '' };
  }
}

function queryParameter(name: string, route: Route, root: GraphQLField<unknown, unknown>): Json {
  const alternative = route.alternative && rootFieldOf({ ...route, document: route.alternative.document });
  const argument =
    root.args.find((arg) => arg.name === ARGUMENT_OF[name]) ??
    root.args.find((arg) => arg.name === ALTERNATIVE_ARGUMENT_OF[name]) ??
    alternative?.args.find((arg) => arg.name === (ALTERNATIVE_ARGUMENT_OF[name] ?? ARGUMENT_OF[name]));
  if (!argument) throw new Error(`openapi: ${route.path} has parameter "${name}", but ${root.name} has no argument ${ARGUMENT_OF[name] ?? '(unmapped)'}`);
  const rule = restRule(name, argument, route.scope === 'metrics:read');
  const schema = rule.replace ?? { ...argumentSchema(argument.type), ...rule.schema };
  const description = `${describedBy(argument.description, `${root.name}(${argument.name})`)} ${rule.note}`.trimEnd();
  return { name, in: 'query', required: false, description, schema, ...rule.extra };
}

/** What "Try it out" pre-fills in a route's path parameter: an id of the demo data, which it finds there. */
const PATH_EXAMPLES: Readonly<Record<string, Json>> = {
  '/api/v1/interactions/{id}': { demo: { summary: 'An interaction of the demo data', value: EXAMPLE_DEMO_INTERACTION_ID } },
};

function pathParameters(route: Route, root: GraphQLField<unknown, unknown>): Json[] {
  return [...route.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => {
    const argument = root.args.find((arg) => arg.name === name);
    if (!argument) throw new Error(`openapi: ${route.path} has path parameter "${name}", but ${root.name} has no such argument`);
    const description = describedBy(argument.description, `${root.name}(${name})`);
    const examples = PATH_EXAMPLES[route.path];
    return {
      name,
      in: 'path',
      required: true,
      description,
      schema: { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH },
      ...(examples ? { examples } : {}),
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Headers

const RATE_LIMIT_HEADERS = [
  ...['Minute', 'Hour', 'Day'].flatMap((window) => [`X-RateLimit-Limit-${window}`, `X-RateLimit-Remaining-${window}`, `X-RateLimit-Reset-${window}`]),
  'RateLimit-Policy',
  'RateLimit',
];

const RATE_LIMIT_PRESENCE = 'Present on every response to a Standard or Premium key; absent for Unlimited-tier keys and on 401 responses.';
const POLICY_WINDOWS = ['"minute"', '"hour"', '"day"'];

/** The draft-ietf-httpapi-ratelimit-headers-10 fields (limits/admission.ts writes them). */
const IETF_RATE_LIMIT_HEADERS: Record<string, Json> = {
  'RateLimit-Policy': {
    description:
      'The quota policies (draft-ietf-httpapi-ratelimit-headers-10): a Structured Field List with one Item per window, named `"minute"`, `"hour"` and `"day"`, ' +
      `with \`q\` = requests allowed and \`w\` = window length in seconds. ${RATE_LIMIT_PRESENCE}`,
    required: false,
    schema: {
      type: 'string',
      pattern: `^"minute";q=\\d+;w=60, "hour";q=\\d+;w=3600, "day";q=\\d+;w=86400$`,
      examples: ['"minute";q=60;w=60, "hour";q=1000;w=3600, "day";q=10000;w=86400'],
    },
  },
  RateLimit: {
    description:
      'The current service limits (draft-ietf-httpapi-ratelimit-headers-10): a Structured Field List with one Item per policy of `RateLimit-Policy`, ' +
      `with \`r\` = requests left and \`t\` = whole seconds until the window resets (the \`X-RateLimit-Remaining-*\` and \`X-RateLimit-Reset-*\` figures). ${RATE_LIMIT_PRESENCE}`,
    required: false,
    schema: {
      type: 'string',
      pattern: `^${POLICY_WINDOWS.map((name) => `${name};r=\\d+;t=[1-9]\\d*`).join(', ')}$`,
      examples: ['"minute";r=59;t=42, "hour";r=999;t=1542, "day";r=9999;t=41542'],
    },
  },
};

function componentHeaders(): Record<string, Json> {
  const headers: Record<string, Json> = {
    'X-Request-Id': {
      description: "Identifier of the request, equal to the body's `request_id`. A well-formed incoming `X-Request-Id` (8-128 of `A-Za-z0-9._:-`) is reused.",
      required: true,
      schema: { type: 'string' },
    },
    'Retry-After': { description: 'Whole seconds to wait before retrying.', required: true, schema: { type: 'integer', minimum: 1 } },
    'WWW-Authenticate': { description: 'Bearer challenge (RFC 6750).', required: true, schema: { type: 'string' } },
    Allow: { description: 'The methods the path answers.', required: true, schema: { type: 'string', const: READ_METHODS.join(', ') } },
    ETag: {
      description:
        'A weak validator of the answer: it changes exactly when `data`, `meta` or the request (path, parameters, the clinics the key may see) change, never for `request_id` or `timestamp`. Send it back in `If-None-Match` to get a 304 while it holds.',
      required: true,
      schema: { type: 'string', pattern: '^W/"[A-Za-z0-9_-]+"$', examples: ['W/"4qZb0m1cW2eQ8yVtq3n0xk7Rr2sJd9Lp"'] },
    },
    'Cache-Control': {
      description: '`private, no-cache` on 200 and 304 (a private cache may keep the answer but revalidates it first); `no-store` on errors and exports.',
      required: true,
      schema: { type: 'string', examples: ['private, no-cache', 'no-store'] },
    },
    Vary: {
      description:
        "Every answer varies by `Authorization`, errors included (400, 401, 403, 404, 429, 503), so that a shared cache never gives one key's answer, or a 401, to another key. " +
        'A JSON 200 or 304 says `Authorization, Accept, Accept-Encoding` (it differs by key, by format: JSON or an export, and by content encoding); errors and exports say `Authorization`, ' +
        'followed over the network by `Accept-Encoding`. GraphQL answers (`/graphql`, not described here) vary by `Authorization` and `Accept`, and say `Cache-Control: private, no-store`.',
      required: true,
      schema: {
        type: 'string',
        pattern: '(?:^|,\\s*)Authorization(?:\\s*,|$)',
        examples: ['Authorization, Accept, Accept-Encoding', 'Authorization, Accept-Encoding'],
      },
    },
    Link: {
      description:
        "RFC 8288 links to other pages of the list, as relative references keeping the other parameters: `first`, `prev`, `next` and `last` (`last` only when the total is counted) for pages, `next` for cursor lists. Absent when there is nothing to link (a cursor list's last page).",
      required: false,
      schema: {
        type: 'string',
        examples: [
          '</api/v1/interactions?page=1&limit=25>; rel="first", </api/v1/interactions?page=2&limit=25>; rel="next", </api/v1/interactions?page=52&limit=25>; rel="last"',
        ],
      },
    },
  };
  for (const name of RATE_LIMIT_HEADERS) {
    const ietf = IETF_RATE_LIMIT_HEADERS[name];
    if (ietf) {
      headers[name] = ietf;
      continue;
    }
    const window = name.slice(name.lastIndexOf('-') + 1).toLowerCase();
    if (name.includes('-Reset-')) {
      headers[name] = {
        description: `Whole seconds until the current UTC ${window} window resets, rounded up (1 to 60 for the minute). ${RATE_LIMIT_PRESENCE}`,
        required: false,
        schema: { type: 'integer', minimum: 1 },
      };
      continue;
    }
    const what = name.includes('-Limit-') ? 'Requests allowed' : 'Requests left';
    headers[name] = {
      description: `${what} in the current UTC ${window} window (fixed windows aligned to UTC boundaries). ${RATE_LIMIT_PRESENCE}`,
      required: false,
      schema: { type: 'integer', minimum: 0 },
    };
  }
  return headers;
}

/** A shared header that this answer does not always carry; `note` says when it is absent. */
function sometimes(name: string, note: string): Json {
  const header = componentHeaders()[name];
  if (!header) throw new Error(`openapi: no header ${name}`);
  return { ...header, required: false, description: `${header.description as string} ${note}` };
}

function headersOf(...names: string[]): Record<string, Json> {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

// ---------------------------------------------------------------------------------------------
// Validation examples, from the routes' own validation

/** A bad value per parameter, most telling first, to show what validation answers. */
const BAD_VALUES: ReadonlyArray<[string, string]> = [
  ['outcome', 'booked,NO_ANSWER'],
  ['status', 'running'],
  ['limit', '1000'],
  ['date_to', '2026-02-30'],
  ['channel', 'sms'],
  ['page', '0'],
  ['date_from', '31/01/2026'],
  ['type', 'SMS'],
  ['clinic_id', '42'],
  ['search', ''],
  ['since', 'yesterday'],
];

/**
 * The details of the 400 a request gets, found as the facade finds them: the query string read and
 * mapped to variables (routes.ts), then the route's document executed with the resolvers only
 * checking (graphql/builder.ts), by a key with every scope. Synchronous: a checking resolver throws
 * before it reads anything.
 */
function validationDetails(route: Route, url: URL): Problems {
  const problems: Problems = {};
  const query = readQuery(url, withFormat(route.params, exportFormatsOf(route.path)), problems);
  const { variables, unconverted } = restVariables(graphqlSchema, route.document, REST_NAMES, { query, pathParams: { id: 'example' } }, problems);
  const contextValue = {
    key: { scopes: [...SCOPES] },
    visibleClinics: null,
    now: new Date(EXAMPLE_TIMESTAMP),
    parameters: { names: REST_NAMES, unconverted, checkOnly: true },
  };
  const result = execute({ schema: graphqlSchema, document: route.document, variableValues: variables, contextValue });
  if (result instanceof Promise) throw new Error(`checking the parameters of ${route.path} did not finish synchronously`);
  const validation = result.errors?.find((e) => e.extensions?.code === 'VALIDATION_ERROR');
  return Object.assign(problems, validation?.extensions.details as Problems | undefined);
}

/**
 * The `VALIDATION_ERROR` details the route really gives for a bad query (two bad values, plus the
 * typo `clinicId` where `clinic_id` exists), computed by the route's own validation.
 */
function validationExample(route: Route): { query: string; details: Problems } {
  const search = new URLSearchParams(BAD_VALUES.filter(([name]) => route.params.includes(name)).slice(0, 2));
  if (route.params.includes('clinic_id')) search.set('clinicId', EXAMPLE_CLINIC_ID);
  if (route.params.length === 0) search.set('include', 'transcript');
  const url = new URL(`http://localhost${route.path.replace(/\{[^}]+\}/g, 'example')}?${search}`);
  return { query: decodeURIComponent(search.toString()), details: validationDetails(route, url) };
}

// ---------------------------------------------------------------------------------------------
// Operations

const SEGMENT_WORD = (segment: string) => segment.charAt(0).toUpperCase() + segment.slice(1);

/** `listInteractions`, `getInteractionById`, `getMetricsSummary`: from the path, stable across wording changes. */
export function operationIdOf(route: Route): string {
  const segments = route.path.replace(/^\/api\/v1\//, '').split('/');
  const words = segments.map((segment, i) => {
    if (segment.startsWith('{')) return `By${SEGMENT_WORD(segment.slice(1, -1))}`;
    // A collection followed by an id names one item: `interactions/{id}` -> `InteractionById`.
    const word = segments[i + 1]?.startsWith('{') ? segment.replace(/s$/, '') : segment;
    return SEGMENT_WORD(word.replace(/[-_](.)/g, (_, c: string) => c.toUpperCase()));
  });
  return `${paginated(route) || cursorOnly(route) ? 'list' : 'get'}${words.join('')}`;
}

export const tagOf = (route: Route) => SEGMENT_WORD(route.path.replace(/^\/api\/v1\//, '').split('/')[0]!);

const paginated = (route: Route) => route.params.includes('page');

/** A list read only by cursor (/interactions/deleted): its `meta` is the cursor meta. */
const cursorOnly = (route: Route) => !paginated(route) && route.params.includes('cursor');

function successSchemaName(route: Route): string {
  return `${route.dataSchema}Envelope`;
}

function successSchema(route: Route, dataSchema: Json): Json {
  const properties: Record<string, Json> = { success: { type: 'boolean', const: true }, data: ref(route.dataSchema) };
  if (paginated(route)) properties.meta = route.alternative ? { oneOf: [ref('PaginationMeta'), ref(CURSOR_META.name)] } : ref('PaginationMeta');
  if (cursorOnly(route)) properties.meta = ref(CURSOR_META.name);
  properties.request_id = ref('RequestId');
  properties.timestamp = ref('Timestamp');
  return object(properties, { description: `Success envelope of ${route.path}.`, examples: [successExample(route, dataSchema)] });
}

function successExample(route: Route, dataSchema: Json): Json {
  const data = (dataSchema.examples as unknown[] | undefined)?.[0];
  if (data === undefined) throw new Error(`openapi: schema ${route.dataSchema} has no example`);
  const body: Json = { success: true, data };
  if (paginated(route)) {
    const items = Object.values(data as Json)[0] as unknown[];
    body.meta = { page: 1, limit: DEFAULT_PAGE_SIZE, total: items.length, total_pages: 1, has_more: false };
  }
  if (cursorOnly(route)) {
    const items = Object.values(data as Json)[0] as unknown[];
    body.meta = { limit: DEFAULT_PAGE_SIZE, total: items.length, has_more: false, next_cursor: null };
  }
  return { ...body, request_id: EXAMPLE_REQUEST_ID, timestamp: EXAMPLE_TIMESTAMP };
}

const SUCCESS_HEADERS = headersOf('X-Request-Id', ...RATE_LIMIT_HEADERS);

function jsonContent(schema: string, examples?: Record<string, Json>): Json {
  return { [JSON_TYPE]: { schema: ref(schema), ...(examples ? { examples } : {}) } };
}

function sharedResponses(): Record<string, Json> {
  const { unauthorized, notFound, rateLimited, internal, unavailable, methodNotAllowed } = ERROR_KINDS;
  const refused = 'DELETE';
  return {
    NotModified: {
      description:
        'The `If-None-Match` header names the current `ETag`: nothing changed since, and no body is sent. It counts against the quota like any request (its rate-limit headers say so). When the data behind the answer has not changed, it is answered without running the request again.',
      headers: headersOf('X-Request-Id', 'ETag', 'Cache-Control', 'Vary', ...RATE_LIMIT_HEADERS),
    },
    Unauthorized: {
      description: meaningOf(unauthorized),
      headers: headersOf('X-Request-Id', 'WWW-Authenticate', 'Cache-Control', 'Vary'),
      content: jsonContent(unauthorized.schema, {
        missingHeader: { summary: 'No Authorization header', value: errorBody('UNAUTHORIZED', MISSING_HEADER.message) },
        invalidKey: { summary: 'Unknown or revoked key', value: errorBody('INVALID_API_KEY') },
        // The answer's own wording (auth/api-keys.ts), which is not the catalogue's.
        expiredKey: { summary: 'Expired key', value: errorBody('API_KEY_EXPIRED', 'API key has expired') },
      }),
    },
    NotFound: {
      description: meaningOf(notFound),
      headers: headersOf('X-Request-Id', 'Cache-Control', 'Vary', ...RATE_LIMIT_HEADERS),
      content: jsonContent(notFound.schema, { notFound: { summary: 'Unknown id', value: errorBody('NOT_FOUND', 'No interaction with that id') } }),
    },
    RateLimited: {
      description:
        `${meaningOf(rateLimited)} The exhausted window's \`X-RateLimit-Remaining-*\` (and its \`RateLimit\` item's \`r\`) is 0. Repeated failed authentications from one client IP are limited ` +
        'the same way (then without `X-RateLimit-*` headers).',
      headers: headersOf('X-Request-Id', 'Retry-After', 'Cache-Control', 'Vary', ...RATE_LIMIT_HEADERS),
      content: jsonContent(rateLimited.schema, { rateLimited: { summary: 'Minute window exhausted', value: errorBody('RATE_LIMITED') } }),
    },
    // No operation names it: every path answers it to any method but its own (see the API's description).
    MethodNotAllowed: {
      description: `${meaningOf(methodNotAllowed)} Answered to any other method on every path, before the key is read.`,
      headers: {
        ...headersOf('X-Request-Id', 'Allow', 'Cache-Control'),
        Vary: sometimes('Vary', `Absent on ${API_INDEX_PATH}, which is public: its answers never depend on the key.`),
      },
      content: jsonContent(methodNotAllowed.schema, {
        methodNotAllowed: {
          summary: refused,
          value: errorBody('METHOD_NOT_ALLOWED', `${refused} is not allowed; use ${READ_METHODS.join(' or ')}`),
        },
      }),
    },
    InternalError: {
      description: meaningOf(internal),
      headers: headersOf('X-Request-Id', ...RATE_LIMIT_HEADERS),
      content: jsonContent(internal.schema, { internal: { value: errorBody('INTERNAL_ERROR') } }),
    },
    ServiceUnavailable: {
      description: meaningOf(unavailable),
      headers: headersOf('X-Request-Id', 'Retry-After', 'Cache-Control', 'Vary', ...RATE_LIMIT_HEADERS),
      content: jsonContent(unavailable.schema, { unavailable: { value: errorBody('SERVICE_UNAVAILABLE') } }),
    },
  };
}

const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });

const IF_NONE_MATCH: Json = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'The `ETag` of an earlier answer (or several, comma-separated, or `*`): while it still holds, the answer is a 304 without a body.',
  schema: { type: 'string' },
};

function operation(route: Route, schemas: Record<string, Json>): Json {
  const dataSchema = schemas[route.dataSchema];
  if (!dataSchema) throw new Error(`openapi: no component schema ${route.dataSchema} for ${route.path}`);
  const envelopeName = successSchemaName(route);
  schemas[envelopeName] ??= successSchema(route, dataSchema);
  const root = rootFieldOf(route);
  const { validation, forbidden } = ERROR_KINDS;

  const invalid = validationExample(route);
  const responses: Record<string, Json> = {
    200: {
      description: paginated(route) || cursorOnly(route) ? 'The page of results, with pagination `meta`.' : 'The result.',
      headers: { ...SUCCESS_HEADERS, ...headersOf('ETag', 'Cache-Control', 'Vary', ...(paginated(route) || cursorOnly(route) ? ['Link'] : [])) },
      content: jsonContent(envelopeName, { success: { summary: 'Success', value: successExample(route, dataSchema) } }),
    },
    400: {
      description: meaningOf(validation),
      headers: headersOf('X-Request-Id', 'Cache-Control', 'Vary', ...RATE_LIMIT_HEADERS),
      content: jsonContent(validation.schema, {
        invalidParameters: { summary: `?${invalid.query}`, value: errorBody('VALIDATION_ERROR', undefined, invalid.details) },
      }),
    },
    304: responseRef('NotModified'),
    401: responseRef('Unauthorized'),
  };
  // A route without a scope (GET /api/v1/me) is never answered 403.
  if (route.scope) {
    // The filters that read patient data (filters/interaction-filters.ts) need phi:read besides the route's scope.
    const phiParams = PHI_FILTER_KEYS.map((filter) => (REST_NAMES as Partial<Record<string, string>>)[filter]).filter(
      (name): name is string => name !== undefined && route.params.includes(name),
    );
    const phiNote = phiParams.length
      ? ` ${list(phiParams)} also ${phiParams.length > 1 ? 'need' : 'needs'} \`${PHI_SCOPE}\` (\`required_scope\` says which scope is missing).`
      : '';
    responses[403] = {
      description: `${meaningOf(forbidden)} This endpoint needs \`${route.scope}\`.${phiNote}`,
      headers: headersOf('X-Request-Id', 'WWW-Authenticate', 'Cache-Control', 'Vary', ...RATE_LIMIT_HEADERS),
      content: jsonContent(forbidden.schema, {
        insufficientScope: {
          summary: `Key without ${route.scope}`,
          value: errorBody('INSUFFICIENT_SCOPE', `This API key lacks the scope ${route.scope} needed for this endpoint`, { required_scope: route.scope }),
        },
        ...(phiParams.length
          ? {
              patientDataFilter: {
                summary: `?${phiParams[0]}=... by a key without ${PHI_SCOPE}`,
                value: errorBody('INSUFFICIENT_SCOPE', phiScopeMessage(phiParams[0]!), { required_scope: PHI_SCOPE }),
              },
            }
          : {}),
      }),
    };
  }
  if (route.path.includes('{')) responses[404] = responseRef('NotFound');
  const { notAcceptable } = ERROR_KINDS;
  const available = availableTypes(exportFormatsOf(route.path));
  responses[406] = {
    description: `${meaningOf(notAcceptable)} This endpoint answers with ${list(available)}.`,
    headers: headersOf('X-Request-Id', 'Cache-Control', 'Vary', ...RATE_LIMIT_HEADERS),
    content: jsonContent(notAcceptable.schema, {
      notAcceptable: { summary: 'Accept: application/xml', value: errorBody('NOT_ACCEPTABLE', undefined, { available }) },
    }),
  };
  responses[429] = responseRef('RateLimited');
  responses[500] = responseRef('InternalError');
  responses[503] = responseRef('ServiceUnavailable');
  // CSV and NDJSON exports of the route, if it has them (src/rest/exports/openapi.ts).
  const exported = exportDocs(route.path);
  if (exported) {
    const ok = responses[200] as { content: Json; headers: Json };
    ok.content = { ...ok.content, ...exported.content };
    // An export is streamed as it is read: it has no validator, so the 200's ETag is not always there.
    ok.headers = { ...ok.headers, ...exported.headers, ETag: sometimes('ETag', 'On JSON answers only: exports have none.') };
  }
  const description = exported ? `${route.description}\n\n${exported.description}` : route.description;

  return {
    operationId: operationIdOf(route),
    tags: [tagOf(route)],
    summary: route.summary,
    description: route.scope ? `${description}\n\nRequired scope: \`${route.scope}\`.` : `${description}\n\nRequired scope: none (any valid key).`,
    ...(route.scope ? { 'x-required-scope': route.scope } : {}),
    security: [{ [BEARER_SCHEME]: route.scope ? [route.scope] : [] }],
    parameters: [
      ...pathParameters(route, root),
      ...route.params.map((name) => queryParameter(name, route, root)),
      ...(exported ? [exported.formatParameter] : []),
      IF_NONE_MATCH,
    ],
    responses,
  };
}

// ---------------------------------------------------------------------------------------------
// Document

function scopesTable(): string {
  const rows = SCOPES.map((scope) => {
    if (scope === PHI_SCOPE)
      return `| \`${scope}\` | No endpoint of its own: patient data in interactions unmasked, and the filters \`search\` and \`q\` (see below) |`;
    const endpoints = routes.filter((r) => r.scope === scope).map((r) => `\`GET ${r.path}\``);
    return `| \`${scope}\` | ${endpoints.join(', ') || '-'} |`;
  });
  return ['| Scope | Endpoints |', '|---|---|', ...rows].join('\n');
}

function tiersTable(): string {
  const rows = Object.entries(TIER_LIMITS).map(([tier, limits]) => {
    const name = tier.charAt(0).toUpperCase() + tier.slice(1);
    const n = (value: number) => value.toLocaleString('en-US');
    return limits ? `| ${name} | ${n(limits.minute)} | ${n(limits.hour)} | ${n(limits.day)} |` : `| ${name} | none | none | none |`;
  });
  return ['| Tier | Per minute | Per hour | Per day |', '|---|---|---|---|', ...rows].join('\n');
}

/** The codes a REST client can be answered with (the GraphQL-only ones are left out), by status. */
const REST_CODES: readonly ErrorCode[] = [
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'INVALID_API_KEY',
  'API_KEY_EXPIRED',
  'INSUFFICIENT_SCOPE',
  'NOT_FOUND',
  'NOT_ACCEPTABLE',
  'METHOD_NOT_ALLOWED',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
];

function errorsTable(): string {
  const rows = REST_CODES.map((c) => `| ${ERRORS[c].status} | ${code(c)} | ${ERRORS[c].description} |`);
  return ['| Status | Code | When |', '|---|---|---|', ...rows].join('\n');
}

function infoDescription(): string {
  return `Read-only analytics over the automated patient communications of clinics: voice calls and WhatsApp conversations (*interactions*), clinics, outreach campaigns, and aggregated metrics.
Every endpoint is \`GET\` (\`HEAD\` answers its status and headers without the body; any other method is a 405 \`METHOD_NOT_ALLOWED\` with \`Allow: ${READ_METHODS.join(', ')}\`, the shared response \`MethodNotAllowed\`) and returns JSON in one envelope: \`{ success, data, meta?, request_id, timestamp }\` on success, \`{ success: false, error: { code, message, details? }, request_id, timestamp }\` on failure.
This document is served at \`GET /api/v1/openapi.json\` (no key needed); the same data is available through GraphQL at \`/graphql\`.

## Authentication

Send \`Authorization: Bearer <API key>\` with every request. Keys start with \`${KEY_PREFIXES.live}\` (production) or \`${KEY_PREFIXES.test}\` (testing and sandbox), followed by at least 32 random base62 characters; they are issued by your account manager and shown once.
A key may be restricted to specific clinics: other clinics' data is then invisible (empty lists, zeros in metrics, 404 on by-id lookups), never an error.

## Scopes

A key holds one or more scopes (by default all ${SCOPES.length}). Each endpoint needs one (\`x-required-scope\`); without it the answer is 403 \`INSUFFICIENT_SCOPE\`. \`GET /api/v1/me\` (the calling key, its scopes and its quotas) needs none.

${scopesTable()}

### Patient data (\`${PHI_SCOPE}\`)

Interactions hold protected health information. A key without \`${PHI_SCOPE}\` (a BI tool's, say) reads interactions everywhere (lists, by id, cursor pages, the change feed, exports, GraphQL) with:
- \`phone_number\` masked: the \`+\` (or \`00\`), the country calling code and the first digit of the national number kept, every other digit but the last two \`*\`, separators kept (\`+34 612 345 689\` reads \`+34 6** *** *89\`); a number stored without an international prefix keeps only its last two digits (\`06 12 34 56 78\` reads \`** ** ** ** 78\`);
- in \`summary\` and in each transcript entry's \`content\`, phone numbers and e-mail addresses replaced by \`[phone]\` and \`[email]\` (dates, times, prices and years are left as they are);
- \`recording_url\` \`null\`;
- the filters \`search\` and \`q\` refused: 403 \`INSUFFICIENT_SCOPE\` with \`details.required_scope: "${PHI_SCOPE}"\`, before any parameter's value is judged.
Everything else (ids, times, outcomes, durations, totals, metrics) is the same for both.

## Rate limits

Per API key, in three fixed windows aligned to UTC minute, hour and day boundaries; a request is admitted only when all three have room. Every request that passes authentication counts, whatever its status.

${tiersTable()}

Responses to Standard and Premium keys carry \`X-RateLimit-Limit-{Minute,Hour,Day}\`, \`X-RateLimit-Remaining-{Minute,Hour,Day}\` and \`X-RateLimit-Reset-{Minute,Hour,Day}\` (integers; Reset is whole seconds until the window resets), and the same figures as the \`RateLimit-Policy\` and \`RateLimit\` fields of draft-ietf-httpapi-ratelimit-headers-10, one policy per window: \`RateLimit-Policy: "minute";q=60;w=60, "hour";q=1000;w=3600, "day";q=10000;w=86400\`, \`RateLimit: "minute";r=59;t=42, "hour";r=999;t=1542, "day";r=9999;t=41542\`. Unlimited-tier keys get none of these headers. When a window is exhausted the answer is 429 \`RATE_LIMITED\` with \`Retry-After\` (seconds). Failed authentications are limited per client IP.

## Pagination

List endpoints take \`page\` (1-indexed, default 1) and \`limit\` (1 to ${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}) and return \`meta: { page, limit, total, total_pages, has_more }\`. Orders are stable across pages. A parameter that an endpoint does not list, or one given twice, is a 400.

## Errors

Checks run in this order: route, authentication, rate limit, scope, \`Accept\` (406), parameters, execution. Every response carries \`X-Request-Id\`, equal to the body's \`request_id\`.

${errorsTable()}

## Metrics

- Default window: from the start of the UTC day 30 days ago to the end of today (UTC); all days are UTC days.
- \`success_rate\`: interactions with a successful outcome (${list(SUCCESSFUL_OUTCOMES)}: the patient's scheduling request was completed) divided by the interactions that have an outcome, x 100, rounded to 2 decimals; 0 when there are none.
- \`appointments_scheduled\`: interactions with outcome \`${SCHEDULED_OUTCOME}\`.
- \`avg_duration_seconds\`: mean \`duration_seconds\` of the voice calls that have one, rounded to 2 decimals (0 when none); \`total_duration_seconds\` is their sum.

Timestamps are ISO 8601 UTC with milliseconds and \`Z\` (\`2026-01-31T09:05:00.000Z\`).`;
}

/**
 * `HEAD` of a path: the `GET` operation's parameters and answers (statuses and headers), none with a
 * body. Shared answers are copied without their content, since theirs would promise one.
 */
function headOperation(get: Json, shared: Record<string, Json>): Json {
  const responses = Object.entries(get.responses as Record<string, Json>).map(([status, response]) => {
    const named = typeof response.$ref === 'string' ? shared[response.$ref.slice(response.$ref.lastIndexOf('/') + 1)] : response;
    if (!named) throw new Error(`openapi: no shared response ${String(response.$ref)}`);
    const { content: _content, ...withoutBody } = named;
    return [status, withoutBody];
  });
  const id = get.operationId as string;
  return {
    ...get,
    operationId: `head${id.charAt(0).toUpperCase()}${id.slice(1)}`,
    summary: `${get.summary as string} (headers only)`,
    description: `The \`GET\` answer's status and headers, without its body.\n\n${get.description as string}`,
    responses: Object.fromEntries(responses),
  };
}

const INDEX_TAG = 'Index';

/** What each group of operations (a tag: the path's first segment) covers, as the reference shows it. */
const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  [INDEX_TAG]: 'What the REST API offers, without a key.',
  Interactions: 'Voice calls and WhatsApp conversations: lists, by id, the change feed, deletions and exports.',
  Clinics: 'The clinics the key may see.',
  Campaigns: 'Outreach campaigns of those clinics.',
  Metrics: 'Aggregated figures over a window: summary, daily, series, outcomes, breakdown and durations.',
  Me: 'The calling key: its scopes, clinics and quotas.',
};

function tagObject(name: string): Json {
  const description = TAG_DESCRIPTIONS[name];
  if (!description) throw new Error(`openapi: tag ${name} has no description`);
  return { name, description };
}

/** The REST index's answer (http/front-door.ts builds it from the route table). */
function indexSchemas(): Record<string, Json> {
  const text = { type: 'string' };
  const endpoint = object({
    method: { type: 'string', const: 'GET' },
    path: { type: 'string', description: 'The path as this document names it (`{id}` for a path parameter).' },
    summary: text,
    required_scope: { type: ['string', 'null'], enum: [...SCOPES, null], description: 'The scope the endpoint needs; null: any valid key.' },
    operation_id: { type: 'string', description: 'The `operationId` of its `GET` in this document.' },
    docs: { type: 'string', description: 'The endpoint in the reference (`/docs`).' },
  });
  return {
    ApiIndex: object(
      {
        name: text,
        version: { type: 'string', const: API_VERSION },
        authentication: text,
        openapi: { type: 'string', description: 'Where this document is served.' },
        docs: { type: 'string', description: 'Where the reference is served.' },
        endpoints: { type: 'array', items: endpoint, description: 'Every endpoint of the API, in the order of this document.' },
      },
      { description: 'What the REST API offers: every endpoint with its method, summary and scope.' },
    ),
    ApiIndexEnvelope: object(
      { success: { type: 'boolean', const: true }, data: ref('ApiIndex'), request_id: ref('RequestId'), timestamp: ref('Timestamp') },
      { description: `Success envelope of ${API_INDEX_PATH}.` },
    ),
  };
}

/** `GET /api/v1`: the REST index, public (no key, not counted against any quota). */
function indexOperation(): Json {
  const headers = {
    ...headersOf('X-Request-Id', 'ETag'),
    'Cache-Control': { description: '`no-cache`: public, revalidated with `If-None-Match`.', required: true, schema: { type: 'string', const: 'no-cache' } },
    Link: {
      description: 'RFC 8631 links: the reference (`service-doc`), this document (`service-desc`) and readiness (`status`).',
      required: true,
      schema: { type: 'string' },
    },
  };
  return {
    operationId: 'getIndex',
    tags: [INDEX_TAG],
    summary: 'The REST index',
    description: 'Every endpoint with its method, summary, required scope and `operationId`. No key needed; not counted against any quota.',
    security: [],
    parameters: [IF_NONE_MATCH],
    responses: {
      200: { description: 'The index.', headers, content: jsonContent('ApiIndexEnvelope') },
      304: { description: 'The index has not changed since the `ETag` sent.', headers },
    },
  };
}

function build(): Json {
  const schemas = { ...componentSchemas(), ...indexSchemas() };
  const shared = sharedResponses();
  const index = indexOperation();
  const paths: Record<string, Json> = { [API_INDEX_PATH]: { get: index, head: headOperation(index, shared) } };
  const tags: string[] = [INDEX_TAG];
  for (const route of routes) {
    if (paths[route.path]) throw new Error(`openapi: duplicate route ${route.path}`);
    const get = operation(route, schemas);
    paths[route.path] = { get, head: headOperation(get, shared) };
    if (!tags.includes(tagOf(route))) tags.push(tagOf(route));
  }
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: API_TITLE,
      version: API_VERSION,
      description: infoDescription(),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'This server' }],
    security: [{ [BEARER_SCHEME]: [] }],
    tags: tags.map(tagObject),
    paths,
    components: {
      securitySchemes: {
        [BEARER_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: `${KEY_PREFIXES.live}... / ${KEY_PREFIXES.test}...`,
          description:
            `An API key as a Bearer token: \`Authorization: Bearer ${KEY_PREFIXES.live}<random>\`. \`${KEY_PREFIXES.live}\` keys are for production, ` +
            `\`${KEY_PREFIXES.test}\` keys for testing and sandbox use. Keys are issued by your account manager.`,
        },
      },
      schemas,
      responses: shared,
      headers: componentHeaders(),
    },
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

let document: Json | undefined;

/** The OpenAPI 3.1 document of the REST API, built once from the route table (and frozen). */
export function buildOpenApiDocument(): Json {
  document ??= deepFreeze(build());
  return document;
}
