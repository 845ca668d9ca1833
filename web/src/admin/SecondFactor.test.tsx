// @vitest-environment jsdom
// The second factor in the inbox (docs/admin-api.md, "The second factor"): the login's code step,
// setting it up from the e-mail in the bar, and the required mode where the set-up page is all
// there is. The real app under its /admin router, the server replaced at `fetch` by recorded answers.
import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { SESSION, apiError, fakeServer, json, signedInRoutes } from './test-server';
import { focusMovesTo, isolateEachTest, openInbox, openMenu } from './test-inbox';

isolateEachTest();

const ENROLMENT = {
  secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  uri: 'otpauth://totp/zayavka:operator%40example.org?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=zayavka',
  qr: 'data:image/svg+xml;base64,PHN2Zy8+',
};
const RECOVERY_CODES = Array.from({ length: 10 }, (_, i) => `abcde-fgh${String(i).padStart(2, '2')}`);

function codeRequired(error: string) {
  return json({ error, code_required: true }, 401);
}

describe('signing in with a second factor', () => {
  it('asks for the code once the password is right, keeps what was typed, and signs in with it', async () => {
    const answers = [
      codeRequired('Введіть код із застосунку автентифікації.'),
      codeRequired('Код не підходить. Спробуйте наступний код із застосунку.'),
    ];
    const server = fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/session': () => apiError(401, 'Потрібно увійти.'),
      'POST /admin/api/login': () => answers.shift() ?? json({ ...SESSION, second_factor: { on: true, required: false } }),
    });
    openInbox('/admin');
    fireEvent.change(await screen.findByRole('textbox', { name: 'Електронна пошта' }), {
      target: { value: SESSION.email },
    });
    fireEvent.change(screen.getByLabelText('Пароль'), { target: { value: 'dovgyi-parol-42' } });
    expect(screen.queryByRole('textbox', { name: 'Код із застосунку або код відновлення' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Увійти' }));

    const code = await screen.findByRole('textbox', { name: 'Код із застосунку або код відновлення' });
    expect(screen.getByRole('alert').textContent).toBe('Введіть код із застосунку автентифікації.');
    await focusMovesTo(() => code);
    expect(code.getAttribute('autocomplete')).toBe('one-time-code');
    expect(screen.getByLabelText<HTMLInputElement>('Пароль').value).toBe('dovgyi-parol-42');

    fireEvent.change(code, { target: { value: '123456' } });
    fireEvent.click(screen.getByRole('button', { name: 'Увійти' }));
    expect(await screen.findByText('Код не підходить. Спробуйте наступний код із застосунку.')).toBeTruthy();
    fireEvent.change(code, { target: { value: '654321' } });
    fireEvent.click(screen.getByRole('button', { name: 'Увійти' }));

    expect(await screen.findByRole('button', { name: 'Меню' })).toBeTruthy();
    expect(server.calls('POST /admin/api/login').map((call) => call.body)).toEqual([
      { email: SESSION.email, password: 'dovgyi-parol-42' },
      { email: SESSION.email, password: 'dovgyi-parol-42', code: '123456' },
      { email: SESSION.email, password: 'dovgyi-parol-42', code: '654321' },
    ]);
  });
});

describe('setting it up', () => {
  it('from the e-mail in the bar: the QR code and key, the first code, then the recovery codes once', async () => {
    const server = fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/second-factor': () => json({ on: false, required: false, recovery_codes_left: 0 }),
      'POST /admin/api/second-factor/start': () => json(ENROLMENT),
      'POST /admin/api/second-factor/confirm': (request) =>
        (request.body as { code: string }).code === '000000'
          ? apiError(400, 'Код не підходить. Перевірте, що час на телефоні правильний, і введіть новий код.')
          : json({ recovery_codes: RECOVERY_CODES }),
    });
    openInbox('/admin');
    await openMenu();
    fireEvent.click(within(await screen.findByRole('banner')).getByRole('link', { name: SESSION.email }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Двоетапна перевірка' })).toBeTruthy();
    fireEvent.click(await screen.findByRole('button', { name: 'Налаштувати' }));

    const qr = await screen.findByRole('img', { name: 'QR-код для застосунку автентифікації' });
    expect(qr.getAttribute('src')).toBe(ENROLMENT.qr);
    expect(screen.getByText('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP')).toBeTruthy();
    const code = screen.getByRole('textbox', { name: 'Код із застосунку' });
    fireEvent.change(code, { target: { value: '000000' } });
    fireEvent.click(screen.getByRole('button', { name: 'Підтвердити' }));
    expect((await screen.findByRole('alert')).textContent).toContain('Код не підходить');
    fireEvent.change(code, { target: { value: '287082' } });
    fireEvent.click(screen.getByRole('button', { name: 'Підтвердити' }));

    const codes = await screen.findByRole('list', { name: 'Коди відновлення' });
    expect(within(codes).getAllByRole('listitem').map((item) => item.textContent)).toEqual(RECOVERY_CODES);
    expect(server.calls('POST /admin/api/second-factor/confirm').map((call) => call.body)).toEqual([
      { code: '000000' },
      { code: '287082' },
    ]);
    fireEvent.click(screen.getByRole('button', { name: 'Я зберіг(ла) коди' }));
    expect(await screen.findByText('Двоетапну перевірку увімкнено.')).toBeTruthy();
    expect(screen.queryByRole('list', { name: 'Коди відновлення' })).toBeNull();
    expect(window.location.pathname).toBe('/admin');
  });

  it('when it is on: the recovery codes left, and what to do about a lost phone', async () => {
    fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/session': () => json({ ...SESSION, second_factor: { on: true, required: false } }),
      'GET /admin/api/second-factor': () => json({ on: true, required: false, recovery_codes_left: 7 }),
    });
    openInbox('/admin/second-factor');
    expect(await screen.findByText(/Кодів відновлення залишилося: 7\./)).toBeTruthy();
    expect(screen.getByText(`zayavka admin reset-2fa ${SESSION.email}`)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Налаштувати' })).toBeNull();
  });
});

