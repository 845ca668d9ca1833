// Test support (not shipped: nothing in the app imports it): recorded answers shaped as
// docs/admin-api.md says, and a stand-in for `fetch` that routes by method and path and records
// every request the inbox makes.
import { vi } from 'vitest';
import type {
  Account,
  AccountRole,
  Accounts,
  Attempt,
  AuditEntry,
  AuditPage,
  ChannelQueue,
  Erased,
  LeadDetail,
  LeadPage,
  LeadRecord,
  LeadView,
  Notifications,
  PendingNotification,
  PromiseFigures,
  PromiseRow,
  Role,
  Session,
  Stats,
} from './api';
import type { ErrorBody } from './generated/wire';

export const NOW = '2026-11-22T04:02:30.000000Z';
export const CSRF = 'csrf-7f3a9c';
/** The first account: an admin (as `zayavka admin add-user` without `--role` makes it). */
export const SESSION: Session = {
  email: 'operator@example.org',
  role: 'admin',
  csrf_token: CSRF,
  second_factor: { on: false, required: false },
};
/** An account that works leads only: no export, no erasure, no team, no audit trail. */
export const OPERATOR_SESSION: Session = { ...SESSION, email: 'anna@example.org', role: 'operator' };

/** What every lead answer carries that the leads below leave as nobody's, unmarked and unattributed. */
const UNMARKED = {
  claimed_by: null,
  claimed_until: null,
  at_risk: false,
  escalated_at: null,
  retries_used_up: false,
  wrote_again: null,
  utm_source: null,
  utm_medium: null,
  utm_campaign: null,
  utm_content: null,
  utm_term: null,
  referrer: null,
} satisfies Partial<LeadView>;

/** Open, 5 h 12 min 30 s left at NOW; sent 20.11.2026, 11:15 Kyiv time. */
export const LEAD_OPEN: LeadView = {
  ...UNMARKED,
  id: 42,
  created_at: '2026-11-20T09:15:00.000000Z',
  name: 'Олена',
  phone: '067 123 45 67',
  phone_e164: '+380671234567',
  confirmation: 'Так',
  comment: null,
  status: 'attempt_1',
  open: true,
  deadline_at: '2026-11-22T09:15:00.000000Z',
  reached_at: null,
  attempt_count: 1,
  policy_version: '3f2a9b0c41d2e7aa',
  repeat_of: null,
  repeat_count: 0,
  held: null,
  // Its retry after the first call came due a minute before NOW.
  next_call_at: '2026-11-22T04:01:30.000000Z',
};

/** Open and 3 h 4 min 30 s past its deadline at NOW; due since it came. */
export const LEAD_OVERDUE: LeadView = {
  ...UNMARKED,
  id: 41,
  created_at: '2026-11-20T00:58:00.000000Z',
  name: 'Петро',
  phone: '+38 050 765 43 21',
  phone_e164: '+380507654321',
  confirmation: 'Ні',
  comment: 'Дзвонити після 18:00',
  status: 'new',
  open: true,
  deadline_at: '2026-11-22T00:58:00.000000Z',
  reached_at: null,
  attempt_count: 0,
  policy_version: '3f2a9b0c41d2e7aa',
  repeat_of: null,
  repeat_count: 0,
  held: null,
  next_call_at: '2026-11-20T00:58:00.000000Z',
};

/** Reached: closed, so its deadline no longer shows (and it is not to be called). */
export const LEAD_CLOSED: LeadView = {
  ...UNMARKED,
  id: 40,
  created_at: '2026-11-19T08:00:00.000000Z',
  name: 'Ірина',
  phone: '0931112233',
  phone_e164: '+380931112233',
  confirmation: 'Так',
  comment: null,
  status: 'interested',
  open: false,
  deadline_at: '2026-11-21T08:00:00.000000Z',
  reached_at: '2026-11-19T10:30:00.000000Z',
  attempt_count: 1,
  policy_version: '3f2a9b0c41d2e7aa',
  repeat_of: null,
  repeat_count: 0,
  held: null,
  next_call_at: null,
};

/**
 * Held for review: sent without the page (no proof) and with a number that cannot exist. Its
 * deadline would have passed long ago were it on the clock.
 */
