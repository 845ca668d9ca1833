// A visitor whose browser runs no JavaScript (blocked, or the script never arrived on a bad
// connection): the prerendered form is a plain POST /leads and still works.
import type { Page } from '@playwright/test';
import { expect, test } from '../support/fixtures';
import { fillLead, leadForm } from '../support/visitor';

test.use({ javaScriptEnabled: false });

const refusalPage = (page: Page) => ({
  heading: page.getByRole('heading', { level: 1, name: 'Заявку не надіслано' }),
  problems: page.getByRole('alert'),
  name: page.getByRole('textbox', { name: "Ваше ім'я", exact: true }),
  phone: page.getByRole('textbox', { name: 'Номер телефону', exact: true }),
  yes: page.getByRole('radio', { name: 'Так', exact: true }),
  comment: page.getByRole('textbox', { name: "Коментар (необов'язково)", exact: true }),
  agreement: page.getByRole('checkbox', { name: /публічної оферти/ }),
  submit: page.getByRole('button', { name: 'Отримати безкоштовну консультацію' }),
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

test('a bad phone gets a Ukrainian error page that keeps the entries; corrected, it goes through', async ({ page, server, browserLog }) => {
  browserLog.allow(/Failed to load resource: .*\b4\d\d\b/);
  await page.goto('/');
  await fillLead(page, { name: 'Олена Коваль', phone: 'дзвоніть увечері', answer: 'Так', comment: 'Після 18:00' });
  const refused = page.waitForResponse((r) => new URL(r.url()).pathname === '/leads');

  await leadForm(page).submit.click();

  const response = await refused;
  expect(response.status()).toBeGreaterThanOrEqual(400);
  expect(response.status()).toBeLessThan(500);
  const refusal = refusalPage(page);
  await expect(page.locator('html')).toHaveAttribute('lang', 'uk');
  await expect(refusal.heading).toBeVisible();
  await expect(refusal.problems).toContainText('Номер телефону');
  await expect(refusal.name).toHaveValue('Олена Коваль');
  await expect(refusal.phone).toHaveValue('дзвоніть увечері');
  await expect(refusal.yes).toBeChecked();
  await expect(refusal.comment).toHaveValue('Після 18:00');
  await expect(refusal.agreement).toBeChecked();
  expect(await server.leads()).toEqual([]);

  await refusal.phone.fill('067 123 45 67');
  await refusal.submit.click();

  await page.waitForURL(`${server.baseURL}/thank-you`);
  const leads = await server.leads();
  expect(leads).toHaveLength(1);
  expect(leads[0]).toMatchObject({ name: 'Олена Коваль', phone: '067 123 45 67', confirmation: 'Так', comment: 'Після 18:00' });
});

test('without the agreement nothing is stored and the page says consent is needed', async ({ page, server, browserLog }) => {
  browserLog.allow(/Failed to load resource: .*\b4\d\d\b/);
  await page.goto('/');
  await fillLead(page, { name: 'Олена', phone: '+380 67 123 45 67', answer: 'Ні', agree: false });

  await leadForm(page).submit.click();

  const refusal = refusalPage(page);
  await expect(refusal.heading).toBeVisible();
  await expect(refusal.problems).toContainText('згода');
  await expect(refusal.agreement).not.toBeChecked();
  expect(await server.leads()).toEqual([]);
});

test('the refusal page asks the same yes/no question as the landing page', async ({ page, browserLog }) => {
  browserLog.allow(/Failed to load resource: .*\b4\d\d\b/);
  await page.goto('/');
  const question = await leadForm(page).question.getAttribute('aria-labelledby').then((id) =>
    page.locator(`[id="${id}"]`).innerText(),
  );
  await fillLead(page, { name: 'Олена', phone: 'немає', answer: 'Так' });

  await leadForm(page).submit.click();

  await expect(refusalPage(page).heading).toBeVisible();
  const asked = await page.getByRole('group').locator('legend').innerText();
  expect(asked.trim()).toBe(question.trim());
});
