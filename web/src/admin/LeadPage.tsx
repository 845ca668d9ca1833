import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import {
  ApiError,
  errorText,
  isAbort,
  type LeadDetail,
  type LeadRecord,
  type LeadView,
  type Received,
} from './api';
import { useRefreshWhenShown, useServerNow } from './clock';
import { useInbox } from './context';
import { ClaimPanel, LeadCall } from './Claims';
import { EraseConfirm } from './Erase';
import {
  HELD_LABEL,
  OUTCOMES,
  OUTCOME_LABELS,
  formatKyiv,
  isOverdue,
  nextCallText,
  outcomeLabel,
  statusLabel,
  timeLeft,
} from './format';
import { FROM_HELD, HeldReasons, ReleaseButton, releasedText } from './Held';
import { LeadMarks, RetriesUsedUp } from './LeadMarks';
import { LoadError } from './LoadError';
import { NotFound } from './NotFound';
import { OutcomeButtons } from './OutcomeButtons';
import { type CallRecorder, useCallRecorder } from './recorder';
import { PhoneLink } from './Phone';

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
  const location = useLocation();
  // The list's ?q=&filter=, handed over by its link, so the way back keeps the operator's search;
  // from the held view, the way back leads there.
  const state = location.state as { list?: unknown; from?: unknown } | null;
  const back =
    state?.from === FROM_HELD.from
      ? { pathname: '/held', search: '' }
      : { pathname: '/', search: typeof state?.list === 'string' ? state.list : '' };

  const { client } = useInbox();
  const [detail, setDetail] = useState<Received<LeadDetail> | null>(null);
  // A lead that is not there (404: never was, or erased) is not worth asking for again.
  const [error, setError] = useState<{ message: string; missing: boolean } | null>(null);
  const [retry, setRetry] = useState(0);
  const again = () => {
    setError(null);
    setRetry((n) => n + 1);
  };
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => heading.current?.focus(), []);

  useEffect(() => {
    const controller = new AbortController();
    client.lead(id, controller.signal).then(setDetail, (caught: unknown) => {
      if (isAbort(caught)) return;
      const missing = caught instanceof ApiError && caught.status === 404;
      if (missing) setDetail(null);
      setError({ message: errorText(caught), missing });
    });
    return () => controller.abort();
  }, [client, id, retry]);

  useRefreshWhenShown(again);
  const now = useServerNow(detail);

  return (
    <article className="lead-page">
      <p>
        <Link to={back}>← До списку</Link>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        Заявка №{id}
      </h1>
      {error && <LoadError message={error.message} onRetry={error.missing ? undefined : again} />}
      {!detail && !error && <p className="muted">Завантаження…</p>}
      {detail && now !== null && (
        <LeadBody
          detail={detail}
          now={now}
          back={back}
          onChange={setDetail}
          // A held lead's notice goes with its release button: focus to the page's heading, not lost.
          onReleased={() => heading.current?.focus()}
        />
      )}
    </article>
  );
}

type Back = { pathname: string; search: string };

/**
 * One lead, phone first: what the operator needs for the call and the call itself at the top
 * (status, time left, name, the call button, the visitor's comment, the outcome one tap away),
 * then the rest of the lead, its calls, the call form with a note, and erasure.
 */
function LeadBody({
  detail,
  now,
  back,
  onChange,
  onReleased,
}: {
  detail: Received<LeadDetail>;
  now: number;
  back: Back;
  onChange: (answer: Received<LeadDetail>) => void;
  onReleased: () => void;
}) {
  const { notify } = useInbox();
  const { pathname } = useLocation();
  const { lead } = detail;
  // A held lead is released before anyone calls; a repeat's calls go on its first lead.
  const callable = !lead.held && lead.repeat_of === null;
  const recorder = useCallRecorder(lead, (answer) => {
    onChange(answer);
    notify('Дзвінок записано.', pathname);
  });

  return (
    <>
      <CallCard lead={lead} now={now} recorder={callable ? recorder : null} onTaken={onChange} />
      {callable && lead.open && <ClaimPanel lead={lead} onChange={onChange} />}
      <LeadFacts lead={lead} />
      {lead.held && (
        <HeldNotice
          reasons={lead.held}
          leadId={lead.id}
          onReleased={(answer) => {
            onChange(answer);
            onReleased();
            notify(releasedText(answer.lead, 'Заявку'), pathname);
          }}
        />
      )}
      {lead.repeat_of !== null && <RepeatOf firstId={lead.repeat_of} />}
      {detail.repeats.length > 0 && <Repeats lead={lead} repeats={detail.repeats} />}
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
      {callable && <AttemptForm recorder={recorder} />}
      <Erase lead={lead} back={back} />
    </>
  );
}

