// Clinic restriction of an API key, applied where data is read (decisions section 5): every query
// gets a clinic condition in its WHERE, so other clinics' rows are never fetched.
import { Prisma } from '../generated/prisma/client.js';

/** The clinics a request may see: `null` means every clinic. */
export type VisibleClinics = readonly string[] | null;

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
