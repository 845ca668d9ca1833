import { useLayoutEffect, useRef, useState, type FormEvent } from 'react';
import { EmailField, PasswordField } from './AccountFields';
import { ApiError, errorText, login, type Session } from './api';
import { FormError } from './FormError';

/**
 * The sign-in form; `expired` when the operator was signed in and the session ended meanwhile. An
 * account with a second factor: once the server says the password is right and asks for the code,
 * a field for it appears (the e-mail and password stay filled) and takes the focus.
 */
export function Login({ onSignedIn, expired }: { onSignedIn: (session: Session) => void; expired: boolean }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [codeAsked, setCodeAsked] = useState(false);
  const codeField = useRef<HTMLInputElement>(null);

  // In the commit that adds the field, not after it: a passive effect could run after the field is
  // seen (by a person's screen reader, or a test under load) still without the focus.
  useLayoutEffect(() => {
    if (codeAsked) codeField.current?.focus();
  }, [codeAsked]);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const field = (name: string) => String(data.get(name) ?? '');
    setPending(true);
    setError(null);
    try {
      onSignedIn(await login(field('email'), field('password'), codeAsked ? field('code') : undefined));
    } catch (caught) {
      // 401 (wrong e-mail or password, a code asked or wrong) and 429 (too many tries) carry the
      // server's own sentence.
      if (caught instanceof ApiError && caught.flags.includes('code_required')) {
        setCodeAsked(true);
        codeField.current?.select();
      }
      setError(errorText(caught));
      setPending(false);
    }
  }

  return (
    <main className="login">
      <h1>Вхід для операторів</h1>
      {expired && (
        <p role="status" className="notice">
          Сесія завершилася. Увійдіть знову — ви повернетеся на ту саму сторінку.
        </p>
      )}
      <form className="stack" onSubmit={submit}>
        <EmailField autoComplete="username" />
        <PasswordField kind="current" />
        {codeAsked && (
          <label className="field">
            <span>Код із застосунку або код відновлення</span>
            <input
              ref={codeField}
              name="code"
              autoComplete="one-time-code"
              autoCapitalize="none"
              spellCheck={false}
              required
            />
          </label>
        )}
        <FormError error={error} />
        <button type="submit" className="button primary" disabled={pending}>
          Увійти
        </button>
      </form>
    </main>
  );
}
