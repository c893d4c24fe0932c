// The index of bench/results/: for every scenario ever measured, the latest report that measured
// it, with its figures at each size. The reports themselves are the declaration: the index is
// computed from their JSON, written by every `npm run bench` and `npm run soak` that reports into
// bench/results/, and checked by test/docs/bench-results.test.ts. A report that is no longer the
// latest for any scenario moves to bench/results/archive/ (the analyses, Markdown without JSON,
// stay where they are).
import fs from 'node:fs';
import path from 'node:path';

export const RESULTS_DIR = path.resolve(import.meta.dirname, 'results');
export const ARCHIVE = 'archive';
export const INDEX = 'README.md';

/** One scenario as one report measured it: its figures per dataset size. */
export interface Measured {
  scenario: string;
  /** `100k: 310 req/s, p50 25 ms`, or what the kind of measurement reports. */
  figures: string[];
}

/** A report in bench/results/ (its JSON), and when it ran. */
export interface Result {
  /** File name of the report's Markdown, relative to bench/results/. */
  file: string;
  /** When it started, in seconds (ranAt). */
  at: number;
  date: string;
  measured: Measured[];
}

const round = (n: number) => (n >= 100 ? Math.round(n) : Math.round(n * 10) / 10);

interface RowJson {
  scenario: { name: string };
  ours: { rps: number; p50: number; p99: number };
}
interface ExportJson {
  scenario: { name: string };
  rows: number;
  seconds: number;
  firstByteMs: number;
}
interface IsolationJson {
  quiet: { p99: number };
  attack: { p99: number };
}
/** The PostGraphile peer comparison (peer.ts): a run per document and server. */
interface PeerJson {
  rows: Array<{ document: string; server: string; figures: { rps: number; p50: number }; sameRequestAs?: string }>;
}
interface ReportJson {
  dataset: { size: { label: string } };
  rows?: RowJson[];
  exports?: ExportJson[];
  isolation?: IsolationJson;
  peer?: PeerJson;
}
interface FileJson {
  startedAt?: string;
  reports?: ReportJson[];
  options?: { minutes?: number; size?: string };
  verdicts?: Array<{ ok: boolean }>;
}

/** The scenarios a report's JSON measured, with their figures per size. */
export function measuredIn(json: FileJson): Measured[] {
  const byScenario = new Map<string, string[]>();
  const add = (scenario: string, figure: string) => {
    const figures = byScenario.get(scenario) ?? [];
    figures.push(figure);
    byScenario.set(scenario, figures);
  };
  for (const report of json.reports ?? []) {
    const size = report.dataset.size.label;
    for (const row of report.rows ?? []) add(row.scenario.name, `${size}: ${round(row.ours.rps)} req/s, p50 ${round(row.ours.p50)} ms`);
    for (const e of report.exports ?? [])
      add(e.scenario.name, `${size}: ${Math.round(e.rows / e.seconds).toLocaleString('en')} rows/s, first byte ${round(e.firstByteMs)} ms`);
    if (report.isolation)
      add(
        'isolation (a key at its quota with the costliest requests; another key measured)',
        `${size}: victim p99 ${round(report.isolation.attack.p99)} ms under attack, ${round(report.isolation.quiet.p99)} ms quiet`,
      );
    // (A request shown again under another document, REST's page + total, was measured once.)
    for (const row of report.peer?.rows.filter((r) => !r.sameRequestAs) ?? [])
      add(`peer ${row.document}: ${row.server}`, `${size}: ${round(row.figures.rps)} req/s, p50 ${round(row.figures.p50)} ms`);
  }
  // The soak (bench/soak.ts) writes no size reports: its options and verdicts.
  if (!json.reports && json.options?.minutes !== undefined && json.verdicts) {
    const failed = json.verdicts.filter((v) => !v.ok).length;
    add(
      'soak (faults of Redis and PostgreSQL under load)',
      `${json.options.size ?? ''} ${json.options.minutes} min: ${failed ? `${failed} verdicts failed` : 'every verdict passed'}`.trim(),
    );
  }
  return [...byScenario].map(([scenario, figures]) => ({ scenario, figures }));
}

/**
 * When a report's run started, in seconds: recorded in its JSON since 2026-11-28, and before that in
 * its Markdown's first lines (`(started 2026-11-24T01:52:34.259Z)`); a report with neither (the
 * soak's) counts from the start of the day in its name.
 */
