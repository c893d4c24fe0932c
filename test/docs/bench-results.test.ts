// bench/results/: its index names, for every scenario, the latest report that measured it (as
// `npm run bench` writes it), no superseded report is left beside the current ones, and every
// bench/results/ path the repository mentions exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INDEX, indexText, latestPerScenario, measuredIn, RESULTS_DIR, type Result, readResults } from '../../bench/results-index.js';
import { ROOT, repositoryFiles } from '../helpers/repository.js';

describe('bench/results/', () => {
  it('reads the scenarios of a report and their figures at each size', () => {
    const measured = measuredIn({
      reports: [
        {
          dataset: { size: { label: '100k' } },
          rows: [{ scenario: { name: 'interactions first page' }, ours: { rps: 452.6, p50: 19, p99: 40 } }],
          exports: [{ scenario: { name: 'export interactions CSV' }, rows: 100_000, seconds: 2, firstByteMs: 8.44 }],
          isolation: { quiet: { p99: 16.8 }, attack: { p99: 31.25 } },
          peer: {
            rows: [
              { document: 'page', server: 'PostGraphile', figures: { rps: 541.7, p50: 17 } },
              { document: 'page + total', server: 'ours REST', figures: { rps: 233, p50: 39 }, sameRequestAs: 'page' },
            ],
          },
        },
        { dataset: { size: { label: '1m' } }, rows: [{ scenario: { name: 'interactions first page' }, ours: { rps: 1234.4, p50: 8.26, p99: 20 } }] },
      ],
    });
    expect(measured).toEqual([
      { scenario: 'interactions first page', figures: ['100k: 453 req/s, p50 19 ms', '1m: 1234 req/s, p50 8.3 ms'] },
      { scenario: 'export interactions CSV', figures: ['100k: 50,000 rows/s, first byte 8.4 ms'] },
      {
        scenario: 'isolation (a key at its quota with the costliest requests; another key measured)',
        figures: ['100k: victim p99 31.3 ms under attack, 16.8 ms quiet'],
      },
      { scenario: 'peer page: PostGraphile', figures: ['100k: 542 req/s, p50 17 ms'] },
    ]);
  });

  it('takes, for each scenario, the latest result that measured it', () => {
    const result = (file: string, at: number, scenarios: string[]): Result => ({
      file,
      at,
      date: file.slice(0, 10),
      measured: scenarios.map((scenario) => ({ scenario, figures: [] })),
    });
    const older = result('2026-11-20-a.md', 1, ['x', 'y']);
    const newer = result('2026-11-21-b.md', 2, ['x']);
    const latest = latestPerScenario([older, newer]);
    expect(latest.get('x')?.result.file).toBe('2026-11-21-b.md');
    expect(latest.get('y')?.result.file).toBe('2026-11-20-a.md');
  });

  it('has an index that is current: the latest report per scenario, as `npm run bench` writes it', () => {
    const results = readResults(RESULTS_DIR);
    expect(results.length).toBeGreaterThan(5);
    expect(readFileSync(path.join(RESULTS_DIR, INDEX), 'utf8')).toBe(indexText(results));
  });

  it('keeps beside the index only reports that are the latest for some scenario (the others are in archive/)', () => {
    const results = readResults(RESULTS_DIR);
    const current = new Set([...latestPerScenario(results).values()].map(({ result }) => result.file));
    expect(results.map((result) => result.file).filter((file) => !current.has(file))).toEqual([]);
    expect(readdirSync(path.join(RESULTS_DIR, 'archive')).length).toBeGreaterThan(0);
  });

  it('has every report the repository mentions by its bench/results/ path', () => {
    const listed = repositoryFiles().filter((file) => /\.(md|ts|mjs|sh|ya?ml)$/.test(file));
    const missing = listed.flatMap((file) =>
      [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/bench\/results\/((?:archive\/)?\d{4}-\d{2}-\d{2}-[^\s`)\]'",;<>*]+\.(?:md|json))/g)]
        .map((match) => match[1]!)
        .filter((name) => !existsSync(path.join(RESULTS_DIR, name)))
        .map((name) => `${file}: bench/results/${name}`),
    );
    expect(missing).toEqual([]);
  });
});
