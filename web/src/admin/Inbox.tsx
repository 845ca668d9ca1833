import { useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Route, Routes, useLocation, useNavigate } from 'react-router';
import { ApiError, createClient, errorText, isAdmin, type Session } from './api';
import { AuditLog } from './Audit';
import { ClosedDaysPage } from './ClosedDays';
import { InboxContext, type Inbox as InboxValue } from './context';
import { HeldList } from './Held';
import { Desk } from './Desk';
import { LeadPage } from './LeadPage';
import { TopBar } from './Menu';
import { AdminOnly, NotFound } from './NotFound';
import { NotificationsPage } from './Notifications';
import { SecondFactor } from './SecondFactor';
import { Team } from './Team';

/** Long enough for screen readers to notice the status line was emptied before it speaks again. */
const ANNOUNCE_GAP_MS = 100;

/**
 * The signed-in inbox: the header bar with its menu, one status line, and the routes under /admin,
 * the call desk first. `onSignedOut` runs after "Вийти"; `onExpired` when any call finds the
 * session over (401), with whose it was. An admin also has the export, erasure and the "Команда",
 * "Журнал дій", "Сповіщення" and "Вихідні дні" pages; an operator sees none of them (the server
 * refuses their changes to operators anyway). The e-mail in the menu leads to the account's second
 * factor; where the server requires one and the account has none, that page is all the inbox shows
 * until it is on (`onSecondFactorOn`).
 */
export function Inbox({
  session,
  onSignedOut,
  onExpired,
  onSecondFactorOn,
}: {
  session: Session;
  onSignedOut: () => void;
  onExpired: (email: string) => void;
  onSecondFactorOn: () => void;
}) {
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const client = useMemo(
    () => createClient(session.csrf_token, () => onExpired(session.email)),
    [session.csrf_token, session.email, onExpired],
  );

  // A notice belongs to one page: leaving it clears the notice, so coming back shows nothing stale.
  const [notice, setNotice] = useState<{ text: string; path: string } | null>(null);
  const [noticedPath, setNoticedPath] = useState(pathname);
  if (noticedPath !== pathname) {
    setNoticedPath(pathname);
    if (notice !== null && notice.path !== pathname) setNotice(null);
  }
  // The page on screen, as of the last commit.
  const shownPath = useRef(pathname);
  useLayoutEffect(() => {
    shownPath.current = pathname;
  }, [pathname]);
  // Emptied first and filled a moment later: a screen reader announces a live region only when it
  // changes, and the second "Дзвінок записано." in a row would otherwise be silent. A notice for a
  // page the operator has left meanwhile is dropped; one for the page being navigated to (after an
  // erasure, the list) waits for it, however slowly the device draws it.
  const notify = useCallback((text: string, path: string) => {
    const from = shownPath.current;
    setNotice(null);
    window.setTimeout(() => {
      if (shownPath.current === path || shownPath.current === from) setNotice({ text, path });
    }, ANNOUNCE_GAP_MS);
  }, []);

  const expire = useCallback(() => onExpired(session.email), [onExpired, session.email]);
  const inbox = useMemo<InboxValue>(
    () => ({ email: session.email, role: session.role, client, expire, notify }),
    [session.email, session.role, client, expire, notify],
  );
  const admin = isAdmin(session);
  const mustSetUpSecondFactor = session.second_factor.required && !session.second_factor.on;
  const secondFactorOn = useCallback(() => {
    onSecondFactorOn();
    navigate('/');
    notify('Двоетапну перевірку увімкнено.', '/');
  }, [onSecondFactorOn, navigate, notify]);

  // What went wrong with the menu's actions (signing out, the exports).
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

  return (
    <InboxContext value={inbox}>
      <TopBar admins={admin && !mustSetUpSecondFactor} onSignOut={logout} onError={setBarError} />
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
        {mustSetUpSecondFactor ? (
          <SecondFactor required onTurnedOn={secondFactorOn} />
        ) : (
          <Routes>
            <Route index element={<Desk />} />
            <Route path="held" element={<HeldList />} />
            <Route path="leads/:id" element={<LeadPage />} />
            <Route path="team" element={admin ? <Team /> : <AdminOnly title="Команда" />} />
            <Route path="audit" element={admin ? <AuditLog /> : <AdminOnly title="Журнал дій" />} />
            <Route
              path="notifications"
              element={admin ? <NotificationsPage /> : <AdminOnly title="Сповіщення" />}
            />
            <Route
              path="closed-days"
              element={admin ? <ClosedDaysPage /> : <AdminOnly title="Вихідні дні" />}
            />
            <Route path="second-factor" element={<SecondFactor required={false} onTurnedOn={secondFactorOn} />} />
            <Route path="*" element={<NotFound />} />
          </Routes>
        )}
      </main>
    </InboxContext>
  );
}
