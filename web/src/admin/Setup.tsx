import { useState, type FormEvent } from 'react';
import { errorText, setup, type Session } from './api';

/** Shortest password the server takes (as `zayavka admin add-user` does). */
export const MIN_PASSWORD_CHARS = 10;

/**
 * The first start's setup page: the link the server logged while no operator exists opens it; it
 * creates the first operator account and signs them in. The link works once.
 */
export function Setup({ token, onSignedIn }: { token: string; onSignedIn: (session: Session) => void }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const email = String(data.get('email') ?? '');
    const password = String(data.get('password') ?? '');
    if ([...password].length < MIN_PASSWORD_CHARS) {
      setError(`Пароль має містити щонайменше ${MIN_PASSWORD_CHARS} символів.`);
      return;
    }
    if (password !== String(data.get('repeat') ?? '')) {
      setError('Паролі не збігаються.');
      return;
    }
    setPending(true);
    setError(null);
    try {
      onSignedIn(await setup(token, email, password));
    } catch (caught) {
      // 400 (the server's rules) carries its own sentence; 404: the link was used or has expired.
      setError(errorText(caught));
      setPending(false);
    }
  }

  return (
    <main className="login">
      <h1>Перший запуск</h1>
      <p>
        Створіть обліковий запис першого оператора. Посилання діє один раз; інших операторів додають командою{' '}
        <code>zayavka admin add-user</code>.
      </p>
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
          <span>Пароль (щонайменше {MIN_PASSWORD_CHARS} символів)</span>
          <input name="password" type="password" autoComplete="new-password" required />
        </label>
        <label className="field">
          <span>Пароль ще раз</span>
          <input name="repeat" type="password" autoComplete="new-password" required />
        </label>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        <button type="submit" className="button primary" disabled={pending}>
          Створити й увійти
        </button>
      </form>
    </main>
  );
}