export const LEAD_HELD: LeadView = {
  ...UNMARKED,
  id: 45,
  created_at: '2026-11-18T22:40:00.000000Z',
  name: 'Bot Botenko',
  phone: '+380001234567',
  phone_e164: '+380001234567',
  confirmation: 'Так',
  comment: 'buy now',
  status: 'new',
  open: true,
  deadline_at: '2026-11-20T22:40:00.000000Z',
  reached_at: null,
  attempt_count: 0,
  policy_version: '3f2a9b0c41d2e7aa',
  repeat_of: null,
  repeat_count: 0,
  held: ['no_proof', 'impossible_number'],
  next_call_at: null,
};

/** Held only because it came too fast from a headless browser; a person's, as it turns out. */
export const LEAD_HELD_PERSON: LeadView = {
  ...LEAD_HELD,
  id: 44,
  created_at: '2026-11-21T18:05:00.000000Z',
  name: 'Галина',
  phone: '066 555 44 33',
  phone_e164: '+380665554433',
  comment: null,
  deadline_at: '2026-11-23T18:05:00.000000Z',
  held: ['too_fast', 'automation'],
};

/** LEAD_OPEN's person wrote twice more: the same again, then with another name and a comment. */
export const LEAD_WITH_REPEATS: LeadView = { ...LEAD_OPEN, repeat_count: 2 };

/** A lead as stored: what the server sends for each later submission. */
function asRecord(lead: LeadView): LeadRecord {
  const { open, deadline_at, claimed_by, claimed_until, at_risk, ...record } = lead;
  void [open, deadline_at, claimed_by, claimed_until, at_risk];
  return record;
}

const LATER_SUBMISSIONS: LeadView[] = [
  { ...LEAD_OPEN, id: 46, created_at: '2026-11-20T09:20:00.000000Z', status: 'new', attempt_count: 0, repeat_of: 42 },
  {
    ...LEAD_OPEN,
    id: 48,
    created_at: '2026-11-21T16:30:00.000000Z',
    name: 'Олена Коваль',
    comment: 'Можна дзвонити лише після 18:00',
    status: 'new',
    attempt_count: 0,
    repeat_of: 42,
  },
];
export const REPEATS: LeadRecord[] = LATER_SUBMISSIONS.map(asRecord);

export const ATTEMPT_1: Attempt = {
  id: 7,
  at: '2026-11-21T07:00:00.000000Z',
  operator: 'anna@example.org',
  outcome: 'no_answer',
  note: 'Не бере слухавку',
};

export function leadPage(leads: LeadView[], next_before_id: number | null = null): LeadPage {
  return { now: NOW, leads, next_before_id };
}

export function leadDetail(lead: LeadView, attempts: Attempt[], repeats: LeadRecord[] = []): LeadDetail {
  return { now: NOW, lead, attempts, repeats };
}

const PROMISE_ROW: PromiseRow = {
  leads: 0,
  attempted: 0,
  first_attempt_median_minutes: null,
  first_attempt_p90_minutes: null,
  reached: 0,
  reach_median_minutes: null,
  reach_p90_minutes: null,
  due: 0,
  reached_in_time: 0,
  reached_in_time_share: null,
};

/**
 * Four leads: two called first by the session's operator (after 20 and 45 minutes, both reached,
 * one within 48 hours), one reached late after a first call by a colleague, one not called yet
 * and still within its hours.
 */
