// Issue 24, the flows that need a browser: no person is ever dropped or held, and a headless browser
// that loads the page and sends at once is held for review, never in the call list. Where each lead
// ends up is read with the operator's own `zayavka leads export` (`held`: null in the call list, else
// the reasons). The abuse settings are the server's defaults here (a quick fill, bursts), unlike in
// the other specs.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from '@playwright/test';
import { BOT_LAUNCH, PERSON_LAUNCH, PERSON_USER_AGENT } from '../support/browsers';
import { expect, test } from '../support/fixtures';
import { TEXT, isLeadCall, leadForm, statusToast, waitForHydration } from '../support/visitor';

test.use({ settings: { ZAYAVKA_MIN_FILL_SECONDS: null, ZAYAVKA_RATE_LIMIT_PER_MINUTE: null } });

const person = { name: 'Олена Коваль', phone: '+380 67 123 45 67' } as const;
/** The browser's own look of these tests (playwright.config.ts), for contexts a test makes itself. */
const PHONE_SCREEN = { viewport: { width: 360, height: 740 }, locale: 'uk-UA' } as const;

/**
 * Name and phone as the browser's autofill puts them in: both values at once, each with the input
 * and change events autofill fires, in one task. (Run by the test, so it works with JavaScript off.)
 */
async function autofill(page: Page, entries: { name: string; phone: string }): Promise<void> {
  await page.evaluate(({ name, phone }) => {
    const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
    for (const [field, value] of [
      ['name', name],
      ['phone', phone],
    ]) {
      const input = document.querySelector<HTMLInputElement>(`form[action="/leads"] input[name="${field}"]`)!;
      setValue.call(input, value);
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.dispatchEvent(new Event('change', { bubbles: true }));
    }
  }, entries);
}

/**
 * The server's default minimum fill time (ZAYAVKA_MIN_FILL_SECONDS): a lead sent sooner after the
 * page loaded carries its "too fast" signal, which must never hold a person's lead on its own.
 */
const MIN_FILL_MS = 3_000;

/**
 * Autofill, pick "Так", send, as fast as a person with autofill does (about a second); asserts the
 * send came sooner than the minimum fill time, so the server did see a "too fast" fill.
 */
async function sendAtOnce(page: Page, entries: { name: string; phone: string } = person): Promise<void> {
  const ready = Date.now();
  await autofill(page, entries);
  await leadForm(page).yes.check();
  await leadForm(page).submit.click();
  const elapsed = Date.now() - ready;
  test.info().annotations.push({ type: 'sent after', description: `${elapsed} ms` });
  expect(elapsed, 'sent sooner than the minimum fill time').toBeLessThan(MIN_FILL_MS);
}

/** What the visitor sees of an accepted lead: the thanks, then the thank-you page. */
async function expectThanked(page: Page, baseURL: string): Promise<void> {
  await expect(statusToast(page)).toContainText(TEXT.successTitle);
  await page.waitForURL(`${baseURL}/thank-you`);
}

test('the browser of these tests looks like a person\'s: navigator.webdriver false, no "HeadlessChrome"', async ({ page }) => {
  await page.goto('/');
  expect(await page.evaluate(() => navigator.webdriver)).toBe(false);
  expect(await page.evaluate(() => navigator.userAgent)).not.toContain('Headless');
});

