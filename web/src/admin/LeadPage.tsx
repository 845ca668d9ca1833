import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { ApiError, errorText, isAbort, type LeadDetail, type LeadView } from './api';
import { useRefreshWhenShown, useServerNow } from './clock';
import { useInbox } from './context';
import { LoadError } from './LoadError';
import { NotFound } from './Inbox';
import { type CallDraft, forgetDraft, readDraft, saveDraft } from './drafts';
import { OUTCOMES, OUTCOME_LABELS, formatKyiv, isOverdue, outcomeLabel, statusLabel, timeLeft } from './format';

/** /admin/leads/:id — one lead, its calls, the call form and erasure. */
export function LeadPage() {
  const { id = '' } = useParams();
  // Lead ids are positive integers; anything else is not a page of the inbox.
  return /^[1-9][0-9]{0,15}$/.test(id) ? <Lead key={id} id={id} /> : <NotFound />;
}

function Lead({ id }: { id: string }) {
  const { client, notify } = useInbox();
  const location = useLocation();
  // The list's ?q=&filter=, handed over by its link, so the way back keeps the operator's search.
  const listSearch = (location.state as { list?: unknown } | null)?.list;
  const back = { pathname: '/', search: typeof listSearch === 'string' ? listSearch : '' };

  const [detail, setDetail] = useState<LeadDetail | null>(null);
  // A lead that is not there (404: never was, or erased) is not worth asking for again.
  const [error, setError] = useState<{ message: string; missing: boolean } | null>(null);
  const [retry, setRetry] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => heading.current?.focus(), []);

  useEffect(() => {
    const controller = new AbortController();
    setError(null);
    client.lead(id, controller.signal).then(setDetail, (caught: unknown) => {
      if (isAbort(caught)) return;
      const missing = caught instanceof ApiError && caught.status === 404;
      if (missing) setDetail(null);
      setError({ message: errorText(caught), missing });
    });
    return () => controller.abort();
  }, [client, id, retry]);

  useRefreshWhenShown(() => setRetry((n) => n + 1));
  const now = useServerNow(detail?.now);

  return (
    <article className="lead-page">
      <p>
        <Link to={back}>← До списку</Link>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        Заявка №{id}
      </h1>
      {error && (
        <LoadError message={error.message} onRetry={error.missing ? undefined : () => setRetry((n) => n + 1)} />
      )}
      {!detail && !error && <p className="muted">Завантаження…</p>}
      {detail && now !== null && (
        <>
          <LeadFacts lead={detail.lead} now={now} />
          <section aria-labelledby="calls-heading">
            <h2 id="calls-heading">Дзвінки</h2>
            {detail.attempts.length === 0 ? (
              <p className="muted">Дзвінків ще не було.</p>
            ) : (
              <ol className="calls">
                {detail.attempts.map((attempt) => (
                  <li key={attempt.id}>
                    <p className="call-head">
                      <time dateTime={attempt.at}>{formatKyiv(attempt.at)}</time>
                      <span>{attempt.operator}</span>
                    </p>
                    <p className="call-outcome">{outcomeLabel(attempt.outcome)}</p>
                    {attempt.note && <p className="note">{attempt.note}</p>}
                  </li>
                ))}
              </ol>
            )}
          </section>
          <AttemptForm
            lead={detail.lead}
            onRecorded={(answer) => {
              setDetail(answer);
              notify('Дзвінок записано.', location.pathname);
            }}
          />
          <Erase lead={detail.lead} back={back} />
        </>
      )}
    </article>
  );
}

function LeadFacts({ lead, now }: { lead: LeadView; now: number }) {
  const left = timeLeft(lead, now);
  const sent = formatKyiv(lead.created_at);
  return (
    <section className="lead-facts" data-overdue={isOverdue(lead, now) ? 'true' : undefined}>
      <p className="badges">
        <span className="status">{statusLabel(lead.status)}</span>
        {left && <span className="due">{left}</span>}
      </p>
      <dl className="facts">
        <dt>Ім'я</dt>
        <dd>{lead.name}</dd>
        <dt>Телефон</dt>
        <dd>
          <a className="tel" href={`tel:${lead.phone_e164}`}>
            {lead.phone}
          </a>
        </dd>
        <dt>Чи є у Вас діагноз, підтверджений лікарем?</dt>
        <dd>{lead.confirmation}</dd>
        <dt>Коментар</dt>
        <dd className="note">{lead.comment ?? '—'}</dd>
        <dt>Надіслано</dt>
        <dd>
          <time dateTime={lead.created_at}>{sent}</time>
        </dd>
        {lead.reached_at && (
          <>
            <dt>Зв'язалися</dt>
            <dd>
              <time dateTime={lead.reached_at}>{formatKyiv(lead.reached_at)}</time>
            </dd>
          </>
        )}
      </dl>
      <p className="consent">
        Згода: надіслано {sent}, версія політики конфіденційності {lead.policy_version}
      </p>
    </section>
  );
}