/**
 * The top of a lead's page, sized for a phone's first screen: the status, the time left on the
 * 48 hours and when the next call is due (if later), the name, the call button (a plain number for
 * a lead nobody should call yet, or one a colleague has), the visitor's comment, what to do once
 * the retries are used up, and the outcomes, each recorded with one tap.
 */
function CallCard({
  lead,
  now,
  recorder,
  onTaken,
}: {
  lead: LeadView;
  now: number;
  recorder: CallRecorder | null;
  onTaken: (answer: Received<LeadDetail>) => void;
}) {
  const left = timeLeft(lead, now);
  const next = nextCallText(lead, now);
  return (
    <section className="call-card" data-overdue={isOverdue(lead, now) ? 'true' : undefined}>
      <p className="badges">
        {lead.held ? (
          <span className="status held-badge">{HELD_LABEL}</span>
        ) : (
          <span className="status">{statusLabel(lead.status)}</span>
        )}
        {left && <span className="due">{left}</span>}
        {next && <span className="next-call">{next}</span>}
      </p>
      <dl className="facts call-facts">
        <dt className="visually-hidden">Ім'я</dt>
        <dd className="call-name">{lead.name}</dd>
        <dt className="visually-hidden">Телефон</dt>
        <dd>{recorder ? <LeadCall lead={lead} onTaken={onTaken} /> : <PhoneLink lead={lead} />}</dd>
        <dt>Коментар</dt>
        <dd className="note">{lead.comment ?? '—'}</dd>
      </dl>
      {lead.open && <LeadMarks lead={lead} />}
      <RetriesUsedUp lead={lead} />
      {recorder && <QuickOutcomes recorder={recorder} now={now} />}
    </section>
  );
}

/** Where the lead came from, in one line: the campaign's tags, then the linking site. */
function source(lead: LeadView): string {
  const tags = [lead.utm_source, lead.utm_medium, lead.utm_campaign, lead.utm_content, lead.utm_term].filter(Boolean);
  const parts = [tags.join(' / '), lead.referrer ? `з ${lead.referrer}` : ''].filter(Boolean);
  return parts.join(', ');
}

/** The rest of what the visitor sent, and the consent evidence. */
function LeadFacts({ lead }: { lead: LeadView }) {
  const sent = formatKyiv(lead.created_at);
  return (
    <section className="lead-facts">
      <dl className="facts">
        <dt>Чи є у Вас діагноз, підтверджений лікарем?</dt>
        <dd>{lead.confirmation}</dd>
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
        {source(lead) && (
          <>
            <dt>Звідки</dt>
            <dd>{source(lead)}</dd>
          </>
        )}
      </dl>
      <p className="consent">
        Згода: надіслано {sent}, версія політики конфіденційності {lead.policy_version}
      </p>
    </section>
  );
}


/** After the call, its outcome in one tap (`OutcomeButtons`), right under the call button. */
function QuickOutcomes({ recorder, now }: { recorder: CallRecorder; now: number }) {
  const { failure } = recorder;
  return (
    <div className="quick-outcomes" role="group" aria-labelledby="quick-heading">
      <p id="quick-heading" className="quick-heading">
        Записати результат одним натисканням
      </p>
      <OutcomeButtons now={now} recorder={recorder} />
      {failure?.from === 'tap' && (
        <p role="alert" className="error">
          {failure.message}
        </p>
      )}
    </div>
  );
}

function AttemptForm({ recorder }: { recorder: CallRecorder }) {
  const {
    draft: { outcome, note },
    setDraft,
    pending,
    failure,
    record,
  } = recorder;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    record(outcome, 'form');
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
        <textarea
          name="note"
          rows={3}
          maxLength={1000}
          value={note}
          onChange={(event) => setDraft((draft) => ({ ...draft, note: event.target.value }))}
        />
      </label>
      {failure?.from === 'form' && (
        <p role="alert" className="error">
          {failure.message}
        </p>
      )}
      <button type="submit" className="button primary" disabled={pending}>
        Записати дзвінок
      </button>
    </form>
  );
}

/** Erasure, for admins only (an operator does not see it; the server would refuse it). */
function Erase({ lead, back }: { lead: LeadView; back: Back }) {
  const { notify, role } = useInbox();
  const navigate = useNavigate();
  if (role !== 'admin') return null;
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
  onReleased: (answer: Received<LeadDetail>) => void;
}) {
  const { role } = useInbox();
  return (
    <section className="held" aria-labelledby="held-heading">
      <h2 id="held-heading">Заявка на перевірці</h2>
      <p>
        Її збережено, але не передано в роботу: вона схожа на надіслану програмою. Сповіщень про неї не було, 48 годин
        не рахуються. Якщо це людина, передайте заявку в роботу; якщо ні,{' '}
        {role === 'admin' ? 'видаліть.' : 'її видалить адміністратор.'}
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
