// Streams a newline-delimited file as batches of numbered lines, holding one read chunk (plus an
// unfinished line of at most `maxLineBytes`) in memory. Blank lines are skipped but still counted,
// so numbers match an editor's. A line that is not UTF-8 or is too long is still yielded, with the
// reason instead of its text, so that it is reported as FILE:LINE rather than mangled or fatal.
import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';

export interface NumberedLine {
  /** 1-based line number in the file. */
  number: number;
  /** The line's text; empty when `unreadable` is set. */
  text: string;
  /** Why the line's bytes could not be taken as text (`not valid UTF-8 ...`, `longer than N bytes`). */
  unreadable?: string;
}

export interface ReadOptions {
  /** Bytes per read (256 KB: small batches keep few parsed lines alive at once); a batch holds the complete lines of one read. */
  chunkSize?: number;
  /** Called after each read with the total number of bytes read so far. */
  onBytes?: (bytesRead: number) => void;
  /** Longest line accepted, in bytes (without its \n); the bytes of a longer one are skipped, never held. */
  maxLineBytes?: number;
}

/**
 * 16 MiB: far above any real record (a long transcript is some kilobytes), and far below the
 * 512 MiB at which V8 cannot make a string of a line at all.
 */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * Offset of the first byte that does not start a well-formed UTF-8 sequence (Unicode table 3-7),
 * or -1. Written here because `isUtf8` and a fatal TextDecoder say whether, not where; it only
 * runs on lines `isUtf8` has already rejected.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    let continuation: number;
    // The range of the second byte excludes overlong forms, surrogates and code points above U+10FFFF.
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) continuation = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      continuation = 2;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      continuation = 3;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k <= continuation; k++) {
      const byte = bytes[i + k];
      if (byte === undefined || byte < (k === 1 ? low : 0x80) || byte > (k === 1 ? high : 0xbf)) return i;
    }
    i += continuation + 1;
  }
  return -1;
}

export async function* readLines(file: string, options: ReadOptions = {}): AsyncGenerator<NumberedLine[]> {
  const stream = fs.createReadStream(file, { highWaterMark: options.chunkSize ?? 1 << 18 });
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let lineNumber = 0;
  let bytesRead = 0;
  // Pieces of a line that spans reads, and their total length.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  // The current line has passed the limit: its remaining bytes are dropped until its line break.
  let overlong = false;

  const tooLong = (batch: NumberedLine[]) => {
    lineNumber++;
    batch.push({ number: lineNumber, text: '', unreadable: `longer than ${maxLineBytes} bytes` });
  };

  const decode = (buffer: Buffer, start: number, end: number, batch: NumberedLine[]) => {
    lineNumber++;
    let stop = end;
    if (stop > start && buffer[stop - 1] === CR) stop--;
    const bytes = buffer.subarray(start, stop);
    // Checked on the bytes: decoding first would turn each bad byte into U+FFFD without a word.
    if (!isUtf8(bytes)) {
      batch.push({ number: lineNumber, text: '', unreadable: `not valid UTF-8 (byte offset ${firstInvalidUtf8(bytes)} of the line)` });
      return;
    }
    let text = bytes.toString('utf8');
    if (lineNumber === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() !== '') batch.push({ number: lineNumber, text });
  };

  /** A line ends at `newline` in `chunk`, starting at `start` or in the pending pieces. */
  const endLine = (chunk: Buffer, start: number, newline: number, batch: NumberedLine[]) => {
    if (overlong || pendingBytes + (newline - start) > maxLineBytes) tooLong(batch);
    else if (pending.length > 0) {
      const line = Buffer.concat([...pending, chunk.subarray(start, newline)]);
      decode(line, 0, line.length, batch);
    } else decode(chunk, start, newline, batch);
    pending = [];
    pendingBytes = 0;
    overlong = false;
  };

  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytesRead += chunk.length;
      const batch: NumberedLine[] = [];
      let start = 0;
      let newline = chunk.indexOf(NEWLINE, start);
      while (newline !== -1) {
        endLine(chunk, start, newline, batch);
        start = newline + 1;
        newline = chunk.indexOf(NEWLINE, start);
      }
      if (start < chunk.length && !overlong) {
        if (pendingBytes + (chunk.length - start) > maxLineBytes) {
          overlong = true;
          pending = [];
          pendingBytes = 0;
        } else {
          // Copy the unfinished line so the chunk itself can be collected.
          pending.push(Buffer.from(chunk.subarray(start)));
          pendingBytes += chunk.length - start;
        }
      }
      options.onBytes?.(bytesRead);
      if (batch.length > 0) yield batch;
    }
    const batch: NumberedLine[] = [];
    if (overlong) tooLong(batch);
    else if (pending.length > 0) {
      const line = Buffer.concat(pending);
      decode(line, 0, line.length, batch);
    }
    if (batch.length > 0) yield batch;
  } finally {
    stream.destroy();
  }
}
