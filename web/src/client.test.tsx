// @vitest-environment jsdom
// The prerendered pages as the server serves them (tokens replaced, HTML-escaped), hydrated by the
// real client entry: hydration must agree, and the form must behave as SPEC §4, §5 and §8 say.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { start } from './client';
import { PAGES, prerenderAll } from './entry-server';
import { localToday } from './routes/privacy-policy';

const src = dirname(fileURLToPath(import.meta.url));
const template = readFileSync(join(src, '..', 'index.html'), 'utf8');
const files = Object.fromEntries(prerenderAll(template, '').map(({ file, html }) => [file, html]));

const VALUES: Record<string, string> = {
  __ZAYAVKA_BRAND__: 'Життя & Надія "UA"',
  __ZAYAVKA_PHONE__: '+380 44 000 00 00',
  __ZAYAVKA_PHONE_HREF__: 'tel:+380440000000',
  __ZAYAVKA_REDIRECT_URL__: '/#submitted',
  __ZAYAVKA_BACKEND_URL__: 'https://api.example.test',
  __ZAYAVKA_ANON_KEY__: 'anon-key-1',
  __ZAYAVKA_TODAY__: '01.01.2000',
};

function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** JSON string contents with `<`, `>`, `&` escaped, as the server writes them into the data block. */
function escapeJson(value: string): string {
  return JSON.stringify(value)
    .slice(1, -1)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026');
}

/**
 * What the server does (src/site.rs): every token replaced, JSON-escaped inside the config data
 * block and HTML-escaped everywhere else.
 */
function serve(html: string): string {
  const fill = (text: string, escape: (value: string) => string) =>
    text.replace(new RegExp(Object.keys(VALUES).join('|'), 'g'), (token) => escape(VALUES[token]));
  const start = html.indexOf('<script id="zayavka-config"');
  if (start < 0) return fill(html, escapeHtml);
  const end = html.indexOf('</script>', start);
  return fill(html.slice(0, start), escapeHtml) + fill(html.slice(start, end), escapeJson) + fill(html.slice(end), escapeHtml);
}

let root: Root | null = null;
let recoverable: unknown[] = [];
let consoleError: MockInstance<typeof console.error>;

async function open(file: string, url: string, tamper = (html: string) => html): Promise<void> {
  const parsed = new DOMParser().parseFromString(tamper(serve(files[file])), 'text/html');
  document.head.innerHTML = parsed.head.innerHTML;
  document.body.innerHTML = parsed.body.innerHTML;
  window.history.replaceState(null, '', url);
  await act(async () => {
    root = start(document, { onRecoverableError: (error) => recoverable.push(error) });
  });
}

beforeEach(() => {
  recoverable = [];
  consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
});

