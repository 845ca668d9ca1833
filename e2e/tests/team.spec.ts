// Roles in the inbox (docs/admin-api.md, "The team: roles and the audit trail") in a real browser,
// against the real binary: the first account (made with `zayavka admin add-user`) is an admin; it
// adds an operator on the "Команда" page; the operator works leads but sees no export, no erasure
// and no admins' pages; the admin reads the operator's sign-in and opened lead in the "Журнал дій".
import type { Page } from '@playwright/test';
import { expect, test } from '../support/fixtures';
import {
  INBOX,
  OPERATOR,
  SIGNED_OUT_CHECK,
  TEAM_REFUSED,
  addAccount,
  auditPage,
  header,
  heldView,
  leadPage,
  openLead,
  sendHeldLead,
  sendLead,
  signIn,
  teamPage,
} from '../support/inbox';

test.use({ operator: OPERATOR });
test.beforeEach(({ browserLog }) => browserLog.allow(SIGNED_OUT_CHECK));

const ANNA = { email: 'anna@example.org', password: 'druhyi-parol-77' };
const olena = { name: 'Олена Коваль', phone: '067 123 45 67' };
const halyna = { name: 'Галина Мельник', phone: '066 555 44 33' };

async function signOut(page: Page) {
  await header(page).openMenu();
  await header(page).signOut.click();
  await expect(page.getByRole('button', { name: INBOX.signIn, exact: true })).toBeVisible();
}

test('an admin adds an operator, who works leads without export, erasure or the admins\' pages; the journal shows what the operator did', async ({
  page,
  server,
}) => {
  const lead = await sendLead(server, olena);
  const held = await sendHeldLead(server, halyna);

  // The first account is an admin: the export, and the links to the team and the journal.
  await signIn(page);
  await header(page).openMenu();
  await expect(header(page).exportCsv).toBeVisible();
  await expect(header(page).exportExcel).toHaveAttribute('href', '/admin/api/export.xlsx');
  await header(page).team.click();
  const team = teamPage(page);
  await expect(team.heading).toBeVisible();
  await expect(team.account(OPERATOR.email)).toContainText('Адміністратор');
  await addAccount(page, ANNA);
  await expect(page.getByRole('status')).toHaveText(`Обліковий запис ${ANNA.email} додано: оператор.`);
  await expect(team.accounts).toHaveCount(2);
  await signOut(page);

  // The operator: the list and a lead with its call form, but no export, no erasure, no admins' links.
  await signIn(page, ANNA);
  await expect(page.getByRole('link', { name: `Заявка №${lead}`, exact: true })).toBeVisible();
  // The menu holds the account and "Вийти" only.
  await header(page).openMenu();
  await expect(header(page).signOut).toBeVisible();
  await expect(header(page).account(ANNA.email)).toBeVisible();
  await expect(header(page).exportCsv).toHaveCount(0);
  await expect(header(page).exportExcel).toHaveCount(0);
  await expect(header(page).team).toHaveCount(0);
  await expect(header(page).audit).toHaveCount(0);
  await openLead(page, lead);
  await expect(leadPage(page).erase).toHaveCount(0);
  await page.goto('/admin/held');
  await expect(heldView(page).release(held)).toBeVisible();
  await expect(heldView(page).erase(held)).toHaveCount(0);
  // An admins' page opened by its address says whose it is.
  await page.goto('/admin/team');
  await expect(page.getByText(INBOX.adminOnly, { exact: true })).toBeVisible();
  await expect(team.list).toHaveCount(0);
  await signOut(page);

  // The admin reads it in the journal, newest first: the operator's sign-in and the lead opened.
  await signIn(page);
  await header(page).openMenu();
  await header(page).audit.click();
  const journal = auditPage(page);
  await expect(journal.heading).toBeVisible();
  await expect(journal.entry(ANNA.email, 'Вхід')).toHaveCount(1);
  const opened = journal.entry(ANNA.email, 'Відкрито заявку').first();
  await expect(opened).toBeVisible();
  await expect(opened.getByText(/^Адреса: 127\.0\.0\.1$/)).toBeVisible();
  await expect(journal.entry(OPERATOR.email, 'Додано обліковий запис')).toContainText(`${ANNA.email} (operator)`);
  // Newest first: the admin's own sign-in just now, before the operator's (and the pages of the
  // list each read since, which the trail records too).
  const signIns = journal.entries.filter({ hasText: 'Вхід' });
  await expect(signIns.first()).toContainText(OPERATOR.email);
  await expect(journal.entry(ANNA.email, 'Переглянуто список заявок').first()).toBeVisible();
  await opened.getByRole('link', { name: `Заявка №${lead}`, exact: true }).click();
  await expect(leadPage(page).heading(lead)).toBeVisible();
});

test('the last admin can be neither made an operator nor removed: the refusal is shown; a role change takes effect', async ({
  page,
  browserLog,
}) => {
  browserLog.allow(TEAM_REFUSED);
  await signIn(page);
  await header(page).openMenu();
  await header(page).team.click();
  const team = teamPage(page);
  await addAccount(page, ANNA);

  await team.makeOperator(OPERATOR.email).click();
  await expect(team.account(OPERATOR.email).getByRole('alert')).toHaveText(
    'Це останній адміністратор: спершу призначте іншого.',
  );
  await team.remove(OPERATOR.email).click();
  await team.removeConfirm(OPERATOR.email).click();
  await expect(team.account(OPERATOR.email).getByRole('alert').last()).toHaveText(
    'Це останній адміністратор: спершу призначте іншого.',
  );
  await expect(team.account(OPERATOR.email)).toContainText('Адміністратор');

  await team.makeAdmin(ANNA.email).click();
  await expect(page.getByRole('status')).toHaveText(`Роль змінено: ${ANNA.email} — адміністратор.`);
  await expect(team.makeOperator(ANNA.email)).toBeVisible();
  await team.remove(ANNA.email).click();
  await team.removeConfirm(ANNA.email).click();
  await expect(page.getByRole('status')).toHaveText(`Обліковий запис ${ANNA.email} видалено.`);
  await expect(team.accounts).toHaveCount(1);
});
