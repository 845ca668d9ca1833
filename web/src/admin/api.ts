// The inbox's one typed module for the server (docs/admin-api.md): every call is same-origin JSON;
// every POST but the login carries the session's CSRF token.

// The answers' shapes are generated from the server's Rust types (ADR 0034): never written here.
export type {
  Account,
  AccountRole,
  Accounts,
  Attempt,
  AuditAction,
  AuditEntry,
  AuditPage,
  Breakdown,
  ChannelQueue,
  ClosedDay,
  ClosedDays,
  Enrolment,
  Erased,
  HeldReason,
  LeadDetail,
  LeadPage,
  LeadRecord,
  LeadView,
  NotificationChannel,
  Notifications,
  PendingNotification,
  PromiseFigures,
  PromiseRow,
  RecoveryCodes,
  Role,
  SecondFactorStatus,
  Session,
  Stats,
  Status,
} from './generated/wire';
import type {
  AccountRole,
  Accounts,
  AuditPage,
  Breakdown,
  ClosedDay,
  ClosedDays,
  Enrolment,
  Erased,
  ErrorBody,
  LeadDetail,
  LeadPage,
  Notifications,
  Outcome as AnyOutcome,
  PromiseFigures,
  RecoveryCodes,
  Role,
  SecondFactorStatus,
  Session,
  Stats,
} from './generated/wire';

/** What a call came to, as the attempt form offers it; a call-back comes with a time (`CallBack`). */
export type Outcome = Exclude<AnyOutcome, 'call_back'>;

/** The person asked to be called at a time of their own: an outcome that always comes with that time. */
export type CallBack = Extract<AnyOutcome, 'call_back'>;

/** The call list's filters: `mine` and `free` are open leads the operator has, or nobody has. */
export type Filter = 'all' | 'open' | 'overdue' | 'mine' | 'free';

/**
 * What `GET /admin/api/leads` lists: the call list, filtered, the leads held for review, or the
 * calls to make now in their order (`due`).
 */
export type ListFilter = Filter | 'held' | 'due';

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
export type ErrorFlag = Exclude<keyof ErrorBody, 'error'>;

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
  /** Sent even if the page is put aside meanwhile (a phone's dialer opening over it). */
  keepalive?: boolean;
  /** Sent as `Idempotency-Key`: the same request sent again under it does its work once. */
  idempotencyKey?: string;
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
  if (options.idempotencyKey !== undefined) headers['Idempotency-Key'] = options.idempotencyKey;
  let res: Response;
  try {
    res = await fetch(path, {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'same-origin',
      signal: options.signal,
      keepalive: options.keepalive,
    });
  } catch (error) {
    if (isAbort(error) || options.signal?.aborted) throw error;
    throw new NetworkError();
  }
  if (!res.ok) throw await serverError(res);
  return read(res);
}

/** Every flag: a flag the server adds fails the type check until it is listed. */
const ERROR_FLAGS = Object.keys({
  code_required: true,
  second_factor_required: true,
} satisfies Record<ErrorFlag, true>) as readonly ErrorFlag[];

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
    /** A call; sent again under the same `key`, it is recorded once (ADR 0084). */
    recordAttempt: (id: number, outcome: Outcome, note: string, key: string) =>
      received(
        call<LeadDetail>(`/admin/api/leads/${id}/attempts`, {
          method: 'POST',
          body: { outcome, note },
          idempotencyKey: key,
        }),
      ),
    /** The person asked to be called at `at` (RFC 3339): the lead stays open and is due then. */
    recordCallBack: (id: number, at: string, note: string, key: string) =>
      received(
        call<LeadDetail>(`/admin/api/leads/${id}/attempts`, {
          method: 'POST',
          body: { outcome: 'call_back' satisfies CallBack, note, call_back_at: at },
          idempotencyKey: key,
        }),
      ),
    /** "Я телефоную": 409 when someone else has it, it is closed or held. */
    // Kept alive: a call button takes the lead as the dialer opens (`useTakeOnCall`).
    take: (id: number) =>
      received(call<LeadDetail>(`/admin/api/leads/${id}/take`, { method: 'POST', keepalive: true })),
    /** Puts a lead the operator has back in the pool; 409 when it is not theirs. */
    giveBack: (id: number) => received(call<LeadDetail>(`/admin/api/leads/${id}/give-back`, { method: 'POST' })),
    /** Hands a lead to an account, or (null) back to the pool (admins). */
    assign: (id: number, email: string | null) =>
      received(call<LeadDetail>(`/admin/api/leads/${id}/assign`, { method: 'POST', body: { email } })),
    breakdown: (signal?: AbortSignal) => call<Breakdown>('/admin/api/stats/breakdown', { signal }),
    promise: (signal?: AbortSignal) => call<PromiseFigures>('/admin/api/stats/promise', { signal }),
    /** Moves a held lead to the call list; 404 when it is not held (any more). */
    release: (id: number) => received(call<LeadDetail>(`/admin/api/leads/${id}/release`, { method: 'POST' })),
    erase: (phone: string) => call<Erased>('/admin/api/erase', { method: 'POST', body: { phone } }),
    /**
     * The CSV export, fetched rather than followed as a link: a session that has ended or a failed
     * export then says so in the inbox instead of saving its error answer as the file.
     */
    exportCsv: () => call(EXPORT_CSV_URL, {}, fileReader('zayavky.csv')),
    /** The same leads as an Excel workbook, fetched the same way. */
    exportXlsx: () => call(EXPORT_XLSX_URL, {}, fileReader('zayavky.xlsx')),
    /** The accounts, oldest first (admins). */
    accounts: (signal?: AbortSignal) => call<Accounts>('/admin/api/operators', { signal }),
    /** 400 with the reason (address, password, role), 409 when the e-mail has an account. */
    addAccount: (email: string, password: string, role: Role) =>
      call<AccountRole>('/admin/api/operators', { method: 'POST', body: { email, password, role } }),
    /** 404 no such account, 409 the last admin. */
    setRole: (email: string, role: Role) =>
      call<AccountRole>('/admin/api/operators/role', { method: 'POST', body: { email, role } }),
    /** 404 no such account, 409 the last admin. */
    removeAccount: (email: string) => call<void>('/admin/api/operators/remove', { method: 'POST', body: { email } }),
    secondFactor: (signal?: AbortSignal) => call<SecondFactorStatus>('/admin/api/second-factor', { signal }),
    /** A new secret for the app; 409 when the account has a second factor already. */
    startSecondFactor: () => call<Enrolment>('/admin/api/second-factor/start', { method: 'POST' }),
    /** The app's first code turns it on: the recovery codes, shown once. 400 for a wrong code. */
    confirmSecondFactor: (code: string) =>
      call<RecoveryCodes>('/admin/api/second-factor/confirm', { method: 'POST', body: { code } }),
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
