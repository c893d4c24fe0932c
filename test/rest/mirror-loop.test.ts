// The mirroring loops of the docs, end to end (docs/tour.md and docs/rest-api.md: the change feed;
// docs/patient-data.md: the tombstones): a client copies interactions by following the change
// feed (`/interactions?updated_since=`) and then deletes the ids tombstoned since its last sync
// (`/interactions/deleted?since=`), while the operator imports, purges and re-imports through the
// CLI. After every step each mirror must hold exactly what the API serves: the same ids, each at
// the same updated_at. One mirror syncs after every step; another only now and then (it never sees
// the tombstones a re-import cleared); a third starts late.
import { describe, expect, it } from 'vitest';
import { createKey, testApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { testDb } from '../helpers/db.js';
import { clinicLine, voiceLine, writeLines } from '../importer/files.js';
import { expectStatus, get } from './client.js';

const db = testDb();
const app = testApp(db);
// updated_at and deleted_at are rounded to the millisecond and the feed's horizon is a millisecond
// below a read's start: what a command committed is listed by a read a few milliseconds later.
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Row {
  id: string;
  updated_at: string;
}

/** What a mirroring client keeps between runs: its copy and its two positions (the docs' SINCE, DSINCE). */
class Mirror {
  readonly rows = new Map<string, Row>();
  since = '2000-01-01T00:00:00.000Z';
  dsince = '2000-01-01T00:00:00.000Z';

  constructor(
    private readonly key: string,
    /** The docs' loops page by 500; smaller pages walk the cursors too. */
    private readonly limit = 3,
  ) {}

  /** One run of the docs' loop: the change feed, then the tombstones. */
  async sync(): Promise<void> {
    let next: string | undefined;
    let cursor = '';
    for (;;) {
      const page = await get(
        app,
        `/api/v1/interactions?updated_since=${this.since}&limit=${this.limit}&include_total=false&cursor=${encodeURIComponent(cursor)}`,
        this.key,
      );
      expectStatus(page, 200);
      const items = page.body.data.interactions as Row[];
      for (const item of items) this.rows.set(item.id, item); // upsert by id
      const last = items.at(-1)?.updated_at;
      if (last) next = last;
      cursor = page.body.meta.next_cursor ?? '';
      if (!cursor) break;
    }
    this.since = next ?? this.since;

    let dnext: string | undefined;
    cursor = '';
    for (;;) {
      const page = await get(
        app,
        `/api/v1/interactions/deleted?since=${this.dsince}&limit=${this.limit}&include_total=false&cursor=${encodeURIComponent(cursor)}`,
        this.key,
      );
      expectStatus(page, 200);
      const stones = page.body.data.deleted_interactions as Array<{ id: string; deleted_at: string }>;
      for (const stone of stones) this.rows.delete(stone.id); // delete these ids from the copy
      const last = stones.at(-1)?.deleted_at;
      if (last) dnext = last;
      cursor = page.body.meta.next_cursor ?? '';
      if (!cursor) break;
    }
    this.dsince = dnext ?? this.dsince;
  }

  copy(): string[] {
    return [...this.rows.values()].map((r) => `${r.id} ${r.updated_at}`).sort();
  }
}

/** Everything the API serves the key: ids from the ordinary list, each with its updated_at from a full walk of the feed. */
async function served(key: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor = '';
  for (;;) {
    const page = await get(app, `/api/v1/interactions?limit=100&include_total=false&cursor=${encodeURIComponent(cursor)}`, key);
    expectStatus(page, 200);
    ids.push(...(page.body.data.interactions as Row[]).map((r) => r.id));
    cursor = page.body.meta.next_cursor ?? '';
    if (!cursor) break;
  }
  const fresh = new Mirror(key, 100);
  await fresh.sync();
  expect([...fresh.rows.keys()].sort()).toEqual([...ids].sort());
  return fresh.copy();
}

async function cli(args: string[]): Promise<void> {
  const run = await runCli(args);
  expect(run.code, `${args.join(' ')}\n${run.stdout}\n${run.stderr}`).toBe(0);
  await pause(5);
}

async function tombstoned(key: string): Promise<Map<string, string>> {
  const page = await get(app, '/api/v1/interactions/deleted?limit=100', key);
  expectStatus(page, 200);
  return new Map((page.body.data.deleted_interactions as Array<{ id: string; deleted_at: string }>).map((t) => [t.id, t.deleted_at]));
}

describe("the docs' mirror loop", () => {
  it('keeps every mirror equal to what the API serves through import, purge, re-import, purge again and purge --phone', async () => {
    const clinic = clinicLine({ timezone: 'UTC', phone: '+34 910 000 000' });
    // Ten calls on ten days of 2025; two of them from the patient who later asks to be erased.
    const calls = Array.from({ length: 10 }, (_, i) => {
      const day = String(i + 1).padStart(2, '0');
      return voiceLine(clinic.id, {
        started_at: `2025-04-${day}T09:00:00.000Z`,
        ended_at: `2025-04-${day}T09:03:20.000Z`,
        phone_number: i === 7 || i === 8 ? '+34 612 345 689' : `+34 600 000 ${String(100 + i)}`,
      });
    });
    const clinics = writeLines('clinics.ndjson', [clinic]);
    const interactions = writeLines('interactions.ndjson', calls);
    await cli(['import', '--clinics', clinics, '--interactions', interactions]);
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const every = new Mirror(key);
    const sometimes = new Mirror(key);

    const expectMirrors = async (...mirrors: Mirror[]) => {
      const api = await served(key);
      for (const mirror of mirrors) {
        await mirror.sync();
        expect(mirror.copy()).toEqual(api);
      }
      return api;
    };

    expect(await expectMirrors(every, sometimes)).toHaveLength(10);

    // Retention for this clinic: the first five days go.
    await cli(['purge', '--before', '2025-04-06', '--clinic', clinic.id, '--yes']);
    expect(await expectMirrors(every)).toHaveLength(5);
    const purged = await tombstoned(key);
    expect([...purged.keys()].sort()).toEqual(
      calls
        .slice(0, 5)
        .map((c) => c.id)
        .sort(),
    );

    // The same file again: the five come back, and so must they in every mirror.
    await cli(['import', '--interactions', interactions]);
    const api = await expectMirrors(every, sometimes);
    expect(api).toHaveLength(10);
    // Their tombstones are gone, and the feed lists them after the purge.
    expect(await tombstoned(key)).toEqual(new Map());
    const back = new Map(api.map((line) => line.split(' ') as [string, string]));
    for (const [id, deletedAt] of purged) expect(back.get(id)! > deletedAt, id).toBe(true);

    // Deleted a second time: a new tombstone, listed after the cleared one's position.
    await cli(['purge', '--before', '2025-04-03', '--clinic', clinic.id, '--yes']);
    expect(await expectMirrors(every)).toHaveLength(8);
    const again = await tombstoned(key);
    expect([...again.keys()].sort()).toEqual(
      calls
        .slice(0, 2)
        .map((c) => c.id)
        .sort(),
    );
    for (const [id, deletedAt] of again) expect(deletedAt > back.get(id)!, id).toBe(true);

    // A patient's erasure, then their calls imported again (from an old export, say).
    await cli(['purge', '--phone', '+34 612 345 689', '--clinic', clinic.id, '--yes']);
    expect(await expectMirrors(every, sometimes)).toHaveLength(6);
    await cli(['import', '--interactions', writeLines('interactions.ndjson', calls.slice(7, 9))]);
    expect(await expectMirrors(every, sometimes)).toHaveLength(8);
    expect([...(await tombstoned(key)).keys()].sort()).toEqual(
      calls
        .slice(0, 2)
        .map((c) => c.id)
        .sort(),
    );

    // Everything back, and a mirror that starts only now.
    await cli(['import', '--interactions', interactions]);
    expect(await expectMirrors(every, sometimes, new Mirror(key, 500))).toHaveLength(10);
    expect(await tombstoned(key)).toEqual(new Map());
  });

  it('refuses a deleted id in another clinic: a mirror of its clinic alone would keep it forever', async () => {
    const [home, other] = [clinicLine({ timezone: 'UTC' }), clinicLine({ timezone: 'UTC' })];
    const call = voiceLine(home.id, { started_at: '2025-04-01T09:00:00.000Z', ended_at: '2025-04-01T09:03:20.000Z' });
    await cli(['import', '--clinics', writeLines('clinics.ndjson', [home, other]), '--interactions', writeLines('interactions.ndjson', [call])]);
    const key = await createKey(db, { clinicIds: [home.id] });
    const mirror = new Mirror(key);
    await mirror.sync();
    expect(mirror.copy()).toHaveLength(1);
    await cli(['purge', '--before', '2025-05-01', '--clinic', home.id, '--yes']);

    const moved = writeLines('interactions.ndjson', [{ ...call, clinic_id: other.id }]);
    const run = await runCli(['--json', 'import', '--interactions', moved]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).errors).toEqual([
      `${moved}:1 clinic_id: interaction ${call.id} was deleted from clinic ${home.id}; it can be stored again in that clinic only`,
    ]);
    await pause(5);
    await mirror.sync();
    expect(mirror.copy()).toEqual(await served(key));
    expect(mirror.copy()).toEqual([]);

    // In its own clinic it comes back, to the mirror too.
    await cli(['import', '--interactions', writeLines('interactions.ndjson', [call])]);
    await mirror.sync();
    expect(mirror.copy()).toEqual(await served(key));
    expect(mirror.copy()).toHaveLength(1);
  });
});
