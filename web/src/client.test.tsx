// @vitest-environment jsdom
// The pages exactly as the server serves them, hydrated by each page's client code (what its entry in
// src/entries/ runs): hydration must agree, and the form must behave as docs/product.md says. The
// pages are the real binary's (`zayavka build-static`: the build's dist/ with run-time settings
// filled in by src/site.rs), so this also holds the server's escaping to what the client reads back.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { Root } from 'react-dom/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi, type Mock, type MockInstance } from 'vitest';
import { findWork } from './api/proof';
import { hydratePage } from './client';
import { PAGES, type PageFile } from './pages';
import { localToday } from './routes/privacy-policy';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The binary `make build` writes (scripts/test-all and e2e name it in ZAYAVKA_BIN too). */
const binary = process.env.ZAYAVKA_BIN ?? join(repo, 'target', 'fast', 'zayavka');

/** Settings with characters that must be escaped, differently in the markup and in the config block. */
const SETTINGS = {
  ZAYAVKA_BRAND: 'Життя & Надія "UA"',
  ZAYAVKA_CONTACT_PHONE: '+380 44 000 00 00',
  ZAYAVKA_REDIRECT_URL: '/#submitted',
  ZAYAVKA_BACKEND_URL: 'https://api.example.test',
  ZAYAVKA_ANON_KEY: 'anon-key-1',
  ZAYAVKA_RETENTION_DAYS: '30',
};

/** Where build-static writes a page (a static host's layout, src/site.rs `static_file`). */
function servedFile(page: PageFile): string {
  if (page.serves === 'not-found') return '404.html';
  const dir = page.serves.replace(/^\/+|\/+$/g, '');
  return dir === '' ? 'index.html' : `${dir}/index.html`;
}

/** The hydrated pages as served, by their file in dist/ (`index.html`, …). */
const files: Record<string, string> = {};
let site = '';

beforeAll(() => {
  // The binary embeds dist/ when it is compiled: one older than the web build serves older pages.
  if (!existsSync(binary)) throw new Error(`no ${binary}: build the server first (\`make build\`) or set ZAYAVKA_BIN`);
  if (statSync(binary).mtimeMs < statSync(join(repo, 'web', 'dist', 'pages.json')).mtimeMs) {
    throw new Error(`${binary} is older than web/dist: rebuild it (\`make build\`)`);
  }
  site = mkdtempSync(join(tmpdir(), 'zayavka-site-'));
  execFileSync(binary, ['build-static', site], { env: { PATH: process.env.PATH, ...SETTINGS }, stdio: 'pipe' });
  for (const page of PAGES.filter((p) => p.entry !== null)) {
    files[page.file] = readFileSync(join(site, servedFile(page)), 'utf8');
  }
});

afterAll(() => rmSync(site, { recursive: true, force: true }));

let root: Root | null = null;
let recoverable: unknown[] = [];
let consoleError: MockInstance<typeof console.error>;

type FetchMock = Mock<(url: string, init?: RequestInit) => Promise<Response>>;
/**
 * The backend the page talks to, in place of the network: `GET …/proof` goes to `proofFetch`
 * (404 unless a test says otherwise, as a hosted Supabase answers), every other call to `leadFetch`.
 */
let proofFetch: FetchMock;
let leadFetch: FetchMock;

const noProof = async () => new Response('{"message":"no Route matched with those values"}', { status: 404 });
const proofAnswer = (token: string) => async () =>
  new Response(JSON.stringify({ proof: token }), { status: 200, headers: { 'Content-Type': 'application/json' } });

function installBackend(): void {
  proofFetch = vi.fn(noProof);
  leadFetch = vi.fn(async () => new Response(null, { status: 201 }));
  vi.stubGlobal('fetch', (url: string, init?: RequestInit) =>
    new URL(url, window.location.href).pathname === '/proof' ? proofFetch(url, init) : leadFetch(url, init),
  );
}

async function open(file: string, url: string, tamper = (html: string) => html): Promise<void> {
  const parsed = new DOMParser().parseFromString(tamper(files[file]), 'text/html');
  document.head.innerHTML = parsed.head.innerHTML;
  document.body.innerHTML = parsed.body.innerHTML;
  window.history.replaceState(null, '', url);
  const page = PAGES.find((p) => p.file === file)?.page;
  if (!page) throw new Error(`${file} is not a page with a component`);
  await act(async () => {
    root = hydratePage(page, { options: { onRecoverableError: (error) => recoverable.push(error) } });
  });
}

beforeEach(() => {
  recoverable = [];
  consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
  installBackend();
});

