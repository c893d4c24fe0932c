// Filters, ordering and paging of the lists: interactions, clinics, campaigns.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createKey, expectNoErrors, graphql, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';
import { byteCompare, expectValidationError, tag } from './support.js';

const db = testDb();
const app = testApp(db);

// --- Interactions: one clinic with hand-placed rows around day boundaries --------------------------

const t = tag();
const clinicA = randomUUID();
const clinicB = randomUUID();
let keyA = '';
let keyAB = '';

type Channel = 'voice' | 'whatsapp';
interface Row {
  id: string;
  at: string;
  channel: Channel;
  type: string;
  outcome: string | null;
  phone: string;
}

// `e1`..`e8`, named by time. ids share a prefix and differ in one digit, so every collation orders them alike.
const rows: Row[] = [
  { id: `i${t}_1`, at: '2025-06-01T22:30:00.000Z', channel: 'whatsapp', type: 'CAMPAIGN_OUTBOUND', outcome: 'DECISION_PENDING', phone: '+44 20 7946 0000' },
  { id: `i${t}_2`, at: '2025-06-01T23:59:59.999Z', channel: 'voice', type: 'INBOUND', outcome: 'NO_ANSWER', phone: '+34 600 111 222' },
  { id: `i${t}_3`, at: '2025-06-02T00:00:00.000Z', channel: 'voice', type: 'CAMPAIGN_OUTBOUND', outcome: 'APPOINTMENT_BOOKED', phone: '+1 (555) 010-9999' },
  { id: `i${t}_4`, at: '2025-06-02T12:00:00.000Z', channel: 'whatsapp', type: 'APPOINTMENT_REMINDER', outcome: 'APPOINTMENT_CANCELLED', phone: 'Ext. AbC-77' },
  { id: `i${t}_5`, at: '2025-06-02T23:59:59.999Z', channel: 'whatsapp', type: 'INBOUND', outcome: 'OPT_OUT', phone: '+34 6%0 500' },
  { id: `i${t}_6`, at: '2025-06-03T00:00:00.000Z', channel: 'voice', type: 'FORM_OUTBOUND', outcome: 'UNREACHABLE', phone: '+34 6_0 500' },
  { id: `i${t}_7`, at: '2025-06-03T10:00:00.000Z', channel: 'voice', type: 'CAMPAIGN_CALLBACK', outcome: null, phone: '+34 650 500' },
  { id: `i${t}_8`, at: '2025-06-03T10:00:00.000Z', channel: 'voice', type: 'INBOUND', outcome: 'APPOINTMENT_BOOKED', phone: '+34 650 501' },
];
const e = (n: number) => rows[n - 1]!.id;
const bRow = { id: `i${t}_b`, at: '2025-06-02T12:00:00.000Z' };

beforeAll(async () => {
  await createClinic(db, { id: clinicA });
  await createClinic(db, { id: clinicB });
  for (const row of rows) {
    await createInteraction(db, {
      id: row.id,
      clinicId: clinicA,
      channel: row.channel,
      type: row.type as never,
      startedAt: new Date(row.at),
      outcome: row.outcome,
      phoneNumber: row.phone,
    });
  }
  await createInteraction(db, { id: bRow.id, clinicId: clinicB, startedAt: new Date(bRow.at), phoneNumber: '+34 600 111 222' });
  keyA = await createKey(db, { clinicIds: [clinicA] });
  keyAB = await createKey(db, { clinicIds: [clinicA, clinicB] });
});

const LIST = `query($page: Int, $limit: Int, $dateFrom: String, $dateTo: String, $channel: Channel, $type: InteractionType,
    $outcomes: [Outcome!], $clinicId: ID, $search: String) {
  interactions(page: $page, limit: $limit, dateFrom: $dateFrom, dateTo: $dateTo, channel: $channel, type: $type,
      outcomes: $outcomes, clinicId: $clinicId, search: $search) {
    nodes { id }
    pageInfo { page limit total totalPages hasMore }
  }
}`;

async function list(variables: Record<string, unknown>, key = keyA) {
  const data = expectNoErrors(await graphql(app, { key, query: LIST, variables }));
  const ids = data.interactions.nodes.map((n: { id: string }) => n.id) as string[];
  return { ids, pageInfo: data.interactions.pageInfo };
}

