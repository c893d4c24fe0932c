// GraphiQL in a real browser: Debian's chromium driven by playwright-core. What a person opening
// /graphql sees: the example query in the editor, a key in the headers, and "Run" answering with
// their clinic's data - with every request the page makes going to the server itself (it works
// offline). Against the real server as a process (a key typed into the headers editor, as a user
// would: the process serves no demo key with DATABASE_URL set), and against the app with a demo key
// (pre-filled: Run works without typing). Skipped, and says so, where no chromium is installed
// (`apt-get install -y chromium`; .ci/run installs it).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, testApp } from '../helpers/app.js';
import { CHROMIUM_ARGS, chromiumFor } from '../helpers/browser.js';
import { databaseUrl, testDb } from '../helpers/db.js';
import { createClinic, createInteraction } from '../helpers/factories.js';
import { type HttpServer, serveOverHttp } from '../helpers/http-server.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';

const CHROMIUM = chromiumFor('GraphiQL in a browser');

const INTERACTIONS = 3;
/** How long one action or wait may take on a loaded 2-core machine (CI runs other test files beside this one), and one test. */
const PAGE_TIMEOUT = 120_000;
const TEST_TIMEOUT = 4 * PAGE_TIMEOUT;

/** An editor's text as shown (Monaco renders spaces as no-break spaces, one element per line). */
const shownText = async (page: Page, selector: string) => ((await page.locator(selector).first().textContent()) ?? '').replace(/\s+/g, ' ');

/** Waits until the element's shown text contains `text`, and returns it. */
async function waitForText(page: Page, selector: string, text: string): Promise<string> {
  await page.waitForFunction(([s, t]) => (document.querySelector(s!)?.textContent ?? '').replace(/\s+/g, ' ').includes(t!), [selector, text] as const, {
    timeout: PAGE_TIMEOUT,
  });
  return shownText(page, selector);
}

const QUERY_EDITOR = '.graphiql-query-editor';
const HEADERS_EDITOR = '.graphiql-editor-tool .graphiql-editor:not(.hidden)';
const RESPONSE = '.graphiql-response';

describe.skipIf(!CHROMIUM)('GraphiQL in a browser', () => {
  let context: BrowserContext;
  let profile: string;
  let server: ServerProcess;
  let inProcess: HttpServer;
  let key: string;
  let clinicName: string;

  beforeAll(async () => {
    const db = testDb();
    const clinic = await createClinic(db, { name: `GraphiQL clinic ${Date.now()}` });
    clinicName = clinic.name;
    for (let i = 0; i < INTERACTIONS; i++) {
      await createInteraction(db, { clinicId: clinic.id, startedAt: new Date(Date.now() - (i + 1) * 3_600_000) });
    }
    // The key sees only this clinic, so the totals are this test's own.
    key = await createKey(db, { clinicIds: [clinic.id] });
    server = await startServer({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' });
    inProcess = await serveOverHttp(testApp(db, { demoKey: key }));
    profile = await mkdtemp(path.join(os.tmpdir(), 'graphiql-browser-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 1400 },
    });
    context.setDefaultTimeout(PAGE_TIMEOUT);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
    server?.child.kill('SIGTERM');
    await server?.exited;
  });

  /** Opens GraphiQL in a new page; returns it with every URL it (and its workers) requested and its errors. */
  async function open(baseUrl: string) {
    const page = await context.newPage();
    const requested: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('worker', (worker) => requested.push(worker.url()));
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${baseUrl}/graphql`);
    return { page, requested, errors };
  }

  /** Every request went to the server itself (data: URLs are inline, not requests). */
  function expectOnlySameOrigin(baseUrl: string, requested: string[]) {
    const origin = new URL(baseUrl).origin;
    const elsewhere = requested.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin);
    expect(elsewhere).toEqual([]);
    // The page, its files, the editor's three workers and GraphiQL's requests for the schema and the query.
    for (const file of ['/graphql', '/graphiql/graphiql.js', '/graphiql/graphiql.css', '/graphiql/start.js', '/graphiql/graphql.worker.js']) {
      expect(requested, file).toContain(`${origin}${file}`);
    }
  }

  async function runAndReadResult(page: Page): Promise<string> {
    await page.locator('button.graphiql-execute-button').click();
    return waitForText(page, RESPONSE, '"totalInteractions"');
  }

  it(
    'opens with the example query; with a key typed into the headers, Run shows the clinic data; nothing loads from elsewhere',
    async () => {
      const { page, requested, errors } = await open(server.baseUrl);
      const query = await waitForText(page, QUERY_EDITOR, 'query Overview');
      expect(query).toContain('metricsSummary { totalInteractions');
      expect(query).not.toContain('Welcome to');

      // No demo key in this server: the placeholder, replaced by the key as a user would.
      await page.locator('button[data-name="headers"]').click();
      expect(await waitForText(page, HEADERS_EDITOR, 'Bearer <your API key>')).toContain('"Authorization": "Bearer <your API key>"');
      await page.locator(`${HEADERS_EDITOR} .monaco-editor`).click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.press('Delete');
      // (typed key by key: the editor closes braces and quotes, and typing the closing one steps over it)
      await page.keyboard.type(JSON.stringify({ Authorization: `Bearer ${key}` }));
      expect((await waitForText(page, `${HEADERS_EDITOR} .view-lines`, key)).trim()).toBe(`{"Authorization":"Bearer ${key}"}`);

      const result = await runAndReadResult(page);
      expect(result).toContain(`"totalInteractions": ${INTERACTIONS}`);
      expect(result).toContain(`"name": "${clinicName}"`);
      expect(result).not.toContain('"errors"');
      expectOnlySameOrigin(server.baseUrl, requested);
      // Before the key was typed, GraphiQL's schema request with the placeholder was refused: the
      // only errors (none from a script or the Content-Security-Policy).
      expect(errors.filter((error) => !error.includes('status of 401'))).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'opens with the demo key in the headers: Run answers at once',
    async () => {
      const { page, requested, errors } = await open(inProcess.baseUrl);
      await waitForText(page, QUERY_EDITOR, 'query Overview');
      await page.locator('button[data-name="headers"]').click();
      expect(await waitForText(page, HEADERS_EDITOR, key)).toContain(`"Authorization": "Bearer ${key}"`);

      const result = await runAndReadResult(page);
      expect(result).toContain(`"totalInteractions": ${INTERACTIONS}`);
      expect(result).toContain(`"name": "${clinicName}"`);
      expectOnlySameOrigin(inProcess.baseUrl, requested);
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
