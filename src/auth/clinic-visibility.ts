// Which clinics an API key sees, and the condition that keeps every read to them.
//
// Two rules decide the clinics: a key's own clinic list, if it has one (decisions section 5), and
// environments (decisions section 12): a clinic is `live` or `sandbox`, and a key sees only the
// clinics of its own environment (`svc_live_` keys live ones, `svc_test_` keys sandbox ones), on
// every path. Both fold into one VisibleClinics per request (`visibleClinicsOf`), applied where data
// is read: every query gets a clinic condition in its WHERE (`clinicCondition` and the rest below),
// so other clinics' rows are never fetched, and nothing downstream needs to know about
// environments.
//
// Read per request, not cached: a cache would let a key see, for its lifetime, a clinic just
// imported into the other environment, and would make `null` (every clinic) outlive the first
// clinic of the other environment.
import type { Db } from '../db/client.js';
import { prepared, queryRows } from '../db/sql.js';
import { KEY_PREFIXES } from '../domain/values.js';
import { Prisma } from '../generated/prisma/client.js';
import type { ApiKeyPrincipal, KeyEnvironmentValue } from './api-keys.js';

/** The clinics a request may see: `null` means every clinic. */
export type VisibleClinics = readonly string[] | null;

export const CLINIC_ENVIRONMENTS = ['live', 'sandbox'] as const;
export type ClinicEnvironmentValue = (typeof CLINIC_ENVIRONMENTS)[number];

/** The clinics each key environment sees. */
export const CLINIC_ENVIRONMENT_OF_KEY: Record<KeyEnvironmentValue, ClinicEnvironmentValue> = { live: 'live', test: 'sandbox' };

/** How the keys that see each environment begin (for what the CLI tells operators). */
export const KEY_PREFIX_OF_ENVIRONMENT: Record<ClinicEnvironmentValue, string> = { live: KEY_PREFIXES.live, sandbox: KEY_PREFIXES.test };

export function isClinicEnvironment(value: string): value is ClinicEnvironmentValue {
  return (CLINIC_ENVIRONMENTS as readonly string[]).includes(value);
}

/** The statement for an unrestricted key of each environment, built once (it runs on every request). */
const UNRESTRICTED: Record<ClinicEnvironmentValue, Prisma.Sql> = {
  live: clinicsOfEnvironment('live'),
  sandbox: clinicsOfEnvironment('sandbox'),
};

function clinicsOfEnvironment(environment: ClinicEnvironmentValue): Prisma.Sql {
  return prepared(
    'clinics_of_environment',
    Prisma.sql`SELECT CASE WHEN EXISTS (SELECT 1 FROM clinics WHERE environment <> ${environment}::"ClinicEnvironment")
               THEN array(SELECT id::text FROM clinics WHERE environment = ${environment}::"ClinicEnvironment" ORDER BY id) END AS ids`,
  );
}

/**
 * The clinics `key` may see: its own clinic list (or every clinic) among the clinics of its
 * environment. `null` (every clinic, which lets the metrics read the all-clinics rollups) only for
 * an unrestricted key while no clinic of the other environment exists, as in a database that holds
 * only live data; otherwise the list of ids, possibly empty (nothing is visible).
 *
 * One small statement per request, kept prepared: for an unrestricted key, an EXISTS that stops at
 * the first clinic of the other environment (the ids are read only when there is one); for a
 * restricted key, the key's clinics looked up by primary key.
 */
export async function visibleClinicsOf(db: Db, key: Pick<ApiKeyPrincipal, 'environment' | 'clinicIds'>): Promise<VisibleClinics> {
  const environment = CLINIC_ENVIRONMENT_OF_KEY[key.environment];
  const restricted = key.clinicIds && key.clinicIds.length > 0 ? key.clinicIds : null;
  if (restricted === null) {
    const [row] = await queryRows<{ ids: string[] | null }>(db, UNRESTRICTED[environment]);
    return row?.ids ?? null;
  }
  const [row] = await queryRows<{ ids: string[] }>(
    db,
    prepared(
      'key_clinics_of_environment',
      Prisma.sql`SELECT array(SELECT id::text FROM clinics WHERE id = ANY(${restricted}::uuid[]) AND environment = ${environment}::"ClinicEnvironment") AS ids`,
    ),
  );
  const own = new Set(row?.ids ?? []);
  // The key's own list, in its order and spelling (ETag identities and `viewer` stay as they were),
  // less the clinics of the other environment.
  return restricted.filter((id) => own.has(id.toLowerCase()));
}

/**
 * The clinic ids a query may touch, combining the key's restriction with a `clinic_id` filter:
 * `undefined` = no clinic condition needed, `[]` = nothing is visible.
 */
export function clinicScope(visible: VisibleClinics, clinicId?: string): readonly string[] | undefined {
  if (clinicId !== undefined) return visible === null || visible.includes(clinicId) ? [clinicId] : [];
  return visible === null ? undefined : visible;
}

export function clinicCondition(visible: VisibleClinics, clinicId?: string): { clinicId?: { in: string[] } } {
  const scope = clinicScope(visible, clinicId);
  return scope === undefined ? {} : { clinicId: { in: [...scope] } };
}

export function campaignWhere(
  filters: { clinicId?: string; status?: Prisma.CampaignWhereInput['status'] },
  visible: VisibleClinics,
): Prisma.CampaignWhereInput {
  return { ...clinicCondition(visible, filters.clinicId), ...(filters.status ? { status: filters.status } : {}) };
}

export function clinicWhere(visible: VisibleClinics): Prisma.ClinicWhereInput {
  return visible === null ? {} : { id: { in: [...visible] } };
}

/**
 * A campaign filter's visibility, as a condition PostgreSQL settles once, before reading any row:
 * the campaign looked up by primary key among the clinics a query may touch (`clinicIds`, as
 * clinicScope gives them; undefined = every clinic). The condition refers to nothing of the
 * statement's own rows, so it becomes a one-time filter above the plan: when it is false - the
 * campaign is another clinic's or environment's, or does not exist - nothing below it runs. A
 * foreign campaign then costs what a nonexistent one does; filtered only by `campaign_id` and
 * `clinic_id`, its rows were read from the campaign's index and thrown away one by one, in a time
 * that told how big another tenant's campaign is.
 */
export function campaignVisible(campaignId: string, clinicIds: readonly string[] | undefined): Prisma.Sql {
  const clinics = clinicIds === undefined ? Prisma.empty : Prisma.sql`AND visible_campaign.clinic_id = ANY(${[...clinicIds]}::uuid[])`;
  return Prisma.sql`EXISTS (SELECT FROM campaigns visible_campaign WHERE visible_campaign.id = ${campaignId}::text ${clinics})`;
}
