// @vitest-environment jsdom
// The admins' "Сповіщення" screen (docs/admin-api.md, "Notifications not delivered") and a lead's
// marks (at risk of days off, escalated, wrote again). The real app under its /admin router, the
// server replaced at `fetch` by recorded answers.
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  CSRF,
  LEAD_OPEN,
  LEAD_OVERDUE,
  OPERATOR_SESSION,
  apiError,
  fakeServer,
  json,
  leadDetail,
  leadPage,
  notificationRoutes,
  signedInRoutes,
} from './test-server';
import { isolateEachTest, openInbox, openMenu } from './test-inbox';

isolateEachTest();

const queued = () => screen.findByRole('list', { name: 'Сповіщення в черзі' });

describe('the notifications screen', () => {
  it('is linked from the menu and from the failing-channel warning on the desk', async () => {
    fakeServer(notificationRoutes());
    openInbox('/admin');
    const warning = await screen.findByRole('alert');
    expect(warning.textContent).toContain('Сповіщення не доходять.');
    fireEvent.click(within(warning).getByRole('link', { name: /Сповіщення: надіслати ще раз або відкинути/ }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Сповіщення' })).toBeTruthy();
    await openMenu();
    const link = within(screen.getByRole('banner')).getByRole('link', { name: 'Сповіщення' });
    expect(link.getAttribute('href')).toBe('/admin/notifications');
  });

  it("shows each channel's state and last error, and each waiting notification in Kyiv time", async () => {
    fakeServer(notificationRoutes());
    openInbox('/admin/notifications');
    const channels = await screen.findByRole('list', { name: 'Канали' });
    expect(channels.textContent).toContain('Вебхук');
    expect(channels.textContent).toContain('не працює: невдалих 2');
    expect(channels.textContent).toContain('Остання помилка: connection refused');
    const items = within(await queued()).getAllByRole('listitem');
    expect(items).toHaveLength(2);
    expect(within(items[0]).getByRole('link', { name: 'Заявка №42' }).getAttribute('href')).toBe('/admin/leads/42');
    expect(items[0].textContent).toContain('Нова заявка');
    expect(items[0].textContent).toContain('Спроб: 3');
    // 04:10 UTC is 06:10 in Kyiv in November.
    expect(items[0].textContent).toContain('Наступна спроба: 22.11.2026, 06:10');
    expect(items[1].textContent).toContain('Нагадування');
    expect(items[1].textContent).toContain('Остання помилка: HTTP 502');
  });

  it('sends one again: it leaves the list and the screen says so', async () => {
    const server = fakeServer(notificationRoutes());
    openInbox('/admin/notifications');
    const first = within(await queued()).getAllByRole('listitem')[0];
    fireEvent.click(within(first).getByRole('button', { name: 'Надіслати ще раз' }));
    expect(await screen.findByText('Сповіщення про заявку №42 надсилається ще раз.')).toBeTruthy();
    const calls = server.calls('POST /admin/api/notifications/7/send-again');
    expect(calls).toHaveLength(1);
    expect(calls[0].headers.get('X-CSRF-Token')).toBe(CSRF);
    await waitFor(() => expect(within(screen.getByRole('list', { name: 'Сповіщення в черзі' })).getAllByRole('listitem')).toHaveLength(1));
  });

  it('drops one only after asking, and cancelling drops nothing', async () => {
    const server = fakeServer(notificationRoutes());
    openInbox('/admin/notifications');
    const second = () => within(screen.getByRole('list', { name: 'Сповіщення в черзі' })).getAllByRole('listitem')[1];
    await queued();
    fireEvent.click(within(second()).getByRole('button', { name: 'Відкинути' }));
    expect(second().textContent).toContain('Його не буде надіслано ніколи');
    fireEvent.click(within(second()).getByRole('button', { name: 'Скасувати' }));
    expect(server.calls('POST /admin/api/notifications/8/drop')).toHaveLength(0);
    fireEvent.click(within(second()).getByRole('button', { name: 'Відкинути' }));
    fireEvent.click(within(second()).getByRole('button', { name: 'Так, відкинути' }));
    expect(await screen.findByText('Сповіщення про заявку №41 відкинуто.')).toBeTruthy();
    expect(server.calls('POST /admin/api/notifications/8/drop')).toHaveLength(1);
    await waitFor(() => expect(within(screen.getByRole('list', { name: 'Сповіщення в черзі' })).getAllByRole('listitem')).toHaveLength(1));
  });

  it("says in the server's words when a notification is already gone", async () => {
    fakeServer({
      ...notificationRoutes(),
      'POST /admin/api/notifications/7/send-again': () =>
        apiError(404, 'Цього сповіщення вже немає в черзі: його надіслано або відкинуто.'),
    });
    openInbox('/admin/notifications');
    const first = within(await queued()).getAllByRole('listitem')[0];
    fireEvent.click(within(first).getByRole('button', { name: 'Надіслати ще раз' }));
    expect((await within(first).findByRole('alert')).textContent).toBe(
      'Цього сповіщення вже немає в черзі: його надіслано або відкинуто.',
    );
  });

  it('says all is sent when nothing waits', async () => {
    fakeServer({ ...signedInRoutes(), 'GET /admin/api/notifications': () => json({ channels: [], notifications: [] }) });
    openInbox('/admin/notifications');
    expect(await screen.findByText('Усе надіслано: нічого не чекає.')).toBeTruthy();
    expect(screen.getByText('Сповіщень у черзі немає')).toBeTruthy();
  });

  it('is not for an operator: no link, no warning link, and the page says so', async () => {
    fakeServer({ ...notificationRoutes(), 'GET /admin/api/session': () => json(OPERATOR_SESSION) });
    openInbox('/admin');
    const warning = await screen.findByRole('alert');
    expect(within(warning).queryByRole('link')).toBeNull();
    await openMenu();
    expect(within(screen.getByRole('banner')).queryByRole('link', { name: 'Сповіщення' })).toBeNull();
  });
});

describe("a lead's marks", () => {
  const marked = {
    ...LEAD_OPEN,
    at_risk: true,
    escalated_at: '2026-11-21T12:00:00.000000Z',
    wrote_again: { at: '2026-11-21T16:30:00.000000Z', comment: 'Можна дзвонити лише після 18:00' },
  };

  it('show on the desk card: days off ahead, escalated and wrote again, with times and the comment', async () => {
    fakeServer({ ...signedInRoutes(), 'GET /admin/api/leads': () => json(leadPage([marked, LEAD_OVERDUE])) });
    openInbox('/admin');
    const marks = await screen.findByRole('list', { name: 'Позначки заявки' });
    expect(marks.textContent).toContain('Під загрозою: вихідні');
    expect(marks.textContent).toContain('Ескальовано 21.11.2026, 14:00');
    expect(marks.textContent).toContain('Написав(ла) ще раз 21.11.2026, 18:30: «Можна дзвонити лише після 18:00»');
    // The other lead has none, and a server that does not send the fields shows none.
    expect(screen.getAllByRole('list', { name: 'Позначки заявки' })).toHaveLength(1);
  });

  it("show on the lead's page", async () => {
    fakeServer({ ...signedInRoutes(), 'GET /admin/api/leads/42': () => json(leadDetail(marked, [])) });
    openInbox('/admin/leads/42');
    const marks = await screen.findByRole('list', { name: 'Позначки заявки' });
    expect(within(marks).getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      'Під загрозою: вихідні',
      'Ескальовано 21.11.2026, 14:00',
      'Написав(ла) ще раз 21.11.2026, 18:30: «Можна дзвонити лише після 18:00»',
    ]);
  });
});
