// The lead form. Without JavaScript it is a plain POST to /leads (the server validates and redirects).
// After hydration it validates on submit, shows toasts and makes the one call (docs/product.md, Sending), with the
// page-load proof the backend handed out (api/proof.ts) when it has one.
import { useContext, useEffect, useRef, useState, type FormEvent, type MouseEvent } from 'react';
import { pageAttribution } from '../api/attribution';
import { createLead, refusalDetails, type LeadEvidence } from '../api/leads';
import { PageProof } from '../api/proof';
import { useConfig } from '../config';
import {
  FIELD,
  MAX_LENGTH,
  NO,
  YES,
  automationFlags,
  isPhoneShaped,
  missingFields,
  readLeadForm,
  toPayload,
  type RequiredField,
} from '../form/lead';
import { REFUSAL_CASES, REFUSAL_TOKENS, RefusalTemplate, SLOT } from '../form/refusal';
import { useTexts } from '../texts';
import { PUBLIC_OFFER_ID } from './Shell';
import { useToast } from './Toast';

/** The form's id, for the landing page's "jump to the form" link. */
export const LEAD_FORM_ID = 'lead-form';

/** Time for the visitor to read the thank-you toast before the page changes. */
export const REDIRECT_DELAY_MS = 1000;

const ID = {
  title: 'lead-form-title',
  name: 'lead-name',
  phone: 'lead-phone',
  question: 'lead-question',
  comment: 'lead-comment',
  agreed: 'lead-agreed',
  website: 'lead-website',
} as const;

/** A field's message under it, by field; only marked fields have one. */
type FieldErrors = Partial<Record<RequiredField, string>>;

const errorId = (field: RequiredField) => `lead-${field}-error`;

function focusField(form: HTMLFormElement, field: RequiredField): void {
  // For the yes/no question this is the first radio.
  form.querySelector<HTMLInputElement>(`[name="${FIELD[field]}"]`)?.focus();
}

/** With JavaScript the link opens the public offer before scrolling to it (plain fragment navigation
 * would only scroll to its closed summary). */
function openPublicOffer(event: MouseEvent<HTMLAnchorElement>): void {
  const details = document.getElementById(PUBLIC_OFFER_ID);
  if (!(details instanceof HTMLDetailsElement)) return;
  event.preventDefault();
  details.open = true;
  const reduceMotion = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;
  details.scrollIntoView?.({ behavior: reduceMotion ? 'auto' : 'smooth', block: 'start' });
  details.querySelector('summary')?.focus({ preventScroll: true });
}

