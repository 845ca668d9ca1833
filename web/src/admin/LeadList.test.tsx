// @vitest-environment jsdom
// The call desk's "Пошук і фільтри" and its figures: every lead newest first, searched, filtered
// and paged, with the server replaced at `fetch` by recorded answers (docs/admin-api.md).
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { REFRESH_SHOWN_MS } from './clock';
import { SEARCH_DEBOUNCE_MS } from './LeadList';
import { LEAD_CLOSED, LEAD_OPEN, LEAD_OVERDUE, STATS, fakeServer, json, leadPage, signedInRoutes } from './test-server';
import { isolateEachTest, openFigures, openInbox } from './test-inbox';

isolateEachTest();

/**
 * "Все" with two leads and "Показати ще" pressed for a third; `arrive` makes a new lead come on the
 * first page (and the second lead of it go) for the next time it is asked for.
 */
async function listWithMoreShown() {
  const NEW_LEAD = { ...LEAD_OPEN, id: 50, name: 'Ганна' };
  let arrived = false;
  const server = fakeServer({
    ...signedInRoutes(),
    'GET /admin/api/leads': ({ params }) => {
      if (params.get('before_id') === '41') return json(leadPage([LEAD_CLOSED]));
      return json(arrived ? leadPage([NEW_LEAD, LEAD_OPEN], 42) : leadPage([LEAD_OPEN, LEAD_OVERDUE], 41));
    },
  });
  openInbox('/admin?filter=all');
  expect(await screen.findAllByRole('listitem')).toHaveLength(2);
  fireEvent.click(screen.getByRole('button', { name: 'Показати ще' }));
  await waitFor(() => expect(screen.getAllByRole('listitem')).toHaveLength(3));
  const names = () => screen.getAllByRole('listitem').map((item) => item.querySelector('.lead-name')?.textContent);
  return { server, names, arrive: () => (arrived = true) };
}

