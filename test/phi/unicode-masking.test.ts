// Masking and redaction over every spelling of a number: digits of any script, compatibility forms
// (fullwidth), every space and dash, invisible characters, a number read out digit by digit, an
// address behind a zero-width space or a fullwidth `＠`. Each is checked on the functions and through
// every path a key without phi:read reads (REST JSON, GraphQL, CSV and NDJSON exports), by the
// digits' values rather than by ASCII, so that no spelling can carry a number past the rules.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/domain/values.js';
import { maskPhoneNumber, redactText } from '../../src/phi/masking.js';
import { createKey, graphql, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createClinic, createInteraction } from '../helpers/factories.js';
import { get } from '../rest/client.js';
import { csvObjects, parseNdjson, unguarded } from '../rest/exports-support.js';

/** Zeros of some scripts' digits: ASCII, Arabic-Indic, Extended Arabic-Indic, Devanagari, Bengali, Thai, fullwidth, mathematical bold. */
const ZEROS = [0x30, 0x660, 0x6f0, 0x966, 0x9e6, 0xe50, 0xff10, 0x1d7ce];
const SEPARATORS = [' ', '\u00a0', '\u2009', '\u2007', '\u202f', '\u3000', '-', '\u2011', '\u2013', '\u2014', '\u2212', '.', ',', '\u200b ', ' \u2060'];

const spell = (digits: string, zero: number) => [...digits].map((d) => String.fromCodePoint(zero + Number(d))).join('');

/** Digits of any script as 0-9, everything else dropped: what a reader of the text can recover. */
const digitsOf = (text: string) =>
  [...text.normalize('NFKC')]
    .filter((c) => /\p{Nd}/u.test(c))
    .map((c) => {
      const code = c.codePointAt(0)!;
      let value = 0;
      while (value < 9 && /\p{Nd}/u.test(String.fromCodePoint(code - value - 1))) value++;
      return String(value);
    })
    .join('');

/** The longest run of the number's digits, in order, that a text shows (values, not spellings). */
function longestRun(text: string, number: string): number {
  const shown = digitsOf(text);
  let best = 0;
  for (let i = 0; i < shown.length; i++) for (let n = best + 1; i + n <= shown.length && number.includes(shown.slice(i, i + n)); n++) best = n;
  return best;
}

describe('the rules over Unicode', () => {
  it('masks a stored number in any script as its ASCII twin is masked', () => {
    expect(maskPhoneNumber('+٩٦٦ ٥٠ ١٢٣ ٤٥٦٧')).toBe(maskPhoneNumber('+966 50 123 4567'));
    expect(maskPhoneNumber('＋３４ ６１２ ３４５ ６８９')).toBe('+34 6** *** *89');
    expect(maskPhoneNumber('+34\u2009612\u2009345\u2009689')).toBe('+34 6** *** *89');
    expect(maskPhoneNumber('６１２\u200b３４５６８９')).toBe('*******89');
  });

  it.each([
    ['Arabic-Indic digits', 'رقمي ٠٦١٢٣٤٥٦٨٩ شكرا'],
    ['dictated digit by digit', 'it is 6 1 2 3 4 5 6 8 9 thanks'],
    ['dictated after a +', 'call +34 6 1 2 3 4 5 6 8 9 please'],
    ['thin spaces', 'call 612\u2009345\u2009689'],
    ['figure spaces', 'call 612\u2007345\u2007689'],
    ['non-breaking hyphens', 'call 612\u2011345\u2011689'],
    ['en dashes', 'call 612\u2013345\u2013689'],
    ['commas', 'call 612,345,689'],
    ['fullwidth digits', 'call ６１２ ３４５ ６８９'],
    ['a zero-width space inside', 'call 612\u200b345689'],
  ])('redacts a number written with %s, leaving no digit of it', (_, text) => {
    const redacted = redactText(text);
    expect(redacted).toContain('[phone]');
    expect(longestRun(redacted, '612345689')).toBeLessThan(2);
  });

  it('redacts addresses behind a zero-width space or a fullwidth ＠', () => {
    expect(redactText('write to ana\u200b@example.com now')).toBe('write to [email] now');
    expect(redactText('write to ana＠example.com now')).toBe('write to [email] now');
    expect(redactText('write to ana@exam\u200bple.com now')).toBe('write to [email] now');
  });

  it('keeps counting and ordinary numbers', () => {
    expect(redactText('items 1 2 3 4 5 6 7 8')).toBe('items 1 2 3 4 5 6 7 8');
    expect(redactText('booked for 04/02/2026 at 10:30')).toBe('booked for 04/02/2026 at 10:30');
  });

  it('property: a number of 9 to 12 digits in any script, separators and grouping, in any text, leaves at most two of its digits', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[1-9][0-9]{8,11}$/),
        fc.constantFrom(...ZEROS),
        fc.constantFrom(...SEPARATORS),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        fc.constantFrom('Call me on ', 'Mi número es ', 'رقمي ', ''),
        (number, zero, separator, group, plus, before) => {
          const groups = number.match(new RegExp(`.{1,${group}}`, 'g'))!;
          const written = `${before}${plus ? '+' : ''}${groups.map((g) => spell(g, zero)).join(separator)} thanks`;
          const redacted = redactText(written);
          // One-digit groups without a + read as counting when they count up; none of these do by chance often, but skip it.
          if (group === 1 && !plus && /^(0?1?2?3?4?5?6?7?8?9?)$/.test(number)) return;
          expect(longestRun(redacted, number), `${JSON.stringify(written)} -> ${JSON.stringify(redacted)}`).toBeLessThanOrEqual(2);
        },
      ),
      { numRuns: 400, seed: 36 },
    );
  });
});

