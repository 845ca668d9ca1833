// @vitest-environment jsdom
// How the 48-hour promise is kept, under "Показники": tables an operator reads row by row, and a
// screen reader by their captions and headers.
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { PROMISE_REFRESH_MS, waited } from './Promise';
import { isolateEachTest, openFigures, openInbox } from './test-inbox';
import { OPERATOR_SESSION, PROMISE, apiError, fakeServer, json, signedInRoutes } from './test-server';

isolateEachTest();

const rows = (table: HTMLElement) =>
  within(table)
    .getAllByRole('row')
    .map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent));

describe('how the promise is kept', () => {
  it('is shown with the figures, per operator and per source, each row against all leads', async () => {
    fakeServer(signedInRoutes());
    openInbox('/admin');
    await openFigures();
    const figures = await screen.findByRole('region', { name: 'Як ми тримаємо обіцянку (30 днів)' });
    const operators = await within(figures).findByRole('table', { name: 'За операторами' });
    expect(rows(operators)).toEqual([
      ['Оператор', 'Заявки', 'До першої спроби (медіана / 90%)', 'До розмови (медіана)', 'Додзвонилися за 48 год'],
      ['Усі заявки', '4', '45 хв / 1 дн 19 год', '2 год 5 хв', '2 з 3 (67%)'],
      ['operator@example.org', '2', '33 хв / 43 хв', '1 год 13 хв', '2 з 2 (100%)'],
      ['petro@example.org', '1', '2 дн / 2 дн', '2 дн 2 год', '0 з 1 (0%)'],
      ['Ще ніхто не дзвонив', '1', '—', '—', '—'],
    ]);
    expect(within(operators).getByRole('rowheader', { name: 'petro@example.org' })).toBeTruthy();
    const sources = within(figures).getByRole('table', { name: 'За джерелами' });
    expect(rows(sources).map((row) => row[0])).toEqual(['Джерело', 'Усі заявки', 'facebook', 'Напряму']);
  });

  it('names an operator\'s own leads as theirs', async () => {
    fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/session': () => json(OPERATOR_SESSION),
      'GET /admin/api/stats/promise': () =>
        json({ ...PROMISE, by_operator: [{ ...PROMISE.by_operator[0], operator: OPERATOR_SESSION.email }] }),
    });
    openInbox('/admin');
    await openFigures();
    const own = await screen.findByRole('table', { name: 'Ваші заявки' });
    expect(rows(own).map((row) => row[0])).toEqual(['Оператор', 'Усі заявки', OPERATOR_SESSION.email]);
  });

  it('says when the figures could not be read, and reads them again on request', async () => {
    let fail = true;
    const server = fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/stats/promise': () =>
        fail ? apiError(503, 'База даних зараз недоступна. Спробуйте за хвилину.') : json(PROMISE),
    });
    openInbox('/admin');
    await openFigures();
    const figures = await screen.findByRole('region', { name: 'Як ми тримаємо обіцянку (30 днів)' });
    expect(await within(figures).findByRole('alert')).toHaveProperty(
      'textContent',
      'База даних зараз недоступна. Спробуйте за хвилину.',
    );
    fail = false;
    const asked = server.calls('GET /admin/api/stats/promise').length;
    fireEvent.click(within(figures).getByRole('button', { name: 'Спробувати ще раз' }));
    expect(await within(figures).findByRole('table', { name: 'За операторами' })).toBeTruthy();
    await waitFor(() => expect(within(figures).queryByRole('alert')).toBeNull());
    expect(server.calls('GET /admin/api/stats/promise').length).toBeGreaterThan(asked);
  });

  it('is asked again every ten minutes while shown, and stays shown meanwhile', async () => {
    // Fake time that still moves on by itself, so that findBy and waitFor keep polling.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let overall = PROMISE.overall;
    const server = fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/stats/promise': () => json({ ...PROMISE, overall }),
    });
    openInbox('/admin');
    await openFigures();
    const figures = await screen.findByRole('region', { name: 'Як ми тримаємо обіцянку (30 днів)' });
    const operators = await within(figures).findByRole('table', { name: 'За операторами' });
    expect(rows(operators)[1][4]).toBe('2 з 3 (67%)');
    const asked = server.calls('GET /admin/api/stats/promise').length;
    overall = { ...PROMISE.overall, reached_in_time: 3, reached_in_time_share: 1 };

    await act(async () => vi.advanceTimersByTime(PROMISE_REFRESH_MS - 1000));
    expect(server.calls('GET /admin/api/stats/promise').length).toBe(asked);
    await act(async () => vi.advanceTimersByTime(1000));
    await waitFor(() => expect(rows(operators)[1][4]).toBe('3 з 3 (100%)'));
    expect(server.calls('GET /admin/api/stats/promise').length).toBe(asked + 1);
  });
});

describe('a wait', () => {
  it('reads in minutes, hours and days', () => {
    expect([0, 59, 60, 125, 1439, 1440, 3000, null].map(waited)).toEqual([
      '0 хв',
      '59 хв',
      '1 год',
      '2 год 5 хв',
      '23 год 59 хв',
      '1 дн',
      '2 дн 2 год',
      '—',
    ]);
  });
});
