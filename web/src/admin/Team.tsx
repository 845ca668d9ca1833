import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'react-router';
import { EmailField, PasswordField, shortPasswordError } from './AccountFields';
import { errorText, isAbort, type Account, type Role } from './api';
import { useInbox } from './context';
import { ConfirmedAction } from './Confirm';
import { FormError } from './FormError';
import { formatKyiv, roleLabel } from './format';
import { LoadError } from './LoadError';

/**
 * /admin/team (admins): the accounts with their roles, oldest first; a form that adds one; per
 * account a change of role and a removal (asked first). What the server refuses (the last admin,
 * an address that is not one, a taken e-mail) is said in its own words beside what was tried.
 * A change of one's own account ends one's own session (the server does that): to the login.
 */
export function Team() {
  const { client, email: me, notify, expire } = useInbox();
  const { pathname } = useLocation();
  const [accounts, setAccounts] = useState<Account[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [retry, setRetry] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => heading.current?.focus(), []);

  useEffect(() => {
    const controller = new AbortController();
    client.accounts(controller.signal).then(
      (answer) => {
        setAccounts(answer.operators);
        setError(null);
      },
      (caught: unknown) => {
        if (!isAbort(caught)) setError(errorText(caught));
      },
    );
    return () => controller.abort();
  }, [client, retry]);

  function roleChanged(email: string, role: Role) {
    if (email === me) return expire();
    setAccounts((current) => current && current.map((a) => (a.email === email ? { ...a, role } : a)));
    notify(`Роль змінено: ${email} — ${roleLabel(role).toLowerCase()}.`, pathname);
  }

  function removed(email: string) {
    if (email === me) return expire();
    setAccounts((current) => current && current.filter((a) => a.email !== email));
    heading.current?.focus();
    notify(`Обліковий запис ${email} видалено.`, pathname);
  }

  function added(email: string, role: Role) {
    notify(`Обліковий запис ${email} додано: ${roleLabel(role).toLowerCase()}.`, pathname);
    // Asked again for the new account's own row (its time as the server stored it).
    setRetry((n) => n + 1);
  }

  return (
    <>
      <p>
        <Link to="/">← До списку</Link>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        Команда
      </h1>
      <p className="muted">
        Оператори працюють із заявками. Адміністратори також завантажують і видаляють дані, керують командою й читають
        журнал дій. Зміна ролі чи видалення діє одразу: людині доведеться увійти знову.
      </p>
      {error && <LoadError message={error} onRetry={() => setRetry((n) => n + 1)} />}
      {!accounts && !error && <p className="muted">Завантаження…</p>}
      {accounts && (
        <ul className="accounts" aria-label="Облікові записи">
          {accounts.map((account) => (
            <AccountItem
              key={account.email}
              account={account}
              mine={account.email === me}
              onRoleChanged={roleChanged}
              onRemoved={removed}
            />
          ))}
        </ul>
      )}
      <AddAccount onAdded={added} />
    </>
  );
}

function AccountItem({
  account,
  mine,
  onRoleChanged,
  onRemoved,
}: {
  account: Account;
  mine: boolean;
  onRoleChanged: (email: string, role: Role) => void;
  onRemoved: (email: string) => void;
}) {
  const { client } = useInbox();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const emailId = useId();
  const other: Role = account.role === 'admin' ? 'operator' : 'admin';

  async function changeRole() {
    setPending(true);
    setError(null);
    try {
      const answer = await client.setRole(account.email, other);
      onRoleChanged(answer.email, answer.role);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setPending(false);
    }
  }

  return (
    <li className="account">
      <p className="account-email" id={emailId}>
        {account.email}
        {mine && ' (ви)'}
      </p>
      <p className="account-role">{roleLabel(account.role)}</p>
      <p className="muted">
        Додано <time dateTime={account.created_at}>{formatKyiv(account.created_at)}</time>.{' '}
        {account.second_factor ? 'Двоетапна перевірка увімкнена.' : 'Без двоетапної перевірки.'}
      </p>
      <div className="actions">
        <button type="button" className="button" onClick={changeRole} disabled={pending} aria-describedby={emailId}>
          {other === 'admin' ? 'Зробити адміністратором' : 'Зробити оператором'}
        </button>
        <RemoveConfirm email={account.email} describedBy={emailId} onRemoved={() => onRemoved(account.email)} />
        <FormError error={error} />
      </div>
    </li>
  );
}

/** "Видалити обліковий запис", then a confirmation that says what it means, as erasure does. */
function RemoveConfirm({
  email,
  describedBy,
  onRemoved,
}: {
  email: string;
  describedBy: string;
  onRemoved: () => void;
}) {
  const { client } = useInbox();
  return (
    <ConfirmedAction
      label="Видалити обліковий запис"
      question={`Обліковий запис ${email} буде видалено: з ним більше не можна буде увійти. Записи журналу залишаться.`}
      confirm="Так, видалити обліковий запис"
      act={async () => {
        await client.removeAccount(email);
        onRemoved();
      }}
      describedBy={describedBy}
    />
  );
}

/** The form that adds an account: e-mail, password, role (an operator unless chosen otherwise). */
function AddAccount({ onAdded }: { onAdded: (email: string, role: Role) => void }) {
  const { client } = useInbox();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const emailInput = useRef<HTMLInputElement>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (pending) return;
    const form = event.currentTarget;
    const data = new FormData(form);
    const email = String(data.get('email') ?? '').trim();
    const password = String(data.get('password') ?? '');
    const role: Role = data.get('role') === 'admin' ? 'admin' : 'operator';
    const tooShort = shortPasswordError(password);
    if (tooShort) {
      setError(tooShort);
      return;
    }
    setPending(true);
    setError(null);
    try {
      const answer = await client.addAccount(email, password, role);
      form.reset();
      emailInput.current?.focus();
      onAdded(answer.email, answer.role);
    } catch (caught) {
      // 400 (not an address, a short password) and 409 (the e-mail has an account) in the server's words.
      setError(errorText(caught));
    } finally {
      setPending(false);
    }
  }

  return (
    <div className="add-account">
      <h2 id="add-account-heading">Новий обліковий запис</h2>
      <form className="stack" onSubmit={submit} aria-labelledby="add-account-heading">
        <EmailField autoComplete="off" inputRef={emailInput} />
        <PasswordField kind="new" />
        <fieldset className="choices">
          <legend>Роль</legend>
          <label className="choice">
            <input type="radio" name="role" value="operator" defaultChecked />
            Оператор
          </label>
          <label className="choice">
            <input type="radio" name="role" value="admin" />
            Адміністратор
          </label>
        </fieldset>
        <FormError error={error} />
        <button type="submit" className="button primary" disabled={pending}>
          Додати
        </button>
      </form>
    </div>
  );
}
