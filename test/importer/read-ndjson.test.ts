import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type NumberedLine, readLines } from '../../src/importer/read-ndjson.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'read-ndjson-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function read(content: string | Buffer, chunkSize?: number): Promise<{ lines: NumberedLine[]; batches: number; bytes: number }> {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.ndjson`);
  fs.writeFileSync(file, content);
  const lines: NumberedLine[] = [];
  let batches = 0;
  let bytes = 0;
  for await (const batch of readLines(file, { chunkSize, onBytes: (n) => (bytes = n) })) {
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
});
