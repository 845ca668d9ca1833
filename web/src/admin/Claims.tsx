import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useLocation } from 'react-router';
import {
  ApiError,
  errorText,
  isAbort,
  type Account,
  type LeadDetail,
  type LeadView,
  type Received,
} from './api';
import { useInbox } from './context';
import { formatKyiv } from './format';
import { LoadError } from './LoadError';
import { CallButton, PhoneLink } from './Phone';
import { useRefreshedRead } from './refreshed';

/** Who has a lead, as the list and the lead's page say it; null when nobody has it. */
export function claimText(lead: LeadView, me: string): string | null {
  if (!lead.claimed_by) return null;
  const mine = lead.claimed_by === me;
  if (lead.claimed_until) {
    const until = `до ${formatKyiv(lead.claimed_until)}`;
    return mine ? `Ви телефонуєте (${until})` : `Телефонує ${lead.claimed_by} (${until})`;
  }
  return mine ? 'Призначено вам' : `Призначено: ${lead.claimed_by}`;
}

/**
 * A lead's call: the big call button, which takes a lead nobody has as it dials ("Я телефоную",
 * docs/product.md, ADR 0074), so that the colleagues see who is calling it and cannot take it. The
 * dial does not wait for the answer; a refusal (a colleague took it a moment before) is said
 * under the button. A lead a colleague has keeps only its number as a plain link: its card says
 * who has it, and the big button would invite a second call to the same person.
 */
export function LeadCall({
  lead,
  onTaken,
}: {
  lead: LeadView;
  onTaken: (answer: Received<LeadDetail>) => void;
}) {
  const { client, email } = useInbox();
  const [refusal, setRefusal] = useState<string | null>(null);
  // A second tap while the take is under way is the same call.
  const taking = useRef(false);
  if (lead.claimed_by !== null && lead.claimed_by !== email) return <PhoneLink lead={lead} />;
  function take() {
    if (lead.claimed_by || !lead.open || taking.current) return;
    taking.current = true;
    setRefusal(null);
    client
      .take(lead.id)
      .then(onTaken, (caught: unknown) => setRefusal(errorText(caught)))
      .finally(() => {
        taking.current = false;
      });
  }
  return (
    <>
      <CallButton lead={lead} onCall={take} />
      {refusal && (
        <p role="alert" className="error">
          {refusal}
        </p>
      )}
    </>
  );
}

/** On a list card: who has the lead, if anyone. */
export function ClaimMarker({ lead }: { lead: LeadView }) {
  const { email } = useInbox();
  const text = claimText(lead, email);
  if (!text) return null;
  return (
    <p className="claim" data-mine={lead.claimed_by === email ? 'true' : undefined}>
      {text}
    </p>
  );
}

/**
 * On an open lead's page: who has it, "Я телефоную" to take it before calling (the others then
 * cannot), giving back one's own, and for admins handing it to someone.
 */
export function ClaimPanel({
  lead,
  onChange,
}: {
  lead: LeadView;
  onChange: (answer: Received<LeadDetail>) => void;
}) {
  const { client, email, role, notify } = useInbox();
  const { pathname } = useLocation();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const text = claimText(lead, email);
  const mine = lead.claimed_by === email;

  /** Runs a change of who has the lead; whether it was made. */
  async function act(run: () => Promise<Received<LeadDetail>>, done: string): Promise<boolean> {
    setPending(true);
    setError(null);
    try {
      onChange(await run());
      notify(done, pathname);
      return true;
    } catch (caught) {
      setError(errorText(caught));
      // Taken by a colleague meanwhile: show who has it now.
      if (caught instanceof ApiError && caught.status === 409) {
        client.lead(String(lead.id)).then(onChange, () => undefined);
      }
      return false;
    } finally {
      setPending(false);
    }
  }

  // "Я телефоную" and "Повернути…" each give way to the other: the focus goes to the panel's
  // heading, above what it now says, rather than to the page's start.
  const heading = useRef<HTMLHeadingElement>(null);
  async function actFromButton(run: () => Promise<Received<LeadDetail>>, done: string) {
    if (await act(run, done)) heading.current?.focus();
  }

  return (
    <section className="claim-panel" aria-labelledby="claim-heading">
      <h2 id="claim-heading" tabIndex={-1} ref={heading}>
        Хто телефонує
      </h2>
      <p>{text ?? 'Ніхто не взяв цю заявку.'}</p>
      <div className="actions">
        {!lead.claimed_by && (
          <button
            type="button"
            className="button primary"
            disabled={pending}
            onClick={() => actFromButton(() => client.take(lead.id), 'Заявка ваша: телефонуйте.')}
          >
            Я телефоную
          </button>
        )}
        {mine && (
          <button
            type="button"
            className="button"
            disabled={pending}
            onClick={() => actFromButton(() => client.giveBack(lead.id), 'Заявку повернуто в загальний список.')}
          >
            Повернути в загальний список
          </button>
        )}
      </div>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {role === 'admin' && (
        <HandOver
          lead={lead}
          pending={pending}
          onHand={(to) => act(() => client.assign(lead.id, to), 'Заявку передано.')}
        />
      )}
    </section>
  );
}

