import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  MAX_LENGTH,
  PHONE_DIGITS,
  automationFlags,
  isPhoneShaped,
  missingFields,
  readLeadForm,
  toPayload,
  type LeadInput,
} from './lead';

const complete: LeadInput = {
  name: 'Олена',
  phone: '+380 67 123 45 67',
  confirmation: 'yes',
  comment: '',
  agreed: true,
  website: '',
};

function form(entries: Record<string, string>): URLSearchParams {
  return new URLSearchParams(entries);
}

describe('readLeadForm', () => {
  it('reads every field by its name attribute', () => {
    const input = readLeadForm(
      form({ name: ' Олена ', phone: '067', confirmation: 'Так', comment: 'x', agreed: 'on', website: '' }),
    );
    expect(input).toEqual({
      name: ' Олена ',
      phone: '067',
      confirmation: 'yes',
      comment: 'x',
      agreed: true,
      website: '',
    });
  });

  it('maps Ні to no, and an unanswered or unknown answer to null', () => {
    expect(readLeadForm(form({ confirmation: 'Ні' })).confirmation).toBe('no');
    expect(readLeadForm(form({})).confirmation).toBeNull();
    expect(readLeadForm(form({ confirmation: 'yes' })).confirmation).toBeNull();
  });

  it('treats an absent checkbox as not agreed', () => {
    expect(readLeadForm(form({ name: 'a' })).agreed).toBe(false);
    expect(readLeadForm(form({ name: 'a' })).name).toBe('a');
    expect(readLeadForm(form({})).comment).toBe('');
  });
});

describe('missingFields', () => {
  it('accepts a complete lead, with or without a comment', () => {
    expect(missingFields(complete)).toEqual([]);
    expect(missingFields({ ...complete, comment: 'Дзвоніть після 18:00' })).toEqual([]);
  });

  it('lists every missing required field in form order', () => {
    expect(
      missingFields({ name: '', phone: '', confirmation: null, comment: '', agreed: false, website: '' }),
    ).toEqual(['name', 'phone', 'confirmation', 'agreed']);
  });

  it('counts whitespace-only name and phone as empty', () => {
    expect(missingFields({ ...complete, name: '   ' })).toEqual(['name']);
    expect(missingFields({ ...complete, phone: '\t \n' })).toEqual(['phone']);
  });

  it('requires an answer, either one', () => {
    expect(missingFields({ ...complete, confirmation: null })).toEqual(['confirmation']);
    expect(missingFields({ ...complete, confirmation: 'no' })).toEqual([]);
  });

  it('requires the agreement', () => {
    expect(missingFields({ ...complete, agreed: false })).toEqual(['agreed']);
  });
});

describe('toPayload', () => {
  it('trims values and sends exactly the four columns', () => {
    const payload = toPayload({
      ...complete,
      name: '  Олена Петренко ',
      phone: ' +380 67 123 45 67\n',
      comment: '  після обіду  ',
      website: '',
    });
    expect(payload).toEqual({
      name: 'Олена Петренко',
      phone: '+380 67 123 45 67',
      confirmation: 'Так',
      comment: 'після обіду',
    });
    expect(Object.keys(payload)).toEqual(['name', 'phone', 'confirmation', 'comment']);
  });

  it('sends an empty or blank comment as null', () => {
    expect(toPayload({ ...complete, comment: '' }).comment).toBeNull();
    expect(toPayload({ ...complete, comment: '  \n ' }).comment).toBeNull();
  });

  it("sends 'Так' for yes and 'Ні' otherwise", () => {
    expect(toPayload({ ...complete, confirmation: 'yes' }).confirmation).toBe('Так');
    expect(toPayload({ ...complete, confirmation: 'no' }).confirmation).toBe('Ні');
  });
});

describe('automationFlags', () => {
  it('flags the honeypot only when the hidden website field has content', () => {
    expect(automationFlags(complete, {})).toEqual([]);
    expect(automationFlags({ ...complete, website: '  ' }, {})).toEqual([]);
    expect(automationFlags({ ...complete, website: 'http://spam.example' }, {})).toEqual(['honeypot']);
  });

  it('flags a browser that says it is driven by automation, and only then', () => {
    expect(automationFlags(complete, { webdriver: true })).toEqual(['webdriver']);
    expect(automationFlags(complete, { webdriver: false })).toEqual([]);
    expect(automationFlags({ ...complete, website: 'x' }, { webdriver: true })).toEqual(['honeypot', 'webdriver']);
  });
});

describe('isPhoneShaped (mirrors src/lead/phone.rs)', () => {
  it('accepts the usual ways of writing a number, Ukrainian or foreign', () => {
    for (const phone of [
      '067 123 45 67',
      '+380 67 123 45 67',
      '380671234567',
      '(067) 123-45-67',
      '+38 067 123 45 67',
      '+48 601 234 567',
      '0048 601 234 567',
      '1234567',
      '123456789012345',
    ]) {
      expect(isPhoneShaped(phone), phone).toBe(true);
    }
  });

  it('refuses what the server refuses: words, letters, a late +, too few or too many digits', () => {
    for (const phone of [
      '',
      '   ',
      'дзвоніть увечері',
      '123456',
      '1234567890123456',
      '067-ABC-45-67',
      '067 123 45 67 ext 2',
      '67+1234567',
      '++380671234567',
      '067.123.45.67',
      '067/1234567',
      '０６７１２３４５６７', // full-width digits: the server counts ASCII digits only
      '067\u00a0123\u00a045\u00a067', // no-break spaces inside
    ]) {
      expect(isPhoneShaped(phone), JSON.stringify(phone)).toBe(false);
    }
  });

  it('cleans as the server does first: surrounding blanks, line breaks, control and direction marks', () => {
    expect(isPhoneShaped('  +380 67 123 45 67\n')).toBe(true);
    expect(isPhoneShaped('067\t123\t45\t67')).toBe(true);
    // Copied from a phone's contact list: wrapped in left-to-right marks.
    expect(isPhoneShaped('\u202a+380 67 123 45 67\u202c')).toBe(true);
    expect(isPhoneShaped('\ufeff0671234567\u0007')).toBe(true);
    // Dropping the marks leaves the + first.
    expect(isPhoneShaped('\u2066+380671234567\u2069')).toBe(true);
  });
});

describe('limits shared with the server', () => {
  const rust = (file: string) =>
    readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'src', 'lead', file), 'utf8');
  const constant = (source: string, name: string) => {
    const match = new RegExp(`const ${name}: usize = (\\d+);`).exec(source);
    expect(match, name).not.toBeNull();
    return Number(match?.[1]);
  };

  it('MAX_LENGTH equals the MAX_*_CHARS of src/lead/mod.rs', () => {
    const source = rust('mod.rs');
    expect(MAX_LENGTH).toEqual({
      name: constant(source, 'MAX_NAME_CHARS'),
      phone: constant(source, 'MAX_PHONE_CHARS'),
      comment: constant(source, 'MAX_COMMENT_CHARS'),
    });
  });

  it('PHONE_DIGITS equals MIN_DIGITS and MAX_DIGITS of src/lead/phone.rs', () => {
    const source = rust('phone.rs');
    expect(PHONE_DIGITS).toEqual({ min: constant(source, 'MIN_DIGITS'), max: constant(source, 'MAX_DIGITS') });
  });
});
