import { useEffect, useId, useRef, useState, type MouseEvent } from 'react';
import { Link, useLocation } from 'react-router';
import { ApiError, EXPORT_CSV_URL, EXPORT_XLSX_URL, errorText, type SavedFile } from './api';
import { useInbox } from './context';

/**
 * The header bar: "Заявки" (the call desk) and one "Меню" button for everything that is not the
 * work itself: the account (its second factor), for admins the team, the audit trail, the
 * notifications, the days off and the two exports, and signing out. The menu is a disclosure (a button with `aria-expanded` and the list it
 * shows), not an ARIA menu: its items are ordinary links and buttons, reached with Tab. Escape or a
 * tap outside closes it, and so does going to another page. `onError`: what went wrong with
 * signing out or an export; `admins`: the team, the audit trail and the exports are offered.
 */
export function TopBar({
  admins,
  onSignOut,
  onError,
}: {
  admins: boolean;
  onSignOut: () => Promise<void>;
  onError: (message: string | null) => void;
}) {
  const { email, client } = useInbox();
  const { pathname } = useLocation();
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  // Another page: the menu has done its job.
  const [shownPath, setShownPath] = useState(pathname);
  if (shownPath !== pathname) {
    setShownPath(pathname);
    setOpen(false);
  }

  useEffect(() => {
    if (!open) return;
    function outside(event: PointerEvent) {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    }
    function escape(event: KeyboardEvent) {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    }
    document.addEventListener('pointerdown', outside);
    document.addEventListener('keydown', escape);
    return () => {
      document.removeEventListener('pointerdown', outside);
      document.removeEventListener('keydown', escape);
    };
  }, [open]);

  // One export at a time, whichever format.
  const [exporting, setExporting] = useState(false);
  async function exportFile(event: MouseEvent<HTMLAnchorElement>, fetchFile: () => Promise<SavedFile>) {
    event.preventDefault();
    if (exporting) return;
    onError(null);
    setExporting(true);
    try {
      save(await fetchFile());
    } catch (error) {
      // A 401 has already taken the operator to the login with its own message.
      if (!(error instanceof ApiError && error.status === 401)) onError(errorText(error));
    } finally {
      setExporting(false);
    }
  }

  const current = (path: string) => (pathname === path ? 'page' : undefined);
  return (
    <header className="topbar">
      <Link to="/" className="brand">
        Заявки
      </Link>
      <div className="menu" ref={root}>
        <button
          ref={button}
          type="button"
          className="button menu-button"
          aria-expanded={open}
          aria-controls={panelId}
          onClick={() => setOpen((shown) => !shown)}
        >
          Меню
        </button>
        <div id={panelId} className="menu-panel" hidden={!open}>
          <ul className="menu-items">
            <li>
              <Link to="/second-factor" className="who" aria-current={current('/second-factor')}>
                {email}
              </Link>
              <span className="menu-hint">Двоетапна перевірка</span>
            </li>
            {admins && (
              <>
                <li>
                  <Link to="/team" aria-current={current('/team')}>
                    Команда
                  </Link>
                </li>
                <li>
                  <Link to="/audit" aria-current={current('/audit')}>
                    Журнал дій
                  </Link>
                </li>
                <li>
                  <Link to="/notifications" aria-current={current('/notifications')}>
                    Сповіщення
                  </Link>
                </li>
                <li>
                  <Link to="/closed-days" aria-current={current('/closed-days')}>
                    Вихідні дні
                  </Link>
                </li>
                {[
                  { label: 'Завантажити CSV', href: EXPORT_CSV_URL, fetchFile: client.exportCsv },
                  { label: 'Завантажити Excel', href: EXPORT_XLSX_URL, fetchFile: client.exportXlsx },
                ].map(({ label, href, fetchFile }) => (
                  <li key={href}>
                    <a href={href} download onClick={(event) => exportFile(event, fetchFile)} aria-busy={exporting}>
                      {label}
                    </a>
                  </li>
                ))}
              </>
            )}
            <li>
              <button type="button" className="button logout" onClick={onSignOut}>
                Вийти
              </button>
            </li>
          </ul>
        </div>
      </div>
    </header>
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
