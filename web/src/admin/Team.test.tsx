// @vitest-environment jsdom
// Roles in the inbox (docs/admin-api.md, "The team"): what an operator does not see, and the
// admins' "Команда" and "Журнал дій" pages. The real app under its /admin router, the server
// replaced at `fetch` by recorded answers.
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  AUDIT_NEWEST,
  CSRF,
  LEAD_HELD,
  OPERATOR_SESSION,
  SESSION,
  apiError,
  auditEntries,
  auditRoutes,
  fakeServer,
  heldRoutes,
  json,
  signedInRoutes,
  teamRoutes,
} from './test-server';
import { focusMovesTo, isolateEachTest, openInbox, openMenu } from './test-inbox';

isolateEachTest();

/** The admin links in the header bar's menu (open it first). */
function adminLinks() {
  const bar = screen.getByRole('banner');
  return {
    team: within(bar).queryByRole('link', { name: 'Команда' }),
    audit: within(bar).queryByRole('link', { name: 'Журнал дій' }),
    csv: within(bar).queryByRole('link', { name: 'Завантажити CSV' }),
    excel: within(bar).queryByRole('link', { name: 'Завантажити Excel' }),
  };
}

describe('an operator', () => {
  const asOperator = () => ({ ...heldRoutes(), 'GET /admin/api/session': () => json(OPERATOR_SESSION) });

  it('sees no CSV or Excel export and no links to the team or the audit trail', async () => {
    fakeServer(asOperator());
    openInbox('/admin');
    await openMenu();
    expect(await screen.findByRole('link', { name: OPERATOR_SESSION.email })).toBeTruthy();
    expect(adminLinks()).toEqual({ team: null, audit: null, csv: null, excel: null });
    expect(screen.getByRole('button', { name: 'Вийти' })).toBeTruthy();
  });

  it("sees no erasure on a lead's page, and records calls as before", async () => {
    fakeServer(asOperator());
    openInbox('/admin/leads/42');
    expect(await screen.findByRole('heading', { level: 1, name: 'Заявка №42' })).toBeTruthy();
    expect(await screen.findByRole('button', { name: 'Записати дзвінок' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Видалити дані цієї людини' })).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Видалення даних' })).toBeNull();
  });

  it('releases held leads but sees no erasure in the held view nor on a held lead', async () => {
    fakeServer(asOperator());
    openInbox('/admin/held');
    const list = await screen.findByRole('list', { name: 'Заявки на перевірці' });
    expect(within(list).getAllByRole('button', { name: 'Передати в роботу' })).toHaveLength(2);
    expect(screen.queryByRole('button', { name: 'Видалити дані цієї людини' })).toBeNull();
    expect(screen.getByText(/іншу видалить адміністратор\./)).toBeTruthy();

    fireEvent.click(within(list).getByRole('link', { name: `Заявка №${LEAD_HELD.id}` }));
    expect(await screen.findByRole('region', { name: 'Заявка на перевірці' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Видалити дані цієї людини' })).toBeNull();
  });

  it("opening an admin's page says it is for admins and asks the server nothing for it", async () => {
    fakeServer(asOperator());
    openInbox('/admin/team');
    expect(await screen.findByRole('heading', { level: 1, name: 'Команда' })).toBeTruthy();
    expect(screen.getByText('Це може зробити лише адміністратор.')).toBeTruthy();
  });
});

describe('an admin', () => {
  it('has the CSV and Excel exports and the links to "Команда" and "Журнал дій"', async () => {
    fakeServer(signedInRoutes());
    openInbox('/admin');
    await openMenu();
    expect(await screen.findByRole('link', { name: SESSION.email })).toBeTruthy();
    const links = adminLinks();
    expect(links.csv).toBeTruthy();
    expect(links.excel?.getAttribute('href')).toBe('/admin/api/export.xlsx');
    expect(links.team?.getAttribute('href')).toBe('/admin/team');
    expect(links.audit?.getAttribute('href')).toBe('/admin/audit');
    expect(links.audit?.closest('[hidden]')).toBeNull();
  });
});

describe('the team', () => {
  /** The card of the account `email` in the list. */
  function account(email: string): HTMLElement {
    const list = screen.getByRole('list', { name: 'Облікові записи' });
    return within(list).getByText(new RegExp(`^${email.replace(/[.]/g, '\\.')}`)).closest('li') as HTMLElement;
  }

  it('lists the accounts with their roles and when each was added (Kyiv time), one\'s own marked', async () => {
    fakeServer(teamRoutes());
    openInbox('/admin');
    await openMenu();
    fireEvent.click(await screen.findByRole('link', { name: 'Команда' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Команда' })).toBeTruthy();
    // Gone to the page, the menu closed; opened again, it marks where the operator is.
    expect(screen.getByRole('button', { name: 'Меню' }).getAttribute('aria-expanded')).toBe('false');
    await openMenu();
    expect(screen.getByRole('link', { name: 'Команда' }).getAttribute('aria-current')).toBe('page');
    const list = await screen.findByRole('list', { name: 'Облікові записи' });
    const items = within(list).getAllByRole('listitem');
    expect(items.map((item) => item.querySelector('.account-email')?.textContent)).toEqual([
      'operator@example.org (ви)',
      'anna@example.org',
    ]);
    expect(within(items[0]).getByText('Адміністратор')).toBeTruthy();
    expect(within(items[0]).getByText('01.11.2026, 10:00')).toBeTruthy();
    expect(items[0].textContent).toContain('Двоетапна перевірка увімкнена.');
    expect(within(items[1]).getByText('Оператор')).toBeTruthy();
    expect(items[1].textContent).toContain('Без двоетапної перевірки.');
    expect(within(items[1]).getByRole('button', { name: 'Зробити адміністратором' })).toBeTruthy();
    expect(within(items[0]).getByRole('button', { name: 'Зробити оператором' })).toBeTruthy();
  });

  it('adds an account with the CSRF token, says so, and lists it', async () => {
    const server = fakeServer(teamRoutes());
    openInbox('/admin/team');
    const form = await screen.findByRole('form', { name: 'Новий обліковий запис' });
    expect(within(form).getByRole('radio', { name: 'Оператор' })).toHaveProperty('checked', true);

    fireEvent.change(within(form).getByRole('textbox', { name: 'Електронна пошта' }), {
      target: { value: 'petro@example.org' },
    });
    fireEvent.change(within(form).getByLabelText(/^Пароль \(/), { target: { value: 'dovgyi-parol-42' } });
    fireEvent.click(within(form).getByRole('radio', { name: 'Адміністратор' }));
    fireEvent.click(within(form).getByRole('button', { name: 'Додати' }));

    await waitFor(() =>
      expect(screen.getByRole('status').textContent).toBe('Обліковий запис petro@example.org додано: адміністратор.'),
    );
    const [added] = server.calls('POST /admin/api/operators');
    expect(added.body).toEqual({ email: 'petro@example.org', password: 'dovgyi-parol-42', role: 'admin' });
    expect(added.headers.get('X-CSRF-Token')).toBe(CSRF);
    await waitFor(() => expect(within(account('petro@example.org')).getByText('Адміністратор')).toBeTruthy());
    expect(within(form).getByRole('textbox', { name: 'Електронна пошта' })).toHaveProperty('value', '');
  });

  it("shows the server's reason when it refuses a new account, and a short password before asking", async () => {
    const server = fakeServer(teamRoutes());
    openInbox('/admin/team');
    const form = await screen.findByRole('form', { name: 'Новий обліковий запис' });
    const email = within(form).getByRole('textbox', { name: 'Електронна пошта' });
    const password = within(form).getByLabelText(/^Пароль \(/);

    fireEvent.change(email, { target: { value: 'petro@example.org' } });
    fireEvent.change(password, { target: { value: 'short' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Додати' }));
    expect(within(form).getByRole('alert').textContent).toBe('Пароль має містити щонайменше 10 символів.');
    expect(server.calls('POST /admin/api/operators')).toHaveLength(0);

    fireEvent.change(email, { target: { value: 'anna@example.org' } });
    fireEvent.change(password, { target: { value: 'dovgyi-parol-42' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Додати' }));
    await waitFor(() =>
      expect(within(form).getByRole('alert').textContent).toBe('Обліковий запис із цією адресою вже є.'),
    );
    // What was typed stays, to be corrected.
    expect(email).toHaveProperty('value', 'anna@example.org');
  });

  it('changes a role with the CSRF token and says so', async () => {
    const server = fakeServer(teamRoutes());
    openInbox('/admin/team');
    await screen.findByRole('list', { name: 'Облікові записи' });

    fireEvent.click(within(account('anna@example.org')).getByRole('button', { name: 'Зробити адміністратором' }));

    await waitFor(() => expect(within(account('anna@example.org')).getByText('Адміністратор')).toBeTruthy());
    const [change] = server.calls('POST /admin/api/operators/role');
    expect(change.body).toEqual({ email: 'anna@example.org', role: 'admin' });
    expect(change.headers.get('X-CSRF-Token')).toBe(CSRF);
    await waitFor(() =>
      expect(screen.getByRole('status').textContent).toBe('Роль змінено: anna@example.org — адміністратор.'),
    );
    expect(within(account('anna@example.org')).getByRole('button', { name: 'Зробити оператором' })).toBeTruthy();
  });

  it('shows the refusal for the last admin beside the account, which stays an admin', async () => {
    const server = fakeServer(teamRoutes());
    openInbox('/admin/team');
    await screen.findByRole('list', { name: 'Облікові записи' });
    const me = account(SESSION.email);

    fireEvent.click(within(me).getByRole('button', { name: 'Зробити оператором' }));
    expect((await within(me).findByRole('alert')).textContent).toBe(
      'Це останній адміністратор: спершу призначте іншого.',
    );
    expect(within(me).getByText('Адміністратор')).toBeTruthy();
    expect(server.calls('POST /admin/api/operators/role')).toHaveLength(1);

    fireEvent.click(within(me).getByRole('button', { name: 'Видалити обліковий запис' }));
    fireEvent.click(within(me).getByRole('button', { name: 'Так, видалити обліковий запис' }));
    await waitFor(() =>
      expect(within(me).getAllByRole('alert').map((a) => a.textContent)).toContain(
        'Це останній адміністратор: спершу призначте іншого.',
      ),
    );
    expect(screen.getByRole('button', { name: 'Меню' })).toBeTruthy();
  });

  it('removes an account only after a confirmation', async () => {
    const server = fakeServer(teamRoutes());
    openInbox('/admin/team');
    await screen.findByRole('list', { name: 'Облікові записи' });
    const anna = account('anna@example.org');

    fireEvent.click(within(anna).getByRole('button', { name: 'Видалити обліковий запис' }));
    expect(within(anna).getByRole('group', { name: /^Обліковий запис anna@example\.org буде видалено/ })).toBeTruthy();
    expect(document.activeElement).toBe(within(anna).getByRole('button', { name: 'Скасувати' }));
    fireEvent.click(within(anna).getByRole('button', { name: 'Скасувати' }));
    expect(server.calls('POST /admin/api/operators/remove')).toHaveLength(0);
    expect(document.activeElement).toBe(within(anna).getByRole('button', { name: 'Видалити обліковий запис' }));

    fireEvent.click(within(anna).getByRole('button', { name: 'Видалити обліковий запис' }));
    fireEvent.click(within(anna).getByRole('button', { name: 'Так, видалити обліковий запис' }));

    await waitFor(() => expect(screen.queryByText('anna@example.org')).toBeNull());
    const [removal] = server.calls('POST /admin/api/operators/remove');
    expect(removal.body).toEqual({ email: 'anna@example.org' });
    expect(removal.headers.get('X-CSRF-Token')).toBe(CSRF);
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Обліковий запис anna@example.org видалено.'));
    await focusMovesTo(() => screen.getByRole('heading', { level: 1, name: 'Команда' }));
  });

  it('made an operator by oneself (another admin remaining), the session is over: to the login', async () => {
    fakeServer(teamRoutes());
    openInbox('/admin/team');
    await screen.findByRole('list', { name: 'Облікові записи' });
    fireEvent.click(within(account('anna@example.org')).getByRole('button', { name: 'Зробити адміністратором' }));
    await waitFor(() => expect(within(account('anna@example.org')).getByText('Адміністратор')).toBeTruthy());

    fireEvent.click(within(account(SESSION.email)).getByRole('button', { name: 'Зробити оператором' }));
    expect(await screen.findByRole('button', { name: 'Увійти' })).toBeTruthy();
  });

  it("shows the server's sentence when the accounts cannot be read", async () => {
    fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/operators': () => apiError(403, 'Це може зробити лише адміністратор.'),
    });
    openInbox('/admin/team');
    expect((await screen.findByRole('alert')).textContent).toBe('Це може зробити лише адміністратор.');
  });
});

describe('the audit trail', () => {
  it('shows the entries newest first: Kyiv time, who, what, the lead as a link, the detail and the address', async () => {
    fakeServer(auditRoutes([]));
    openInbox('/admin');
    await openMenu();
    fireEvent.click(await screen.findByRole('link', { name: 'Журнал дій' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Журнал дій' })).toBeTruthy();
    const list = await screen.findByRole('list', { name: 'Записи журналу' });
    const items = within(list).getAllByRole('listitem');
    expect(items).toHaveLength(3);

    expect(items[0].textContent).toBe('22.11.2026, 06:01 anna@example.orgВідкрито заявку: Заявка №42Адреса: 192.0.2.7');
    expect(within(items[0]).getByRole('link', { name: 'Заявка №42' }).getAttribute('href')).toBe('/admin/leads/42');
    expect(within(items[1]).getByText('Експорт заявок')).toBeTruthy();
    expect(within(items[1]).getByText('csv')).toBeTruthy();
    expect(within(items[2]).getByText('Додано обліковий запис')).toBeTruthy();
    expect(within(items[2]).getByText('command line (root)')).toBeTruthy();
    expect(within(items[2]).getByText('anna@example.org (operator)')).toBeTruthy();
    expect(within(items[2]).queryByText(/^Адреса/)).toBeNull();
    expect(within(items[2]).queryByRole('link')).toBeNull();
  });

  it('labels every action in Ukrainian, and shows an unknown one as its code', async () => {
    const actions = [
      'signed_in',
      'sign_in_failed',
      'opened_lead',
      'exported',
      'erased',
      'released',
      'added_operator',
      'changed_role',
      'removed_operator',
      'second_factor_on',
      'second_factor_reset',
      'handed_over',
      'something_new',
    ];
    const entries = auditEntries(actions.length).map((entry, i) => ({ ...entry, action: actions[i] }));
    fakeServer({
      ...signedInRoutes(),
      'GET /admin/api/audit': () => json({ entries, next_before_id: null }),
    });
    openInbox('/admin/audit');
    const list = await screen.findByRole('list', { name: 'Записи журналу' });
    expect(within(list).getAllByRole('listitem').map((item) => item.querySelector('.call-outcome')?.textContent)).toEqual([
      'Вхід',
      'Невдала спроба входу',
      'Відкрито заявку',
      'Експорт заявок',
      'Видалення даних',
      'Передано в роботу',
      'Додано обліковий запис',
      'Змінено роль',
      'Видалено обліковий запис',
      'Увімкнено двоетапну перевірку',
      'Скинуто двоетапну перевірку',
      'Передано заявку',
      'something_new',
    ]);
    expect(screen.queryByRole('button', { name: 'Показати ще' })).toBeNull();
  });

  it('"Показати ще" appends the older entries from next_before_id, then goes', async () => {
    const older = auditEntries(2, 100);
    const server = fakeServer(auditRoutes(older));
    openInbox('/admin/audit');
    const list = await screen.findByRole('list', { name: 'Записи журналу' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(3);

    fireEvent.click(screen.getByRole('button', { name: 'Показати ще' }));

    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(5));
    // The first page may be asked for twice (React's StrictMode runs effects twice); the next, once.
    const pagedFrom = server.calls('GET /admin/api/audit').map((call) => call.params.get('before_id'));
    expect(pagedFrom.filter((id) => id !== null)).toEqual([String(AUDIT_NEWEST[2].id)]);
    expect(screen.queryByRole('button', { name: 'Показати ще' })).toBeNull();
  });

  it("shows the server's sentence when the trail cannot be read, and tries again", async () => {
    let fail = true;
    fakeServer({
      ...auditRoutes([]),
      'GET /admin/api/audit': () =>
        fail ? apiError(500, 'Сервер тимчасово недоступний.') : json({ entries: AUDIT_NEWEST, next_before_id: null }),
    });
    openInbox('/admin/audit');
    expect((await screen.findByRole('alert')).textContent).toBe('Сервер тимчасово недоступний.');
    fail = false;
    fireEvent.click(screen.getByRole('button', { name: 'Спробувати ще раз' }));
    expect(await screen.findByRole('list', { name: 'Записи журналу' })).toBeTruthy();
  });
});
