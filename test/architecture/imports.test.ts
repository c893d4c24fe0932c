// The source's import graph: no module imports itself back through others (an import cycle makes
// load order decide what a module sees, and couples layers that should stand alone).
//
// Written here rather than with madge or dependency-cruiser: both read TypeScript through the
// `typescript` package's JavaScript API, which TypeScript 7 (the native compiler this project
// builds with) does not have, and dependency-cruiser 18 needs Node 22. Biome formats every import
// as `import ... from '...'` or `export ... from '...'`, so the specifiers are read from the text.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');
/** Prisma's and Pothos' generated code: not ours to arrange. */
const GENERATED = path.join(SRC, 'generated');

/** Every .ts file under `dir`, generated code aside. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return file === GENERATED ? [] : sourceFiles(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

/** The relative modules a file imports or re-exports (types included: they couple layers all the same). */
function importsOf(text: string): string[] {
  const specifiers = [...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+)'/gms), ...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)];
  return specifiers.map((match) => match[1]!);
}

/** The import graph of `files`: file -> the files it imports (`.js` specifiers name `.ts` sources). */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const targets = importsOf(readFileSync(file, 'utf8'))
        .map((specifier) => path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts'))
        .filter((target) => known.has(target));
      return [file, targets];
    }),
  );
}

/** The strongly connected components with more than one member, or a member that imports itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('the import graph of src/', () => {
  it('finds the imports Biome writes, type-only and re-exports included, across lines', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b/b.js';",
      'import {\n  c,\n  type D,\n} from "x";',
      "import {\n  e,\n  f,\n} from './ef.js';",
      "export { g } from './g.js';",
      "export type { H } from './h.js';",
      "const lazy = await import('./lazy.js');",
      "import pg from 'pg';",
      "// a comment that says import x from './not-code.js' is not an import",
    ].join('\n');
    expect(importsOf(text)).toEqual(['./a.js', '../b/b.js', './ef.js', './g.js', './h.js', './lazy.js']);
  });

  it('finds a cycle of any length, and none in a graph without one', () => {
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
    expect(cycles(new Map([['a', ['a']]]))).toEqual([['a']]);
    expect(
      cycles(
        new Map([
          ['a', ['b', 'c']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('has no cycle: no module imports itself back through others, types included', () => {
    const graph = importGraph(sourceFiles(SRC));
    // (the scan sees the code: hundreds of modules and their imports)
    expect(graph.size).toBeGreaterThan(150);
    expect([...graph.values()].flat().length).toBeGreaterThan(500);
    const named = cycles(graph).map((component) => component.map((file) => path.relative(SRC, file)));
    expect(named).toEqual([]);
  });
});

describe('the layout table of docs/development.md', () => {
  it('names every folder of src/', () => {
    const table = readFileSync(path.resolve(SRC, '../docs/development.md'), 'utf8');
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `src/${entry.name}/`);
    expect(folders.filter((folder) => !table.includes(`\`${folder}\``))).toEqual([]);
  });
});
