// The call desk (/admin, issue 31): the inbox opens on "Кому дзвонити зараз", the calls to make now
// in their order (DESIGN "The call desk"), on a 360 px phone and on a desktop. The first lead's
// tap-to-call button is on the first screen; a call's outcome is one tap on its card; "Передзвонити
// о …" keeps the time typed in Kyiv time; the figures and the search are one tap away, the rest in
// the menu. axe checks each of these screens.
import type { Page } from '@playwright/test';
import { expect, test } from '../support/fixtures';
import {
  INBOX,
  OPERATOR,
  SIGNED_OUT_CHECK,
  desk,
  expectDue,
  dueList,
  expectNoA11yViolations,
  expectNoSidewaysScroll,
  header,
  leadList,
  leadPage,
  loginForm,
  makeOlder,
  openFigures,
  openSearch,
  searchFor,
  sendLead,
  signIn,
} from '../support/inbox';
import type { RunningServer } from '../support/server';

const fresh = {
  name: 'Олена Коваль',
  phone: '067 123 45 01',
  comment: 'Прошу передзвонити після 18:00, бо до того я на роботі й не можу говорити, дякую за розуміння',
};
const nearDeadline = { name: 'Петро Іваненко', phone: '+380 50 111 22 33', comment: 'Коротко' };
const calledBefore = { name: 'Галина Мельник', phone: '066 555 44 33' };

/** Runs in the signed-in page: the lead as `GET /admin/api/leads/{id}` answers it. */
async function leadAnswer(page: Page, id: number): Promise<{ next_call_at: string | null; status: string }> {
  return page.evaluate(async (leadId) => {
    const res = await fetch(`/admin/api/leads/${leadId}`);
    return (await res.json()).lead;
  }, id);
}

/** "Я телефоную" for the signed-in operator, as the lead's page does it (with the session's CSRF token). */
async function take(page: Page, id: number): Promise<void> {
  const status = await page.evaluate(async (leadId) => {
    const session = await (await fetch('/admin/api/session')).json();
    const res = await fetch(`/admin/api/leads/${leadId}/take`, {
      method: 'POST',
      headers: { 'X-CSRF-Token': session.csrf_token },
    });
    return res.status;
  }, id);
  expect(status, `taking lead ${id}`).toBe(200);
}

/** The call-back the last call set comes due now (the server has no clock to move). */
async function makeDue(server: RunningServer, id: number): Promise<void> {
  const at = new Date(Date.now() - 60_000).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  const changed = await server.sql('UPDATE "CRN" SET next_call_at = ? WHERE id = ? AND call_back = 1', [at, id]);
  expect(changed, `lead ${id}'s call-back made due`).toBe(1);
}

/** Kyiv wall-clock time (as a datetime-local field holds it) of an instant, read by the runtime's own zone data. */
function kyivWallClock(ms: number): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Kyiv',
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    })
      .formatToParts(ms)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

/** Tomorrow 18:30 in Kyiv: the field's value, and the one UTC instant it names (Kyiv is 2 or 3 hours ahead). */
function tomorrowEvening(): { field: string; instant: number } {
  const field = `${kyivWallClock(Date.now() + 86_400_000).slice(0, 10)}T18:30`;
  const asUtc = Date.parse(`${field}:00Z`);
  const instant = [2, 3].map((hours) => asUtc - hours * 3_600_000).find((at) => kyivWallClock(at) === field);
  expect(instant, `a UTC instant for ${field} in Kyiv`).toBeDefined();
  return { field, instant: instant! };
}

