import { describe, expect, it } from 'vitest';
import {
  OUTCOMES,
  auditActionLabel,
  commentStart,
  displayPhone,
  formatPhone,
  formatDay,
  formatKyiv,
  formatSpan,
  heldReasonLabel,
  isOverdue,
  kyivInputValue,
  kyivToInstant,
  nextCallText,
  notificationEventLabel,
  outcomeLabel,
  parseTime,
  reachedInTime,
  statusLabel,
  timeLeft,
} from './format';

const at = (iso: string) => Date.parse(iso);
const open = { open: true, deadline_at: '2026-11-22T09:15:00.000000Z' };

describe('labels', () => {
  it('names every status as the operators read it', () => {
    expect(
      ['new', 'attempt_1', 'attempt_2', 'attempt_3', 'interested', 'not_interested', 'not_eligible', 'unreachable'].map(
        statusLabel,
      ),
    ).toEqual([
      'Нова',
      'Спроба 1',
      'Спроба 2',
      'Спроба 3',
      "Зв'язалися: зацікавлені",
      "Зв'язалися: не зацікавлені",
      "Зв'язалися: не відповідає умовам",
      "Не вдалося зв'язатися",
    ]);
  });

  it('names every outcome, in the order the call form offers them', () => {
    expect(OUTCOMES).toEqual(['no_answer', 'interested', 'not_interested', 'not_eligible', 'unreachable']);
    expect(OUTCOMES.map(outcomeLabel)).toEqual([
      'Не відповіли',
      'Зацікавлені',
      'Не зацікавлені',
      'Не відповідає умовам',
      "Не вдалося зв'язатися (закрити)",
    ]);
  });

  it('shows a code the server may add later as it is, rather than nothing', () => {
    expect(statusLabel('callback_later')).toBe('callback_later');
    expect(outcomeLabel('voicemail')).toBe('voicemail');
  });

  it('names a call-back asked for through the API, which the call form does not offer yet', () => {
    expect(outcomeLabel('call_back')).toBe('Просить передзвонити');
    expect(OUTCOMES).not.toContain('call_back');
  });

  it("names the admins' actions on a failing channel's notifications in the audit trail", () => {
    expect(auditActionLabel('resent_notification')).toBe('Сповіщення надіслано ще раз');
    expect(auditActionLabel('dropped_notification')).toBe('Сповіщення відкинуто');
  });

  it('names the days off changed in the inbox, and writes a day as words', () => {
    expect(auditActionLabel('added_closed_day')).toBe('Додано вихідний день');
    expect(auditActionLabel('removed_closed_day')).toBe('Прибрано вихідний день');
    // A date, not an instant: the same day whatever this device's zone.
    expect(formatDay('2026-12-31')).toBe('четвер, 31 грудня 2026 р.');
    expect(formatDay('31.12.2026')).toBe('31.12.2026');
  });

  it('names what a notification tells, and shows a kind the server adds later as its code', () => {
    expect(['new', 'reminder', 'overdue', 'call_back_due', 'from_a_newer_version'].map(notificationEventLabel)).toEqual([
      'Нова заявка',
      'Нагадування',
      '48 годин минуло',
      'Час передзвонити',
      'from_a_newer_version',
    ]);
  });
});

describe('formatKyiv', () => {
  it('shows Kyiv wall-clock time in winter (UTC+2) and summer (UTC+3)', () => {
    expect(formatKyiv('2026-11-20T09:15:00.000000Z')).toBe('20.11.2026, 11:15');
    expect(formatKyiv('2026-07-20T09:15:00Z')).toBe('20.07.2026, 12:15');
  });

  it('reads the server\'s microseconds and crosses midnight into the Kyiv date', () => {
    expect(formatKyiv('2026-12-31T22:30:59.999999Z')).toBe('01.01.2027, 00:30');
  });

  it('leaves a value it cannot read as it is', () => {
    expect(formatKyiv('не дата')).toBe('не дата');
  });
});

