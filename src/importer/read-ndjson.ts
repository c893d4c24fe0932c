// Streams a newline-delimited file as batches of numbered lines, holding one read chunk (plus an
// unfinished line) in memory. Blank lines are skipped but still counted, so numbers match an editor's.
import fs from 'node:fs';

export interface NumberedLine {
  /** 1-based line number in the file. */
  number: number;
  text: string;
}

export interface ReadOptions {
  /** Bytes per read (256 KB: small batches keep few parsed lines alive at once); a batch holds the complete lines of one read. */
  chunkSize?: number;
  /** Called after each read with the total number of bytes read so far. */
  onBytes?: (bytesRead: number) => void;
}

const NEWLINE = 0x0a;
const CR = 0x0d;

export async function* readLines(file: string, options: ReadOptions = {}): AsyncGenerator<NumberedLine[]> {
  const stream = fs.createReadStream(file, { highWaterMark: options.chunkSize ?? 1 << 18 });
  let lineNumber = 0;
  let bytesRead = 0;
  // Pieces of a line that spans reads.
  let pending: Buffer[] = [];

  const decode = (buffer: Buffer, start: number, end: number, batch: NumberedLine[]) => {
    lineNumber++;
    let stop = end;
    if (stop > start && buffer[stop - 1] === CR) stop--;
    let text = buffer.toString('utf8', start, stop);
    if (lineNumber === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() !== '') batch.push({ number: lineNumber, text });
  };

  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytesRead += chunk.length;
      const batch: NumberedLine[] = [];
      let start = 0;
      let newline = chunk.indexOf(NEWLINE, start);
      if (newline !== -1 && pending.length > 0) {
        const line = Buffer.concat([...pending, chunk.subarray(0, newline)]);
        pending = [];
        decode(line, 0, line.length, batch);
        start = newline + 1;
        newline = chunk.indexOf(NEWLINE, start);
      }
      while (newline !== -1) {
        decode(chunk, start, newline, batch);
        start = newline + 1;
        newline = chunk.indexOf(NEWLINE, start);
      }
      // Copy the unfinished line so the chunk itself can be collected.
      if (start < chunk.length) pending.push(Buffer.from(chunk.subarray(start)));
      options.onBytes?.(bytesRead);
      if (batch.length > 0) yield batch;
    }
    if (pending.length > 0) {
      const batch: NumberedLine[] = [];
      const line = Buffer.concat(pending);
      decode(line, 0, line.length, batch);
      if (batch.length > 0) yield batch;
    }
  } finally {
    stream.destroy();
  }
}
