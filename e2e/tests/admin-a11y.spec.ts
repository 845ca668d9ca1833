// axe-core on every screen of the operators' inbox (/admin), on a desktop and on a phone (360 px,
// touch): the first start's setup, the login, the call desk (its own states: desk.spec.ts), the
// list under each filter with its figures, the
// held view, every kind of lead page, the erase confirmations, the admins' "Команда" (with a
// removal asked and a refusal shown) and "Журнал дій" pages, and the inbox's not-found pages.
// Every rule, every impact: any violation fails (support/inbox.ts `expectNoA11yViolations`).
import { expect, test } from '../support/fixtures';
import {
  INBOX,
  LOGIN_REFUSED,
  addAccount,
  auditPage,
  OPERATOR,
  SIGNED_OUT_CHECK,
  TEAM_REFUSED,
  expectNoA11yViolations,
  expectNoSidewaysScroll,
  header,
  heldCount,
  heldNotice,
  heldView,
  dueList,
  leadList,
  openFigures,
  openSearch,
  leadPage,
  loginForm,
  makeOlder,
  openLead,
  repeatsOf,
  searchFor,
  sendHeldLead,
  sendLead,
  signIn,
  teamPage,
} from '../support/inbox';

const olena = { name: 'Олена Коваль', phone: '067 123 45 67', comment: 'Після 18:00, будь ласка' };
const olenaAgain = { name: 'Олена Коваль', phone: '+380671234567', comment: 'Можна й у суботу' };
const petro = { name: 'Петро Іваненко', phone: '+380 50 111 22 33', confirmation: 'Ні' as const };
const halyna = { name: 'Галина Мельник', phone: '066 555 44 33' };

const QUICK = 'Записати результат одним натисканням';