// One client for the file: testDb() closes it after the describe block that first asks for it.
const db = testDb();
const app = testApp(db);

describe('through every path a key without phi:read reads', () => {
  const NUMBER = '612345689';
  const stored = {
    phone: '＋３４ ６١٢ ٣٤٥\u2009٦٨٩',
    summary: 'Patient dictated 6 1 2 3 4 5 6 8 9 and wrote ana＠example.com',
    transcript: [{ role: 'user', content: 'my number: +34\u00a0612\u2011345\u2011689, or ٦١٢٣٤٥٦٨٩' }],
  };
  let clinicId: string;
  let id: string;
  let key: string;
  beforeAll(async () => {
    clinicId = (await createClinic(db)).id;
    id = (
      await createInteraction(db, {
        clinicId,
        channel: 'whatsapp',
        startedAt: new Date('2026-03-01T10:00:00Z'),
        phoneNumber: stored.phone,
        summary: stored.summary,
        transcript: stored.transcript,
      })
    ).id;
    key = await createKey(db, { clinicIds: [clinicId], scopes: SCOPES.filter((s) => s !== 'phi:read') });
  });

  /** The patient data of a row in any of the answers' shapes, as one text. */
  const phiText = (row: Record<string, unknown>) =>
    JSON.stringify([row.phone_number ?? row.phoneNumber, row.summary, row.transcript, row.recording_url ?? row.recordingUrl]);

  /** No answer shows more of the number than its ASCII twin's mask (the first national digit and the last two), nor the address. */
  const expectProtected = (row: Record<string, unknown>) => {
    const text = phiText(row);
    // The country code (+34) is kept by the mask; the national number is what must not show.
    expect(row.phone_number ?? row.phoneNumber).toBe('+34 6** *** *89');
    expect(longestRun(text.replace('+34 6** *** *89', ''), NUMBER), text).toBe(0);
    expect(text).toContain('[phone]');
    expect(text).not.toMatch(/ana/);
  };

  it('REST list, by id and the change feed', async () => {
    for (const path of [`/api/v1/interactions?clinic_id=${clinicId}`, `/api/v1/interactions?updated_since=2000-01-01&cursor=`]) {
      const answer = await get(app, path, key);
      expect(answer.status).toBe(200);
      expect(answer.body.data.interactions).toHaveLength(1);
      expectProtected(answer.body.data.interactions[0]);
    }
    const detail = await get(app, `/api/v1/interactions/${id}`, key);
    expect(detail.status).toBe(200);
    expectProtected(detail.body.data.interaction);
  });

  it('GraphQL', async () => {
    const result = await graphql(app, { key, query: `{ interaction(id: "${id}") { phoneNumber summary transcript { content } } }` });
    expect(result.body.errors).toBeUndefined();
    expectProtected(result.body.data!.interaction as Record<string, unknown>);
  });

  it.each(['text/csv', 'application/x-ndjson'])('the %s export', async (accept) => {
    const response = await app.fetch(`http://localhost/api/v1/interactions?clinic_id=${clinicId}`, {
      headers: { Authorization: `Bearer ${key}`, Accept: accept },
    });
    expect(response.status).toBe(200);
    const body = await response.text();
    const rows: Array<Record<string, unknown>> = accept === 'text/csv' ? csvObjects(body).rows.map(unguarded) : parseNdjson(body);
    expect(rows).toHaveLength(1);
    expectProtected(rows[0]!);
  });
});

