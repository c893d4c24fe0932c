// The bytes of an exported interaction, written from the fields of COPY's binary format (copy-out.ts)
// straight into the batch: a CSV record, or an NDJSON line that is byte for byte what
// JSON.stringify writes for the REST representation (routes.ts, view `detail`: the
// transcript for both channels) followed by `updated_at`. No row becomes a JavaScript object.
import { maskPhoneNumber, redactText } from '../../phi/masking.js';
import { fieldsOf, INTERACTION } from '../routes.js';
import type { Fields, Out, RowFormat } from './copy-out.js';
import { bytesStartFormula, FORMULA_GUARD } from './csv.js';

/** The columns of the COPY, in order (interactions.ts selects them); `transcript` only for NDJSON. */
export const COLUMNS = [
  'id',
  'channel',
  'type',
  'direction',
  'phone_number',
  'clinic_id',
  'campaign_id',
  'started_at',
  'ended_at',
  'duration_seconds',
  'outcome',
  'summary',
  'recording_url',
  'updated_at',
  'transcript',
] as const;
export type Column = (typeof COLUMNS)[number];

type Kind = 'text' | 'label' | 'uuid' | 'timestamp' | 'int' | 'transcript' | MaskedKind;

/** How a column of patient data is written for a key without phi:read (src/phi/masking.ts). */
type MaskedKind = 'phone' | 'redacted' | 'withheld' | 'redactedTranscript';
const MASKED_KIND: Readonly<Partial<Record<Column, MaskedKind>>> = {
  phone_number: 'phone',
  summary: 'redacted',
  recording_url: 'withheld',
  transcript: 'redactedTranscript',
};

/** Whether the rows are written for a key without phi:read: its patient data masked. */
export interface RowOptions {
  masked?: boolean;
}

const kindOf = (column: Column, options: RowOptions): Kind => (options.masked ? MASKED_KIND[column] : undefined) ?? KIND[column];

/** How each column arrives in COPY's binary format. */
const KIND: Readonly<Record<Column, 'text' | 'label' | 'uuid' | 'timestamp' | 'int' | 'transcript'>> = {
  id: 'text',
  channel: 'label',
  type: 'label',
  direction: 'label',
  phone_number: 'text',
  clinic_id: 'uuid',
  campaign_id: 'text',
  started_at: 'timestamp',
  ended_at: 'timestamp',
  duration_seconds: 'int',
  outcome: 'text',
  summary: 'text',
  recording_url: 'text',
  updated_at: 'timestamp',
  transcript: 'transcript',
};

const index = (column: Column) => COLUMNS.indexOf(column);
const ascii = (text: string) => Buffer.from(text, 'latin1');

/** Room for any row: its fields' bytes six times over (a JSON escape is at most 6 bytes), plus keys and fixed-size values. */
function bound(fields: Fields, columns: number): number {
  let total = 1024;
  for (let i = 0; i < columns; i++) if (fields.length[i]! > 0) total += fields.length[i]!;
  return total * 6;
}

// ---------------------------------------------------------------------------------------------
// Values

const HEX = Array.from({ length: 256 }, (_, b) => [b.toString(16).padStart(2, '0').charCodeAt(0), b.toString(16).padStart(2, '0').charCodeAt(1)]);

function uuid(out: Out, src: Buffer, at: number): void {
  const { buf } = out;
  let p = out.pos;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) buf[p++] = 0x2d;
    const [hi, lo] = HEX[src[at + i]!]!;
    buf[p++] = hi!;
    buf[p++] = lo!;
  }
  out.pos = p;
}

function int(out: Out, value: number): void {
  out.pos += out.buf.write(String(value), out.pos, 'latin1');
}

/** Microseconds between 1970-01-01 and PostgreSQL's epoch, 2000-01-01, in milliseconds. */
const POSTGRES_EPOCH_MS = 946_684_800_000;
const DAY_MS = 86_400_000;

