// The other pages, and what every page must be: hydrated without a mismatch, with nothing fetched
// from another origin.
import type { Request } from '@playwright/test';
import { expect, test } from '../support/fixtures';
import { TEXT, fillLead, leadForm, openLanding, waitForHydration } from '../support/visitor';

const NOT_FOUND_LOG = /404 Error: User attempted to access non-existent route/;
const NOT_FOUND_LOAD = /Failed to load resource: .*404/;

test('an unknown path answers 404 with the not-found page, logs the path, and leads home', async ({ page, server, browserLog }) => {
  browserLog.allow(NOT_FOUND_LOG, NOT_FOUND_LOAD);

  const response = await page.goto('/programa/staryi-lyst');

  expect(response?.status()).toBe(404);
  await waitForHydration(page);
  await expect(page.getByRole('heading', { level: 1, name: TEXT.notFound })).toBeVisible();
  await expect
    .poll(() => browserLog.consoleErrors.filter((e) => NOT_FOUND_LOG.test(e) && e.includes('/programa/staryi-lyst')))
    .toHaveLength(1);
  const home = page.getByRole('link', { name: TEXT.home });
  await expect(home).toHaveAttribute('href', '/');

  await home.click();

  await expect(page).toHaveURL(`${server.baseURL}/`);
  await expect(page.getByRole('heading', { level: 1, name: TEXT.headline })).toBeVisible();
  await expect(leadForm(page).submit).toBeVisible();
});

test('the privacy policy: Back goes one step back, eight sections, today\'s date in the visitor\'s locale', async ({ page, server }) => {
  await page.goto('/thank-you');
  await page.goto('/privacy-policy');
  await waitForHydration(page);

  await expect(page.getByRole('heading', { level: 1, name: 'Політика конфіденційності' })).toBeVisible();
  await expect(page.getByRole('main').getByRole('heading', { level: 2 })).toHaveText([
    /Загальні положення/,
    /Яку інформацію ми збираємо/,
    /Як ми використовуємо інформацію/,
    /Захист інформації/,
    /Передача інформації третім особам/,
    /Ваші права/,
    /Зміни до політики/,
    /Контактна інформація/,
  ]);
  const today = await page.evaluate(() => new Date().toLocaleDateString('uk-UA'));
  await expect(page.getByText(/Дата останньої редакції/)).toHaveText(`Дата останньої редакції: ${today}`);

  await page.getByRole('button', { name: 'Назад' }).click();

  await expect(page).toHaveURL(`${server.baseURL}/thank-you`);
});

test('the thank-you page promises a call within 48 hours and asks to keep the phone on', async ({ page }) => {
  await page.goto('/thank-you');
  await waitForHydration(page);

  const main = page.getByRole('main');
  await expect(main.getByRole('heading', { level: 1 })).toContainText('Дякуємо');
  await expect(main).toContainText('протягом 48 годин');
  await expect(main).toContainText('тримайте телефон увімкненим');
});

test('no page asks another origin for anything (backend URL left at its default)', async ({ page, server, browserLog }) => {
  browserLog.allow(NOT_FOUND_LOG, NOT_FOUND_LOAD);
  const seen: Request[] = [];
  page.on('request', (request) => seen.push(request));
  const openEverything = async () => {
    for (const summary of await page.getByRole('contentinfo').locator('summary').all()) await summary.click();
  };

  for (const path of ['/thank-you', '/privacy-policy', '/no-such-page', '/']) {
    await page.goto(path);
    await waitForHydration(page);
    await openEverything();
  }
  await fillLead(page, { name: 'Олена', phone: '+380 67 123 45 67', answer: 'Так' });
  await leadForm(page).submit.click();
  await page.waitForURL('**/thank-you');
  await waitForHydration(page);

  const urls = seen.map((r) => r.url()).filter((url) => !url.startsWith('data:'));
  expect(urls.length).toBeGreaterThan(5);
  expect(urls.filter((url) => new URL(url).origin !== server.origin)).toEqual([]);
  expect(urls.filter((url) => new URL(url).pathname === '/rest/v1/CRN')).toHaveLength(1);
});

test('every page fits a 320 or 360 px wide phone without sideways scrolling', async ({ page, browserLog }) => {
  browserLog.allow(NOT_FOUND_LOG, NOT_FOUND_LOAD);
  for (const width of [320, 360]) {
    await page.setViewportSize({ width, height: 740 });
    for (const path of ['/', '/thank-you', '/privacy-policy', '/no-such-page']) {
      await page.goto(path);
      await waitForHydration(page);
      for (const summary of await page.getByRole('contentinfo').locator('summary').all()) await summary.click();
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `${path} at ${width} px`).toBeLessThanOrEqual(width);
    }
  }
});

test.describe('settings with characters that need escaping', () => {
  const brand = 'Життя & Надія "UA" <b>';
  const phone = "+380 (44) 123-45-67";
  const redirect = '/thank-you?from=form&lang="uk"';
  test.use({
    settings: { ZAYAVKA_BRAND: brand, ZAYAVKA_CONTACT_PHONE: phone, ZAYAVKA_REDIRECT_URL: redirect },
  });

  test('every route hydrates without an error and shows the brand literally', async ({ page, browserLog }) => {
    browserLog.allow(NOT_FOUND_LOG, NOT_FOUND_LOAD);
    for (const path of ['/', '/thank-you', '/privacy-policy', '/ne-isnuye']) {
      await page.goto(path);
      await waitForHydration(page);

      await expect(page.getByRole('banner').getByRole('link', { name: brand, exact: true })).toBeVisible();
      await expect(page.getByRole('banner')).toHaveText(brand);
      expect(await page.title()).toMatch(new RegExp(`— ${brand.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
      await expect(page.getByRole('contentinfo').getByText('© 2025')).toHaveText(`© 2025 ${brand}`);
      const footer = page.getByRole('contentinfo');
      await footer.getByText('Контакти', { exact: true }).click();
      await expect(footer.getByRole('link', { name: phone })).toHaveAttribute('href', 'tel:+380441234567');
      await expect(page.locator('b')).toHaveCount(0);
      expect(browserLog.pageErrors, `after ${path}`).toEqual([]);
    }
  });

  test('a lead sent with JavaScript goes to the redirect target exactly as configured', async ({ page, server }) => {
    await openLanding(page);
    await fillLead(page, { name: 'Олена', phone: '+380 67 123 45 67', answer: 'Так' });

    await leadForm(page).submit.click();

    await page.waitForURL((url) => url.pathname === '/thank-you' && url.search !== '');
    const url = new URL(page.url());
    expect(url.searchParams.get('from')).toBe('form');
    expect(url.searchParams.get('lang')).toBe('"uk"');
    expect(await server.leads()).toHaveLength(1);
  });
});
