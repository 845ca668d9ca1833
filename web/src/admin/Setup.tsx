import { useState, type FormEvent } from 'react';
import { EmailField, PasswordField, shortPasswordError } from './AccountFields';
import { errorText, setup, type Session } from './api';
import { FormError } from './FormError';

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
    const refusal =
      shortPasswordError(password) ?? (password !== String(data.get('repeat') ?? '') ? 'Паролі не збігаються.' : null);
    if (refusal) {
      setError(refusal);
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
        Створіть обліковий запис першого оператора: він буде адміністратором. Посилання діє один раз; інших
        операторів додасте на сторінці «Команда» або командою <code>zayavka admin add-user</code>.
      </p>
      <form className="stack" onSubmit={submit}>
        <EmailField autoComplete="username" />
        <PasswordField kind="new" />
        <PasswordField kind="repeat" />
        <FormError error={error} />
        <button type="submit" className="button primary" disabled={pending}>
          Створити й увійти
        </button>
      </form>
    </main>
  );
}
