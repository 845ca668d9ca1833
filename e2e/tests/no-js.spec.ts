// A visitor whose browser runs no JavaScript (blocked, or the script never arrived on a bad
// connection): the prerendered form is a plain POST /leads and still works.
import type { Page } from '@playwright/test';
import { expect, test } from '../support/fixtures';
import { TEXT, expectNoSeriousA11yViolations, fillLead, leadForm, openLanding } from '../support/visitor';

test.use({ javaScriptEnabled: false });

/** The answer to a refused POST /leads: the landing page itself, its form filled in and marked. */
const refusal = (page: Page) => ({
  ...leadForm(page),
  headline: page.getByRole('heading', { level: 1, name: TEXT.headline }),
  // The live region at the top of the form (the page has no toast without JavaScript).
  says: leadForm(page).form.getByRole('alert'),
});

test('a complete form lands on the redirect target and the lead is stored', async ({ page, server }) => {
  await page.goto('/');
  await fillLead(page, { name: ' Олена Коваль ', phone: '+380 67 123 45 67', answer: 'Так', comment: ' Вечором ' });

  await leadForm(page).submit.click();

  await page.waitForURL(`${server.baseURL}/thank-you`);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Дякуємо');
  const leads = await server.leads();
  expect(leads).toHaveLength(1);
  expect(leads[0]).toMatchObject({ name: 'Олена Коваль', phone: '+380 67 123 45 67', confirmation: 'Так', comment: 'Вечором' });
});

test('the landing page\'s own utm_* parameters reach the lead without JavaScript too', async ({ page, server }) => {
  await page.goto('/?utm_source=telegram&utm_medium=post');
  await fillLead(page, { name: 'Олена Коваль', phone: '+380 67 123 45 67', answer: 'Так' });
  await leadForm(page).submit.click();
  await page.waitForURL(`${server.baseURL}/thank-you`);
  const [lead] = await server.leads();
  expect(lead).toMatchObject({ utm_source: 'telegram', utm_medium: 'post', utm_campaign: null });
});

test('with an external redirect target the visitor lands on that site', async ({ page, startZayavka, standIns }) => {
  const partner = await standIns.otherSite('Сайт партнера');
  const target = `${partner.origin}/programa/dyakuyemo?from=zayavka`;
  const site = await startZayavka({ ZAYAVKA_REDIRECT_URL: target });
  await page.goto(`${site.baseURL}/`);
  await fillLead(page, { name: 'Олена Коваль', phone: '+380 67 123 45 67', answer: 'Ні' });

  await leadForm(page).submit.click();

  await page.waitForURL(target);
  await expect(page.getByRole('heading', { name: 'Сайт партнера' })).toBeVisible();
  expect(await site.leads()).toHaveLength(1);
});

test('a missing yes/no answer gets the landing page with the toast texts, the entries kept and the question marked', async ({ page, server, browserLog }) => {
  browserLog.allow(/Failed to load resource: .*\b4\d\d\b/);
  await page.goto('/');
  await fillLead(page, { name: 'Олена "><script>x</script>', phone: '+380 67 123 45 67', comment: 'Після 18:00' });
  const refused = page.waitForResponse((r) => new URL(r.url()).pathname === '/leads');

  await leadForm(page).submit.click();

  const response = await refused;
  expect(response.status()).toBe(422);
  expect(response.headers()['cache-control']).toBe('no-store');
  const form = refusal(page);
  await expect(form.headline).toBeVisible();
  await expect(form.says).toHaveText(`${TEXT.invalidTitle} ${TEXT.invalidText}`);
  await expect(form.question).toHaveAttribute('aria-invalid', 'true');
  await expect(form.question).toHaveAccessibleDescription('Оберіть, будь ласка, «Так» або «Ні».');
  await expect(form.yes).toBeFocused();
  await expect(form.name).toHaveValue('Олена "><script>x</script>');
  await expect(form.name).not.toHaveAttribute('aria-invalid');
  await expect(form.phone).toHaveValue('+380 67 123 45 67');
  await expect(form.comment).toHaveValue('Після 18:00');
  await expect(form.agreement).toBeChecked();
  await expect(form.yes).not.toBeChecked();
  expect(await server.leads()).toEqual([]);
  // axe runs in the page, so it is checked with JavaScript on (below): the same page.

  await form.yes.check();
  await form.submit.click();

  await page.waitForURL(`${server.baseURL}/thank-you`);
  const leads = await server.leads();
  expect(leads).toHaveLength(1);
  expect(leads[0]).toMatchObject({ name: 'Олена "><script>x</script>', confirmation: 'Так', comment: 'Після 18:00' });
});