afterEach(() => {
  act(() => root?.unmount());
  root = null;
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('hydration of the served pages', () => {
  for (const page of PAGES.filter((p) => p.hydrate)) {
    it(`${page.file} hydrates without a mismatch`, async () => {
      const url = page.file === '404.html' ? '/no/such/page' : (page.url as string);
      await open(page.file, url);
      expect(recoverable).toEqual([]);
      const unexpected = consoleError.mock.calls.filter((call) => !String(call[0]).startsWith('404 Error'));
      expect(unexpected).toEqual([]);
      expect(screen.getByRole('link', { name: 'Життя & Надія "UA"' })).toBeTruthy();
      expect(document.title).toBe(`${page.title} — Життя & Надія "UA"`);
    });
  }

  it('a page whose markup disagrees with its config is caught (this harness does notice)', async () => {
    await open('privacy-policy.html', '/privacy-policy', (html) => html.replace('01.01.2000</p>', '02.01.2000</p>'));
    expect(recoverable.length + consoleError.mock.calls.length).toBeGreaterThan(0);
  });

  it('the privacy policy shows the server date for hydration, then the visitor\'s own', async () => {
    await open('privacy-policy.html', '/privacy-policy');
    expect(recoverable).toEqual([]);
    expect(document.body.textContent).toContain(`Дата останньої редакції: ${localToday()}`);
    expect(localToday()).toMatch(/^\d{2}\.\d{2}\.\d{4}$/);
  });

  it('the not-found page logs the path it was asked for', async () => {
    await open('404.html', '/no/such/page');
    expect(consoleError).toHaveBeenCalledWith(
      '404 Error: User attempted to access non-existent route:',
      '/no/such/page',
    );
    expect(screen.getByRole('heading', { name: 'Oops! Page not found' })).toBeTruthy();
  });
});

describe('the lead form after hydration', () => {
  const form = () => document.querySelector('form[action="/leads"]') as HTMLFormElement;
  const submit = () => screen.getByRole('button', { name: /Отримати безкоштовну консультацію|Відправляємо/ });
  const alerts = () => within(document.querySelector('[role="alert"]') as HTMLElement);
  const statuses = () => within(document.querySelector('[role="status"]') as HTMLElement);

  function fill(values: { name?: string; phone?: string; answer?: 'Так' | 'Ні'; comment?: string; website?: string }) {
    const set = (selector: string, value: string) =>
      fireEvent.change(document.querySelector(selector) as HTMLInputElement, { target: { value } });
    if (values.name !== undefined) set('[name="name"]', values.name);
    if (values.phone !== undefined) set('[name="phone"]', values.phone);
    if (values.comment !== undefined) set('[name="comment"]', values.comment);
    if (values.website !== undefined) set('[name="website"]', values.website);
    if (values.answer) fireEvent.click(screen.getByRole('radio', { name: values.answer }));
  }

  function stubFetch(impl: () => Promise<Response>) {
    const fetchMock = vi.fn((..._args: unknown[]) => impl());
    vi.stubGlobal('fetch', fetchMock);
    return fetchMock;
  }

  beforeEach(async () => {
    await open('index.html', '/');
  });

  it('turns off the browser bubbles only once the script runs', () => {
    expect(form().noValidate).toBe(true);
  });

  it('an empty submit shows the warning toast, marks and focuses the first missing field, sends nothing', async () => {
    const fetchMock = stubFetch(async () => new Response(null, { status: 201 }));
    await act(async () => fireEvent.click(submit()));

    expect(alerts().getByText('Будь ласка, заповніть всі поля')).toBeTruthy();
    expect(alerts().getByText("Всі обов'язкові поля мають бути заповнені")).toBeTruthy();
    const name = screen.getByRole('textbox', { name: "Ваше ім'я" });
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByRole('textbox', { name: 'Номер телефону' }).getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByRole('radiogroup').getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(name);
    expect(fetchMock).not.toHaveBeenCalled();

    // Typing into a marked field clears its mark.
    fill({ name: 'Олена' });
    expect(name.hasAttribute('aria-invalid')).toBe(false);
  });

  it('blank-only values and an unchecked agreement count as missing', async () => {
    const fetchMock = stubFetch(async () => new Response(null, { status: 201 }));
    fill({ name: '   ', phone: '+380 67 123 45 67', answer: 'Ні' });
    fireEvent.click(screen.getByRole('checkbox', { name: /публічної оферти/ }));
    await act(async () => fireEvent.click(submit()));
    expect(screen.getByRole('textbox', { name: "Ваше ім'я" }).getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByRole('checkbox', { name: /публічної оферти/ }).getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByRole('radiogroup').hasAttribute('aria-invalid')).toBe(false);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('sends one insert, shows the pending state, thanks the visitor and then redirects', async () => {
    let answer: (res: Response) => void = () => {};
    const fetchMock = stubFetch(() => new Promise<Response>((resolve) => (answer = resolve)));
    fill({ name: '  Олена ', phone: ' +380 67 123 45 67 ', answer: 'Так', comment: '   ' });
    await act(async () => fireEvent.click(submit()));

    expect(submit().hasAttribute('disabled')).toBe(true);
    expect(submit().textContent).toBe('Відправляємо...');
    expect(submit().querySelector('.spinner')).not.toBeNull();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('https://api.example.test/rest/v1/CRN');
    expect(init.method).toBe('POST');
    expect(init.headers).toMatchObject({ apikey: 'anon-key-1', Authorization: 'Bearer anon-key-1' });
    expect(JSON.parse(init.body as string)).toEqual({
      name: 'Олена',
      phone: '+380 67 123 45 67',
      confirmation: 'Так',
      comment: null,
    });

    await act(async () => answer(new Response(null, { status: 201 })));
    expect(statuses().getByText('Дякуємо!')).toBeTruthy();
    expect(statuses().getByText("Заявку отримано. Ми зв'яжемося з Вами протягом 48 годин.")).toBeTruthy();
    expect(submit().hasAttribute('disabled')).toBe(false);
    expect(submit().textContent).toBe('Отримати безкоштовну консультацію');

    // A second press before the page changes sends nothing more.
    await act(async () => fireEvent.click(submit()));
    expect(fetchMock).toHaveBeenCalledTimes(1);

    expect(window.location.hash).toBe('');
    await waitFor(() => expect(window.location.hash).toBe('#submitted'), { timeout: 2000 });
  });

  for (const [what, impl] of [
    ['an error status', async () => new Response('{"message":"Invalid API key"}', { status: 401 })],
    ['a network error', () => Promise.reject(new TypeError('Failed to fetch'))],
  ] as const) {
    it(`on ${what} it shows the error toast, logs, keeps the entries and re-enables the button`, async () => {
      stubFetch(impl);
      fill({ name: 'Олена', phone: '0671234567', answer: 'Ні', comment: 'після 18:00' });
      await act(async () => fireEvent.click(submit()));

      expect(alerts().getByText('Сталася помилка')).toBeTruthy();
      expect(alerts().getByText('Спробуйте, будь ласка, ще раз.')).toBeTruthy();
      expect(consoleError).toHaveBeenCalledWith('Lead submission failed:', expect.anything());
      expect((screen.getByRole('textbox', { name: "Ваше ім'я" }) as HTMLInputElement).value).toBe('Олена');
      expect((screen.getByRole('radio', { name: 'Ні' }) as HTMLInputElement).checked).toBe(true);
      expect(submit().hasAttribute('disabled')).toBe(false);
    });
  }

  it('a filled honeypot pretends success and sends nothing', async () => {
    const fetchMock = stubFetch(async () => new Response(null, { status: 201 }));
    fill({ name: 'Bot', phone: '123456789', answer: 'Так', website: 'http://spam.example' });
    await act(async () => fireEvent.click(submit()));
    expect(statuses().getByText('Дякуємо!')).toBeTruthy();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('the offer link opens the public offer', async () => {
    const details = document.getElementById('public-offer') as HTMLDetailsElement;
    expect(details.open).toBe(false);
    fireEvent.click(screen.getByRole('link', { name: 'публічної оферти' }));
    expect(details.open).toBe(true);
  });

  it('a toast closes with its button, or by itself after about five seconds', async () => {
    await act(async () => fireEvent.click(submit()));
    fireEvent.click(alerts().getByRole('button', { name: 'Закрити сповіщення' }));
    expect(alerts().queryByText('Будь ласка, заповніть всі поля')).toBeNull();

    vi.useFakeTimers();
    await act(async () => fireEvent.click(submit()));
    expect(alerts().getByText('Будь ласка, заповніть всі поля')).toBeTruthy();
    act(() => vi.advanceTimersByTime(5100));
    expect(alerts().queryByText('Будь ласка, заповніть всі поля')).toBeNull();
  });
});