describe('required for everyone', () => {
  it('shows only the set-up page, without the list or the admins\' links, until it is on', async () => {
    fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/session': () => json({ ...SESSION, second_factor: { on: false, required: true } }),
      'GET /admin/api/second-factor': () => json({ on: false, required: true, recovery_codes_left: 0 }),
      'POST /admin/api/second-factor/start': () => json(ENROLMENT),
      'POST /admin/api/second-factor/confirm': () => json({ recovery_codes: RECOVERY_CODES }),
    });
    openInbox('/admin/leads/42');
    expect(await screen.findByRole('heading', { level: 1, name: 'Двоетапна перевірка' })).toBeTruthy();
    expect(screen.getByText(/Адміністратор вимагає двоетапну перевірку для всіх/)).toBeTruthy();
    const bar = screen.getByRole('banner');
    await openMenu();
    expect(within(bar).getByRole('button', { name: 'Вийти' })).toBeTruthy();
    expect(within(bar).queryByRole('link', { name: 'Команда' })).toBeNull();
    expect(within(bar).queryByRole('link', { name: 'Завантажити CSV' })).toBeNull();
    expect(within(bar).queryByRole('link', { name: 'Завантажити Excel' })).toBeNull();
    expect(screen.queryByRole('link', { name: '← До списку' })).toBeNull();

    fireEvent.click(await screen.findByRole('button', { name: 'Налаштувати' }));
    fireEvent.change(await screen.findByRole('textbox', { name: 'Код із застосунку' }), { target: { value: '287082' } });
    fireEvent.click(screen.getByRole('button', { name: 'Підтвердити' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Я зберіг(ла) коди' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Кому дзвонити зараз' })).toBeTruthy();
    await openMenu();
    expect(within(bar).getByRole('link', { name: 'Команда' })).toBeTruthy();
  });
});
