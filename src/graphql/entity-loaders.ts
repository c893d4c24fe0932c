// Clinics and campaigns by id, loaded in batches: the group keys of a breakdown name their clinic
// and campaign, and a page of groups must cost one statement per kind, not one per group. Read by
// hand-written SQL in the model's shape (interactions/rows.ts), as the relations of a page are:
// Prisma's client was a tenth of a breakdown's CPU in the service.
import DataLoader from 'dataloader';
import type { VisibleClinics } from '../auth/clinic-scope.js';
import type { Db } from '../db/client.js';
import type { Campaign, Clinic } from '../generated/prisma/client.js';
import { campaignsById, clinicsById } from '../interactions/rows.js';

export interface EntityLoaders {
  clinic: DataLoader<string, Clinic | null>;
  campaign: DataLoader<string, Campaign | null>;
}

/** Loaders that never return a clinic the key may not see, nor a campaign of one. */
export function createEntityLoaders(db: Db, visible: VisibleClinics): EntityLoaders {
  const seen = (clinicId: string) => visible === null || visible.includes(clinicId);
  return {
    clinic: new DataLoader(async (ids) => {
      const rows = await clinicsById(db, [...ids]);
      const byId = new Map(rows.filter((row) => seen(row.id)).map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    campaign: new DataLoader(async (ids) => {
      const rows = await campaignsById(db, [...ids]);
      const byId = new Map(rows.filter((row) => seen(row.clinicId)).map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
  };
}
