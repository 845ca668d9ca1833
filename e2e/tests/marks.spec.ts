// The marks the server puts on an open lead (issue 31, web/src/admin/LeadMarks.tsx), on its card in
// "Кому дзвонити зараз" and on its own page, in a real browser against the real binary, on a 360 px
// phone and on a desktop: "Під загрозою: вихідні" (its 48 hours end in days off, decided from its
// arrival), "Ескальовано …" (nobody tried it within ZAYAVKA_ESCALATE_AFTER_HOURS, found by the
// background scan) and "Написав(ла) ще раз …" (the person sent the form again, with the newest
// comment, and is still one card to call). axe checks each screen with a mark.
import type { Locator, Page } from '@playwright/test';
import { expect, test } from '../support/fixtures';
import {
  OPERATOR,
  SIGNED_OUT_CHECK,
  dueList,
  expectDue,
  expectNoA11yViolations,
  expectNoSidewaysScroll,
  leadPage,
  makeOlder,
  sendLead,
  signIn,
} from '../support/inbox';

const SCREENS = [
  { name: 'a phone (360×740, touch)', use: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
  { name: 'a desktop (1280×800)', use: { viewport: { width: 1280, height: 800 } } },
];

const olena = { name: 'Олена Коваль', phone: '067 123 45 01', comment: 'Передзвоніть увечері' };
const petro = { name: 'Петро Іваненко', phone: '+380 50 111 22 33', comment: null };

/** A time as the inbox writes it, in Kyiv time: "26.11.2026, 11:45". */
const KYIV_TIME = String.raw`\d\d\.\d\d\.\d{4}, \d\d:\d\d`;

/** The marks of a lead (on its card, or on its page), one list item each. */
function marks(scope: Locator | Page): Locator {
  return scope.getByRole('list', { name: 'Позначки заявки', exact: true }).getByRole('listitem');
}

/** A Kyiv date `days` calendar days after today's (Kyiv), spelt as ZAYAVKA_CLOSED_DAYS wants it. */
function kyivDate(days: number): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Kyiv', year: 'numeric', month: '2-digit', day: '2-digit' })
      .formatToParts(Date.now())
      .map((part) => [part.type, part.value]),
  );
  const today = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day));
  return new Date(today + days * 86_400_000).toISOString().slice(0, 10);
}

/** Opens a lead from its card on the desk, as an operator does, and waits for its page. */
async function openFromDesk(page: Page, id: number): Promise<void> {
  await dueList(page).card(id).getByRole('link', { name: `Заявка №${id}`, exact: true }).click();
  await expect(leadPage(page).heading(id)).toBeVisible();
}

