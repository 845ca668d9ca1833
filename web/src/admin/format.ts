// Pure functions: what the inbox shows for a status, an outcome, a reason a lead is held, a time, a
// deadline.
import type { AuditAction, CallBack, HeldReason, LeadView, Outcome, Role, Status } from './api';
import type { NotificationEvent } from './generated/wire';

export const STATUS_LABELS: Record<Status, string> = {
  new: 'Нова',
  attempt_1: 'Спроба 1',
  attempt_2: 'Спроба 2',
  attempt_3: 'Спроба 3',
  interested: "Зв'язалися: зацікавлені",
  not_interested: "Зв'язалися: не зацікавлені",
  not_eligible: "Зв'язалися: не відповідає умовам",
  unreachable: "Не вдалося зв'язатися",
};

/** In the order the attempt form offers them: the common case first, giving up last. */
export const OUTCOME_LABELS: Record<Outcome, string> = {
  no_answer: 'Не відповіли',
  interested: 'Зацікавлені',
  not_interested: 'Не зацікавлені',
  not_eligible: 'Не відповідає умовам',
  unreachable: "Не вдалося зв'язатися (закрити)",
};

export const OUTCOMES = Object.keys(OUTCOME_LABELS) as Outcome[];

/** A status the server may add later still shows, as its code, rather than nothing. */
export function statusLabel(status: string): string {
  return (STATUS_LABELS as Record<string, string>)[status] ?? status;
}

/** The outcome that comes with a time the person asked for ("Передзвонити о …" on the call desk). */
const CALL_BACK_LABELS: Record<CallBack, string> = { call_back: 'Просить передзвонити' };

export function outcomeLabel(outcome: string): string {
  return (OUTCOME_LABELS as Record<string, string>)[outcome] ?? (CALL_BACK_LABELS as Record<string, string>)[outcome] ?? outcome;
}

/** Why a lead is held, one short phrase per code, in words an operator needs no manual for. */
export const HELD_REASON_LABELS: Record<HeldReason, string> = {
  no_proof: 'Надіслано, не відкривши сторінку сайту',
  forged_proof: 'Підроблена позначка сторінки сайту',
  expired_proof: 'Сторінку сайту відкрили понад добу тому',
  reused_proof: 'З однієї сторінки надіслано кілька різних номерів',
  too_fast: 'Форму заповнено надто швидко для людини',
  honeypot: 'Заповнено приховане поле, яке людина не бачить',
  impossible_number: 'Такого номера телефону не може бути',
  burst: "Багато заявок за кілька хвилин з однієї адреси або з одним ім'ям",
  automation: 'Браузер керувала програма, а не людина',
  no_work: 'Надіслано без обчислення, яке робить сторінка сайту',
};

/** A reason the server may add later still shows, as its code, rather than nothing. */
export function heldReasonLabel(code: string): string {
  return (HELD_REASON_LABELS as Record<string, string>)[code] ?? code;
}

export const ROLE_LABELS: Record<Role, string> = {
  admin: 'Адміністратор',
  operator: 'Оператор',
};

export function roleLabel(role: string): string {
  return (ROLE_LABELS as Record<string, string>)[role] ?? role;
}

/** What an entry of the audit trail records, one noun phrase per action code. */
export const AUDIT_ACTION_LABELS: Record<AuditAction, string> = {
  signed_in: 'Вхід',
  sign_in_failed: 'Невдала спроба входу',
  opened_lead: 'Відкрито заявку',
  exported: 'Експорт заявок',
  erased: 'Видалення даних',
  released: 'Передано в роботу',
  added_operator: 'Додано обліковий запис',
  changed_role: 'Змінено роль',
  removed_operator: 'Видалено обліковий запис',
  second_factor_on: 'Увімкнено двоетапну перевірку',
  second_factor_reset: 'Скинуто двоетапну перевірку',
  handed_over: 'Передано заявку',
  listed_leads: 'Переглянуто список заявок',
  took_lead: 'Взято заявку',
  gave_back: 'Повернуто заявку',
  recorded_call: 'Записано дзвінок',
  resent_notification: 'Сповіщення надіслано ще раз',
  dropped_notification: 'Сповіщення відкинуто',
  added_closed_day: 'Додано вихідний день',
  removed_closed_day: 'Прибрано вихідний день',
  changed_password: 'Змінено пароль',
  purged: 'Видалено за строком зберігання',
};

/** An action the server may add later still shows, as its code, rather than nothing. */
export function auditActionLabel(action: string): string {
  return (AUDIT_ACTION_LABELS as Record<string, string>)[action] ?? action;
}

/** The summary line of a held lead's reasons. */
export const HELD_LABEL = 'На перевірці';