afterEach(() => {
  act(() => root?.unmount());
  root = null;
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('hydration of the served pages', () => {
  for (const page of PAGES.filter((p) => p.entry !== null)) {
    it(`${page.file} hydrates without a mismatch`, async () => {
      const url = page.serves === 'not-found' ? '/no/such/page' : page.serves;
      await open(page.file, url);
      expect(recoverable).toEqual([]);
      const unexpected = consoleError.mock.calls.filter((call) => !String(call[0]).startsWith('404 Error'));
      expect(unexpected).toEqual([]);
      expect(screen.getByRole('link', { name: 'Життя & Надія "UA"' })).toBeTruthy();
      expect(document.title).toBe(`${page.title} — Життя & Надія "UA"`);
    });
  }

  it('a page whose markup disagrees with its config is caught (this harness does notice)', async () => {
    // The date the config block says, another in the markup.
    await open('privacy-policy.html', '/privacy-policy', (html) => html.replace(/"today":"[^"]*"/, '"today":"01.01.2000"'));
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
  // The toast regions (the form may hold an alert of its own, see formAlert).
  const alerts = () => within(document.querySelector('.toast-region[role="alert"]') as HTMLElement);
  const formAlert = () => form().querySelector('[role="alert"]');
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

  /** Makes the lead call answer with `impl`; answers the mock of that call only. */
  function stubFetch(impl: () => Promise<Response>) {
    leadFetch.mockImplementation(impl);
    return leadFetch;
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
    await waitFor(() => expect(window.location.hash).toBe('#submitted'));
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
      // Trying again may help here: no explanation beside the button.
      expect(formAlert()).toBeNull();
    });
  }

  it('limits every text field to what the server accepts (src/lead/mod.rs), already in the served HTML', () => {
    // Without JavaScript the browser keeps the same limits (HTML attribute names ignore case).
    for (const limit of ['100', '32', '1000']) expect(files['index.html']).toMatch(new RegExp(`maxlength="${limit}"`, 'i'));
    const max = (name: string) => (screen.getByRole('textbox', { name }) as HTMLInputElement).maxLength;
    expect(max("Ваше ім'я")).toBe(100);
    expect(max('Номер телефону')).toBe(32);
    expect(max("Коментар (необов'язково)")).toBe(1000);
  });

  describe('a phone that is not a number', () => {
    const SHAPE = 'Номер телефону має складатися з цифр (від 7 до 15), можна з пробілами, дужками, дефісами та «+».';

    it('is stopped before the call: marked, explained, focused, and a toast says what to check', async () => {
      const fetchMock = stubFetch(async () => new Response(null, { status: 201 }));
      fill({ name: 'Олена', phone: 'дзвоніть увечері', answer: 'Так' });
      await act(async () => fireEvent.click(submit()));

      expect(fetchMock).not.toHaveBeenCalled();
      const phone = screen.getByRole('textbox', { name: 'Номер телефону' });
      expect(phone.getAttribute('aria-invalid')).toBe('true');
      const described = document.getElementById(phone.getAttribute('aria-describedby') as string);
      expect(described?.textContent).toBe(SHAPE);
      expect(phone.parentElement?.contains(described as Node)).toBe(true);
      expect(document.activeElement).toBe(phone);
      expect(alerts().getByText('Перевірте номер телефону')).toBeTruthy();
      expect(alerts().getByText(SHAPE)).toBeTruthy();
      expect(screen.getByRole('textbox', { name: "Ваше ім'я" }).hasAttribute('aria-invalid')).toBe(false);
      expect(submit().hasAttribute('disabled')).toBe(false);
      expect(consoleError).not.toHaveBeenCalled();

      // Correcting it clears the mark, and the lead goes out.
      fill({ phone: '(067) 123-45-67' });
      expect(phone.hasAttribute('aria-invalid')).toBe(false);
      expect(document.getElementById('lead-phone-error')).toBeNull();
      await act(async () => fireEvent.click(submit()));
      expect(fetchMock).toHaveBeenCalledTimes(1);
      expect(statuses().getByText('Дякуємо!')).toBeTruthy();
    });

    it('missing fields are reported first, with the warning toast', async () => {
      const fetchMock = stubFetch(async () => new Response(null, { status: 201 }));
      fill({ phone: '12', answer: 'Ні' });
      await act(async () => fireEvent.click(submit()));

      expect(alerts().getByText('Будь ласка, заповніть всі поля')).toBeTruthy();
      expect(alerts().queryByText('Перевірте номер телефону')).toBeNull();
      expect(screen.getByRole('textbox', { name: "Ваше ім'я" }).getAttribute('aria-invalid')).toBe('true');
      expect(screen.getByRole('textbox', { name: 'Номер телефону' }).hasAttribute('aria-invalid')).toBe(false);
      expect(fetchMock).not.toHaveBeenCalled();

      // Once they are there, the phone's own check follows.
      fill({ name: 'Олена' });
      await act(async () => fireEvent.click(submit()));
      expect(alerts().getByText('Перевірте номер телефону')).toBeTruthy();
      expect(screen.getByRole('textbox', { name: "Ваше ім'я" }).hasAttribute('aria-invalid')).toBe(false);
      expect(fetchMock).not.toHaveBeenCalled();
    });
  });

  describe('a lead the server refuses (400 with details)', () => {
    const DETAILS = "Поле «Ваше ім'я» обов'язкове.";
    const refused = () =>
      new Response(
        JSON.stringify({
          code: '23502',
          message: 'null value in column "name" of relation "CRN" violates not-null constraint',
          details: DETAILS,
          hint: null,
        }),
        { status: 400, headers: { 'Content-Type': 'application/json' } },
      );

    it('shows the error toast and, above the button, what to change; entries stay', async () => {
      stubFetch(async () => refused());
      fill({ name: '\u2066\u2069', phone: '0671234567', answer: 'Ні', comment: 'після 18:00' });
      await act(async () => fireEvent.click(submit()));

      expect(alerts().getByText('Сталася помилка')).toBeTruthy();
      expect(alerts().getByText('Спробуйте, будь ласка, ще раз.')).toBeTruthy();
      expect(consoleError).toHaveBeenCalledWith('Lead submission failed:', expect.anything());
      const alert = formAlert();
      expect(alert?.textContent).toBe(DETAILS);
      expect(alert?.nextElementSibling).toBe(submit());
      expect((screen.getByRole('textbox', { name: 'Номер телефону' }) as HTMLInputElement).value).toBe('0671234567');
      expect((screen.getByRole('textbox', { name: "Коментар (необов'язково)" }) as HTMLInputElement).value).toBe(
        'після 18:00',
      );
      expect((screen.getByRole('radio', { name: 'Ні' }) as HTMLInputElement).checked).toBe(true);
      expect(submit().hasAttribute('disabled')).toBe(false);
    });

    it('the next submit clears it', async () => {
      let answer: (res: Response) => void = () => {};
      const fetchMock = stubFetch(async () => refused());
      fill({ name: '\u2066\u2069', phone: '0671234567', answer: 'Так' });
      await act(async () => fireEvent.click(submit()));
      expect(formAlert()?.textContent).toBe(DETAILS);

      fetchMock.mockImplementation(() => new Promise<Response>((resolve) => (answer = resolve)));
      fill({ name: 'Олена' });
      await act(async () => fireEvent.click(submit()));
      expect(formAlert()).toBeNull();
      expect(fetchMock).toHaveBeenCalledTimes(2);
      await act(async () => answer(new Response(null, { status: 201 })));
      expect(statuses().getByText('Дякуємо!')).toBeTruthy();
      expect(formAlert()).toBeNull();
    });

    it('a submit stopped in the browser clears it too', async () => {
      stubFetch(async () => refused());
      fill({ name: '\u2066\u2069', phone: '0671234567', answer: 'Так' });
      await act(async () => fireEvent.click(submit()));
      expect(formAlert()).not.toBeNull();

      fill({ phone: 'завтра' });
      await act(async () => fireEvent.click(submit()));
      expect(formAlert()).toBeNull();
      expect(alerts().getByText('Перевірте номер телефону')).toBeTruthy();
    });

    it('a 400 without details shows only the toast', async () => {
      stubFetch(async () => new Response('{"code":"PGRST102","message":"Empty or invalid json","details":null,"hint":null}', { status: 400 }));
      fill({ name: 'Олена', phone: '0671234567', answer: 'Так' });
      await act(async () => fireEvent.click(submit()));
      expect(alerts().getByText('Сталася помилка')).toBeTruthy();
      expect(formAlert()).toBeNull();
    });
  });

  describe('the page-load proof (issue 24)', () => {
    /** The lead call's headers, of the only lead call made. */
    const leadHeaders = () => {
      expect(leadFetch).toHaveBeenCalledTimes(1);
      return leadFetch.mock.calls[0][1]?.headers as Record<string, string>;
    };
    const KEY_HEADERS = {
      'Content-Type': 'application/json',
      apikey: 'anon-key-1',
      Authorization: 'Bearer anon-key-1',
      Prefer: 'return=minimal',
    };

    /** The landing page again, from a backend whose `/proof` answers with `answer`. */
    async function reopen(answer: () => Promise<Response>): Promise<void> {
      act(() => root?.unmount());
      proofFetch.mockReset().mockImplementation(answer);
      await open('index.html', '/');
    }

    afterEach(() => {
      delete (window.navigator as { webdriver?: boolean }).webdriver;
    });

    /** Sends the form and waits for its one call: the proof of work may still be running. */
    async function sendAndWait(): Promise<void> {
      await act(async () => fireEvent.click(submit()));
      await waitFor(() => expect(leadFetch).toHaveBeenCalled());
    }

    /** The work header the page sends with `token` (none where the test's browser lacks WebCrypto). */
    async function work(token: string): Promise<Record<string, string>> {
      const found = await findWork(token);
      return found === undefined ? {} : { 'X-Zayavka-Work': found };
    }

    it('is fetched once the page has hydrated (not in the served HTML) and sent with the lead', async () => {
      const hydratedWhenAsked: boolean[] = [];
      act(() => root?.unmount());
      proofFetch.mockReset().mockImplementation(async () => {
        // The form's noValidate is set by an effect, after hydration.
        hydratedWhenAsked.push(form().noValidate);
        return proofAnswer('proof-1')();
      });
      await open('index.html', '/');
      expect(proofFetch).toHaveBeenCalledTimes(1);
      expect(proofFetch.mock.calls[0][0]).toBe('https://api.example.test/proof');
      expect(hydratedWhenAsked).toEqual([true]);
      expect(recoverable).toEqual([]);
      expect(leadFetch).not.toHaveBeenCalled();

      fill({ name: 'Олена', phone: '0671234567', answer: 'Так' });
      await sendAndWait();

      expect(leadHeaders()).toEqual({ ...KEY_HEADERS, 'X-Zayavka-Proof': 'proof-1', ...(await work('proof-1')) });
      expect(proofFetch).toHaveBeenCalledTimes(1);
      expect(statuses().getByText('Дякуємо!')).toBeTruthy();
    });

    for (const [what, answer] of [
      ['answers 404 (a hosted Supabase)', noProof],
      ['cannot be reached', () => Promise.reject(new TypeError('Failed to fetch'))],
    ] as const) {
      it(`when /proof ${what}, the lead goes exactly as before: no x-zayavka headers, even with a honeypot`, async () => {
        await reopen(answer);
        Object.defineProperty(window.navigator, 'webdriver', { value: true, configurable: true });
        fill({ name: 'Олена', phone: '0671234567', answer: 'Так', website: 'filled' });
        await sendAndWait();

        expect(leadHeaders()).toEqual(KEY_HEADERS);
        // Asked again at the submit (the first answer may have been a passing failure), once.
        expect(proofFetch).toHaveBeenCalledTimes(2);
        expect(statuses().getByText('Дякуємо!')).toBeTruthy();
      });
    }

    it('one older than an hour is replaced before the lead is sent', async () => {
      const answers = [proofAnswer('old'), proofAnswer('fresh')];
      await reopen(() => (answers.shift() ?? noProof)());
      await waitFor(() => expect(proofFetch).toHaveBeenCalledTimes(1));
      const opened = Date.now();
      vi.spyOn(Date, 'now').mockReturnValue(opened + 60 * 60 * 1000 + 1);

      fill({ name: 'Олена', phone: '0671234567', answer: 'Ні' });
      await sendAndWait();

      expect(proofFetch).toHaveBeenCalledTimes(2);
      expect(leadHeaders()['X-Zayavka-Proof']).toBe('fresh');
    });

    it('a filled honeypot no longer pretends: the lead is sent, flagged, and the visitor is thanked as usual', async () => {
      await reopen(proofAnswer('proof-2'));
      fill({ name: 'Олена', phone: '0671234567', answer: 'Так', website: 'Олена' });
      await sendAndWait();

      expect(leadHeaders()).toEqual({
        ...KEY_HEADERS,
        'X-Zayavka-Proof': 'proof-2',
        ...(await work('proof-2')),
        'X-Zayavka-Flags': 'honeypot',
      });
      expect(JSON.parse(leadFetch.mock.calls[0][1]?.body as string)).toEqual({
        name: 'Олена',
        phone: '0671234567',
        confirmation: 'Так',
        comment: null,
      });
      expect(statuses().getByText('Дякуємо!')).toBeTruthy();
      expect(statuses().getByText("Заявку отримано. Ми зв'яжемося з Вами протягом 48 годин.")).toBeTruthy();
    });

    it('a browser driven by automation (navigator.webdriver) is flagged', async () => {
      await reopen(proofAnswer('proof-3'));
      Object.defineProperty(window.navigator, 'webdriver', { value: true, configurable: true });
      fill({ name: 'Олена', phone: '0671234567', answer: 'Так', website: 'x' });
      await sendAndWait();

      expect(leadHeaders()['X-Zayavka-Flags']).toBe('honeypot webdriver');
      expect(statuses().getByText('Дякуємо!')).toBeTruthy();
    });

    it('a browser that says it is not automated is not flagged', async () => {
      await reopen(proofAnswer('proof-4'));
      Object.defineProperty(window.navigator, 'webdriver', { value: false, configurable: true });
      fill({ name: 'Олена', phone: '0671234567', answer: 'Так' });
      await sendAndWait();

      expect(leadHeaders()).toEqual({ ...KEY_HEADERS, 'X-Zayavka-Proof': 'proof-4', ...(await work('proof-4')) });
    });
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
