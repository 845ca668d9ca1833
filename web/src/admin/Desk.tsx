import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { Link, useLocation, useSearchParams } from 'react-router';
import { useInbox } from './context';
import { DueList } from './DueList';
import { LeadList } from './LeadList';
import { DeliveryWarning, Stats, useStats } from './Stats';

/** From this width the figures stand beside the list, always shown. */
const WIDE = '(min-width: 60rem)';

function subscribeWide(changed: () => void): () => void {
  if (typeof window.matchMedia !== 'function') return () => undefined;
  const query = window.matchMedia(WIDE);
  query.addEventListener('change', changed);
  return () => query.removeEventListener('change', changed);
}

function isWide(): boolean {
  return typeof window.matchMedia === 'function' && window.matchMedia(WIDE).matches;
}

/**
 * /admin: the call desk. It opens on "Кому дзвонити зараз", the first lead's call button on a
 * phone's first screen; "Пошук і фільтри" (every lead, newest first; the address's ?filter= says
 * so) is one tap away, and so are "Показники", folded away on a phone and beside the list on a
 * wide screen. A channel that fails is said above it all.
 */
export function Desk() {
  const location = useLocation();
  const [params] = useSearchParams();
  const searching = params.has('filter') || params.has('q');
  const { role } = useInbox();
  const stats = useStats();
  const wide = useSyncExternalStore(subscribeWide, isWide);
  const [figuresOpen, setFiguresOpen] = useState(false);
  const figures = wide || figuresOpen;

  // Back from a lead (or from erasing one), focus goes to the page rather than being lost. Only
  // when the desk mounts: typing a search changes the URL too, and must keep the focus in the box.
  const heading = useRef<HTMLHeadingElement>(null);
  const arrived = useRef(location.key !== 'default');
  useEffect(() => {
    if (arrived.current) heading.current?.focus();
  }, []);

  return (
    <div className="desk">
      <h1 ref={heading} tabIndex={-1} className="visually-hidden">
        {searching ? 'Пошук і фільтри' : 'Кому дзвонити зараз'}
      </h1>
      <DeliveryWarning stats={stats.stats} admins={role === 'admin'} />
      <div className="desk-bar">
        <nav className="desk-tabs" aria-label="Заявки">
          <Link to="/" aria-current={searching ? undefined : 'page'}>
            Кому дзвонити зараз
          </Link>
          <Link to="?filter=all" aria-current={searching ? 'page' : undefined}>
            Пошук і фільтри
          </Link>
        </nav>
        {!wide && (
          <button
            type="button"
            className="button figures-toggle"
            aria-expanded={figuresOpen}
            aria-controls="desk-figures"
            onClick={() => setFiguresOpen((open) => !open)}
          >
            Показники
          </button>
        )}
      </div>
      <div id="desk-figures" className="desk-figures" hidden={!figures}>
        {figures && <Stats {...stats} />}
      </div>
      <div className="desk-work">{searching ? <LeadList /> : <DueList />}</div>
    </div>
  );
}