const CHANNEL_LABELS: Record<string, string> = {
  telegram: 'Telegram',
  webhook: 'Вебхук',
  email: 'Е-пошта',
};

/** A notification channel's name for people. */
export function channelLabel(channel: string): string {
  return CHANNEL_LABELS[channel] ?? channel;
}

/** Every event the server sends has a label: a new one fails the type check until it gets one. */
const NOTIFICATION_EVENT_LABELS: Record<NotificationEvent, string> = {
  new: 'Нова заявка',
  reminder: 'Нагадування',
  overdue: '48 годин минуло',
  escalated: 'Ніхто не дзвонив',
  wrote_again: 'Написав(ла) ще раз',
  call_back_due: 'Час передзвонити',
};

/** What a notification tells the team, for people (a row written by a newer version shows its code). */
export function notificationEventLabel(event: string): string {
  return NOTIFICATION_EVENT_LABELS[event as NotificationEvent] ?? event;
}

// 'Europe/Kiev', not 'Europe/Kyiv': the new name is unknown to the time zone data of older phones
// (a RangeError there); the old one is an alias everywhere and means the same zone.
const KYIV = new Intl.DateTimeFormat('uk-UA', {
  timeZone: 'Europe/Kiev',
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

/**
 * An RFC 3339 instant in ms since the epoch (NaN if it is none). The server writes microseconds;
 * `Date.parse` is only required to read milliseconds, so the extra digits are cut first.
 */
export function parseTime(iso: string): number {
  return Date.parse(iso.replace(/(\.\d{3})\d+/, '$1'));
}

const DAY_IN_WORDS = new Intl.DateTimeFormat('uk-UA', {
  timeZone: 'UTC',
  weekday: 'long',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
});

/** A calendar day (`YYYY-MM-DD`, already Kyiv's) as words, e.g. "четвер, 31 грудня 2026 р."; as given if it is none. */
export function formatDay(day: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return day;
  const [year, month, date] = match.slice(1).map(Number);
  return DAY_IN_WORDS.format(Date.UTC(year, month - 1, date));
}

/** An RFC 3339 instant as Kyiv wall-clock time, e.g. "20.11.2026, 11:15". */
export function formatKyiv(iso: string): string {
  const time = parseTime(iso);
  return Number.isNaN(time) ? iso : KYIV.format(time);
}

// Kyiv wall-clock time in parts, for reading a time typed in a field and for filling one.
const KYIV_PARTS = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/Kiev',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** Kyiv wall-clock time at `ms` (whole seconds), as if it were UTC: its distance to `ms` is Kyiv's offset. */
function kyivWallClock(ms: number): number {
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    Number(KYIV_PARTS.formatToParts(ms).find((p) => p.type === type)?.value);
  return Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
}

/**
 * A `datetime-local` field's value ("2026-11-26T14:00"), read as Kyiv wall-clock time, as an RFC
 * 3339 instant in UTC; null for anything else. Kyiv's offset (2 or 3 hours) is taken at a first
 * guess and again at the result, so a time near a clock change lands right.
 */
export function kyivToInstant(local: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (!match) return null;
  const [year, month, day, hour, minute] = match.slice(1).map(Number);
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  if (Number.isNaN(wall)) return null;
  const guess = wall - (kyivWallClock(wall) - wall);
  const at = wall - (kyivWallClock(guess) - guess);
  return new Date(at).toISOString();
}

/** The instant `ms` as a `datetime-local` value in Kyiv wall-clock time, e.g. "2026-11-26T14:00". */
export function kyivInputValue(ms: number): string {
  return new Date(kyivWallClock(Math.floor(ms / 1000) * 1000)).toISOString().slice(0, 16);
}

/** "Наступний дзвінок: 26.11.2026, 14:00" for a lead due later than `now`; null if due now, or never. */
export function nextCallText(lead: Pick<LeadView, 'next_call_at'>, now: number): string | null {
  if (!lead.next_call_at || !(parseTime(lead.next_call_at) > now)) return null;
  return `Наступний дзвінок: ${formatKyiv(lead.next_call_at)}`;
}

/** The first `max` characters of a comment, cut at a word and marked "…" when there is more. */
export function commentStart(comment: string, max = 90): string {
  const text = comment.replace(/\s+/g, ' ').trim();
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * A span in words, rounded down (never more time left than there is). Hours and minutes up to
 * 48 hours, the whole window; beyond it (only an overdue lead gets there) days and hours.
 */
export function formatSpan(ms: number): string {
  if (ms < MINUTE) return '< 1 хв';
  if (ms > 2 * DAY) return `${Math.floor(ms / DAY)} дн ${Math.floor((ms % DAY) / HOUR)} год`;
  const hours = Math.floor(ms / HOUR);
  const minutes = Math.floor((ms % HOUR) / MINUTE);
  return hours === 0 ? `${minutes} хв` : `${hours} год ${minutes} хв`;
}

type Clocked = Pick<LeadView, 'open' | 'deadline_at'> & Partial<Pick<LeadView, 'held' | 'repeat_of' | 'reached_at'>>;

/**
 * Whether the 48 hours run for a lead: an open one in the call list that no call has reached. A
 * held lead is outside them until it is released, and a repeat is answered by its person's first
 * lead. A person who answered and asked for a later call was reached: the promise was kept, and
 * the lead waits for the time agreed. (The server sends an empty deadline for a sending time it
 * cannot read.)
 */
export function onTheClock(lead: Clocked): boolean {
  return (
    lead.open && lead.deadline_at !== '' && lead.held == null && lead.repeat_of == null && lead.reached_at == null
  );
}

/** A lead on the clock whose deadline has passed at `now` (ms since the epoch, the server's clock). */
export function isOverdue(lead: Clocked, now: number): boolean {
  return onTheClock(lead) && now > parseTime(lead.deadline_at);
}

/**
 * "Залишилось 5 год 12 хв" or "Прострочено на 3 год 4 хв" for a lead on the clock; null for a
 * closed one (its 48 hours no longer matter), a held one or a repeat.
 */
export function timeLeft(lead: Clocked, now: number): string | null {
  if (!onTheClock(lead)) return null;
  const left = parseTime(lead.deadline_at) - now;
  if (Number.isNaN(left)) return null;
  return left >= 0 ? `Залишилось ${formatSpan(left)}` : `Прострочено на ${formatSpan(-left)}`;
}

/** "50 % (1 з 2)", or "—" when no lead was due yet. */
export function reachedInTime({ reached, due }: { reached: number; due: number }): string {
  if (due === 0) return '—';
  return `${Math.round((reached / due) * 100)} % (${reached} з ${due})`;
}

/**
 * Country calling codes of one and two digits (ITU-T E.164); every other code has three. The
 * assignments have stood for decades, so this short list is all a number needs to be split after
 * its code, without a numbering plan's metadata.
 */
const SHORT_CALLING_CODES = new Set([
  ...['1', '7', '20', '27', '30', '31', '32', '33', '34', '36', '39', '40', '41', '43', '44', '45', '46', '47'],
  ...['48', '49', '51', '52', '53', '54', '55', '56', '57', '58', '60', '61', '62', '63', '64', '65', '66'],
  ...['81', '82', '84', '86', '90', '91', '92', '93', '94', '95', '98'],
]);

/** The digits in groups of three, the last four as two pairs (a group of one is hard to read out). */
function groupDigits(digits: string): string[] {
  const groups: string[] = [];
  let rest = digits;
  while (rest.length > 4) {
    groups.push(rest.slice(0, 3));
    rest = rest.slice(3);
  }
  if (rest.length === 4) groups.push(rest.slice(0, 2), rest.slice(2));
  else if (rest !== '') groups.push(rest);
  return groups;
}

/**
 * A number in E.164 grouped for reading it out: a Ukrainian one as the form's placeholder shows
 * it, "+380 67 123 45 01"; another as its calling code and the rest in threes, "+48 601 234 567".
 * Null for anything that is not E.164.
 *
 * Not libphonenumber-js: its smallest metadata adds about 29 KB gzipped to the inbox's script (a
 * third more) and still writes Ukrainian numbers as "+380 67 123 4501", not as Ukrainians read
 * them. The server holds libphonenumber's metadata already (the `phonenumber` crate, for E.164);
 * a national grouping for every country belongs in its answer if operators come to need one.
 */
export function formatPhone(e164: string): string | null {
  if (!/^\+[1-9][0-9]{6,14}$/.test(e164)) return null;
  const digits = e164.slice(1);
  const ukrainian = /^380([0-9]{2})([0-9]{3})([0-9]{2})([0-9]{2})$/.exec(digits);
  if (ukrainian) return `+380 ${ukrainian.slice(1).join(' ')}`;
  const codeLength = [1, 2].find((length) => SHORT_CALLING_CODES.has(digits.slice(0, length))) ?? 3;
  return ['+' + digits.slice(0, codeLength), ...groupDigits(digits.slice(codeLength))].join(' ');
}

/** The number an operator reads and dials: the lead's E.164 grouped, or as the visitor typed it. */
export function displayPhone(lead: { phone: string; phone_e164: string }): string {
  return formatPhone(lead.phone_e164) ?? lead.phone;
}