for (const screen of SCREENS) {
  test.describe(`on ${screen.name}`, () => {
    test.use({ ...screen.use, operator: OPERATOR });
    test.beforeEach(({ browserLog }) => browserLog.allow(SIGNED_OUT_CHECK));

    test.describe('with the next three days closed', () => {
      // Kyiv's tomorrow and the two days after it, computed when the test starts. No working hours:
      // every hour of an open day counts, so the closure starts at the coming midnight and the team
      // is back at midnight after the third day. A lead sent at any time today (or just past
      // midnight, should the date turn meanwhile) has its 48 hours end inside it, a DST hour or not.
      test.use({
        settings: async ({}, use) =>
          use({ ZAYAVKA_CLOSED_DAYS: [1, 2, 3].map(kyivDate).join(','), ZAYAVKA_WORKING_HOURS: null }),
      });

      test('a lead whose 48 hours end in the days off is at risk from its arrival, on its card and its page; one past its deadline before them is not', async ({
        page,
        server,
      }) => {
        test.slow(); // axe on two screens
        const risky = await sendLead(server, olena);
        // Its 48 hours ended yesterday: before the closure, nothing to warn about.
        const late = await sendLead(server, petro);
        await makeOlder(server, late, 60);
        await signIn(page);
        const due = dueList(page);
        await expectDue(page, [late, risky]);

        await expect(marks(due.card(risky))).toHaveText(['Під загрозою: вихідні']);
        await expect(marks(due.card(late))).toHaveCount(0);
        await expectNoSidewaysScroll(page, 'the desk with a lead at risk');
        await expectNoA11yViolations(page, 'the desk with a lead at risk');

        await openFromDesk(page, risky);
        await expect(marks(page)).toHaveText(['Під загрозою: вихідні']);
        await expectNoSidewaysScroll(page, 'the page of a lead at risk');
        await expectNoA11yViolations(page, 'the page of a lead at risk');
      });
    });

    test.describe('with escalation after 24 hours, scanned every second, and a webhook nobody answers', () => {
      // A channel the admins are told through, as most teams have one (without any, the lead is
      // marked all the same); port 9 (discard) is closed here, so every send is refused: the mark
      // does not wait for it.
      test.use({
        settings: {
          ZAYAVKA_WEBHOOK_URL: 'http://127.0.0.1:9/hook',
          ZAYAVKA_ESCALATE_AFTER_HOURS: '24',
          ZAYAVKA_REMINDER_SCAN_SECONDS: '1',
          ZAYAVKA_WORKING_HOURS: null,
          ZAYAVKA_CLOSED_DAYS: null,
        },
      });

      test('a lead nobody tried for 24 hours is marked escalated, on its card and its page, when the scan finds it', async ({
        page,
        server,
      }) => {
        test.slow(); // a scan to wait for, axe on two screens
        const forgotten = await sendLead(server, olena);
        const fresh = await sendLead(server, petro);
        await signIn(page);
        const due = dueList(page);
        await expectDue(page, [forgotten, fresh]);
        await expect(marks(due.card(forgotten))).toHaveCount(0);

        // The server reads the system clock: the lead is made 25 hours old in its database, and the
        // next scan (a second at most) reports it and says so in the log.
        const scanned = Date.now();
        await makeOlder(server, forgotten, 25);
        await expect
          .poll(() => server.log(), { message: 'the scan reports the lead to the admins', timeout: 10_000 })
          .toMatch(/leads nobody called reported to the admins.*\bescalated=1\b/);
        await page.reload();
        await expectDue(page, [forgotten, fresh]);

        const mark = marks(due.card(forgotten));
        await expect(mark).toHaveText([new RegExp(`^Ескальовано ${KYIV_TIME}$`)]);
        const at = Date.parse((await mark.locator('time').getAttribute('datetime'))!);
        expect(at, 'escalated after the lead was made old').toBeGreaterThanOrEqual(scanned - 1_000);
        expect(at, 'escalated by now').toBeLessThanOrEqual(Date.now());
        await expect(marks(due.card(fresh))).toHaveCount(0);
        await expectNoSidewaysScroll(page, 'the desk with an escalated lead');
        await expectNoA11yViolations(page, 'the desk with an escalated lead');

        await openFromDesk(page, forgotten);
        await expect(marks(page)).toHaveText([new RegExp(`^Ескальовано ${KYIV_TIME}$`)]);
        await expectNoSidewaysScroll(page, 'the page of an escalated lead');
        await expectNoA11yViolations(page, 'the page of an escalated lead');
      });
    });

    test('the person sending the form again while their lead is open shows on its card with the newest comment, still one card to call', async ({
      page,
      server,
    }) => {
      test.slow(); // axe on two screens
      const first = await sendLead(server, olena);
      await signIn(page);
      const due = dueList(page);
      await expectDue(page, [first]);
      await expect(marks(due.card(first))).toHaveCount(0);

      // Twice more from the same number, written differently each time.
      await sendLead(server, { name: 'Олена', phone: '+380 67 123 45 01', comment: 'Можна й зранку' });
      await sendLead(server, { name: 'Олена К.', phone: '0671234501', comment: 'Краще після обіду, дякую' });
      const stored = await server.leads();
      expect(stored.map((lead) => lead.held), 'all three stored, none held').toEqual([null, null, null]);
      const newest = stored[2];

      await page.reload();
      await expectDue(page, [first]);
      const mark = marks(due.card(first));
      await expect(mark).toHaveText([new RegExp(`^Написав\\(ла\\) ще раз ${KYIV_TIME}: «Краще після обіду, дякую»$`)]);
      expect(Date.parse((await mark.locator('time').getAttribute('datetime'))!), 'the newest sending').toBe(
        Date.parse(newest.created_at),
      );
      await expect(due.card(first)).toContainText('Ще заявок від цієї людини: 2');
      await expect(due.card(first)).toContainText(`«${olena.comment}»`);
      await expectNoSidewaysScroll(page, 'the desk with a lead whose person wrote again');
      await expectNoA11yViolations(page, 'the desk with a lead whose person wrote again');

      await openFromDesk(page, first);
      await expect(marks(page)).toHaveText([
        new RegExp(`^Написав\\(ла\\) ще раз ${KYIV_TIME}: «Краще після обіду, дякую»$`),
      ]);
      await expectNoSidewaysScroll(page, 'the page of a lead whose person wrote again');
      await expectNoA11yViolations(page, 'the page of a lead whose person wrote again');
    });
  });
}
