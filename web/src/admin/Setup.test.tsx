// @vitest-environment jsdom
// The first start's setup screen as a newcomer meets it: the real app under its /admin router at
// the logged link, the server replaced at `fetch` by answers shaped as docs/admin-api.md says.
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { isolateEachTest, openInbox } from './test-inbox';
import { SESSION, apiError, fakeServer, json, signedInRoutes } from './test-server';

const TOKEN = 'LqKbOjjC0prZ4Phiq2V2s6YP4FPkI_ZUf6MXre_ukgw';
/** The link the server logs on the first start. */
const SETUP_LINK = `/admin/setup?token=${TOKEN}`;

isolateEachTest();

function fill(email: string, password: string, repeat: string) {
  fireEvent.change(screen.getByRole('textbox', { name: 'Електронна пошта' }), { target: { value: email } });
  fireEvent.change(screen.getByLabelText(/^Пароль \(/), { target: { value: password } });
  fireEvent.change(screen.getByLabelText('Пароль ще раз'), { target: { value: repeat } });
  fireEvent.click(screen.getByRole('button', { name: 'Створити й увійти' }));
}

describe('the first start', () => {
  it('creates the first operator with the link\'s token and lands signed in in the inbox, the link gone from the address', async () => {
    let signedIn = false;
    const server = fakeServer({
      ...signedInRoutes(),
      'POST /admin/api/setup': () => {
        signedIn = true;
        return json(SESSION);
      },
      'GET /admin/api/session': () => (signedIn ? json(SESSION) : apiError(401, 'Увійдіть, щоб продовжити.')),
    });
    openInbox(SETUP_LINK);

    expect(screen.getByRole('heading', { level: 1, name: 'Перший запуск' })).toBeTruthy();
    const password = screen.getByLabelText(/^Пароль \(/);
    expect(password.getAttribute('autocomplete')).toBe('new-password');
    expect(screen.getByLabelText('Пароль ще раз').getAttribute('autocomplete')).toBe('new-password');
    // No session is asked for on the setup page.
    expect(server.requests).toEqual([]);

    fill('first@example.org', 'a long enough secret', 'a long enough secret');

    await screen.findByRole('button', { name: 'Меню' });
    expect(server.calls('POST /admin/api/setup').map((r) => r.body)).toEqual([
      { token: TOKEN, email: 'first@example.org', password: 'a long enough secret' },
    ]);
    expect(window.location.pathname).toBe('/admin');
    expect(window.location.search).toBe('');
  });

  it('says what is wrong before asking the server: a short password, two passwords that differ', async () => {
    const server = fakeServer({});
    openInbox(SETUP_LINK);

    fill('first@example.org', 'short', 'short');
    expect(screen.getByRole('alert').textContent).toBe('Пароль має містити щонайменше 10 символів.');
    fill('first@example.org', 'a long enough secret', 'a long enough secreT');
    expect(screen.getByRole('alert').textContent).toBe('Паролі не збігаються.');
    expect(server.requests).toEqual([]);
  });

  it('shows the server\'s sentence when the link was used meanwhile, and lets the operator try again', async () => {
    fakeServer({ 'POST /admin/api/setup': () => apiError(404, 'Не знайдено.') });
    openInbox(SETUP_LINK);

    fill('first@example.org', 'a long enough secret', 'a long enough secret');
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('Не знайдено.'));
    expect(screen.getByRole('button', { name: 'Створити й увійти' })).toHaveProperty('disabled', false);
    expect(window.location.pathname).toBe('/admin/setup');
  });
});