test.describe('people are never held', () => {
  test('JavaScript on: autofill, "Так" and send at once: thanked, and the lead is in the call list', async ({ page, server }) => {
    await page.goto('/');
    await waitForHydration(page);
    const call = page.waitForRequest(isLeadCall);

    await sendAtOnce(page);

    expect((await call).headers()['x-zayavka-proof']).toMatch(/\S/);
    await expectThanked(page, server.baseURL);
    expect(await server.leads()).toMatchObject([{ ...person, confirmation: 'Так', held: null }]);
  });

  test('the same person twice (sent, came back, sent again): both leads in the call list', async ({ page, server }) => {
    await page.goto('/');
    await waitForHydration(page);
    await sendAtOnce(page);
    await expectThanked(page, server.baseURL);

    await page.goBack();
    await waitForHydration(page);
    await sendAtOnce(page);
    await expectThanked(page, server.baseURL);

    const leads = await server.leads();
    expect(leads).toHaveLength(2);
    expect(leads.map((lead) => lead.held)).toEqual([null, null]);
  });

  test.describe('JavaScript off', () => {
    test.use({ javaScriptEnabled: false });

    test('the plain form, autofilled and sent at once, lands on the thank-you page and in the call list', async ({ page, server }) => {
      await page.goto('/');

      await sendAtOnce(page);

      await page.waitForURL(`${server.baseURL}/thank-you`);
      expect(await server.leads()).toMatchObject([{ ...person, held: null }]);
    });
  });

  /** A browser whose profile blocks every cookie, as a person can set it in Chrome; closed after `use`. */
  async function withCookiesBlocked(
    launch: (profile: string) => Promise<BrowserContext>,
    use: (context: BrowserContext) => Promise<void>,
  ): Promise<void> {
    const profile = await mkdtemp(path.join(tmpdir(), 'zayavka-no-cookies-'));
    await mkdir(path.join(profile, 'Default'));
    await writeFile(
      path.join(profile, 'Default', 'Preferences'),
      JSON.stringify({ profile: { default_content_setting_values: { cookies: 2 } } }),
    );
    let context: BrowserContext | undefined;
    try {
      context = await launch(profile);
      await use(context);
    } finally {
      await context?.close();
      await rm(profile, { recursive: true, force: true });
    }
  }

  for (const javaScriptEnabled of [true, false]) {
    test(`cookies blocked in the browser settings, JavaScript ${javaScriptEnabled ? 'on' : 'off'}: thanked, and the lead is in the call list`, async ({
      playwright,
      server,
      browserLog,
    }) => {
      // Without JavaScript the proof travels in the form itself, in the field the server fills in
      // (docs/decisions/0066).
      await withCookiesBlocked(
        (profile) =>
          playwright.chromium.launchPersistentContext(profile, {
            ...PERSON_LAUNCH,
            ...PHONE_SCREEN,
            userAgent: PERSON_USER_AGENT,
            javaScriptEnabled,
          }),
        async (context) => {
          browserLog.watch(context);
          const page = await context.newPage();
          await page.goto(`${server.baseURL}/`);
          if (javaScriptEnabled) await waitForHydration(page);
          // Blocked indeed: neither the server's cookie nor one written in the page is kept.
          expect(await context.cookies()).toEqual([]);
          expect(await page.evaluate(() => ((document.cookie = 'probe=1'), document.cookie))).toBe('');

          await sendAtOnce(page);

          if (javaScriptEnabled) await expect(statusToast(page)).toContainText(TEXT.successTitle);
          await page.waitForURL(`${server.baseURL}/thank-you`);
          expect(await context.cookies()).toEqual([]);
          expect(await server.leads()).toMatchObject([{ ...person, held: null }]);
        },
      );
    });
  }

  test('a slow phone (slow network, slow processor), sent as soon as the form works: thanked, in the call list', async ({ page, server }) => {
    test.slow();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    // About DevTools' "Slow 3G": every request waits 400 ms, 50 KB/s each way.
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 400,
      downloadThroughput: 50 * 1024,
      uploadThroughput: 50 * 1024,
    });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await page.goto('/');
    await waitForHydration(page);
    const call = page.waitForRequest(isLeadCall);

    // The page-load proof is still on its way: the lead waits for it (a few seconds at most).
    await autofill(page, person);
    await leadForm(page).yes.check();
    await leadForm(page).submit.click();

    expect((await call).headers()['x-zayavka-proof']).toMatch(/\S/);
    await expectThanked(page, server.baseURL);
    expect(await server.leads()).toMatchObject([{ ...person, held: null }]);
  });
});

test('a headless browser as it comes, loading the page and sending at once: thanked the same, but held for review', async ({ playwright, server, browserLog }) => {
  const bot = await playwright.chromium.launch(BOT_LAUNCH);
  try {
    // The test runner would give a new context the person's user agent of playwright.config.ts:
    // give it the one the browser itself sends.
    const { userAgent } = await (await bot.newBrowserCDPSession()).send('Browser.getVersion');
    const context = await bot.newContext({ ...PHONE_SCREEN, userAgent });
    browserLog.watch(context);
    const page = await context.newPage();
    await page.goto(`${server.baseURL}/`);
    await waitForHydration(page);
    expect(await page.evaluate(() => navigator.webdriver)).toBe(true);
    expect(await page.evaluate(() => navigator.userAgent)).toContain('HeadlessChrome');
    const call = page.waitForRequest(isLeadCall);

    await sendAtOnce(page, { name: 'Bot Botenko', phone: '+380 50 111 22 33' });

    expect((await call).headers()['x-zayavka-flags']).toBe('webdriver');
    // The same answer as a person gets: nothing to tune a bot against.
    await expectThanked(page, server.baseURL);
    const leads = await server.leads();
    expect(leads).toHaveLength(1);
    expect(leads[0].held).toContain('automation');
  } finally {
    await bot.close();
  }
});
