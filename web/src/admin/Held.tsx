import { useEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { errorText, isAbort, type LeadDetail, type LeadPage, type LeadView } from './api';
import { useRefreshWhenShown } from './clock';
import { useInbox } from './context';
import { EraseConfirm } from './Erase';
import { formatKyiv, heldReasonLabel } from './format';
import { RepeatMarker } from './LeadList';
import { LoadError } from './LoadError';

/** Where a held lead's page leads back to, handed over by the held view's links. */
export const FROM_HELD = { from: 'held' } as const;

/**
 * /admin/held: the leads held for review, newest first, each with why it was held and the two ways
 * out: "Передати в роботу" (to the call list; its notifications go out then) or erasure.
 */
export function HeldList() {
  const { client, notify } = useInbox();
  const { pathname } = useLocation();
  const [page, setPage] = useState<LeadPage | null>(null);
  const [loading, setLoading] = useState(true);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [retry, setRetry] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => heading.current?.focus(), []);

  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    setError(null);
    client.leads({ q: '', filter: 'held' }, controller.signal).then(
      (answer) => {
        setPage(answer);
        setLoading(false);
      },
      (caught: unknown) => {
        if (isAbort(caught)) return;
        setError(errorText(caught));
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [client, retry]);
  useRefreshWhenShown(() => setRetry((n) => n + 1));

  async function showMore() {
    if (page?.next_before_id == null) return;
    setLoadingMore(true);
    setError(null);
    try {
      const answer = await client.leads({ q: '', filter: 'held', beforeId: page.next_before_id });
      setPage((current) => {
        const seen = new Set(current?.leads.map((lead) => lead.id));
        const leads = [...(current?.leads ?? []), ...answer.leads.filter((lead) => !seen.has(lead.id))];
        return { ...answer, leads };
      });
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setLoadingMore(false);
    }
  }

  /** A lead has left the view: it goes from the list, focus to the heading, the status line says why. */
  function gone(leaves: (lead: LeadView) => boolean, message: string) {
    setPage((current) => current && { ...current, leads: current.leads.filter((lead) => !leaves(lead)) });
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
        годин не рахуються. Заявку людини передайте в роботу, іншу видаліть.
      </p>
      {error && <LoadError message={error} onRetry={() => setRetry((n) => n + 1)} />}
      {!page && loading && <p className="muted">Завантаження…</p>}
      {page &&
        (page.leads.length === 0 ? (
          <p className="empty">Заявок на перевірці немає</p>
        ) : (
          <ul className="leads" aria-busy={loading} aria-label="Заявки на перевірці">
            {page.leads.map((lead) => (
              <HeldItem
                key={lead.id}
                lead={lead}
                onReleased={() => gone((other) => other.id === lead.id, `Заявку №${lead.id} передано в роботу.`)}
                // Erasure takes every lead with the phone, held or not.
                onErased={(erased) =>
                  gone((other) => other.phone_e164 === lead.phone_e164, `Видалено заявок: ${erased}`)
                }
              />
            ))}
          </ul>
        ))}
      {page && page.next_before_id !== null && (
        <button type="button" className="button more" onClick={showMore} disabled={loadingMore}>
          Показати ще
        </button>
      )}
    </>
  );
}

function HeldItem({
  lead,
  onReleased,
  onErased,
}: {
  lead: LeadView;
  onReleased: () => void;
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
        <a className="tel" href={`tel:${lead.phone_e164}`}>
          {lead.phone}
        </a>
        <time dateTime={lead.created_at}>{formatKyiv(lead.created_at)}</time>
      </p>
      <HeldReasons reasons={lead.held ?? []} />
      <div className="actions held-actions">
        <ReleaseButton leadId={lead.id} onReleased={onReleased} />
        <EraseConfirm lead={lead} onErased={onErased} />
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

/** "Передати в роботу": releases a held lead to the call list and hands back the server's answer. */
export function ReleaseButton({
  leadId,
  onReleased,
}: {
  leadId: number;
  onReleased: (answer: LeadDetail) => void;
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
