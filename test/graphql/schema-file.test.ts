import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printedSchema, printedSchemaPath } from '../../src/graphql/print-schema.js';

describe('schema/schema.graphql', () => {
  it('is the printed Pothos schema (run `npm run generate` after changing the schema)', () => {
    expect(fs.readFileSync(printedSchemaPath, 'utf8')).toBe(printedSchema());
  });

  it('describes every type and field', () => {
    const sdl = printedSchema();
    const undocumented = [...sdl.matchAll(/^(?:type|enum|scalar|input) (\w+)/gm)].filter((m) => {
      const before = sdl.slice(0, m.index).trimEnd();
      return !before.endsWith('"""') && !before.endsWith('"');
    });
    expect(undocumented.map((m) => m[1]).filter((name) => name !== 'Query')).toEqual([]);
    // Every field line is preceded by its description.
    const lines = sdl.split('\n');
    const bare = lines.filter((line, i) => /^ {2}\w+(\(|:)/.test(line) && !/"""\s*$|"\s*$/.test(lines[i - 1] ?? ''));
    expect(bare).toEqual([]);
  });
});
