import { describe, expect, it } from 'vitest';
import { isLikelyBot, missingFields, readLeadForm, toPayload, type LeadInput } from './lead';

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

describe('isLikelyBot', () => {
  it('is true only when the hidden website field has content', () => {
    expect(isLikelyBot(complete)).toBe(false);
    expect(isLikelyBot({ ...complete, website: '  ' })).toBe(false);
    expect(isLikelyBot({ ...complete, website: 'http://spam.example' })).toBe(true);
  });
});
