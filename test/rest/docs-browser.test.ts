// /docs in a real browser: Debian's chromium driven by playwright-core, against the real server.
// What a person reading the reference sees: the interactions list answered with data for the values
// the page pre-fills, the metrics series endpoint with its time zone, comparison and granularity
// parameters, and a request sent from the page ("Try it out") answered with buckets carrying the
// zone's offset. Skipped, and says so, where no chromium is installed
// (`apt-get install -y chromium`; .ci/run installs it).
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../helpers/app.js';
import { CHROMIUM_ARGS, chromiumFor } from '../helpers/browser.js';
import { databaseUrl, testDb } from '../helpers/db.js';
import { createCampaign, createClinic, createInteraction } from '../helpers/factories.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';

const CHROMIUM = chromiumFor('/docs in a browser');
/** How long one action may wait, and (with room to spare) one test. */
const PAGE_TIMEOUT = 120_000;
const TEST_TIMEOUT = 4 * PAGE_TIMEOUT;

describe.skipIf(!CHROMIUM)('/docs in a browser', () => {
  let server: ServerProcess;
  let browser: Browser;
  let key: string;
  let campaignName: string;
  let bookedId: string;

  beforeAll(async () => {
    const db = testDb();
    const clinic = await createClinic(db, { timezone: 'Europe/Madrid' });
    // 00:30 on 25 October in Madrid (+02:00), and 02:30 of the repeated hour (+01:00).
    await createInteraction(db, { clinicId: clinic.id, startedAt: new Date('2026-10-24T22:30:00.000Z') });
    await createInteraction(db, { clinicId: clinic.id, startedAt: new Date('2026-10-25T01:30:00.000Z') });
    // A campaign with two booked calls, and a call without campaign, for the breakdown.
    const campaign = await createCampaign(db, clinic.id, { name: 'Docs recall campaign' });
    campaignName = campaign.name;
    for (const minute of [0, 1]) {
      await createInteraction(db, {
        clinicId: clinic.id,
        campaignId: campaign.id,
        outcome: 'APPOINTMENT_BOOKED',
        startedAt: new Date(`2026-10-20T10:0${minute}:00.000Z`),
      });
    }
    // What the interactions list's pre-filled filters find (outcome, a 555 number, the word "appointment").
    const booked = await createInteraction(db, {
      clinicId: clinic.id,
      outcome: 'APPOINTMENT_BOOKED',
      phoneNumber: '+1 (512) 555-0147',
      summary: 'The patient booked an appointment for a check-up.',
    });
    bookedId = booked.id;
    key = await createKey(db, { clinicIds: [clinic.id] });
    server = await startServer({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 120_000);

  // Each test's pages, closed after it: pages left open keep rendering and slow the next test.
  let context: BrowserContext | undefined;
  const newPage = async (): Promise<Page> => {
    context ??= await browser.newContext();
    // On a loaded 2-core machine (CI runs other test files beside this one) a Swagger UI page can
    // take tens of seconds to settle; an action waits for as long as its test may run.
    context.setDefaultTimeout(PAGE_TIMEOUT);
    return context.newPage();
  };
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  afterAll(async () => {
    await browser?.close();
    server?.child.kill('SIGTERM');
    await server?.exited;
  });

  const authorize = async (page: Page) => {
    await page
      .getByRole('button', { name: /authorize/i })
      .first()
      .click();
    await page.locator('.auth-container input').first().fill(key);
    await page.locator('.auth-btn-wrapper button.authorize').click();
    await page.locator('.btn-done, button.close-modal').first().click();
  };

  it(
    'opens the front door (/): its style applies under its policy, its link leads to the reference, and the index links to each endpoint in it',
    async () => {
      const page = await newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      // A style the Content-Security-Policy blocked would be reported on the console.
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      await page.goto(`${server.baseUrl}/`);
      await expect(page.locator('h1').textContent()).resolves.toBe('Clinic Interaction Analytics API');
      await expect(page.locator('main').evaluate((main) => getComputedStyle(main.parentElement!).maxWidth)).resolves.not.toBe('none');
      await page.locator('a[href="/docs"]').click();
      await page.locator('#swagger-ui .opblock').first().waitFor();
      expect(new URL(page.url()).pathname).toBe('/docs');

      // The REST index's link to an endpoint opens the reference at that endpoint.
      const index = (await (await fetch(`${server.baseUrl}/api/v1`)).json()) as { data: { endpoints: Array<{ path: string; docs: string }> } };
      const summary = index.data.endpoints.find((endpoint) => endpoint.path === '/api/v1/metrics/summary')!;
      // (a page of its own: the reference reads the link's fragment when it loads, not on a change of it)
      const linked = await newPage();
      linked.on('pageerror', (error) => problems.push(error.message));
      await linked.goto(`${server.baseUrl}${summary.docs}`);
      const open = linked.locator('.opblock.is-open .opblock-summary-path').first();
      await open.waitFor();
      await expect(open.getAttribute('data-path')).resolves.toBe('/api/v1/metrics/summary');
      expect(problems).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'lists interactions with the values "Try it out" pre-fills: Execute as it is answers 200 with data',
    async () => {
      const page = await newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${server.baseUrl}/docs`);
      await authorize(page);

      const operation = page.locator('.opblock-get', { has: page.locator('[data-path="/api/v1/interactions"]') });
      await operation.locator('.opblock-summary').click();
      await operation.locator('tr[data-param-name="outcome"]').waitFor();
      // Nothing typed or chosen: the page's own values are sent.
      await operation.getByRole('button', { name: /execute/i }).click();

      const body = operation.locator('.live-responses-table .response-col_description pre').first();
      await body.waitFor();
      const url = new URL((await operation.locator('.request-url pre').first().textContent()) ?? '');
      expect(Object.fromEntries(url.searchParams)).toMatchObject({ outcome: 'APPOINTMENT_BOOKED', search: '555', q: 'appointment' });
      expect((await operation.locator('.live-responses-table tr.response .response-col_status').first().textContent())?.trim()).toBe('200');
      const answer = JSON.parse((await body.textContent()) ?? '');
      expect(answer.success).toBe(true);
      expect(answer.data.interactions.map((i: { id: string }) => i.id)).toEqual([bookedId]);
      expect(answer.meta.total).toBe(1);
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'shows /metrics/breakdown with group_by and campaign_id, and "Try it out" answers groups by campaign and outcome',
    async () => {
      const page = await newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${server.baseUrl}/docs`);
      await authorize(page);

      const operation = page.locator('.opblock-get', { has: page.locator('[data-path="/api/v1/metrics/breakdown"]') });
      await operation.locator('.opblock-summary').click();
      await operation.locator('tr[data-param-name="group_by"]').waitFor();
      for (const name of ['group_by', 'campaign_id', 'timezone', 'page', 'limit']) {
        await expect(operation.locator(`tr[data-param-name="${name}"]`).count()).resolves.toBe(1);
      }
      // (the row also has the select of the parameter's examples)
      await operation.locator('tr[data-param-name="group_by"] select[multiple]').selectOption(['campaign', 'outcome']);
      await operation.locator('tr[data-param-name="date_from"] input').fill('2026-10-01');
      await operation.locator('tr[data-param-name="date_to"] input').fill('2026-10-31');
      await operation.getByRole('button', { name: /execute/i }).click();

      const body = operation.locator('.live-responses-table .response-col_description pre').first();
      await body.waitFor();
      const answer = JSON.parse((await body.textContent()) ?? '');
      expect(answer.success).toBe(true);
      // Two booked calls of the campaign, and two without one (a tie: the campaign first, nulls last).
      expect(answer.data.groups[0]).toMatchObject({ campaign_name: campaignName, outcome: 'APPOINTMENT_BOOKED', total_interactions: 2 });
      expect(answer.meta.total).toBe(answer.data.groups.length);
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    'shows /metrics/series with its parameters, and "Try it out" answers buckets in the zone',
    async () => {
      const page = await newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${server.baseUrl}/docs`);

      // Authorize with the key, as a person would.
      await page
        .getByRole('button', { name: /authorize/i })
        .first()
        .click();
      await page.locator('.auth-container input').first().fill(key);
      await page.locator('.auth-btn-wrapper button.authorize').click();
      await page.locator('.btn-done, button.close-modal').first().click();

      const operation = page.locator('.opblock-get', { has: page.locator('[data-path="/api/v1/metrics/series"]') });
      await operation.locator('.opblock-summary').click();
      // (the parameters render after the click: wait for them before counting)
      await operation.locator('tr[data-param-name="granularity"]').waitFor();
      for (const name of ['granularity', 'timezone', 'compare', 'date_from', 'clinic_id']) {
        await expect(operation.locator(`tr[data-param-name="${name}"]`).count()).resolves.toBe(1);
      }
      // (the page opens every operation ready to try: no "Try it out" click needed)
      const fill = async (name: string, value: string) => {
        const row = operation.locator(`tr[data-param-name="${name}"]`);
        const select = row.locator('select');
        if (await select.count()) await select.selectOption(value);
        else await row.locator('input').fill(value);
      };
      await fill('granularity', 'hour');
      await fill('timezone', 'Europe/Madrid');
      await fill('date_from', '2026-10-25');
      await fill('date_to', '2026-10-25');
      await operation.getByRole('button', { name: /execute/i }).click();

      const body = operation.locator('.live-responses-table .response-col_description pre').first();
      await body.waitFor();
      const answer = JSON.parse((await body.textContent()) ?? '');
      expect(answer.success).toBe(true);
      // 25 hours that day: the repeated 02:00 is two buckets, one per offset.
      expect(answer.data.series).toHaveLength(25);
      expect(answer.data.series.filter((b: { total: number }) => b.total === 1).map((b: { start: string }) => b.start)).toEqual([
        '2026-10-25T00:00:00.000+02:00',
        '2026-10-25T02:00:00.000+01:00',
      ]);
      expect(errors).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
