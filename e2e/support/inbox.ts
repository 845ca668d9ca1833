// What an operator sees and does in the inbox (/admin), by role and accessible name
// (web/src/admin/*.tsx), and the leads a test needs, sent the way visitors' browsers send them.
import { expect, type Locator, type Page } from '@playwright/test';
import { scan } from './axe';
import type { Operator, RunningServer } from './server';

export const OPERATOR: Operator = { email: 'operator@example.org', password: 'dovgyi-parol-42' };

export const INBOX = {
  email: 'Електронна пошта',
  password: 'Пароль',
  signIn: 'Увійти',
  wrongPassword: 'Неправильна електронна пошта або пароль.',
  list: 'Заявки',
  exportCsv: 'Завантажити CSV',
  exportExcel: 'Завантажити Excel',
  signOut: 'Вийти',
  menu: 'Меню',
  due: 'Кому дзвонити зараз',
  searchView: 'Пошук і фільтри',
  figures: 'Показники',
  nobodyToCall: 'Зараз дзвонити нікому.',
  search: "Пошук за ім'ям або телефоном",
  filters: 'Які заявки показати',
  all: 'Усі',
  open: 'Відкриті',
  overdue: 'Прострочені',
  more: 'Показати ще',
  empty: 'Заявок немає',
  chart: 'Заявки за останні 30 днів',
  back: '← До списку',
  callForm: 'Записати дзвінок',
  outcome: 'Результат дзвінка',
  note: 'Нотатка',
  record: 'Записати дзвінок',
  calls: 'Дзвінки',
  erase: 'Видалити дані цієї людини',
  eraseConfirm: 'Так, видалити назавжди',
  eraseCancel: 'Скасувати',
  team: 'Команда',
  audit: 'Журнал дій',
  adminOnly: 'Це може зробити лише адміністратор.',
} as const;

/**
 * The browser logs every non-2xx fetch as a console error: the inbox asks `/admin/api/session`
 * first and gets 401 when nobody is signed in (docs/admin-api.md), and a wrong password is a 401
 * from `/admin/api/login`. Those two are expected; any other failed load still fails a test.
 */
export const SIGNED_OUT_CHECK = /Failed to load resource: .*\b401\b.*\/admin\/api\/session\)$/;
export const LOGIN_REFUSED = /Failed to load resource: .*\b401\b.*\/admin\/api\/login\)$/;
/** The team's refusals (409: the last admin, an e-mail that has an account), logged by the browser too. */
export const TEAM_REFUSED = /Failed to load resource: .*\b409\b.*\/admin\/api\/operators(\/role|\/remove)?\)$/;

export function loginForm(page: Page) {
  return {
    email: page.getByRole('textbox', { name: INBOX.email, exact: true }),
    password: page.getByLabel(INBOX.password, { exact: true }),
    submit: page.getByRole('button', { name: INBOX.signIn, exact: true }),
  };
}

/**
 * The inbox's header bar, shown only when signed in: "Заявки" and the "Меню" button, whose panel
 * holds the account, the admins' pages, the exports and "Вийти" (`openMenu` shows it).
 */
export function header(page: Page) {
  const bar = page.getByRole('banner');
  const menu = bar.getByRole('button', { name: INBOX.menu, exact: true });
  return {
    bar,
    menu,
    /** Opens the menu (if it is closed), so its items can be seen and used. */
    openMenu: async () => {
      await expect(menu).toBeVisible();
      if ((await menu.getAttribute('aria-expanded')) !== 'true') await menu.click();
      await expect(menu).toHaveAttribute('aria-expanded', 'true');
    },
    /** The account's own link (to its second factor), in the menu. */
    account: (email: string) => bar.getByRole('link', { name: email, exact: true }),
    list: bar.getByRole('link', { name: INBOX.list, exact: true }),
    exportCsv: bar.getByRole('link', { name: INBOX.exportCsv, exact: true }),
    exportExcel: bar.getByRole('link', { name: INBOX.exportExcel, exact: true }),
    signOut: bar.getByRole('button', { name: INBOX.signOut, exact: true }),
    /** Admins only: the team and the audit trail. */
    team: bar.getByRole('link', { name: INBOX.team, exact: true }),
    audit: bar.getByRole('link', { name: INBOX.audit, exact: true }),
  };
}

