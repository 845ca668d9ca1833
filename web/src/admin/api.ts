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

/** The person asked to be called at a time of their own: an outcome that always comes with that time. */
export type CallBack = 'call_back';

/** The call list's filters: `mine` and `free` are open leads the operator has, or nobody has. */
export type Filter = 'all' | 'open' | 'overdue' | 'mine' | 'free';

/**
 * What `GET /admin/api/leads` lists: the call list, filtered, the leads held for review, or the
 * calls to make now in their order (`due`).
 */
export type ListFilter = Filter | 'held' | 'due';

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
  | 'automation'
  | 'no_work';

/** What an account may do (docs/admin-api.md, "The team"): admins also export, erase, manage the team. */
export type Role = 'admin' | 'operator';

export interface Session {
  email: string;
  role: Role;
  csrf_token: string;
  /** `required`: the server lets an account without one only set it up (ZAYAVKA_REQUIRE_2FA). */
  second_factor: { on: boolean; required: boolean };
}

/** The signed-in account's second factor, as `GET /admin/api/second-factor` tells it. */
export interface SecondFactorStatus {
  on: boolean;
  required: boolean;
  recovery_codes_left: number;
}

/** A new secret for an authenticator app: to type in, and the same as a QR code (an SVG data URL). */
export interface Enrolment {
  secret: string;
  uri: string;
  qr: string;
}

/** An account of the inbox, as `GET /admin/api/operators` lists it. */
export interface Account {
  email: string;
  role: Role;
  created_at: string;
  /** Whether the account signs in with a second factor. */
  second_factor: boolean;
}

/** What the audit trail records (the server may add more; the inbox shows an unknown one as its code). */
export type AuditAction =
  | 'signed_in'
  | 'sign_in_failed'
  | 'opened_lead'
  | 'exported'
  | 'erased'
  | 'released'
  | 'added_operator'
  | 'changed_role'
  | 'removed_operator'
  | 'second_factor_on'
  | 'second_factor_reset'
  | 'handed_over'
  | 'listed_leads'
  | 'took_lead'
  | 'gave_back'
  | 'recorded_call'
  | 'resent_notification'
  | 'dropped_notification'
  | 'added_closed_day'
  | 'removed_closed_day';

/** One entry of the audit trail: never a visitor's name, phone or comment. */
export interface AuditEntry {
  id: number;
  at: string;
  /** The account's e-mail (for a failed sign-in, what was typed), or `command line (USER)`. */
  actor: string;
  action: string;
  lead_id: number | null;
  detail: string | null;
  /** The client's address; null from the command line. */
  address: string | null;
}

export interface AuditPage {
  entries: AuditEntry[];
  next_before_id: number | null;
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
  /** Where the lead came from, when the landing page knew (its own utm_* and the linking site). */
  utm_source?: string | null;
  utm_medium?: string | null;
  utm_campaign?: string | null;
  utm_content?: string | null;
  utm_term?: string | null;
  referrer?: string | null;
}

/** A lead as the inbox shows it: the record plus where it stands with the 48 hours. */
export interface LeadView extends LeadRecord {
  open: boolean;
  deadline_at: string | null;
  /** Who has the lead now (took it before calling, or was handed it); null: nobody. */
  claimed_by?: string | null;
  /** Until when they took it; null for a lead handed to them (no end). */
  claimed_until?: string | null;
  /** When the lead is to be called (due at once on arrival; moved by calls); null once closed, or held. */
  next_call_at?: string | null;
  /** Its 48 hours end in or just after days off (optional until every server sends it). */
  at_risk?: boolean;
  /** When the admins were told nobody had tried it; null: not escalated. */
  escalated_at?: string | null;
  /** The person sent the form again while it was open: when last, with that submission's comment. */
  wrote_again?: { at: string; comment: string | null } | null;
}