describe('timeLeft', () => {
  it('counts down the 48 hours, rounding down', () => {
    expect(timeLeft(open, at('2026-11-22T04:02:30Z'))).toBe('Залишилось 5 год 12 хв');
    expect(timeLeft(open, at('2026-11-20T09:15:00Z'))).toBe('Залишилось 48 год 0 хв');
    expect(timeLeft(open, at('2026-11-22T08:29:59Z'))).toBe('Залишилось 45 хв');
    expect(timeLeft(open, at('2026-11-22T09:14:30Z'))).toBe('Залишилось < 1 хв');
    expect(timeLeft(open, at('2026-11-22T09:15:00Z'))).toBe('Залишилось < 1 хв');
  });

  it('says by how much an open lead is overdue', () => {
    expect(timeLeft(open, at('2026-11-22T09:15:01Z'))).toBe('Прострочено на < 1 хв');
    expect(timeLeft(open, at('2026-11-22T12:19:30Z'))).toBe('Прострочено на 3 год 4 хв');
    expect(timeLeft(open, at('2026-11-24T09:14:00Z'))).toBe('Прострочено на 47 год 59 хв');
    expect(timeLeft(open, at('2026-11-25T13:15:00Z'))).toBe('Прострочено на 3 дн 4 год');
  });

  it('is nothing for a closed lead, whose deadline no longer matters', () => {
    expect(timeLeft({ ...open, open: false }, at('2026-11-25T13:15:00Z'))).toBeNull();
    expect(timeLeft({ open: false, deadline_at: '' }, at('2026-11-25T13:15:00Z'))).toBeNull();
  });

  it('is nothing for a held lead or a repeat: neither is on the 48-hour clock', () => {
    const late = at('2026-11-25T13:15:00Z');
    expect(timeLeft({ ...open, held: ['no_proof'] }, late)).toBeNull();
    expect(timeLeft({ ...open, repeat_of: 41 }, late)).toBeNull();
    expect(isOverdue({ ...open, held: ['honeypot'] }, late)).toBe(false);
    expect(isOverdue({ ...open, repeat_of: 41 }, late)).toBe(false);
    expect(timeLeft({ ...open, held: null, repeat_of: null }, late)).toBe('Прострочено на 3 дн 4 год');
  });

  it('is nothing once a call reached the person, though the lead stays open for the time they asked for', () => {
    const late = at('2026-11-25T13:15:00Z');
    const askedForLater = { ...open, reached_at: '2026-11-21T10:00:00.000000Z' };
    expect(timeLeft(askedForLater, late)).toBeNull();
    expect(isOverdue(askedForLater, late)).toBe(false);
    expect(isOverdue({ ...open, reached_at: null }, late)).toBe(true);
  });
});

describe('isOverdue', () => {
  it('is true only for an open lead past its deadline', () => {
    expect(isOverdue(open, at('2026-11-22T09:15:00Z'))).toBe(false);
    expect(isOverdue(open, at('2026-11-22T09:15:00.001Z'))).toBe(true);
    expect(isOverdue({ ...open, open: false }, at('2026-11-23T00:00:00Z'))).toBe(false);
  });
});