function ranAt(jsonFile: string, json: FileJson, date: string): number {
  if (json.startedAt) return Date.parse(json.startedAt) / 1000;
  const markdown = jsonFile.replace(/\.json$/, '.md');
  const started = fs.existsSync(markdown) ? /\(started (\d{4}-\d{2}-\d{2}T[\d:.]+Z)\)/.exec(fs.readFileSync(markdown, 'utf8').slice(0, 2_000))?.[1] : undefined;
  return Date.parse(started ?? `${date}T00:00:00Z`) / 1000;
}

/** The reports with JSON in `dir` (bench/results/ or its archive), oldest first. */
export function readResults(dir: string): Result[] {
  if (!fs.existsSync(dir)) return [];
  const results = fs
    .readdirSync(dir)
    .filter((name) => /^\d{4}-\d{2}-\d{2}-.*\.json$/.test(name))
    .map((name): Result => {
      const json = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as FileJson;
      const at = ranAt(path.join(dir, name), json, name.slice(0, 10));
      return { file: name.replace(/\.json$/, '.md'), at, date: name.slice(0, 10), measured: measuredIn(json) };
    });
  // The date in the name first (a report may be committed days after it ran), then the time.
  return results.sort((a, b) => a.date.localeCompare(b.date) || a.at - b.at || a.file.localeCompare(b.file));
}

/** For each scenario, the latest result that measured it. */
export function latestPerScenario(results: Result[]): Map<string, { result: Result; measured: Measured }> {
  const latest = new Map<string, { result: Result; measured: Measured }>();
  for (const result of results) for (const measured of result.measured) latest.set(measured.scenario, { result, measured });
  return latest;
}

/** The index's text. */
export function indexText(results: Result[]): string {
  const latest = [...latestPerScenario(results)].sort(([a], [b]) => a.localeCompare(b, 'en'));
  const analyses = fs
    .readdirSync(RESULTS_DIR)
    .filter((name) => name.endsWith('.md') && name !== INDEX && !fs.existsSync(path.join(RESULTS_DIR, name.replace(/\.md$/, '.json'))))
    .sort();
  const cell = (text: string) => text.replaceAll('|', '\\|');
  return [
    '# Benchmark results',
    '',
    'Written by `npm run bench` and `npm run soak` (bench/results-index.ts): for every scenario, the latest',
    "report that measured it and its figures there (the service's own; the report compares them with the",
    `baseline of the same run). Reports no longer the latest for any scenario are in [${ARCHIVE}/](${ARCHIVE}/); the`,
    'analyses below them explain designs and measurements that are not runs of a scenario.',
    '',
    '| Scenario | Latest report | Figures |',
    '|---|---|---|',
    ...latest.map(([scenario, { result, measured }]) => `| ${cell(scenario)} | [${result.file}](${result.file}) | ${cell(measured.figures.join('; '))} |`),
    '',
    '## Analyses',
    '',
    ...analyses.map((name) => `- [${name}](${name})`),
    '',
  ].join('\n');
}

/**
 * Rewrites the index, moving reports that are no longer the latest for any scenario (their JSON and
 * Markdown) to the archive. Returns the files it moved; other files that mention them by path
 * need the new one (test/docs/bench-results.test.ts names any left behind).
 */
export function updateResultsIndex(): string[] {
  const results = readResults(RESULTS_DIR);
  const current = new Set([...latestPerScenario(results).values()].map(({ result }) => result.file));
  const moved: string[] = [];
  for (const result of results) {
    if (current.has(result.file)) continue;
    fs.mkdirSync(path.join(RESULTS_DIR, ARCHIVE), { recursive: true });
    for (const file of [result.file, result.file.replace(/\.md$/, '.json')]) {
      if (!fs.existsSync(path.join(RESULTS_DIR, file))) continue;
      const archived = path.join(RESULTS_DIR, ARCHIVE, file);
      fs.renameSync(path.join(RESULTS_DIR, file), archived);
      // A report names itself (the command line that wrote it): that name moves with it.
      if (file.endsWith('.md'))
        fs.writeFileSync(archived, fs.readFileSync(archived, 'utf8').replaceAll(`bench/results/${file}`, `bench/results/${ARCHIVE}/${file}`));
      moved.push(file);
    }
  }
  // (the index names only the latest reports, which stay: the list read before the moves serves)
  fs.writeFileSync(path.join(RESULTS_DIR, INDEX), indexText(results));
  return moved;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const moved = updateResultsIndex();
  console.log(`bench/results/${INDEX} written${moved.length ? `; archived: ${moved.join(', ')}` : ''}`);
}
