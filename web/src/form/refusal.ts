// form-refused.html: the landing page as the server answers a refused POST /leads (the form without
// JavaScript). The prerender renders the form once with every refusal text of content/uk.ts in place and
// with slots; src/http/form.rs fills them per request, so the texts exist only here.
import { createContext } from 'react';

/** True while prerendering form-refused.html: the form renders its slots instead of its state. */
export const RefusalTemplate = createContext(false);

/** Where the visitor's entries go, HTML-escaped by the server (attribute values and textarea text). */
export const REFUSAL_TOKENS = {
  name: '__ZAYAVKA_FORM_NAME__',
  phone: '__ZAYAVKA_FORM_PHONE__',
  comment: '__ZAYAVKA_FORM_COMMENT__',
} as const;

/**
 * The slot attributes. The server keeps a `<p data-zayavka-if="key">` only when its case or field
 * applies (and drops the attribute), and replaces the other three by `aria-invalid` with
 * `aria-describedby`, `autofocus` or `checked` where they apply, or by nothing.
 */
export const SLOT = {
  if: 'data-zayavka-if',
  invalid: 'data-zayavka-invalid',
  focus: 'data-zayavka-focus',
  checked: 'data-zayavka-checked',
} as const;

/** The live region's cases, each with its toast's texts (uk.toast). */
export const REFUSAL_CASES = ['invalid', 'badPhone', 'failed'] as const;
