// Who calls whom (docs/product.md, "Who calls whom") in two real browsers against the real binary:
// the admin takes a lead ("Я телефоную"); the operator sees who has it in the list and on its page
// and is offered no way to take it; a lead taken by a colleague a moment before is refused with
// the reason and the page then shows who has it; "Мої" and "Вільні" list what they say; the
// figures per source and per operator; axe on each of these screens.
import type { Browser, Page } from '@playwright/test';
import { expect, test, type BrowserLog } from '../support/fixtures';
import {
  INBOX,
  OPERATOR,
  SIGNED_OUT_CHECK,
  addAccount,
  dueList,
  expectNoA11yViolations,
  header,
  leadList,
  listedIds,
  openLead,
  sendLead,
  signIn,
  teamPage,
  openFigures,
} from '../support/inbox';
import type { RunningServer } from '../support/server';

test.use({ operator: OPERATOR });

const ANNA = { email: 'anna@example.org', password: 'druhyi-parol-77' };
const TAKE = 'Я телефоную';
const GIVE_BACK = 'Повернути в загальний список';
/** The refusal the browser logs as a failed load: a take of a lead a colleague took first. */
const TAKE_REFUSED = /Failed to load resource: .*\b409\b.*\/admin\/api\/leads\/\d+\/take\)$/;

function claimPanel(page: Page) {
  const panel = page.getByRole('region', { name: 'Хто телефонує', exact: true });
  return {
    panel,
    take: panel.getByRole('button', { name: TAKE, exact: true }),
    giveBack: panel.getByRole('button', { name: GIVE_BACK, exact: true }),
  };
}

function filter(page: Page, name: 'Усі' | 'Мої' | 'Вільні') {
  return page.getByRole('group', { name: INBOX.filters }).getByRole('button', { name, exact: true });
}

/** A second person at a second browser, signed in as `account`; its console is watched too. */
async function colleague(browser: Browser, server: RunningServer, account: typeof ANNA, log: BrowserLog) {
  const context = await browser.newContext({
    baseURL: server.baseURL,
    locale: 'uk-UA',
    viewport: { width: 360, height: 740 },
  });
  log.watch(context);
  const page = await context.newPage();
  await signIn(page, account);
  return { page, close: () => context.close() };
}

/** The admin signs in and adds Anna's account, then goes back to the desk. */
async function signInAndAddAnna(page: Page) {
  await signIn(page);
  await header(page).openMenu();
  await header(page).team.click();
  await expect(teamPage(page).heading).toBeVisible();
  await addAccount(page, ANNA);
  await page.goto('/admin');
}

/** The cells of a figures table's row, after its header cell. */
function figures(page: Page, table: string, row: string) {
  return page
    .getByRole('table', { name: table, exact: true })
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: row, exact: true }) })
    .getByRole('cell');
}

