// Test support (not shipped: nothing in the app imports it): recorded answers shaped as
// docs/admin-api.md says, and a stand-in for `fetch` that routes by method and path and records
// every request the inbox makes.
import { vi } from 'vitest';
import type { Attempt, LeadDetail, LeadPage, LeadView, Session, Stats } from './api';

export const NOW = '2026-11-22T04:02:30.000000Z';
export const CSRF = 'csrf-7f3a9c';
export const SESSION: Session = { email: 'operator@example.org', csrf_token: CSRF };

/** Open, 5 h 12 min 30 s left at NOW; sent 20.11.2026, 11:15 Kyiv time. */
export const LEAD_OPEN: LeadView = {
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
};

/** Open and 3 h 4 min 30 s past its deadline at NOW. */
export const LEAD_OVERDUE: LeadView = {
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
};

/** Reached: closed, so its deadline no longer shows. */
export const LEAD_CLOSED: LeadView = {
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
};

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

export function leadDetail(lead: LeadView, attempts: Attempt[]): LeadDetail {
  return { now: NOW, lead, attempts };
}

export const STATS: Stats = {
  now: NOW,
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
  return json({ error }, status);
}

export interface Recorded {
  method: string;
  path: string;
  params: URLSearchParams;
  headers: Headers;
  body: unknown;
  credentials: RequestCredentials | undefined;
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

/** The routes of a signed-in operator looking at LEAD_OPEN, LEAD_OVERDUE, LEAD_CLOSED. */
export function signedInRoutes(): Record<string, Handler> {
  return {
    'GET /admin/api/session': () => json(SESSION),
    'GET /admin/api/stats': () => json(STATS),
    'GET /admin/api/leads': () => json(leadPage([LEAD_OPEN, LEAD_OVERDUE, LEAD_CLOSED])),
    'GET /admin/api/leads/42': () => json(leadDetail(LEAD_OPEN, [ATTEMPT_1])),
  };
}