/** The admins' "Команда" page (/admin/team): the accounts, each with its role and actions, and the form adding one. */
export function teamPage(page: Page) {
  const list = page.getByRole('list', { name: 'Облікові записи', exact: true });
  const form = page.getByRole('form', { name: 'Новий обліковий запис', exact: true });
  const account = (email: string): Locator =>
    list.locator(':scope > li').filter({ has: page.getByText(new RegExp(`^${email.replace(/[.+]/g, '\\$&')}( \\(ви\\))?$`)) });
  return {
    heading: page.getByRole('heading', { level: 1, name: INBOX.team, exact: true }),
    list,
    accounts: list.locator(':scope > li'),
    account,
    makeAdmin: (email: string) => account(email).getByRole('button', { name: 'Зробити адміністратором', exact: true }),
    makeOperator: (email: string) => account(email).getByRole('button', { name: 'Зробити оператором', exact: true }),
    remove: (email: string) => account(email).getByRole('button', { name: 'Видалити обліковий запис', exact: true }),
    removeConfirm: (email: string) =>
      account(email).getByRole('button', { name: 'Так, видалити обліковий запис', exact: true }),
    form,
    email: form.getByRole('textbox', { name: INBOX.email, exact: true }),
    password: form.getByLabel(/^Пароль \(/),
    role: (name: 'Оператор' | 'Адміністратор') => form.getByRole('radio', { name, exact: true }),
    add: form.getByRole('button', { name: 'Додати', exact: true }),
  };
}

/** Adds an account on the "Команда" page, as an admin does, and waits for it in the list. */
export async function addAccount(page: Page, account: Operator, role: 'Оператор' | 'Адміністратор' = 'Оператор') {
  const team = teamPage(page);
  await team.email.fill(account.email);
  await team.password.fill(account.password);
  await team.role(role).check();
  await team.add.click();
  await expect(team.account(account.email)).toContainText(role);
}

/** The admins' "Журнал дій" page (/admin/audit): the audit trail, newest first. */
export function auditPage(page: Page) {
  const list = page.getByRole('list', { name: 'Записи журналу', exact: true });
  return {
    heading: page.getByRole('heading', { level: 1, name: INBOX.audit, exact: true }),
    list,
    entries: list.locator(':scope > li'),
    /** The entries by `actor` whose action reads `action` (its Ukrainian label). */
    entry: (actor: string, action: string): Locator =>
      list
        .locator(':scope > li')
        .filter({ has: page.getByText(actor, { exact: true }) })
        .filter({ has: page.getByText(new RegExp(`^${action}(: Заявка №\\d+)?$`)) }),
    more: page.getByRole('button', { name: INBOX.more, exact: true }),
  };
}

/** Opens `path` (under /admin) signed out and signs in there; the app stays on that path. */
export async function signIn(page: Page, operator: Operator = OPERATOR, path = '/admin'): Promise<void> {
  await page.goto(path);
  const form = loginForm(page);
  await form.email.fill(operator.email);
  await form.password.fill(operator.password);
  await form.submit.click();
  await expect(header(page).menu).toBeVisible();
}

/** Signs out through the menu, as an operator does. */
export async function signOut(page: Page): Promise<void> {
  await header(page).openMenu();
  await header(page).signOut.click();
}

/** The call desk's two views and its figures (a disclosure on a phone, always shown on a wide screen). */
export function desk(page: Page) {
  const tabs = page.getByRole('navigation', { name: INBOX.list, exact: true });
  return {
    due: tabs.getByRole('link', { name: INBOX.due, exact: true }),
    search: tabs.getByRole('link', { name: INBOX.searchView, exact: true }),
    figuresToggle: page.getByRole('button', { name: INBOX.figures, exact: true }),
    figures: page.getByRole('region', { name: INBOX.figures, exact: true }),
  };
}

/** Shows the figures: on a phone by opening "Показники", on a wide screen they are there already. */
export async function openFigures(page: Page): Promise<void> {
  const { figuresToggle, figures } = desk(page);
  // Just after a reload the desk may not be drawn yet: wait for one of the two before choosing.
  await expect(figuresToggle.or(figures).first()).toBeVisible();
  if ((await figuresToggle.isVisible()) && (await figuresToggle.getAttribute('aria-expanded')) !== 'true') {
    await figuresToggle.click();
  }
  await expect(figures).toBeVisible();
}

/** Opens "Пошук і фільтри": every lead, newest first, with the search box and the filters. */
export async function openSearch(page: Page): Promise<void> {
  await desk(page).search.click();
  await expect(leadList(page).search).toBeVisible();
}

/**
 * Types `query` into the search box and waits for the server's answer to it. The list on screen
 * until then may be the one from before (and dimmed while it loads, which axe reads as low
 * contrast), so a test that looks at the list only after this sees the search's leads.
 */
export async function searchFor(page: Page, query: string): Promise<void> {
  const answered = page.waitForResponse((response) => {
    const url = new URL(response.url());
    return url.pathname === '/admin/api/leads' && (url.searchParams.get('q') ?? '') === query;
  });
  await leadList(page).search.fill(query);
  await answered;
}

/**
 * "Кому дзвонити зараз": the cards in call order, each with its call button, outcomes, call-back
 * time and note.
 */
export function dueList(page: Page) {
  const list = page.getByRole('list', { name: 'Кому дзвонити зараз, по черзі', exact: true });
  const card = (id: number): Locator =>
    list.locator(':scope > li').filter({ has: page.getByRole('link', { name: `Заявка №${id}`, exact: true }) });
  return {
    list,
    cards: list.locator(':scope > li'),
    links: list.getByRole('link', { name: /^Заявка №\d+$/ }),
    card,
    call: (id: number) => card(id).getByRole('link', { name: /^Подзвонити / }),
    outcome: (id: number, label: string) =>
      card(id).getByRole('group', { name: `Результат дзвінка: заявка №${id}` }).getByRole('button', { name: label, exact: true }),
    callBack: (id: number) => card(id).getByRole('button', { name: 'Передзвонити о …', exact: true }),
    callBackAt: (id: number) => card(id).getByLabel('Передзвонити о (за київським часом)', { exact: true }),
    callBackSave: (id: number) => card(id).getByRole('button', { name: 'Записати час дзвінка', exact: true }),
    noteToggle: (id: number) => card(id).getByRole('button', { name: 'Нотатка до дзвінка', exact: true }),
    note: (id: number) => card(id).getByRole('textbox', { name: 'Нотатка', exact: true }),
    empty: page.getByText(INBOX.nobodyToCall, { exact: true }),
  };
}

/** The lead ids "Кому дзвонити зараз" shows, top to bottom. */
/** Waits until the call list shows exactly these leads, in this order (it loads after the page). */
export async function expectDue(page: Page, ids: number[]): Promise<void> {
  await expect(dueList(page).links).toHaveText(ids.map((id) => `Заявка №${id}`));
}

/** "Пошук і фільтри": every lead of the call list, newest first (open it with `openSearch`). */
export function leadList(page: Page) {
  const list = page.getByRole('main').getByRole('list');
  return {
    list,
    items: list.getByRole('listitem'),
    /** The list item whose link is "Заявка №{id}". */
    item: (id: number): Locator =>
      list.getByRole('listitem').filter({ has: page.getByRole('link', { name: `Заявка №${id}`, exact: true }) }),
    links: list.getByRole('link', { name: /^Заявка №\d+$/ }),
    search: page.getByRole('searchbox', { name: INBOX.search, exact: true }),
    filter: (name: 'Усі' | 'Відкриті' | 'Прострочені') =>
      page.getByRole('group', { name: INBOX.filters }).getByRole('button', { name, exact: true }),
    empty: page.getByText(INBOX.empty, { exact: true }),
  };
}

/** The lead ids the list shows, top to bottom. */
export async function listedIds(page: Page): Promise<number[]> {
  const names = await leadList(page).links.allTextContents();
  return names.map((name) => Number(name.replace(/^Заявка №/, '')));
}

export function leadPage(page: Page) {
  const form = page.getByRole('form', { name: INBOX.callForm, exact: true });
  return {
    heading: (id: number) => page.getByRole('heading', { level: 1, name: `Заявка №${id}`, exact: true }),
    back: page.getByRole('link', { name: INBOX.back, exact: true }),
    calls: page.getByRole('region', { name: INBOX.calls, exact: true }),
    form,
    outcome: form.getByRole('radiogroup', { name: INBOX.outcome, exact: true }),
    choice: (label: string) => form.getByRole('radio', { name: label, exact: true }),
    note: form.getByRole('textbox', { name: INBOX.note, exact: true }),
    record: form.getByRole('button', { name: INBOX.record, exact: true }),
    erase: page.getByRole('button', { name: INBOX.erase, exact: true }),
    eraseConfirm: page.getByRole('button', { name: INBOX.eraseConfirm, exact: true }),
    eraseCancel: page.getByRole('button', { name: INBOX.eraseCancel, exact: true }),
  };
}

/** Opens a lead from the list by its link (as an operator does) and waits for its facts. */
export async function openLead(page: Page, id: number): Promise<void> {
  await leadList(page).item(id).getByRole('link', { name: `Заявка №${id}`, exact: true }).click();
  await expect(leadPage(page).heading(id)).toBeVisible();
  await expect(leadPage(page).record).toBeVisible();
}

export interface NewLead {
  name: string;
  phone: string;
  confirmation?: 'Так' | 'Ні';
  comment?: string | null;
}

/**
 * Sends a lead as the site's form does (a page-load proof from GET /proof, then POST /rest/v1/CRN
 * with the anon key and that proof), so it lands in the call list; answers its id.
 */
export async function sendLead(server: RunningServer, lead: NewLead): Promise<number> {
  const proof = await fetch(`${server.baseURL}/proof`);
  expect(proof.status, 'GET /proof').toBe(200);
  const { proof: token } = (await proof.json()) as { proof: string };
  const res = await fetch(`${server.baseURL}/rest/v1/CRN`, {
    method: 'POST',
    headers: {
      apikey: server.anonKey,
      'Content-Type': 'application/json',
      Prefer: 'return=representation',
      'X-Zayavka-Proof': token,
    },
    body: JSON.stringify({ confirmation: 'Так', comment: null, ...lead }),
  });
  expect(res.status, `POST /rest/v1/CRN for ${lead.name}`).toBe(201);
  const [row] = (await res.json()) as Array<{ id: number }>;
  return row.id;
}

/**
 * Sends a lead as a script that never loaded the page does: POST /rest/v1/CRN with the anon key
 * and no page-load proof. With the server's default `ZAYAVKA_HOLD_WITHOUT_PROOF=true` it is held
 * for review (reason `no_proof`), and the answer is the same 201; answers its id.
 */
export async function sendHeldLead(server: RunningServer, lead: NewLead): Promise<number> {
  const res = await fetch(`${server.baseURL}/rest/v1/CRN`, {
    method: 'POST',
    headers: { apikey: server.anonKey, 'Content-Type': 'application/json', Prefer: 'return=representation' },
    body: JSON.stringify({ confirmation: 'Так', comment: null, ...lead }),
  });
  expect(res.status, `POST /rest/v1/CRN without a proof for ${lead.name}`).toBe(201);
  const [row] = (await res.json()) as Array<{ id: number }>;
  return row.id;
}

/** The front's count of held leads, a link to the held view: "На перевірці: N". */
export function heldCount(page: Page, count?: number): Locator {
  return page.getByRole('link', { name: count === undefined ? /^На перевірці: \d+$/ : `На перевірці: ${count}`, exact: true });
}

/** The held view (/admin/held): the leads held for review, each with its reasons and two actions. */
export function heldView(page: Page) {
  const list = page.getByRole('list', { name: 'Заявки на перевірці', exact: true });
  const item = (id: number): Locator =>
    list.locator(':scope > li').filter({ has: page.getByRole('link', { name: `Заявка №${id}`, exact: true }) });
  return {
    heading: page.getByRole('heading', { level: 1, name: 'На перевірці', exact: true }),
    list,
    items: list.locator(':scope > li'),
    item,
    /** The reasons a lead is held, as the view words them. */
    reasons: (id: number) => item(id).getByRole('listitem'),
    release: (id: number) => item(id).getByRole('button', { name: 'Передати в роботу', exact: true }),
    erase: (id: number) => item(id).getByRole('button', { name: INBOX.erase, exact: true }),
    eraseConfirm: (id: number) => item(id).getByRole('button', { name: INBOX.eraseConfirm, exact: true }),
    empty: page.getByText('Заявок на перевірці немає', { exact: true }),
  };
}

/** A held lead's page: the notice that says why, and its release button. */
export function heldNotice(page: Page) {
  const region = page.getByRole('region', { name: 'Заявка на перевірці', exact: true });
  return {
    region,
    reasons: region.getByRole('listitem'),
    release: region.getByRole('button', { name: 'Передати в роботу', exact: true }),
  };
}

/** A lead's later submissions, under "Заявок від цієї людини: N". */
export function repeatsOf(page: Page, count: number) {
  const region = page.getByRole('region', { name: `Заявок від цієї людини: ${count}`, exact: true });
  return { region, items: region.getByRole('listitem') };
}

/**
 * Moves a lead's `created_at` back by `hours` (the server has no clock to set), in the stored
 * format: RFC 3339 UTC with six fractional digits and `Z`.
 */
export async function makeOlder(server: RunningServer, id: number, hours: number): Promise<void> {
  const at = new Date(Date.now() - hours * 3_600_000).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  const changed = await server.sql('UPDATE "CRN" SET created_at = ? WHERE id = ?', [at, id]);
  expect(changed, `lead ${id} made ${hours} h older`).toBe(1);
}

/**
 * No sideways scrolling: the page is no wider than the window. Measured against the viewport's
 * width, not `innerWidth`: a phone (Playwright's `isMobile`) widens its layout viewport to fit
 * content that overflows, and `innerWidth` grows with it.
 */
export async function expectNoSidewaysScroll(page: Page, what: string): Promise<void> {
  const width = page.viewportSize()!.width;
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth, `${what}: the page's width in a ${width} px window`).toBeLessThanOrEqual(width);
  expect(innerWidth, `${what}: the layout viewport's width in a ${width} px window`).toBe(width);
}

/**
 * axe-core with every rule: any violation, whatever its impact, fails the test. It waits for
 * what is loading to settle first: a list being refreshed is dimmed on purpose, and axe would
 * measure the dimmed text's contrast.
 */
export async function expectNoA11yViolations(page: Page, what: string): Promise<void> {
  await expect(page.locator('[aria-busy="true"]'), `${what}: still loading`).toHaveCount(0);
  const results = await scan(page);
  const found = results.violations.map(
    (v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
  expect(found, `axe violations on ${what}`).toEqual([]);
}
