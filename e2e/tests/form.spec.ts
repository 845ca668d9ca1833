// A visitor with JavaScript fills the form and sends it: validation, the one call, success, failure.
import { createHash } from 'node:crypto';
import { ANON_KEY, expect, test, type StandIns } from '../support/fixtures';
import { freePort, type BackendStandIn } from '../support/stand-ins';
import {
  TEXT,
  alertToast,
  fillLead,
  isLeadCall,
  leadForm,
  openLanding,
  recordRequests,
  requestsSoFar,
  statusToast,
  waitForHydration,
} from '../support/visitor';

const complete = { name: 'Олена Коваль', phone: '+380 67 123 45 67', answer: 'Так', comment: '' } as const;

/** The inserts a stand-in backend received (the page also asks it for a page-load proof, a GET). */
const posts = (backend: BackendStandIn) => backend.requests.filter((r) => r.method === 'POST').length;

test.describe('an incomplete form is stopped in the browser (docs/product.md, Messages: a required field empty)', () => {
  const variants = [
    { story: 'no answer chosen', entries: { name: 'Олена', phone: '+380 67 123 45 67' } },
    { story: 'agreement unchecked', entries: { ...complete, agree: false } },
    { story: 'name empty', entries: { phone: '+380 67 123 45 67', answer: 'Ні' } },
    { story: 'name only spaces', entries: { ...complete, name: '   ' } },
    { story: 'nothing filled in', entries: {} },
  ] as const;

  for (const { story, entries } of variants) {
    test(`${story}: a warning toast, and no call is made`, async ({ page, server }) => {
      await openLanding(page);
      const requests = recordRequests(page);
      await fillLead(page, entries);
      // A live region is announced only if it was on the page before its content changed.
      await expect(alertToast(page)).toBeAttached();
      await expect(alertToast(page)).toBeEmpty();

      await leadForm(page).submit.click();

      const toast = alertToast(page);
      await expect(toast).toHaveAttribute('aria-live', /assertive|polite/);
      await expect(toast).toContainText(TEXT.invalidTitle);
      await expect(toast).toContainText(TEXT.invalidText);
      await requestsSoFar(page);
      expect(requests.filter(isLeadCall)).toEqual([]);
      expect(requests.filter((r) => r.method() !== 'GET')).toEqual([]);
      await expect(page).toHaveURL(`${server.baseURL}/`);
      await expect(leadForm(page).submit).toBeEnabled();
      expect(await server.leads()).toEqual([]);
    });
  }
});

test('while the lead is on its way the button is disabled, says "Відправляємо..." and spins', async ({ page, startZayavka, standIns }) => {
  const backend = await standIns.backend({ status: 201, hold: true });
  const site = await startZayavka({ ZAYAVKA_BACKEND_URL: backend.url });
  await openLanding(page, `${site.baseURL}/`);
  await fillLead(page, complete);

  await leadForm(page).submit.click();

  const sending = leadForm(page).form.getByRole('button', { name: TEXT.submitting, exact: true });
  await expect(sending).toBeVisible();
  await expect(sending).toBeDisabled();
  await expect(sending.locator('.spinner')).toBeVisible();
  // Its page-load proof is held too: the lead waits for it only a few seconds, then goes without.
  await expect.poll(() => posts(backend)).toBe(1);
  await expect(sending).toBeDisabled();

  backend.release();

  await expect(statusToast(page)).toContainText(TEXT.successTitle);
  await page.waitForURL(`${site.baseURL}/thank-you`);
  expect(posts(backend)).toBe(1);
});

