// Pure functions: what the inbox shows for a status, an outcome, a reason a lead is held, a time, a
// deadline.
import type { HeldReason, LeadView, Outcome, Status } from './api';

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

export function outcomeLabel(outcome: string): string {
  return (OUTCOME_LABELS as Record<string, string>)[outcome] ?? outcome;
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
};

/** A reason the server may add later still shows, as its code, rather than nothing. */
export function heldReasonLabel(code: string): string {
  return (HELD_REASON_LABELS as Record<string, string>)[code] ?? code;
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

/** An RFC 3339 instant as Kyiv wall-clock time, e.g. "20.11.2026, 11:15". */
export function formatKyiv(iso: string): string {
  const time = parseTime(iso);
  return Number.isNaN(time) ? iso : KYIV.format(time);
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

type Clocked = Pick<LeadView, 'open' | 'deadline_at'> & Partial<Pick<LeadView, 'held' | 'repeat_of'>>;

/**
 * Whether the 48 hours run for a lead: an open one in the call list. A held lead is outside them
 * until it is released, and a repeat is answered by its person's first lead.
 */
export function onTheClock(lead: Clocked): boolean {
  return lead.open && lead.deadline_at !== null && lead.held == null && lead.repeat_of == null;
}

/** A lead on the clock whose deadline has passed at `now` (ms since the epoch, the server's clock). */
export function isOverdue(lead: Clocked, now: number): boolean {
  return onTheClock(lead) && now > parseTime(lead.deadline_at ?? '');
}

/**
 * "Залишилось 5 год 12 хв" or "Прострочено на 3 год 4 хв" for a lead on the clock; null for a
 * closed one (its 48 hours no longer matter), a held one or a repeat.
 */
export function timeLeft(lead: Clocked, now: number): string | null {
  if (!onTheClock(lead) || lead.deadline_at === null) return null;
  const left = parseTime(lead.deadline_at) - now;
  if (Number.isNaN(left)) return null;
  return left >= 0 ? `Залишилось ${formatSpan(left)}` : `Прострочено на ${formatSpan(-left)}`;
}

/** "50 % (1 з 2)", or "—" when no lead was due yet. */
export function reachedInTime({ reached, due }: { reached: number; due: number }): string {
  if (due === 0) return '—';
  return `${Math.round((reached / due) * 100)} % (${reached} з ${due})`;
}