test('one operator takes a lead, the other sees who has it and cannot take it; "Мої" and "Вільні"', async ({
  page,
  server,
  browser,
  browserLog,
}) => {
  test.slow(); // two browsers, a dozen pages, four axe checks: 10–13 s on a quiet machine
  browserLog.allow(SIGNED_OUT_CHECK);
  browserLog.allow(TAKE_REFUSED);
  const first = await sendLead(server, { name: 'Олена Коваль', phone: '067 123 45 67' });
  const second = await sendLead(server, { name: 'Петро Іваненко', phone: '050 111 22 33' });
  const third = await sendLead(server, { name: 'Галина Мельник', phone: '066 555 44 33' });

  // The admin adds Anna, then takes the first lead before calling.
  await signInAndAddAnna(page);
  await openLead(page, first);
  await claimPanel(page).take.click();
  await expect(claimPanel(page).panel).toContainText('Ви телефонуєте (до ');
  await expect(claimPanel(page).giveBack).toBeVisible();
  await expectNoA11yViolations(page, 'a lead the operator took');

  // Anna sees who has it, in the list and on the lead's page, and has no way to take it.
  const anna = await colleague(browser, server, ANNA, browserLog);
  await expect(leadList(anna.page).item(first)).toContainText(`Телефонує ${OPERATOR.email} (до `);
  await expectNoA11yViolations(anna.page, 'the call desk with a lead someone has');
  await openLead(anna.page, first);
  await expect(claimPanel(anna.page).panel).toContainText(`Телефонує ${OPERATOR.email} (до `);
  await expect(claimPanel(anna.page).take).toHaveCount(0);
  await expectNoA11yViolations(anna.page, 'a lead a colleague took');

  // Anna opens the second lead while it is free; the admin takes it first; her try is refused.
  await anna.page.goto('/admin');
  await openLead(anna.page, second);
  await expect(claimPanel(anna.page).take).toBeVisible();
  await page.goto('/admin');
  await openLead(page, second);
  await claimPanel(page).take.click();
  await expect(claimPanel(page).giveBack).toBeVisible();
  await claimPanel(anna.page).take.click();
  await expect(claimPanel(anna.page).panel.getByRole('alert')).toHaveText('Цю заявку вже взяв інший оператор.');
  await expect(claimPanel(anna.page).panel).toContainText(`Телефонує ${OPERATOR.email} (до `);
  await expect(claimPanel(anna.page).take).toHaveCount(0);
  await expectNoA11yViolations(anna.page, 'a take refused');

  // "Вільні": only the third; she takes it, and "Мої" lists it.
  await anna.page.goto('/admin?filter=all');
  await filter(anna.page, 'Вільні').click();
  await expect.poll(() => listedIds(anna.page)).toEqual([third]);
  await openLead(anna.page, third);
  await claimPanel(anna.page).take.click();
  await expect(claimPanel(anna.page).panel).toContainText('Ви телефонуєте (до ');
  await anna.page.goto('/admin?filter=mine');
  await expect(filter(anna.page, 'Мої')).toHaveAttribute('aria-pressed', 'true');
  await expect.poll(() => listedIds(anna.page)).toEqual([third]);
  await expect(leadList(anna.page).item(third)).toContainText('Ви телефонуєте (до ');
  await expectNoA11yViolations(anna.page, 'the list of "Мої"');
  await filter(anna.page, 'Вільні').click();
  await expect(leadList(anna.page).empty).toBeVisible();

  // The admin's "Мої": the two leads taken; given back, the first is free again for Anna.
  await page.goto('/admin?filter=mine');
  await expect.poll(() => listedIds(page)).toEqual([second, first]);
  await openLead(page, first);
  await claimPanel(page).giveBack.click();
  await expect(claimPanel(page).panel).toContainText('Ніхто не взяв цю заявку.');
  await anna.page.goto('/admin?filter=free');
  await expect.poll(() => listedIds(anna.page)).toEqual([first]);
  await anna.close();
});

test("on the desk, a free lead's call button takes it as it dials: the colleague's desk says who is calling, with no big button", async ({
  page,
  server,
  browser,
  browserLog,
}) => {
  browserLog.allow(SIGNED_OUT_CHECK);
  const lead = await sendLead(server, { name: 'Олена Коваль', phone: '067 123 45 67' });
  await signInAndAddAnna(page);
  await dueList(page).call(lead).click();
  await expect(dueList(page).card(lead)).toContainText('Ви телефонуєте (до ');
  const anna = await colleague(browser, server, ANNA, browserLog);
  await expect(dueList(anna.page).card(lead)).toContainText(`Телефонує ${OPERATOR.email} (до `);
  // Her card keeps the number as a plain link, not the big call button.
  await expect(dueList(anna.page).call(lead)).toHaveText('+380 67 123 45 67');
  await anna.close();
});

test('the figures per source and per operator; an admin hands a lead over', async ({ page, server, browserLog }) => {
  browserLog.allow(SIGNED_OUT_CHECK);
  const lead = await sendLead(server, { name: 'Олена Коваль', phone: '067 123 45 67' });
  await signInAndAddAnna(page);
  await openLead(page, lead);
  await claimPanel(page).panel.getByText('Передати іншому оператору', { exact: true }).click();
  await claimPanel(page).panel.getByRole('combobox', { name: 'Кому', exact: true }).selectOption(ANNA.email);
  await expectNoA11yViolations(page, 'the hand-over');
  await claimPanel(page).panel.getByRole('button', { name: 'Передати', exact: true }).click();
  await expect(claimPanel(page).panel).toContainText(`Призначено: ${ANNA.email}`);
  await page.getByRole('button', { name: 'Зацікавлені', exact: true }).click();
  await expect(page.getByRole('region', { name: INBOX.calls, exact: true }).getByRole('listitem')).toHaveCount(1);

  await page.goto('/admin');
  await openFigures(page);
  await page.getByText('Джерела й оператори за 30 днів', { exact: true }).click();
  await expect(figures(page, 'Звідки заявки', 'Напряму')).toHaveText(['1', '1']);
  await expect(figures(page, 'Оператори', OPERATOR.email)).toHaveText(['1', '1']);
  await expect(figures(page, 'Оператори', ANNA.email)).toHaveText(['0', '0']);
  await expectNoA11yViolations(page, 'the figures per source and per operator');
});
