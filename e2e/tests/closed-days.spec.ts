// The admins' "Вихідні дні" screen (docs/admin-api.md, "Closed days") in a real browser against the
// real binary, on a desktop and on a phone (360 px, touch). A lead that just arrived is due in 48
// hours; the admin closes the next two days from the menu's screen (the settings' own day is shown
// read-only), and the desk marks the lead "Під загрозою: вихідні" at once. Opening the days again
// (each asked first) takes the mark away, and the journal has every change. axe is clean on the
// screen, with a removal being asked.
import { expect, test } from '../support/fixtures';
import {
  OPERATOR,
  SIGNED_OUT_CHECK,
  auditPage,
  dueList,
  expectNoA11yViolations,
  expectNoSidewaysScroll,
  header,
  sendLead,
  signIn,
} from '../support/inbox';
import type { Page } from '@playwright/test';

const SCREENS = [
  { name: 'a desktop (1280×800)', use: { viewport: { width: 1280, height: 800 } } },
  { name: 'a phone (360×740, touch)', use: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
];

const AT_RISK = 'Під загрозою: вихідні';

/** The Kyiv date `days` after today, `YYYY-MM-DD`: counted on the calendar, not in 24-hour steps. */
function kyivDay(days: number): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Kyiv' }).format(new Date());
  const [year, month, day] = today.split('-').map(Number);
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}

function closedDaysScreen(page: Page) {
  const list = page.getByRole('list', { name: 'Вихідні дні', exact: true });
  return {
    heading: page.getByRole('heading', { level: 1, name: 'Вихідні дні', exact: true }),
    day: page.getByLabel('Дата', { exact: true }),
    note: page.getByLabel('Примітка (необов’язково)', { exact: true }),
    add: page.getByRole('button', { name: 'Додати', exact: true }),
    /** The list item of a day, by the `datetime` of its date. */
    item: (day: string) => list.locator(':scope > li').filter({ has: page.locator(`time[datetime="${day}"]`) }),
  };
}

const settingsDay = kyivDay(30);
// The lead's 48 hours end the day after tomorrow, or just around it across a change of clocks.
const closing = [kyivDay(1), kyivDay(2)];

for (const screen of SCREENS) {
  test.describe(`on ${screen.name}`, () => {
    test.use({ ...screen.use, operator: OPERATOR, settings: { ZAYAVKA_CLOSED_DAYS: settingsDay } });
    test.beforeEach(({ browserLog }) => {
      browserLog.allow(SIGNED_OUT_CHECK);
      // The past day, refused on purpose.
      browserLog.allow(/Failed to load resource: .*\b400\b.*\/admin\/api\/closed-days\)$/);
    });

    test('an admin closes the next days: the lead due then is marked at risk until they open again', async ({
      page,
      server,
    }) => {
      const id = await sendLead(server, { name: 'Олена Коваль', phone: '067 123 45 67' });
      await signIn(page);
      const card = dueList(page).card(id);
      await expect(card).toBeVisible();
      await expect(card).not.toContainText(AT_RISK);

      await header(page).openMenu();
      await header(page).bar.getByRole('link', { name: 'Вихідні дні', exact: true }).click();
      const screenOf = closedDaysScreen(page);
      await expect(screenOf.heading).toBeVisible();
      await expect(screenOf.item(settingsDay)).toContainText('З налаштувань сервера (ZAYAVKA_CLOSED_DAYS)');
      await expect(screenOf.item(settingsDay).getByRole('button')).toHaveCount(0);
      await expectNoSidewaysScroll(page, 'the closed days screen');
      await expectNoA11yViolations(page, 'the closed days screen');

      // A past day is refused in words, read out.
      await screenOf.day.fill(kyivDay(-1));
      await screenOf.add.click();
      await expect(page.getByRole('alert')).toContainText('Цей день уже минув');

      for (const day of closing) {
        await screenOf.day.fill(day);
        await screenOf.note.fill('Переїзд офісу');
        await screenOf.add.click();
        await expect(screenOf.item(day)).toContainText('Переїзд офісу');
        // This day's notice, not the one before it: the notice is emptied and filled again a moment
        // later (so that it is read out), and the page moves while it does.
        const words = await screenOf.item(day).locator('time').first().textContent();
        await expect(page.getByRole('status')).toHaveText(`Вихідний ${words} додано.`);
        await expect(screenOf.item(day)).toContainText(`Додав(ла) ${OPERATOR.email}`);
      }
      await expectNoSidewaysScroll(page, 'the closed days screen with two days added');

      await page.getByRole('link', { name: '← До списку', exact: true }).click();
      await expect(card).toContainText(AT_RISK);

      // Open them again: asked first, then the mark is gone.
      await header(page).openMenu();
      await header(page).bar.getByRole('link', { name: 'Вихідні дні', exact: true }).click();
      for (const [i, day] of closing.entries()) {
        const words = await screenOf.item(day).locator('time').first().textContent();
        await screenOf.item(day).getByRole('button', { name: 'Прибрати', exact: true }).click();
        await expect(screenOf.item(day)).toContainText('Команда знову працюватиме цього дня');
        if (i === 0) await expectNoA11yViolations(page, 'the closed days screen with a removal asked');
        await screenOf.item(day).getByRole('button', { name: 'Так, прибрати', exact: true }).click();
        await expect(page.getByRole('status')).toHaveText(`Вихідний ${words} прибрано.`);
        await expect(screenOf.item(day)).toHaveCount(0);
      }
      await page.getByRole('link', { name: '← До списку', exact: true }).click();
      await expect(card).toBeVisible();
      await expect(card).not.toContainText(AT_RISK);

      await header(page).openMenu();
      await header(page).audit.click();
      const audit = auditPage(page);
      await expect(audit.entry(OPERATOR.email, 'Додано вихідний день')).toHaveCount(2);
      await expect(audit.entry(OPERATOR.email, 'Прибрано вихідний день')).toHaveCount(2);
    });
  });
}