/** The figures per source and per operator over 30 days (`GET /admin/api/stats/breakdown`). */
export interface Breakdown {
  now: string;
  /** `source`: utm_source, else the linking site's host; null: came directly. Most leads first. */
  sources: { source: string | null; leads: number; reached: number }[];
  /** Every account for an admin, one's own for an operator. */
  operators: { email: string; calls: number; reached: number }[];
}

/**
 * One group's promise figures: waits in whole minutes from the lead's arrival (null where no lead
 * of the group has one); the share of the leads whose 48 hours are over (or that were reached)
 * reached within them.
 */
export interface PromiseRow {
  leads: number;
  attempted: number;
  first_attempt_median_minutes: number | null;
  first_attempt_p90_minutes: number | null;
  reached: number;
  reach_median_minutes: number | null;
  reach_p90_minutes: number | null;
  due: number;
  reached_in_time: number;
  reached_in_time_share: number | null;
}

/** How the 48-hour promise is kept over 30 days (`GET /admin/api/stats/promise`). */
export interface PromiseFigures {
  now: string;
  since: string;
  until: string;
  promise_hours: number;
  overall: PromiseRow;
  /** A lead counts for whoever called it first; `operator` null: nobody has called yet. An operator sees their own row. */
  by_operator: (PromiseRow & { operator: string | null })[];
  /** `source`: utm_source, else the linking site's host; null: came directly. */
  by_source: (PromiseRow & { source: string | null })[];
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

/** A channel with notifications not delivered yet, on the admins' "Сповіщення" screen. */
export interface NotificationChannel extends ChannelQueue {
  /** False: the channel is no longer set up, so what waits for it is never tried again. */
  configured: boolean;
}

/** One notification not delivered yet (`GET /admin/api/notifications`). */
export interface PendingNotification {
  id: number;
  lead_id: number;
  /** `new`, `reminder`, `overdue` (the server may add more). */
  event: string;
  channel: string;
  created_at: string;
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
}

export interface Notifications {
  channels: NotificationChannel[];
  /** The next to be tried first. */
  notifications: PendingNotification[];
}

/** A day the team does not work (`GET /admin/api/closed-days`). */
export interface ClosedDay {
  /** `YYYY-MM-DD`, Kyiv. */
  day: string;
  note: string | null;
  /** `settings`: ZAYAVKA_CLOSED_DAYS, changed only there; `inbox`: the admins' list. */
  source: 'settings' | 'inbox';
  /** For an inbox day: who added it, and when. */
  added_by: string | null;
  added_at: string | null;
}

export interface ClosedDays {
  /** Today in Kyiv: the earliest day that may be added. */
  today: string;
  /** From today on, earliest first. */
  days: ClosedDay[];
}

/**
 * An answer with the server's clock, and when it arrived by this device's clock (ms since the
 * epoch): together they give the server's time later on (`useServerNow`).
 */
export type Received<T extends { now: string }> = T & { receivedAt: number };

/** Stamps an answer with the time it arrived. */
async function received<T extends { now: string }>(answer: Promise<T>): Promise<Received<T>> {
  const body = await answer;
  return { ...body, receivedAt: Date.now() };
}

export const EXPORT_CSV_URL = '/admin/api/export.csv';
export const EXPORT_XLSX_URL = '/admin/api/export.xlsx';

/** What an error answer may flag besides its sentence (docs/admin-api.md). */
export type ErrorFlag = 'code_required' | 'second_factor_required';

/** The server answered with an error status; `message` is its `error` sentence (or our fallback). */
export class ApiError extends Error {
  readonly status: number;
  /** `code_required`: the password was right, the second factor's code is asked. */
  readonly flags: readonly ErrorFlag[];
  constructor(status: number, message: string, flags: readonly ErrorFlag[] = []) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.flags = flags;
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
  method?: 'GET' | 'POST' | 'DELETE';
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

/** Reads an attachment; `fallback` names it if the server gave no name. */
function fileReader(fallback: string) {
  return async (res: Response): Promise<SavedFile> => {
    const disposition = res.headers.get('Content-Disposition') ?? '';
    const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallback;
    return { blob: await res.blob(), filename };
  };
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
  if (!res.ok) throw await serverError(res);
  return read(res);
}

const ERROR_FLAGS: readonly ErrorFlag[] = ['code_required', 'second_factor_required'];

/** An error answer's `error` sentence and flags; a proxy's HTML page or an empty body gets ours. */
async function serverError(res: Response): Promise<ApiError> {
  try {
    const body: unknown = await res.json();
    if (typeof body === 'object' && body !== null && 'error' in body) {
      const { error } = body;
      const flags = ERROR_FLAGS.filter((flag) => (body as Record<string, unknown>)[flag] === true);
      if (typeof error === 'string' && error.trim() !== '') return new ApiError(res.status, error, flags);
    }
  } catch {
    // not JSON: fall through
  }
  return new ApiError(res.status, `Сервер відповів помилкою (${res.status}). Спробуйте ще раз.`);
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

/**
 * Signs in; a wrong password (401) or too many tries (429) reject with the server's sentence. An
 * account with a second factor answers the password alone with 401 and `codeRequired`: sign in
 * again with the app's code (or a recovery code) as `code`.
 */
export function login(email: string, password: string, code?: string): Promise<Session> {
  const body = code === undefined ? { email, password } : { email, password, code };
  return request<Session>('/admin/api/login', { method: 'POST', body });
}

/**
 * Creates the first operator with the first start's setup token and signs them in; a used or
 * expired link (404) or an account the server refuses (400) rejects with the server's sentence.
 */
export function setup(token: string, email: string, password: string): Promise<Session> {
  return request<Session>('/admin/api/setup', { method: 'POST', body: { token, email, password } });
}

/** Whether a session may export, erase and manage the team. */
export function isAdmin(session: Pick<Session, 'role'>): boolean {
  return session.role === 'admin';
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
 * (a POST or a DELETE) may mean the operator signed in again in another tab (a new session, a new
 * CSRF token): the token is read again and the change tried once more.
 */
export function createClient(csrf: string, onUnauthorized: () => void) {
  let token = csrf;
  async function call<T>(
    path: string,
    options: RequestOptions = {},
    read: (res: Response) => Promise<T> = readJson,
  ): Promise<T> {
    const change = options.method === 'POST' || options.method === 'DELETE';
    try {
      try {
        return await request<T>(path, change ? { ...options, csrf: token } : options, read);
      } catch (error) {
        if (!(change && error instanceof ApiError && error.status === 403)) throw error;
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
    leads: (query: LeadQuery, signal?: AbortSignal) => received(call<LeadPage>(leadsPath(query), { signal })),
    lead: (id: string, signal?: AbortSignal) => received(call<LeadDetail>(`/admin/api/leads/${id}`, { signal })),
    stats: (signal?: AbortSignal) => call<Stats>('/admin/api/stats', { signal }),
    recordAttempt: (id: number, outcome: Outcome, note: string) =>
      received(call<LeadDetail>(`/admin/api/leads/${id}/attempts`, { method: 'POST', body: { outcome, note } })),
    /** The person asked to be called at `at` (RFC 3339): the lead stays open and is due then. */
    recordCallBack: (id: number, at: string, note: string) =>
      received(
        call<LeadDetail>(`/admin/api/leads/${id}/attempts`, {
          method: 'POST',
          body: { outcome: 'call_back' satisfies CallBack, note, call_back_at: at },
        }),
      ),
    /** "Я телефоную": 409 when someone else has it, it is closed or held. */
    take: (id: number) => received(call<LeadDetail>(`/admin/api/leads/${id}/take`, { method: 'POST' })),
    /** Puts a lead the operator has back in the pool; 409 when it is not theirs. */
    giveBack: (id: number) => received(call<LeadDetail>(`/admin/api/leads/${id}/give-back`, { method: 'POST' })),
    /** Hands a lead to an account, or (null) back to the pool (admins). */
    assign: (id: number, email: string | null) =>
      received(call<LeadDetail>(`/admin/api/leads/${id}/assign`, { method: 'POST', body: { email } })),
    breakdown: (signal?: AbortSignal) => call<Breakdown>('/admin/api/stats/breakdown', { signal }),
    promise: (signal?: AbortSignal) => call<PromiseFigures>('/admin/api/stats/promise', { signal }),
    /** Moves a held lead to the call list; 404 when it is not held (any more). */
    release: (id: number) => received(call<LeadDetail>(`/admin/api/leads/${id}/release`, { method: 'POST' })),
    erase: (phone: string) => call<{ erased: number }>('/admin/api/erase', { method: 'POST', body: { phone } }),
    /**
     * The CSV export, fetched rather than followed as a link: a session that has ended or a failed
     * export then says so in the inbox instead of saving its error answer as the file.
     */
    exportCsv: () => call(EXPORT_CSV_URL, {}, fileReader('zayavky.csv')),
    /** The same leads as an Excel workbook, fetched the same way. */
    exportXlsx: () => call(EXPORT_XLSX_URL, {}, fileReader('zayavky.xlsx')),
    /** The accounts, oldest first (admins). */
    accounts: (signal?: AbortSignal) => call<{ operators: Account[] }>('/admin/api/operators', { signal }),
    /** 400 with the reason (address, password, role), 409 when the e-mail has an account. */
    addAccount: (email: string, password: string, role: Role) =>
      call<{ email: string; role: Role }>('/admin/api/operators', { method: 'POST', body: { email, password, role } }),
    /** 404 no such account, 409 the last admin. */
    setRole: (email: string, role: Role) =>
      call<{ email: string; role: Role }>('/admin/api/operators/role', { method: 'POST', body: { email, role } }),
    /** 404 no such account, 409 the last admin. */
    removeAccount: (email: string) => call<void>('/admin/api/operators/remove', { method: 'POST', body: { email } }),
    secondFactor: (signal?: AbortSignal) => call<SecondFactorStatus>('/admin/api/second-factor', { signal }),
    /** A new secret for the app; 409 when the account has a second factor already. */
    startSecondFactor: () => call<Enrolment>('/admin/api/second-factor/start', { method: 'POST' }),
    /** The app's first code turns it on: the recovery codes, shown once. 400 for a wrong code. */
    confirmSecondFactor: (code: string) =>
      call<{ recovery_codes: string[] }>('/admin/api/second-factor/confirm', { method: 'POST', body: { code } }),
    /** The audit trail, newest first (admins). */
    audit: (beforeId: number | null, signal?: AbortSignal) =>
      call<AuditPage>(beforeId == null ? '/admin/api/audit' : `/admin/api/audit?before_id=${beforeId}`, { signal }),
    /** What the channels have not delivered yet (admins). */
    notifications: (signal?: AbortSignal) => call<Notifications>('/admin/api/notifications', { signal }),
    /** Tries a notification again now; 404 once it is sent or dropped. */
    sendAgain: (id: number) => call<void>(`/admin/api/notifications/${id}/send-again`, { method: 'POST' }),
    /** Drops a notification for good (recorded in the audit trail); 404 once it is sent or dropped. */
    dropNotification: (id: number) => call<void>(`/admin/api/notifications/${id}/drop`, { method: 'POST' }),
    /** The days off from today on: the settings' and the admins' list. */
    closedDays: (signal?: AbortSignal) => call<ClosedDays>('/admin/api/closed-days', { signal }),
    /** Closes a day (admins); `added` is false when it was closed already. 400 for a bad or past day. */
    addClosedDay: (day: string, note: string) =>
      call('/admin/api/closed-days', { method: 'POST', body: { day, note } }, async (res) => ({
        day: (await res.json()) as ClosedDay,
        added: res.status === 201,
      })),
    /** Opens a day of the admins' list again; 404 when it is not on it, 409 for a settings day. */
    removeClosedDay: (day: string) => call<void>(`/admin/api/closed-days/${day}`, { method: 'DELETE' }),
  };
}

export type Client = ReturnType<typeof createClient>;
