// @vitest-environment jsdom
// The call desk (/admin): "Кому дзвонити зараз" in the server's order, a call's outcome one tap on
// its card, "Передзвонити о …" in Kyiv time, the figures folded away, and the header bar's menu.
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { REFRESH_SHOWN_MS } from './clock';
import type { LeadView } from './api';
import {
  CSRF,
  LEAD_OPEN,
  LEAD_OVERDUE,
  SESSION,
  apiError,
  fakeServer,
  json,
  leadDetail,
  leadPage,
  signedInRoutes,
} from './test-server';
import { focusMovesTo, isolateEachTest, openInbox, openMenu, tapToDial } from './test-inbox';

isolateEachTest();

const DUE = 'Кому дзвонити зараз, по черзі';

/** A comment longer than a card shows. */
const LONG_COMMENT =
  'Прошу передзвонити після 18:00, бо до того я на роботі й не можу говорити, дякую за розуміння і терпіння';

/** The card of lead `id` on the desk. */
function card(id: number): HTMLElement {
  const list = screen.getByRole('list', { name: DUE });
  return within(list).getByRole('link', { name: `Заявка №${id}` }).closest('li') as HTMLElement;
}

/** The outcome button `label` on lead `id`'s card. */
function outcome(id: number, label: string): HTMLElement {
  const group = within(card(id)).getByRole('group', { name: `Результат дзвінка: заявка №${id}` });
  return within(group).getByRole('button', { name: label });
}

/** The desk with LEAD_OPEN (a retry due) and LEAD_OVERDUE (with a long comment, taken by a colleague). */
function deskRoutes() {
  const overdue: LeadView = {
    ...LEAD_OVERDUE,
    comment: LONG_COMMENT,
    claimed_by: 'petro@example.org',
    claimed_until: '2026-11-22T04:32:30.000000Z',
  };
  return {
    ...signedInRoutes(),
    'GET /admin/api/leads': () => json(leadPage([LEAD_OPEN, overdue])),
  };
}

