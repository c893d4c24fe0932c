// Rows already in the database that import lines may refer to: looked up in batches
// (`WHERE id = ANY($1)`) and cached, so a million interactions of a few clinics cost a few queries.
import type pg from 'pg';
import type { ClinicEnvironmentValue } from '../auth/api-keys.js';

/** Beyond this many cached ids the cache starts afresh: memory stays bounded whatever the files hold. */
const MAX_CACHED = 200_000;

/** Where an interaction id belongs: its row's clinic, or, once deleted, its tombstone's. */
export interface InteractionClinic {
  clinicId: string;
  deleted: boolean;
}

export class DatabaseReferences {
  /** Clinic id -> its environment, or null when there is no such clinic. */
  private readonly clinics = new Map<string, ClinicEnvironmentValue | null>();
  /** Campaign id -> its clinic id, or null when there is no such campaign. */
  private readonly campaigns = new Map<string, string | null>();
  /** Interaction id -> its clinic, for the stored or deleted interactions among the last batch's ids only. */
  private readonly interactions = new Map<string, InteractionClinic>();

  constructor(private readonly client: pg.ClientBase) {}

  /**
   * Makes `clinicEnvironment`, `campaignClinic` and `interactionClinic` answer for these ids (clinic ids:
   * valid UUIDs, lower case). Interactions are not cached: each id occurs once in the files.
   */
  async load(clinicIds: Iterable<string>, campaignIds: Iterable<string>, interactionIds: string[] = []): Promise<void> {
    if (this.clinics.size > MAX_CACHED) this.clinics.clear();
    if (this.campaigns.size > MAX_CACHED) this.campaigns.clear();
    const clinics = [...new Set(clinicIds)].filter((id) => !this.clinics.has(id));
    const campaigns = [...new Set(campaignIds)].filter((id) => !this.campaigns.has(id));
    if (clinics.length > 0) {
      const found = await this.client.query<{ id: string; environment: ClinicEnvironmentValue }>(
        'SELECT id::text AS id, environment::text AS environment FROM clinics WHERE id = ANY($1::uuid[])',
        [clinics],
      );
      for (const id of clinics) this.clinics.set(id, null);
      for (const row of found.rows) this.clinics.set(row.id, row.environment);
    }
    if (campaigns.length > 0) {
      const found = await this.client.query<{ id: string; clinic_id: string }>(
        'SELECT id, clinic_id::text AS clinic_id FROM campaigns WHERE id = ANY($1::text[])',
        [campaigns],
      );
      for (const id of campaigns) this.campaigns.set(id, null);
      for (const row of found.rows) this.campaigns.set(row.id, row.clinic_id);
    }
    this.interactions.clear();
    if (interactionIds.length > 0) {
      // A deleted id keeps its clinic through its tombstone (a stored row has none: storing an id
      // again removes it).
      const found = await this.client.query<{ id: string; clinic_id: string; deleted: boolean }>(
        `SELECT id, clinic_id::text AS clinic_id, false AS deleted FROM interactions WHERE id = ANY($1::text[])
         UNION ALL
         SELECT id, clinic_id::text AS clinic_id, true AS deleted FROM interaction_tombstones WHERE id = ANY($1::text[])`,
        [interactionIds],
      );
      for (const row of found.rows) {
        if (!this.interactions.get(row.id) || !row.deleted) this.interactions.set(row.id, { clinicId: row.clinic_id, deleted: row.deleted });
      }
    }
  }

  /** The stored clinic's environment, null when there is no such clinic, undefined when not loaded. */
  clinicEnvironment(id: string): ClinicEnvironmentValue | null | undefined {
    return this.clinics.get(id);
  }

  /** The campaign's clinic, null when the campaign does not exist, undefined when not loaded. */
  campaignClinic(id: string): string | null | undefined {
    return this.campaigns.get(id);
  }

  /** The stored or deleted interaction's clinic; undefined when it is neither (or was not in the last `load`). */
  interactionClinic(id: string): InteractionClinic | undefined {
    return this.interactions.get(id);
  }
}
