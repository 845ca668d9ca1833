// axe-core on every page a visitor can reach: no violation of impact serious or critical.
import { expect, test } from '../support/fixtures';
import {
  TEXT,
  alertToast,
  expectNoSeriousA11yViolations,
  fillLead,
  leadForm,
  openLanding,
  waitForHydration,
} from '../support/visitor';

for (const path of ['/', '/thank-you', '/privacy-policy']) {
  test(`${path} has no serious accessibility violations`, async ({ page }) => {
    await page.goto(path);
    await waitForHydration(page);
    await expectNoSeriousA11yViolations(page, path);
  });
}

test('the not-found page has no serious accessibility violations', async ({ page, browserLog }) => {
  browserLog.allow(/404 Error: User attempted/, /Failed to load resource: .*404/);
  await page.goto('/nemaye-takoyi');
  await waitForHydration(page);
  await expectNoSeriousA11yViolations(page, 'the not-found page');
});

test('the landing page with a toast open and fields marked missing has none either', async ({ page }) => {
  await openLanding(page);
  await leadForm(page).submit.click();
  await expect(alertToast(page)).toContainText(TEXT.invalidTitle);
  await expectNoSeriousA11yViolations(page, 'the landing page with the warning toast');
});

test('the landing page with every footer widget open has none', async ({ page }) => {
  await openLanding(page);
  for (const summary of await page.getByRole('contentinfo').locator('summary').all()) await summary.click();
  await expectNoSeriousA11yViolations(page, 'the landing page, footer open');
});

test('the server\'s refusal page (no-JavaScript path) has none', async ({ page, browserLog }) => {
  browserLog.allow(/Failed to load resource: .*\b4\d\d\b/);
  await openLanding(page);
  await fillLead(page, { name: 'Олена', phone: 'немає', answer: 'Так' });
  // Send it as a browser without the app would: a plain form submission (no submit event).
  const refused = page.waitForResponse((r) => new URL(r.url()).pathname === '/leads');
  await leadForm(page).form.evaluate((form: HTMLFormElement) => form.submit());
  expect((await refused).status()).toBe(422);
  await expect(leadForm(page).form.getByRole('alert')).toContainText('Перевірте номер телефону');
  await expectNoSeriousA11yViolations(page, 'the refusal page');
});