export const PROMISE: PromiseFigures = {
  now: NOW,
  since: '2026-10-23T22:00:00.000000Z',
  until: NOW,
  promise_hours: 48,
  overall: {
    leads: 4,
    attempted: 3,
    first_attempt_median_minutes: 45,
    first_attempt_p90_minutes: 2600,
    reached: 3,
    reach_median_minutes: 125,
    reach_p90_minutes: 3000,
    due: 3,
    reached_in_time: 2,
    reached_in_time_share: 2 / 3,
  },
  by_operator: [
    {
      ...PROMISE_ROW,
      operator: 'operator@example.org',
      leads: 2,
      attempted: 2,
      first_attempt_median_minutes: 33,
      first_attempt_p90_minutes: 43,
      reached: 2,
      reach_median_minutes: 73,
      reach_p90_minutes: 115,
      due: 2,
      reached_in_time: 2,
      reached_in_time_share: 1,
    },
    {
      ...PROMISE_ROW,
      operator: 'petro@example.org',
      leads: 1,
      attempted: 1,
      first_attempt_median_minutes: 2880,
      first_attempt_p90_minutes: 2880,
      reached: 1,
      reach_median_minutes: 3000,
      reach_p90_minutes: 3000,
      due: 1,
      reached_in_time_share: 0,
    },
    { ...PROMISE_ROW, operator: null, leads: 1 },
  ],
  by_source: [
    {
      ...PROMISE_ROW,
      source: 'facebook',
      leads: 3,
      attempted: 3,
      first_attempt_median_minutes: 45,
      first_attempt_p90_minutes: 2600,
      reached: 3,
      reach_median_minutes: 125,
      reach_p90_minutes: 3000,
      due: 3,
      reached_in_time: 2,
      reached_in_time_share: 2 / 3,
    },
    { ...PROMISE_ROW, source: null, leads: 1 },
  ],
};

export const STATS: Stats = {
  now: NOW,
  held: 0,
  open: 2,
  overdue: 1,
  reached_in_time: { reached: 1, due: 2 },
  per_day: Array.from({ length: 30 }, (_, i) => ({
    date: new Date(Date.UTC(2026, 9, 24 + i)).toISOString().slice(0, 10),
    count: i === 29 ? 3 : i === 28 ? 1 : 0,
  })),
  notifications: [],
};

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

export function apiError(status: number, error: string): Response {
  return json({ error } satisfies ErrorBody, status);
}

export interface Recorded {
  method: string;
  path: string;
  params: URLSearchParams;
  headers: Headers;
  body: unknown;
  credentials: RequestCredentials | undefined;
  keepalive: boolean | undefined;
}

type Handler = (request: Recorded) => Response | Promise<Response>;

let unexpected: string[] = [];

/** Call in afterEach: a request no route answered is a failure even if the page coped with it. */
export function expectNoUnexpectedRequests(): void {
  const found = unexpected;
  unexpected = [];
  if (found.length > 0) throw new Error(`unexpected requests: ${found.join(', ')}`);
}

/**
 * Stubs the global fetch. `routes` maps "METHOD /path" (no query) to an answer; any other request
 * gets a 599 and is kept for expectNoUnexpectedRequests.
 */
export function fakeServer(routes: Record<string, Handler>) {
  const requests: Recorded[] = [];
  unexpected = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://inbox.test');
    const request: Recorded = {
      method: init.method ?? 'GET',
      path: url.pathname,
      params: url.searchParams,
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : init.body,
      credentials: init.credentials,
      keepalive: init.keepalive,
    };
    requests.push(request);
    const handler = routes[`${request.method} ${request.path}`];
    if (!handler) {
      unexpected.push(`${request.method} ${url.pathname}${url.search}`);
      return apiError(599, 'no such route in the test');
    }
    return handler(request);
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    requests,
    /** The requests for one route, in order. */
    calls: (route: string) => requests.filter((r) => `${r.method} ${r.path}` === route),
  };
}

/**
 * The routes of a signed-in operator looking at LEAD_OPEN, LEAD_OVERDUE, LEAD_CLOSED: the two
 * open ones are to be called now, LEAD_OPEN's retry first (`filter=due`).
 */
export function signedInRoutes(): Record<string, Handler> {
  return {
    'GET /admin/api/session': () => json(SESSION),
    'GET /admin/api/stats': () => json(STATS),
    'GET /admin/api/stats/promise': () => json(PROMISE),
    'GET /admin/api/leads': ({ params }) =>
      json(leadPage(params.get('filter') === 'due' ? [LEAD_OPEN, LEAD_OVERDUE] : [LEAD_OPEN, LEAD_OVERDUE, LEAD_CLOSED])),
    'GET /admin/api/leads/42': () => json(leadDetail(LEAD_OPEN, [ATTEMPT_1])),
  };
}

