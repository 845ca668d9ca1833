import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { errorText, isAbort, type LeadPage, type LeadView, type Received } from './api';
import { useRefreshWhenShown, useRefreshWhileShown, useServerNow } from './clock';
import { useInbox } from './context';
import { DeskCard, type Recorded } from './DeskCard';
import { LoadError } from './LoadError';

/**
 * "Кому дзвонити зараз": the open leads to call now, in the server's order (call-backs that came
 * due first, then the nearest deadline; `filter=due`). Asked for again every minute while shown
 * and when the page is shown again, without dimming the cards being worked; a call recorded here
 * keeps its card, shrunk to what was recorded, until then, and a lead its call button took says
 * so at once. Should the refresh take away the card that had the focus (a call just recorded),
 * the focus goes to the first card's lead, not to the top of the page.
 */
export function DueList() {
  const { client } = useInbox();
  const [page, setPage] = useState<Received<LeadPage> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [recorded, setRecorded] = useState<ReadonlyMap<number, Recorded>>(new Map());
  // The leads a call button took since the list was read, as the take answered.
  const [taken, setTaken] = useState<ReadonlyMap<number, LeadView>>(new Map());
  const [retry, setRetry] = useState(0);
  const again = () => setRetry((n) => n + 1);
  const list = useRef<HTMLOListElement>(null);
  // Whether the focus was on a card when the answer came.
  const focusWasOnACard = useRef(false);

  useEffect(() => {
    const controller = new AbortController();
    client.leads({ q: '', filter: 'due' }, controller.signal).then(
      (answer) => {
        focusWasOnACard.current = list.current?.contains(document.activeElement) ?? false;
        setPage(answer);
        setRecorded(new Map());
        setTaken(new Map());
        setError(null);
      },
      (caught: unknown) => {
        if (!isAbort(caught)) setError(errorText(caught));
      },
    );
    return () => controller.abort();
  }, [client, retry]);
  useEffect(() => {
    if (!focusWasOnACard.current) return;
    focusWasOnACard.current = false;
    const focused = document.activeElement;
    if (!focused || focused === document.body) list.current?.querySelector<HTMLElement>('.desk-link')?.focus();
  }, [page]);
  useRefreshWhenShown(again);
  useRefreshWhileShown(again);
  const now = useServerNow(page);

  return (
    <>
      {error && <LoadError message={error} onRetry={again} />}
      {!page && !error && <p className="muted">Завантаження…</p>}
      {page && now !== null && page.leads.length === 0 && (
        <div className="empty">
          <p>Зараз дзвонити нікому.</p>
          <p>
            Нові заявки з'являться тут самі. Усі заявки — у <Link to="?filter=all">пошуку</Link>.
          </p>
        </div>
      )}
      {page && now !== null && page.leads.length > 0 && (
        <ol ref={list} className="leads" aria-label="Кому дзвонити зараз, по черзі">
          {page.leads.map((lead) => (
            <DeskCard
              key={lead.id}
              lead={taken.get(lead.id) ?? lead}
              now={now}
              recorded={recorded.get(lead.id) ?? null}
              onRecorded={(call) => setRecorded((current) => new Map(current).set(lead.id, call))}
              onTaken={(view) => setTaken((current) => new Map(current).set(lead.id, view))}
            />
          ))}
        </ol>
      )}
    </>
  );
}
