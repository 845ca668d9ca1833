import { useState, type FormEvent } from 'react';
import { errorText, login, type Session } from './api';

/** The sign-in form; `expired` when the operator was signed in and the session ended meanwhile. */
export function Login({ onSignedIn, expired }: { onSignedIn: (session: Session) => void; expired: boolean }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    try {
      onSignedIn(await login(String(data.get('email') ?? ''), String(data.get('password') ?? '')));
    } catch (caught) {
      // 401 (wrong e-mail or password) and 429 (too many tries) carry the server's own sentence.
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
        <label className="field">
          <span>Електронна пошта</span>
          <input
            name="email"
            type="email"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            required
          />
        </label>
        <label className="field">
          <span>Пароль</span>
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        <button type="submit" className="button primary" disabled={pending}>
          Увійти
        </button>
      </form>
    </main>
  );
}
