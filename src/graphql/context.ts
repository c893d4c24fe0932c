// What every resolver receives. Built once per request, after authentication: the key, the clinics
// it may see, the caller's parameters, and the loaders that batch the request's reads (each made
// when first asked for).
import DataLoader from 'dataloader';
import type { ApiKeyPrincipal } from '../auth/api-keys.js';
import { type VisibleClinics, visibleClinicsOf } from '../auth/clinic-visibility.js';
import type { Db } from '../db/client.js';
import { GRAPHQL_NAMES, type ParameterNames } from '../filters/interaction-filters.js';
import type { Campaign, Clinic } from '../generated/prisma/client.js';
import type { NestedLists } from '../interactions/nested-pages.js';
import { campaignsById, clinicsById } from '../interactions/rows.js';
import type { QuotaDecision } from '../limits/windows.js';

/**
 * How the caller names and sends the arguments the resolvers check (graphql/errors.ts `checked`):
 * GraphQL clients by the schema's names; the REST facade (rest/query-params.ts) by its parameter
 * names, with the texts that no GraphQL variable could carry (an unknown enum value) handed over as
 * they were sent, so that the same rules judge them and name them as the client did.
 */
export interface CallerParameters {
  names: ParameterNames;
  /** Argument name -> the value sent, for arguments whose variable had to be left null. */
  unconverted: Readonly<Record<string, string | readonly string[] | number>>;
  /** The caller already has problems of its own: check every argument, read nothing, and report. */
  checkOnly: boolean;
  /** An export (src/rest/exports): a paged result has every row, not a page (breakdowns: every group). */
  everyRow?: boolean;
}

export const GRAPHQL_CALLER: CallerParameters = { names: GRAPHQL_NAMES, unconverted: {}, checkOnly: false };

/** Where the REST facade puts its CallerParameters in the initial context of an execution. */
export const CALLER_PARAMETERS = Symbol('caller-parameters');

/** The caller's parameters from an execution's initial context: the REST facade's, else GraphQL's. */
export function callerParametersOf(initialContext: object): CallerParameters {
  return (initialContext as { [CALLER_PARAMETERS]?: CallerParameters })[CALLER_PARAMETERS] ?? GRAPHQL_CALLER;
}

export interface GraphQLContext {
  db: Db;
  key: ApiKeyPrincipal;
  /**
   * The clinics this key may see (`null`: all): its clinic list, within its environment's clinics
   * (auth/clinic-visibility.ts); applied in every query's WHERE.
   */
  visibleClinics: VisibleClinics;
  /** The batched interaction lists under clinics and campaigns, made when a nested list first asks (interactions/nested-pages.ts). */
  nestedLists: NestedLists;
  /** Clinics and campaigns by id, in batches (breakdown groups, metrics of clinics and campaigns). */
  entities: EntityLoaders;
  /** Batches of per-clinic and per-campaign metrics, one per distinct set of arguments (entity-metrics.ts). */
  metricsBatches: Map<string, unknown>;
  now: Date;
  parameters: CallerParameters;
  /**
   * The key's quota as this request's admission left it (this request counted); undefined for the
   * Unlimited tier. The same decision gives the response its rate-limit headers, so `viewer` and
   * the headers cannot disagree.
   */
  quota?: QuotaDecision;
}

/** Reads the clinics the key may see (one statement): a database that cannot answer rejects it. */
export async function createGraphQLContext(
  db: Db,
  key: ApiKeyPrincipal,
  now = new Date(),
  parameters = GRAPHQL_CALLER,
  quota?: QuotaDecision,
): Promise<GraphQLContext> {
  const visibleClinics = await visibleClinicsOf(db, key);
  return {
    db,
    key,
    visibleClinics,
    nestedLists: new Map(),
    entities: entityLoaders(db, visibleClinics),
    metricsBatches: new Map(),
    now,
    parameters,
    quota,
  };
}

// Clinics and campaigns by id, loaded in batches: the group keys of a breakdown name their clinic
// and campaign, and a page of groups must cost one statement per kind, not one per group. Read by
// hand-written SQL in the model's shape (interactions/rows.ts), as the relations of a page are:
// Prisma's client was a tenth of a breakdown's CPU in the service.

export interface EntityLoaders {
  readonly clinic: DataLoader<string, Clinic | null>;
  readonly campaign: DataLoader<string, Campaign | null>;
}

/**
 * Loaders that never return a clinic the key may not see, nor a campaign of one; each is made when
 * first asked for (most requests read neither).
 */
function entityLoaders(db: Db, visible: VisibleClinics): EntityLoaders {
  const seen = (clinicId: string) => visible === null || visible.includes(clinicId);
  /** A loader of rows by id that answers null for a row of a clinic the key may not see. */
  const visibleById = <T extends { id: string }>(load: (db: Db, ids: string[]) => Promise<T[]>, clinicOf: (row: T) => string) =>
    new DataLoader<string, T | null>(async (ids) => {
      const byId = new Map((await load(db, [...ids])).filter((row) => seen(clinicOf(row))).map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    });
  let clinic: EntityLoaders['clinic'] | undefined;
  let campaign: EntityLoaders['campaign'] | undefined;
  return {
    get clinic() {
      clinic ??= visibleById(clinicsById, (row) => row.id);
      return clinic;
    },
    get campaign() {
      campaign ??= visibleById(campaignsById, (row) => row.clinicId);
      return campaign;
    },
  };
}