describe('"Кому дзвонити зараз"', () => {
  it('opens the inbox: the leads due, in the order the server gives, each a card to call from', async () => {
    const server = fakeServer(deskRoutes());
    openInbox('/admin');

    const list = await screen.findByRole('list', { name: DUE });
    expect(screen.getByRole('heading', { level: 1, name: 'Кому дзвонити зараз' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Кому дзвонити зараз' }).getAttribute('aria-current')).toBe('page');
    expect(server.calls('GET /admin/api/leads')[0].params.get('filter')).toBe('due');
    const names = within(list)
      .getAllByRole('link', { name: /^Заявка №\d+$/ })
      .map((link) => link.textContent);
    expect(names).toEqual(['Заявка №42', 'Заявка №41']);

    // The call itself: a tel: link with the number grouped for reading out, a big button...
    const call = within(card(42)).getByRole('link', { name: 'Подзвонити +380 67 123 45 67' });
    expect(call.getAttribute('href')).toBe('tel:+380671234567');
    expect(call.textContent).toBe('Подзвонити+380 67 123 45 67');
    // ...but for a lead a colleague is calling (the card says who) only the number, as a link.
    const colleagues = within(card(41)).getByRole('link', { name: 'Подзвонити +380 50 765 43 21' });
    expect(colleagues.getAttribute('href')).toBe('tel:+380507654321');
    expect(colleagues.textContent).toBe('+380 50 765 43 21');
    // What to know for it: the start of the comment, the time, who has the lead.
    expect(card(41).textContent).toContain(
      'Коментар: «Прошу передзвонити після 18:00, бо до того я на роботі й не можу говорити, дякую за…»',
    );
    expect(within(card(41)).getByText('Прострочено на 3 год 4 хв')).toBeTruthy();
    expect(card(41).getAttribute('data-overdue')).toBe('true');
    expect(within(card(41)).getByText('Телефонує petro@example.org (до 22.11.2026, 06:32)')).toBeTruthy();
    expect(within(card(42)).getByText('Залишилось 5 год 12 хв')).toBeTruthy();
    expect(within(card(42)).getByText('Спроба 1')).toBeTruthy();
    // No comment, no line for it.
    expect(card(42).textContent).not.toContain('Коментар');
    // The figures and the search wait one tap away.
    expect(screen.queryByRole('region', { name: 'Показники' })).toBeNull();
    expect(screen.queryByRole('searchbox')).toBeNull();
  });

  it('says when nobody is to be called now', async () => {
    fakeServer({ ...signedInRoutes(), 'GET /admin/api/leads': () => json(leadPage([])) });
    openInbox('/admin');
    expect(await screen.findByText('Зараз дзвонити нікому.')).toBeTruthy();
    expect(screen.queryByRole('list', { name: DUE })).toBeNull();
  });

  it('"Не відповіли" is one tap with the CSRF token and the note: the card says when the next call is, and takes the focus', async () => {
    const retried: LeadView = { ...LEAD_OVERDUE, status: 'attempt_1', next_call_at: '2026-11-22T06:02:30.000000Z' };
    const server = fakeServer({
      ...deskRoutes(),
      'POST /admin/api/leads/41/attempts': () => json(leadDetail(retried, []), 201),
    });
    openInbox('/admin');
    await screen.findByRole('list', { name: DUE });

    fireEvent.click(within(card(41)).getByRole('button', { name: 'Нотатка до дзвінка' }));
    fireEvent.change(within(card(41)).getByRole('textbox', { name: 'Нотатка' }), { target: { value: 'Вимкнено' } });
    fireEvent.click(outcome(41, 'Не відповіли'));
    // A second tap before the answer is the same call.
    fireEvent.click(outcome(41, 'Не відповіли'));

    await waitFor(() =>
      expect(card(41).textContent).toBe('Заявка №41 Петро: Не відповіли. Наступний дзвінок: 22.11.2026, 08:02.'),
    );
    await focusMovesTo(() => card(41).querySelector('p'));
    const [attempt, ...more] = server.calls('POST /admin/api/leads/41/attempts');
    expect(more).toEqual([]);
    expect(attempt.headers.get('X-CSRF-Token')).toBe(CSRF);
    expect(attempt.body).toEqual({ outcome: 'no_answer', note: 'Вимкнено' });
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Дзвінок записано.'));
    // The next lead's call is right there.
    expect(within(card(42)).getByRole('link', { name: /^Подзвонити / })).toBeTruthy();
    // The note went with the call: it is not kept for the lead's next one.
    expect(sessionStorage.getItem('zayavka.call-draft.41')).toBeNull();
  });

  it('once the minute\'s refresh takes away the card just recorded, the focus is on the next lead, not the page', async () => {
    // Fake time that still moves on by itself, so that findBy and waitFor keep polling.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const retried: LeadView = { ...LEAD_OPEN, status: 'attempt_1', next_call_at: '2026-11-22T06:02:30.000000Z' };
    let called = false;
    fakeServer({
      ...deskRoutes(),
      'GET /admin/api/leads': () => json(leadPage(called ? [LEAD_OVERDUE] : [LEAD_OPEN, LEAD_OVERDUE])),
      'POST /admin/api/leads/42/attempts': () => {
        called = true;
        return json(leadDetail(retried, []), 201);
      },
    });
    openInbox('/admin');
    await screen.findByRole('list', { name: DUE });
    fireEvent.click(outcome(42, 'Не відповіли'));
    await focusMovesTo(() => card(42).querySelector('p'));

    await act(async () => vi.advanceTimersByTime(REFRESH_SHOWN_MS));
    await waitFor(() => expect(screen.queryByRole('link', { name: 'Заявка №42' })).toBeNull());
    await focusMovesTo(() => within(card(41)).getByRole('link', { name: 'Заявка №41' }));
  });

  it("a minute's refresh asked before a call was recorded and answered after it does not bring the card back", async () => {
    // Fake time that still moves on by itself, so that findBy and waitFor keep polling.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const retried: LeadView = { ...LEAD_OVERDUE, status: 'attempt_1', next_call_at: '2026-11-22T06:02:30.000000Z' };
    let refreshing = false;
    let answerTheRefresh: (() => void) | null = null;
    fakeServer({
      ...deskRoutes(),
      'GET /admin/api/leads': () => {
        if (!refreshing) return json(leadPage([LEAD_OPEN, LEAD_OVERDUE]));
        // The refresh reads the list before the call is stored, and answers after.
        return new Promise<Response>((resolve) => {
          answerTheRefresh = () => resolve(json(leadPage([LEAD_OPEN, LEAD_OVERDUE])));
        });
      },
      'POST /admin/api/leads/41/attempts': () => json(leadDetail(retried, []), 201),
    });
    openInbox('/admin');
    await screen.findByRole('list', { name: DUE });
    refreshing = true;
    await act(async () => vi.advanceTimersByTime(REFRESH_SHOWN_MS));
    await waitFor(() => expect(answerTheRefresh).not.toBeNull());

    fireEvent.click(outcome(41, 'Не відповіли'));
    const shrunk = 'Заявка №41 Петро: Не відповіли. Наступний дзвінок: 22.11.2026, 08:02.';
    await waitFor(() => expect(card(41).textContent).toBe(shrunk));
    await act(async () => answerTheRefresh?.());
    // Still what was recorded: no outcome buttons to tap a second unanswered call with.
    expect(card(41).textContent).toBe(shrunk);
    expect(within(card(41)).queryByRole('group', { name: 'Результат дзвінка: заявка №41' })).toBeNull();
  });

  it('a closing outcome says the lead is closed', async () => {
    const reached: LeadView = { ...LEAD_OPEN, status: 'interested', open: false, next_call_at: null };
    fakeServer({
      ...deskRoutes(),
      'POST /admin/api/leads/42/attempts': () => json(leadDetail(reached, []), 201),
    });
    openInbox('/admin');
    await screen.findByRole('list', { name: DUE });
    fireEvent.click(outcome(42, 'Зацікавлені'));
    await waitFor(() => expect(card(42).textContent).toBe('Заявка №42 Олена: Зацікавлені. Заявку закрито.'));
  });

  it('a lead still due after the call (the retries used up) stays, offered as unreachable', async () => {
    // The call comes a while after the list was read: the lead is due at the call's own time.
    const calledAt = '2026-11-22T04:03:40.000000Z';
    const usedUp: LeadView = { ...LEAD_OPEN, status: 'attempt_3', next_call_at: calledAt, retries_used_up: true };
    fakeServer({
      ...deskRoutes(),
      'POST /admin/api/leads/42/attempts': () => json({ ...leadDetail(usedUp, []), now: calledAt }, 201),
    });
    openInbox('/admin');
    await screen.findByRole('list', { name: DUE });
    fireEvent.click(outcome(42, 'Не відповіли'));
    expect(await within(card(42)).findByText(/^Спроби за графіком вичерпано/)).toBeTruthy();
    expect(within(card(42)).getByText('Спроба 3')).toBeTruthy();
    expect(outcome(42, "Не вдалося зв'язатися (закрити)")).toBeTruthy();
  });

  it('a lead whose retries were used up before says so after a reload too, on its card and its page', async () => {
    const usedUp: LeadView = { ...LEAD_OPEN, status: 'attempt_3', retries_used_up: true };
    fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/leads': () => json(leadPage([usedUp, LEAD_OVERDUE])),
      'GET /admin/api/leads/42': () => json(leadDetail(usedUp, [])),
    });
    openInbox('/admin');
    await screen.findByRole('list', { name: DUE });
    const hint = /^Спроби за графіком вичерпано: закрийте заявку як «Не вдалося зв'язатися \(закрити\)» або домовтеся про час\.$/;
    expect(within(card(42)).getByText(hint)).toBeTruthy();
    expect(within(card(LEAD_OVERDUE.id)).queryByText(hint)).toBeNull();

    fireEvent.click(within(card(42)).getByRole('link', { name: 'Заявка №42' }));
    expect(await screen.findByText(hint)).toBeTruthy();
  });

  it("tapping a free lead's call button takes it for the call, once; a colleague's lead is not taken", async () => {
    const mine: LeadView = { ...LEAD_OPEN, claimed_by: SESSION.email, claimed_until: '2026-11-22T04:32:30.000000Z' };
    const server = fakeServer({
      ...deskRoutes(),
      'POST /admin/api/leads/42/take': () => json(leadDetail(mine, [])),
    });
    openInbox('/admin');
    await screen.findByRole('list', { name: DUE });
    const dial = within(card(42)).getByRole('link', { name: 'Подзвонити +380 67 123 45 67' });
    expect(dial.getAttribute('href')).toBe('tel:+380671234567');
    tapToDial(dial);
    tapToDial(dial);
    expect(await within(card(42)).findByText('Ви телефонуєте (до 22.11.2026, 06:32)')).toBeTruthy();
    const takes = server.calls('POST /admin/api/leads/42/take');
    expect(takes).toHaveLength(1);
    expect(takes[0].headers.get('X-CSRF-Token')).toBe(CSRF);
    expect(takes[0].keepalive, 'sent even as the dialer puts the page aside').toBe(true);
    // Now the lead is the operator's: a tap dials and takes nothing more.
    tapToDial(within(card(42)).getByRole('link', { name: 'Подзвонити +380 67 123 45 67' }));
    // The overdue lead is a colleague's (the card says who): its button only dials.
    tapToDial(within(card(LEAD_OVERDUE.id)).getByRole('link', { name: /^Подзвонити / }));
    expect(server.requests.filter((request) => request.path.endsWith('/take'))).toHaveLength(1);
  });

  it('says on the card when a colleague took the lead a moment before its call button was tapped', async () => {
    fakeServer({
      ...deskRoutes(),
      'POST /admin/api/leads/42/take': () => apiError(409, 'Цю заявку вже взяв інший оператор.'),
    });
    openInbox('/admin');
    await screen.findByRole('list', { name: DUE });
    tapToDial(within(card(42)).getByRole('link', { name: 'Подзвонити +380 67 123 45 67' }));
    expect((await within(card(42)).findByRole('alert')).textContent).toBe('Цю заявку вже взяв інший оператор.');
  });

  it('says on the card when a call could not be recorded, and keeps the card', async () => {
    fakeServer({
      ...deskRoutes(),
      'POST /admin/api/leads/42/attempts': () => apiError(409, 'Ця заявка вже закрита.'),
    });
    openInbox('/admin');
    await screen.findByRole('list', { name: DUE });
    fireEvent.click(outcome(42, 'Не відповіли'));
    expect((await within(card(42)).findByRole('alert')).textContent).toBe('Ця заявка вже закрита.');
    expect(outcome(42, 'Не відповіли')).toBeTruthy();
  });
});

describe('"Передзвонити о …"', () => {
  it('sends the time typed, read as Kyiv time, as the call-back with the note', async () => {
    const later: LeadView = { ...LEAD_OPEN, next_call_at: '2026-11-22T16:30:00.000000Z' };
    const server = fakeServer({
      ...deskRoutes(),
      'POST /admin/api/leads/42/attempts': () => json(leadDetail(later, []), 201),
    });
    openInbox('/admin');
    await screen.findByRole('list', { name: DUE });

    const toggle = within(card(42)).getByRole('button', { name: 'Передзвонити о …' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const field = within(card(42)).getByLabelText('Передзвонити о (за київським часом)');
    // Opened, the field has the focus: a keyboard goes straight to the time.
    await waitFor(() => expect(document.activeElement).toBe(field));
    expect(field.getAttribute('type')).toBe('datetime-local');
    // Not before now (06:02 in Kyiv at NOW).
    expect(field.getAttribute('min')).toBe('2026-11-22T06:02');

    // Nothing typed: said, nothing sent.
    fireEvent.click(within(card(42)).getByRole('button', { name: 'Записати час дзвінка' }));
    expect(within(card(42)).getByRole('alert').textContent).toBe('Вкажіть, коли передзвонити.');
    // A time already past: said, nothing sent.
    fireEvent.change(field, { target: { value: '2026-11-22T05:00' } });
    fireEvent.click(within(card(42)).getByRole('button', { name: 'Записати час дзвінка' }));
    const refused = within(card(42)).getByRole('alert');
    expect(refused.textContent).toBe('Цей час уже минув: вкажіть пізніший.');
    // Said of the field, which keeps the focus for the next try.
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(field.getAttribute('aria-describedby')).toBe(refused.id);
    expect(document.activeElement).toBe(field);
    expect(server.calls('POST /admin/api/leads/42/attempts')).toEqual([]);

    fireEvent.click(within(card(42)).getByRole('button', { name: 'Нотатка до дзвінка' }));
    fireEvent.change(within(card(42)).getByRole('textbox', { name: 'Нотатка' }), { target: { value: 'Після роботи' } });
    fireEvent.change(field, { target: { value: '2026-11-22T18:30' } });
    fireEvent.click(within(card(42)).getByRole('button', { name: 'Записати час дзвінка' }));

    await waitFor(() =>
      expect(card(42).textContent).toBe('Заявка №42 Олена: Просить передзвонити. Наступний дзвінок: 22.11.2026, 18:30.'),
    );
    const [attempt] = server.calls('POST /admin/api/leads/42/attempts');
    expect(attempt.headers.get('X-CSRF-Token')).toBe(CSRF);
    expect(attempt.body).toEqual({
      outcome: 'call_back',
      note: 'Після роботи',
      call_back_at: '2026-11-22T16:30:00.000Z',
    });
  });
});

describe('the figures', () => {
  it('are folded away under "Показники" on a phone, and shown with one tap', async () => {
    const server = fakeServer(signedInRoutes());
    openInbox('/admin');
    await screen.findByRole('list', { name: DUE });
    const toggle = screen.getByRole('button', { name: 'Показники' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByText(/^Відкриті:/)).toBeNull();
    await waitFor(() => expect(server.calls('GET /admin/api/stats').length).toBeGreaterThan(0));
    const asked = server.calls('GET /admin/api/stats').length;

    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const figures = await screen.findByRole('region', { name: 'Показники' });
    expect(await within(figures).findByText('Відкриті: 2')).toBeTruthy();
    // Asked for on arrival (the warning about channels needs them), not again by the tap.
    expect(server.calls('GET /admin/api/stats')).toHaveLength(asked);
  });
});

describe('the menu', () => {
  it('is a disclosure: closed at first, opened by its button, closed by Escape with the focus back on it', async () => {
    fakeServer(signedInRoutes());
    openInbox('/admin');
    const menu = await screen.findByRole('button', { name: 'Меню' });
    expect(menu.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByRole('button', { name: 'Вийти' })).toBeNull();
    const panel = document.getElementById(menu.getAttribute('aria-controls') ?? '');
    expect(panel?.hidden).toBe(true);

    await openMenu();
    expect(menu.getAttribute('aria-expanded')).toBe('true');
    expect(panel?.hidden).toBe(false);
    const items = within(panel!)
      .getAllByRole('link')
      .map((link) => link.textContent);
    expect(items).toEqual(['operator@example.org', 'Команда', 'Журнал дій', 'Сповіщення', 'Вихідні дні', 'Завантажити CSV', 'Завантажити Excel']);
    expect(within(panel!).getByRole('button', { name: 'Вийти' })).toBeTruthy();

    fireEvent.keyDown(document, { key: 'Escape' });
    expect(menu.getAttribute('aria-expanded')).toBe('false');
    expect(document.activeElement).toBe(menu);

    // A tap outside closes it too.
    await openMenu();
    fireEvent.pointerDown(screen.getByRole('main'));
    expect(menu.getAttribute('aria-expanded')).toBe('false');
  });
});