/** The ids of the first page; also checks that `total` counts exactly them (every test set fits one page). */
async function ids(variables: Record<string, unknown>, key = keyA): Promise<string[]> {
  const result = await list(variables, key);
  expect(result.pageInfo.total).toBe(result.ids.length);
  return result.ids;
}

describe('interactions: filters', () => {
  it('no filter: every row of the clinic, startedAt descending then id descending (equal timestamps)', async () => {
    expect(await ids({})).toEqual([e(8), e(7), e(6), e(5), e(4), e(3), e(2), e(1)]);
  });

  it('date-only bounds are inclusive whole UTC days: 23:59:59.999 is in, the next 00:00:00.000 is out', async () => {
    expect(await ids({ dateFrom: '2025-06-02', dateTo: '2025-06-02' })).toEqual([e(5), e(4), e(3)]);
    expect(await ids({ dateTo: '2025-06-01' })).toEqual([e(2), e(1)]);
    expect(await ids({ dateFrom: '2025-06-03' })).toEqual([e(8), e(7), e(6)]);
    expect(await ids({ dateFrom: '2025-06-01', dateTo: '2025-06-03' })).toEqual([e(8), e(7), e(6), e(5), e(4), e(3), e(2), e(1)]);
    expect(await ids({ dateFrom: '2025-06-04' })).toEqual([]);
  });

  it('date-time bounds (Z or an offset) are exact instants, inclusive', async () => {
    // 02:00+02:00 = 00:00Z on June 2nd; 13:59:59.999+02:00 = 11:59:59.999Z, just before e4.
    expect(await ids({ dateFrom: '2025-06-02T02:00:00+02:00', dateTo: '2025-06-02T13:59:59.999+02:00' })).toEqual([e(3)]);
    // One millisecond earlier takes in e2 (23:59:59.999Z); ending at 12:00Z exactly takes in e4.
    expect(await ids({ dateFrom: '2025-06-02T01:59:59.999+02:00', dateTo: '2025-06-02T12:00:00Z' })).toEqual([e(4), e(3), e(2)]);
    // A negative offset: 2025-06-02T19:59:59.999-04:00 = 23:59:59.999Z.
    expect(await ids({ dateFrom: '2025-06-02T19:59:59.999-04:00', dateTo: '2025-06-02T20:00:00-04:00' })).toEqual([e(6), e(5)]);
    expect(await ids({ dateFrom: '2025-06-03T10:00:00.000Z', dateTo: '2025-06-03T10:00:00.000Z' })).toEqual([e(8), e(7)]);
  });

  it('channel', async () => {
    expect(await ids({ channel: 'VOICE' })).toEqual([e(8), e(7), e(6), e(3), e(2)]);
    expect(await ids({ channel: 'WHATSAPP' })).toEqual([e(5), e(4), e(1)]);
  });

  it('type, alone and valid for the channel', async () => {
    expect(await ids({ type: 'CAMPAIGN_OUTBOUND' })).toEqual([e(3), e(1)]);
    expect(await ids({ type: 'INBOUND' })).toEqual([e(8), e(5), e(2)]);
    expect(await ids({ channel: 'VOICE', type: 'CAMPAIGN_OUTBOUND' })).toEqual([e(3)]);
    expect(await ids({ channel: 'WHATSAPP', type: 'INBOUND' })).toEqual([e(5)]);
    expect(await ids({ channel: 'WHATSAPP', type: 'APPOINTMENT_REMINDER' })).toEqual([e(4)]);
    expect(await ids({ type: 'FORM_OUTBOUND' })).toEqual([e(6)]);
  });

  it('a type that is not valid for the channel is a VALIDATION_ERROR naming `type`', async () => {
    for (const [channel, type] of [
      ['VOICE', 'APPOINTMENT_REMINDER'],
      ['WHATSAPP', 'FORM_OUTBOUND'],
      ['WHATSAPP', 'CAMPAIGN_CALLBACK'],
    ]) {
      const response = await graphql(app, { key: keyA, query: LIST, variables: { channel, type } });
      expectValidationError(response, ['type']);
      expect(response.body.data?.interactions).toBeNull();
    }
  });

  it('outcomes: any of several', async () => {
    expect(await ids({ outcomes: ['APPOINTMENT_BOOKED'] })).toEqual([e(8), e(3)]);
    expect(await ids({ outcomes: ['APPOINTMENT_BOOKED', 'UNREACHABLE', 'OPT_OUT'] })).toEqual([e(8), e(6), e(5), e(3)]);
    expect(await ids({ outcomes: ['VOICEMAIL_REACHED'] })).toEqual([]);
    expect(await ids({ outcomes: ['NO_ANSWER', 'NO_ANSWER'] })).toEqual([e(2)]);
  });

  it('clinicId: only that clinic, also written in upper case; a well-formed unknown id gives nothing', async () => {
    const all = await ids({}, keyAB);
    expect(all).toHaveLength(9);
    expect(all.indexOf(e(4))).toBe(all.indexOf(bRow.id) + 1); // same instant: id descending (`i…_b` > `i…_4`)
    expect(await ids({ clinicId: clinicA }, keyAB)).toEqual([e(8), e(7), e(6), e(5), e(4), e(3), e(2), e(1)]);
    expect(await ids({ clinicId: clinicB }, keyAB)).toEqual([bRow.id]);
    expect(await ids({ clinicId: clinicB.toUpperCase() }, keyAB)).toEqual([bRow.id]);
    const unknown = await list({ clinicId: randomUUID() }, keyAB);
    expect(unknown).toEqual({ ids: [], pageInfo: { page: 1, limit: 25, total: 0, totalPages: 0, hasMore: false } });
  });

  it('search: case-insensitive substring of the phone number, `+` prefix included', async () => {
    expect(await ids({ search: 'abc-7' })).toEqual([e(4)]);
    expect(await ids({ search: 'EXT. ABC' })).toEqual([e(4)]);
    expect(await ids({ search: '+34' })).toEqual([e(8), e(7), e(6), e(5), e(2)]);
    expect(await ids({ search: '+1 (555)' })).toEqual([e(3)]);
    expect(await ids({ search: '+44' })).toEqual([e(1)]);
    expect(await ids({ search: '650 50' })).toEqual([e(8), e(7)]);
    expect(await ids({ search: '9999' })).toEqual([e(3)]);
    expect(await ids({ search: '+3' })).toEqual([e(8), e(7), e(6), e(5), e(2)]);
    expect(await ids({ search: '34 6' })).toEqual([e(8), e(7), e(6), e(5), e(2)]);
    expect(await ids({ search: 'no such number' })).toEqual([]);
  });

  it('search: `%` and `_` are literal characters, not wildcards', async () => {
    expect(await ids({ search: '6%0' })).toEqual([e(5)]);
    expect(await ids({ search: '6_0' })).toEqual([e(6)]);
    expect(await ids({ search: '%' })).toEqual([e(5)]);
    expect(await ids({ search: '_' })).toEqual([e(6)]);
    expect(await ids({ search: '%%' })).toEqual([]);
    expect(await ids({ search: '\\' })).toEqual([]);
  });

  it('search: the same literal matching on nested interaction lists', async () => {
    const data = expectNoErrors(
      await graphql(app, {
        key: keyA,
        query: `query($id: ID!) { clinic(id: $id) { pct: interactions(search: "%") { id } under: interactions(search: "6_0") { id } plus: interactions(search: "+1") { id } } }`,
        variables: { id: clinicA },
      }),
    );
    expect(data.clinic).toEqual({ pct: [{ id: e(5) }], under: [{ id: e(6) }], plus: [{ id: e(3) }] });
  });

  it('filters combine (AND)', async () => {
    expect(await ids({ channel: 'WHATSAPP', dateFrom: '2025-06-02', outcomes: ['APPOINTMENT_CANCELLED', 'OPT_OUT', 'DECISION_PENDING'] })).toEqual([
      e(5),
      e(4),
    ]);
    expect(await ids({ search: '+34', channel: 'VOICE', outcomes: ['NO_ANSWER', 'UNREACHABLE'] })).toEqual([e(6), e(2)]);
    expect(await ids({ clinicId: clinicA, type: 'INBOUND', dateTo: '2025-06-02T23:59:59.999Z', search: '+34' }, keyAB)).toEqual([e(5), e(2)]);
    expect(await ids({ clinicId: clinicB, type: 'INBOUND', search: '+34 600' }, keyAB)).toEqual([bRow.id]);
    expect(await ids({ channel: 'VOICE', type: 'INBOUND', dateFrom: '2025-06-03', outcomes: ['APPOINTMENT_BOOKED'], search: '501' })).toEqual([e(8)]);
    expect(await ids({ channel: 'VOICE', type: 'INBOUND', dateFrom: '2025-06-03', outcomes: ['NO_ANSWER'] })).toEqual([]);
  });

  it('pageInfo reflects the filters', async () => {
    expect(await list({ channel: 'VOICE', limit: 2 })).toEqual({
      ids: [e(8), e(7)],
      pageInfo: { page: 1, limit: 2, total: 5, totalPages: 3, hasMore: true },
    });
    expect(await list({ channel: 'VOICE', limit: 2, page: 3 })).toEqual({
      ids: [e(2)],
      pageInfo: { page: 3, limit: 2, total: 5, totalPages: 3, hasMore: false },
    });
  });
});

