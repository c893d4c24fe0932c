// The service keeps clinics and campaigns in memory until PostgreSQL says they changed
// (src/db/client.ts, CatalogCache): reads served from memory issue no statement, a committed change
// is seen once its notification arrives (`settled` waits for it), and a lost listening connection turns the memory off
// until it listens again.
import { afterAll, describe, expect, it } from 'vitest';
import { visibleClinicsOf } from '../../src/auth/api-keys.js';
import { type CatalogCache, createPrismaClient, SQL_POOL } from '../../src/db/client.js';
import { createGraphQLContext } from '../../src/graphql/builder.js';
import { campaignsById, clinicsById } from '../../src/interactions/rows.js';
import { databaseUrl, sql, testDb } from '../helpers/db.js';
import { createCampaign, createClinic } from '../helpers/factories.js';

const writer = testDb();
const statements: string[] = [];
const cached = createPrismaClient(databaseUrl, 2, { catalogCache: true, onStatement: (text) => statements.push(text) });
afterAll(() => cached.$disconnect());
const catalog = cached[SQL_POOL].catalog as CatalogCache;

/** Polls `check` until it holds (5 s at most). */
async function eventually(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 250; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`never: ${what}`);
}

/** A read starts the listening connection; the memory serves once it listens. */
async function listening(read: () => Promise<unknown>): Promise<void> {
  await eventually(async () => {
    await read();
    return catalog.listening;
  }, 'the catalogue listens');
}

describe('catalogue in memory', () => {
  it("serves a key's clinics without a statement, and drops them when a clinic changes environment", async () => {
    const [a, b] = [await createClinic(writer), await createClinic(writer)];
    const key = { environment: 'live' as const, clinicIds: [a.id, b.id] };
    await listening(() => visibleClinicsOf(cached, key));
    await catalog.settled();
    await visibleClinicsOf(cached, key);
    statements.length = 0;
    expect(await visibleClinicsOf(cached, key)).toEqual([a.id, b.id]);
    expect(statements).toEqual([]);

    await writer.clinic.update({ where: { id: b.id }, data: { environment: 'sandbox' } });
    await catalog.settled();
    expect(await visibleClinicsOf(cached, key)).toEqual([a.id]);
    // Kept again once read after the change.
    statements.length = 0;
    expect(await visibleClinicsOf(cached, key)).toEqual([a.id]);
    expect(statements).toEqual([]);
  });

  it('serves clinics and campaigns by id from memory, frozen, and reads a renamed one again', async () => {
    const clinic = await createClinic(writer);
    const campaign = await createCampaign(writer, clinic.id, { name: 'Before' });
    await listening(() => campaignsById(cached, [campaign.id]));
    await catalog.settled();
    await campaignsById(cached, [campaign.id]);
    statements.length = 0;
    const [kept] = await campaignsById(cached, [campaign.id]);
    expect(kept?.name).toBe('Before');
    expect(Object.isFrozen(kept)).toBe(true);
    // A uuid in capitals is the same clinic; an id that does not exist is remembered as absent.
    expect((await clinicsById(cached, [clinic.id.toUpperCase()])).map((c) => c.id)).toEqual([clinic.id]);
    expect(await campaignsById(cached, ['cmp-that-does-not-exist'])).toEqual([]);
    await clinicsById(cached, [clinic.id]);
    statements.length = 0;
    expect((await clinicsById(cached, [clinic.id.toUpperCase()])).map((c) => c.id)).toEqual([clinic.id]);
    expect(await campaignsById(cached, ['cmp-that-does-not-exist', campaign.id])).toHaveLength(1);
    expect(statements).toEqual([]);

    await writer.campaign.update({ where: { id: campaign.id }, data: { name: 'After' } });
    await catalog.settled();
    expect((await campaignsById(cached, [campaign.id]))[0]?.name).toBe('After');
  });

  it('keeps nothing a rolled-back write would have changed, and nothing read before a commit', async () => {
    const clinic = await createClinic(writer, { name: 'Committed' });
    await listening(() => clinicsById(cached, [clinic.id]));
    await catalog.settled();
    await expect(
      writer.$transaction(async (tx) => {
        await tx.clinic.update({ where: { id: clinic.id }, data: { name: 'Rolled back' } });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await clinicsById(cached, [clinic.id]))[0]?.name).toBe('Committed');

    // A read that began before a commit and ended after its notification is not kept.
    const slow = clinicsById(cached, [`${clinic.id.slice(0, -1)}0`]);
    await writer.clinic.update({ where: { id: clinic.id }, data: { name: 'Renamed' } });
    await slow;
    await catalog.settled();
    expect((await clinicsById(cached, [clinic.id]))[0]?.name).toBe('Renamed');
  });

  it("hands a request's clinic and campaign from memory at once, never one of a clinic the key may not see", async () => {
    const [own, other] = [await createClinic(writer), await createClinic(writer)];
    const [ownCampaign, otherCampaign] = [await createCampaign(writer, own.id), await createCampaign(writer, other.id)];
    await listening(() => clinicsById(cached, [own.id, other.id]));
    await catalog.settled();
    await clinicsById(cached, [own.id, other.id]);
    await campaignsById(cached, [ownCampaign.id, otherCampaign.id]);
    // (The context reads the key's environment and clinics.)
    const principal = { environment: 'live', clinicIds: [own.id] } as Parameters<typeof createGraphQLContext>[1];
    const { entities } = await createGraphQLContext(cached, principal);
    statements.length = 0;
    // Values, not promises: nothing was waited for.
    expect(entities.clinicOf(own.id)).toMatchObject({ id: own.id, name: own.name });
    expect(entities.campaignOf(ownCampaign.id)).toMatchObject({ id: ownCampaign.id });
    expect(entities.clinicOf(other.id)).toBeNull();
    expect(entities.campaignOf(otherCampaign.id)).toBeNull();
    expect(statements).toEqual([]);
    // Not in memory: through the loader, with the same rule.
    expect(await entities.clinicOf('00000000-0000-0000-0000-00000000000f')).toBeNull();
  });

  it('reads from the database while its listening connection is lost, and listens again', async () => {
    const clinic = await createClinic(writer);
    const key = { environment: 'live' as const, clinicIds: [clinic.id] };
    await listening(() => visibleClinicsOf(cached, key));
    await sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE '% catalog listener'`);
    await eventually(() => !catalog.listening, 'the lost connection is noticed');
    // Meanwhile every read asks the database: a change made now is seen by the next read.
    await writer.clinic.update({ where: { id: clinic.id }, data: { environment: 'sandbox' } });
    statements.length = 0;
    expect(await visibleClinicsOf(cached, key)).toEqual([]);
    expect(statements).toHaveLength(1);
    await listening(() => visibleClinicsOf(cached, key));
    await catalog.settled();
    await visibleClinicsOf(cached, key);
    statements.length = 0;
    expect(await visibleClinicsOf(cached, key)).toEqual([]);
    expect(statements).toEqual([]);
  });
});
