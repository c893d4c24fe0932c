// The API key making the request: GraphQL `viewer`, and REST `GET /api/v1/me` through the same
// field (schema/rest/me.graphql). It needs no scope: a key may always see itself, and a client
// needs this to find out why it was refused or how much quota is left. Everything here comes from
// the request's own authentication and admission, so it reads nothing from the database.
import type { ApiKeyPrincipal } from '../../auth/api-keys.js';
import { KEY_PREFIXES, KEY_TIERS, SCOPES } from '../../domain/values.js';
import type { QuotaDecision, Window } from '../../limits/windows.js';
import { builder } from '../builder.js';

const code = (text: string) => `\`${text}\``;

const TIER_MEANINGS: Record<(typeof KEY_TIERS)[number], string> = {
  standard: 'Standard quotas (REST `standard`).',
  premium: 'Premium quotas (REST `premium`).',
  unlimited: 'No quotas and no rate-limit headers (REST `unlimited`).',
};

const ApiKeyTierEnum = builder.enumType('ApiKeyTier', {
  description: 'The rate-limit tier of an API key.',
  values: Object.fromEntries(KEY_TIERS.map((tier) => [tier.toUpperCase(), { value: tier, description: TIER_MEANINGS[tier] }])),
});

const ENVIRONMENTS = Object.keys(KEY_PREFIXES) as (keyof typeof KEY_PREFIXES)[];

const ApiKeyEnvironmentEnum = builder.enumType('ApiKeyEnvironment', {
  description: "Where an API key is meant to be used; it shows in the key's prefix.",
  values: Object.fromEntries(
    ENVIRONMENTS.map((environment) => [
      environment.toUpperCase(),
      {
        value: environment,
        description: `${environment === 'live' ? 'Production' : 'Testing and sandbox'}: keys start with ${code(KEY_PREFIXES[environment])} (REST ${code(environment)}).`,
      },
    ]),
  ),
});

interface QuotaWindowShape {
  limit: number | null;
  remaining: number | null;
  resetSeconds: number | null;
}

const UNLIMITED_WINDOW: QuotaWindowShape = { limit: null, remaining: null, resetSeconds: null };

const QuotaWindow = builder.objectRef<QuotaWindowShape>('QuotaWindow').implement({
  description:
    'One fixed quota window of the key, aligned to UTC boundaries, as this request left it (this request counted). All three fields are null for Unlimited-tier keys.',
  fields: (t) => ({
    limit: t.exposeInt('limit', { nullable: true, description: 'Requests allowed in the window; null for Unlimited-tier keys.' }),
    remaining: t.exposeInt('remaining', {
      nullable: true,
      description: 'Requests left in the current window after this one, as the rate-limit headers say; null for Unlimited-tier keys.',
    }),
    resetSeconds: t.exposeInt('resetSeconds', {
      nullable: true,
      description: 'Whole seconds until the current window resets, rounded up (1 to 60 for the minute); null for Unlimited-tier keys.',
    }),
  }),
});

const windowOf = (quota: QuotaDecision | undefined, window: Window): QuotaWindowShape =>
  quota ? { limit: quota.limits[window], remaining: quota.remaining[window], resetSeconds: quota.resetSeconds[window] } : UNLIMITED_WINDOW;

const ViewerQuota = builder.objectRef<{ decision: QuotaDecision | undefined }>('ViewerQuota').implement({
  description: "The key's per-minute, per-hour and per-day quotas; a request is admitted only when all three have room.",
  fields: (t) => ({
    minute: t.field({ type: QuotaWindow, description: 'The current UTC minute.', resolve: ({ decision }) => windowOf(decision, 'minute') }),
    hour: t.field({ type: QuotaWindow, description: 'The current UTC hour.', resolve: ({ decision }) => windowOf(decision, 'hour') }),
    day: t.field({ type: QuotaWindow, description: 'The current UTC day.', resolve: ({ decision }) => windowOf(decision, 'day') }),
  }),
});

interface ViewerShape {
  key: ApiKeyPrincipal;
  quota: QuotaDecision | undefined;
}

const Viewer = builder.objectRef<ViewerShape>('Viewer').implement({
  description: 'The API key that made this request. Never the key itself: only its display prefix.',
  fields: (t) => ({
    id: t.id({ description: 'Id (UUID) of the key, as listed by the operators.', resolve: ({ key }) => key.id }),
    name: t.string({ description: 'The name the key was issued under.', resolve: ({ key }) => key.name }),
    prefix: t.string({
      description: `The first characters of the key, e.g. ${code(`${KEY_PREFIXES.live}AbCd`)}, to recognise it; the rest is never stored.`,
      resolve: ({ key }) => key.prefix,
    }),
    environment: t.field({
      type: ApiKeyEnvironmentEnum,
      description: 'Production or testing key: a `LIVE` key sees live clinics only, a `TEST` key sandbox ones only.',
      resolve: ({ key }) => key.environment,
    }),
    scopes: t.stringList({
      description: `The scopes the key holds, of ${SCOPES.map(code).join(', ')}; possibly none.`,
      resolve: ({ key }) => [...key.scopes],
    }),
    clinicIds: t.idList({
      nullable: true,
      description: 'The clinics the key is restricted to; null when it may see every clinic.',
      resolve: ({ key }) => (key.clinicIds ? [...key.clinicIds] : null),
    }),
    tier: t.field({ type: ApiKeyTierEnum, description: 'The rate-limit tier of the key.', resolve: ({ key }) => key.tier }),
    quota: t.field({
      type: ViewerQuota,
      description: 'The quota windows as this request left them, the same figures as its rate-limit headers.',
      resolve: ({ quota }) => ({ decision: quota }),
    }),
    expiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the key stops working; null when it does not expire.',
      resolve: ({ key }) => key.expiresAt,
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When the key was issued.', resolve: ({ key }) => key.createdAt }),
    lastUsedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'When the key was last used before this request, as recorded; null if never. Uses are recorded at most once a minute per key and server process, so this can lag by about a minute; it never includes this request.',
      resolve: ({ key }) => key.lastUsedAt,
    }),
  }),
});

builder.queryField('viewer', (t) =>
  t.field({
    type: Viewer,
    databaseCost: { readsDatabase: false },
    description: 'The API key making this request, with its quotas after this request. Needs no scope; like any request, it counts against the quotas.',
    resolve: (_root, _args, context) => ({ key: context.key, quota: context.quota }),
  }),
);
