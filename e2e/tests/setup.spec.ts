// The first start as a newcomer meets it (issue 18): `zayavka serve` on a fresh database logs a
// one-time setup link; opening it shows the form that creates the first operator, who lands signed
// in in the inbox; the link then answers 404. No operator is made before the start here.
import { expect, test } from '../support/fixtures';
import { expectNoA11yViolations, header } from '../support/inbox';

// The site's "not found" page, as any unknown path gets it: the browser logs the 404 load, and the
// page's router logs the unknown route.
const NOT_FOUND_LOAD = /Failed to load resource: .*\b404\b.*\/admin\/setup\?token=/;
const NOT_FOUND_LOG = /404 Error: User attempted to access non-existent route: \/admin\/setup/;

const FIRST = { email: 'first@example.org', password: 'pershyi-parol-42' };

/** The setup link in the server's log. */
function setupLink(log: string): string {
  const link = /(http:\/\/\S+\/admin\/setup\?token=[\w-]+)/.exec(log)?.[1];
  expect(link, `a setup link in the log:\n${log}`).toBeTruthy();
  return link!;
}

test('the logged link creates the first operator, who lands signed in; opened again it is not found', async ({ page, server, browserLog }) => {
  browserLog.allow(NOT_FOUND_LOAD, NOT_FOUND_LOG);
  const log = server.log();
  const link = setupLink(log);
  expect(link.startsWith(`${server.baseURL}/admin/setup?token=`)).toBe(true);
  expect(log).toContain('zayavka admin add-user EMAIL');

  await page.goto(link);
  await expect(page.getByRole('heading', { level: 1, name: 'Перший запуск' })).toBeVisible();
  await expectNoA11yViolations(page, 'the setup screen');

  await page.getByRole('textbox', { name: 'Електронна пошта', exact: true }).fill(FIRST.email);
  await page.getByLabel(/^Пароль \(/).fill(FIRST.password);
  await page.getByLabel('Пароль ще раз', { exact: true }).fill(FIRST.password);
  await page.getByRole('button', { name: 'Створити й увійти', exact: true }).click();

  await expect(header(page).menu).toBeVisible();
  await expect(page).toHaveURL(`${server.baseURL}/admin`);

  const again = await page.goto(link);
  expect(again?.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'Перший запуск' })).toHaveCount(0);
  await expect(page.getByRole('textbox', { name: 'Електронна пошта' })).toHaveCount(0);
});

test('a start after the first operator exists offers no link', async ({ page, server, startZayavka }) => {
  const link = setupLink(server.log());
  await page.goto(link);
  await page.getByRole('textbox', { name: 'Електронна пошта', exact: true }).fill(FIRST.email);
  await page.getByLabel(/^Пароль \(/).fill(FIRST.password);
  await page.getByLabel('Пароль ще раз', { exact: true }).fill(FIRST.password);
  await page.getByRole('button', { name: 'Створити й увійти', exact: true }).click();
  await expect(header(page).menu).toBeVisible();

  // Another instance on the same database.
  const second = await startZayavka({ ZAYAVKA_DATABASE_URL: `sqlite://${server.databaseFile}` });
  expect(second.log()).toContain('serving on');
  expect(second.log()).not.toContain('/admin/setup?token=');
});