/**
 * The routes of a signed-in operator with LEAD_HELD and LEAD_HELD_PERSON held, as the server keeps
 * them: the held view lists what is still held, stats count it, a release moves a lead to the call
 * list (404 once it is not held), an erasure removes every lead with the phone.
 */
export function heldRoutes(): Record<string, Handler> {
  const held = new Map([LEAD_HELD, LEAD_HELD_PERSON].map((lead) => [lead.id, lead]));
  const released: LeadView[] = [];
  const routes: Record<string, Handler> = {
    ...signedInRoutes(),
    'GET /admin/api/stats': () => json({ ...STATS, held: held.size } satisfies Stats),
    'GET /admin/api/leads': ({ params }) => {
      const filter = params.get('filter');
      if (filter === 'held') return json(leadPage([...held.values()]));
      return json(leadPage(filter === 'due' ? [LEAD_OPEN, LEAD_OVERDUE, ...released] : [...released, LEAD_OPEN, LEAD_OVERDUE, LEAD_CLOSED]));
    },
    'POST /admin/api/erase': ({ body }) => {
      const phone = (body as { phone: string }).phone;
      const erased = [...held.values()].filter((lead) => lead.phone === phone);
      for (const lead of erased) held.delete(lead.id);
      return json({ erased: erased.length } satisfies Erased);
    },
  };
  for (const lead of held.values()) {
    routes[`GET /admin/api/leads/${lead.id}`] = () => {
      const now = held.get(lead.id) ?? released.find((r) => r.id === lead.id);
      return now ? json(leadDetail(now, [])) : apiError(404, 'Заявку не знайдено (можливо, її видалено).');
    };
    routes[`POST /admin/api/leads/${lead.id}/release`] = () => {
      if (!held.delete(lead.id)) return apiError(404, 'Заявку не знайдено (можливо, її видалено).');
      const out = { ...lead, held: null, next_call_at: NOW };
      released.unshift(out);
      return json(leadDetail(out, []));
    };
  }
  return routes;
}

/** The routes of an admin on the "Команда" page, the accounts kept as the server keeps them. */
export function teamRoutes(): Record<string, Handler> {
  const accounts: Account[] = [
    { email: SESSION.email, role: 'admin', created_at: '2026-11-01T08:00:00.000000Z', second_factor: true },
    { email: OPERATOR_SESSION.email, role: 'operator', created_at: '2026-11-02T09:30:00.000000Z', second_factor: false },
  ];
  const admins = () => accounts.filter((a) => a.role === 'admin').length;
  const find = (email: string) => accounts.find((a) => a.email === email);
  const noSuch = () => apiError(404, 'Такого облікового запису немає.');
  const lastAdmin = () => apiError(409, 'Це останній адміністратор: спершу призначте іншого.');
  return {
    ...signedInRoutes(),
    'GET /admin/api/operators': () => json({ operators: accounts } satisfies Accounts),
    'POST /admin/api/operators': ({ body }) => {
      const { email, role } = body as { email: string; password: string; role: Role };
      if (!email.includes('@')) return apiError(400, 'Це не схоже на адресу електронної пошти.');
      if (find(email)) return apiError(409, 'Обліковий запис із цією адресою вже є.');
      accounts.push({ email, role, created_at: NOW, second_factor: false });
      return json({ email, role } satisfies AccountRole, 201);
    },
    'POST /admin/api/operators/role': ({ body }) => {
      const { email, role } = body as { email: string; role: Role };
      const account = find(email);
      if (!account) return noSuch();
      if (account.role === 'admin' && role !== 'admin' && admins() === 1) return lastAdmin();
      account.role = role;
      return json({ email, role } satisfies AccountRole);
    },
    'POST /admin/api/operators/remove': ({ body }) => {
      const { email } = body as { email: string };
      const account = find(email);
      if (!account) return noSuch();
      if (account.role === 'admin' && admins() === 1) return lastAdmin();
      accounts.splice(accounts.indexOf(account), 1);
      return new Response(null, { status: 204 });
    },
  };
}

