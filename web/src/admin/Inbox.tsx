import { useCallback, useEffect, useMemo, useState } from 'react';
import { Link, Route, Routes, useLocation } from 'react-router';
import { ApiError, EXPORT_CSV_URL, createClient, errorText, type Session } from './api';
import { InboxContext, type Inbox as InboxValue } from './context';
import { LeadList } from './LeadList';
import { LeadPage } from './LeadPage';

/**
 * The signed-in inbox: the header bar, one status line, and the routes under /admin. `onSignedOut`
 * runs after "Вийти"; `onExpired` when any call finds the session over (401).
 */
export function Inbox({
  session,
  onSignedOut,
  onExpired,
}: {
  session: Session;
  onSignedOut: () => void;
  onExpired: () => void;
}) {
  const { pathname } = useLocation();
  const client = useMemo(() => createClient(session.csrf_token, onExpired), [session.csrf_token, onExpired]);

  // A notice belongs to one page: leaving it clears the notice, so coming back shows nothing stale.
  const [notice, setNotice] = useState<{ text: string; path: string } | null>(null);
  useEffect(() => setNotice((current) => (current?.path === pathname ? current : null)), [pathname]);
  const notify = useCallback((text: string, path: string) => setNotice({ text, path }), []);

  const inbox = useMemo<InboxValue>(() => ({ email: session.email, client, notify }), [session.email, client, notify]);

  const [logoutError, setLogoutError] = useState<string | null>(null);
  async function logout() {
    setLogoutError(null);
    try {
      await client.logout();
    } catch (error) {
      // A 401: the session had ended already, which is what the operator asked for.
      if (!(error instanceof ApiError && error.status === 401)) {
        setLogoutError(errorText(error));
        return;
      }
    }
    onSignedOut();
  }

  return (
    <InboxContext value={inbox}>
      <header className="topbar">
        <Link to="/" className="brand">
          Заявки
        </Link>
        <span className="who">{session.email}</span>
        <a className="button" href={EXPORT_CSV_URL} download>
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
        {logoutError && (
          <p role="alert" className="error">
            {logoutError}
          </p>
        )}
        <Routes>
          <Route index element={<LeadList />} />
          <Route path="leads/:id" element={<LeadPage />} />
          <Route path="*" element={<NotFound />} />
        </Routes>
      </main>
    </InboxContext>
  );
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
