// An API client's stories: the official @supabase/supabase-js talks to the running zayavka server
// exactly as it would talk to a hosted Supabase project (README, "Leads in a hosted Supabase project").
import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { ANON_KEY, expect, test } from '../support/fixtures';

// Node 20 has no global WebSocket; supabase-js' realtime client needs one even when unused.
const client = (url: string, key: string) =>
  createClient(url, key, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as never },
  });

const olena = { name: 'Олена Коваль', phone: '+380 67 123 45 67', confirmation: 'Так', comment: null };

test('an inserted lead is stored trimmed, with an empty comment as null', async ({ server }) => {
  const supabase = client(server.baseURL, ANON_KEY);

  const { error, status } = await supabase.from('CRN').insert({
    name: '  Олена Коваль ',
    phone: ' +380 67 123 45 67\t',
    confirmation: 'Так',
    comment: '   ',
  });

  expect(error).toBeNull();
  expect(status).toBe(201);
  const leads = await server.leads();
  expect(leads).toHaveLength(1);
  expect(leads[0]).toMatchObject(olena);
  expect(leads[0].id).toEqual(expect.any(Number));
  expect(Number.isNaN(Date.parse(leads[0].created_at))).toBe(false);
});

test('a bulk insert with .select() returns both stored rows', async ({ server }) => {
  const supabase = client(server.baseURL, ANON_KEY);
  const petro = { name: 'Петро Іваненко', phone: '050 111 22 33', confirmation: 'Ні', comment: 'Після 18:00, будь ласка' };

  const { data, error } = await supabase.from('CRN').insert([olena, petro]).select();

  expect(error).toBeNull();
  expect(data).toHaveLength(2);
  expect(data![0]).toMatchObject(olena);
  expect(data![1]).toMatchObject(petro);
  for (const row of data!) {
    expect(row.id).toEqual(expect.any(Number));
    expect(Number.isNaN(Date.parse(row.created_at))).toBe(false);
  }
  expect(data![0].id).not.toBe(data![1].id);
  const leads = await server.leads();
  expect(leads.map((lead) => lead.id)).toEqual(data!.map((row: { id: number }) => row.id));
});

test('a wrong key is refused with 401 "Invalid API key", no key with "No API key found in request"', async ({ server }) => {
  const { error, status } = await client(server.baseURL, 'not-the-key').from('CRN').insert(olena);
  expect(status).toBe(401);
  expect(error?.message).toBe('Invalid API key');

  const res = await fetch(`${server.baseURL}/rest/v1/CRN`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(olena),
  });
  expect(res.status).toBe(401);
  expect(await res.json()).toMatchObject({ message: 'No API key found in request' });

  expect(await server.leads()).toEqual([]);
});

test('a lead without a phone is refused as a not-null violation (23502) and not stored', async ({ server }) => {
  const supabase = client(server.baseURL, ANON_KEY);

  const { error, status } = await supabase
    .from('CRN')
    .insert({ name: 'Олена', confirmation: 'Так', comment: null });

  expect(status).toBeGreaterThanOrEqual(400);
  expect(error?.code).toBe('23502');
  expect(error?.message).toContain('phone');
  expect(await server.leads()).toEqual([]);
});

test('the anonymous key can neither read, delete nor update leads', async ({ server }) => {
  const supabase = client(server.baseURL, ANON_KEY);
  expect((await supabase.from('CRN').insert(olena)).error).toBeNull();
  const before = await server.leads();
  expect(before).toHaveLength(1);

  const read = await supabase.from('CRN').select('*');
  expect(read.error).toBeNull();
  expect(read.data).toEqual([]);

  const deleted = await supabase.from('CRN').delete().gt('id', 0).select();
  expect(deleted.error).toBeNull();
  expect(deleted.data).toEqual([]);

  const updated = await supabase.from('CRN').update({ name: 'Хтось інший', phone: '000' }).gt('id', 0);
  expect(updated.error).toBeNull();

  expect(await server.leads()).toEqual(before);
});

test('a CORS preflight from another origin allows the headers supabase-js sends', async ({ server }) => {
  const requested = 'apikey,authorization,content-type,prefer,x-client-info';

  const res = await fetch(`${server.baseURL}/rest/v1/CRN`, {
    method: 'OPTIONS',
    headers: {
      Origin: 'https://partner.example.org',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': requested,
    },
  });

  expect(res.status).toBeLessThan(300);
  const origin = res.headers.get('access-control-allow-origin');
  expect(['*', 'https://partner.example.org']).toContain(origin);
  expect(res.headers.get('access-control-allow-methods')?.toUpperCase()).toContain('POST');
  const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
  for (const header of requested.split(',')) expect(allowed).toContain(header);
});

test('every other path under /rest/v1 answers with a JSON error', async ({ server }) => {
  for (const path of ['/rest/v1/rpc/erase_me', '/rest/v1/', '/rest/v1/CRN/1']) {
    for (const method of ['GET', 'POST']) {
      const res = await fetch(`${server.baseURL}${path}`, {
        method,
        headers: { apikey: ANON_KEY, 'Content-Type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      expect(res.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(res.headers.get('content-type'), `${method} ${path}`).toMatch(/json/);
      expect(await res.json(), `${method} ${path}`).toHaveProperty('message');
    }
  }
});

test.describe('where a supabase-js insert ends up (issue 24): it carries no page-load proof', () => {
  test('by default it is stored and answered 201 as usual, but held for review as no_proof', async ({ server }) => {
    const { error, status } = await client(server.baseURL, ANON_KEY).from('CRN').insert(olena);

    expect(error).toBeNull();
    expect(status).toBe(201);
    expect(await server.leads()).toMatchObject([{ ...olena, held: ['no_proof'] }]);
  });

  test.describe('on a deployment whose form is a supabase-js site (ZAYAVKA_HOLD_WITHOUT_PROOF=false)', () => {
    test.use({ settings: { ZAYAVKA_HOLD_WITHOUT_PROOF: 'false', ZAYAVKA_MIN_FILL_SECONDS: null, ZAYAVKA_RATE_LIMIT_PER_MINUTE: null } });

    test('a person sending through it lands in the call list', async ({ server }) => {
      const { error, status } = await client(server.baseURL, ANON_KEY).from('CRN').insert(olena);

      expect(error).toBeNull();
      expect(status).toBe(201);
      expect(await server.leads()).toMatchObject([{ ...olena, held: null }]);
    });
  });
});