/** `count` audit entries, newest (highest id) first, cycling through the actions. */
export function auditEntries(count: number, newestId = count): AuditEntry[] {
  return Array.from({ length: count }, (_, i) => {
    const id = newestId - i;
    return {
      id,
      at: new Date(Date.parse('2026-11-22T04:00:00.000Z') - i * 60_000).toISOString(),
      actor: 'anna@example.org',
      action: 'signed_in',
      lead_id: null,
      detail: null,
      address: '192.0.2.7',
    };
  });
}

/** The newest entries of the trail: an opened lead, an export, an account added from the command line. */
export const AUDIT_NEWEST: AuditEntry[] = [
  {
    id: 103,
    at: '2026-11-22T04:01:00.000000Z',
    actor: 'anna@example.org',
    action: 'opened_lead',
    lead_id: 42,
    detail: null,
    address: '192.0.2.7',
  },
  {
    id: 102,
    at: '2026-11-22T03:30:00.000000Z',
    actor: SESSION.email,
    action: 'exported',
    lead_id: null,
    detail: 'csv',
    address: '198.51.100.4',
  },
  {
    id: 101,
    at: '2026-11-21T22:00:00.000000Z',
    actor: 'command line (root)',
    action: 'added_operator',
    lead_id: null,
    detail: 'anna@example.org (operator)',
    address: null,
  },
];

/** The routes of an admin on the "Журнал дій" page: AUDIT_NEWEST, then `older` on the next page. */
export function auditRoutes(older: AuditEntry[]): Record<string, Handler> {
  return {
    ...signedInRoutes(),
    'GET /admin/api/audit': ({ params }): Response => {
      const page: AuditPage =
        params.get('before_id') === null
          ? { entries: AUDIT_NEWEST, next_before_id: AUDIT_NEWEST[AUDIT_NEWEST.length - 1].id }
          : { entries: older, next_before_id: null };
      return json(page);
    },
  };
}

/** Two notifications the webhook could not deliver: LEAD_OPEN's arrival and LEAD_OVERDUE's reminder. */
export const WAITING_NOTIFICATIONS: PendingNotification[] = [
  {
    id: 7,
    lead_id: 42,
    event: 'new',
    channel: 'webhook',
    created_at: '2026-11-20T09:15:00.000000Z',
    attempts: 3,
    next_attempt_at: '2026-11-22T04:10:00.000000Z',
    last_error: 'connection refused',
  },
  {
    id: 8,
    lead_id: 41,
    event: 'reminder',
    channel: 'webhook',
    created_at: '2026-11-21T20:58:00.000000Z',
    attempts: 1,
    next_attempt_at: '2026-11-22T04:20:00.000000Z',
    last_error: 'HTTP 502',
  },
];

/**
 * The routes of an admin with WAITING_NOTIFICATIONS queued, kept as the server keeps them: the
 * stats warn while any wait, send-again and drop take one off the list (404 once it is gone).
 */
export function notificationRoutes(): Record<string, Handler> {
  const waiting = new Map(WAITING_NOTIFICATIONS.map((n) => [n.id, n]));
  const channels = (): ChannelQueue[] =>
    waiting.size === 0
      ? []
      : [
          {
            channel: 'webhook',
            waiting: waiting.size,
            failing: waiting.size,
            oldest_at: [...waiting.values()][0].created_at,
            last_error: 'connection refused',
          },
        ];
  const routes: Record<string, Handler> = {
    ...signedInRoutes(),
    'GET /admin/api/stats': () => json({ ...STATS, notifications: channels() } satisfies Stats),
    'GET /admin/api/notifications': () =>
      json({
        channels: channels().map((c) => ({ ...c, configured: true })),
        notifications: [...waiting.values()],
      } satisfies Notifications),
  };
  for (const { id } of WAITING_NOTIFICATIONS) {
    const handle = () =>
      waiting.delete(id)
        ? new Response(null, { status: 204 })
        : apiError(404, 'Цього сповіщення вже немає в черзі: його надіслано або відкинуто.');
    routes[`POST /admin/api/notifications/${id}/send-again`] = handle;
    routes[`POST /admin/api/notifications/${id}/drop`] = handle;
  }
  return routes;
}
