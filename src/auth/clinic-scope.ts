// Clinic restriction of an API key, applied where data is read (decisions section 5): every query
// gets a clinic condition in its WHERE, so other clinics' rows are never fetched.
import type { Prisma } from '../generated/prisma/client.js';

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
