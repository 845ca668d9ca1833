import { useEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { errorText, type LeadDetail, type LeadView, type Received } from './api';
import { useRefreshWhenShown } from './clock';
import { useInbox } from './context';
import { EraseConfirm } from './Erase';
import { formatKyiv, heldReasonLabel } from './format';
import { RepeatMarker } from './LeadList';
import { LoadError } from './LoadError';
import { usePagedList } from './pages';
import { PhoneLink } from './Phone';
import { ShowMore } from './ShowMore';

/** Where a held lead's page leads back to, handed over by the held view's links. */
export const FROM_HELD = { from: 'held' } as const;

/**
 * /admin/held: the leads held for review, newest first, each with why it was held and the two ways
 * out: "Передати в роботу" (to the call list; its notifications go out then) or erasure (admins only).
 */
export function HeldList() {
  const { client, notify, role } = useInbox();
  const { pathname } = useLocation();
  const { page, loading, loadingMore, error, again, showMore, drop } = usePagedList<LeadView>(
    (beforeId, signal) =>
      client
        .leads({ q: '', filter: 'held', beforeId }, signal)
        .then((answer) => ({ items: answer.leads, next_before_id: answer.next_before_id })),
    client,
  );
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => heading.current?.focus(), []);
  useRefreshWhenShown(again);

  /** A lead has left the view: it goes from the list, focus to the heading, the status line says why. */
  function gone(leaves: (lead: LeadView) => boolean, message: string) {
    drop(leaves);
    heading.current?.focus();
    notify(message, pathname);
  }

  return (
    <>
      <p>
        <Link to="/">← До списку</Link>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        На перевірці
      </h1>
      <p className="muted">
        Ці заявки збережено, але не передано в роботу: вони схожі на надіслані програмою. Сповіщень про них не було, 48
        годин не рахуються. Заявку людини передайте в роботу, {role === 'admin' ? 'іншу видаліть.' : 'іншу видалить адміністратор.'}
      </p>
      {error && <LoadError message={error} onRetry={again} />}
      {!page && loading && <p className="muted">Завантаження…</p>}
      {page &&
        (page.items.length === 0 ? (
          <p className="empty">Заявок на перевірці немає</p>
        ) : (
          <ul className="leads" aria-busy={loading} aria-label="Заявки на перевірці">
            {page.items.map((lead) => (
              <HeldItem
                key={lead.id}
                lead={lead}
                mayErase={role === 'admin'}
                onReleased={(answer) => gone((other) => other.id === lead.id, releasedText(answer.lead))}
                // Erasure takes every lead with the phone, held or not.
                onErased={(erased) =>
                  gone((other) => other.phone_e164 === lead.phone_e164, `Видалено заявок: ${erased}`)
                }
              />
            ))}
          </ul>
        ))}
      <ShowMore page={page} loading={loadingMore} onShowMore={showMore} />
    </>
  );
}

function HeldItem({
  lead,
  mayErase,
  onReleased,
  onErased,
}: {
  lead: LeadView;
  /** Admins only: an operator releases, an admin erases. */
  mayErase: boolean;
  onReleased: (answer: Received<LeadDetail>) => void;
  onErased: (erased: number) => void;
}) {
  return (
    <li className="lead" data-held="true">
      <div className="lead-head">
        <Link className="lead-link" to={`/leads/${lead.id}`} state={FROM_HELD}>
          Заявка №{lead.id}
        </Link>
        <RepeatMarker count={lead.repeat_count} />
      </div>
      <p className="lead-name">{lead.name}</p>
      <p className="lead-meta">
        <PhoneLink lead={lead} />
        <time dateTime={lead.created_at}>{formatKyiv(lead.created_at)}</time>
      </p>
      <HeldReasons reasons={lead.held ?? []} />
      <div className="actions held-actions">
        <ReleaseButton leadId={lead.id} onReleased={onReleased} />
        {mayErase && <EraseConfirm lead={lead} onErased={onErased} />}
      </div>
    </li>
  );
}

/** Why a lead is held, a phrase per reason. */
export function HeldReasons({ reasons }: { reasons: string[] }) {
  return (
    <div className="held-why">
      <p>Чому на перевірці:</p>
      <ul>
        {reasons.map((code) => (
          <li key={code}>{heldReasonLabel(code)}</li>
        ))}
      </ul>
    </div>
  );
}

/**
 * What a release did: the lead is in the call list, or, where the person has an open lead there
 * already, it joined that one as a repeat (ADR 0085). `which` names the lead ("Заявку" on its page).
 */
export function releasedText(lead: LeadView, which = `Заявку №${lead.id}`): string {
  return lead.repeat_of === null
    ? `${which} передано в роботу.`
    : `${which} додано до відкритої заявки №${lead.repeat_of} цієї людини: дзвоніть за тією.`;
}

/** "Передати в роботу": releases a held lead to the call list and hands back the server's answer. */
export function ReleaseButton({
  leadId,
  onReleased,
}: {
  leadId: number;
  onReleased: (answer: Received<LeadDetail>) => void;
}) {
  const { client } = useInbox();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function release() {
    setPending(true);
    setError(null);
    try {
      onReleased(await client.release(leadId));
    } catch (caught) {
      setError(errorText(caught));
      setPending(false);
    }
  }

  return (
    <>
      <button type="button" className="button primary" onClick={release} disabled={pending}>
        Передати в роботу
      </button>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </>
  );
}
