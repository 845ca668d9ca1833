// The inbox's one typed module for the server (docs/admin-api.md): every call is same-origin JSON;
// every POST but the login carries the session's CSRF token.

export type Status =
  | 'new'
  | 'attempt_1'
  | 'attempt_2'
  | 'attempt_3'
  | 'interested'
  | 'not_interested'
  | 'not_eligible'
  | 'unreachable';

export type Outcome = 'no_answer' | 'interested' | 'not_interested' | 'not_eligible' | 'unreachable';

/** The call list's filters. */
export type Filter = 'all' | 'open' | 'overdue';

/** What `GET /admin/api/leads` lists: the call list, filtered, or the leads held for review. */
export type ListFilter = Filter | 'held';

/** Why a lead is held for review (docs/configuration.md, "Held, never dropped"). */
export type HeldReason =
  | 'no_proof'
  | 'forged_proof'
  | 'expired_proof'
  | 'reused_proof'
  | 'too_fast'
  | 'honeypot'
  | 'impossible_number'
  | 'burst'
  | 'automation';

export interface Session {
  email: string;
  csrf_token: string;
}

/** One submission as stored. */
export interface LeadRecord {
  id: number;
  created_at: string;
  name: string;
  phone: string;
  phone_e164: string;
  confirmation: string;
  comment: string | null;
  status: Status;
  reached_at: string | null;
  attempt_count: number;
  policy_version: string;
  /** The person's first lead when this submission repeats it (same phone within the window). */
  repeat_of: number | null;
  /** The later submissions that repeat this lead. */
  repeat_count: number;
  /** Null in the call list; else why the lead is held for review (codes the server may add to). */
  held: string[] | null;
}

/** A lead as the inbox shows it: the record plus where it stands with the 48 hours. */
export interface LeadView extends LeadRecord {
  open: boolean;
  deadline_at: string | null;
}

export interface Attempt {
  id: number;
  at: string;
  operator: string;
  outcome: Outcome;
  note: string | null;
}

export interface LeadPage {
  now: string;
  leads: LeadView[];
  next_before_id: number | null;
}

export interface LeadDetail {
  now: string;
  lead: LeadView;
  attempts: Attempt[];
  /** The later submissions of the same person, oldest first. */
  repeats: LeadRecord[];
}

export interface Stats {
  now: string;
  /** Leads held for review. */
  held: number;
  open: number;
  overdue: number;
  reached_in_time: { reached: number; due: number };
  per_day: { date: string; count: number }[];
  /** What the configured channels have not delivered yet, per channel with anything waiting. */
  notifications: ChannelQueue[];
}

export interface ChannelQueue {
  channel: string;
  waiting: number;
  /** Of those waiting, the ones tried without success. */
  failing: number;
  oldest_at: string;
  last_error: string | null;
}

export const EXPORT_CSV_URL = '/admin/api/export.csv';

/** The server answered with an error status; `message` is its `error` sentence (or our fallback). */
export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

/** No answer at all: offline, DNS, a dropped connection. */
export class NetworkError extends Error {
  constructor() {
    super("Немає з'єднання з сервером. Спробуйте ще раз.");
    this.name = 'NetworkError';
  }
}

/** The sentence to show for a failed call (the server's own words when it gave some). */
export function errorText(error: unknown): string {
  if (error instanceof ApiError || error instanceof NetworkError) return error.message;
  return 'Щось пішло не так. Спробуйте ще раз.';
}

/** True when a request was cancelled on purpose (a newer search replaced it, the page closed). */
export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

interface RequestOptions {
  method?: 'GET' | 'POST';
  body?: unknown;
  csrf?: string;
  signal?: AbortSignal;
}

/** Reads a successful answer: JSON, or nothing for a 204. */
async function readJson<T>(res: Response): Promise<T> {
  return (res.status === 204 ? undefined : await res.json()) as T;
}

/** A file the server sent as an attachment, and the name it gave. */
export interface SavedFile {
  blob: Blob;
  filename: string;
}

async function readFile(res: Response): Promise<SavedFile> {
  const disposition = res.headers.get('Content-Disposition') ?? '';
  const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'zayavky.csv';
  return { blob: await res.blob(), filename };
}

