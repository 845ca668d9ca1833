// The admins' "Сповіщення" screen (docs/admin-api.md, "Notifications not delivered") in a real
// browser against the real binary, on a desktop and on a phone (360 px, touch): the webhook points
// at a closed port, so every lead's notification fails and waits. The admin reaches the screen from
// the desk's warning, sends one again, drops the other after confirming, and finds both in the
// "Журнал дій". axe is clean on the screen, with a drop being asked.
import { expect, test } from '../support/fixtures';
import {
  OPERATOR,
  SIGNED_OUT_CHECK,
  auditPage,
  expectNoA11yViolations,
  expectNoSidewaysScroll,
  header,
  sendLead,
  signIn,
} from '../support/inbox';

const SCREENS = [
  { name: 'a desktop (1280×800)', use: { viewport: { width: 1280, height: 800 } } },
  { name: 'a phone (360×740, touch)', use: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
];

const olena = { name: 'Олена Коваль', phone: '067 123 45 67' };
const petro = { name: 'Петро Іваненко', phone: '+380 50 111 22 33' };

for (const screen of SCREENS) {
  test.describe(`on ${screen.name}`, () => {
    test.use({
      ...screen.use,
      operator: OPERATOR,
      // Port 9 (discard) is closed here: every send is refused.
      settings: { ZAYAVKA_WEBHOOK_URL: 'http://127.0.0.1:9/hook' },
    });
    test.beforeEach(({ browserLog }) => browserLog.allow(SIGNED_OUT_CHECK));

    test('an admin sends a failed notification again and drops another; the journal shows both', async ({
      page,
      server,
    }) => {
      const first = await sendLead(server, olena);
      const second = await sendLead(server, petro);
      await signIn(page);

      // From the desk's warning to the screen.
      const warning = page.getByRole('alert').filter({ hasText: 'Сповіщення не доходять.' });
      await warning.getByRole('link', { name: 'Сповіщення: надіслати ще раз або відкинути' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Сповіщення', exact: true })).toBeVisible();
      const channels = page.getByRole('list', { name: 'Канали', exact: true });
      await expect(channels).toContainText('Вебхук');
      await expect(channels).toContainText(/Остання помилка: .*[Cc]onnection refused/);
      const queue = page.getByRole('list', { name: 'Сповіщення в черзі', exact: true });
      const item = (id: number) =>
        queue.locator(':scope > li').filter({ has: page.getByRole('link', { name: `Заявка №${id}`, exact: true }) });
      await expect(item(first)).toContainText('Нова заявка, Вебхук');
      await expect(item(second)).toContainText(/Наступна спроба: \d\d\.\d\d\.\d{4}, \d\d:\d\d/);
      await expectNoSidewaysScroll(page, 'the notifications screen');
      await expectNoA11yViolations(page, 'the notifications screen');

      // Send the first again: tried at once (and refused again, the port is still closed).
      await item(first).getByRole('button', { name: 'Надіслати ще раз', exact: true }).click();
      await expect(page.getByRole('status')).toHaveText(`Сповіщення про заявку №${first} надсилається ще раз.`);

      // Drop the second: asked first, then gone from the queue for good.
      await item(second).getByRole('button', { name: 'Відкинути', exact: true }).click();
      await expect(item(second)).toContainText('Його не буде надіслано ніколи');
      await expectNoA11yViolations(page, 'the notifications screen with a drop asked');
      await item(second).getByRole('button', { name: 'Так, відкинути', exact: true }).click();
      await expect(page.getByRole('status')).toHaveText(`Сповіщення про заявку №${second} відкинуто.`);
      await expect(item(second)).toHaveCount(0);
      await page.reload();
      await expect(item(first)).toBeVisible();
      await expect(item(second)).toHaveCount(0);

      // The journal has both, by the admin.
      await header(page).openMenu();
      await header(page).audit.click();
      const audit = auditPage(page);
      await expect(audit.entry(OPERATOR.email, 'Сповіщення надіслано ще раз')).toHaveCount(1);
      await expect(audit.entry(OPERATOR.email, 'Сповіщення відкинуто')).toHaveCount(1);
    });
  });
}
