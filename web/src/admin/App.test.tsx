// @vitest-environment jsdom
// The inbox as an operator uses it: the real app under its /admin router, the server replaced at
// `fetch` by recorded answers shaped as docs/admin-api.md says.
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LeadView } from './api';
import {
  ATTEMPT_1,
  CSRF,
  LEAD_OPEN,
  LEAD_OVERDUE,
  LEAD_HELD_PERSON,
  LEAD_WITH_REPEATS,
  NOW,
  REPEATS,
  SESSION,
  apiError,
  fakeServer,
  heldRoutes,
  json,
  leadDetail,
  leadPage,
  signedInRoutes,
} from './test-server';
import { focusMovesTo, isolateEachTest, openFigures, openInbox, openMenu } from './test-inbox';

isolateEachTest();

/** The call notes this tab's storage holds, by key. */
function storedDrafts(): Record<string, string> {
  const keys = Array.from({ length: sessionStorage.length }, (_, i) => sessionStorage.key(i) ?? '');
  return Object.fromEntries(keys.filter((k) => k.startsWith('zayavka.call-draft.')).map((k) => [k, sessionStorage.getItem(k) ?? '']));
}

/** Chooses "Не відповіли" and types `note` on the open lead's call form. */
async function writeCall(note: string) {
  fireEvent.click(await screen.findByRole('radio', { name: 'Не відповіли' }));
  fireEvent.change(screen.getByRole('textbox', { name: 'Нотатка' }), { target: { value: note } });
}

async function signInAs(email: string) {
  fireEvent.change(await screen.findByLabelText('Електронна пошта'), { target: { value: email } });
  fireEvent.change(screen.getByLabelText('Пароль'), { target: { value: 'secret' } });
  fireEvent.click(screen.getByRole('button', { name: 'Увійти' }));
}

describe('signing in', () => {
  it('shows the login when nobody is signed in, and the server\'s sentence when the password is wrong', async () => {
    const server = fakeServer({
      'GET /admin/api/session': () => apiError(401, 'Потрібно увійти.'),
      'POST /admin/api/login': () => apiError(401, 'Неправильна електронна пошта або пароль.'),
    });
    openInbox('/admin');

    const email = await screen.findByRole('textbox', { name: 'Електронна пошта' });
    const password = screen.getByLabelText('Пароль');
    expect(email).toHaveProperty('type', 'email');
    expect(email.getAttribute('autocomplete')).toBe('username');
    expect(password).toHaveProperty('type', 'password');
    expect(password.getAttribute('autocomplete')).toBe('current-password');
    expect(screen.queryByRole('alert')).toBeNull();

    fireEvent.change(email, { target: { value: 'operator@example.org' } });
    fireEvent.change(password, { target: { value: 'wrong' } });
    fireEvent.click(screen.getByRole('button', { name: 'Увійти' }));

    expect(await screen.findByRole('alert')).toHaveProperty('textContent', 'Неправильна електронна пошта або пароль.');
    expect(server.calls('POST /admin/api/login')[0].body).toEqual({ email: 'operator@example.org', password: 'wrong' });
    expect(screen.queryByRole('button', { name: 'Вийти' })).toBeNull();
  });

  it('shows the server\'s sentence after too many attempts (429)', async () => {
    fakeServer({
      'GET /admin/api/session': () => apiError(401, 'Потрібно увійти.'),
      'POST /admin/api/login': () => apiError(429, 'Забагато спроб входу. Спробуйте за 15 хв.'),
    });
    openInbox('/admin');
    fireEvent.change(await screen.findByLabelText('Електронна пошта'), { target: { value: SESSION.email } });
    fireEvent.change(screen.getByLabelText('Пароль'), { target: { value: 'guess' } });
    fireEvent.click(screen.getByRole('button', { name: 'Увійти' }));
    expect(await screen.findByRole('alert')).toHaveProperty('textContent', 'Забагато спроб входу. Спробуйте за 15 хв.');
  });

  it('opens the inbox after a good login, on the page that was asked for', async () => {
    let signedIn = false;
    fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/session': () => (signedIn ? json(SESSION) : apiError(401, 'Потрібно увійти.')),
      'POST /admin/api/login': () => {
        signedIn = true;
        return json(SESSION);
      },
    });
    openInbox('/admin/leads/42');
    fireEvent.change(await screen.findByLabelText('Електронна пошта'), { target: { value: SESSION.email } });
    fireEvent.change(screen.getByLabelText('Пароль'), { target: { value: 'correct horse' } });
    fireEvent.click(screen.getByRole('button', { name: 'Увійти' }));

    expect(await screen.findByRole('heading', { name: 'Заявка №42' })).toBeTruthy();
    expect(screen.getByText(SESSION.email)).toBeTruthy();
  });

  it("says there is no connection when the server can't be reached", async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
    openInbox('/admin');
    expect(await screen.findByRole('alert')).toHaveProperty(
      'textContent',
      "Немає з'єднання з сервером. Спробуйте ще раз.",
    );
  });
});