const SCREENS = [
  { name: 'a desktop (1280×800)', use: { viewport: { width: 1280, height: 800 } } },
  { name: 'a phone (360×740, touch)', use: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
];

for (const screen of SCREENS) {
  test.describe(`on ${screen.name}`, () => {
    test.use(screen.use);

    test('the first start: the setup screen, and with its error', async ({ page, server }) => {
      const link = /(http:\/\/\S+\/admin\/setup\?token=[\w-]+)/.exec(server.log())?.[1];
      expect(link, 'a setup link in the log').toBeTruthy();
      await page.goto(link!);
      await expect(page.getByRole('heading', { level: 1, name: 'Перший запуск' })).toBeVisible();
      await expectNoA11yViolations(page, 'the setup screen');

      await page.getByRole('textbox', { name: 'Електронна пошта', exact: true }).fill('first@example.org');
      await page.getByLabel(/^Пароль \(/).fill('short');
      await page.getByLabel('Пароль ще раз', { exact: true }).fill('short');
      await page.getByRole('button', { name: 'Створити й увійти', exact: true }).click();
      await expect(page.getByRole('alert')).toHaveText(/^Пароль має містити щонайменше/);
      await expectNoA11yViolations(page, 'the setup screen with its error');
    });

    test.describe('signed in', () => {
      test.use({ operator: OPERATOR });
      test.beforeEach(({ browserLog }) => browserLog.allow(SIGNED_OUT_CHECK));

      test('the login screen, with a wrong password refused', async ({ page, browserLog }) => {
        browserLog.allow(LOGIN_REFUSED);
        await page.goto('/admin');
        const form = loginForm(page);
        await expect(form.submit).toBeVisible();
        await expectNoA11yViolations(page, 'the login screen');

        await form.email.fill(OPERATOR.email);
        await form.password.fill('not-the-password');
        await form.submit.click();
        await expect(page.getByRole('alert')).toHaveText(INBOX.wrongPassword);
        await expectNoA11yViolations(page, 'the login screen with its error');
      });

      test('the desk, the list with its figures under each filter, and a search that finds nothing', async ({ page, server }) => {
        test.slow(); // six screens, each fully checked by axe
        const old = await sendLead(server, olena);
        const fresh = await sendLead(server, petro);
        await sendHeldLead(server, halyna);
        await makeOlder(server, old, 50);
        await signIn(page);
        await expect(dueList(page).links).toHaveText([`Заявка №${old}`, `Заявка №${fresh}`]);
        await expectNoA11yViolations(page, 'the call desk with an overdue lead');

        await openFigures(page);
        await openSearch(page);
        const list = leadList(page);
        await expect(list.links).toHaveText([`Заявка №${fresh}`, `Заявка №${old}`]);
        await expect(page.getByText('Прострочені: 1', { exact: true })).toBeVisible();
        await expect(heldCount(page, 1)).toBeVisible();
        await expect(page.getByRole('img', { name: INBOX.chart, exact: true })).toBeVisible();
        await expectNoA11yViolations(page, 'the list (Усі) with its figures');

        for (const [filter, shown] of [
          ['Відкриті', [fresh, old]],
          ['Прострочені', [old]],
        ] as const) {
          await list.filter(filter).click();
          await expect(list.filter(filter)).toHaveAttribute('aria-pressed', 'true');
          await expect(list.links).toHaveText(shown.map((id) => `Заявка №${id}`));
          // "Відкриті" lists the same leads as "Усі": the list must have loaded, not still be
          // dimmed (aria-busy) with the old page's leads, which axe reads as low contrast.
          await expect(list.list).toHaveAttribute('aria-busy', 'false');
          await expectNoA11yViolations(page, `the list (${filter})`);
        }

        await list.filter('Усі').click();
        await searchFor(page, 'Тарас');
        await expect(list.empty).toBeVisible();
        await expectNoA11yViolations(page, 'the list with nothing found');
      });

      test('the held view, and its erase confirmation', async ({ page, server }) => {
        const held = await sendHeldLead(server, halyna);
        await sendLead(server, petro);
        await signIn(page);
        await openFigures(page);
        await heldCount(page, 1).click();

        const view = heldView(page);
        await expect(view.heading).toBeVisible();
        await expect(view.reasons(held)).toHaveText(['Надіслано, не відкривши сторінку сайту']);
        await expectNoA11yViolations(page, 'the held view');

        await view.erase(held).click();
        await expect(view.eraseConfirm(held)).toBeVisible();
        await expectNoA11yViolations(page, 'the held view asking to confirm erasure');
      });

      test('lead pages: the call first, after a call, asking to confirm erasure, overdue, held, a repeat', async ({
        page,
        server,
      }) => {
        test.slow(); // six pages, each fully checked by axe
        const id = await sendLead(server, olena);
        const again = await sendLead(server, olenaAgain);
        const overdue = await sendLead(server, petro);
        const held = await sendHeldLead(server, halyna);
        await makeOlder(server, overdue, 50);
        await signIn(page);
        await openLead(page, id);
        const lead = leadPage(page);

        await expect(page.getByRole('link', { name: 'Подзвонити +380 67 123 45 67', exact: true })).toBeVisible();
        await expect(repeatsOf(page, 2).items).toHaveCount(1);
        await expectNoA11yViolations(page, 'a lead page with its call button and a repeat');

        await page.getByRole('group', { name: QUICK, exact: true }).getByRole('button', { name: 'Не відповіли' }).click();
        await expect(page.getByRole('status')).toHaveText('Дзвінок записано.');
        await expect(lead.calls.getByRole('listitem')).toHaveCount(1);
        await expectNoA11yViolations(page, 'a lead page with a call recorded');

        await lead.choice('Зацікавлені').check();
        await lead.note.fill('Чекає на лист');
        await lead.record.click();
        await expect(lead.calls.getByRole('listitem')).toHaveCount(2);
        await expect(page.getByText("Зв'язалися: зацікавлені", { exact: true })).toBeVisible();
        await expectNoA11yViolations(page, 'a closed lead page');

        await lead.erase.click();
        await expect(lead.eraseConfirm).toBeVisible();
        await expectNoA11yViolations(page, 'a lead page asking to confirm erasure');

        await page.goto(`/admin/leads/${overdue}`);
        await expect(page.getByText(/^Прострочено на /)).toBeVisible();
        await expectNoA11yViolations(page, 'an overdue lead page');

        await page.goto(`/admin/leads/${held}`);
        await expect(heldNotice(page).reasons).toHaveText(['Надіслано, не відкривши сторінку сайту']);
        await expectNoA11yViolations(page, "a held lead's page");

        await page.goto(`/admin/leads/${again}`);
        await expect(page.getByRole('link', { name: `Заявка №${id}`, exact: true })).toBeVisible();
        await expectNoA11yViolations(page, "a repeat's own page");
      });

      test('the team: the accounts, a removal asked, a refusal shown; the journal of actions', async ({
        page,
        server,
        browserLog,
      }) => {
        browserLog.allow(TEAM_REFUSED);
        const id = await sendLead(server, olena);
        await signIn(page);
        await openLead(page, id);
        await header(page).openMenu();
        await header(page).team.click();
        const team = teamPage(page);
        await expect(team.heading).toBeVisible();
        await addAccount(page, { email: 'anna@example.org', password: 'druhyi-parol-77' });
        await expect(page.getByRole('status')).toHaveText('Обліковий запис anna@example.org додано: оператор.');
        await expectNoA11yViolations(page, 'the team page');

        await team.remove('anna@example.org').click();
        await expect(team.removeConfirm('anna@example.org')).toBeVisible();
        await team.makeOperator(OPERATOR.email).click();
        await expect(team.account(OPERATOR.email).getByRole('alert')).toHaveText(/^Це останній адміністратор/);
        await team.email.fill('anna@example.org');
        await team.password.fill('tretii-parol-99');
        await team.add.click();
        await expect(team.form.getByRole('alert')).toHaveText('Обліковий запис із цією адресою вже є.');
        await expectNoA11yViolations(page, 'the team page asking to confirm a removal, with refusals');
        await expectNoSidewaysScroll(page, 'the team page');

        await header(page).openMenu();
        await header(page).audit.click();
        const journal = auditPage(page);
        await expect(journal.heading).toBeVisible();
        await expect(journal.list.getByRole('link', { name: `Заявка №${id}`, exact: true })).toBeVisible();
        await expectNoA11yViolations(page, 'the journal of actions');
        await expectNoSidewaysScroll(page, 'the journal of actions');
      });

      test("the inbox's not-found page, and a lead that is not there", async ({ page, browserLog }) => {
        browserLog.allow(/Failed to load resource: .*\b404\b.*\/admin\/api\/leads\/987654/);
        await signIn(page, OPERATOR, '/admin/nemaye-takoyi');
        await expect(page.getByRole('heading', { level: 1, name: 'Сторінку не знайдено' })).toBeVisible();
        await expectNoA11yViolations(page, "the inbox's not-found page");

        await page.goto('/admin/leads/987654');
        await expect(header(page).menu).toBeVisible();
        await expect(page.getByRole('alert')).toHaveText(/^Заявку не знайдено/);
        await expectNoA11yViolations(page, 'a lead that is not there');
      });
    });
  });
}
