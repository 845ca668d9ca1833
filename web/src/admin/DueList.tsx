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
 * keeps its card, shrunk to what was recorded, until a list asked for after it comes (one asked
 * for before may not know of the call, and would offer it to be recorded twice), and a lead its
 * call button took says so at once. Should the refresh take away the card that had the focus (a call just recorded),
 * the focus goes to the first card's lead, not to the top of the page.
 */
export function DueList() {
  const { client } = useInbox();
  const [page, setPage] = useState<Received<LeadPage> | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The calls recorded and the leads a call button took since the list was read (as the take
  // answered), each with when (`Date.now()`): an answer asked for before then may not know of it.
  const [recorded, setRecorded] = useState<ReadonlyMap<number, Since<Recorded>>>(new Map());
  const [taken, setTaken] = useState<ReadonlyMap<number, Since<LeadView>>>(new Map());
  const [retry, setRetry] = useState(0);
  const again = () => setRetry((n) => n + 1);
  const list = useRef<HTMLOListElement>(null);
  // Whether the focus was on a card when the answer came.
  const focusWasOnACard = useRef(false);

  useEffect(() => {
    const controller = new AbortController();
    const asked = Date.now();
    client.leads({ q: '', filter: 'due' }, controller.signal).then(
      (answer) => {
        focusWasOnACard.current = list.current?.contains(document.activeElement) ?? false;
        setPage(answer);
        // What happened while the answer was on its way stays: the list may have been read before it.
        setRecorded((current) => since(current, asked));
        setTaken((current) => since(current, asked));
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
              lead={taken.get(lead.id)?.value ?? lead}
              now={now}
              recorded={recorded.get(lead.id)?.value ?? null}
              onRecorded={(call) => setRecorded((current) => new Map(current).set(lead.id, at(call)))}
              onTaken={(view) => setTaken((current) => new Map(current).set(lead.id, at(view)))}
            />
          ))}
        </ol>
      )}
    </>
  );
}

/** Something that happened on a card, and when (`Date.now()`). */
type Since<T> = { value: T; at: number };

function at<T>(value: T): Since<T> {
  return { value, at: Date.now() };
}

/** The entries of `map` that happened at `asked` or later. */
function since<T>(map: ReadonlyMap<number, Since<T>>, asked: number): ReadonlyMap<number, Since<T>> {
  return new Map([...map].filter(([, entry]) => entry.at >= asked));
}