describe('the header bar', () => {
  it('shows who is signed in, the CSV download, and signs out with the CSRF token', async () => {
    const server = fakeServer({ ...signedInRoutes(), 'POST /admin/api/logout': () => new Response(null, { status: 204 }) });
    openInbox('/admin');

    await openMenu();
    expect(await screen.findByRole('link', { name: 'operator@example.org' })).toBeTruthy();
    const csv = screen.getByRole('link', { name: 'Завантажити CSV' });
    expect(csv.getAttribute('href')).toBe('/admin/api/export.csv');
    expect(csv.hasAttribute('download')).toBe(true);

    fireEvent.click(screen.getByRole('button', { name: 'Вийти' }));
    expect(await screen.findByRole('button', { name: 'Увійти' })).toBeTruthy();
    const [logout] = server.calls('POST /admin/api/logout');
    expect(logout.headers.get('X-CSRF-Token')).toBe(CSRF);
  });

  /** jsdom has no downloads: records each file the app hands to the browser, and spies on clicks. */
  function recordDownloads() {
    const files = new Map<string, Blob>();
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
      const url = `blob:${files.size + 1}`;
      files.set(url, blob as Blob);
      return url;
    });
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
    const saved: Array<{ blob: Blob | undefined; filename: string }> = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push({ blob: files.get(this.getAttribute('href') ?? ''), filename: this.download });
    });
    return saved;
  }

  it('"Завантажити CSV" fetches the export and hands it to the browser under the server\'s file name', async () => {
    const csv = '\uFEFFid,created_at,name\r\n1,2026-11-22T09:15:00Z,Олена\r\n';
    fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/export.csv': () =>
        new Response(csv, {
          headers: {
            'Content-Type': 'text/csv; charset=utf-8',
            'Content-Disposition': 'attachment; filename="zayavky-2026-11-22.csv"',
          },
        }),
    });
    const saved = recordDownloads();
    openInbox('/admin');

    await openMenu();
    fireEvent.click(await screen.findByRole('link', { name: 'Завантажити CSV' }));
    await waitFor(() => expect(saved.map((file) => file.filename)).toEqual(['zayavky-2026-11-22.csv']));
    // Byte for byte, the byte-order mark included (Excel needs it to read UTF-8).
    const bytes = Array.from(new Uint8Array(await saved[0].blob!.arrayBuffer()));
    expect(bytes).toEqual(Array.from(new TextEncoder().encode(csv)));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('"Завантажити Excel" fetches the workbook and hands it to the browser under the server\'s file name', async () => {
    // A zip's first bytes: the file is handed over as it came, never read as text.
    const workbook = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0xff, 0xfe]);
    const server = fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/export.xlsx': () =>
        new Response(workbook, {
          headers: {
            'Content-Type': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
            'Content-Disposition': 'attachment; filename="zayavky-2026-11-22.xlsx"',
          },
        }),
    });
    const saved = recordDownloads();
    openInbox('/admin');

    await openMenu();
    const excel = await screen.findByRole('link', { name: 'Завантажити Excel' });
    expect(excel.getAttribute('href')).toBe('/admin/api/export.xlsx');
    expect(excel.hasAttribute('download')).toBe(true);
    fireEvent.click(excel);
    await waitFor(() => expect(saved.map((file) => file.filename)).toEqual(['zayavky-2026-11-22.xlsx']));
    expect(new Uint8Array(await saved[0].blob!.arrayBuffer())).toEqual(workbook);
    expect(server.calls('GET /admin/api/export.csv')).toHaveLength(0);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('"Завантажити CSV" after the session ended goes to the login instead of saving the refusal', async () => {
    fakeServer({ ...signedInRoutes(), 'GET /admin/api/export.csv': () => apiError(401, 'Увійдіть, щоб продовжити.') });
    const saved = recordDownloads();
    openInbox('/admin');
    await openMenu();
    fireEvent.click(await screen.findByRole('link', { name: 'Завантажити CSV' }));
    expect(await screen.findByText(/^Сесія завершилася\. Увійдіть знову/)).toBeTruthy();
    expect(saved).toEqual([]);
  });

  it('"Завантажити CSV" that fails says so and saves nothing', async () => {
    fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/export.csv': () => apiError(503, 'Не вдалося зібрати файл. Спробуйте ще раз.'),
    });
    const saved = recordDownloads();
    openInbox('/admin');
    await openMenu();
    fireEvent.click(await screen.findByRole('link', { name: 'Завантажити CSV' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Не вдалося зібрати файл. Спробуйте ще раз.');
    expect(saved).toEqual([]);
  });

  it('goes back to the login when any answer says the session is over (401)', async () => {
    fakeServer({ ...signedInRoutes(), 'GET /admin/api/leads': () => apiError(401, 'Сесія закінчилася.') });
    openInbox('/admin');
    expect(await screen.findByRole('button', { name: 'Увійти' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Вийти' })).toBeNull();
  });

  it('says the session ended, and after signing in again the call being written is still there', async () => {
    let signedIn = true;
    const server = fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/session': () => (signedIn ? json(SESSION) : apiError(401, 'Потрібно увійти.')),
      'POST /admin/api/leads/42/attempts': () => {
        signedIn = false;
        return apiError(401, 'Потрібно увійти.');
      },
      'POST /admin/api/login': () => {
        signedIn = true;
        return json(SESSION);
      },
    });
    openInbox('/admin/leads/42');
    fireEvent.click(await screen.findByRole('radio', { name: 'Не відповіли' }));
    fireEvent.change(screen.getByRole('textbox', { name: 'Нотатка' }), { target: { value: 'Передзвонити о 18:00' } });
    fireEvent.click(screen.getByRole('button', { name: 'Записати дзвінок' }));

    expect(await screen.findByText(/^Сесія завершилася\. Увійдіть знову/)).toBeTruthy();
    expect(screen.getByRole('status').textContent).toMatch(/^Сесія завершилася/);
    // Taken out of storage by an effect just after the sign-in screen shows: watch, do not race.
    await waitFor(() => expect(storedDrafts()).toEqual({}));
    fireEvent.change(screen.getByLabelText('Електронна пошта'), { target: { value: SESSION.email } });
    fireEvent.change(screen.getByLabelText('Пароль'), { target: { value: 'secret' } });
    fireEvent.click(screen.getByRole('button', { name: 'Увійти' }));

    expect(await screen.findByRole('textbox', { name: 'Нотатка' })).toHaveProperty('value', 'Передзвонити о 18:00');
    expect(screen.getByRole('radio', { name: 'Не відповіли' })).toHaveProperty('checked', true);
    expect(window.location.pathname).toBe('/admin/leads/42');
    expect(server.calls('POST /admin/api/leads/42/attempts')).toHaveLength(1);
  });

  it('leaves no call note in the tab after "Вийти", nor for whoever signs in next', async () => {
    let signedIn = true;
    fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/session': () => (signedIn ? json(SESSION) : apiError(401, 'Потрібно увійти.')),
      'POST /admin/api/logout': () => {
        signedIn = false;
        return new Response(null, { status: 204 });
      },
      'POST /admin/api/login': () => {
        signedIn = true;
        return json(SESSION);
      },
    });
    openInbox('/admin/leads/42');
    await writeCall('Має діабет 2 типу, передзвонити');
    await waitFor(() => expect(Object.values(storedDrafts()).join()).toContain('діабет'));

    await openMenu();
    fireEvent.click(screen.getByRole('button', { name: 'Вийти' }));
    expect(await screen.findByRole('button', { name: 'Увійти' })).toBeTruthy();
    // Cleared as the sign-in screen comes up: watch for it rather than race it.
    await waitFor(() => expect(storedDrafts()).toEqual({}));

    await signInAs(SESSION.email);
    expect(await screen.findByRole('textbox', { name: 'Нотатка' })).toHaveProperty('value', '');
  });

  it('gives a call note kept over an ended session to its operator only', async () => {
    let signedIn = true;
    fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/session': () => (signedIn ? json(SESSION) : apiError(401, 'Потрібно увійти.')),
      'POST /admin/api/leads/42/attempts': () => {
        signedIn = false;
        return apiError(401, 'Потрібно увійти.');
      },
      'POST /admin/api/login': (request) => {
        signedIn = true;
        return json({ ...SESSION, email: (request.body as { email: string }).email });
      },
    });
    openInbox('/admin/leads/42');
    await writeCall('Має діабет 2 типу, передзвонити');
    fireEvent.click(screen.getByRole('button', { name: 'Записати дзвінок' }));
    expect(await screen.findByText(/^Сесія завершилася\. Увійдіть знову/)).toBeTruthy();
    // Cleared as the sign-in screen comes up: watch for it rather than race it.
    await waitFor(() => expect(storedDrafts()).toEqual({}));

    await signInAs('colleague@example.org');
    expect(await screen.findByRole('textbox', { name: 'Нотатка' })).toHaveProperty('value', '');
    expect(screen.getByRole('radio', { name: 'Не відповіли' })).toHaveProperty('checked', false);
    expect(storedDrafts()).toEqual({});
  });

  it('removes call notes left in the tab when it opens signed out', async () => {
    sessionStorage.setItem('zayavka.call-draft.42', JSON.stringify({ outcome: 'no_answer', note: 'Має діабет' }));
    fakeServer({ 'GET /admin/api/session': () => apiError(401, 'Потрібно увійти.') });
    openInbox('/admin/leads/42');
    expect(await screen.findByRole('button', { name: 'Увійти' })).toBeTruthy();
    // Cleared as the sign-in screen comes up: watch for it rather than race it.
    await waitFor(() => expect(storedDrafts()).toEqual({}));
  });

  it('says nothing about an ended session after "Вийти"', async () => {
    fakeServer({ ...signedInRoutes(), 'POST /admin/api/logout': () => new Response(null, { status: 204 }) });
    openInbox('/admin');
    await openMenu();
    fireEvent.click(await screen.findByRole('button', { name: 'Вийти' }));
    expect(await screen.findByRole('button', { name: 'Увійти' })).toBeTruthy();
    expect(screen.queryByRole('status')).toBeNull();
  });
});