test.describe('the one call carries exactly the lead', () => {
  for (const { story, entries, sent } of [
    {
      story: 'yes, no comment',
      entries: { name: '  Олена Коваль ', phone: ' +380 67 123 45 67 ', answer: 'Так', comment: '   ' },
      sent: { name: 'Олена Коваль', phone: '+380 67 123 45 67', confirmation: 'Так', comment: null },
    },
    {
      story: 'no, with a comment',
      entries: { name: "Мар'яна", phone: '(050) 111-22-33', answer: 'Ні', comment: '\n Дзвоніть після 18:00 \n' },
      sent: { name: "Мар'яна", phone: '(050) 111-22-33', confirmation: 'Ні', comment: 'Дзвоніть після 18:00' },
    },
  ] as const) {
    test(`${story}: a POST with the trimmed fields and the key, stored as sent`, async ({ page, server }) => {
      await openLanding(page);
      const requests = recordRequests(page);
      await fillLead(page, entries);
      const call = page.waitForRequest(isLeadCall);

      await leadForm(page).submit.click();

      const request = await call;
      expect(request.method()).toBe('POST');
      expect(request.url()).toBe(`${server.baseURL}/rest/v1/CRN`);
      expect(request.postDataJSON()).toStrictEqual(sent);
      const headers = await request.allHeaders();
      expect(headers['apikey']).toBe(ANON_KEY);
      expect(headers['authorization']).toBe(`Bearer ${ANON_KEY}`);
      expect(headers['content-type']).toMatch(/^application\/json/);
      expect(headers['prefer']).toBe('return=minimal');
      // The page-load proof our server handed out when the page ran, and nothing to flag.
      expect(headers['x-zayavka-proof']).toMatch(/\S/);
      expect(headers['x-zayavka-flags']).toBeUndefined();
      // Its proof of work, done by the browser's WebCrypto (the page is on localhost: a secure context).
      const work = createHash('sha256').update(`${headers['x-zayavka-proof']}.${headers['x-zayavka-work']}`).digest();
      expect(headers['x-zayavka-work']).toMatch(/^\d+$/);
      expect(work.readUInt32BE(0) >>> (32 - 11)).toBe(0);
      expect((await request.response())?.status()).toBe(201);

      await page.waitForURL('**/thank-you');
      expect(requests.filter(isLeadCall)).toHaveLength(1);
      const leads = await server.leads();
      expect(leads).toHaveLength(1);
      expect(leads[0]).toMatchObject({ ...sent, held: null });
    });
  }
});

test.describe('a lead that is accepted', () => {
  test('thanks the visitor, then a full page load brings them to /thank-you', async ({ page, server }) => {
    await openLanding(page);
    await page.evaluate(() => ((window as unknown as { beforeRedirect: boolean }).beforeRedirect = true));
    await fillLead(page, complete);
    const answered = page.waitForResponse((response) => isLeadCall(response.request()));

    await leadForm(page).submit.click();

    await answered;
    const acceptedAt = Date.now();
    const toast = statusToast(page);
    await expect(toast).toContainText(TEXT.successTitle);
    await expect(toast).toContainText(TEXT.successText);
    await expect(toast).toHaveAttribute('aria-live', /polite|assertive/);
    await expect(page).toHaveURL(`${server.baseURL}/`);

    await page.waitForURL(`${server.baseURL}/thank-you`);
    // About a second to read the toast, and a new document (not a client-side route change).
    expect(Date.now() - acceptedAt).toBeGreaterThan(500);
    expect(await page.evaluate(() => 'beforeRedirect' in window)).toBe(false);
    await expect(page.getByRole('heading', { level: 1 })).toContainText('Дякуємо');
    const leads = await server.leads();
    expect(leads).toHaveLength(1);
    expect(leads[0]).toMatchObject({ name: 'Олена Коваль', confirmation: 'Так', comment: null });
  });

  test('a visitor from a campaign link: the page\'s own utm_* and the linking site travel with the lead', async ({ page, server, standIns }) => {
    // A real other site links here: the browser sends its origin as the referrer (its default policy).
    const partner = await standIns.otherSite('Сайт партнера');
    await page.goto(partner.origin);
    const landing = `${server.baseURL}/?utm_source=viber&utm_campaign=%D0%B7%D0%B8%D0%BC%D0%B0&fbclid=x`;
    await page.evaluate((url) => (window.location.href = url), landing);
    await page.waitForURL(landing);
    await waitForHydration(page);
    await fillLead(page, complete);
    await leadForm(page).submit.click();
    await page.waitForURL(`${server.baseURL}/thank-you`);
    const [lead] = await server.leads();
    expect(lead).toMatchObject({ utm_source: 'viber', utm_campaign: 'зима', utm_medium: null, referrer: new URL(partner.origin).hostname });
  });

  test('goes to the operator\'s external redirect target', async ({ page, startZayavka, standIns }) => {
    const partner = await standIns.otherSite('Сайт партнера');
    const target = `${partner.origin}/programa/dyakuyemo?from=zayavka&lang=uk`;
    const site = await startZayavka({ ZAYAVKA_REDIRECT_URL: target });
    await openLanding(page, `${site.baseURL}/`);
    await fillLead(page, complete);

    await leadForm(page).submit.click();

    await expect(statusToast(page)).toContainText(TEXT.successTitle);
    await page.waitForURL(target);
    await expect(page.getByRole('heading', { name: 'Сайт партнера' })).toBeVisible();
    expect(partner.visits).toEqual(['/programa/dyakuyemo?from=zayavka&lang=uk']);
    expect(await site.leads()).toHaveLength(1);
  });

  test('a visitor who taps the button twice sends one lead', async ({ page, server }) => {
    await openLanding(page);
    const requests = recordRequests(page);
    await fillLead(page, complete);

    await leadForm(page).submit.dblclick();

    await page.waitForURL(`${server.baseURL}/thank-you`);
    expect(requests.filter(isLeadCall)).toHaveLength(1);
    expect(await server.leads()).toHaveLength(1);
  });

  test('the keyboard\'s Enter in the phone field sends the lead', async ({ page, server }) => {
    await openLanding(page);
    await fillLead(page, complete);

    await leadForm(page).phone.press('Enter');

    await page.waitForURL(`${server.baseURL}/thank-you`);
    expect(await server.leads()).toHaveLength(1);
  });

  test('a visitor who comes back from the thank-you page can send another lead', async ({ page, server }) => {
    await openLanding(page);
    await fillLead(page, complete);
    await leadForm(page).submit.click();
    await page.waitForURL(`${server.baseURL}/thank-you`);

    await page.goBack();
    await waitForHydration(page);
    await fillLead(page, { name: 'Петро Іваненко', phone: '050 111 22 33', answer: 'Ні' });
    await leadForm(page).submit.click();

    await page.waitForURL(`${server.baseURL}/thank-you`);
    expect((await server.leads()).map((lead) => lead.name)).toEqual(['Олена Коваль', 'Петро Іваненко']);
  });

  test('a filled hidden field (a bot, or a password manager) is sent flagged, held for review, and thanked as usual', async ({ page, server }) => {
    await openLanding(page);
    await fillLead(page, complete);
    await page.locator('input[name="website"]').fill('https://spam.example');
    const call = page.waitForRequest(isLeadCall);

    await leadForm(page).submit.click();

    const headers = await (await call).allHeaders();
    expect(headers['x-zayavka-flags']).toBe('honeypot');
    expect(headers['x-zayavka-proof']).toMatch(/\S/);
    await expect(statusToast(page)).toContainText(TEXT.successTitle);
    await page.waitForURL(`${server.baseURL}/thank-you`);
    const leads = await server.leads();
    expect(leads).toMatchObject([{ name: complete.name, phone: complete.phone }]);
    expect(leads[0].held).toContain('honeypot');
  });

  test('reaches a backend on another origin (another zayavka) through CORS', async ({ page, startZayavka }) => {
    const backend = await startZayavka();
    const site = await startZayavka({ ZAYAVKA_BACKEND_URL: backend.baseURL });
    await openLanding(page, `${site.baseURL}/`);
    await fillLead(page, complete);

    await leadForm(page).submit.click();

    await page.waitForURL(`${site.baseURL}/thank-you`);
    // With the page-load proof that backend handed out (its own /proof, through CORS too): in the call list.
    expect(await backend.leads()).toMatchObject([{ name: complete.name, held: null }]);
    expect(await site.leads()).toEqual([]);
  });
});

