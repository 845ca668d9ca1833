import { useCallback, useEffect, useMemo, useRef, useState, type MouseEvent } from 'react';
import { Link, Route, Routes, useLocation } from 'react-router';
import { ApiError, EXPORT_CSV_URL, createClient, errorText, type SavedFile, type Session } from './api';
import { InboxContext, type Inbox as InboxValue } from './context';
import { HeldList } from './Held';
import { LeadList } from './LeadList';
import { LeadPage } from './LeadPage';

/** Long enough for screen readers to notice the status line was emptied before it speaks again. */
const ANNOUNCE_GAP_MS = 100;

/**
 * The signed-in inbox: the header bar, one status line, and the routes under /admin. `onSignedOut`
 * runs after "Вийти"; `onExpired` when any call finds the session over (401), with whose it was.
 */
export function Inbox({
  session,
  onSignedOut,
  onExpired,
}: {
  session: Session;
  onSignedOut: () => void;
  onExpired: (email: string) => void;
}) {
  const { pathname } = useLocation();
  const client = useMemo(
    () => createClient(session.csrf_token, () => onExpired(session.email)),
    [session.csrf_token, session.email, onExpired],
  );

  // A notice belongs to one page: leaving it clears the notice, so coming back shows nothing stale.
  const [notice, setNotice] = useState<{ text: string; path: string } | null>(null);
  const shownPath = useRef(pathname);
  useEffect(() => {
    shownPath.current = pathname;
    setNotice((current) => (current?.path === pathname ? current : null));
  }, [pathname]);
  // Emptied first and filled a moment later: a screen reader announces a live region only when it
  // changes, and the second "Дзвінок записано." in a row would otherwise be silent. A notice for a
  // page the operator has left meanwhile is dropped.
  const notify = useCallback((text: string, path: string) => {
    setNotice(null);
    window.setTimeout(() => {
      if (shownPath.current === path) setNotice({ text, path });
    }, ANNOUNCE_GAP_MS);
  }, []);

  const inbox = useMemo<InboxValue>(() => ({ email: session.email, client, notify }), [session.email, client, notify]);

  // What went wrong with the header bar's actions (signing out, the export).
  const [barError, setBarError] = useState<string | null>(null);
  async function logout() {
    setBarError(null);
    try {
      await client.logout();
    } catch (error) {
      // A 401: the session had ended already, which is what the operator asked for.
      if (!(error instanceof ApiError && error.status === 401)) {
        setBarError(errorText(error));
        return;
      }
    }
    onSignedOut();
  }

  const [exporting, setExporting] = useState(false);
  async function exportCsv(event: MouseEvent<HTMLAnchorElement>) {
    event.preventDefault();
    if (exporting) return;
    setBarError(null);
    setExporting(true);
    try {
      save(await client.exportCsv());
    } catch (error) {
      // A 401 has already taken the operator to the login with its own message.
      if (!(error instanceof ApiError && error.status === 401)) setBarError(errorText(error));
    } finally {
      setExporting(false);
    }
  }

  return (
    <InboxContext value={inbox}>
      <header className="topbar">
        <Link to="/" className="brand">
          Заявки
        </Link>
        <span className="who">{session.email}</span>
        <a className="button" href={EXPORT_CSV_URL} download onClick={exportCsv} aria-busy={exporting}>
          Завантажити CSV
        </a>
        <button type="button" className="button logout" onClick={logout}>
          Вийти
        </button>
      </header>
      <main className="content">
        {/* Always in the page, so a screen reader announces what appears in it. */}
        <p role="status" className="notice">
          {notice?.path === pathname ? notice.text : ''}
        </p>
        {barError && (
          <p role="alert" className="error">
            {barError}
          </p>
        )}
        <Routes>
          <Route index element={<LeadList />} />
          <Route path="held" element={<HeldList />} />
          <Route path="leads/:id" element={<LeadPage />} />
          <Route path="*" element={<NotFound />} />
        </Routes>
      </main>
    </InboxContext>
  );
}

/** Hands a fetched file to the browser's downloads, under the name the server gave it. */
function save({ blob, filename }: SavedFile) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  // Later, not at once: the download may still be reading it.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function NotFound() {
  return (
    <>
      <h1>Сторінку не знайдено</h1>
      <p>
        <Link to="/">← До списку</Link>
      </p>
    </>
  );
}
