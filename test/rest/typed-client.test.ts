// The OpenAPI document is usable by generators: openapi-typescript turns the document a running
// server serves into types, the example client (docs/examples/typed-client.ts, built on openapi-fetch)
// and the tour's snippet of it (docs/tour.md) type-check against them with the TypeScript compiler while
// misspelt variants do not, and the example, run against that server, prints the seeded data.
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_PATH } from '../../src/http/app-plugins.js';
import { createKey } from '../helpers/app.js';
import { databaseUrl, testDb } from '../helpers/db.js';
import { createClinic, createInteraction } from '../helpers/factories.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const EXAMPLE = path.join(ROOT, 'docs/examples/typed-client.ts');
const TOUR = 'docs/tour.md';
const TOUR_SECTION = '## A typed TypeScript client';
const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);

/** The compiler's settings for the example: strict, as a careful user's project would be. */
function tsconfig(files: string[]) {
  return {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noUncheckedIndexedAccess: true,
      // The generated api.d.ts is checked too, not skipped as a library.
      skipLibCheck: false,
      noEmit: true,
      types: ['node'],
    },
    files,
  };
}

/** Runs the TypeScript compiler on a project of the work folder; its exit code and diagnostics. */
async function typecheck(dir: string, project: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run(bin('tsc'), ['-p', project], { cwd: dir });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** The first TypeScript block of the tour's section on the typed client. */
async function tourSnippet(): Promise<string> {
  const tour = await readFile(path.join(ROOT, TOUR), 'utf8');
  const section = tour.indexOf(`\n${TOUR_SECTION}\n`);
  expect(section, `${TOUR} should have the section "${TOUR_SECTION}"`).toBeGreaterThan(0);
  const block = /\n```ts\n([\s\S]*?)\n```\n/.exec(tour.slice(section));
  expect(block, 'the section should show a ```ts block').not.toBeNull();
  return block![1]!;
}

/** The example with one mistake; fails the test if the example no longer has the text to change. */
function mistake(example: string, from: string, to: string): string {
  expect(example, `the example should contain ${from}`).toContain(from);
  return example.replace(from, to);
}

describe('a typed client generated from the served OpenAPI document', () => {
  let server: ServerProcess;
  let key: string;
  let dir: string;
  /** The seeded voice calls that the example's filters select, newest first. */
  let selected: string[];
  let withTranscript: string;

  beforeAll(async () => {
    const db = testDb();
    const clinic = await createClinic(db);
    const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);
    const booked = await createInteraction(db, {
      clinicId: clinic.id,
      outcome: 'APPOINTMENT_BOOKED',
      startedAt: hoursAgo(1),
      transcript: [
        { role: 'assistant', content: 'Good morning, how can I help?' },
        { role: 'user', content: 'I would like an appointment.' },
        { role: 'assistant', content: 'Tuesday at ten is free.' },
      ],
    });
    const callback = await createInteraction(db, { clinicId: clinic.id, outcome: 'CALLBACK_REQUESTED', startedAt: hoursAgo(2) });
    const older = await createInteraction(db, { clinicId: clinic.id, outcome: 'APPOINTMENT_BOOKED', startedAt: hoursAgo(30) });
    // Outside the example's filters: another outcome, another channel.
    await createInteraction(db, { clinicId: clinic.id, outcome: 'NO_ANSWER', startedAt: hoursAgo(3) });
    await createInteraction(db, { clinicId: clinic.id, channel: 'whatsapp', outcome: 'APPOINTMENT_BOOKED', startedAt: hoursAgo(4) });
    selected = [booked.id, callback.id, older.id];
    withTranscript = booked.id;
    key = await createKey(db, { clinicIds: [clinic.id] });

    dir = await mkdtemp(path.join(os.tmpdir(), 'typed-client-'));
    // The project's packages (openapi-fetch, @types/node, tsx), as a user's project has them installed.
    await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    server = await startServer({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' });

    // The tour's command: openapi-typescript (6) reading the document from the running server.
    await run(bin('openapi-typescript'), [`${server.baseUrl}${OPENAPI_PATH}`, '-o', 'api.d.ts'], { cwd: dir });
    await copyFile(EXAMPLE, path.join(dir, 'typed-client.ts'));
  }, 120_000);

  afterAll(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('generates types from the served document; the example client and the tour snippet type-check against them, misspelt variants do not', async () => {
    const types = await readFile(path.join(dir, 'api.d.ts'), 'utf8');
    expect(types).toContain('export interface paths');
    expect(types).toContain('listInteractions: {');

    const example = await readFile(EXAMPLE, 'utf8');
    await writeFile(path.join(dir, 'tour-snippet.ts'), await tourSnippet());
    await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig(['typed-client.ts', 'tour-snippet.ts'])));
    const good = await typecheck(dir, 'tsconfig.json');
    expect(good.output).toBe('');
    expect(good.code).toBe(0);

    // Each mistake is one a typed client exists to catch before a request is sent.
    const wrong = {
      'misspelt-parameter.ts': mistake(example, "{ channel: 'voice', outcome:", "{ chanel: 'voice', outcome:"),
      'unknown-value.ts': mistake(example, "{ channel: 'voice', outcome:", "{ channel: 'sms', outcome:"),
      'misspelt-field.ts': mistake(example, 'interaction.started_at}', 'interaction.startedAt}'),
      'unknown-path.ts': mistake(example, "'/api/v1/metrics/summary', {", "'/api/v1/metrics/totals', {"),
    };
    for (const [name, text] of Object.entries(wrong)) await writeFile(path.join(dir, name), text);
    await writeFile(path.join(dir, 'tsconfig.wrong.json'), JSON.stringify(tsconfig(Object.keys(wrong))));
    const bad = await typecheck(dir, 'tsconfig.wrong.json');
    expect(bad.code).not.toBe(0);
    const errorsOf = (file: string) =>
      bad.output
        .split('\n')
        .filter((line) => line.startsWith(`${file}(`))
        .join('\n');
    expect(errorsOf('misspelt-parameter.ts')).toMatch(/error TS2561: .*'chanel' does not exist/);
    expect(errorsOf('unknown-value.ts')).toMatch(/error TS2322: Type '"sms"' is not assignable to type '"voice" \| "whatsapp" \| undefined'/);
    expect(errorsOf('misspelt-field.ts')).toMatch(/error TS2551: Property 'startedAt' does not exist/);
    expect(errorsOf('unknown-path.ts')).toMatch(/error TS2345: Argument of type '"\/api\/v1\/metrics\/totals"' is not assignable/);
  }, 90_000);

  it('runs the example client against the server: it prints the seeded interactions and the summary', async () => {
    // (tsx strips the types: no build step)
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'typed-client.ts'], {
      cwd: dir,
      env: { ...process.env, API_URL: server.baseUrl, API_KEY: key },
    });
    const lines = stdout.trim().split('\n');
    // Voice calls that booked or asked for a call back (the comma-separated outcome list reached the server).
    expect(lines[0]).toBe('interactions: 3 shown of 3');
    const listed = lines.slice(1, 4).map((line) => line.trim().split(' '));
    expect(listed.map(([, id]) => id)).toEqual(selected);
    for (const [startedAt, , channel] of listed) {
      expect(startedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(channel).toBe('voice');
    }
    expect(lines[1]).toContain('APPOINTMENT_BOOKED (60 s)');
    expect(lines[2]).toContain('CALLBACK_REQUESTED (60 s)');
    expect(lines[4]).toBe(`transcript of ${withTranscript}: 3 entries`);
    // The clinic's voice calls in the last 30 days: 2 booked of 4.
    expect(lines[5]).toBe('summary: 4 calls, 2 appointments, success rate 50');
    expect(lines).toHaveLength(6);
  }, 60_000);
});