test.describe('a lead that cannot be sent', () => {
  test('a phone that is not a number is stopped in the browser: no call, the field explained, a toast', async ({ page, server }) => {
    const shape = 'Номер телефону має складатися з цифр (від 7 до 15), можна з пробілами, дужками, дефісами та «+».';
    await openLanding(page);
    const requests = recordRequests(page);
    await fillLead(page, { name: 'Олена Коваль', phone: 'дзвоніть увечері', answer: 'Так' });

    await leadForm(page).submit.click();

    const f = leadForm(page);
    const toast = alertToast(page);
    await expect(toast).toContainText('Перевірте номер телефону');
    await expect(toast).toContainText(shape);
    await expect(f.phone).toHaveAttribute('aria-invalid', 'true');
    await expect(f.phone).toHaveAccessibleDescription(shape);
    await expect(f.form.getByText(shape, { exact: true })).toBeVisible();
    await expect(f.phone).toBeFocused();
    await expect(f.phone).toHaveValue('дзвоніть увечері');
    await expect(f.name).not.toHaveAttribute('aria-invalid', 'true');
    await expect(f.submit).toBeEnabled();
    await requestsSoFar(page);
    expect(requests.filter((r) => r.method() !== 'GET')).toEqual([]);
    await expect(page).toHaveURL(`${server.baseURL}/`);

    // Corrected, the lead goes out.
    await f.phone.fill('(067) 123-45-67');
    await expect(f.phone).not.toHaveAttribute('aria-invalid', 'true');
    await f.submit.click();
    await page.waitForURL(`${server.baseURL}/thank-you`);
    expect(await server.leads()).toMatchObject([{ name: 'Олена Коваль', phone: '(067) 123-45-67' }]);
  });

  test('the server refuses the lead: the same error toast, and beside the button what to change', async ({ page, server, browserLog }) => {
    browserLog.allow(/Lead submission failed/, /Failed to load resource: .*400/);
    await openLanding(page);
    const f = leadForm(page);
    // A name made only of invisible direction marks is not blank to the browser, but the server
    // drops such marks and finds the name missing.
    await fillLead(page, { name: '\u2066\u2069', phone: '+380 67 123 45 67', answer: 'Ні', comment: 'Після обіду' });
    const answered = page.waitForResponse((response) => isLeadCall(response.request()));

    await f.submit.click();

    expect((await answered).status()).toBe(400);
    const toast = page.locator('.toaster').getByRole('alert');
    await expect(toast).toContainText(TEXT.failedTitle);
    await expect(toast).toContainText(TEXT.failedText);
    const explanation = f.form.getByRole('alert');
    await expect(explanation).toHaveText("Поле «Ваше ім'я» обов'язкове.");
    await expect(explanation).toBeVisible();
    // Just above the button.
    expect(await explanation.evaluate((el) => el.nextElementSibling?.textContent)).toBe(TEXT.submit);
    await expect(f.phone).toHaveValue('+380 67 123 45 67');
    await expect(f.no).toBeChecked();
    await expect(f.comment).toHaveValue('Після обіду');
    await expect(f.submit).toBeEnabled();
    expect(await server.leads()).toEqual([]);

    // The next submit clears it, and the corrected lead is stored.
    await f.name.fill('Олена Коваль');
    await f.submit.click();
    await expect(explanation).toHaveCount(0);
    await page.waitForURL(`${server.baseURL}/thank-you`);
    expect(await server.leads()).toMatchObject([{ name: 'Олена Коваль', comment: 'Після обіду' }]);
  });

  const failures = [
    {
      story: 'the backend answers 500',
      backend: async (standIns: StandIns) => {
        const backend = await standIns.backend({
          status: 500,
          json: { code: 'XX000', message: 'internal error', details: null, hint: null },
        });
        return { url: backend.url, posts: () => posts(backend) };
      },
      consoleNoise: /Failed to load resource: .*500/,
    },
    {
      story: 'the backend is unreachable',
      // Nothing listens on a fresh free port: the connection is refused.
      backend: async () => ({ url: `http://127.0.0.1:${await freePort()}`, posts: () => 1 }),
      consoleNoise: /Failed to load resource: net::ERR_CONNECTION_REFUSED/,
    },
  ];

  for (const { story, backend: start, consoleNoise } of failures) {
    test(`${story}: an error toast, a console error, entries kept, nothing stored`, async ({ page, startZayavka, standIns, browserLog }) => {
      browserLog.allow(/Lead submission failed/, consoleNoise);
      const backend = await start(standIns);
      const site = await startZayavka({ ZAYAVKA_BACKEND_URL: backend.url });
      // The page's timers run on a clock the test moves (the redirect after a success waits on one).
      await page.clock.install();
      await openLanding(page, `${site.baseURL}/`);
      const requests = recordRequests(page);
      const entries = { name: 'Олена Коваль', phone: '+380 67 123 45 67', answer: 'Ні', comment: 'Після обіду' } as const;
      await fillLead(page, entries);

      await leadForm(page).submit.click();

      const toast = alertToast(page);
      await expect(toast).toContainText(TEXT.failedTitle);
      await expect(toast).toContainText(TEXT.failedText);
      await expect.poll(() => browserLog.consoleErrors.filter((e) => /Lead submission failed/.test(e))).toHaveLength(1);
      const f = leadForm(page);
      await expect(f.submit).toBeEnabled();
      await expect(f.name).toHaveValue(entries.name);
      await expect(f.phone).toHaveValue(entries.phone);
      await expect(f.no).toBeChecked();
      await expect(f.comment).toHaveValue(entries.comment);
      await expect(f.agreement).toBeChecked();
      // No redirect follows a failure: a success leaves after about a second of the page's time.
      await page.clock.runFor(2_000);
      await requestsSoFar(page);
      expect(requests.filter((r) => new URL(r.url()).pathname === '/thank-you')).toEqual([]);
      await expect(page).toHaveURL(`${site.baseURL}/`);
      expect(backend.posts()).toBe(1);
      expect(await site.leads()).toEqual([]);
    });
  }
});
