// @vitest-environment jsdom
// Renders every page the way scripts/prerender.mjs does and checks what the server and the
// visitor's browser rely on.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { within } from '@testing-library/dom';
import { describe, expect, it, vi } from 'vitest';
import { CONFIG_KEYS, TOKENS } from './config';
import { uk } from './content/uk';
import { PAGES, pagesManifest, prerenderAll, readManifest, type Manifest } from './entry-server';
import { LEAD_FORM_ID } from './components/LeadForm';
import { PROOF_FIELD } from './form/proof-field';
import { REFUSAL_TOKENS } from './form/refusal';
import { showsForm } from './pages';

const src = dirname(fileURLToPath(import.meta.url));
const template = readFileSync(join(src, '..', 'index.html'), 'utf8');
const css = readFileSync(join(src, 'styles.css'), 'utf8');
/** Each page's scripts as the build manifest would name them. */
const scripts = (entry: string) => ({ src: `/assets/${entry}-h4sh.js`, preload: ['/assets/client-h4sh.js'] });
const files = Object.fromEntries(prerenderAll(template, css, scripts).map(({ file, html }) => [file, html]));

function parse(html: string): Document {
  return new DOMParser().parseFromString(html, 'text/html');
}

/** Puts a page into the test's document (role queries need one with a window) and queries it. */
function show(html: string) {
  const parsed = parse(html);
  document.head.innerHTML = parsed.head.innerHTML;
  document.body.innerHTML = parsed.body.innerHTML;
  return within(document.body);
}

