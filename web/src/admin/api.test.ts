import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, NetworkError, createClient, errorText, getSession, leadsPath, login } from './api';
import { CSRF, LEAD_OPEN, SESSION, apiError, expectNoUnexpectedRequests, fakeServer, json, leadDetail } from './test-server';

afterEach(() => {
  vi.unstubAllGlobals();
  expectNoUnexpectedRequests();
});

describe('leadsPath', () => {
  it('always names the filter; adds the search and the page only when there are some', () => {
    expect(leadsPath({ q: '', filter: 'all' })).toBe('/admin/api/leads?filter=all');
    expect(leadsPath({ q: ' 067 123 ', filter: 'overdue', beforeId: 41 })).toBe(
      '/admin/api/leads?filter=overdue&q=067+123&before_id=41',
    );
    expect(leadsPath({ q: 'Олена & Ко', filter: 'open', beforeId: null })).toBe(
      '/admin/api/leads?filter=open&q=%D0%9E%D0%BB%D0%B5%D0%BD%D0%B0+%26+%D0%9A%D0%BE',
    );
  });
});

describe('session and login', () => {
  it('is null when nobody is signed in (401)', async () => {
    fakeServer({ 'GET /admin/api/session': () => apiError(401, 'Увійдіть.') });
    await expect(getSession()).resolves.toBeNull();
  });

  it('logs in with JSON, same-origin credentials and no CSRF token (there is none yet)', async () => {
    const server = fakeServer({ 'POST /admin/api/login': () => json(SESSION) });
    await expect(login('operator@example.org', 'secret')).resolves.toEqual(SESSION);
    const [request] = server.requests;
    expect(request.body).toEqual({ email: 'operator@example.org', password: 'secret' });
    expect(request.headers.get('Content-Type')).toBe('application/json');
    expect(request.headers.has('X-CSRF-Token')).toBe(false);
    expect(request.credentials).toBe('same-origin');
  });

  it("rejects with the server's sentence and status", async () => {
    fakeServer({ 'POST /admin/api/login': () => apiError(429, 'Забагато спроб. Спробуйте за 60 с.') });
    const error = await login('a@b.c', 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 429, message: 'Забагато спроб. Спробуйте за 60 с.' });
  });
});

describe('createClient', () => {
  it('sends the CSRF token with every POST and never with a GET', async () => {
    const server = fakeServer({
      'GET /admin/api/leads/42': () => json(leadDetail(LEAD_OPEN, [])),
      'POST /admin/api/leads/42/attempts': () => json(leadDetail(LEAD_OPEN, []), 201),
      'POST /admin/api/erase': () => json({ erased: 1 }),
      'POST /admin/api/logout': () => new Response(null, { status: 204 }),
    });
    const client = createClient(CSRF, () => {});
    await client.lead('42');
    await client.recordAttempt(42, 'no_answer', 'пізніше', 'call-key-1');
    await client.erase('067 123 45 67');
    await expect(client.logout()).resolves.toBeUndefined();

    expect(server.requests.map((r) => [r.method, r.path, r.headers.get('X-CSRF-Token')])).toEqual([
      ['GET', '/admin/api/leads/42', null],
      ['POST', '/admin/api/leads/42/attempts', CSRF],
      ['POST', '/admin/api/erase', CSRF],
      ['POST', '/admin/api/logout', CSRF],
    ]);
    expect(server.requests[1].body).toEqual({ outcome: 'no_answer', note: 'пізніше' });
    expect(server.requests[1].headers.get('Idempotency-Key')).toBe('call-key-1');
    expect(server.requests[2].body).toEqual({ phone: '067 123 45 67' });
    expect(server.requests.every((r) => r.credentials === 'same-origin')).toBe(true);
  });

  it('reports a 401 (the session is over) and still rejects', async () => {
    fakeServer({ 'GET /admin/api/stats': () => apiError(401, 'Сесія закінчилася.') });
    const onUnauthorized = vi.fn();
    await expect(createClient(CSRF, onUnauthorized).stats()).rejects.toBeInstanceOf(ApiError);
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
  });

  it('after a sign-in in another tab (a new CSRF token), reads the token again and retries once', async () => {
    const server = fakeServer({
      'POST /admin/api/erase': (r) =>
        r.headers.get('X-CSRF-Token') === 'new-token' ? json({ erased: 1 }) : apiError(403, 'Запит відхилено.'),
      'GET /admin/api/session': () => json({ ...SESSION, csrf_token: 'new-token' }),
    });
    const client = createClient(CSRF, () => {});
    await expect(client.erase('1')).resolves.toEqual({ erased: 1 });
    await expect(client.erase('2')).resolves.toEqual({ erased: 1 });
    expect(server.requests.map((r) => [r.method, r.path, r.headers.get('X-CSRF-Token')])).toEqual([
      ['POST', '/admin/api/erase', CSRF],
      ['GET', '/admin/api/session', null],
      ['POST', '/admin/api/erase', 'new-token'],
      ['POST', '/admin/api/erase', 'new-token'],
    ]);
  });

  it('does not treat other errors as the end of the session', async () => {
    fakeServer({
      'POST /admin/api/erase': () => apiError(403, 'Недійсний токен CSRF.'),
      'GET /admin/api/session': () => json(SESSION),
    });
    const onUnauthorized = vi.fn();
    const error = await createClient(CSRF, onUnauthorized).erase('1').catch((e: unknown) => e);
    expect(errorText(error)).toBe('Недійсний токен CSRF.');
    expect(onUnauthorized).not.toHaveBeenCalled();
  });
});

describe('errorText', () => {
  it('says there is no connection when the request never got an answer', async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
    const error = await createClient(CSRF, () => {}).stats().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(errorText(error)).toBe("Немає з'єднання з сервером. Спробуйте ще раз.");
  });

  it('falls back to its own sentence when an error answer is not ours (a proxy page)', async () => {
    fakeServer({ 'GET /admin/api/stats': () => new Response('<html>Bad Gateway</html>', { status: 502 }) });
    const error = await createClient(CSRF, () => {}).stats().catch((e: unknown) => e);
    expect(errorText(error)).toBe('Сервер відповів помилкою (502). Спробуйте ще раз.');
  });

  it('passes a deliberate cancel on as it is, not as a lost connection', async () => {
    vi.stubGlobal('fetch', (_: unknown, init: RequestInit) =>
      new Promise((_resolve, reject) =>
        init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
      ),
    );
    const controller = new AbortController();
    const pending = createClient(CSRF, () => {}).stats(controller.signal);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});
