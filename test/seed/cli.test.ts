// `seed` on the test database: in-process through `run`, and once as an operator runs it
// (`npm run cli -- seed`, a child process).
import { describe, expect, it } from 'vitest';
import { generateDemoData } from '../../src/seed/generate.js';
import { type CliRun, runCli, spawnCli } from '../helpers/cli.js';
import { sql } from '../helpers/db.js';

const cli = (...args: string[]) => runCli(args);

function json(run: CliRun): Record<string, unknown> {
  try {
    return JSON.parse(run.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(`stdout is not one JSON document (exit ${run.code}):\n${run.stdout}\nstderr:\n${run.stderr}`);
  }
}

async function interactionsOf(clinicIds: string[]): Promise<number> {
  const [row] = await sql<{ n: string }>('SELECT count(*) AS n FROM interactions WHERE clinic_id = ANY($1::uuid[])', [clinicIds]);
  return Number(row!.n);
}

describe('npm run cli -- seed (a process)', () => {
  it('seeds and prints the summary, exit 0', async () => {
    const run = await spawnCli(['seed', '--clinics', '1', '--interactions', '20', '--days', '2', '--seed', 'cli-seed-process', '--end-date', '2026-02-01']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(
      /^Seeded 1 sandbox clinics, 5 campaigns and 20 interactions \(seed "cli-seed-process", 2 days ending 2026-02-01T00:00:00.000Z\) in \d+\.\d s; svc_test_ keys see them\.\n$/,
    );
    const clinicIds = generateDemoData({ clinics: 1, interactions: 20, seed: 'cli-seed-process' }).clinics.map((c) => c.id);
    expect(await interactionsOf(clinicIds)).toBe(20);
  });
});

describe('seed', () => {
  it('seeds the requested counts and prints one JSON document with --json', async () => {
    const seed = 'cli-seed-json';
    const before = Date.now();
    const run = await cli('--json', 'seed', '--clinics', '2', '--interactions', '500', '--days', '10', '--seed', seed);
    const after = Date.now();
    expect(run.code, run.stderr).toBe(0);
    const out = json(run);
    expect(out).toEqual({ clinics: 2, campaigns: 10, interactions: 500, environment: 'sandbox', seed, days: 10, end_date: expect.any(String) });
    const endDate = new Date(out.end_date as string);
    expect(endDate.toISOString()).toBe(out.end_date);
    expect(endDate.getTime()).toBeGreaterThanOrEqual(before);
    expect(endDate.getTime()).toBeLessThanOrEqual(after);

    // Ids depend only on the seed and the counts, so the test knows which clinics the command made.
    const clinicIds = generateDemoData({ clinics: 2, interactions: 500, days: 10, seed, endDate }).clinics.map((c) => c.id);
    const clinics = await sql<{ id: string }>('SELECT id FROM clinics WHERE id = ANY($1::uuid[])', [clinicIds]);
    expect(clinics).toHaveLength(2);
    expect(await interactionsOf(clinicIds)).toBe(500);
    const [range] = await sql<{ min: Date; max: Date }>('SELECT min(started_at), max(ended_at) AS max FROM interactions WHERE clinic_id = ANY($1::uuid[])', [
      clinicIds,
    ]);
    expect(range!.min.getTime()).toBeGreaterThanOrEqual(endDate.getTime() - 10 * 86_400_000);
    expect(range!.max.getTime()).toBeLessThanOrEqual(endDate.getTime());
  });

  it('prints a human summary without --json, and a numeric seed comes back as a number', async () => {
    const run = await cli('seed', '--clinics', '1', '--interactions', '50', '--days', '3', '--seed', '918273', '--end-date', '2026-01-10T00:00:00Z');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Seeded 1 sandbox clinics, 5 campaigns and 50 interactions \(seed 918273, 3 days ending 2026-01-10T00:00:00.000Z\)/);
    const again = await cli(
      '--json',
      'seed',
      '--clinics',
      '1',
      '--interactions',
      '50',
      '--days',
      '3',
      '--seed',
      '918273',
      '--end-date',
      '2026-01-10T00:00:00Z',
    );
    expect(again.code, again.stderr).toBe(0);
    expect(json(again)).toMatchObject({ seed: 918273, end_date: '2026-01-10T00:00:00.000Z', interactions: 50 });
    const clinicIds = generateDemoData({ clinics: 1, interactions: 50, seed: 918273 }).clinics.map((c) => c.id);
    expect(await interactionsOf(clinicIds)).toBe(50);
  });

  it.each([
    [['--interactions', '0'], '--interactions'],
    [['--interactions', '20000001'], '--interactions'],
    [['--clinics', 'many'], '--clinics'],
    [['--days', '3651'], '--days'],
    [['--days', '1.5'], '--days'],
    [['--end-date', 'yesterday'], '--end-date'],
  ])('rejects %j with an error naming %s', async (args, option) => {
    const run = await cli('--json', 'seed', ...args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(option);
    expect(String(json(run).error)).toContain(option);
  });
});
