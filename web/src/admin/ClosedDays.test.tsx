// @vitest-environment jsdom
// The admins' "Вихідні дні" screen (docs/admin-api.md, "Closed days"): the settings' days shown
// read-only, the inbox's own added and removed. The real app under its /admin router, the server
// replaced at `fetch` by a small stand-in that keeps the list.
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { ClosedDay } from './api';
import { CSRF, OPERATOR_SESSION, type Recorded, apiError, fakeServer, json, signedInRoutes } from './test-server';
import { isolateEachTest, openInbox, openMenu } from './test-inbox';

isolateEachTest();

const TODAY = '2026-11-22';
const NEW_YEAR: ClosedDay = { day: '2027-01-01', note: null, source: 'settings', added_by: null, added_at: null };
const CHRISTMAS: ClosedDay = {
  day: '2026-12-25',
  note: 'Різдво',
  source: 'inbox',
  added_by: 'operator@example.org',
  added_at: '2026-11-20T09:15:00.000000Z',
};

/** The signed-in admin's routes with a list of closed days the way the server keeps it. */
function closedDayRoutes() {
  const days = new Map([CHRISTMAS, NEW_YEAR].map((day) => [day.day, day]));
  return {
    ...signedInRoutes(),
    'GET /admin/api/closed-days': () =>
      json({ today: TODAY, days: [...days.values()].sort((a, b) => a.day.localeCompare(b.day)) }),
    'POST /admin/api/closed-days': ({ body }: Recorded) => {
      const { day, note } = body as { day: string; note: string };
      if (day < TODAY) return apiError(400, 'Цей день уже минув (за київським часом): оберіть сьогодні або пізніше.');
      const known = days.get(day);
      if (known) return json(known, 200);
      const added: ClosedDay = { day, note: note || null, source: 'inbox', added_by: 'operator@example.org', added_at: '2026-11-22T04:02:30.000000Z' };
      days.set(day, added);
      return json(added, 201);
    },
    'DELETE /admin/api/closed-days/2026-12-25': () => {
      days.delete('2026-12-25');
      return new Response(null, { status: 204 });
    },
  };
}

const list = () => screen.findByRole('list', { name: 'Вихідні дні' });

describe('the closed days screen', () => {
  it('is in the menu, and shows the settings days without a way to remove them', async () => {
    fakeServer(closedDayRoutes());
    openInbox('/admin');
    await openMenu();
    fireEvent.click(within(screen.getByRole('banner')).getByRole('link', { name: 'Вихідні дні' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Вихідні дні' })).toBeTruthy();
    const [christmas, newYear] = within(await list()).getAllByRole('listitem');
    expect(christmas.textContent).toMatch(/^п.ятниця, 25 грудня 2026 р. — Різдво/);
    expect(christmas.textContent).toContain('Різдво');
    expect(christmas.textContent).toContain('Додав(ла) operator@example.org, 20.11.2026, 11:15');
    expect(within(christmas).getByRole('button', { name: 'Прибрати' })).toBeTruthy();
    expect(newYear.textContent).toContain('З налаштувань сервера (ZAYAVKA_CLOSED_DAYS)');
    expect(within(newYear).queryByRole('button')).toBeNull();
    expect(screen.getByLabelText('Дата').getAttribute('min')).toBe(TODAY);
  });

  it('adds a day with its note, says so and shows it in the list', async () => {
    const server = fakeServer(closedDayRoutes());
    openInbox('/admin/closed-days');
    await list();
    fireEvent.change(screen.getByLabelText('Дата'), { target: { value: '2026-12-31' } });
    fireEvent.change(screen.getByLabelText('Примітка (необов’язково)'), { target: { value: 'Передноворічний' } });
    fireEvent.click(screen.getByRole('button', { name: 'Додати' }));
    expect(await screen.findByText('Вихідний четвер, 31 грудня 2026 р. додано.')).toBeTruthy();
    const [post] = server.calls('POST /admin/api/closed-days');
    expect(post.body).toEqual({ day: '2026-12-31', note: 'Передноворічний' });
    expect(post.headers.get('X-CSRF-Token')).toBe(CSRF);
    await waitFor(() => expect(within(screen.getByRole('list', { name: 'Вихідні дні' })).getAllByRole('listitem')).toHaveLength(3));
    expect(screen.getByRole('list', { name: 'Вихідні дні' }).textContent).toContain('Передноворічний');
    // Once more: closed already, which is no error.
    fireEvent.change(screen.getByLabelText('Дата'), { target: { value: '2026-12-31' } });
    fireEvent.click(screen.getByRole('button', { name: 'Додати' }));
    expect(await screen.findByText('четвер, 31 грудня 2026 р. уже вихідний.')).toBeTruthy();
  });

  it("reads out the server's refusal of a past day, and asks for a date before sending", async () => {
    const server = fakeServer(closedDayRoutes());
    openInbox('/admin/closed-days');
    await list();
    fireEvent.click(screen.getByRole('button', { name: 'Додати' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Оберіть дату.');
    expect(server.calls('POST /admin/api/closed-days')).toHaveLength(0);
    fireEvent.change(screen.getByLabelText('Дата'), { target: { value: '2026-11-01' } });
    fireEvent.click(screen.getByRole('button', { name: 'Додати' }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toContain('Цей день уже минув'));
  });

  it('removes an inbox day only after asking', async () => {
    const server = fakeServer(closedDayRoutes());
    openInbox('/admin/closed-days');
    const christmas = () => within(screen.getByRole('list', { name: 'Вихідні дні' })).getAllByRole('listitem')[0];
    await list();
    fireEvent.click(within(christmas()).getByRole('button', { name: 'Прибрати' }));
    expect(christmas().textContent).toContain('Команда знову працюватиме цього дня');
    fireEvent.click(within(christmas()).getByRole('button', { name: 'Скасувати' }));
    expect(server.calls('DELETE /admin/api/closed-days/2026-12-25')).toHaveLength(0);
    fireEvent.click(within(christmas()).getByRole('button', { name: 'Прибрати' }));
    fireEvent.click(within(christmas()).getByRole('button', { name: 'Так, прибрати' }));
    expect(await screen.findByText(/^Вихідний .*25 грудня 2026 р\. прибрано\.$/)).toBeTruthy();
    const [removal] = server.calls('DELETE /admin/api/closed-days/2026-12-25');
    expect(removal.headers.get('X-CSRF-Token')).toBe(CSRF);
    await waitFor(() => expect(within(screen.getByRole('list', { name: 'Вихідні дні' })).getAllByRole('listitem')).toHaveLength(1));
  });

  it('is not for an operator: no link, and the page says so', async () => {
    fakeServer({ ...closedDayRoutes(), 'GET /admin/api/session': () => json(OPERATOR_SESSION) });
    openInbox('/admin/closed-days');
    expect(await screen.findByText('Це може зробити лише адміністратор.')).toBeTruthy();
    await openMenu();
    expect(within(screen.getByRole('banner')).queryByRole('link', { name: 'Вихідні дні' })).toBeNull();
  });
});
