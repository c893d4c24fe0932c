// The API reference in docs/ against the code it describes: every REST route, parameter, scope,
// error code (with its status), quota and success outcome is in it; every relative link in the
// docs and the README leads to a file (and heading) that exists; the README stays a front door (at
// most 250 lines, linking to every page of docs/); and nothing committed points at documents
// outside the repository, which a person who clones it does not have.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERRORS, type ErrorCode } from '../../src/domain/error-catalogue.js';
import { SCOPES, SUCCESSFUL_OUTCOMES, TIER_LIMITS } from '../../src/domain/values.js';
import { routes } from '../../src/rest/routes.js';
import { repositoryFiles } from '../helpers/repository.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCS = path.join(ROOT, 'docs');

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The text outside fenced code blocks: links and tables there are prose, not examples. */
function prose(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
}

/** The lines of a section (from its heading to the next heading of the same or a higher level). */
function section(markdown: string, heading: string): string {
  const lines = prose(markdown).split('\n');
  const start = lines.findIndex((line) => line.replace(/^#+\s*/, '') === heading && line.startsWith('#'));
  if (start === -1) throw new Error(`no heading "${heading}"`);
  const level = /^#+/.exec(lines[start]!)![0].length;
  const end = lines.findIndex((line, i) => i > start && /^#+\s/.test(line) && /^#+/.exec(line)![0].length <= level);
  return lines.slice(start + 1, end === -1 ? undefined : end).join('\n');
}

/** Table rows of a markdown text, as trimmed cells (header and separator rows included). */
function tableRows(markdown: string): string[][] {
  return markdown
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .slice(1, line.endsWith('|') ? -1 : undefined)
        .split('|')
        .map((cell) => cell.trim()),
    );
}

/** The anchors GitHub gives a file's headings: lowercased, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The README's limit: it is the front door; the rest lives in docs/. */
const README_MAX_LINES = 250;

/**
 * Relative links of a markdown document (outside code) that lead nowhere: a file that does not
 * exist, or a heading (GitHub's anchor for it) that the linked markdown file, or the document
 * itself, does not have.
 */
function brokenLinks(document: string, markdown: string): string[] {
  const text = prose(markdown).replace(/`[^`\n]*`/g, '');
  const broken: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue;
    const [file, anchor] = target!.split('#') as [string, string | undefined];
    const resolved = file ? path.join(path.dirname(path.join(ROOT, document)), file) : path.join(ROOT, document);
    if (!existsSync(resolved)) {
      broken.push(`${target}: no such file`);
      continue;
    }
    const headings = file ? (resolved.endsWith('.md') ? readFileSync(resolved, 'utf8') : undefined) : markdown;
    if (anchor !== undefined && headings !== undefined && !anchorsOf(headings).has(anchor)) broken.push(`${target}: no such heading`);
  }
  return broken;
}

const restApi = read('docs/rest-api.md');

describe('docs/rest-api.md describes every REST endpoint', () => {
  it.each(routes.map((route) => [route.path, route] as const))('%s has its own section, naming each of its parameters', (routePath, route) => {
    const endpoint = section(restApi, `GET ${routePath}`);
    expect(endpoint.trim().length).toBeGreaterThan(0);
    for (const name of route.params) expect(restApi, `parameter ${name} of ${routePath}`).toContain(`\`${name}\``);
  });

  it('the scope table gives each endpoint the scope the route table requires', () => {
    const rows = tableRows(section(restApi, 'Authentication and scopes'));
    for (const route of routes) {
      const row = rows.find(([paths]) =>
        (paths ?? '').split(',').some((cell) => {
          const documented = cell.trim().replace(/`/g, '');
          return documented.endsWith('/*') ? route.path.startsWith(documented.slice(0, -1)) : documented === route.path;
        }),
      );
      expect(row, `no row of the scope table names ${route.path}`).toBeDefined();
      expect(row![1], route.path).toBe(route.scope ? `\`${route.scope}\`` : 'none (any valid key)');
    }
  });

  it('every scope a key can hold is described', () => {
    const concepts = read('docs/concepts.md');
    for (const scope of SCOPES) expect(concepts).toContain(`| \`${scope}\` |`);
  });
});

describe('docs/rest-api.md lists every error code with its status', () => {
  const rows = tableRows(section(restApi, 'Errors')).filter(([code]) => /^`[A-Z_]+`$/.test(code ?? ''));
  const documented = new Map(rows.map(([code, status]) => [code!.slice(1, -1), status ?? '']));

  it.each(Object.keys(ERRORS) as ErrorCode[])('%s', (code) => {
    expect(documented.has(code), `${code} is missing from the error table`).toBe(true);
    const statuses = documented
      .get(code)!
      .split(',')
      .map((status) => Number(status.trim()));
    expect(statuses[0], `${code}'s first status`).toBe(ERRORS[code].status);
  });

  it('lists no code the service does not answer with', () => {
    expect([...documented.keys()].filter((code) => !(code in ERRORS))).toEqual([]);
  });
});

describe('docs state the limits and definitions the code applies', () => {
  it('the quota table holds each tier’s limits', () => {
    const rows = tableRows(section(restApi, 'Rate limits'));
    const figures = (n: number) => n.toLocaleString('en-US');
    for (const [tier, limits] of Object.entries(TIER_LIMITS)) {
      const row = rows.find(([name]) => name?.toLowerCase().startsWith(tier));
      expect(row, `no row for the ${tier} tier`).toBeDefined();
      if (limits) expect(row!.slice(1, 4)).toEqual([figures(limits.minute), figures(limits.hour), figures(limits.day)]);
      else expect(row!.slice(1, 4)).toEqual(['no limit', 'no limit', 'no limit']);
    }
  });

  it('the successful outcomes are exactly those the metrics count', () => {
    const rows = tableRows(section(read('docs/concepts.md'), 'Outcomes'));
    const successful = rows.filter((row) => row[3] === 'yes').map(([value]) => value!.replace(/`/g, ''));
    expect(successful.sort()).toEqual([...SUCCESSFUL_OUTCOMES].sort());
  });
});

describe('the repository stands on its own', () => {
  // Spelt in pieces so that this file does not contain what it looks for.
  const outside = [['..', 'shared'].join('/'), ['', 'work', 'shared'].join('/')];

  it('no file refers to documents outside the repository', () => {
    const files = repositoryFiles().filter((file) => !file.split(path.sep).includes('node_modules') && !file.includes('/generated/'));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.filter((file) => {
      const full = path.join(ROOT, file);
      if (!statSync(full).isFile()) return false;
      const text = readFileSync(full, 'latin1');
      return outside.some((needle) => text.includes(needle));
    });
    expect(offenders).toEqual([]);
  });

  const documents = [
    'README.md',
    ...readdirSync(DOCS)
      .filter((file) => file.endsWith('.md'))
      .map((file) => `docs/${file}`),
  ];

  it.each(documents)('every relative link in %s resolves', (document) => {
    expect(brokenLinks(document, read(document))).toEqual([]);
  });

  it('the link check finds a missing file, a missing heading and a missing heading of another file', () => {
    const text = [
      '# Title',
      '[fine](#title) [fine too](docs/rest-api.md#errors) [and this](LICENSE)',
      '[gone](docs/no-such-page.md) [no heading](#no-such-heading) [none there](docs/rest-api.md#no-such-heading)',
      '`[in code](docs/also-gone.md)`',
      '```',
      '[in a block](docs/gone-too.md)',
      '```',
    ].join('\n');
    expect(brokenLinks('README.md', text)).toEqual([
      'docs/no-such-page.md: no such file',
      '#no-such-heading: no such heading',
      'docs/rest-api.md#no-such-heading: no such heading',
    ]);
  });
});

describe('the README is the front door', () => {
  const readme = read('README.md');
  const docs = readdirSync(DOCS).filter((file) => file.endsWith('.md'));

  it(`is at most ${README_MAX_LINES} lines`, () => {
    expect(readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('links to every page of docs/', () => {
    const linked = new Set([...prose(readme).matchAll(/\]\(docs\/([^)#\s]+)/g)].map(([, file]) => file));
    expect(docs.filter((file) => !linked.has(file))).toEqual([]);
  });

  it('neither it nor the docs speak of issues or decisions: they describe the project in its own words', () => {
    const wording = /\bissues? #?\d+|\bthe issue\b|\bthe issue's\b|\bdecisions? sections?\b|\bnumbered decisions\b/i;
    const offenders = ['README.md', ...docs.map((file) => `docs/${file}`)].flatMap((file) =>
      read(file)
        .split('\n')
        .map((line, i) => [file, i + 1, line] as const)
        .filter(([, , line]) => wording.test(line))
        .map(([name, n, line]) => `${name}:${n}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });
});
