// How the 48-hour promise is kept (issue 31): with the other figures, one tap from the call desk,
// tables of the waits for the first call and for reaching the person and of the share reached in
// time, per operator and per source, on a 360 px phone and on a desktop: readable without
// scrolling sideways, and clean under axe.
import type { Page } from '@playwright/test';
import { expect, test } from '../support/fixtures';
import {
  OPERATOR,
  SIGNED_OUT_CHECK,
  desk,
  expectNoA11yViolations,
  expectNoSidewaysScroll,
  openFigures,
  sendLead,
  signIn,
} from '../support/inbox';
import type { RunningServer } from '../support/server';

const HEADING = 'Як ми тримаємо обіцянку (30 днів)';

/** A time as the store keeps it: RFC 3339 UTC with six fractional digits. */
function stored(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** A call recorded as the lead's page records it (with the session's CSRF token). */
async function call(page: Page, id: number, outcome: string): Promise<void> {
  const status = await page.evaluate(
    async ({ leadId, outcome }) => {
      const session = await (await fetch('/admin/api/session')).json();
      const res = await fetch(`/admin/api/leads/${leadId}/attempts`, {
        method: 'POST',
        headers: { 'X-CSRF-Token': session.csrf_token, 'Content-Type': 'application/json' },
        body: JSON.stringify({ outcome, note: '' }),
      });
      return res.status;
    },
    { leadId: id, outcome },
  );
  expect(status, `a call to lead ${id}`).toBe(201);
}

/**
 * Lead `id` sent `hours` ago and its calls `minutes` after that (the server has no clock to move);
 * a lead a call reached was reached then.
 */
async function placeInTime(server: RunningServer, id: number, hours: number, minutes: number): Promise<void> {
  const sent = Date.now() - hours * 3_600_000;
  const at = stored(sent + minutes * 60_000);
  expect(await server.sql('UPDATE "CRN" SET created_at = ? WHERE id = ?', [stored(sent), id])).toBe(1);
  expect(await server.sql('UPDATE call_attempts SET at = ? WHERE lead_id = ?', [at, id])).toBe(1);
  await server.sql('UPDATE "CRN" SET reached_at = ? WHERE id = ? AND reached_at IS NOT NULL', [at, id]);
}

/** The table's rows as their cells' texts, the header row first. */
async function rows(page: Page, caption: string): Promise<string[][]> {
  const table = page.getByRole('region', { name: HEADING }).getByRole('table', { name: caption, exact: true });
  await expect(table).toBeVisible();
  return table.locator('tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('th, td')].map((cell) => cell.textContent ?? '')),
  );
}

const screens = [
  { name: 'a phone (360×740, touch)', use: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
  { name: 'a desktop (1280×800)', use: { viewport: { width: 1280, height: 800 } } },
];

for (const screen of screens) {
  test.describe(`on ${screen.name}`, () => {
    test.use({ ...screen.use, operator: OPERATOR });
    // The inbox asks who is signed in before the sign-in form: a 401 it expects.
    test.beforeEach(({ browserLog }) => browserLog.allow(SIGNED_OUT_CHECK));

    test('the figures say how long people waited for the first call and for a talk, and how many were reached in 48 hours', async ({
      page,
      server,
    }) => {
      // Reached 3 hours after sending; called after 50 hours and not reached; not called yet.
      const reached = await sendLead(server, { name: 'Олена Коваль', phone: '067 123 45 01' });
      const late = await sendLead(server, { name: 'Петро Іваненко', phone: '050 111 22 33' });
      await sendLead(server, { name: 'Галина Мельник', phone: '066 555 44 33' });
      await signIn(page);
      await call(page, reached, 'interested');
      await call(page, late, 'no_answer');
      await placeInTime(server, reached, 10, 180);
      await placeInTime(server, late, 60, 3000);

      await page.reload();
      await expect(desk(page).due).toBeVisible();
      await openFigures(page);
      const figures = page.getByRole('region', { name: HEADING });
      await expect(figures).toBeVisible();
      const head = ['До першої спроби (медіана / 90%)', 'До розмови (медіана)', 'Додзвонилися за 48 год'];
      // First calls after 180 and 3000 minutes: a median of 26.5 hours, a 90th percentile of 45.3.
      const all = ['Усі заявки', '3', '1 дн 2 год / 1 дн 21 год', '3 год', '1 з 2 (50%)'];
      expect(await rows(page, 'За операторами')).toEqual([
        ['Оператор', 'Заявки', ...head],
        all,
        [OPERATOR.email, '2', '1 дн 2 год / 1 дн 21 год', '3 год', '1 з 2 (50%)'],
        ['Ще ніхто не дзвонив', '1', '—', '—', '—'],
      ]);
      expect(await rows(page, 'За джерелами')).toEqual([['Джерело', 'Заявки', ...head], all, ['Напряму', ...all.slice(1)]]);
      await expect(figures.getByRole('rowheader', { name: OPERATOR.email })).toBeVisible();

      await figures.scrollIntoViewIfNeeded();
      await expectNoSidewaysScroll(page, 'the promise figures');
      await expectNoA11yViolations(page, 'the promise figures');
    });
  });
}
