import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { errorText, isAbort, type Enrolment, type SecondFactorStatus } from './api';
import { useInbox } from './context';
import { LoadError } from './LoadError';

/** The secret in groups of four, as authenticator apps show a key typed in by hand. */
function grouped(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}

/**
 * /admin/second-factor: the signed-in account's second factor. Off: set it up (a QR code or the key
 * for an authenticator app, then the app's first code), after which the recovery codes are shown,
 * once. On: how many recovery codes are left, and what to do about a lost phone. `required`: the
 * server lets this account do nothing else until it is on; `onTurnedOn` runs when the operator is
 * done with the recovery codes.
 */
export function SecondFactor({ required, onTurnedOn }: { required: boolean; onTurnedOn: () => void }) {
  const { client, email } = useInbox();
  const [status, setStatus] = useState<SecondFactorStatus | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [retry, setRetry] = useState(0);
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const codesHeading = useRef<HTMLHeadingElement>(null);

  useEffect(() => heading.current?.focus(), []);
  useEffect(() => {
    if (recoveryCodes) codesHeading.current?.focus();
  }, [recoveryCodes]);

  useEffect(() => {
    const controller = new AbortController();
    client.secondFactor(controller.signal).then(
      (answer) => {
        setStatus(answer);
        setLoadError(null);
      },
      (caught: unknown) => {
        if (!isAbort(caught)) setLoadError(errorText(caught));
      },
    );
    return () => controller.abort();
  }, [client, retry]);

  async function start() {
    setPending(true);
    setError(null);
    try {
      setEnrolment(await client.startSecondFactor());
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setPending(false);
    }
  }

  async function confirm(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const code = String(new FormData(event.currentTarget).get('code') ?? '');
    setPending(true);
    setError(null);
    try {
      setRecoveryCodes((await client.confirmSecondFactor(code)).recovery_codes);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setPending(false);
    }
  }

  const alert = error && (
    <p role="alert" className="error">
      {error}
    </p>
  );

  return (
    <>
      {!required && (
        <p>
          <Link to="/">← До списку</Link>
        </p>
      )}
      <h1 ref={heading} tabIndex={-1}>
        Двоетапна перевірка
      </h1>
      {required && !recoveryCodes && (
        <p className="notice">
          Адміністратор вимагає двоетапну перевірку для всіх. Налаштуйте її, щоб працювати із заявками.
        </p>
      )}
      {loadError && <LoadError message={loadError} onRetry={() => setRetry((n) => n + 1)} />}
      {!status && !loadError && <p className="muted">Завантаження…</p>}

      {status?.on && (
        <>
          <p>
            Увімкнено: під час входу ви вводите ще й код із застосунку автентифікації. Кодів відновлення залишилося:{' '}
            {status.recovery_codes_left}.
          </p>
          <p className="muted">
            Загубили телефон? Увійдіть із кодом відновлення й попросіть адміністратора вимкнути перевірку командою{' '}
            <code>zayavka admin reset-2fa {email}</code>, а тоді налаштуйте її знову.
          </p>
        </>
      )}

      {status && !status.on && !enrolment && (
        <>
          <p>
            Крім пароля, під час входу ви вводитимете шестизначний код із застосунку автентифікації на телефоні
            (Google Authenticator, Microsoft Authenticator, Aegis, FreeOTP тощо). Так ніхто не увійде лише з вашим
            паролем.
          </p>
          {alert}
          <button type="button" className="button primary" onClick={start} disabled={pending}>
            Налаштувати
          </button>
        </>
      )}

      {enrolment && !recoveryCodes && (
        <form className="stack" onSubmit={confirm}>
          <p>1. Відскануйте цей QR-код застосунком автентифікації.</p>
          <img className="qr" src={enrolment.qr} alt="QR-код для застосунку автентифікації" width={200} height={200} />
          <p>
            Або введіть ключ вручну: <code className="secret">{grouped(enrolment.secret)}</code>
          </p>
          <p>2. Введіть код, який показує застосунок.</p>
          <label className="field">
            <span>Код із застосунку</span>
            <input
              name="code"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9 ]{6,7}"
              maxLength={7}
              required
            />
          </label>
          {alert}
          <button type="submit" className="button primary" disabled={pending}>
            Підтвердити
          </button>
        </form>
      )}

      {recoveryCodes && (
        <section aria-labelledby="recovery-codes">
          <h2 id="recovery-codes" ref={codesHeading} tabIndex={-1}>
            Двоетапну перевірку увімкнено. Ваші коди відновлення
          </h2>
          <p>
            Якщо телефона не буде під рукою, увійдіть з одним із цих кодів замість коду із застосунку. Кожен діє один
            раз. Запишіть або роздрукуйте їх і зберігайте окремо від телефона: більше їх не покажуть.
          </p>
          <ul className="recovery-codes" aria-label="Коди відновлення">
            {recoveryCodes.map((code) => (
              <li key={code}>
                <code>{code}</code>
              </li>
            ))}
          </ul>
          <button type="button" className="button primary" onClick={onTurnedOn}>
            Я зберіг(ла) коди
          </button>
        </section>
      )}
    </>
  );
}
