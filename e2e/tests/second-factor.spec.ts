// The second factor (docs/admin-api.md, "The second factor") in a real browser against the real
// binary: an operator turns it on from the e-mail in the inbox's bar (the key from the page, a code
// computed as an authenticator app computes it, recovery codes shown once); signing in then asks
// for a code; a wrong one is refused, the app's next one and a recovery code let them in; with
// ZAYAVKA_REQUIRE_2FA the inbox shows nothing but the set-up page until it is on. axe on each screen.
import type { Page } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';
import { expect, test } from '../support/fixtures';
import {
  INBOX,
  LOGIN_REFUSED,
  OPERATOR,
  SIGNED_OUT_CHECK,
  expectNoA11yViolations,
  header,
  loginForm,
  signIn,
} from '../support/inbox';

/** A wrong first code on the set-up page: the server's 400, which the browser logs. */
const WRONG_FIRST_CODE = /Failed to load resource: .*\b400\b.*\/admin\/api\/second-factor\/confirm\)$/;

test.use({ operator: OPERATOR });
test.beforeEach(({ browserLog }) => browserLog.allow(SIGNED_OUT_CHECK, LOGIN_REFUSED, WRONG_FIRST_CODE));

const CODE_FIELD = 'Код із застосунку або код відновлення';

function setUpPage(page: Page) {
  return {
    heading: page.getByRole('heading', { level: 1, name: 'Двоетапна перевірка', exact: true }),
    start: page.getByRole('button', { name: 'Налаштувати', exact: true }),
    qr: page.getByRole('img', { name: 'QR-код для застосунку автентифікації', exact: true }),
    key: page.locator('code.secret'),
    code: page.getByRole('textbox', { name: 'Код із застосунку', exact: true }),
    confirm: page.getByRole('button', { name: 'Підтвердити', exact: true }),
    recoveryCodes: page.getByRole('list', { name: 'Коди відновлення', exact: true }).getByRole('listitem'),
    saved: page.getByRole('button', { name: 'Я зберіг(ла) коди', exact: true }),
  };
}

/** The app's code `stepsAhead` steps from now (one ahead: a phone's clock a little fast). */
function appCode(key: string, stepsAhead = 0): string {
  const totp = new TOTP({ secret: Secret.fromBase32(key), algorithm: 'SHA1', digits: 6, period: 30 });
  return totp.generate({ timestamp: Date.now() + stepsAhead * 30_000 });
}

/** Turns the factor on from the set-up page as an operator does; the key and the recovery codes. */
async function turnOn(page: Page): Promise<{ key: string; recoveryCodes: string[] }> {
  const setUp = setUpPage(page);
  await setUp.start.click();
  await expect(setUp.qr).toBeVisible();
  const key = (await setUp.key.textContent())!.replace(/\s/g, '');
  expect(key).toMatch(/^[A-Z2-7]{32}$/);
  await setUp.code.fill(appCode(key));
  await setUp.confirm.click();
  await expect(setUp.recoveryCodes).toHaveCount(10);
  const recoveryCodes = (await setUp.recoveryCodes.allTextContents()).map((c) => c.trim());
  expect(recoveryCodes.every((c) => /^[a-z2-9]{5}-[a-z2-9]{5}$/.test(c))).toBe(true);
  return { key, recoveryCodes };
}

async function signOut(page: Page) {
  await header(page).openMenu();
  await header(page).signOut.click();
  await expect(loginForm(page).submit).toBeVisible();
}

/** E-mail and password on the login form; the server then asks for the code. */
async function passwordStep(page: Page) {
  const form = loginForm(page);
  await form.email.fill(OPERATOR.email);
  await form.password.fill(OPERATOR.password);
  await form.submit.click();
  await expect(page.getByRole('textbox', { name: CODE_FIELD, exact: true })).toBeFocused();
}