// --- Interactions: paging over many rows with ties ------------------------------------------------

describe('interactions: paging', () => {
  const clinic = randomUUID();
  const prefix = `p${tag()}`;
  const count = 57;
  let key = '';
  let expected: string[] = [];
  const startedAt = new Map<string, number>();

  beforeAll(async () => {
    await createClinic(db, { id: clinic });
    // Six distinct instants for 57 rows: most rows tie on startedAt, so only the id orders them.
    const instants = [
      '2025-01-01T00:00:00.000Z',
      '2025-01-01T00:00:00.001Z',
      '2025-01-02T08:00:00.000Z',
      '2025-01-03T23:59:59.999Z',
      '2025-01-05T00:00:00.000Z',
      '2024-12-31T23:59:59.999Z',
    ];
    const data = Array.from({ length: count }, (_, i) => {
      // Insertion order differs from both id order and time order.
      const n = (i * 23) % count;
      const startedAt = new Date(instants[(n * 5) % instants.length]!);
      return {
        id: `${prefix}_${String(n).padStart(3, '0')}`,
        channel: 'voice' as const,
        type: 'INBOUND' as const,
        direction: 'inbound' as const,
        phoneNumber: '+34 600 000 000',
        clinicId: clinic,
        startedAt,
        outcome: 'NO_ANSWER',
      };
    });
    await db.interaction.createMany({ data });
    for (const row of data) startedAt.set(row.id, row.startedAt.getTime());
    expected = [...data].sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime() || byteCompare(b.id, a.id)).map((row) => row.id);
    key = await createKey(db, { clinicIds: [clinic] });
  });

  it('walking every page gives every row exactly once, in order', async () => {
    const limit = 7;
    const totalPages = Math.ceil(count / limit);
    const seen: string[] = [];
    for (let page = 1; page <= totalPages; page++) {
      const result = await list({ page, limit }, key);
      expect(result.pageInfo).toEqual({ page, limit, total: count, totalPages, hasMore: page < totalPages });
      expect(result.ids).toHaveLength(page < totalPages ? limit : count - limit * (totalPages - 1));
      seen.push(...result.ids);
    }
    expect(new Set(seen).size).toBe(count);
    expect(seen).toEqual(expected);
  });

  it('pages of other sizes agree with one page of 500 (limit 500 is accepted)', async () => {
    const all = await list({ limit: 500 }, key);
    expect(all).toEqual({ ids: expected, pageInfo: { page: 1, limit: 500, total: count, totalPages: 1, hasMore: false } });
    for (const limit of [1, 10, 19, 56, 57]) {
      const pages: string[] = [];
      for (let page = 1; page <= Math.ceil(count / limit); page++) pages.push(...(await list({ page, limit }, key)).ids);
      expect(pages, `limit ${limit}`).toEqual(expected);
    }
  });

  it('a page beyond the last: no nodes, hasMore false, the right total', async () => {
    expect(await list({ page: 10, limit: 7 }, key)).toEqual({ ids: [], pageInfo: { page: 10, limit: 7, total: count, totalPages: 9, hasMore: false } });
    expect(await list({ page: 1000, limit: 500 }, key)).toEqual({
      ids: [],
      pageInfo: { page: 1000, limit: 500, total: count, totalPages: 1, hasMore: false },
    });
  });

  it('the last page exactly full: hasMore false', async () => {
    expect((await list({ page: 3, limit: 19 }, key)).pageInfo).toEqual({ page: 3, limit: 19, total: 57, totalPages: 3, hasMore: false });
    expect((await list({ page: 2, limit: 19 }, key)).pageInfo).toEqual({ page: 2, limit: 19, total: 57, totalPages: 3, hasMore: true });
  });

  it('total 0: totalPages 0, hasMore false, on page 1 and beyond', async () => {
    expect(await list({ outcomes: ['OPT_OUT'] }, key)).toEqual({ ids: [], pageInfo: { page: 1, limit: 25, total: 0, totalPages: 0, hasMore: false } });
    expect(await list({ outcomes: ['OPT_OUT'], page: 2, limit: 5 }, key)).toEqual({
      ids: [],
      pageInfo: { page: 2, limit: 5, total: 0, totalPages: 0, hasMore: false },
    });
  });

  it('a filtered walk is complete too', async () => {
    const filter = { dateFrom: '2025-01-01', dateTo: '2025-01-03' };
    const from = Date.parse('2025-01-01T00:00:00.000Z');
    const to = Date.parse('2025-01-03T23:59:59.999Z');
    const want = expected.filter((id) => startedAt.get(id)! >= from && startedAt.get(id)! <= to);
    expect(want.length).toBeGreaterThan(0);
    expect(want.length).toBeLessThan(count);
    const seen: string[] = [];
    const totalPages = Math.ceil(want.length / 4);
    for (let page = 1; page <= totalPages + 1; page++) {
      const result = await list({ ...filter, page, limit: 4 }, key);
      expect(result.pageInfo).toEqual({ page, limit: 4, total: want.length, totalPages, hasMore: page < totalPages });
      seen.push(...result.ids);
    }
    expect(seen).toEqual(want);
  });
});