/**
 * Writes timestamps as toISOString() does (UTC, milliseconds, Z), keeping the date of the last one:
 * rows come in time order, so consecutive timestamps mostly share their day.
 */
function isoWriter(): (out: Out, src: Buffer, at: number) => void {
  let lastDay = Number.NaN;
  let date = Buffer.alloc(0);
  const two = (buf: Buffer, p: number, n: number) => {
    buf[p] = 0x30 + Math.floor(n / 10);
    buf[p + 1] = 0x30 + (n % 10);
  };
  return (out, src, at) => {
    // int64 microseconds since 2000-01-01 UTC. The columns are timestamptz(3), so the value is a
    // whole number of milliseconds; rounding keeps it exact beyond 2^53 microseconds.
    const micros = src.readInt32BE(at) * 4_294_967_296 + src.readUInt32BE(at + 4);
    const ms = Math.round(micros / 1000) + POSTGRES_EPOCH_MS;
    const day = Math.floor(ms / DAY_MS);
    if (day !== lastDay) {
      // (throws a RangeError for PostgreSQL's infinity: the export fails rather than lie)
      date = ascii(new Date(day * DAY_MS).toISOString().slice(0, 11));
      lastDay = day;
    }
    const { buf } = out;
    let p = out.pos;
    buf.set(date, p);
    p += date.length;
    let rest = ms - day * DAY_MS;
    const millis = rest % 1000;
    rest = (rest - millis) / 1000;
    const seconds = rest % 60;
    rest = (rest - seconds) / 60;
    const minutes = rest % 60;
    const hours = (rest - minutes) / 60;
    two(buf, p, hours);
    buf[p + 2] = 0x3a;
    two(buf, p + 3, minutes);
    buf[p + 5] = 0x3a;
    two(buf, p + 6, seconds);
    buf[p + 8] = 0x2e;
    buf[p + 9] = 0x30 + Math.floor(millis / 100);
    two(buf, p + 10, millis % 100);
    buf[p + 12] = 0x5a;
    out.pos = p + 13;
  };
}

/** A JSON string of UTF-8 text, escaped exactly as JSON.stringify escapes it. */
function jsonString(out: Out, src: Buffer, start: number, end: number): void {
  const { buf } = out;
  let p = out.pos;
  buf[p++] = 0x22;
  let run = start;
  for (let i = start; i < end; i++) {
    const c = src[i]!;
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) continue;
    if (i > run) p += src.copy(buf, p, run, i);
    run = i + 1;
    buf[p++] = 0x5c;
    if (c === 0x22 || c === 0x5c) buf[p++] = c;
    else if (c === 0x0a) buf[p++] = 0x6e;
    else if (c === 0x0d) buf[p++] = 0x72;
    else if (c === 0x09) buf[p++] = 0x74;
    else if (c === 0x08) buf[p++] = 0x62;
    else if (c === 0x0c) buf[p++] = 0x66;
    else {
      buf[p++] = 0x75;
      buf[p++] = 0x30;
      buf[p++] = 0x30;
      buf[p++] = HEX[c]![0]!;
      buf[p++] = HEX[c]![1]!;
    }
  }
  if (end > run) p += src.copy(buf, p, run, end);
  buf[p++] = 0x22;
  out.pos = p;
}

/**
 * A CSV field of UTF-8 text (RFC 4180): quoted, quotes doubled, when it holds a comma, quote, CR or
 * LF; a quote in front and quoted when a spreadsheet would read it as a formula (csv.ts).
 */
