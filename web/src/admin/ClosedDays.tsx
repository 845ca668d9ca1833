import { useCallback, useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { errorText, isAbort, type ClosedDay, type ClosedDays } from './api';
import { ConfirmedAction } from './Confirm';
import { useInbox } from './context';
import { formatDay, formatKyiv } from './format';
import { FormError } from './FormError';
import { LoadError } from './LoadError';

/** Longest note the server takes (docs/admin-api.md, "Closed days"). */
const MAX_NOTE_CHARS = 100;

/**
 * /admin/closed-days (admins): the days the team does not work, from today on. Those of the server's
 * settings (ZAYAVKA_CLOSED_DAYS) are shown but changed only there; the inbox's own are added with a
 * date and an optional note and removed (asked first) here. Retries, reminders, escalations and the
 * at-risk mark follow the list at once.
 */
export function ClosedDaysPage() {
  const { client, notify } = useInbox();
  const [data, setData] = useState<ClosedDays | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [retry, setRetry] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);

  useEffect(() => {
    const controller = new AbortController();
    client.closedDays(controller.signal).then(
      (answer) => {
        setData(answer);
        setError(null);
      },
      (caught: unknown) => {
        if (!isAbort(caught)) setError(errorText(caught));
      },
    );
    return () => controller.abort();
  }, [client, retry]);

  /** The list changed: say so, and read it again. */
  const changed = useCallback(
    (text: string) => {
      notify(text, '/closed-days');
      setRetry((n) => n + 1);
    },
    [notify],
  );

  return (
    <>
      <p>
        <Link to="/">← До списку</Link>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        Вихідні дні
      </h1>
      <p className="muted">
        У ці дні команда не працює: повторні дзвінки, нагадування й ескалації їх пропускають, а заявки, чиї 48 годин
        закінчуються у вихідні чи одразу після них, позначено «Під загрозою».
      </p>
      {error && <LoadError message={error} onRetry={() => setRetry((n) => n + 1)} />}
      {!data && !error && <p className="muted">Завантаження…</p>}
      {data && (
        <>
          <AddDay today={data.today} onAdded={changed} />
          <h2>Попереду</h2>
          {data.days.length === 0 ? (
            <p className="empty">Вихідних попереду немає.</p>
          ) : (
            <ul className="calls closed-days" aria-label="Вихідні дні">
              {data.days.map((day) => (
                <DayItem key={day.day} day={day} onRemoved={changed} />
              ))}
            </ul>
          )}
        </>
      )}
    </>
  );
}

function DayItem({ day, onRemoved }: { day: ClosedDay; onRemoved: (text: string) => void }) {
  const { client } = useInbox();
  const headId = useId();
  const words = formatDay(day.day);
  return (
    <li>
      <p className="call-head" id={headId}>
        <strong>
          <time dateTime={day.day}>{words}</time>
        </strong>
        {day.note && <span> — {day.note}</span>}
      </p>
      {day.source === 'settings' ? (
        <p className="muted">З налаштувань сервера (ZAYAVKA_CLOSED_DAYS): змінити можна лише там.</p>
      ) : (
        <>
          {day.added_by && day.added_at && (
            <p className="audit-detail">
              Додав(ла) {day.added_by}, <time dateTime={day.added_at}>{formatKyiv(day.added_at)}</time>
            </p>
          )}
          <div className="actions">
            <ConfirmedAction
              label="Прибрати"
              question={`Прибрати вихідний ${words}? Команда знову працюватиме цього дня, а в журналі дій залишиться запис.`}
              confirm="Так, прибрати"
              describedBy={headId}
              act={async () => {
                await client.removeClosedDay(day.day);
                onRemoved(`Вихідний ${words} прибрано.`);
              }}
            />
          </div>
        </>
      )}
    </li>
  );
}

/** The form that closes a day: a date from today on and an optional note. */
function AddDay({ today, onAdded }: { today: string; onAdded: (text: string) => void }) {
  const { client } = useInbox();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const dayInput = useRef<HTMLInputElement>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (pending) return;
    const form = event.currentTarget;
    const data = new FormData(form);
    const day = String(data.get('day') ?? '').trim();
    const note = String(data.get('note') ?? '').trim();
    if (day === '') {
      setError('Оберіть дату.');
      dayInput.current?.focus();
      return;
    }
    setPending(true);
    setError(null);
    try {
      const answer = await client.addClosedDay(day, note);
      form.reset();
      dayInput.current?.focus();
      const words = formatDay(answer.day.day);
      onAdded(answer.added ? `Вихідний ${words} додано.` : `${words} уже вихідний.`);
    } catch (caught) {
      // 400 (not a date, a past day, too far ahead, a long note) in the server's words.
      setError(errorText(caught));
    } finally {
      setPending(false);
    }
  }

  return (
    <div className="add-closed-day">
      <h2 id="add-closed-day-heading">Додати вихідний</h2>
      <form className="stack" onSubmit={submit} aria-labelledby="add-closed-day-heading" noValidate>
        <label className="field">
          <span>Дата</span>
          <input ref={dayInput} name="day" type="date" min={today} required />
        </label>
        <label className="field">
          <span>Примітка (необов’язково)</span>
          <input name="note" type="text" maxLength={MAX_NOTE_CHARS} autoComplete="off" />
        </label>
        <FormError error={error} />
        <button type="submit" className="button primary" disabled={pending}>
          Додати
        </button>
      </form>
    </div>
  );
}