describe('prerenderAll', () => {
  it('writes the six files of the server contract', () => {
    expect(Object.keys(files)).toEqual([
      'index.html',
      'thank-you.html',
      'privacy-policy.html',
      '404.html',
      'form-refused.html',
      'error.html',
    ]);
  });

  it('lists for the server (dist/pages.json) which page it serves where', () => {
    expect(pagesManifest()).toEqual({
      routes: [
        { path: '/', file: 'index.html', form: true },
        { path: '/thank-you', file: 'thank-you.html', form: false },
        { path: '/privacy-policy', file: 'privacy-policy.html', form: false },
      ],
      notFound: '404.html',
      formRefused: 'form-refused.html',
      error: 'error.html',
      policy: 'privacy-policy.html',
    });
    const withoutErrorPage = PAGES.filter((page) => page.serves !== 'error');
    expect(() => pagesManifest(withoutErrorPage)).toThrow('exactly one page serving error, not 0');
  });

  it('asks the network for nothing: the page-load proof is fetched in the browser, after hydration', () => {
    const fetchMock = vi.fn(() => Promise.reject(new Error('no network at build time')));
    vi.stubGlobal('fetch', fetchMock);
    try {
      const again = prerenderAll(template, css, scripts);
      expect(fetchMock).not.toHaveBeenCalled();
      // And so the markup is the same on every build: nothing fetched or timed is in it.
      expect(again.map(({ html }) => html)).toEqual(Object.values(files));
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('refuses a template without its markers', () => {
    expect(() => prerenderAll('<html></html>', '', scripts)).toThrow('<!--app-head-->');
    expect(() => prerenderAll(template.replace('/src/main.tsx', '/src/other.tsx'), '', scripts)).toThrow('main.tsx');
  });

  it('reads each entry\'s files from the build manifest, every chunk it imports preloaded once', () => {
    const manifest: Manifest = {
      'src/entries/home.tsx': { file: 'assets/home-1.js', isEntry: true, imports: ['_client-2.js', '_form-3.js'] },
      'src/entries/thank-you.tsx': { file: 'assets/thank-you-4.js', isEntry: true, imports: ['_client-2.js'] },
      '_form-3.js': { file: 'assets/form-3.js', imports: ['_client-2.js'] },
      '_client-2.js': { file: 'assets/client-2.js', css: ['assets/client-5.css'] },
    };
    const read = readManifest(manifest);
    expect(read.scripts('home')).toEqual({ src: '/assets/home-1.js', preload: ['/assets/client-2.js', '/assets/form-3.js'] });
    expect(read.scripts('thank-you')).toEqual({ src: '/assets/thank-you-4.js', preload: ['/assets/client-2.js'] });
    expect(read.css).toEqual(['assets/client-5.css']);
    expect(() => read.scripts('not-found')).toThrow('src/entries/not-found.tsx');
  });

  it('gives every entry of the build (src/entries/) a page, and every hydrated page its own entry', () => {
    const built = readdirSync(join(src, 'entries')).filter((name) => /^[\w-]+\.tsx$/.test(name));
    const entries = PAGES.flatMap((page) => (page.entry === null ? [] : [`${page.entry}.tsx`]));
    expect([...entries].sort()).toEqual(built.sort());
  });

  for (const page of PAGES) {
    describe(page.file, () => {
      const html = files[page.file];
      const doc = parse(html);

      it('is Ukrainian, with its own title, description, viewport and theme colour', () => {
        expect(doc.documentElement.lang).toBe('uk');
        expect(doc.title).toBe(`${page.title} — __ZAYAVKA_BRAND__`);
        expect(doc.querySelector('meta[name="description"]')?.getAttribute('content')).toBe(page.description);
        expect(doc.querySelector('meta[name="viewport"]')).not.toBeNull();
        expect(doc.querySelector('meta[name="theme-color"]')).not.toBeNull();
      });

      it('has all CSS in one <style> in the head and no style attributes (strict CSP)', () => {
        expect(doc.querySelectorAll('style')).toHaveLength(1);
        expect(doc.head.querySelector('style')?.textContent).toBe(css.trim());
        expect(doc.querySelectorAll('[style]')).toHaveLength(0);
        expect(html).not.toMatch(/\sstyle=/i);
        expect(doc.querySelectorAll('link[rel="stylesheet"]')).toHaveLength(0);
      });

      it('has no inline script but its data blocks (the config, which holds every token, and its texts) and its loader', () => {
        const inline = [...doc.querySelectorAll('script:not([src]):not([type="module"])')];
        expect(inline.map((s) => s.id)).toEqual(page.entry === null ? ['zayavka-config'] : ['zayavka-config', 'zayavka-texts']);
        for (const block of inline) expect(block.getAttribute('type')).toBe('application/json');
        const config = JSON.parse(inline[0].textContent ?? '');
        expect(Object.keys(config)).toEqual([...CONFIG_KEYS]);
        expect(config).toEqual({ ...TOKENS, today: page.usesToday ? TOKENS.today : '' });
        // Only a page that shows the date needs filling in every day.
        expect(html.includes('__ZAYAVKA_TODAY__')).toBe(page.usesToday);
      });

      if (page.entry !== null) {
        const entry = page.entry;
        it('carries the texts its script renders, and only those', () => {
          const texts = JSON.parse(doc.getElementById('zayavka-texts')?.textContent ?? '');
          expect(texts).toEqual(Object.fromEntries(page.texts.map((part) => [part, uk[part]])));
          // The frame every page has: the footer, the toasts, the error boundary's screen.
          expect(Object.keys(texts)).toEqual(expect.arrayContaining(['footer', 'toast', 'error']));
        });

        it('imports its own script and the chunks it imports after the first paint, from a loader at the end of the body', () => {
          const { src, preload } = scripts(entry);
          expect(doc.querySelectorAll('script[src], link[rel="modulepreload"]')).toHaveLength(0);
          const loaders = [...doc.querySelectorAll('script[type="module"]')];
          expect(loaders).toHaveLength(1);
          // Only the form's proof field comes after it (renderPage).
          const last = doc.body.lastElementChild;
          expect(showsForm(page) ? last?.previousElementSibling : last).toBe(loaders[0]);
          const loader = loaders[0].textContent ?? '';
          expect(loader).toContain(JSON.stringify([src, ...preload]));
          expect(loader).toContain("getEntriesByName('first-contentful-paint')");
          expect(html).not.toContain('/src/main.tsx');
        });
      } else {
        it('loads no script at all and carries no texts', () => {
          expect(doc.querySelectorAll('script[src], script[type="module"], link[rel="modulepreload"]')).toHaveLength(0);
          expect(doc.getElementById('zayavka-texts')).toBeNull();
        });
      }

      it("carries the form's proof field, for the server to fill, outside what React hydrates", () => {
        const form = doc.getElementById(LEAD_FORM_ID) as HTMLFormElement | null;
        const fields = doc.querySelectorAll(`input[name="${PROOF_FIELD.name}"]`);
        expect(fields).toHaveLength(showsForm(page) ? 1 : 0);
        expect(html.includes(PROOF_FIELD.token)).toBe(showsForm(page));
        if (form === null) return;
        const field = form.elements.namedItem(PROOF_FIELD.name) as HTMLInputElement;
        expect(field.type).toBe('hidden');
        expect(field.value).toBe(PROOF_FIELD.token);
        expect(doc.getElementById('root')?.contains(field)).toBe(false);
      });

      it('has the header brand and the footer with three disclosures and the copyright', () => {
        const body = show(html);
        expect(body.getByRole('link', { name: '__ZAYAVKA_BRAND__' }).getAttribute('href')).toBe('/');
        expect(doc.querySelectorAll('footer details > summary')).toHaveLength(3);
        expect(doc.querySelector('details#public-offer summary')?.textContent).toBe('Публічна оферта');
        const phone = doc.querySelector('footer a[href="__ZAYAVKA_PHONE_HREF__"]');
        expect(phone?.textContent).toBe('__ZAYAVKA_PHONE__');
        expect(doc.querySelector('footer .copyright')?.textContent).toBe('© 2025 __ZAYAVKA_BRAND__');
      });
    });
  }
});

describe('the landing page', () => {
  const html = files['index.html'];
  const doc = parse(html);

  it('carries the exact accessible-name labels verbatim in its HTML', () => {
    for (const label of [
      "Ваше ім'я",
      'Номер телефону',
      'Так',
      'Ні',
      "Коментар (необов'язково)",
      'публічної оферти',
      'Отримати безкоштовну консультацію',
    ]) {
      expect(html).toContain(label);
    }
  });

  it('has a headline, four benefits and the limited-places note', () => {
    const body = show(html);
    expect(body.getByRole('heading', { level: 1 }).textContent).toBeTruthy();
    expect(doc.querySelectorAll('.benefits li')).toHaveLength(4);
    expect(doc.body.textContent).toContain('20 років');
    expect(doc.body.textContent).toContain('безкоштовн');
    expect(doc.body.textContent).toContain('обмежена');
  });

  it('has a form that posts to /leads without JavaScript and validates natively', () => {
    const form = doc.querySelector('form[action="/leads"]') as HTMLFormElement;
    expect(form.getAttribute('method')).toBe('post');
    expect(form.hasAttribute('novalidate')).toBe(false);
    expect(
      [...form.querySelectorAll('input, textarea')].map((el) => el.getAttribute('name')),
    ).toEqual(['website', 'name', 'phone', 'confirmation', 'confirmation', 'comment', 'agreed']);
  });

  it('names every control as the contract says', () => {
    const body = show(html);
    const name = body.getByRole('textbox', { name: "Ваше ім'я" });
    expect(name.hasAttribute('required')).toBe(true);

    const phone = body.getByRole('textbox', { name: 'Номер телефону' });
    expect(phone.getAttribute('type')).toBe('tel');
    expect(phone.getAttribute('placeholder')).toBe('+380 XX XXX XX XX');
    expect(phone.hasAttribute('required')).toBe(true);
    expect(phone.getAttribute('autocomplete')).toBe('tel');
    expect(phone.getAttribute('inputmode')).toBe('tel');

    const group = body.getByRole('radiogroup');
    expect(group.tagName).toBe('FIELDSET');
    expect(group.querySelector('legend')?.textContent).toMatch(/\?$/);
    for (const answer of ['Так', 'Ні']) {
      const radio = within(group).getByRole('radio', { name: answer }) as HTMLInputElement;
      expect(radio.checked).toBe(false);
      expect(radio.hasAttribute('required')).toBe(false);
      expect(radio.value).toBe(answer);
    }

    const comment = body.getByRole('textbox', { name: "Коментар (необов'язково)" });
    expect(comment.tagName).toBe('TEXTAREA');
    expect(comment.getAttribute('rows')).toBe('3');

    const agreed = body.getByRole('checkbox', { name: /публічної оферти/ }) as HTMLInputElement;
    expect(agreed.checked).toBe(true);
    expect(agreed.value).toBe('on');
    expect(agreed.hasAttribute('required')).toBe(false);
    expect(body.getByRole('link', { name: 'публічної оферти' }).getAttribute('href')).toBe('#public-offer');

    expect(body.getByRole('button', { name: 'Отримати безкоштовну консультацію' }).getAttribute('type')).toBe(
      'submit',
    );
  });

  it('hides the honeypot from people and screen readers', () => {
    const honeypot = doc.querySelector('input[name="website"]') as HTMLInputElement;
    expect(honeypot.getAttribute('tabindex')).toBe('-1');
    expect(honeypot.getAttribute('autocomplete')).toBe('off');
    expect(honeypot.closest('[aria-hidden="true"]')?.className).toBe('hp');
    const body = show(html);
    expect(body.queryByRole('textbox', { name: /заповнюйте/ })).toBeNull();
  });

  it('has a polite live region for toasts before any toast appears', () => {
    const region = doc.querySelector('[aria-live="polite"]');
    expect(region?.getAttribute('role')).toBe('status');
    expect(region?.childElementCount).toBe(0);
  });
});

describe('form-refused.html, the landing page the server fills in for a refused POST /leads', () => {
  const html = files['form-refused.html'];
  const form = parse(html).getElementById('lead-form')!;

  it('is the landing page: same header, headline and form as index.html', () => {
    const landing = parse(files['index.html']);
    expect(parse(html).querySelector('h1')?.textContent).toBe(landing.querySelector('h1')?.textContent);
    expect(form.getAttribute('action')).toBe('/leads');
    expect(form.querySelectorAll('input, textarea, button')).toHaveLength(
      landing.getElementById('lead-form')!.querySelectorAll('input, textarea, button').length,
    );
  });

  it("has a live region at the form's top with the toasts' texts for every case, each a slot", () => {
    const alert = form.querySelector('[role="alert"]')!;
    expect(form.querySelector('h2')?.compareDocumentPosition(alert)).toBe(Node.DOCUMENT_POSITION_FOLLOWING);
    expect(alert.getAttribute('tabindex')).toBe('-1');
    const cases = [...alert.querySelectorAll('p[data-zayavka-if]')].map((p) => [p.getAttribute('data-zayavka-if'), p.textContent]);
    expect(cases).toEqual([
      ['invalid', 'Будь ласка, заповніть всі поля Всі обов\'язкові поля мають бути заповнені'],
      ['badPhone', `${uk.toast.badPhone.title} ${uk.toast.badPhone.description}`],
      ['failed', 'Сталася помилка Спробуйте, будь ласка, ще раз.'],
    ]);
  });

  it('has every field message of the JavaScript path as a slot, tied by id to its field', () => {
    const messages = [...form.querySelectorAll('p.field-error')].map((p) => [p.getAttribute('data-zayavka-if'), p.id, p.textContent]);
    expect(messages).toEqual([
      ['name', 'lead-name-error', uk.form.errors.name],
      ['phone', 'lead-phone-error', uk.form.errors.phone],
      ['phoneShape', 'lead-phone-error', uk.form.errors.phoneShape],
      ['confirmation', 'lead-confirmation-error', uk.form.errors.confirmation],
      ['agreed', 'lead-agreed-error', uk.form.errors.agreed],
    ]);
    for (const field of ['name', 'phone', 'confirmation', 'agreed']) {
      expect(form.querySelectorAll(`[data-zayavka-invalid="${field}"]`), field).toHaveLength(1);
    }
  });

  it('carries tokens for the entries and slots for the choices, with nothing ticked or marked', () => {
    expect(form.querySelector('input[name="name"]')?.getAttribute('value')).toBe(REFUSAL_TOKENS.name);
    expect(form.querySelector('input[name="phone"]')?.getAttribute('value')).toBe(REFUSAL_TOKENS.phone);
    expect(form.querySelector('textarea')?.textContent).toBe(REFUSAL_TOKENS.comment);
    expect(form.querySelector('input[value="Так"]')?.getAttribute('data-zayavka-checked')).toBe('yes');
    expect(form.querySelector('input[value="Ні"]')?.getAttribute('data-zayavka-checked')).toBe('no');
    expect(form.querySelector('input[name="agreed"]')?.getAttribute('data-zayavka-checked')).toBe('agreed');
    expect(form.querySelectorAll('[checked], [aria-invalid], [autofocus]')).toHaveLength(0);
  });

  it('leaves index.html without any slot', () => {
    expect(files['index.html']).not.toMatch(/data-zayavka-|__ZAYAVKA_FORM_/);
  });
});

describe('the other pages', () => {
  it('thank-you promises a call within 48 hours and asks to keep the phone on', () => {
    const text = parse(files['thank-you.html']).body.textContent ?? '';
    expect(text).toContain('Дякуємо');
    expect(text).toContain('48 годин');
    expect(text).toContain('тримайте телефон увімкненим');
  });

  it('privacy-policy has a Back button, eight sections in order, and the date token', () => {
    const doc = parse(files['privacy-policy.html']);
    show(files['privacy-policy.html']);
    const main = within(document.querySelector('main') as HTMLElement);
    expect(main.getByRole('button', { name: 'Назад' })).toBeTruthy();
    const headings = main.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
    expect(headings).toEqual([
      '1. Загальні положення',
      '2. Яку інформацію ми збираємо',
      '3. Як ми використовуємо інформацію',
      '4. Захист інформації',
      '5. Передача інформації третім особам',
      '6. Ваші права',
      '7. Зміни до політики',
      '8. Контактна інформація',
    ]);
    const text = doc.body.textContent ?? '';
    expect(text).toContain('Дата останньої редакції: __ZAYAVKA_TODAY__');
    for (const fact of [
      'не довше __ZAYAVKA_RETENTION__ із дня надходження',
      '2297-VI',
      'стаття 9',
      'Уповноваженого Верховної Ради України з прав людини',
      // The page-load proof cookie (issue 24): what it holds, that it tracks nothing, how long it lives.
      'лише один суворо необхідний файл cookie — підтвердження завантаження сторінки',
      'час, коли Ви відкрили сторінку, і підпис сервера: жодного ідентифікатора, жодного стеження',
      'зберігається одну добу',
    ]) {
      expect(text).toContain(fact);
    }
    expect(doc.querySelector('main a[href="__ZAYAVKA_PHONE_HREF__"]')?.textContent).toBe('__ZAYAVKA_PHONE__');
  });

  it('404 says the page was not found and links home', () => {
    const body = show(files['404.html']);
    expect(body.getByRole('heading', { level: 1 }).textContent).toBe('Oops! Page not found');
    expect(body.getByRole('link', { name: 'Return to Home' }).getAttribute('href')).toBe('/');
  });

  it('error is the generic application error screen', () => {
    const body = show(files['error.html']);
    expect(body.getByRole('heading', { level: 1 }).textContent).toBe('Unexpected Application Error!');
    expect(body.getAllByRole('link').some((a) => a.getAttribute('href') === '/')).toBe(true);
  });
});
