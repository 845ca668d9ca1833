// What a visitor sees and does, by role and accessible name (DESIGN "The form's accessible names").
import { expect, type Page, type Request } from '@playwright/test';
import { scan } from './axe';

export const TEXT = {
  headline: 'Безкоштовна медична підтримка за міжнародною програмою',
  name: "Ваше ім'я",
  phone: 'Номер телефону',
  phonePlaceholder: '+380 XX XXX XX XX',
  yes: 'Так',
  no: 'Ні',
  comment: "Коментар (необов'язково)",
  agreement: 'публічної оферти',
  submit: 'Отримати безкоштовну консультацію',
  submitting: 'Відправляємо...',
  // SPEC §8, exactly.
  invalidTitle: 'Будь ласка, заповніть всі поля',
  invalidText: "Всі обов'язкові поля мають бути заповнені",
  failedTitle: 'Сталася помилка',
  failedText: 'Спробуйте, будь ласка, ще раз.',
  successTitle: 'Дякуємо!',
  successText: "Заявку отримано. Ми зв'яжемося з Вами протягом 48 годин.",
  notFound: 'Oops! Page not found',
  home: 'Return to Home',
} as const;

export const DEFAULT_PHONE = '+380 00 000 00 00';

export function leadForm(page: Page) {
  const form = page.getByRole('form', { name: 'Залиште заявку на консультацію' });
  return {
    form,
    name: form.getByRole('textbox', { name: TEXT.name, exact: true }),
    phone: form.getByRole('textbox', { name: TEXT.phone, exact: true }),
    question: form.getByRole('radiogroup'),
    yes: form.getByRole('radio', { name: TEXT.yes, exact: true }),
    no: form.getByRole('radio', { name: TEXT.no, exact: true }),
    comment: form.getByRole('textbox', { name: TEXT.comment, exact: true }),
    agreement: form.getByRole('checkbox', { name: TEXT.agreement }),
    submit: form.getByRole('button', { name: TEXT.submit, exact: true }),
  };
}

export interface LeadEntries {
  name?: string;
  phone?: string;
  answer?: 'Так' | 'Ні';
  comment?: string;
  agree?: boolean;
}

export async function fillLead(page: Page, entries: LeadEntries): Promise<void> {
  const f = leadForm(page);
  if (entries.name !== undefined) await f.name.fill(entries.name);
  if (entries.phone !== undefined) await f.phone.fill(entries.phone);
  if (entries.answer === 'Так') await f.yes.check();
  if (entries.answer === 'Ні') await f.no.check();
  if (entries.comment !== undefined) await f.comment.fill(entries.comment);
  if (entries.agree === false) await f.agreement.uncheck();
}

/**
 * Waits until React has hydrated the page, so a click is handled by the app and not by the
 * prerendered HTML's plain behaviour (a form POST, a GET). The last element React renders carries
 * its fiber once the whole tree is hydrated (render and commit run in one task for this page);
 * on the landing page the form's `noValidate`, set in an effect, is the app's own signal as well.
 */
export async function waitForHydration(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const all = document.querySelectorAll('#root *');
    const last = all[all.length - 1];
    if (!last || !Object.keys(last).some((key) => key.startsWith('__reactFiber'))) return false;
    const form = document.querySelector('form[action="/leads"]');
    return !(form instanceof HTMLFormElement) || form.noValidate;
  });
}

/** Opens the landing page and waits for the app to take over the form. */
export async function openLanding(page: Page, url = '/'): Promise<void> {
  await page.goto(url);
  await waitForHydration(page);
}

/** The toast regions: destructive toasts go to role=alert, the others to role=status. */
export const alertToast = (page: Page) => page.getByRole('alert');
export const statusToast = (page: Page) => page.getByRole('status');

export function isLeadCall(request: Request): boolean {
  return new URL(request.url()).pathname === '/rest/v1/CRN';
}

/** Every request the page makes from now on. */
export function recordRequests(page: Page): Request[] {
  const seen: Request[] = [];
  page.on('request', (request) => seen.push(request));
  return seen;
}

/**
 * Returns once every request the page started before this call has been recorded: the page fetches
 * a marker of our own server's, and Playwright reports a page's requests in the order they start.
 * A call the page should not have made is then among them, without waiting a set time for it.
 */
export async function requestsSoFar(page: Page): Promise<void> {
  const marker = `/healthz?requests-so-far=${Math.random()}`;
  const seen = page.waitForRequest((request) => request.url().endsWith(marker));
  await page.evaluate((url) => fetch(url).then(() => undefined), marker);
  await seen;
}

/** axe-core with every rule; violations of impact serious or critical fail the test. */
export async function expectNoSeriousA11yViolations(page: Page, what: string): Promise<void> {
  const results = await scan(page);
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(serious, `axe violations on ${what}`).toEqual([]);
}