describe('"Пошук і фільтри"', () => {
  it('shows each lead with its link, Kyiv time, status and time left; an overdue one stands out', async () => {
    const server = fakeServer(signedInRoutes());
    openInbox('/admin?filter=all');

    const items = await screen.findAllByRole('listitem');
    expect(items).toHaveLength(3);
    const [fresh, overdue, closed] = items;

    expect(within(fresh).getByRole('link', { name: /^Заявка №42/ }).getAttribute('href')).toBe('/admin/leads/42');
    expect(within(fresh).getByText('Олена')).toBeTruthy();
    // The number grouped for reading out, whatever way the visitor typed it; the link says it calls.
    expect(within(fresh).getByRole('link', { name: 'Подзвонити +380 67 123 45 67' }).getAttribute('href')).toBe(
      'tel:+380671234567',
    );
    expect(within(fresh).getByText('20.11.2026, 11:15')).toBeTruthy();
    expect(within(fresh).getByText('Спроба 1')).toBeTruthy();
    expect(within(fresh).getByText('Залишилось 5 год 12 хв')).toBeTruthy();
    expect(fresh.hasAttribute('data-overdue')).toBe(false);

    expect(within(overdue).getByRole('link', { name: /^Заявка №41/ })).toBeTruthy();
    expect(within(overdue).getByText('Нова')).toBeTruthy();
    expect(within(overdue).getByText('Прострочено на 3 год 4 хв')).toBeTruthy();
    expect(overdue.getAttribute('data-overdue')).toBe('true');

    expect(within(closed).getByText("Зв'язалися: зацікавлені")).toBeTruthy();
    expect(within(closed).queryByText(/Залишилось|Прострочено/)).toBeNull();
    expect(closed.hasAttribute('data-overdue')).toBe(false);

    expect(server.calls('GET /admin/api/leads')[0].params.get('filter')).toBe('all');
  });

  it('shows the statistics and a bar per day under "Показники"', async () => {
    fakeServer(signedInRoutes());
    openInbox('/admin');
    await openFigures();

    expect(await screen.findByText('Передзвонили вчасно за 30 днів: 50 % (1 з 2)')).toBeTruthy();
    expect(screen.getByText('Відкриті: 2')).toBeTruthy();
    expect(screen.getByText('Прострочені: 1')).toBeTruthy();
    const chart = screen.getByRole('img', { name: 'Заявки за останні 30 днів' });
    const titles = [...chart.querySelectorAll('rect > title')].map((title) => title.textContent);
    expect(titles).toHaveLength(30);
    expect(titles[0]).toBe('2026-10-24: 0');
    expect(titles[29]).toBe('2026-11-22: 3');    // The figures a touch screen cannot show on hover, in words.
    expect(screen.getByText('Заявки за 30 днів: 4, найбільше за день: 3 (22.11)')).toBeTruthy();
  });

  it('shows a dash for the share when no lead was due yet', async () => {
    fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/stats': () => json({ ...STATS, reached_in_time: { reached: 0, due: 0 } }),
    });
    openInbox('/admin');
    await openFigures();
    expect(await screen.findByText('Передзвонили вчасно за 30 днів: —')).toBeTruthy();
  });

  it('warns while a channel keeps failing, and only then', async () => {
    const queues = [
      {
        channel: 'telegram',
        waiting: 3,
        failing: 1,
        oldest_at: '2026-11-22T09:15:00.123456Z',
        last_error: 'Telegram answered 401 Unauthorized: Unauthorized',
      },
      // Waiting its first try: nothing wrong yet.
      { channel: 'webhook', waiting: 1, failing: 0, oldest_at: '2026-11-22T11:59:58.000000Z', last_error: null },
    ];
    fakeServer({ ...signedInRoutes(), 'GET /admin/api/stats': () => json({ ...STATS, notifications: queues }) });
    openInbox('/admin');
    const warning = await screen.findByRole('alert');
    expect(warning.textContent).toContain('Сповіщення не доходять.');
    const items = within(warning).getAllByRole('listitem').map((item) => item.textContent);
    expect(items).toEqual([
      'Telegram: не надіслано 3, найдавніше чекає з 22.11.2026, 11:15. Відповідь: Telegram answered 401 Unauthorized: Unauthorized',
    ]);
  });

  it('shows no warning when every channel delivers', async () => {
    fakeServer(signedInRoutes());
    openInbox('/admin');
    await openFigures();
    await screen.findByText('Відкриті: 2');
    expect(screen.queryByText(/Сповіщення не доходять/)).toBeNull();
  });

  it('says when there are no leads', async () => {
    fakeServer({ ...signedInRoutes(), 'GET /admin/api/leads': () => json(leadPage([])) });
    openInbox('/admin?filter=all');
    expect(await screen.findByText('Заявок немає')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Показати ще' })).toBeNull();
  });

  it('filters with the toggle buttons', async () => {
    const server = fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/leads': ({ params }) =>
        json(leadPage(params.get('filter') === 'overdue' ? [LEAD_OVERDUE] : [LEAD_OPEN, LEAD_OVERDUE, LEAD_CLOSED])),
    });
    openInbox('/admin?filter=all');
    await screen.findByText('Олена');
    expect(screen.getByRole('button', { name: 'Усі', pressed: true })).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Прострочені' }));
    await waitFor(() => expect(screen.queryByText('Олена')).toBeNull());
    expect(screen.getByRole('button', { name: 'Прострочені', pressed: true })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Усі', pressed: false })).toBeTruthy();
    expect(screen.getAllByRole('listitem')).toHaveLength(1);
    expect(server.calls('GET /admin/api/leads').at(-1)?.params.get('filter')).toBe('overdue');
    expect(window.location.search).toBe('?filter=overdue');
  });

  it('searches once typing pauses, not on every key', async () => {
    const server = fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/leads': ({ params }) =>
        json(leadPage(params.get('q') === '067' ? [LEAD_OPEN] : [LEAD_OPEN, LEAD_OVERDUE, LEAD_CLOSED])),
    });
    openInbox('/admin?filter=all');
    await screen.findByText('Петро');
    const search = screen.getByRole('searchbox', { name: "Пошук за ім'ям або телефоном" });
    const searches = () => server.calls('GET /admin/api/leads').filter((r) => r.params.has('q'));

    // Fake time that still moves on by itself, so that findBy and waitFor keep polling.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    fireEvent.change(search, { target: { value: '0' } });
    fireEvent.change(search, { target: { value: '06' } });
    fireEvent.change(search, { target: { value: '067' } });
    await act(async () => vi.advanceTimersByTime(SEARCH_DEBOUNCE_MS / 2));
    expect(searches()).toHaveLength(0);

    await act(async () => vi.advanceTimersByTime(SEARCH_DEBOUNCE_MS / 2));
    await waitFor(() => expect(screen.queryByText('Петро')).toBeNull());
    expect(searches().map((r) => r.params.get('q'))).toEqual(['067']);
    expect(screen.getByText('Олена')).toBeTruthy();
  });

  it('a failed search hides the leads of the last one and offers to try again', async () => {
    let offline = false;
    fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/leads': ({ params }) => {
        if (offline) return Promise.reject(new TypeError('Failed to fetch'));
        return json(leadPage(params.get('q') === 'Ірина' ? [LEAD_CLOSED] : [LEAD_OPEN, LEAD_OVERDUE, LEAD_CLOSED]));
      },
    });
    openInbox('/admin?filter=all');
    await screen.findByText('Олена');
    offline = true;
    fireEvent.change(screen.getByRole('searchbox'), { target: { value: 'Ірина' } });

    expect((await screen.findByRole('alert')).textContent).toBe("Немає з'єднання з сервером. Спробуйте ще раз.");
    expect(screen.queryByText('Олена')).toBeNull();
    offline = false;
    fireEvent.click(screen.getByRole('button', { name: 'Спробувати ще раз' }));
    expect(await screen.findByText('Ірина')).toBeTruthy();
    expect(screen.queryByText('Олена')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('the "Заявки" link leaves the search for the calls to make now; the search opens again empty', async () => {
    const server = fakeServer(signedInRoutes());
    openInbox('/admin?q=067');
    const search = await screen.findByRole('searchbox');
    expect(search).toHaveProperty('value', '067');
    await screen.findByText('Олена');

    vi.useFakeTimers({ shouldAdvanceTime: true });
    const searched = server.calls('GET /admin/api/leads').length;
    fireEvent.click(screen.getByRole('link', { name: 'Заявки' }));
    await waitFor(() => expect(screen.queryByRole('searchbox')).toBeNull());
    expect(await screen.findByRole('list', { name: 'Кому дзвонити зараз, по черзі' })).toBeTruthy();
    // Past the pause a search would wait for: none was started by the box as it went.
    await act(async () => vi.advanceTimersByTime(SEARCH_DEBOUNCE_MS * 2));
    expect(window.location.search).toBe('');
    const since = server.calls('GET /admin/api/leads').slice(searched);
    expect(since.map((r) => r.params.get('filter'))).toContain('due');
    expect(since.filter((r) => r.params.has('q'))).toEqual([]);

    fireEvent.click(screen.getByRole('link', { name: 'Пошук і фільтри' }));
    expect(await screen.findByRole('searchbox')).toHaveProperty('value', '');
    expect(window.location.search).toBe('?filter=all');
  });

  it('loads the next page with "Показати ще"', async () => {
    const server = fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/leads': ({ params }) =>
        json(params.get('before_id') === '41' ? leadPage([LEAD_CLOSED]) : leadPage([LEAD_OPEN, LEAD_OVERDUE], 41)),
    });
    openInbox('/admin?filter=all');
    expect(await screen.findAllByRole('listitem')).toHaveLength(2);

    fireEvent.click(screen.getByRole('button', { name: 'Показати ще' }));
    await waitFor(() => expect(screen.getAllByRole('listitem')).toHaveLength(3));
    expect(screen.getByText('Ірина')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Показати ще' })).toBeNull();
    expect(server.calls('GET /admin/api/leads').at(-1)?.params.get('before_id')).toBe('41');
  });

  it('shows new leads on a list left open, every minute while shown, and keeps the pages shown with "Показати ще"', async () => {
    // Fake time that still moves on by itself, so that findBy and waitFor keep polling; installed
    // before the list starts its timer.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { server, names, arrive } = await listWithMoreShown();

    arrive();
    const asked = server.calls('GET /admin/api/leads').length;
    // Hidden, it asks nothing.
    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
    await act(async () => vi.advanceTimersByTime(REFRESH_SHOWN_MS));
    expect(server.calls('GET /admin/api/leads')).toHaveLength(asked);
    Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
    await act(async () => vi.advanceTimersByTime(REFRESH_SHOWN_MS));

    await waitFor(() => expect(names()).toEqual(['Ганна', 'Олена', 'Петро', 'Ірина']));
    expect(screen.getByRole('list').getAttribute('aria-busy')).toBe('false');
    expect(screen.queryByRole('button', { name: 'Показати ще' })).toBeNull();
  });

  it('shown again after a while hidden, shows new leads quietly and keeps the pages shown with "Показати ще"', async () => {
    const { names, arrive } = await listWithMoreShown();
    const list = screen.getByRole('list');
    const busy: string[] = [];
    new MutationObserver(() => busy.push(list.getAttribute('aria-busy') ?? '')).observe(list, { attributes: true });

    // A number tapped: the dialler hides the page for two minutes.
    arrive();
    const away = Date.now() + 2 * 60_000;
    act(() => {
      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    vi.spyOn(Date, 'now').mockReturnValue(away);
    act(() => {
      Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    });

    await waitFor(() => expect(names()).toEqual(['Ганна', 'Олена', 'Петро', 'Ірина']));
    expect(busy).not.toContain('true');
  });

  it('renders what a visitor typed as text, never as markup', async () => {
    const hostile = { ...LEAD_OPEN, name: '<img src=x onerror="alert(1)">Олена' };
    fakeServer({ ...signedInRoutes(), 'GET /admin/api/leads': () => json(leadPage([hostile])) });
    openInbox('/admin');
    expect(await screen.findByText('<img src=x onerror="alert(1)">Олена')).toBeTruthy();
    expect(document.querySelector('img')).toBeNull();
  });
});
