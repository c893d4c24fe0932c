// Full-text search of summaries and transcripts: REST `q`, GraphQL `text` with highlights
// (decisions section 11). Every test reads through a key restricted to its own clinics, so the
// other tests' rows never count.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { importFiles } from '../../src/importer/import.js';
import { walkIsCheaper } from '../../src/interactions/text-search.js';
import { createKey, expectNoErrors, graphql, testApp } from '../helpers/app.js';
import { databaseUrl, sql, testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction, type InteractionInput } from '../helpers/factories.js';
import { voiceLine, writeLines } from '../importer/files.js';
import { expectStatus, expectValidationError, get } from '../rest/client.js';

const db = testDb();
const app = testApp(db);

type Row = Awaited<ReturnType<typeof createInteraction>>;

async function clinicSpeaking(language: string | null) {
  const clinic = await createClinic(db, { language });
  const key = await createKey(db, { clinicIds: [clinic.id] });
  return { clinic, key };
}

/** Interactions one minute apart, the first the newest. */
async function insert(clinicId: string, inputs: Array<Omit<InteractionInput, 'clinicId'>>): Promise<Row[]> {
  const rows: Row[] = [];
  const start = Date.UTC(2026, 5, 1, 12);
  for (const [i, input] of inputs.entries()) {
    rows.push(await createInteraction(db, { clinicId, startedAt: new Date(start - i * 60_000), ...input }));
  }
  return rows;
}

async function search(key: string, query: string) {
  const response = await get(app, `/api/v1/interactions?limit=100&${query}`, key);
  expectStatus(response, 200);
  return { ids: response.body.data.interactions.map((i: { id: string }) => i.id) as string[], total: response.body.meta.total as number };
}

const said = (content: string) => [
  { role: 'assistant', content: 'Hello, how can I help?' },
  { role: 'user', content },
];

