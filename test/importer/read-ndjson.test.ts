import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { firstInvalidUtf8, type NumberedLine, readLines } from '../../src/importer/read-ndjson.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'read-ndjson-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function read(content: string | Buffer, chunkSize?: number, maxLineBytes?: number): Promise<{ lines: NumberedLine[]; batches: number; bytes: number }> {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.ndjson`);
  fs.writeFileSync(file, content);
  const lines: NumberedLine[] = [];
  let batches = 0;
  let bytes = 0;
  for await (const batch of readLines(file, { chunkSize, maxLineBytes, onBytes: (n) => (bytes = n) })) {
    batches++;
    lines.push(...batch);
  }
  return { lines, batches, bytes };
}

describe('readLines', () => {
  it('numbers lines as an editor does, skipping blank ones, with or without a final newline', async () => {
    const { lines, bytes } = await read('{"a":1}\n\n   \n{"b":2}\r\n{"c":3}');
    expect(lines).toEqual([
      { number: 1, text: '{"a":1}' },
      { number: 4, text: '{"b":2}' },
      { number: 5, text: '{"c":3}' },
    ]);
    expect(bytes).toBe(29);
  });

  it('joins lines split across reads, multi-byte characters included, and drops a byte order mark', async () => {
    const content = `\uFEFF{"name":"Clínica Sant Jordi ✓"}\n${'{"x":"ñandú"}\n'.repeat(50)}{"last":"€"}`;
    for (const chunkSize of [1, 3, 7, 64]) {
      const { lines, batches } = await read(Buffer.from(content, 'utf8'), chunkSize);
      expect(lines).toHaveLength(52);
      expect(lines[0]).toEqual({ number: 1, text: '{"name":"Clínica Sant Jordi ✓"}' });
      expect(lines.slice(1, 51).every((l) => l.text === '{"x":"ñandú"}')).toBe(true);
      expect(lines[51]).toEqual({ number: 52, text: '{"last":"€"}' });
      expect(batches).toBeGreaterThan(1);
    }
  });

  it('yields nothing for an empty file', async () => {
    expect((await read('')).lines).toEqual([]);
    expect((await read('\n\n')).lines).toEqual([]);
  });

  it('reports a line that is not UTF-8 with the offset of its first bad byte, whatever the reads', async () => {
    const bad = (bytes: number[]) => Buffer.concat([Buffer.from('{"s":"ok é '), Buffer.from(bytes), Buffer.from('"}')]);
    const offset = Buffer.byteLength('{"s":"ok é ');
    // Latin-1, a lone continuation byte, an overlong form, a surrogate, a truncated sequence.
    const samples = [[0xe9], [0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]];
    const content = Buffer.concat([...samples.flatMap((bytes) => [bad(bytes), Buffer.from('\n')]), Buffer.from('{"after":"✓"}\n')]);
    for (const chunkSize of [1, 5, 64, 1 << 16]) {
      const { lines } = await read(content, chunkSize);
      expect(lines).toEqual([
        ...samples.map((_, i) => ({ number: i + 1, text: '', unreadable: `not valid UTF-8 (byte offset ${offset} of the line)` })),
        { number: 6, text: '{"after":"✓"}' },
      ]);
    }
  });

  it('finds the first byte that starts no well-formed UTF-8 sequence', () => {
    expect(firstInvalidUtf8(Buffer.from('añ€😀'))).toBe(-1);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xf0, 0x9f, 0x98]))).toBe(1);
    expect(firstInvalidUtf8(Buffer.from([0xf4, 0x90, 0x80, 0x80]))).toBe(0);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0x62, 0xff]))).toBe(2);
  });

  it('reports a line longer than the limit without holding it, and goes on with the next line', async () => {
    const limit = 100;
    const line = (n: number) => `{"n":${n},"pad":"${'p'.repeat(40)}"}`;
    const atLimit = `{"pad":"${'q'.repeat(limit - 10)}"}`;
    expect(Buffer.byteLength(atLimit)).toBe(limit);
    const content = `${line(1)}\n${'x'.repeat(limit + 1)}\n${line(3)}\n${'y'.repeat(5000)}\n${atLimit}\n${'z'.repeat(limit * 3)}`;
    for (const chunkSize of [1, 7, 64, 4096, 1 << 16]) {
      const { lines } = await read(content, chunkSize, limit);
      expect(lines).toEqual([
        { number: 1, text: line(1) },
        { number: 2, text: '', unreadable: `longer than ${limit} bytes` },
        { number: 3, text: line(3) },
        { number: 4, text: '', unreadable: `longer than ${limit} bytes` },
        { number: 5, text: atLimit },
        { number: 6, text: '', unreadable: `longer than ${limit} bytes` },
      ]);
    }
  });

  it('keeps memory bounded by the limit on a 40 MB line', async () => {
    const file = path.join(dir, 'huge.ndjson');
    const chunk = Buffer.alloc(1 << 20, 0x61);
    const fd = fs.openSync(file, 'w');
    for (let i = 0; i < 40; i++) fs.writeSync(fd, chunk);
    fs.writeSync(fd, '\n{"next":1}\n');
    fs.closeSync(fd);
    // What is still referenced after each read, not what awaits collection: a collection first.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    gc();
    const start = process.memoryUsage().arrayBuffers;
    let peak = 0;
    const lines: NumberedLine[] = [];
    const onBytes = () => {
      gc();
      peak = Math.max(peak, process.memoryUsage().arrayBuffers - start);
    };
    for await (const batch of readLines(file, { maxLineBytes: 1 << 20, chunkSize: 1 << 20, onBytes })) lines.push(...batch);
    expect(lines).toEqual([
      { number: 1, text: '', unreadable: `longer than ${1 << 20} bytes` },
      { number: 2, text: '{"next":1}' },
    ]);
    // The read chunk and at most the limit of the line; holding the line would take 40 MB.
    expect(peak).toBeLessThan(8 << 20);
  });
});