function csvText(out: Out, src: Buffer, start: number, end: number): void {
  const guard = bytesStartFormula(src, start, end);
  let quote = guard;
  for (let i = start; i < end && !quote; i++) {
    const c = src[i]!;
    if (c === 0x2c || c === 0x22 || c === 0x0d || c === 0x0a) quote = true;
  }
  const { buf } = out;
  if (!quote) {
    out.pos += src.copy(buf, out.pos, start, end);
    return;
  }
  let p = out.pos;
  buf[p++] = 0x22;
  if (guard) buf[p++] = FORMULA_GUARD;
  let run = start;
  for (let i = start; i < end; i++) {
    if (src[i] !== 0x22) continue;
    p += src.copy(buf, p, run, i + 1);
    buf[p++] = 0x22;
    run = i + 1;
  }
  if (end > run) p += src.copy(buf, p, run, end);
  buf[p++] = 0x22;
  out.pos = p;
}

// ---------------------------------------------------------------------------------------------
// Transcripts

const OPEN_ROLE = ascii('{"role": ');
const THEN_CONTENT = ascii(', "content": ');
const ENTRY_SEPARATOR = ascii(', ');
const COMPACT_OPEN_ROLE = ascii('{"role":');
const COMPACT_THEN_CONTENT = ascii(',"content":');

const startsWith = (src: Buffer, at: number, end: number, literal: Buffer) =>
  at + literal.length <= end && src.compare(literal, 0, literal.length, at, at + literal.length) === 0;