// --- Clinics -----------------------------------------------------------------------------------

describe('clinics: order and paging', () => {
  it('by name, then id; paged', async () => {
    const s = tag();
    const made = [
      await createClinic(db, { name: `Beta ${s}` }),
      await createClinic(db, { name: `Alpha ${s}` }),
      await createClinic(db, { name: `Gamma ${s}` }),
      await createClinic(db, { name: `Beta ${s}` }),
      await createClinic(db, { name: `Beta ${s}` }),
    ];
    const key = await createKey(db, { clinicIds: made.map((c) => c.id) });
    const betas = made
      .filter((c) => c.name.startsWith('Beta'))
      .map((c) => c.id)
      .sort(byteCompare);
    const order = [made[1]!.id, ...betas, made[2]!.id];

    const all = expectNoErrors(await graphql(app, { key, query: '{ clinics { nodes { id name } pageInfo { page limit total totalPages hasMore } } }' }));
    expect(all.clinics.nodes.map((c: { id: string }) => c.id)).toEqual(order);
    expect(all.clinics.nodes.map((c: { name: string }) => c.name)).toEqual([`Alpha ${s}`, `Beta ${s}`, `Beta ${s}`, `Beta ${s}`, `Gamma ${s}`]);
    expect(all.clinics.pageInfo).toEqual({ page: 1, limit: 25, total: 5, totalPages: 1, hasMore: false });

    const query = 'query($page: Int, $limit: Int) { clinics(page: $page, limit: $limit) { nodes { id } pageInfo { page limit total totalPages hasMore } } }';
    const pages = [];
    for (const page of [1, 2, 3]) pages.push(expectNoErrors(await graphql(app, { key, query, variables: { page, limit: 2 } })).clinics);
    expect(pages.map((p) => p.nodes.map((c: { id: string }) => c.id))).toEqual([order.slice(0, 2), order.slice(2, 4), order.slice(4)]);
    expect(pages.map((p) => p.pageInfo)).toEqual([
      { page: 1, limit: 2, total: 5, totalPages: 3, hasMore: true },
      { page: 2, limit: 2, total: 5, totalPages: 3, hasMore: true },
      { page: 3, limit: 2, total: 5, totalPages: 3, hasMore: false },
    ]);
    const beyond = expectNoErrors(await graphql(app, { key, query, variables: { page: 4, limit: 2 } })).clinics;
    expect(beyond).toEqual({ nodes: [], pageInfo: { page: 4, limit: 2, total: 5, totalPages: 3, hasMore: false } });
  });
});

