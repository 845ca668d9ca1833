import { describe, expect, it } from 'vitest';
import { LeadRequestError, createLead, leadsUrl, refusalDetails } from './leads';

const payload = { name: 'Олена', phone: '+380671234567', confirmation: 'Так', comment: null } as const;

function recordingFetch(response: () => Promise<Response>) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetchImpl = ((url: string, init: RequestInit) => {
    calls.push({ url, init });
    return response();
  }) as typeof fetch;
  return { calls, fetchImpl };
}

describe('leadsUrl', () => {
  it('uses the same origin when the backend URL is empty', () => {
    expect(leadsUrl('')).toBe('/rest/v1/CRN');
  });

  it('appends the table path to a backend URL, with or without a trailing slash', () => {
    expect(leadsUrl('https://abc.supabase.co')).toBe('https://abc.supabase.co/rest/v1/CRN');
    expect(leadsUrl('https://abc.supabase.co/')).toBe('https://abc.supabase.co/rest/v1/CRN');
  });
});

describe('createLead', () => {
  it('sends one PostgREST insert with the key, minimal return and exactly the four keys', async () => {
    const { calls, fetchImpl } = recordingFetch(async () => new Response(null, { status: 201 }));
    await createLead({ backendUrl: 'https://api.example.test', anonKey: 'k3y' }, payload, undefined, fetchImpl);

    expect(calls).toHaveLength(1);
    const [{ url, init }] = calls;
    expect(url).toBe('https://api.example.test/rest/v1/CRN');
    expect(init.method).toBe('POST');
    expect(init.headers).toEqual({
      'Content-Type': 'application/json',
      apikey: 'k3y',
      Authorization: 'Bearer k3y',
      Prefer: 'return=minimal',
    });
    expect(init.body).toBe(
      '{"name":"Олена","phone":"+380671234567","confirmation":"Так","comment":null}',
    );
    expect(init.signal).toBeInstanceOf(AbortSignal);
  });

  it('with a page-load proof, adds it, its work and the automation flags as headers, nothing else changed', async () => {
    const endpoint = { backendUrl: 'https://api.example.test', anonKey: 'k3y' };
    const { calls, fetchImpl } = recordingFetch(async () => new Response(null, { status: 201 }));
    await createLead(endpoint, payload, { proof: 'p.r00f', flags: [] }, fetchImpl);
    await createLead(endpoint, payload, { proof: 'p.r00f', flags: ['honeypot', 'webdriver'] }, fetchImpl);
    await createLead(endpoint, payload, { proof: 'p.r00f', work: '1234', flags: [] }, fetchImpl);

    const base = { 'Content-Type': 'application/json', apikey: 'k3y', Authorization: 'Bearer k3y', Prefer: 'return=minimal' };
    // No flags header when there is nothing to flag.
    expect(calls[0].init.headers).toEqual({ ...base, 'X-Zayavka-Proof': 'p.r00f' });
    expect(calls[1].init.headers).toEqual({ ...base, 'X-Zayavka-Proof': 'p.r00f', 'X-Zayavka-Flags': 'honeypot webdriver' });
    expect(calls[2].init.headers).toEqual({ ...base, 'X-Zayavka-Proof': 'p.r00f', 'X-Zayavka-Work': '1234' });
    for (const { url, init } of calls) {
      expect(url).toBe('https://api.example.test/rest/v1/CRN');
      expect(init.body).toBe('{"name":"Олена","phone":"+380671234567","confirmation":"Так","comment":null}');
    }
  });

  it('rejects with the status and body on a non-2xx answer', async () => {
    const body = '{"code":"23502","message":"null value","details":null,"hint":null}';
    const { fetchImpl } = recordingFetch(async () => new Response(body, { status: 400 }));
    const error = await createLead({ backendUrl: '', anonKey: 'k' }, payload, undefined, fetchImpl).catch((e) => e);
    expect(error).toBeInstanceOf(LeadRequestError);
    expect(error.status).toBe(400);
    expect(error.body).toBe(body);
  });

  it('passes a network error on', async () => {
    const { fetchImpl } = recordingFetch(() => Promise.reject(new TypeError('Failed to fetch')));
    await expect(createLead({ backendUrl: '', anonKey: 'k' }, payload, undefined, fetchImpl)).rejects.toThrow(
      'Failed to fetch',
    );
  });
});

describe('refusalDetails', () => {
  const refused = (status: number, body: string) => new LeadRequestError(status, body);
  const details = "Поле «Коментар» задовге: не більше 1000 символів.";

  it("gives the server's explanation of a refused lead (400 with PostgREST details)", () => {
    for (const code of ['23502', '23514']) {
      const body = JSON.stringify({ code, message: 'violates constraint', details: ` ${details} `, hint: null });
      expect(refusalDetails(refused(400, body))).toBe(details);
    }
  });

  it('is null when there is nothing the visitor could change', () => {
    const body = (value: unknown) => JSON.stringify({ code: '23514', message: 'm', details: value, hint: null });
    expect(refusalDetails(refused(400, body(null)))).toBeNull();
    expect(refusalDetails(refused(400, body('  ')))).toBeNull();
    expect(refusalDetails(refused(400, body(['a'])))).toBeNull();
    expect(refusalDetails(refused(400, 'not json'))).toBeNull();
    expect(refusalDetails(refused(400, 'null'))).toBeNull();
    expect(refusalDetails(refused(400, ''))).toBeNull();
    // Other statuses may pass if tried again (503 also carries details: "try again").
    expect(refusalDetails(refused(503, body('Сервер тимчасово не може зберегти заявку.')))).toBeNull();
    expect(refusalDetails(refused(401, '{"message":"Invalid API key"}'))).toBeNull();
    expect(refusalDetails(new TypeError('Failed to fetch'))).toBeNull();
    expect(refusalDetails(undefined)).toBeNull();
  });
});

describe('createLead with attribution', () => {
  const endpoint = { backendUrl: '', anonKey: 'k' };
  const attributed = { ...payload, attribution: { utm_source: 'viber', referrer: 't.me' } };

  it('sends the attribution as optional columns', async () => {
    const { calls, fetchImpl } = recordingFetch(async () => new Response(null, { status: 201 }));
    await createLead(endpoint, attributed, undefined, fetchImpl);
    expect(JSON.parse(String(calls[0].init.body))).toEqual({
      name: 'Олена',
      phone: '+380671234567',
      confirmation: 'Так',
      comment: null,
      utm_source: 'viber',
      referrer: 't.me',
    });
  });

  it('goes again without it when the table has no such columns (an older hosted Supabase schema)', async () => {
    const unknown = JSON.stringify({ code: 'PGRST204', message: "Could not find the 'utm_source' column", details: null, hint: null });
    let n = 0;
    const { calls, fetchImpl } = recordingFetch(async () => (n++ === 0 ? new Response(unknown, { status: 400 }) : new Response(null, { status: 201 })));
    await createLead(endpoint, attributed, undefined, fetchImpl);
    expect(calls).toHaveLength(2);
    expect(JSON.parse(String(calls[1].init.body))).toEqual({ name: 'Олена', phone: '+380671234567', confirmation: 'Так', comment: null });
  });

  it('does not send twice for any other refusal', async () => {
    const { calls, fetchImpl } = recordingFetch(async () => new Response('{"code":"23514"}', { status: 400 }));
    await expect(createLead(endpoint, attributed, undefined, fetchImpl)).rejects.toThrow(LeadRequestError);
    expect(calls).toHaveLength(1);
  });
});