describe('a page left open', () => {
  function setVisibility(state: 'hidden' | 'visible') {
    Object.defineProperty(document, 'visibilityState', { value: state, configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  }

  afterEach(() => {
    vi.restoreAllMocks();
    setVisibility('visible');
  });

  it("counts down by the device's wall clock, which keeps running while a phone sleeps", async () => {
    fakeServer(signedInRoutes());
    openInbox('/admin/leads/42');
    expect(await screen.findByText('Залишилось 5 год 12 хв')).toBeTruthy();

    // Three hours in a pocket: timers did not run, the wall clock did.
    const later = Date.now() + 3 * 3_600_000;
    vi.spyOn(Date, 'now').mockReturnValue(later);
    act(() => setVisibility('visible'));
    expect(await screen.findByText('Залишилось 2 год 12 хв')).toBeTruthy();
  });

  it('asks the server again when shown after a minute or more hidden, not after a glance away', async () => {
    const server = fakeServer(signedInRoutes());
    openInbox('/admin');
    await screen.findByText('Олена');
    // StrictMode runs the first fetch twice (one aborted): count from what is there now.
    const first = server.calls('GET /admin/api/leads').length;
    const asked = () => server.calls('GET /admin/api/leads').length - first + 1;
    const statsFirst = server.calls('GET /admin/api/stats').length;

    const start = Date.now();
    const clock = vi.spyOn(Date, 'now').mockReturnValue(start);
    act(() => setVisibility('hidden'));
    clock.mockReturnValue(start + 10_000);
    act(() => setVisibility('visible'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(asked()).toBe(1);

    act(() => setVisibility('hidden'));
    clock.mockReturnValue(start + 10_000 + 61_000);
    act(() => setVisibility('visible'));
    await waitFor(() => expect(asked()).toBe(2));
    await waitFor(() => expect(server.calls('GET /admin/api/stats')).toHaveLength(statsFirst + 1));
  });
});

describe('a lead', () => {
  it('shows every field, the consent evidence and the calls', async () => {
    const withComment = { ...LEAD_OVERDUE, id: 42, comment: 'Дзвонити після 18:00\nабо в суботу' };
    fakeServer({ ...signedInRoutes(), 'GET /admin/api/leads/42': () => json(leadDetail(withComment, [ATTEMPT_1])) });
    openInbox('/admin/leads/42');

    expect(await screen.findByText('Петро')).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Заявка №42' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Подзвонити +380 50 765 43 21' }).getAttribute('href')).toBe(
      'tel:+380507654321',
    );
    expect(screen.getByText('Коментар').nextElementSibling?.textContent).toBe('Дзвонити після 18:00\nабо в суботу');
    const question = screen.getByText('Чи є у Вас діагноз, підтверджений лікарем?');
    expect(question.nextElementSibling?.textContent).toBe('Ні');
    expect(screen.getByText(/^Дзвонити після 18:00/).textContent).toBe('Дзвонити після 18:00\nабо в суботу');
    expect(screen.getByText('Нова')).toBeTruthy();
    expect(screen.getByText('Прострочено на 3 год 4 хв')).toBeTruthy();
    expect(
      screen.getByText('Згода: надіслано 20.11.2026, 02:58, версія політики конфіденційності 3f2a9b0c41d2e7aa'),
    ).toBeTruthy();

    expect(screen.queryByText('Звідки'), 'no source when the landing page knew none').toBeNull();

    const log = screen.getByRole('heading', { name: 'Дзвінки' }).parentElement as HTMLElement;
    const [call] = within(log).getAllByRole('listitem');
    expect(call.textContent).toContain('21.11.2026, 09:00');
    expect(call.textContent).toContain('anna@example.org');
    expect(call.textContent).toContain('Не відповіли');
    expect(call.textContent).toContain('Не бере слухавку');
    expect(screen.getByRole('link', { name: '← До списку' }).getAttribute('href')).toBe('/admin');
  });

  it('says where the lead came from: the campaign tags and the linking site', async () => {
    const attributed = { ...LEAD_OPEN, id: 42, utm_source: 'viber', utm_campaign: 'зима', referrer: 'l.facebook.com' };
    fakeServer({ ...signedInRoutes(), 'GET /admin/api/leads/42': () => json(leadDetail(attributed, [])) });
    openInbox('/admin/leads/42');
    expect((await screen.findByText('Звідки')).nextElementSibling?.textContent).toBe('viber / зима, з l.facebook.com');
  });

  it('records a call with the CSRF token and shows the answer', async () => {
    const answered = leadDetail({ ...LEAD_OPEN, status: 'interested', open: false, attempt_count: 2 }, [
      ATTEMPT_1,
      { id: 8, at: NOW, operator: SESSION.email, outcome: 'interested', note: 'Чекає на лист' },
    ]);
    const server = fakeServer({
      ...signedInRoutes(),
      'POST /admin/api/leads/42/attempts': () => json(answered, 201),
    });
    openInbox('/admin/leads/42');
    expect(await screen.findByText('Залишилось 5 год 12 хв')).toBeTruthy();

    const outcomes = screen.getByRole('radiogroup', { name: 'Результат дзвінка' });
    expect(within(outcomes).getAllByRole('radio').map((radio) => radio.parentElement?.textContent)).toEqual([
      'Не відповіли',
      'Зацікавлені',
      'Не зацікавлені',
      'Не відповідає умовам',
      "Не вдалося зв'язатися (закрити)",
    ]);
    fireEvent.click(within(outcomes).getByRole('radio', { name: 'Зацікавлені' }));
    const note = screen.getByRole('textbox', { name: 'Нотатка' });
    expect(note.getAttribute('maxlength')).toBe('1000');
    fireEvent.change(note, { target: { value: 'Чекає на лист' } });
    fireEvent.click(screen.getByRole('button', { name: 'Записати дзвінок' }));

    expect(await screen.findByText("Зв'язалися: зацікавлені")).toBeTruthy();
    const [post] = server.calls('POST /admin/api/leads/42/attempts');
    expect(post.headers.get('X-CSRF-Token')).toBe(CSRF);
    expect(post.headers.get('Content-Type')).toBe('application/json');
    expect(post.body).toEqual({ outcome: 'interested', note: 'Чекає на лист' });

    const log = screen.getByRole('heading', { name: 'Дзвінки' }).parentElement as HTMLElement;
    expect(within(log).getAllByRole('listitem')).toHaveLength(2);
    expect(screen.queryByText(/Залишилось/)).toBeNull();
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Дзвінок записано.'));
    expect(screen.getByRole('textbox', { name: 'Нотатка' })).toHaveProperty('value', '');
  });

  it('sends a call again under the same key after a lost answer, and the next call under a new one', async () => {
    let answers = 0;
    const server = fakeServer({
      ...signedInRoutes(),
      'POST /admin/api/leads/42/attempts': () => {
        answers += 1;
        // The first reaches the server, but its answer never comes back.
        if (answers === 1) return Promise.reject(new TypeError('Failed to fetch'));
        return json(leadDetail({ ...LEAD_OPEN, status: 'attempt_2', attempt_count: 2 }, [ATTEMPT_1]), 201);
      },
    });
    openInbox('/admin/leads/42');
    const outcomes = await screen.findByRole('radiogroup', { name: 'Результат дзвінка' });
    fireEvent.click(within(outcomes).getByRole('radio', { name: 'Не відповіли' }));
    const send = screen.getByRole('button', { name: 'Записати дзвінок' });
    fireEvent.click(send);
    expect(await screen.findByRole('alert')).toBeTruthy();
    // Kept with the draft, so that a reload sends it under the same key too.
    const [lost] = server.calls('POST /admin/api/leads/42/attempts');
    expect(Object.values(storedDrafts()).join()).toContain(lost.headers.get('Idempotency-Key'));
    fireEvent.click(send);
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Дзвінок записано.'));
    fireEvent.click(within(outcomes).getByRole('radio', { name: 'Не відповіли' }));
    fireEvent.click(screen.getByRole('button', { name: 'Записати дзвінок' }));
    await waitFor(() => expect(server.calls('POST /admin/api/leads/42/attempts')).toHaveLength(3));

    const keys = server.calls('POST /admin/api/leads/42/attempts').map((r) => r.headers.get('Idempotency-Key'));
    expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).toMatch(/^[0-9a-f]{32}$/);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it('after a lost answer and a reload, sends the call under its key again, unless the lead shows it recorded', async () => {
    for (const recorded of [false, true]) {
      let posts = 0;
      const server = fakeServer({
        ...signedInRoutes(),
        // After the reload the lead shows the lost call, or not (it never reached the server).
        'GET /admin/api/leads/42': () =>
          json(leadDetail(posts > 0 && recorded ? { ...LEAD_OPEN, attempt_count: 2 } : LEAD_OPEN, [ATTEMPT_1])),
        'POST /admin/api/leads/42/attempts': () => {
          posts += 1;
          if (posts === 1) return Promise.reject(new TypeError('Failed to fetch'));
          return json(leadDetail({ ...LEAD_OPEN, status: 'attempt_2', attempt_count: 2 }, [ATTEMPT_1]), 201);
        },
      });
      openInbox('/admin/leads/42');
      fireEvent.click(await screen.findByRole('radio', { name: 'Не відповіли' }));
      fireEvent.click(screen.getByRole('button', { name: 'Записати дзвінок' }));
      expect(await screen.findByRole('alert')).toBeTruthy();
      cleanup();

      openInbox('/admin/leads/42');
      expect(await screen.findByRole('radio', { name: 'Не відповіли' })).toHaveProperty('checked', true);
      fireEvent.click(screen.getByRole('button', { name: 'Записати дзвінок' }));
      await waitFor(() => expect(server.calls('POST /admin/api/leads/42/attempts')).toHaveLength(2));
      const [lost, again] = server.calls('POST /admin/api/leads/42/attempts').map((r) => r.headers.get('Idempotency-Key'));
      if (recorded) expect(again, 'the lead shows the lost call: this one is the next').not.toBe(lost);
      else expect(again).toBe(lost);
      await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Дзвінок записано.'));
      cleanup();
    }
  });

  it('announces the second call recorded in a row too: the status line empties before it speaks again', async () => {
    let calls = 1;
    fakeServer({
      ...signedInRoutes(),
      'POST /admin/api/leads/42/attempts': () => {
        calls += 1;
        const attempts = Array.from({ length: calls }, (_, i) => ({ ...ATTEMPT_1, id: i + 1 }));
        return json(leadDetail({ ...LEAD_OPEN, status: calls === 2 ? 'attempt_2' : 'attempt_3', attempt_count: calls }, attempts), 201);
      },
    });
    openInbox('/admin/leads/42');
    const status = await screen.findByRole('status');
    const outcomes = await screen.findByRole('radiogroup', { name: 'Результат дзвінка' });
    const spoken: string[] = [];
    new MutationObserver(() => spoken.push(status.textContent ?? '')).observe(status, {
      childList: true,
      characterData: true,
      subtree: true,
    });

    const announced = () => spoken.filter((text) => text !== '');
    for (const round of [1, 2]) {
      fireEvent.click(within(outcomes).getByRole('radio', { name: 'Не відповіли' }));
      fireEvent.click(screen.getByRole('button', { name: 'Записати дзвінок' }));
      await waitFor(() => expect(announced()).toHaveLength(round));
    }
    expect(announced()).toEqual(['Дзвінок записано.', 'Дзвінок записано.']);
    expect(spoken.at(-1)).toBe('Дзвінок записано.');
  });

  it('asks for an outcome before sending, and shows a refusal from the server', async () => {
    const server = fakeServer({
      ...signedInRoutes(),
      'POST /admin/api/leads/42/attempts': () => apiError(400, 'Нотатка задовга: не більше 1000 символів.'),
    });
    openInbox('/admin/leads/42');
    const send = await screen.findByRole('button', { name: 'Записати дзвінок' });

    fireEvent.click(send);
    expect((await screen.findByRole('alert')).textContent).toBe('Виберіть результат дзвінка.');
    expect(server.calls('POST /admin/api/leads/42/attempts')).toHaveLength(0);

    fireEvent.click(screen.getByRole('radio', { name: 'Не відповіли' }));
    fireEvent.click(send);
    await waitFor(() =>
      expect(screen.getByRole('alert').textContent).toBe('Нотатка задовга: не більше 1000 символів.'),
    );
    expect(screen.getByText('Спроба 1')).toBeTruthy();
  });

  it('records the outcome with one tap on it under the call button, with the note being written', async () => {
    const server = fakeServer({
      ...signedInRoutes(),
      'POST /admin/api/leads/42/attempts': () =>
        json(leadDetail({ ...LEAD_OPEN, status: 'attempt_2', attempt_count: 2 }, [ATTEMPT_1, { ...ATTEMPT_1, id: 8 }]), 201),
    });
    openInbox('/admin/leads/42');
    const taps = await screen.findByRole('group', { name: 'Записати результат одним натисканням' });
    expect(within(taps).getAllByRole('button').map((button) => button.textContent)).toEqual([
      'Не відповіли',
      'Передзвонити о …',
      'Зацікавлені',
      'Не зацікавлені',
      'Не відповідає умовам',
      "Не вдалося зв'язатися (закрити)",
    ]);
    fireEvent.change(screen.getByRole('textbox', { name: 'Нотатка' }), { target: { value: 'Зайнято' } });

    fireEvent.click(within(taps).getByRole('button', { name: 'Не відповіли' }));
    // A second tap before the answer is the same call.
    fireEvent.click(within(taps).getByRole('button', { name: 'Не відповіли' }));

    expect(await screen.findByText('Спроба 2')).toBeTruthy();
    const posts = server.calls('POST /admin/api/leads/42/attempts');
    expect(posts.map((post) => post.body)).toEqual([{ outcome: 'no_answer', note: 'Зайнято' }]);
    expect(posts[0].headers.get('X-CSRF-Token')).toBe(CSRF);
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Дзвінок записано.'));
    expect(screen.getByRole('textbox', { name: 'Нотатка' })).toHaveProperty('value', '');
  });

  it('records "Передзвонити о …" from the lead\'s page too, with the note being written', async () => {
    const later: LeadView = { ...LEAD_OPEN, status: 'attempt_1', next_call_at: '2026-11-22T16:30:00.000000Z' };
    const server = fakeServer({
      ...signedInRoutes(),
      'POST /admin/api/leads/42/attempts': () => json(leadDetail(later, [ATTEMPT_1]), 201),
    });
    openInbox('/admin/leads/42');
    const taps = await screen.findByRole('group', { name: 'Записати результат одним натисканням' });
    fireEvent.change(screen.getByRole('textbox', { name: 'Нотатка' }), { target: { value: 'Після роботи' } });
    fireEvent.click(within(taps).getByRole('button', { name: 'Передзвонити о …' }));
    const field = within(taps).getByLabelText('Передзвонити о (за київським часом)');
    await waitFor(() => expect(document.activeElement).toBe(field));

    fireEvent.change(field, { target: { value: '2026-11-22T05:00' } });
    fireEvent.click(within(taps).getByRole('button', { name: 'Записати час дзвінка' }));
    expect(within(taps).getByRole('alert').textContent).toBe('Цей час уже минув: вкажіть пізніший.');
    expect(server.calls('POST /admin/api/leads/42/attempts')).toEqual([]);

    fireEvent.change(field, { target: { value: '2026-11-22T18:30' } });
    fireEvent.click(within(taps).getByRole('button', { name: 'Записати час дзвінка' }));
    expect(await screen.findByText('Наступний дзвінок: 22.11.2026, 18:30')).toBeTruthy();
    expect(server.calls('POST /admin/api/leads/42/attempts').map((post) => post.body)).toEqual([
      { outcome: 'call_back', note: 'Після роботи', call_back_at: '2026-11-22T16:30:00.000Z' },
    ]);
    expect(screen.getByRole('textbox', { name: 'Нотатка' })).toHaveProperty('value', '');
  });

  it('says beside the outcome buttons when a tap could not be recorded', async () => {
    fakeServer({
      ...signedInRoutes(),
      'POST /admin/api/leads/42/attempts': () => apiError(503, 'База даних зараз недоступна. Спробуйте за хвилину.'),
    });
    openInbox('/admin/leads/42');
    const taps = await screen.findByRole('group', { name: 'Записати результат одним натисканням' });

    fireEvent.click(within(taps).getByRole('button', { name: 'Зацікавлені' }));

    await waitFor(() =>
      expect(within(taps).getByRole('alert').textContent).toBe('База даних зараз недоступна. Спробуйте за хвилину.'),
    );
    expect(screen.getAllByRole('alert')).toHaveLength(1);
    expect(screen.getByText('Спроба 1')).toBeTruthy();
  });

  it('puts the call first: status and time left, name, the call button, the comment, the outcome taps', async () => {
    const withComment = { ...LEAD_OPEN, comment: 'Після 18:00' };
    fakeServer({ ...signedInRoutes(), 'GET /admin/api/leads/42': () => json(leadDetail(withComment, [])) });
    openInbox('/admin/leads/42');
    const call = await screen.findByRole('link', { name: 'Подзвонити +380 67 123 45 67' });

    const order = [
      screen.getByText('Залишилось 5 год 12 хв'),
      screen.getByText('Олена'),
      call,
      screen.getByText('Після 18:00'),
      screen.getByRole('group', { name: 'Записати результат одним натисканням' }),
      screen.getByText('Чи є у Вас діагноз, підтверджений лікарем?'),
      screen.getByRole('heading', { name: 'Дзвінки' }),
      screen.getByRole('form', { name: 'Записати дзвінок' }),
    ];
    for (const [before, after] of order.slice(0, -1).map((node, i) => [node, order[i + 1]])) {
      expect(before.compareDocumentPosition(after) & Node.DOCUMENT_POSITION_FOLLOWING, after.textContent ?? '').toBeTruthy();
    }
  });

  it("shows the server's sentence for a lead that does not exist", async () => {
    fakeServer({ ...signedInRoutes(), 'GET /admin/api/leads/999': () => apiError(404, 'Заявку не знайдено.') });
    openInbox('/admin/leads/999');
    expect((await screen.findByRole('alert')).textContent).toBe('Заявку не знайдено.');
    // Asking again cannot bring it back.
    expect(screen.queryByRole('button', { name: 'Спробувати ще раз' })).toBeNull();
  });

  it('erases every lead of the person after a confirmation, then shows the list and how many', async () => {
    const server = fakeServer({
      ...signedInRoutes(),
      'POST /admin/api/erase': () => json({ erased: 2 }),
    });
    openInbox('/admin/leads/42');

    fireEvent.click(await screen.findByRole('button', { name: 'Видалити дані цієї людини' }));
    expect(screen.getByText(/назавжди видалено всі заявки з номером \+380 67 123 45 67 /)).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Скасувати' }));

    fireEvent.click(screen.getByRole('button', { name: 'Скасувати' }));
    expect(screen.queryByRole('button', { name: 'Так, видалити назавжди' })).toBeNull();
    expect(server.calls('POST /admin/api/erase')).toHaveLength(0);

    fireEvent.click(screen.getByRole('button', { name: 'Видалити дані цієї людини' }));
    fireEvent.click(screen.getByRole('button', { name: 'Так, видалити назавжди' }));

    await waitFor(() => expect(window.location.pathname).toBe('/admin'));
    // The message comes with the list's render, which may follow the navigation by a tick.
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Видалено заявок: 2'));
    const [erase] = server.calls('POST /admin/api/erase');
    expect(erase.body).toEqual({ phone: '067 123 45 67' });
    expect(erase.headers.get('X-CSRF-Token')).toBe(CSRF);
    // Back on the desk: the calls to make now, as the server lists them after the erasure.
    const due = await screen.findByRole('list', { name: 'Кому дзвонити зараз, по черзі' });
    expect(within(due).getAllByRole('listitem')).toHaveLength(2);
  });

  it('keeps the list\'s search and filter on the way there and back', async () => {
    fakeServer(signedInRoutes());
    openInbox('/admin?filter=open&q=067');
    fireEvent.click(await screen.findByRole('link', { name: /^Заявка №42/ }));
    const back = await screen.findByRole('link', { name: '← До списку' });
    expect(back.getAttribute('href')).toBe('/admin?filter=open&q=067');
    await act(async () => fireEvent.click(back));
    expect(await screen.findByRole('searchbox')).toHaveProperty('value', '067');
    expect(screen.getByRole('button', { name: 'Відкриті', pressed: true })).toBeTruthy();
  });
});

describe('held leads', () => {
  /** The held view's card of lead `id`. */
  function heldItem(id: number): HTMLElement {
    const list = screen.getByRole('list', { name: 'Заявки на перевірці' });
    const link = within(list).getByRole('link', { name: `Заявка №${id}` });
    return link.closest('li') as HTMLElement;
  }

  it('the front counts them and links to the held view, which says why each is held', async () => {
    const server = fakeServer(heldRoutes());
    openInbox('/admin');
    await openFigures();

    const count = await screen.findByRole('link', { name: 'На перевірці: 2' });
    expect(count.getAttribute('href')).toBe('/admin/held');
    fireEvent.click(count);

    expect(await screen.findByRole('heading', { level: 1, name: 'На перевірці' })).toBeTruthy();
    await screen.findByText('Bot Botenko');
    expect(window.location.pathname).toBe('/admin/held');
    expect(server.calls('GET /admin/api/leads').at(-1)?.params.get('filter')).toBe('held');

    const bot = heldItem(45);
    expect(within(bot).getAllByRole('listitem').map((reason) => reason.textContent)).toEqual([
      'Надіслано, не відкривши сторінку сайту',
      'Такого номера телефону не може бути',
    ]);
    expect(within(heldItem(44)).getAllByRole('listitem').map((reason) => reason.textContent)).toEqual([
      'Форму заповнено надто швидко для людини',
      'Браузер керувала програма, а не людина',
    ]);
    // Outside the 48 hours: no countdown, although LEAD_HELD's deadline would be long past.
    expect(screen.queryByText(/Залишилось|Прострочено/)).toBeNull();
    expect(within(bot).getByRole('button', { name: 'Передати в роботу' })).toBeTruthy();
    expect(within(bot).getByRole('button', { name: 'Видалити дані цієї людини' })).toBeTruthy();
  });

  it('"Передати в роботу" releases one with the CSRF token: it leaves the view, then is in the call list and the count drops', async () => {
    const server = fakeServer(heldRoutes());
    openInbox('/admin/held');
    await screen.findByText('Галина');

    fireEvent.click(within(heldItem(44)).getByRole('button', { name: 'Передати в роботу' }));

    await waitFor(() => expect(screen.queryByText('Галина')).toBeNull());
    expect(screen.getByText('Bot Botenko')).toBeTruthy();
    const [release] = server.calls('POST /admin/api/leads/44/release');
    expect(release.headers.get('X-CSRF-Token')).toBe(CSRF);
    expect(release.body).toBeUndefined();
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Заявку №44 передано в роботу.'));
    await focusMovesTo(() => screen.getByRole('heading', { level: 1, name: 'На перевірці' }));

    fireEvent.click(screen.getByRole('link', { name: '← До списку' }));
    // To be called now: on the desk.
    const due = await screen.findByRole('list', { name: 'Кому дзвонити зараз, по черзі' });
    expect(await within(due).findByText('Галина')).toBeTruthy();
    await openFigures();
    expect(await screen.findByRole('link', { name: 'На перевірці: 1' })).toBeTruthy();
    expect(server.calls('POST /admin/api/leads/45/release')).toHaveLength(0);
  });

  it("says so when a released lead joined the person's open lead instead of the call list", async () => {
    const joined = { ...LEAD_HELD_PERSON, held: null, repeat_of: 42, next_call_at: null };
    fakeServer({ ...heldRoutes(), 'POST /admin/api/leads/44/release': () => json(leadDetail(joined, [])) });
    openInbox('/admin/held');
    await screen.findByText('Галина');

    fireEvent.click(within(heldItem(44)).getByRole('button', { name: 'Передати в роботу' }));

    await waitFor(() =>
      expect(screen.getByRole('status').textContent).toBe(
        'Заявку №44 додано до відкритої заявки №42 цієї людини: дзвоніть за тією.',
      ),
    );
  });

  it('erases one after the confirmation: every lead with its phone leaves the view', async () => {
    const server = fakeServer(heldRoutes());
    openInbox('/admin/held');
    await screen.findByText('Bot Botenko');

    fireEvent.click(within(heldItem(45)).getByRole('button', { name: 'Видалити дані цієї людини' }));
    expect(within(heldItem(45)).getByText(/назавжди видалено всі заявки з номером \+380 00 123 45 67 /)).toBeTruthy();
    expect(document.activeElement).toBe(within(heldItem(45)).getByRole('button', { name: 'Скасувати' }));
    expect(server.calls('POST /admin/api/erase')).toHaveLength(0);
    fireEvent.click(within(heldItem(45)).getByRole('button', { name: 'Так, видалити назавжди' }));

    await waitFor(() => expect(screen.queryByText('Bot Botenko')).toBeNull());
    expect(screen.getByText('Галина')).toBeTruthy();
    const [erase] = server.calls('POST /admin/api/erase');
    expect(erase.body).toEqual({ phone: '+380001234567' });
    expect(erase.headers.get('X-CSRF-Token')).toBe(CSRF);
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Видалено заявок: 1'));
  });

  it('says so when none is held', async () => {
    fakeServer({ ...signedInRoutes(), 'GET /admin/api/leads': () => json(leadPage([])) });
    openInbox('/admin/held');
    expect(await screen.findByText('Заявок на перевірці немає')).toBeTruthy();
  });

  it("shows the server's sentence when a release fails, and keeps the lead", async () => {
    fakeServer({
      ...heldRoutes(),
      'POST /admin/api/leads/45/release': () => apiError(503, 'База даних зараз недоступна. Спробуйте за хвилину.'),
    });
    openInbox('/admin/held');
    await screen.findByText('Bot Botenko');
    fireEvent.click(within(heldItem(45)).getByRole('button', { name: 'Передати в роботу' }));
    expect((await screen.findByRole('alert')).textContent).toBe('База даних зараз недоступна. Спробуйте за хвилину.');
    expect(screen.getByText('Bot Botenko')).toBeTruthy();
    expect(within(heldItem(45)).getByRole('button', { name: 'Передати в роботу' })).toHaveProperty('disabled', false);
  });

  it("a held lead's page says it is held and why, with no countdown and no call form; released, it is on the clock", async () => {
    const server = fakeServer(heldRoutes());
    openInbox('/admin/leads/44');

    const held = await screen.findByRole('region', { name: 'Заявка на перевірці' });
    expect(screen.getByText('На перевірці')).toBeTruthy();
    expect(within(held).getAllByRole('listitem').map((reason) => reason.textContent)).toEqual([
      'Форму заповнено надто швидко для людини',
      'Браузер керувала програма, а не людина',
    ]);
    expect(screen.queryByText(/Залишилось|Прострочено/)).toBeNull();
    expect(screen.queryByRole('button', { name: 'Записати дзвінок' })).toBeNull();
    expect(screen.queryByRole('group', { name: 'Записати результат одним натисканням' })).toBeNull();
    // The number is there to read, but not as the big call button: nobody calls before the release.
    expect(document.querySelector('.call-button')).toBeNull();
    expect(screen.getByRole('link', { name: /^Подзвонити \+380 / })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Видалити дані цієї людини' })).toBeTruthy();

    fireEvent.click(within(held).getByRole('button', { name: 'Передати в роботу' }));

    await waitFor(() => expect(screen.queryByRole('region', { name: 'Заявка на перевірці' })).toBeNull());
    expect(server.calls('POST /admin/api/leads/44/release')).toHaveLength(1);
    expect(screen.getByText('Нова')).toBeTruthy();
    expect(screen.getByText('Залишилось 38 год 2 хв')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Записати дзвінок' })).toBeTruthy();
    expect(screen.getByRole('group', { name: 'Записати результат одним натисканням' })).toBeTruthy();
    expect(document.querySelector('.call-button')).not.toBeNull();
    await focusMovesTo(() => screen.getByRole('heading', { level: 1, name: 'Заявка №44' }));
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Заявку передано в роботу.'));
  });

  it("from the held view, a lead's page leads back there, and its erasure too", async () => {
    fakeServer(heldRoutes());
    openInbox('/admin/held');
    fireEvent.click(await screen.findByRole('link', { name: 'Заявка №45' }));
    const back = await screen.findByRole('link', { name: '← До списку' });
    expect(back.getAttribute('href')).toBe('/admin/held');

    fireEvent.click(await screen.findByRole('button', { name: 'Видалити дані цієї людини' }));
    fireEvent.click(screen.getByRole('button', { name: 'Так, видалити назавжди' }));
    await waitFor(() => expect(window.location.pathname).toBe('/admin/held'));
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Видалено заявок: 1'));
    expect(await screen.findByText('Галина')).toBeTruthy();
    expect(screen.queryByText('Bot Botenko')).toBeNull();
  });
});

describe('repeats', () => {
  it('the list marks a lead whose person wrote again with "+N", said in full to a screen reader', async () => {
    fakeServer({ ...signedInRoutes(), 'GET /admin/api/leads': () => json(leadPage([LEAD_WITH_REPEATS, LEAD_OVERDUE])) });
    openInbox('/admin');
    const [withRepeats, single] = await screen.findAllByRole('listitem');
    const marker = within(withRepeats).getByText('+2');
    expect(marker.getAttribute('aria-hidden')).toBe('true');
    expect(within(withRepeats).getByText('Ще заявок від цієї людини: 2')).toBeTruthy();
    expect(within(single).queryByText(/^\+\d+$/)).toBeNull();
    expect(within(single).queryByText(/Ще заявок/)).toBeNull();
  });

  it("the lead's page counts the person's submissions and shows what a later one says that the first does not", async () => {
    fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/leads/42': () => json(leadDetail(LEAD_WITH_REPEATS, [ATTEMPT_1], REPEATS)),
    });
    openInbox('/admin/leads/42');

    const repeats = await screen.findByRole('region', { name: 'Заявок від цієї людини: 3' });
    const [same, changed] = within(repeats).getAllByRole('listitem');
    expect(same.textContent).toContain('20.11.2026, 11:20');
    expect(same.textContent).toContain('Те саме, що в першій заявці.');
    expect(changed.textContent).toContain('21.11.2026, 18:30');
    expect(within(changed).getByText("Ім'я: Олена Коваль")).toBeTruthy();
    expect(within(changed).getByText('Коментар: Можна дзвонити лише після 18:00')).toBeTruthy();
    expect(changed.textContent).not.toContain('Те саме');
    // The first lead is still called as usual.
    expect(screen.getByText('Залишилось 5 год 12 хв')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Записати дзвінок' })).toBeTruthy();
  });

  it('a single submission shows no count', async () => {
    fakeServer(signedInRoutes());
    openInbox('/admin/leads/42');
    await screen.findByText('Олена');
    expect(screen.queryByText(/Заявок від цієї людини/)).toBeNull();
  });

  it("a later submission's own page points to the first lead, where the calls are", async () => {
    const [repeat] = REPEATS;
    fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/leads/46': () =>
        json(
          leadDetail(
            {
              ...repeat,
              open: true,
              deadline_at: '2026-11-22T09:20:00.000000Z',
              claimed_by: null,
              claimed_until: null,
              at_risk: false,
            },
            [],
          ),
        ),
    });
    openInbox('/admin/leads/46');
    const first = await screen.findByRole('link', { name: 'Заявка №42' });
    expect(first.getAttribute('href')).toBe('/admin/leads/42');
    expect(screen.queryByText(/Залишилось|Прострочено/)).toBeNull();
    expect(screen.queryByRole('button', { name: 'Записати дзвінок' })).toBeNull();
  });
});
