import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useSearchParams } from 'react-router';
import { errorText, isAbort, type Filter, type LeadPage, type LeadView, type Received } from './api';
import { useRefreshWhenShown, useRefreshWhileShown, useServerNow } from './clock';
import { useInbox } from './context';
import { ClaimMarker } from './Claims';
import { LoadError } from './LoadError';
import { PhoneLink } from './Phone';
import { formatKyiv, isOverdue, statusLabel, timeLeft } from './format';

/** Typing pauses this long before the list is asked for again. */
export const SEARCH_DEBOUNCE_MS = 250;

const FILTERS: { value: Filter; label: string }[] = [
  { value: 'all', label: 'Усі' },
  { value: 'open', label: 'Відкриті' },
  { value: 'overdue', label: 'Прострочені' },
  { value: 'mine', label: 'Мої' },
  { value: 'free', label: 'Вільні' },
];

function readFilter(value: string | null): Filter {
  return FILTERS.find((filter) => filter.value === value)?.value ?? 'all';
}

/**
 * The call desk's "Пошук і фільтри": every lead of the call list, newest first, searched and
 * filtered. The search and the filter live in the URL (?q=&filter=, the filter always written: an
 * address without one is the list of calls to make now), so a reload, the back button or the way
 * back from a lead keeps them.
 */