async function request<T>(
  path: string,
  options: RequestOptions = {},
  read: (res: Response) => Promise<T> = readJson,
): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.csrf !== undefined) headers['X-CSRF-Token'] = options.csrf;
  let res: Response;
  try {
    res = await fetch(path, {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'same-origin',
      signal: options.signal,
    });
  } catch (error) {
    if (isAbort(error) || options.signal?.aborted) throw error;
    throw new NetworkError();
  }
  if (!res.ok) throw new ApiError(res.status, await serverError(res));
  return read(res);
}

/** The `error` sentence of an error answer; a proxy's HTML page or an empty body gets ours. */
async function serverError(res: Response): Promise<string> {
  try {
    const error: unknown = (await res.json())?.error;
    if (typeof error === 'string' && error.trim() !== '') return error;
  } catch {
    // not JSON: fall through
  }
  return `Сервер відповів помилкою (${res.status}). Спробуйте ще раз.`;
}

/** The current session, or null when nobody is signed in (401). */
export async function getSession(signal?: AbortSignal): Promise<Session | null> {
  try {
    return await request<Session>('/admin/api/session', { signal });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

/** Signs in; a wrong password (401) or too many tries (429) reject with the server's sentence. */
export function login(email: string, password: string): Promise<Session> {
  return request<Session>('/admin/api/login', { method: 'POST', body: { email, password } });
}

/**
 * Creates the first operator with the first start's setup token and signs them in; a used or
 * expired link (404) or an account the server refuses (400) rejects with the server's sentence.
 */
export function setup(token: string, email: string, password: string): Promise<Session> {
  return request<Session>('/admin/api/setup', { method: 'POST', body: { token, email, password } });
}

export interface LeadQuery {
  q: string;
  filter: ListFilter;
  beforeId?: number | null;
}

export function leadsPath({ q, filter, beforeId }: LeadQuery): string {
  const params = new URLSearchParams({ filter });
  if (q.trim() !== '') params.set('q', q.trim());
  if (beforeId != null) params.set('before_id', String(beforeId));
  return `/admin/api/leads?${params}`;
}

/**
 * The calls a signed-in operator makes. A 401 from any of them means the session is over (expired,
 * or signed out elsewhere): `onUnauthorized` runs, then the call rejects as usual. A 403 on a change
 * may mean the operator signed in again in another tab (a new session, a new CSRF token): the token
 * is read again and the change tried once more.
 */
export function createClient(csrf: string, onUnauthorized: () => void) {
  let token = csrf;
  async function call<T>(
    path: string,
    options: RequestOptions = {},
    read: (res: Response) => Promise<T> = readJson,
  ): Promise<T> {
    const post = options.method === 'POST';
    try {
      try {
        return await request<T>(path, post ? { ...options, csrf: token } : options, read);
      } catch (error) {
        if (!(post && error instanceof ApiError && error.status === 403)) throw error;
        const session = await getSession(options.signal);
        if (session === null) throw new ApiError(401, 'Увійдіть, щоб продовжити.');
        if (session.csrf_token === token) throw error;
        token = session.csrf_token;
        return await request<T>(path, { ...options, csrf: token }, read);
      }
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) onUnauthorized();
      throw error;
    }
  }
  return {
    logout: () => call<void>('/admin/api/logout', { method: 'POST' }),
    leads: (query: LeadQuery, signal?: AbortSignal) => call<LeadPage>(leadsPath(query), { signal }),
    lead: (id: string, signal?: AbortSignal) => call<LeadDetail>(`/admin/api/leads/${id}`, { signal }),
    stats: (signal?: AbortSignal) => call<Stats>('/admin/api/stats', { signal }),
    recordAttempt: (id: number, outcome: Outcome, note: string) =>
      call<LeadDetail>(`/admin/api/leads/${id}/attempts`, { method: 'POST', body: { outcome, note } }),
    /** Moves a held lead to the call list; 404 when it is not held (any more). */
    release: (id: number) => call<LeadDetail>(`/admin/api/leads/${id}/release`, { method: 'POST' }),
    erase: (phone: string) => call<{ erased: number }>('/admin/api/erase', { method: 'POST', body: { phone } }),
    /**
     * The CSV export, fetched rather than followed as a link: a session that has ended or a failed
     * export then says so in the inbox instead of saving its error answer as the file.
     */
    exportCsv: () => call(EXPORT_CSV_URL, {}, readFile),
  };
}

export type Client = ReturnType<typeof createClient>;