test('an operator turns the second factor on; signing in then asks for a code, refuses a wrong one and takes the app\'s next', async ({
  page,
}) => {
  await signIn(page);
  await header(page).openMenu();
  await header(page).account(OPERATOR.email).click();
  const setUp = setUpPage(page);
  await expect(setUp.heading).toBeVisible();
  await expectNoA11yViolations(page, 'the second factor, off');

  await setUp.start.click();
  await expect(setUp.qr).toBeVisible();
  await expectNoA11yViolations(page, 'the second factor being set up');
  await setUp.code.fill('000000');
  await setUp.confirm.click();
  await expect(page.getByRole('alert')).toContainText('Код не підходить');
  const key = (await setUp.key.textContent())!.replace(/\s/g, '');
  await setUp.code.fill(appCode(key));
  await setUp.confirm.click();
  await expect(setUp.recoveryCodes).toHaveCount(10);
  await expectNoA11yViolations(page, 'the recovery codes');
  await setUp.saved.click();
  await expect(page.getByRole('status')).toHaveText('Двоетапну перевірку увімкнено.');
  await expect(page).toHaveURL(/\/admin\/?$/);

  await signOut(page);
  await passwordStep(page);
  await expect(page.getByRole('alert')).toHaveText('Введіть код із застосунку автентифікації.');
  await expectNoA11yViolations(page, 'the login asking for the code');
  const code = page.getByRole('textbox', { name: CODE_FIELD, exact: true });
  await code.fill('123456');
  await loginForm(page).submit.click();
  await expect(page.getByRole('alert')).toHaveText('Код не підходить. Спробуйте наступний код із застосунку.');
  // The code that turned it on is spent; the app's next one signs in.
  await code.fill(appCode(key, 1));
  await loginForm(page).submit.click();
  await header(page).openMenu();
  await header(page).account(OPERATOR.email).click();
  await expect(page.getByText('Кодів відновлення залишилося: 10.')).toBeVisible();
});

test('a recovery code, typed in capitals, signs in once', async ({ page }) => {
  await page.goto('/admin/second-factor');
  const form = loginForm(page);
  await form.email.fill(OPERATOR.email);
  await form.password.fill(OPERATOR.password);
  await form.submit.click();
  await expect(setUpPage(page).heading).toBeVisible();
  const { recoveryCodes } = await turnOn(page);
  await setUpPage(page).saved.click();
  await signOut(page);

  await passwordStep(page);
  await page.getByRole('textbox', { name: CODE_FIELD, exact: true }).fill(recoveryCodes[4].toUpperCase());
  await loginForm(page).submit.click();
  await header(page).openMenu();
  await header(page).account(OPERATOR.email).click();
  await expect(page.getByText('Кодів відновлення залишилося: 9.')).toBeVisible();
});

test.describe('required for everyone (ZAYAVKA_REQUIRE_2FA)', () => {
  test.use({ settings: { ZAYAVKA_REQUIRE_2FA: 'true' } });

  test('an operator without it sees only the set-up page until it is on, then the inbox', async ({ page }) => {
    await signIn(page);
    const setUp = setUpPage(page);
    await expect(setUp.heading).toBeVisible();
    await expect(page.getByText('Адміністратор вимагає двоетапну перевірку для всіх.', { exact: false })).toBeVisible();
    await header(page).openMenu();
    await expect(header(page).signOut).toBeVisible();
    await expect(header(page).team).toHaveCount(0);
    await expect(header(page).exportCsv).toHaveCount(0);
    await header(page).menu.click();
    await expect(page.getByRole('link', { name: INBOX.back, exact: true })).toHaveCount(0);
    await expectNoA11yViolations(page, 'the set-up page when required');
    await turnOn(page);
    await setUp.saved.click();
    await expect(page.getByRole('status')).toHaveText('Двоетапну перевірку увімкнено.');
    await expect(page.getByRole('heading', { level: 1, name: INBOX.due, exact: true })).toBeVisible();
    await header(page).openMenu();
    await expect(header(page).team).toBeVisible();
  });
});