/**
 * A call being written is kept (`drafts.ts`) until it is recorded, so a reload loses nothing typed,
 * nor does a session that ends meanwhile, for the operator who signs in again (`App`).
 */
function useCallDraft(leadId: number) {
  const [draft, setDraft] = useState<CallDraft>(() => readDraft(leadId));
  useEffect(() => saveDraft(leadId, draft), [leadId, draft]);
  return [draft, setDraft] as const;
}

function AttemptForm({ lead, onRecorded }: { lead: LeadView; onRecorded: (answer: LeadDetail) => void }) {
  const { client } = useInbox();
  const [{ outcome, note }, setDraft] = useCallDraft(lead.id);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!outcome) {
      setError('Виберіть результат дзвінка.');
      return;
    }
    setPending(true);
    setError(null);
    try {
      const answer = await client.recordAttempt(lead.id, outcome, note);
      setDraft({ outcome: null, note: '' });
      onRecorded(answer);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setPending(false);
    }
  }

  return (
    <form className="stack attempt-form" aria-labelledby="attempt-heading" onSubmit={submit} noValidate>
      <h2 id="attempt-heading">Записати дзвінок</h2>
      <fieldset className="choices" role="radiogroup" aria-labelledby="outcome-legend">
        <legend id="outcome-legend">Результат дзвінка</legend>
        {OUTCOMES.map((value) => (
          <label key={value} className="choice">
            <input
              type="radio"
              name="outcome"
              value={value}
              checked={outcome === value}
              onChange={() => setDraft((draft) => ({ ...draft, outcome: value }))}
            />
            <span>{OUTCOME_LABELS[value]}</span>
          </label>
        ))}
      </fieldset>
      <label className="field">
        <span>Нотатка</span>
        <textarea name="note" rows={3} maxLength={1000} value={note} onChange={(event) => setDraft((draft) => ({ ...draft, note: event.target.value }))} />
      </label>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <button type="submit" className="button primary" disabled={pending}>
        Записати дзвінок
      </button>
    </form>
  );
}

function Erase({ lead, back }: { lead: LeadView; back: { pathname: string; search: string } }) {
  const { client, notify } = useInbox();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const start = useRef<HTMLButtonElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);

  // Focus follows the step: onto "Скасувати" (the safe choice) when asked, back when cancelled.
  useEffect(() => {
    if (confirming) cancelButton.current?.focus();
    else if (asked.current) start.current?.focus();
    asked.current = confirming;
  }, [confirming]);

  async function erase() {
    setPending(true);
    setError(null);
    try {
      const { erased } = await client.erase(lead.phone);
      forgetDraft(lead.id);
      notify(`Видалено заявок: ${erased}`, back.pathname);
      // Replace: "back" must not return to the page of a lead that no longer exists.
      navigate(back, { replace: true });
    } catch (caught) {
      setError(errorText(caught));
      setPending(false);
    }
  }

  return (
    <section className="erase" aria-labelledby="erase-heading">
      <h2 id="erase-heading">Видалення даних</h2>
      {!confirming ? (
        <button ref={start} type="button" className="button danger-outline" onClick={() => setConfirming(true)}>
          Видалити дані цієї людини
        </button>
      ) : (
        <div className="stack" role="group" aria-labelledby="erase-question">
          <p id="erase-question" className="warning">
            Буде назавжди видалено всі заявки з номером {lead.phone} (усі заявки цієї людини) разом із записами
            дзвінків. Відновити їх буде неможливо.
          </p>
          {error && (
            <p role="alert" className="error">
              {error}
            </p>
          )}
          <div className="actions">
            <button type="button" className="button danger" onClick={erase} disabled={pending}>
              Так, видалити назавжди
            </button>
            <button ref={cancelButton} type="button" className="button" onClick={() => setConfirming(false)}>
              Скасувати
            </button>
          </div>
        </div>
      )}
    </section>
  );
}
