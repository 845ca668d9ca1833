import { useCallback, useLayoutEffect, useMemo, useRef, useState, type MouseEvent } from 'react';
import { Link, Route, Routes, useLocation, useNavigate } from 'react-router';
import {
  ApiError,
  EXPORT_CSV_URL,
  EXPORT_XLSX_URL,
  createClient,
  errorText,
  isAdmin,
  type SavedFile,
  type Session,
} from './api';
import { AuditLog } from './Audit';
import { InboxContext, type Inbox as InboxValue } from './context';
import { HeldList } from './Held';
import { LeadList } from './LeadList';
import { LeadPage } from './LeadPage';
import { AdminOnly, NotFound } from './NotFound';
import { SecondFactor } from './SecondFactor';
import { Team } from './Team';

/** Long enough for screen readers to notice the status line was emptied before it speaks again. */
const ANNOUNCE_GAP_MS = 100;

/**
 * The signed-in inbox: the header bar, one status line, and the routes under /admin. `onSignedOut`
 * runs after "Вийти"; `onExpired` when any call finds the session over (401), with whose it was.
 * An admin also has the export, erasure and the "Команда" and "Журнал дій" pages; an operator sees
 * none of them (the server refuses them to operators anyway). The e-mail in the bar leads to the
 * account's second factor; where the server requires one and the account has none, that page is
 * all the inbox shows until it is on (`onSecondFactorOn`).
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

  // One export at a time, whichever format.
  const [exporting, setExporting] = useState(false);
  async function exportFile(event: MouseEvent<HTMLAnchorElement>, fetchFile: () => Promise<SavedFile>) {
    event.preventDefault();
    if (exporting) return;
    setBarError(null);
    setExporting(true);
    try {
      save(await fetchFile());
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
        {admin && !mustSetUpSecondFactor && (
          <nav className="topnav" aria-label="Адміністрування">
            <Link to="/team" aria-current={pathname === '/team' ? 'page' : undefined}>
              Команда
            </Link>
            <Link to="/audit" aria-current={pathname === '/audit' ? 'page' : undefined}>
              Журнал дій
            </Link>
          </nav>
        )}
        <Link
          to="/second-factor"
          className="who"
          aria-current={pathname === '/second-factor' ? 'page' : undefined}
          title="Двоетапна перевірка"
        >
          {session.email}
        </Link>
        {admin && !mustSetUpSecondFactor && (
          <span className="exports">
            {[
              { label: 'Завантажити CSV', href: EXPORT_CSV_URL, fetchFile: client.exportCsv },
              { label: 'Завантажити Excel', href: EXPORT_XLSX_URL, fetchFile: client.exportXlsx },
            ].map(({ label, href, fetchFile }) => (
              <a
                key={href}
                className="button"
                href={href}
                download
                onClick={(event) => exportFile(event, fetchFile)}
                aria-busy={exporting}
              >
                {label}
              </a>
            ))}
          </span>
        )}
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
        {mustSetUpSecondFactor ? (
          <SecondFactor required onTurnedOn={secondFactorOn} />
        ) : (
          <Routes>
            <Route index element={<LeadList />} />
            <Route path="held" element={<HeldList />} />
            <Route path="leads/:id" element={<LeadPage />} />
            <Route path="team" element={admin ? <Team /> : <AdminOnly title="Команда" />} />
            <Route path="audit" element={admin ? <AuditLog /> : <AdminOnly title="Журнал дій" />} />
            <Route path="second-factor" element={<SecondFactor required={false} onTurnedOn={secondFactorOn} />} />
            <Route path="*" element={<NotFound />} />
          </Routes>
        )}
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