describe('q: full-text search of summaries and transcripts', () => {
  it('matches every word, in any case, stemmed in English, newest first, with an exact total', async () => {
    const { clinic, key } = await clinicSpeaking('en');
    const [a, b, c, d] = await insert(clinic.id, [
      { summary: 'The patient cancelled the appointment.', transcript: said('I need to cancel my dentist visit') },
      { summary: 'The patient booked a new appointment.', transcript: said('Cancellations are annoying, book me in') },
      { summary: 'Nobody answered.', transcript: undefined },
      { summary: null, transcript: said('Please CANCEL the whitening session') },
    ]);
    expect(await search(key, 'q=cancel')).toEqual({ ids: [a!.id, b!.id, d!.id], total: 3 });
    expect(await search(key, 'q=Cancelling')).toEqual({ ids: [a!.id, b!.id, d!.id], total: 3 });
    // Every word must match (in the summary or the transcript).
    expect(await search(key, 'q=cancel%20dentist')).toEqual({ ids: [a!.id], total: 1 });
    expect(await search(key, 'q=appointment%20whitening')).toEqual({ ids: [], total: 0 });
    expect(await search(key, 'q=nobody')).toEqual({ ids: [c!.id], total: 1 });
    // Punctuation and tsquery syntax are words' separators, never operators.
    expect(await search(key, `q=${encodeURIComponent('cancel & !dentist | (book):*')}`)).toEqual({ ids: [], total: 0 });
    expect(await search(key, `q=${encodeURIComponent('cancel, dentist!')}`)).toEqual({ ids: [a!.id], total: 1 });
    // A text that is only stop words has nothing to match.
    expect(await search(key, 'q=the')).toEqual({ ids: [], total: 0 });
  });

  it.each([
    {
      language: 'es',
      texts: ['Quiero cancelar mi cita del martes', 'La cancelación de las citas se confirmó', 'Gracias por la información'],
      queries: { cancelacion: [1], citas: [0, 1], CITA: [0, 1], informacion: [2], 'cancelacion cita': [1] } as Record<string, number[]>,
    },
    {
      language: 'de',
      texts: ['Ich möchte meinen Termin verschieben', 'Die Termine für nächste Woche sind bestätigt', 'Vielen Dank für Ihre Geduld'],
      queries: { termin: [0, 1], Termine: [0, 1], mochte: [0], nachste: [1], bestatigt: [1] },
    },
    {
      language: 'fr',
      texts: ['Je voudrais annuler mon rendez-vous', 'Le rendez-vous a été annulé', 'Merci pour votre patience'],
      // "été" is a French stop word, but accents go first: "ete" is then a word like any other.
      queries: { annulé: [0, 1], ANNULER: [0, 1], 'rendez-vous': [0, 1], ete: [1], merci: [2] },
    },
  ])('stems $language and ignores accents', async ({ language, texts, queries }) => {
    const { clinic, key } = await clinicSpeaking(language);
    const rows = await insert(
      clinic.id,
      texts.map((content) => ({ summary: null, transcript: said(content) })),
    );
    for (const [q, expected] of Object.entries(queries)) {
      const found = await search(key, `q=${encodeURIComponent(q)}`);
      expect({ q, ...found }).toEqual({ q, ids: expected.map((i) => rows[i]!.id), total: expected.length });
    }
  });

  it("'ae' for 'ä' (naechste) matches exactly when PostgreSQL's German stemmer says so: 18's does, 15's does not", async () => {
    const { clinic, key } = await clinicSpeaking('de');
    const [row] = await insert(clinic.id, [{ summary: null, transcript: said('Die Termine für nächste Woche sind bestätigt') }]);
    // Accents go before stemming ('nächste' is indexed as the stem of 'nachste'); whether the stemmer
    // reads 'ae' as 'ä' is its version's (PostgreSQL 18's Snowball German stemmer does, 15's does not).
    const [stemmer] = await sql<{ same: boolean }>("SELECT ts_lexize('german_stem', 'naechste') = ts_lexize('german_stem', 'nachste') AS same");
    expect(await search(key, 'q=naechste')).toEqual(stemmer!.same ? { ids: [row!.id], total: 1 } : { ids: [], total: 0 });
  });

  it('a clinic without a language matches whole words, still in any case and accent', async () => {
    const { clinic, key } = await clinicSpeaking(null);
    const [a] = await insert(clinic.id, [{ summary: 'Cancelación confirmada', transcript: undefined }]);
    expect(await search(key, 'q=cancelacion')).toEqual({ ids: [a!.id], total: 1 });
    expect(await search(key, 'q=CANCELACIÓN')).toEqual({ ids: [a!.id], total: 1 });
    expect(await search(key, 'q=cancel')).toEqual({ ids: [], total: 0 });
  });

  it("stems each clinic's interactions in its own language only", async () => {
    const english = await createClinic(db, { language: 'en' });
    const spanish = await createClinic(db, { language: 'es' });
    const key = await createKey(db, { clinicIds: [english.id, spanish.id] });
    // "cancelar" is "cancel" to the Spanish stemmer: it must not find the English "cancelled".
    await insert(english.id, [{ summary: 'The patient cancelled.', transcript: undefined }]);
    const [es] = await insert(spanish.id, [{ summary: 'La paciente quiere cancelar.', transcript: undefined }]);
    expect(await search(key, 'q=cancelar')).toEqual({ ids: [es!.id], total: 1 });
    expect(await search(key, `q=cancelar&clinic_id=${spanish.id}`)).toEqual({ ids: [es!.id], total: 1 });
    expect(await search(key, `q=cancelar&clinic_id=${english.id}`)).toEqual({ ids: [], total: 0 });
  });

  it('combines with every other filter', async () => {
    const { clinic, key } = await clinicSpeaking('en');
    const campaign = await createCampaign(db, clinic.id);
    const rows = await insert(clinic.id, [
      { summary: 'Wants to reschedule', channel: 'voice', outcome: 'APPOINTMENT_MODIFIED', phoneNumber: '+34 611 111 111', campaignId: campaign.id },
      { summary: 'Wants to reschedule', channel: 'whatsapp', type: 'INBOUND', outcome: 'APPOINTMENT_MODIFIED', phoneNumber: '+34 622 222 222' },
      { summary: 'Wants to reschedule', channel: 'voice', outcome: 'CALLBACK_REQUESTED', phoneNumber: '+34 611 111 111' },
      { summary: 'Booked', channel: 'voice', outcome: 'APPOINTMENT_MODIFIED', phoneNumber: '+34 611 111 111', campaignId: campaign.id },
    ]);
    const id = (i: number) => rows[i]!.id;
    const cases: Array<[string, number[]]> = [
      ['q=reschedule', [0, 1, 2]],
      ['q=reschedule&channel=voice', [0, 2]],
      ['q=reschedule&channel=whatsapp&type=INBOUND', [1]],
      ['q=reschedule&outcome=APPOINTMENT_MODIFIED', [0, 1]],
      [`q=reschedule&campaign_id=${campaign.id}`, [0]],
      ['q=reschedule&search=611', [0, 2]],
      [`q=reschedule&clinic_id=${clinic.id}`, [0, 1, 2]],
      ['q=reschedule&date_from=2026-06-01T11:58:30Z', [0, 1]],
      ['q=reschedule&date_to=2026-06-01T11:58:30Z', [2]],
    ];
    for (const [query, expected] of cases) {
      const found = await search(key, query);
      expect({ query, ...found }).toEqual({ query, ids: expected.map(id), total: expected.length });
    }
    const oldest = await search(key, 'q=reschedule&order=asc');
    expect(oldest.ids).toEqual([id(2), id(1), id(0)]);
    const paged = await get(app, '/api/v1/interactions?q=reschedule&limit=2&page=2', key);
    expect(paged.body.data.interactions.map((i: { id: string }) => i.id)).toEqual([id(2)]);
    expect(paged.body.meta).toMatchObject({ page: 2, limit: 2, total: 3, total_pages: 2 });
  });

  it('keeps the total exact through changes (before and after the word counts are folded)', async () => {
    const { clinic, key } = await clinicSpeaking('en');
    const rows = await insert(clinic.id, [
      { summary: 'asked about glaucoma screening', transcript: undefined },
      { summary: 'asked about glaucoma again', transcript: undefined },
    ]);
    expect((await search(key, 'q=glaucoma')).total).toBe(2);
    await sql('UPDATE interactions SET summary = $2 WHERE id = $1', [rows[0]!.id, 'asked about cataracts']);
    await sql('INSERT INTO interaction_transcripts (interaction_id, entries) VALUES ($1, $2)', [rows[0]!.id, JSON.stringify(said('and my glaucoma drops'))]);
    expect(await search(key, 'q=glaucoma')).toEqual({ ids: [rows[0]!.id, rows[1]!.id], total: 2 });
    expect((await search(key, 'q=cataract')).total).toBe(1);
    // A document follows its interaction's started_at (documents are walked in list order).
    await sql(`UPDATE interactions SET started_at = started_at - interval '1 day' WHERE id = $1`, [rows[0]!.id]);
    expect((await search(key, 'q=glaucoma')).ids).toEqual([rows[1]!.id, rows[0]!.id]);
    const [document] = await sql<{ same: boolean }>(
      'SELECT d.started_at = i.started_at AS same FROM interaction_search_documents d JOIN interactions i ON i.id = d.interaction_id WHERE i.id = $1',
      [rows[0]!.id],
    );
    expect(document!.same).toBe(true);
    // So do its channel, type, outcome and campaign (filters are checked on the document).
    expect((await search(key, 'q=glaucoma&outcome=OPT_OUT')).ids).toEqual([]);
    await sql(`UPDATE interactions SET outcome = 'OPT_OUT' WHERE id = $1`, [rows[0]!.id]);
    expect(await search(key, 'q=glaucoma&outcome=OPT_OUT')).toEqual({ ids: [rows[0]!.id], total: 1 });
    expect(await search(key, 'q=glaucoma&outcome=APPOINTMENT_BOOKED')).toEqual({ ids: [rows[1]!.id], total: 1 });
    await sql('SELECT interaction_search_terms_fold()');
    await sql('DELETE FROM interactions WHERE id = $1', [rows[1]!.id]);
    expect(await search(key, 'q=glaucoma')).toEqual({ ids: [rows[0]!.id], total: 1 });
    await sql('SELECT interaction_search_terms_fold()');
    expect((await search(key, 'q=glaucoma')).total).toBe(1);
    const [counted] = await sql<{ n: number }>(
      `SELECT coalesce(sum(documents), 0)::int AS n FROM interaction_search_terms WHERE clinic_id = $1 AND lexeme = 'glaucoma'`,
      [clinic.id],
    );
    expect(counted!.n).toBe(1);
  });

  it('finds what an import wrote as soon as it commits', async () => {
    const clinic = await createClinic(db, { language: 'en' });
    const key = await createKey(db, { clinicIds: [clinic.id] });
    const line = voiceLine(clinic.id, {
      summary: 'Patient asked about orthodontic braces',
      transcript: said('Do you do invisible braces?'),
    });
    await importFiles({ files: { interactions: writeLines('interactions.ndjson', [line]) }, url: databaseUrl });
    expect(await search(key, 'q=orthodontics')).toEqual({ ids: [line.id], total: 1 });
    expect(await search(key, 'q=invisible%20brace')).toEqual({ ids: [line.id], total: 1 });
  });

  it('pages through many matches (walked in list order) and few (sorted) alike', async () => {
    const { clinic, key } = await clinicSpeaking('en');
    const prefix = `int_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
    const n = 10_030;
    // Every third row does not match, every 1000th also says "chargeback"; rows start in pairs
    // per second (ties broken by id).
    await sql(
      `INSERT INTO interactions (id, channel, type, direction, phone_number, clinic_id, started_at, summary)
       SELECT $1 || '_' || lpad(g::text, 6, '0'), 'voice', 'INBOUND', 'inbound', '+34 600 000 000', $2,
              timestamptz '2026-01-01' + (g / 2) * interval '1 second',
              CASE WHEN g % 3 = 0 THEN 'nothing to see' WHEN g % 1000 = 1 THEN 'a refund after a chargeback' ELSE 'asked for a refund' END
       FROM generate_series(1, $3::int) AS g`,
      [prefix, clinic.id, n],
    );
    const matching = Array.from({ length: n }, (_, k) => k + 1).filter((g) => g % 3 !== 0);
    const newestFirst = [...matching].sort((x, y) => Math.floor(y / 2) - Math.floor(x / 2) || y - x).map((g) => `${prefix}_${String(g).padStart(6, '0')}`);
    expect(walkIsCheaper(matching.length, n, 0, 100)).toBe(true);
    expect(walkIsCheaper(matching.length, n, 3000, 100)).toBe(true);
    const rare = newestFirst.filter((id) => Number(id.slice(-6)) % 1000 === 1);
    expect(walkIsCheaper(rare.length, n, 0, 100)).toBe(false);
    expect(await search(key, 'q=chargebacks')).toEqual({ ids: rare, total: rare.length });
    expect(await search(key, 'q=chargeback&order=asc')).toEqual({ ids: [...rare].reverse(), total: rare.length });
    const first = await search(key, 'q=refunds');
    expect(first.total).toBe(matching.length);
    expect(first.ids).toEqual(newestFirst.slice(0, 100));
    const page = await get(app, '/api/v1/interactions?q=refund&limit=100&page=31', key);
    expect(page.body.data.interactions.map((i: { id: string }) => i.id)).toEqual(newestFirst.slice(3000, 3100));
    // The same list by cursors, oldest first: every match once.
    const seen: string[] = [];
    let url = '/api/v1/interactions?q=refund&limit=500&order=asc&cursor=';
    for (let i = 0; i < 200 && url; i++) {
      const response = await get(app, url, key);
      expectStatus(response, 200);
      seen.push(...response.body.data.interactions.map((row: { id: string }) => row.id));
      const next = response.body.meta.next_cursor as string | null;
      url = next ? `/api/v1/interactions?q=refund&limit=500&order=asc&cursor=${encodeURIComponent(next)}` : '';
    }
    expect(seen).toEqual([...newestFirst].reverse());
  }, 120_000);

  it('rejects a text that cannot be searched, naming q', async () => {
    const { key } = await clinicSpeaking('en');
    const bad = ['', '%20%20', '!!!%20...', 'a'.repeat(201), Array.from({ length: 17 }, (_, i) => `w${i}`).join('%20'), 'cancel%07'];
    for (const q of bad) {
      const details = expectValidationError(await get(app, `/api/v1/interactions?q=${q}`, key), ['q']);
      expect(details.q).toMatch(/empty|word|characters|control/);
    }
    expect((await search(key, `q=${'a'.repeat(200)}`)).total).toBe(0);
  });

  it('exports only the matches', async () => {
    const { clinic, key } = await clinicSpeaking('en');
    const [a] = await insert(clinic.id, [
      { summary: 'Asked for an invoice', transcript: undefined },
      { summary: 'Booked', transcript: undefined },
    ]);
    const response = await get(app, '/api/v1/interactions?q=invoices', key, { accept: 'application/x-ndjson' });
    expectStatus(response, 200);
    const lines = String(response.text)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string });
    expect(lines.map((l) => l.id)).toEqual([a!.id]);
  });
});

describe('GraphQL text', () => {
  it('filters root, cursor and nested lists and highlights the matched words as written', async () => {
    const { clinic, key } = await clinicSpeaking('en');
    const [a, b] = await insert(clinic.id, [
      { summary: 'The patient cancelled.', transcript: said('Sorry, I must CANCEL tomorrow') },
      { summary: 'Booked a cleaning.', transcript: undefined },
    ]);
    const body = expectNoErrors(
      await graphql(app, {
        query: `query($clinic: ID!) {
          interactions(text: "cancellation", clinicId: $clinic) { nodes { id highlights } pageInfo { total } }
          plain: interactions(clinicId: $clinic) { nodes { id highlights } }
          interactionsConnection(text: "cancel", clinicId: $clinic) { nodes { id highlights } }
          clinic(id: $clinic) { interactions(text: "cleaning") { id highlights } }
        }`,
        variables: { clinic: clinic.id },
        key,
      }),
    );
    expect(body.interactions.pageInfo.total).toBe(1);
    expect(body.interactions.nodes[0].id).toBe(a!.id);
    const highlights = body.interactions.nodes[0].highlights as string[];
    expect(highlights.join(' ')).toContain('**cancelled**');
    expect(highlights.join(' ')).toContain('**CANCEL**');
    expect(body.plain.nodes.map((n: { highlights: unknown }) => n.highlights)).toEqual([null, null]);
    expect(body.interactionsConnection.nodes.map((n: { id: string }) => n.id)).toEqual([a!.id]);
    expect(body.clinic.interactions).toEqual([{ id: b!.id, highlights: ['Booked a **cleaning**'] }]);
  });

  it('names the text argument when it is invalid', async () => {
    const { key } = await clinicSpeaking('en');
    const response = await graphql(app, { query: '{ interactions(text: "   ") { nodes { id } } }', key });
    expect(response.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(response.body.errors?.[0]?.extensions?.details)).toContain('text');
  });
});
