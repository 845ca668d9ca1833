// The lead form's rules, as pure functions (docs/product.md: the form's fields, sending). The
// component only wires them to the DOM.
import type { Attribution } from '../api/attribution';

/** What the visitor entered, as read from the form. */
export interface LeadInput {
  name: string;
  phone: string;
  /** The yes/no answer; null until the visitor picks one. */
  confirmation: 'yes' | 'no' | null;
  comment: string;
  agreed: boolean;
  /** The honeypot: hidden from people, so text in it was most likely typed by a bot (or a password
   * manager or an accessibility tool, which is why such a lead is held for review, never dropped). */
  website: string;
}

/** The one row sent to the CRN table: exactly these four keys. */
export interface LeadPayload {
  name: string;
  phone: string;
  confirmation: 'Так' | 'Ні';
  comment: string | null;
  /** Where the lead came from (api/attribution.ts); optional columns, sent only when known. */
  attribution?: Attribution;
}

/** The form's `name` attributes; the no-JavaScript POST /leads uses the same ones. */
export const FIELD = {
  name: 'name',
  phone: 'phone',
  confirmation: 'confirmation',
  comment: 'comment',
  agreed: 'agreed',
  website: 'website',
} as const;

/** Radio values, as the server's POST /leads expects them. */
export const YES = 'Так';
export const NO = 'Ні';

/**
 * Longest values the server accepts, in characters after its cleaning. These mirror
 * `MAX_NAME_CHARS`, `MAX_PHONE_CHARS` and `MAX_COMMENT_CHARS` in src/lead/mod.rs (a test reads that
 * file, so the two cannot drift apart). As `maxLength` they count UTF-16 units, never fewer than the
 * server's characters, so the browser stops the visitor before the server would refuse the lead.
 */
export const MAX_LENGTH = { name: 100, phone: 32, comment: 1000 } as const;

/** How many digits a phone number has, as src/lead/phone.rs counts them. */
export const PHONE_DIGITS = { min: 7, max: 15 } as const;

/** Fields a submit can find missing, in the order they appear in the form. */
export type RequiredField = 'name' | 'phone' | 'confirmation' | 'agreed';

/** Anything with `get`, such as FormData or URLSearchParams. */
export interface FieldSource {
  get(name: string): FormDataEntryValue | null;
}

function text(source: FieldSource, name: string): string {
  const value = source.get(name);
  return typeof value === 'string' ? value : '';
}

export function readLeadForm(source: FieldSource): LeadInput {
  const answer = text(source, FIELD.confirmation);
  return {
    name: text(source, FIELD.name),
    phone: text(source, FIELD.phone),
    confirmation: answer === YES ? 'yes' : answer === NO ? 'no' : null,
    comment: text(source, FIELD.comment),
    agreed: source.get(FIELD.agreed) !== null,
    website: text(source, FIELD.website),
  };
}

/** The required fields that are missing, in form order; empty when the lead may be sent. */
export function missingFields(input: LeadInput): RequiredField[] {
  const missing: RequiredField[] = [];
  if (input.name.trim() === '') missing.push('name');
  if (input.phone.trim() === '') missing.push('phone');
  if (input.confirmation === null) missing.push('confirmation');
  if (!input.agreed) missing.push('agreed');
  return missing;
}

/**
 * True when the phone looks like a phone number as the server decides it (src/lead/phone.rs after
 * src/lead/clean.rs `single_line`): line breaks and tabs read as spaces, control and
 * direction-mark characters (phones copied from a contact list often carry them) are dropped, the
 * rest trimmed; then only digits, spaces, `-`, `(`, `)` and a leading `+`, with 7–15 digits.
 */
export function isPhoneShaped(phone: string): boolean {
  const cleaned = phone
    .replace(/[\t\n\r]/g, ' ')
    .replace(/[\p{Cc}\u202a-\u202e\u2066-\u2069\ufeff]/gu, '')
    .normalize('NFC')
    .trim();
  const digits = cleaned.replace(/[^0-9]/g, '').length;
  return /^\+?[0-9 ()-]*$/.test(cleaned) && digits >= PHONE_DIGITS.min && digits <= PHONE_DIGITS.max;
}

/** What the page noticed of an automated submission; the server stores such a lead and holds it for review. */
export type AutomationFlag = 'honeypot' | 'webdriver';

/**
 * The automation flags of one submission: `honeypot` when the hidden field was filled, `webdriver`
 * when the browser says it is driven by automation (`navigator.webdriver`, true in a headless or
 * remote-controlled browser unless it hides it).
 */
export function automationFlags(input: LeadInput, browser: { webdriver?: boolean }): AutomationFlag[] {
  const flags: AutomationFlag[] = [];
  if (input.website.trim() !== '') flags.push('honeypot');
  if (browser.webdriver === true) flags.push('webdriver');
  return flags;
}

export function toPayload(input: LeadInput): LeadPayload {
  const comment = input.comment.trim();
  return {
    name: input.name.trim(),
    phone: input.phone.trim(),
    confirmation: input.confirmation === 'yes' ? YES : NO,
    comment: comment === '' ? null : comment,
  };
}