const SCREENS = [
  { name: 'a phone (360×740, touch)', use: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
  { name: 'a desktop (1280×800)', use: { viewport: { width: 1280, height: 800 } } },
];

for (const screen of SCREENS) {
  test.describe(`on ${screen.name}`, () => {
    test.use({ ...screen.use, operator: OPERATOR });
    test.beforeEach(({ browserLog }) => browserLog.allow(SIGNED_OUT_CHECK));

    test('opens on the calls to make now, in their order: the first call button on the first screen, the card with the comment, time left and who has it', async ({
      page,
      server,
    }) => {
      test.slow(); // three leads, a call, and axe on the desk
      const newest = await sendLead(server, fresh);
      const oldest = await sendLead(server, nearDeadline);
      const called = await sendLead(server, calledBefore);
      await makeOlder(server, oldest, 40);
      await makeOlder(server, called, 2);
      await signIn(page);
      const due = dueList(page);

      // Nobody called yet: the nearest deadline first.
      await expect(page.getByRole('heading', { level: 1, name: INBOX.due, exact: true })).toBeAttached();
      await expect(desk(page).due).toHaveAttribute('aria-current', 'page');
      await expectDue(page, [oldest, called, newest]);

      // A call without an answer: the card says when the next try is, and the lead leaves the list.
      await due.outcome(called, 'Не відповіли').click();
      await expect(due.card(called)).toContainText(/Не відповіли\. Наступний дзвінок: \d\d\.\d\d\.\d{4}, \d\d:\d\d\./);
      const retry = await leadAnswer(page, called);
      expect(retry.status).toBe('attempt_1');
      expect(Date.parse(retry.next_call_at!)).toBeGreaterThan(Date.now());
      await expect(page.getByRole('status')).toHaveText('Дзвінок записано.');
      await page.reload();
      await expect(due.links).toHaveCount(2);
      await expectDue(page, [oldest, newest]);

      // Its retry comes due: call-backs first, before every deadline.
      await makeDue(server, called);
      await take(page, oldest);
      await page.reload();
      await expect(due.links).toHaveCount(3);
      await expectDue(page, [called, oldest, newest]);

      // The first card: its call button, large and on the first screen without scrolling.
      const first = due.call(called);
      await expect(first).toHaveAttribute('href', 'tel:+380665554433');
      await expect(first).toContainText('+380 66 555 44 33');
      const box = (await first.boundingBox())!;
      const viewport = page.viewportSize()!;
      expect(box.y, 'the first call button starts on screen').toBeGreaterThanOrEqual(0);
      expect(box.y + box.height, 'the first call button ends on the first screen').toBeLessThanOrEqual(viewport.height);
      expect(box.height, 'the call button is large').toBeGreaterThanOrEqual(60);
      expect(await page.evaluate(() => window.scrollY)).toBe(0);

      // The cards: the start of the comment, the time left, who has the lead.
      await expect(due.card(newest)).toContainText('«Прошу передзвонити після 18:00, бо до того я на роботі й не можу говорити, дякую за…»');
      await expect(due.card(oldest)).toContainText('«Коротко»');
      await expect(due.card(oldest)).toContainText(/Залишилось 7 год \d+ хв/);
      await expect(due.card(oldest)).toContainText(`Ви телефонуєте (до `);
      await expect(due.card(called)).toContainText('Спроба 1');
      await expectNoSidewaysScroll(page, 'the call desk');
      await expectNoA11yViolations(page, 'the call desk');
    });

    test('"Передзвонити о …" keeps the Kyiv time typed, with the note; the lead is called then, and its page says so', async ({
      page,
      server,
    }) => {
      const id = await sendLead(server, fresh);
      const other = await sendLead(server, nearDeadline);
      await signIn(page);
      const due = dueList(page);
      const { field, instant } = tomorrowEvening();

      await due.callBack(id).click();
      await expect(due.callBack(id)).toHaveAttribute('aria-expanded', 'true');
      await due.noteToggle(id).click();
      await due.note(id).fill('Просила після роботи');
      await expectNoA11yViolations(page, 'a card with its call-back time and note open');

      // No time yet: said, nothing sent.
      await due.callBackSave(id).click();
      await expect(due.card(id).getByRole('alert')).toHaveText('Вкажіть, коли передзвонити.');
      await due.callBackAt(id).fill(field);
      await due.callBackSave(id).click();
      const when = `${field.slice(8, 10)}.${field.slice(5, 7)}.${field.slice(0, 4)}, 18:30`;
      await expect(due.card(id)).toContainText(`Просить передзвонити. Наступний дзвінок: ${when}.`);
      await expect(due.card(id).getByRole('link', { name: `Заявка №${id}`, exact: true })).toBeVisible();
      await expect(due.call(other)).toBeVisible();
      await expectNoA11yViolations(page, 'the desk after a call was recorded');

      const lead = await leadAnswer(page, id);
      expect(Date.parse(lead.next_call_at!), `${field} in Kyiv`).toBe(instant);
      expect(lead.status).toBe('new');
      await page.reload();
      await expectDue(page, [other]);

      // The lead's own page: when the next call is, and the call with its note.
      await page.goto(`/admin/leads/${id}`);
      await expect(leadPage(page).heading(id)).toBeVisible();
      await expect(page.getByText(`Наступний дзвінок: ${when}`, { exact: true })).toBeVisible();
      await expect(leadPage(page).calls).toContainText('Просить передзвонити');
      await expect(leadPage(page).calls).toContainText('Просила після роботи');
    });

    test('a closing outcome is one tap: the card says the lead is closed; nothing left to call says so', async ({
      page,
      server,
    }) => {
      const id = await sendLead(server, fresh);
      await signIn(page);
      const due = dueList(page);
      await due.outcome(id, 'Зацікавлені').click();
      await expect(due.card(id)).toContainText('Зацікавлені. Заявку закрито.');
      expect((await leadAnswer(page, id)).status).toBe('interested');
      await page.reload();
      await expect(due.empty).toBeVisible();
      await expectNoA11yViolations(page, 'the desk with nobody to call');
    });

    test('the figures and the search are one tap away; the menu holds the account, the admins\' pages, the exports and "Вийти"', async ({
      page,
      server,
    }) => {
      test.slow(); // axe on four screens
      const id = await sendLead(server, fresh);
      await signIn(page);
      const due = dueList(page);
      await expect(due.call(id)).toBeVisible();

      // The figures: folded away on a phone, beside the list on a desktop.
      const wide = page.viewportSize()!.width >= 960;
      await expect(desk(page).figuresToggle).toHaveCount(wide ? 0 : 1);
      if (!wide) await expect(desk(page).figures).toBeHidden();
      await openFigures(page);
      await expect(page.getByText('Відкриті: 1', { exact: true })).toBeVisible();
      await expect(page.getByRole('img', { name: INBOX.chart, exact: true })).toBeVisible();
      await expectNoA11yViolations(page, 'the desk with its figures');
      if (wide) {
        const figures = (await desk(page).figures.boundingBox())!;
        const card = (await due.card(id).boundingBox())!;
        expect(figures.x, 'the figures beside the list').toBeGreaterThan(card.x + card.width);
      }

      // The search: every lead, newest first, found by name.
      await openSearch(page);
      await expect(desk(page).search).toHaveAttribute('aria-current', 'page');
      await searchFor(page, 'олена');
      await expect(leadList(page).links).toHaveText([`Заявка №${id}`]);
      await expectNoA11yViolations(page, 'the search view');
      await desk(page).due.click();
      await expect(due.call(id)).toBeVisible();

      // The menu: closed, its items are not on the screen; open, each is one tap away.
      const bar = header(page);
      await expect(bar.menu).toHaveAttribute('aria-expanded', 'false');
      await expect(bar.signOut).toBeHidden();
      await bar.openMenu();
      for (const item of [bar.account(OPERATOR.email), bar.team, bar.audit, bar.exportCsv, bar.exportExcel, bar.signOut]) {
        await expect(item).toBeVisible();
      }
      await expectNoA11yViolations(page, 'the open menu');
      // Escape closes it and gives the focus back to its button.
      await page.keyboard.press('Escape');
      await expect(bar.menu).toHaveAttribute('aria-expanded', 'false');
      await expect(bar.menu).toBeFocused();
      // An item goes where it says, and the menu closes behind it.
      await bar.openMenu();
      await bar.team.click();
      await expect(page.getByRole('heading', { level: 1, name: INBOX.team, exact: true })).toBeVisible();
      await expect(bar.menu).toHaveAttribute('aria-expanded', 'false');
      // A tap outside closes it too (at the window's bottom left corner: the panel drops from the right).
      await bar.openMenu();
      await page.mouse.click(4, page.viewportSize()!.height - 4);
      await expect(bar.menu).toHaveAttribute('aria-expanded', 'false');
      await bar.openMenu();
      await bar.signOut.click();
      await expect(loginForm(page).submit).toBeVisible();
    });
  });
}