/** The end (after the closing quote) of the JSON string literal opening at `at`, or -1. */
function stringEnd(src: Buffer, at: number, end: number): number {
  if (src[at] !== 0x22) return -1;
  let i = at + 1;
  for (;;) {
    const quote = src.indexOf(0x22, i);
    if (quote === -1 || quote >= end) return -1;
    let backslashes = 0;
    while (src[quote - 1 - backslashes] === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

/**
 * A stored transcript as the REST representation writes it: each entry's role and content
 * (TRANSCRIPT_ENTRY), compact. jsonb writes a transcript of such entries as
 * `[{"role": "...", "content": "..."}, ...]` (its keys ordered by length), with strings escaped as
 * JSON.stringify escapes them; that form is copied without its spaces. Anything else (other keys,
 * values that are not strings) goes through JSON.parse and JSON.stringify, as the JSON answer does.
 */
function transcript(out: Out, src: Buffer, start: number, end: number): void {
  // jsonb's binary format: a version byte (1), then the text.
  if (src[start] !== 1) throw new Error('exports: unknown jsonb binary version');
  const from = start + 1;
  const begin = out.pos;
  if (compactTranscript(out, src, from, end)) return;
  out.pos = begin;
  const entries = JSON.parse(src.toString('utf8', from, end)) as unknown;
  if (!Array.isArray(entries)) throw new Error('exports: a stored transcript is not an array');
  const text = JSON.stringify(entries.map((entry: { role?: unknown; content?: unknown }) => ({ role: entry.role, content: entry.content })));
  out.pos += out.buf.write(text, out.pos, 'utf8');
}

/**
 * Whether the bytes hold a digit, an `@` or anything not ASCII (a digit or `＠` of another script:
 * phi/masking.ts canonicalForMasking): text without any has nothing to redact.
 */
function mayHoldContacts(src: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = src[i]!;
    if ((c >= 0x30 && c <= 0x39) || c === 0x40 || c >= 0x80) return true;
  }
  return false;
}

/** A transcript as `transcript` writes it, each turn's content redacted (phi/masking.ts). */
function redactedTranscript(out: Out, src: Buffer, start: number, end: number): void {
  if (!mayHoldContacts(src, start + 1, end)) {
    transcript(out, src, start, end);
    return;
  }
  if (src[start] !== 1) throw new Error('exports: unknown jsonb binary version');
  const entries = JSON.parse(src.toString('utf8', start + 1, end)) as unknown;
  if (!Array.isArray(entries)) throw new Error('exports: a stored transcript is not an array');
  const text = JSON.stringify(
    entries.map((entry: { role?: unknown; content?: unknown }) => ({
      role: entry.role,
      content: typeof entry.content === 'string' ? redactText(entry.content) : entry.content,
    })),
  );
  out.pos += out.buf.write(text, out.pos, 'utf8');
}

/** A text column of patient data, masked by `mask`, as a JSON string or a CSV field. */
function maskedText(out: Out, src: Buffer, start: number, end: number, mask: (text: string) => string, write: typeof jsonString): void {
  if (mask === redactText && !mayHoldContacts(src, start, end)) {
    write(out, src, start, end);
    return;
  }
  const masked = Buffer.from(mask(src.toString('utf8', start, end)), 'utf8');
  write(out, masked, 0, masked.length);
}

function compactTranscript(out: Out, src: Buffer, from: number, end: number): boolean {
  const { buf } = out;
  if (src[from] !== 0x5b) return false;
  buf[out.pos++] = 0x5b;
  let i = from + 1;
  if (src[i] === 0x5d) {
    buf[out.pos++] = 0x5d;
    return i + 1 === end;
  }
  for (;;) {
    if (!startsWith(src, i, end, OPEN_ROLE)) return false;
    i += OPEN_ROLE.length;
    buf.set(COMPACT_OPEN_ROLE, out.pos);
    out.pos += COMPACT_OPEN_ROLE.length;
    let close = stringEnd(src, i, end);
    if (close === -1) return false;
    out.pos += src.copy(buf, out.pos, i, close);
    i = close;
    if (!startsWith(src, i, end, THEN_CONTENT)) return false;
    i += THEN_CONTENT.length;
    buf.set(COMPACT_THEN_CONTENT, out.pos);
    out.pos += COMPACT_THEN_CONTENT.length;
    close = stringEnd(src, i, end);
    if (close === -1) return false;
    out.pos += src.copy(buf, out.pos, i, close);
    i = close;
    if (src[i] !== 0x7d) return false;
    buf[out.pos++] = 0x7d;
    i++;
    if (startsWith(src, i, end, ENTRY_SEPARATOR)) {
      buf[out.pos++] = 0x2c;
      i += ENTRY_SEPARATOR.length;
      continue;
    }
    if (src[i] !== 0x5d || i + 1 !== end) return false;
    buf[out.pos++] = 0x5d;
    return true;
  }
}

// ---------------------------------------------------------------------------------------------
// NDJSON

interface Step {
  /** `{"id":` or `,"name":`. */
  key: Buffer;
  column: number;
  kind: Kind;
  /** A timestamp's writer (it keeps the last date it wrote). */
  iso?: ReturnType<typeof isoWriter>;
}

/** The REST field names of a line, in order: the representation with the transcript (view `detail`), then updated_at. */
export function ndjsonFields(channel: 'voice' | 'whatsapp'): string[] {
  const names = fieldsOf(INTERACTION, { channel, view: 'detail' }).map((field) => field.name);
  if (!names.includes('updated_at')) names.push('updated_at');
  return names;
}

function steps(channel: 'voice' | 'whatsapp', options: RowOptions): Step[] {
  return ndjsonFields(channel).map((name, i) => {
    if (!(COLUMNS as readonly string[]).includes(name)) throw new Error(`exports: no column for the interaction field ${name}`);
    const column = name as Column;
    return {
      key: ascii(`${i === 0 ? '{' : ','}"${name}":`),
      column: index(column),
      kind: kindOf(column, options),
      iso: KIND[column] === 'timestamp' ? isoWriter() : undefined,
    };
  });
}

const NULL = ascii('null');
const EMPTY_ARRAY = ascii('[]');
const LINE_END = ascii('}\n');
const VOICE_LABEL = ascii('voice');

/** The NDJSON line of each row (the COPY selects all of COLUMNS). */
export function ndjsonRow(options: RowOptions = {}): RowFormat {
  const voice = steps('voice', options);
  const whatsapp = steps('whatsapp', options);
  const channel = index('channel');
  return (fields, out) => {
    const { buf: src, start, length } = fields;
    out.reserve(bound(fields, COLUMNS.length));
    const isVoice =
      length[channel] === VOICE_LABEL.length && src.compare(VOICE_LABEL, 0, VOICE_LABEL.length, start[channel], start[channel]! + VOICE_LABEL.length) === 0;
    for (const step of isVoice ? voice : whatsapp) {
      out.buf.set(step.key, out.pos);
      out.pos += step.key.length;
      const at = start[step.column]!;
      const size = length[step.column]!;
      if (size === -1 || step.kind === 'withheld') {
        const value = step.kind === 'transcript' || step.kind === 'redactedTranscript' ? EMPTY_ARRAY : NULL;
        out.buf.set(value, out.pos);
        out.pos += value.length;
        continue;
      }
      switch (step.kind) {
        case 'text':
          jsonString(out, src, at, at + size);
          break;
        case 'label':
          // Enum labels: lowercase words or UPPERCASE tokens, nothing to escape.
          out.buf[out.pos++] = 0x22;
          out.pos += src.copy(out.buf, out.pos, at, at + size);
          out.buf[out.pos++] = 0x22;
          break;
        case 'uuid':
          out.buf[out.pos++] = 0x22;
          uuid(out, src, at);
          out.buf[out.pos++] = 0x22;
          break;
        case 'timestamp':
          out.buf[out.pos++] = 0x22;
          step.iso!(out, src, at);
          out.buf[out.pos++] = 0x22;
          break;
        case 'int':
          int(out, src.readInt32BE(at));
          break;
        case 'transcript':
          transcript(out, src, at, at + size);
          break;
        case 'phone':
          maskedText(out, src, at, at + size, maskPhoneNumber, jsonString);
          break;
        case 'redacted':
          maskedText(out, src, at, at + size, redactText, jsonString);
          break;
        case 'redactedTranscript':
          redactedTranscript(out, src, at, at + size);
          break;
      }
    }
    out.buf.set(LINE_END, out.pos);
    out.pos += LINE_END.length;
  };
}

// ---------------------------------------------------------------------------------------------
// CSV

/** The CSV columns: the scalar fields of an interaction, by their REST names. */
export const CSV_COLUMNS = [
  'id',
  'clinic_id',
  'campaign_id',
  'channel',
  'type',
  'direction',
  'phone_number',
  'started_at',
  'ended_at',
  'duration_seconds',
  'outcome',
  'summary',
  'recording_url',
  'updated_at',
] as const satisfies readonly Column[];

/** The header record. */
export const CSV_HEADER = ascii(`${CSV_COLUMNS.join(',')}\r\n`);

const CRLF = ascii('\r\n');

/** The CSV record of each row (the COPY selects COLUMNS without the transcript). */
export function csvRow(options: RowOptions = {}): RowFormat {
  const plan = CSV_COLUMNS.map((name) => ({ column: index(name), kind: kindOf(name, options), iso: KIND[name] === 'timestamp' ? isoWriter() : undefined }));
  const columns = COLUMNS.length - 1;
  return (fields, out) => {
    const { buf: src, start, length } = fields;
    out.reserve(bound(fields, columns));
    for (let i = 0; i < plan.length; i++) {
      const step = plan[i]!;
      if (i > 0) out.buf[out.pos++] = 0x2c;
      const at = start[step.column]!;
      const size = length[step.column]!;
      if (size === -1 || step.kind === 'withheld') continue;
      switch (step.kind) {
        case 'text':
          csvText(out, src, at, at + size);
          break;
        case 'phone':
          maskedText(out, src, at, at + size, maskPhoneNumber, csvText);
          break;
        case 'redacted':
          maskedText(out, src, at, at + size, redactText, csvText);
          break;
        case 'label':
          out.pos += src.copy(out.buf, out.pos, at, at + size);
          break;
        case 'uuid':
          uuid(out, src, at);
          break;
        case 'timestamp':
          step.iso!(out, src, at);
          break;
        case 'int':
          int(out, src.readInt32BE(at));
          break;
      }
    }
    out.buf.set(CRLF, out.pos);
    out.pos += CRLF.length;
  };
}