/** Nobody, in the hand-over list: the lead goes back to the pool. */
const POOL = '';

/** The admin's "Передати": the accounts load when it is opened. */
function HandOver({
  lead,
  pending,
  onHand,
}: {
  lead: LeadView;
  pending: boolean;
  onHand: (email: string | null) => void;
}) {
  const { client } = useInbox();
  const [accounts, setAccounts] = useState<Account[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [chosen, setChosen] = useState(lead.claimed_by ?? POOL);
  const [opened, setOpened] = useState(false);
  const selectId = useId();

  useEffect(() => {
    if (!opened) return;
    const controller = new AbortController();
    client.accounts(controller.signal).then(
      (answer) => setAccounts(answer.operators),
      (caught: unknown) => {
        if (!isAbort(caught)) setError(errorText(caught));
      },
    );
    return () => controller.abort();
  }, [client, opened]);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    onHand(chosen === POOL ? null : chosen);
  }

  return (
    <details className="hand-over" onToggle={(event) => setOpened(event.currentTarget.open)}>
      <summary>Передати іншому оператору</summary>
      {error && <LoadError message={error} />}
      {accounts && (
        <form className="stack" onSubmit={submit}>
          <label className="field" htmlFor={selectId}>
            <span>Кому</span>
            <select id={selectId} value={chosen} onChange={(event) => setChosen(event.target.value)}>
              <option value={POOL}>Нікому (у загальний список)</option>
              {accounts.map((account) => (
                <option key={account.email} value={account.email}>
                  {account.email}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className="button" disabled={pending}>
            Передати
          </button>
        </form>
      )}
    </details>
  );
}

/** A source as the figures name it: one that sent no tag or referrer came directly. */
export function sourceLabel(source: string | null): string {
  return source ?? 'Напряму';
}

/**
 * Below the figures, folded: per source, leads and how many were reached within 48 hours; per
 * operator, calls and leads reached within 48 hours (an operator sees their own). Loaded when
 * opened, so the list does not wait for it, and again every minute while open.
 */
export function BreakdownFigures() {
  const { role } = useInbox();
  const [opened, setOpened] = useState(false);
  // While open, asked again as the headline figures are.
  const {
    value: figures,
    error,
    again,
  } = useRefreshedRead((client, signal) => client.breakdown(signal), { enabled: opened });

  return (
    <details className="breakdown stat-wide" onToggle={(event) => setOpened(event.currentTarget.open)}>
      <summary>Джерела й оператори за 30 днів</summary>
      {error && (
        <LoadError message={error} onRetry={again} />
      )}
      {figures && (
        <>
          <table>
            <caption>Звідки заявки</caption>
            <thead>
              <tr>
                <th scope="col">Джерело</th>
                <th scope="col">Заявки</th>
                <th scope="col">Передзвонили за 48 год</th>
              </tr>
            </thead>
            <tbody>
              {figures.sources.length === 0 && (
                <tr>
                  <td colSpan={3}>Заявок ще не було.</td>
                </tr>
              )}
              {figures.sources.map((row) => (
                <tr key={row.source ?? ''}>
                  <th scope="row">{sourceLabel(row.source)}</th>
                  <td>{row.leads}</td>
                  <td>{row.reached}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <table>
            <caption>{role === 'admin' ? 'Оператори' : 'Ваші дзвінки'}</caption>
            <thead>
              <tr>
                <th scope="col">Оператор</th>
                <th scope="col">Дзвінки</th>
                <th scope="col">Передзвонили за 48 год</th>
              </tr>
            </thead>
            <tbody>
              {figures.operators.map((row) => (
                <tr key={row.email}>
                  <th scope="row">{row.email}</th>
                  <td>{row.calls}</td>
                  <td>{row.reached}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </details>
  );
}