test('a bad phone is marked with its own message and the entries kept; corrected, it goes through', async ({ page, server, browserLog }) => {
  browserLog.allow(/Failed to load resource: .*\b4\d\d\b/);
  await page.goto('/');
  await fillLead(page, { name: 'Олена Коваль', phone: 'дзвоніть увечері', answer: 'Так', comment: 'Після 18:00' });
  const refused = page.waitForResponse((r) => new URL(r.url()).pathname === '/leads');

  await leadForm(page).submit.click();

  expect((await refused).status()).toBe(422);
  const form = refusal(page);
  await expect(page.locator('html')).toHaveAttribute('lang', 'uk');
  await expect(form.headline).toBeVisible();
  await expect(form.says).toContainText('Перевірте номер телефону');
  await expect(form.phone).toHaveAccessibleDescription(/^Номер телефону має складатися з цифр/);
  await expect(form.phone).toBeFocused();
  await expect(form.name).toHaveValue('Олена Коваль');
  await expect(form.phone).toHaveValue('дзвоніть увечері');
  await expect(form.yes).toBeChecked();
  await expect(form.comment).toHaveValue('Після 18:00');
  await expect(form.agreement).toBeChecked();
  expect(await server.leads()).toEqual([]);

  await form.phone.fill('067 123 45 67');
  await form.submit.click();

  await page.waitForURL(`${server.baseURL}/thank-you`);
  const leads = await server.leads();
  expect(leads).toHaveLength(1);
  expect(leads[0]).toMatchObject({ name: 'Олена Коваль', phone: '067 123 45 67', confirmation: 'Так', comment: 'Після 18:00' });
});

test('without the agreement nothing is stored and the box is marked as needing consent', async ({ page, server, browserLog }) => {
  browserLog.allow(/Failed to load resource: .*\b4\d\d\b/);
  await page.goto('/');
  await fillLead(page, { name: 'Олена', phone: '+380 67 123 45 67', answer: 'Ні', agree: false });

  await leadForm(page).submit.click();

  const form = refusal(page);
  await expect(form.says).toHaveText(`${TEXT.invalidTitle} ${TEXT.invalidText}`);
  await expect(form.agreement).not.toBeChecked();
  await expect(form.agreement).toHaveAccessibleDescription('Щоб надіслати заявку, потрібна Ваша згода.');
  await expect(form.agreement).toBeFocused();
  await expect(form.no).toBeChecked();
  expect(await server.leads()).toEqual([]);
});

test.describe('with JavaScript on', () => {
  test.use({ javaScriptEnabled: true });

  test('the refusal page (sent before the app took over) throws no page error, loads no script and is axe clean', async ({ page, browserLog }) => {
    browserLog.allow(/Failed to load resource: .*\b4\d\d\b/);
    const errors: Error[] = [];
    page.on('pageerror', (error) => errors.push(error));
    await openLanding(page);
    await fillLead(page, { name: 'Олена', phone: '+380 67 123 45 67' });
    const refused = page.waitForResponse((r) => new URL(r.url()).pathname === '/leads');
    // As a browser whose script had not run yet: a plain form submission.
    await leadForm(page).form.evaluate((form: HTMLFormElement) => form.submit());
    expect((await refused).status()).toBe(422);

    const form = refusal(page);
    await expect(form.says).toHaveText(`${TEXT.invalidTitle} ${TEXT.invalidText}`);
    await expect(form.name).toHaveValue('Олена');
    await expect(page.locator('script[type="module"]')).toHaveCount(0);
    await expectNoSeriousA11yViolations(page, 'the refusal page with JavaScript on');
    expect(errors).toEqual([]);
  });
});