// --- Campaigns ---------------------------------------------------------------------------------

describe('campaigns: order, filters and paging', () => {
  const c1 = randomUUID();
  const c2 = randomUUID();
  const p = `c${tag()}`;
  let key = '';
  const QUERY = `query($page: Int, $limit: Int, $clinicId: ID, $status: CampaignStatus) {
    campaigns(page: $page, limit: $limit, clinicId: $clinicId, status: $status) { nodes { id status clinicId } pageInfo { page limit total totalPages hasMore } }
  }`;
  const campaigns = async (variables: Record<string, unknown>) => {
    const data = expectNoErrors(await graphql(app, { key, query: QUERY, variables })).campaigns;
    return { ids: data.nodes.map((n: { id: string }) => n.id) as string[], pageInfo: data.pageInfo, nodes: data.nodes };
  };

  beforeAll(async () => {
    await createClinic(db, { id: c1 });
    await createClinic(db, { id: c2 });
    const tie = new Date('2025-04-01T09:00:00.000Z');
    await createCampaign(db, c1, { id: `${p}_1`, status: 'active', createdAt: new Date('2025-03-01T00:00:00.000Z') });
    await createCampaign(db, c1, { id: `${p}_2`, status: 'paused', createdAt: tie });
    await createCampaign(db, c2, { id: `${p}_3`, status: 'active', createdAt: tie });
    await createCampaign(db, c1, { id: `${p}_4`, status: 'completed', createdAt: tie });
    await createCampaign(db, c2, { id: `${p}_5`, status: 'active', createdAt: new Date('2025-05-01T00:00:00.000Z') });
    await createCampaign(db, c2, { id: `${p}_6`, status: 'paused', createdAt: new Date('2025-03-31T23:59:59.999Z') });
    key = await createKey(db, { clinicIds: [c1, c2] });
  });

  it('createdAt descending, then id descending', async () => {
    expect((await campaigns({})).ids).toEqual([`${p}_5`, `${p}_4`, `${p}_3`, `${p}_2`, `${p}_6`, `${p}_1`]);
  });

  it('status and clinicId filters, alone and together', async () => {
    expect((await campaigns({ status: 'ACTIVE' })).ids).toEqual([`${p}_5`, `${p}_3`, `${p}_1`]);
    expect((await campaigns({ status: 'PAUSED' })).ids).toEqual([`${p}_2`, `${p}_6`]);
    expect((await campaigns({ status: 'COMPLETED' })).nodes).toEqual([{ id: `${p}_4`, status: 'COMPLETED', clinicId: c1 }]);
    expect((await campaigns({ clinicId: c1 })).ids).toEqual([`${p}_4`, `${p}_2`, `${p}_1`]);
    expect((await campaigns({ clinicId: c2.toUpperCase() })).ids).toEqual([`${p}_5`, `${p}_3`, `${p}_6`]);
    expect((await campaigns({ clinicId: c2, status: 'ACTIVE' })).ids).toEqual([`${p}_5`, `${p}_3`]);
    expect(await campaigns({ clinicId: c2, status: 'COMPLETED' })).toMatchObject({ ids: [], pageInfo: { total: 0, totalPages: 0, hasMore: false } });
    expect(await campaigns({ clinicId: randomUUID() })).toMatchObject({ ids: [], pageInfo: { total: 0, totalPages: 0, hasMore: false } });
  });

  it('pages', async () => {
    const pages = [];
    for (const page of [1, 2, 3, 4]) pages.push(await campaigns({ page, limit: 2 }));
    expect(pages.flatMap((x) => x.ids)).toEqual([`${p}_5`, `${p}_4`, `${p}_3`, `${p}_2`, `${p}_6`, `${p}_1`]);
    expect(pages.map((x) => x.pageInfo)).toEqual([
      { page: 1, limit: 2, total: 6, totalPages: 3, hasMore: true },
      { page: 2, limit: 2, total: 6, totalPages: 3, hasMore: true },
      { page: 3, limit: 2, total: 6, totalPages: 3, hasMore: false },
      { page: 4, limit: 2, total: 6, totalPages: 3, hasMore: false },
    ]);
    expect(pages[3]!.ids).toEqual([]);
    expect((await campaigns({ status: 'ACTIVE', limit: 2, page: 2 })).pageInfo).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2, hasMore: false });
  });
});