// Highlights (GraphQL `Interaction.highlights`) are fragments of the stored text as written, never
// masked: they are safe because only a key with phi:read may search (`text`, REST `q`) at all.
describe('search highlights', () => {
  let clinicId: string;
  let masked: string;
  let reader: string;
  beforeAll(async () => {
    clinicId = (await createClinic(db, { language: 'en' })).id;
    await createInteraction(db, {
      clinicId,
      channel: 'whatsapp',
      startedAt: new Date('2026-03-02T10:00:00Z'),
      summary: 'Reschedule: +٩٦٦ ٥٠ ١٢٣ ٤٥٦٧',
      transcript: [{ role: 'user', content: 'reschedule, ６１２ ３４５ ６８９' }],
    });
    masked = await createKey(db, { clinicIds: [clinicId], scopes: SCOPES.filter((s) => s !== 'phi:read') });
    reader = await createKey(db, { clinicIds: [clinicId], scopes: [...SCOPES] });
  });

  const query = `query($clinic: ID!) {
    interactions(text: "reschedule", clinicId: $clinic) { nodes { highlights } }
    interactionsConnection(text: "reschedule", clinicId: $clinic) { nodes { highlights } }
    clinic(id: $clinic) { interactions(text: "reschedule") { highlights } }
  }`;

  it('a key with phi:read reads the numbers around the searched word', async () => {
    const result = await graphql(app, { key: reader, query, variables: { clinic: clinicId } });
    expect(result.body.errors).toBeUndefined();
    const data = result.body.data!;
    for (const nodes of [data.interactions.nodes, data.interactionsConnection.nodes, data.clinic.interactions]) {
      const text = (nodes[0].highlights as string[]).join(' ');
      expect(text).toMatch(/\*\*reschedule\*\*/i);
      expect(longestRun(text, '966501234567'), text).toBe(12);
      expect(longestRun(text, '612345689'), text).toBe(9);
    }
  });

  it('a key without phi:read gets no fragment of what was said: the search is refused, and unsearched lists highlight nothing', async () => {
    const result = await graphql(app, { key: masked, query, variables: { clinic: clinicId } });
    expect(
      result.body.errors?.map((e) => e.extensions?.code),
      JSON.stringify(result.body.errors),
    ).toEqual(['INSUFFICIENT_SCOPE', 'INSUFFICIENT_SCOPE', 'INSUFFICIENT_SCOPE']);
    const whole = JSON.stringify(result.body);
    expect(longestRun(whole, '966501234567'), whole).toBeLessThan(2);
    expect(longestRun(whole, '612345689'), whole).toBeLessThan(2);
    expect(whole).not.toMatch(/reschedule\*\*/i);

    const plain = await graphql(app, {
      key: masked,
      query: `query($clinic: ID!) { interactions(clinicId: $clinic) { nodes { highlights summary } } }`,
      variables: { clinic: clinicId },
    });
    expect(plain.body.errors).toBeUndefined();
    const node = plain.body.data!.interactions.nodes[0];
    expect(node.highlights).toBeNull();
    expect(node.summary).toBe('Reschedule: [phone]');

    const rest = await get(app, `/api/v1/interactions?clinic_id=${clinicId}&q=reschedule`, masked);
    expect(rest.status).toBe(403);
    expect(rest.body.error.code).toBe('INSUFFICIENT_SCOPE');
    expect(rest.body.data).toBeUndefined();
  });
});
