// The source's import graph: no module imports itself back through others (an import cycle makes
// load order decide what a module sees, and couples layers that should stand alone), and every
// import points down the layers docs/development.md's layout table declares, top first.
//
// The layers: each row of that table, its folders (a module is in its top-level folder's row) or,
// for the files directly in src/, the files it names (config.ts is near the bottom, since db/ and
// the logger read it; the entry files - server.ts, serve.ts, app.ts... - are at the top). A module
// may import from its own row and the rows below it; the folders (or files) of one row must not
// import each other in a circle. Type imports count: they couple layers all the same.
//
// Written here rather than with madge or dependency-cruiser: both read TypeScript through the
// `typescript` package's JavaScript API, which TypeScript 7 (the native compiler this project
// builds with) does not have, and dependency-cruiser 18 needs Node 22. Biome formats every import
// as `import ... from '...'` or `export ... from '...'`, so the specifiers are read from the text.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');
const LAYOUT = path.resolve(SRC, '../docs/development.md');
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

/**
 * The layers of the layout table, top first: each row's `src/...` names (a folder as `src/x/`, a
 * file directly in src/ as `src/x.ts`) from its first cell.
 */
function layersOf(markdown: string): string[][] {
  const section = /^## Layout\n([\s\S]*?)^## /m.exec(markdown)?.[1] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `src/'))
    .map((line) => [...line.split(' | ')[0]!.matchAll(/`(src\/[^`]+)`/g)].map((match) => match[1]!));
}

/** The unit a source file is layered as: `src/<folder>/`, or `src/<file>.ts` for a file directly in src/. */
function unitOf(file: string): string {
  const [first, ...rest] = path.relative(SRC, file).split(path.sep);
  return rest.length ? `src/${first}/` : `src/${first}`;
}

/**
 * What breaks the layers: every import from a unit to one in a row above it, and every circle
 * between the units of one row, each named by its files. A unit in no row is an error of its own.
 */
function layerViolations(graph: Map<string, string[]>, layers: string[][], unit: (file: string) => string): string[] {
  const rowOf = new Map(layers.flatMap((names, row) => names.map((name) => [name, row] as const)));
  const found: string[] = [];
  const unplaced = new Set<string>();
  const sameRow = new Map<string, string[]>();
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const [from, to] = [unit(file), unit(target)];
      if (from === to) continue;
      const [fromRow, toRow] = [rowOf.get(from), rowOf.get(to)];
      for (const [name, row] of [
        [from, fromRow],
        [to, toRow],
      ] as const) {
        if (row === undefined) unplaced.add(name);
      }
      if (fromRow === undefined || toRow === undefined) continue;
      if (toRow < fromRow) found.push(`${file} -> ${target}: ${to} is above ${from}`);
      else if (toRow === fromRow) sameRow.set(from, [...new Set([...(sameRow.get(from) ?? []), to])]);
    }
  }
  for (const circle of cycles(sameRow)) found.push(`${circle.join(', ')} import each other in a circle within one row`);
  return [...[...unplaced].map((name) => `${name} is in no row of the layout table`), ...found];
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

describe('the layers of src/', () => {
  it('reads the layout table top first: the folders and files in the first cell of each row', () => {
    const markdown = [
      '## Layout',
      '',
      '| Layer (top first) | Holds |',
      '|---|---|',
      '| `src/app.ts`, `src/server.ts` | the entry points (`src/http/` below) |',
      '| `src/http/` | adapter (`node-listener.ts`) |',
      '| `src/seed/`, `src/purge/` | tools |',
      '',
      '## Following a request',
      '| `src/after/` | another table |',
    ].join('\n');
    expect(layersOf(markdown)).toEqual([['src/app.ts', 'src/server.ts'], ['src/http/'], ['src/seed/', 'src/purge/']]);
    expect([unitOf(path.join(SRC, 'http/node-listener.ts')), unitOf(path.join(SRC, 'graphql/schema/clinic.ts')), unitOf(path.join(SRC, 'config.ts'))]).toEqual([
      'src/http/',
      'src/graphql/',
      'src/config.ts',
    ]);
  });

  it('finds an import that points up, a circle within one row, and a unit in no row', () => {
    const layers = [['top'], ['a', 'b'], ['bottom']];
    const unit = (file: string) => file.split('/')[0]!;
    const violations = (edges: [string, string][]) => layerViolations(new Map(edges.map(([from, to]) => [from, [to]])), layers, unit);
    expect(
      violations([
        ['top/x', 'a/y'],
        ['a/y', 'bottom/z'],
        ['a/w', 'b/v'],
      ]),
    ).toEqual([]);
    expect(violations([['bottom/z', 'top/x']])).toEqual(['bottom/z -> top/x: top is above bottom']);
    expect(
      violations([
        ['a/y', 'b/v'],
        ['b/u', 'a/w'],
      ]),
    ).toEqual(['a, b import each other in a circle within one row']);
    expect(violations([['top/x', 'nowhere/q']])).toEqual(['nowhere is in no row of the layout table']);
  });

  it('every import points down the layer order of docs/development.md, types included', () => {
    const layers = layersOf(readFileSync(LAYOUT, 'utf8'));
    // (the table is read: the service's many layers, src/ root files among them)
    expect(layers.length).toBeGreaterThan(10);
    expect(layers.flat()).toContain('src/config.ts');
    const files = sourceFiles(SRC);
    const graph = importGraph(files);
    const named = new Map([...graph].map(([file, targets]) => [path.relative(SRC, file), targets.map((target) => path.relative(SRC, target))]));
    const unit = (relative: string) => unitOf(path.join(SRC, relative));
    expect(layerViolations(named, layers, unit)).toEqual([]);
  });
});

describe('the layout table of docs/development.md', () => {
  it('names every folder of src/ and every file directly in it, each in one row', () => {
    const named = layersOf(readFileSync(LAYOUT, 'utf8')).flat();
    const units = readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() || entry.name.endsWith('.ts'))
      .map((entry) => (entry.isDirectory() ? `src/${entry.name}/` : `src/${entry.name}`));
    expect(units.filter((unit) => !named.includes(unit))).toEqual([]);
    expect(named.filter((name, i) => named.indexOf(name) !== i)).toEqual([]);
  });
});
