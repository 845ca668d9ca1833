import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { ApiError, errorText, isAbort, type LeadDetail, type LeadRecord, type LeadView } from './api';
import { useRefreshWhenShown, useServerNow } from './clock';
import { useInbox } from './context';
import { LoadError } from './LoadError';
import { NotFound } from './Inbox';
import { type CallDraft, readDraft, saveDraft } from './drafts';
import { EraseConfirm } from './Erase';
import {
  HELD_LABEL,
  OUTCOMES,
  OUTCOME_LABELS,
  formatKyiv,
  isOverdue,
  outcomeLabel,
  statusLabel,
  timeLeft,
} from './format';
import { FROM_HELD, HeldReasons, ReleaseButton } from './Held';

/**
 * /admin/leads/:id — one lead, the person's later submissions, its calls, the call form and
 * erasure; a held lead says why it is held and can be released instead of called.
 */
export function LeadPage() {
  const { id = '' } = useParams();
  // Lead ids are positive integers; anything else is not a page of the inbox.
  return /^[1-9][0-9]{0,15}$/.test(id) ? <Lead key={id} id={id} /> : <NotFound />;
}

function Lead({ id }: { id: string }) {
  const { client, notify } = useInbox();
  const location = useLocation();
  // The list's ?q=&filter=, handed over by its link, so the way back keeps the operator's search;
  // from the held view, the way back leads there.
  const state = location.state as { list?: unknown; from?: unknown } | null;
  const back =
    state?.from === FROM_HELD.from
      ? { pathname: '/held', search: '' }
      : { pathname: '/', search: typeof state?.list === 'string' ? state.list : '' };

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
          {detail.lead.held && (
            <HeldNotice
              reasons={detail.lead.held}
              leadId={detail.lead.id}
              onReleased={(answer) => {
                setDetail(answer);
                // The button goes with the notice: focus to the page's heading, not lost.
                heading.current?.focus();
                notify('Заявку передано в роботу.', location.pathname);
              }}
            />
          )}
          {detail.lead.repeat_of !== null && <RepeatOf firstId={detail.lead.repeat_of} />}
          {detail.repeats.length > 0 && <Repeats lead={detail.lead} repeats={detail.repeats} />}
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
          {/* A held lead is released before anyone calls; a repeat's calls go on its first lead. */}
          {!detail.lead.held && detail.lead.repeat_of === null && (
            <AttemptForm
              lead={detail.lead}
              onRecorded={(answer) => {
                setDetail(answer);
                notify('Дзвінок записано.', location.pathname);
              }}
            />
          )}
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
        {lead.held ? (
          <span className="status held-badge">{HELD_LABEL}</span>
        ) : (
          <span className="status">{statusLabel(lead.status)}</span>
        )}
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
  const { notify } = useInbox();
  const navigate = useNavigate();
  return (
    <section className="erase" aria-labelledby="erase-heading">
      <h2 id="erase-heading">Видалення даних</h2>
      <EraseConfirm
        lead={lead}
        onErased={(erased) => {
          notify(`Видалено заявок: ${erased}`, back.pathname);
          // Replace: "back" must not return to the page of a lead that no longer exists.
          navigate(back, { replace: true });
        }}
      />
    </section>
  );
}

/** A held lead: why, and "Передати в роботу" (erasure is below, as for every lead). */
function HeldNotice({
  reasons,
  leadId,
  onReleased,
}: {
  reasons: string[];
  leadId: number;
  onReleased: (answer: LeadDetail) => void;
}) {
  return (
    <section className="held" aria-labelledby="held-heading">
      <h2 id="held-heading">Заявка на перевірці</h2>
      <p>
        Її збережено, але не передано в роботу: вона схожа на надіслану програмою. Сповіщень про неї не було, 48 годин
        не рахуються. Якщо це людина, передайте заявку в роботу; якщо ні, видаліть.
      </p>
      <HeldReasons reasons={reasons} />
      <div className="actions">
        <ReleaseButton leadId={leadId} onReleased={onReleased} />
      </div>
    </section>
  );
}

/** A later submission's own page points to the person's first lead, where the calls are. */
function RepeatOf({ firstId }: { firstId: number }) {
  return (
    <p className="repeat-of">
      Повторна заявка цієї людини. Перша: <Link to={`/leads/${firstId}`}>Заявка №{firstId}</Link>
    </p>
  );
}

/**
 * The person's later submissions, oldest first: when each came, and what it says that the first
 * does not (a second message often adds a comment).
 */
function Repeats({ lead, repeats }: { lead: LeadView; repeats: LeadRecord[] }) {
  return (
    <section className="repeats" aria-labelledby="repeats-heading">
      <h2 id="repeats-heading">Заявок від цієї людини: {repeats.length + 1}</h2>
      <p className="muted">Пізніші заявки, від першої до останньої:</p>
      <ol className="calls">
        {repeats.map((repeat) => {
          const name = repeat.name !== lead.name;
          const confirmation = repeat.confirmation !== lead.confirmation;
          const comment = repeat.comment !== lead.comment;
          return (
            <li key={repeat.id}>
              <p className="call-head">
                <time dateTime={repeat.created_at}>{formatKyiv(repeat.created_at)}</time>
                <span>№{repeat.id}</span>
              </p>
              {name && <p>Ім'я: {repeat.name}</p>}
              {confirmation && <p>Діагноз, підтверджений лікарем: {repeat.confirmation}</p>}
              {comment && <p className="note">Коментар: {repeat.comment ?? '—'}</p>}
              {!name && !confirmation && !comment && <p className="muted">Те саме, що в першій заявці.</p>}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