export function LeadList() {
  const { client } = useInbox();
  const location = useLocation();
  const [params, setParams] = useSearchParams();
  const filter = readFilter(params.get('filter'));
  const q = params.get('q') ?? '';

  const [text, setText] = useState(q);
  // The last `q` this page wrote to the URL: any other change (the "Заявки" link, back and forward)
  // is the box's new text.
  const written = useRef(q);
  useEffect(() => {
    if (q !== written.current) {
      written.current = q;
      setText(q);
    }
  }, [q]);
  const [retry, setRetry] = useState(0);
  // What the list asks for; a new key is a new first page.
  const key = JSON.stringify([q, filter, retry]);
  // The answer for `key`: the leads (those of an older key stay on screen, dimmed, while the new
  // ones load) or why there are none.
  const [shown, setShown] = useState<{ key: string; page: Received<LeadPage> | null; error: string | null } | null>(
    null,
  );
  const loading = shown?.key !== key;
  const page = shown?.page ?? null;
  const error = loading ? null : (shown?.error ?? null);
  const [loadingMore, setLoadingMore] = useState(false);
  // Bumped for every new first page, so a "more" answer for an older query is dropped.
  const generation = useRef(0);

  const update = useCallback(
    (next: { q?: string; filter?: Filter }) => {
      setParams(
        (current) => {
          const out = new URLSearchParams(current);
          const nextQ = next.q ?? q;
          written.current = nextQ;
          const nextFilter = next.filter ?? filter;
          if (nextQ) out.set('q', nextQ);
          else out.delete('q');
          out.set('filter', nextFilter);
          return out;
        },
        { replace: true },
      );
    },
    [q, filter, setParams],
  );

  // The search box asks again after a pause in typing, not on every key.
  useEffect(() => {
    if (text.trim() === q) return;
    const timer = window.setTimeout(() => update({ q: text.trim() }), SEARCH_DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
  }, [text, q, update]);

  useEffect(() => {
    const controller = new AbortController();
    generation.current += 1;
    client.leads({ q, filter }, controller.signal).then(
      (answer) => setShown({ key, page: answer, error: null }),
      (caught: unknown) => {
        // The leads on screen belong to another search or filter: not to be read as this one's.
        if (!isAbort(caught)) setShown({ key, page: null, error: errorText(caught) });
      },
    );
    return () => controller.abort();
  }, [client, q, filter, key]);

  async function showMore() {
    if (page?.next_before_id == null) return;
    const mine = generation.current;
    const setError = (message: string | null) => {
      if (mine === generation.current) setShown((current) => current && { ...current, error: message });
    };
    setLoadingMore(true);
    setError(null);
    try {
      const answer = await client.leads({ q, filter, beforeId: page.next_before_id });
      if (mine !== generation.current) return;
      setShown((current) => {
        if (!current?.page) return current && { ...current, page: answer };
        const seen = new Set(current.page.leads.map((lead) => lead.id));
        const leads = [...current.page.leads, ...answer.leads.filter((lead) => !seen.has(lead.id))];
        return { ...current, page: { ...answer, leads } };
      });
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setLoadingMore(false);
    }
  }

  function searchNow(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    update({ q: text.trim() });
  }

  // On a list left open, or shown again, new leads appear: the first page is asked for again
  // quietly (the list is not dimmed), and the older leads shown stay below it, those of "Показати
  // ще" too. A list that could not be read is read again from the start.
  function refreshQuietly() {
    if (loading || !page) return;
    const mine = generation.current;
    client.leads({ q, filter }).then(
      (fresh) => {
        if (mine !== generation.current) return;
        setShown((current) =>
          current?.key === key && current.page ? { ...current, page: withNewer(current.page, fresh) } : current,
        );
      },
      () => {
        // The next refresh tries again; a session that ended is handled by the client.
      },
    );
  }
  useRefreshWhenShown(() => (page ? refreshQuietly() : setRetry((n) => n + 1)));
  useRefreshWhileShown(refreshQuietly);
  const now = useServerNow(page);

  return (
    <>
      <div className="toolbar">
        <form role="search" className="field" onSubmit={searchNow}>
          <label htmlFor="lead-search">Пошук за ім'ям або телефоном</label>
          <input
            id="lead-search"
            type="search"
            value={text}
            onChange={(event) => setText(event.target.value)}
            autoComplete="off"
            enterKeyHint="search"
          />
        </form>
        <div className="filters" role="group" aria-label="Які заявки показати">
          {FILTERS.map(({ value, label }) => (
            <button
              key={value}
              type="button"
              className="button"
              aria-pressed={filter === value}
              onClick={() => update({ filter: value })}
            >
              {label}
            </button>
          ))}
        </div>
      </div>
      {error && <LoadError message={error} onRetry={() => setRetry((n) => n + 1)} />}
      {/* Screen readers hear what a search or a filter found. */}
      <p aria-live="polite" className="visually-hidden">
        {page && !loading ? `Показано заявок: ${page.leads.length}${page.next_before_id !== null ? ', є ще' : ''}` : ''}
      </p>
      {!page && loading && <p className="muted">Завантаження…</p>}
      {page && now !== null && (
        <>
          {page.leads.length === 0 ? (
            <p className="empty">Заявок немає</p>
          ) : (
            <ul className="leads" aria-busy={loading}>
              {page.leads.map((lead) => (
                <LeadItem key={lead.id} lead={lead} now={now} listSearch={location.search} />
              ))}
            </ul>
          )}
          {page.next_before_id !== null && (
            <button type="button" className="button more" onClick={showMore} disabled={loadingMore}>
              Показати ще
            </button>
          )}
        </>
      )}
    </>
  );
}

/** A first page asked for again, followed by the leads shown before that are older than all of it. */
function withNewer(shown: Received<LeadPage>, fresh: Received<LeadPage>): Received<LeadPage> {
  if (fresh.next_before_id === null || fresh.leads.length === 0) return fresh;
  const oldest = Math.min(...fresh.leads.map((lead) => lead.id));
  const older = shown.leads.filter((lead) => lead.id < oldest);
  if (older.length === 0) return fresh;
  return { ...fresh, leads: [...fresh.leads, ...older], next_before_id: shown.next_before_id };
}

function LeadItem({ lead, now, listSearch }: { lead: LeadView; now: number; listSearch: string }) {
  const overdue = isOverdue(lead, now);
  const left = timeLeft(lead, now);
  return (
    <li className="lead" data-overdue={overdue ? 'true' : undefined} data-open={lead.open ? 'true' : undefined}>
      <div className="lead-head">
        {/* The whole card opens the lead (the link's ::after covers it); the phone stays its own link. */}
        <Link className="lead-link" to={`/leads/${lead.id}`} state={{ list: listSearch }}>
          Заявка №{lead.id}
        </Link>
        <RepeatMarker count={lead.repeat_count} />
        <span className="status">{statusLabel(lead.status)}</span>
      </div>
      <p className="lead-name">{lead.name}</p>
      <p className="lead-meta">
        <PhoneLink lead={lead} />
        <time dateTime={lead.created_at}>{formatKyiv(lead.created_at)}</time>
      </p>
      {left && <p className="due">{left}</p>}
      {lead.open && <ClaimMarker lead={lead} />}
    </li>
  );
}

/** "+2" on a lead whose person sent 2 more submissions (said in full to a screen reader). */
export function RepeatMarker({ count }: { count: number }) {
  if (count <= 0) return null;
  const words = `Ще заявок від цієї людини: ${count}`;
  return (
    <span className="repeat-count" title={words}>
      <span aria-hidden="true">+{count}</span>
      <span className="visually-hidden">{words}</span>
    </span>
  );
}