describe('heldReasonLabel', () => {
  it('says every reason a lead is held in a phrase of its own, and a new code as it is', () => {
    const codes = [
      'no_proof',
      'forged_proof',
      'expired_proof',
      'reused_proof',
      'too_fast',
      'honeypot',
      'impossible_number',
      'burst',
      'automation',
      'no_work',
    ];
    const labels = codes.map(heldReasonLabel);
    expect(new Set(labels).size).toBe(codes.length);
    for (const label of labels) expect(label).toMatch(/^[А-ЯІЇЄҐ][а-яіїєґА-ЯІЇЄҐʼ' ,-]+$/);
    expect(heldReasonLabel('too_fast')).toBe('Форму заповнено надто швидко для людини');
    expect(heldReasonLabel('new_sign')).toBe('new_sign');
  });
});

describe('formatSpan', () => {
  it('switches to days only beyond the 48-hour window', () => {
    expect(formatSpan(48 * 3_600_000)).toBe('48 год 0 хв');
    expect(formatSpan(48 * 3_600_000 + 60_000)).toBe('2 дн 0 год');
    expect(formatSpan(75 * 3_600_000 + 59 * 60_000)).toBe('3 дн 3 год');
  });
});

describe('reachedInTime', () => {
  it('gives the share with the counts, rounded to a whole per cent', () => {
    expect(reachedInTime({ reached: 1, due: 2 })).toBe('50 % (1 з 2)');
    expect(reachedInTime({ reached: 2, due: 3 })).toBe('67 % (2 з 3)');
    expect(reachedInTime({ reached: 0, due: 4 })).toBe('0 % (0 з 4)');
  });

  it('is a dash when no lead was due yet', () => {
    expect(reachedInTime({ reached: 0, due: 0 })).toBe('—');
  });
});

describe('parseTime', () => {
  it("reads the server's microseconds to the millisecond, and says NaN for what is no time", () => {
    expect(parseTime('2026-11-22T09:15:00.123456Z')).toBe(Date.UTC(2026, 10, 22, 9, 15, 0, 123));
    expect(parseTime('2026-11-22T09:15:00Z')).toBe(Date.UTC(2026, 10, 22, 9, 15));
    expect(parseTime('не дата')).toBeNaN();
    expect(timeLeft({ open: true, deadline_at: 'не дата' }, 0)).toBeNull();
  });
});

describe('phone numbers for reading out', () => {
  it('groups a Ukrainian number as the form shows it: +380 67 123 45 01', () => {
    expect(formatPhone('+380671234501')).toBe('+380 67 123 45 01');
    expect(formatPhone('+380442345678')).toBe('+380 44 234 56 78');
  });

  it('splits another country\'s number after its calling code, then in threes with pairs at the end', () => {
    expect(formatPhone('+48601234567')).toBe('+48 601 234 567');
    expect(formatPhone('+4915112345678')).toBe('+49 151 123 456 78');
    expect(formatPhone('+420601123456')).toBe('+420 601 123 456');
    expect(formatPhone('+12125550123')).toBe('+1 212 555 01 23');
    expect(formatPhone('+77012345678')).toBe('+7 701 234 56 78');
    expect(formatPhone('+37360123456')).toBe('+373 601 234 56');
    expect(formatPhone('+4412345')).toBe('+44 123 45');
  });

  it('leaves a number the server kept as +digits that is no Ukrainian one grouped the general way', () => {
    expect(formatPhone('+3800012345')).toBe('+380 001 23 45');
    expect(formatPhone('+99912345678')).toBe('+999 123 456 78');
  });

  it('answers null for what is not E.164, and the lead then shows the number as typed', () => {
    for (const odd of ['', '380671234501', '+0671234501', '+38067', '+3806712345011234', '+380 67 123 45 01']) {
      expect(formatPhone(odd), odd).toBeNull();
    }
    expect(displayPhone({ phone: '067 123 45 01', phone_e164: '+380671234501' })).toBe('+380 67 123 45 01');
    expect(displayPhone({ phone: '(067) 123', phone_e164: '' })).toBe('(067) 123');
  });
});

describe('Kyiv time in a datetime-local field', () => {
  it('reads a typed time as Kyiv time, winter (UTC+2) and summer (UTC+3) alike', () => {
    expect(kyivToInstant('2026-11-22T18:30')).toBe('2026-11-22T16:30:00.000Z');
    expect(kyivToInstant('2027-07-01T09:05')).toBe('2027-07-01T06:05:00.000Z');
    // Either side of the autumn change (25.10.2026, 04:00 summer time becomes 03:00 winter time).
    expect(kyivToInstant('2026-10-25T01:30')).toBe('2026-10-24T22:30:00.000Z');
    expect(kyivToInstant('2026-10-25T05:00')).toBe('2026-10-25T03:00:00.000Z');
    // Midnight, and the first minute of a year.
    expect(kyivToInstant('2027-01-01T00:00')).toBe('2026-12-31T22:00:00.000Z');
  });

  it('is null for what is not a time', () => {
    for (const value of ['', '2026-11-22', '18:30', '2026-11-22 18:30', 'завтра']) expect(kyivToInstant(value)).toBeNull();
  });

  it('fills a field with an instant in Kyiv time, to the minute', () => {
    expect(kyivInputValue(at('2026-11-22T04:02:30.000Z'))).toBe('2026-11-22T06:02');
    expect(kyivInputValue(at('2027-07-01T21:59:59.999Z'))).toBe('2027-07-02T00:59');
    expect(kyivToInstant(kyivInputValue(at('2026-11-22T16:30:00Z')))).toBe('2026-11-22T16:30:00.000Z');
  });
});

describe('the call desk', () => {
  it('says when the next call is, for a lead due later only', () => {
    const now = at('2026-11-22T04:02:30Z');
    expect(nextCallText({ next_call_at: '2026-11-22T06:02:30.000000Z' }, now)).toBe('Наступний дзвінок: 22.11.2026, 08:02');
    expect(nextCallText({ next_call_at: '2026-11-22T04:02:30.000000Z' }, now)).toBeNull();
    expect(nextCallText({ next_call_at: null }, now)).toBeNull();
  });

  it("shows the start of a comment, cut at a word, on one line", () => {
    expect(commentStart('Після 18:00')).toBe('Після 18:00');
    expect(commentStart('  Після\n\n18:00  ')).toBe('Після 18:00');
    expect(commentStart('Дзвоніть після 18:00, будь ласка', 20)).toBe('Дзвоніть після…');
    // One long word: cut where it must be.
    expect(commentStart('a'.repeat(30), 10)).toBe(`${'a'.repeat(10)}…`);
  });

  it('labels the call-back a person asked for', () => {
    expect(outcomeLabel('call_back')).toBe('Просить передзвонити');
  });
});