export function LeadForm() {
  const config = useConfig();
  const uk = useTexts();
  const toast = useToast();
  // Prerendering form-refused.html: slots for the server instead of state (form/refusal.ts).
  const template = useContext(RefusalTemplate);
  const formRef = useRef<HTMLFormElement>(null);
  const [submitting, setSubmitting] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  // What the server said to change when it refused the lead (a 400 with `details`); '' when none.
  const [refusal, setRefusal] = useState('');
  // Set from the moment a lead is accepted until the page changes, so a second press sends nothing.
  const locked = useRef(false);
  // Made after hydration only: the prerender and the first client render must not differ or fetch.
  const proof = useRef<PageProof | null>(null);

  useEffect(() => {
    const form = formRef.current;
    // Our own check and toast replace the browser's bubbles. Set here, not as a prop, so the
    // prerendered HTML (which must validate without JavaScript) and the first client render agree.
    if (form) form.noValidate = true;
    // Fetched as soon as the page runs, so even a visitor who sends at once has it ready.
    proof.current = new PageProof(config.backendUrl);
    void proof.current.load();
    // Back from the redirect target, the browser may restore this page as it was: unlock it.
    const onPageShow = (event: PageTransitionEvent) => {
      if (event.persisted) locked.current = false;
    };
    window.addEventListener('pageshow', onPageShow);
    return () => window.removeEventListener('pageshow', onPageShow);
  }, [config.backendUrl]);

  function succeed(): void {
    toast({ ...uk.toast.success, variant: 'default' });
    window.setTimeout(() => window.location.assign(config.redirectUrl || '/thank-you'), REDIRECT_DELAY_MS);
  }

  async function handleSubmit(event: FormEvent<HTMLFormElement>): Promise<void> {
    event.preventDefault();
    if (locked.current) return;
    const form = event.currentTarget;
    setRefusal('');
    const input = readLeadForm(new FormData(form));
    const missing = missingFields(input);
    if (missing.length > 0) {
      setErrors(Object.fromEntries(missing.map((field) => [field, uk.form.errors[field]])));
      toast({ ...uk.toast.invalid, variant: 'destructive' });
      focusField(form, missing[0]);
      return;
    }
    // The server would refuse it (src/lead/phone.rs): say so now, with nothing sent.
    if (!isPhoneShaped(input.phone)) {
      setErrors({ phone: uk.form.errors.phoneShape });
      toast({ ...uk.toast.badPhone, variant: 'destructive' });
      focusField(form, 'phone');
      return;
    }
    setErrors({});
    locked.current = true;
    setSubmitting(true);
    try {
      // Even a filled honeypot is sent (people's password managers fill hidden fields too): the server
      // holds such a lead for review, and the visitor sees the same outcome either way.
      const sendable = await (proof.current?.forSubmit() ?? null);
      const evidence: LeadEvidence | undefined = sendable
        ? { proof: sendable.token, work: sendable.work, flags: automationFlags(input, window.navigator) }
        : undefined;
      const attribution = pageAttribution(window.location, document.referrer);
      await createLead(config, { ...toPayload(input), attribution }, evidence);
      succeed();
    } catch (error) {
      locked.current = false;
      console.error('Lead submission failed:', error);
      toast({ ...uk.toast.failed, variant: 'destructive' });
      // A lead the server refused (400 with `details`) cannot pass by trying again: show what to change.
      setRefusal(refusalDetails(error) ?? '');
    } finally {
      setSubmitting(false);
    }
  }

  function handleChange(event: FormEvent<HTMLFormElement>): void {
    // Editing a marked field (missing, or a phone that is not a number) clears its mark; the next submit checks again.
    const name = (event.target as HTMLInputElement).name;
    const field = (Object.keys(FIELD) as RequiredField[]).find((key) => FIELD[key] === name);
    if (field && errors[field]) setErrors(({ [field]: _cleared, ...rest }) => rest);
  }

  const invalidProps = (field: RequiredField) => {
    if (template) return { [SLOT.invalid]: field };
    return errors[field] ? { 'aria-invalid': true, 'aria-describedby': errorId(field) } : {};
  };
  const fieldError = (field: RequiredField) => {
    if (!template) {
      return (
        errors[field] && (
          <p className="field-error" id={errorId(field)}>
            {errors[field]}
          </p>
        )
      );
    }
    // The phone has two messages under one id: missing, or not a number; the server keeps one at most.
    const keys = field === 'phone' ? (['phone', 'phoneShape'] as const) : ([field] as const);
    return keys.map((key) => (
      <p key={key} className="field-error" id={errorId(field)} {...{ [SLOT.if]: key }}>
        {uk.form.errors[key]}
      </p>
    ));
  };
  // Template only: the visitor's entries, the first invalid control's focus, the ticked choices.
  const entry = (field: keyof typeof REFUSAL_TOKENS) => (template ? { defaultValue: REFUSAL_TOKENS[field] } : {});
  const focusSlot = (key: string) => (template ? { [SLOT.focus]: key } : {});
  const checkedSlot = (key: string) => (template ? { [SLOT.checked]: key } : {});

  return (
    <form
      ref={formRef}
      id={LEAD_FORM_ID}
      className="card lead-form"
      method="post"
      action="/leads"
      aria-labelledby={ID.title}
      onSubmit={handleSubmit}
      onChange={handleChange}
      data-state={submitting ? 'submitting' : 'idle'}
    >
      <h2 id={ID.title}>{uk.form.title}</h2>
      <p className="muted">{uk.form.intro}</p>

      {template && (
        <div className="form-alert" id="lead-form-alert" role="alert" tabIndex={-1} {...focusSlot('alert')}>
          {REFUSAL_CASES.map((key) => (
            <p key={key} {...{ [SLOT.if]: key }}>
              <strong>{uk.toast[key].title}</strong> {uk.toast[key].description}
            </p>
          ))}
        </div>
      )}

      <div className="hp" aria-hidden="true">
        <label htmlFor={ID.website}>{uk.form.honeypot}</label>
        <input id={ID.website} name={FIELD.website} type="text" tabIndex={-1} autoComplete="off" />
      </div>

      <div className="field">
        <label htmlFor={ID.name}>{uk.form.name}</label>
        <input
          id={ID.name}
          name={FIELD.name}
          type="text"
          required
          autoComplete="name"
          autoCapitalize="words"
          maxLength={MAX_LENGTH.name}
          {...entry('name')}
          {...focusSlot('name')}
          {...invalidProps('name')}
        />
        {fieldError('name')}
      </div>

      <div className="field">
        <label htmlFor={ID.phone}>{uk.form.phone}</label>
        <input
          id={ID.phone}
          name={FIELD.phone}
          type="tel"
          inputMode="tel"
          autoComplete="tel"
          placeholder={uk.form.phonePlaceholder}
          maxLength={MAX_LENGTH.phone}
          required
          {...entry('phone')}
          {...focusSlot('phone')}
          {...invalidProps('phone')}
        />
        {fieldError('phone')}
      </div>

      <fieldset className="field choice-group" role="radiogroup" aria-labelledby={ID.question} {...invalidProps('confirmation')}>
        <legend id={ID.question}>{uk.form.question}</legend>
        <div className="choices">
          <label className="choice">
            <input type="radio" name={FIELD.confirmation} value={YES} {...focusSlot('confirmation')} {...checkedSlot('yes')} />
            <span>{uk.form.yes}</span>
          </label>
          <label className="choice">
            <input type="radio" name={FIELD.confirmation} value={NO} {...checkedSlot('no')} />
            <span>{uk.form.no}</span>
          </label>
        </div>
        {fieldError('confirmation')}
      </fieldset>

      <div className="field">
        <label htmlFor={ID.comment}>{uk.form.comment}</label>
        <textarea id={ID.comment} name={FIELD.comment} rows={3} maxLength={MAX_LENGTH.comment} {...entry('comment')} />
      </div>

      <div className="field">
        <label className="check">
          <input
            id={ID.agreed}
            type="checkbox"
            name={FIELD.agreed}
            value="on"
            defaultChecked={!template}
            {...focusSlot('agreed')}
            {...checkedSlot('agreed')}
            {...invalidProps('agreed')}
          />
          <span>
            {uk.form.agreeBefore}
            <a href={`#${PUBLIC_OFFER_ID}`} onClick={openPublicOffer}>
              {uk.form.agreeLink}
            </a>
          </span>
        </label>
        {fieldError('agreed')}
      </div>

      {refusal && (
        <p className="form-alert" role="alert">
          {refusal}
        </p>
      )}

      <button
        type="submit"
        className="button button-primary button-block"
        disabled={submitting}
        data-state={submitting ? 'submitting' : 'idle'}
      >
        {submitting && <span className="spinner" aria-hidden="true" />}
        {submitting ? uk.form.submitting : uk.form.submit}
      </button>

      <p className="small muted">{uk.form.disclaimer}</p>
      <p className="small muted">
        {uk.form.privacyNote}
        <a href="/privacy-policy">{uk.form.privacyLink}</a>
      </p>
    </form>
  );
}
