import { StrictMode, useCallback, useEffect, useRef, useState } from 'react';
import { BrowserRouter, useLocation, useNavigate } from 'react-router';
import { errorText, getSession, isAbort, type Session } from './api';
import { restoreDrafts, takeDrafts, type StoredDrafts } from './drafts';
import { Inbox } from './Inbox';
import { Login } from './Login';
import { Setup } from './Setup';

type State =
  | { kind: 'checking' }
  | { kind: 'failed'; message: string }
  /** `expiredFor`: the operator whose session ended while the inbox was open. */
  | { kind: 'signed-out'; expiredFor?: string }
  | { kind: 'signed-in'; session: Session };

/**
 * The inbox's root. The first start's setup link (/admin/setup?token=…) shows the form that
 * creates the first operator; otherwise it asks the server who is signed in, then shows the login
 * or the inbox. The login is not a route: whoever opens /admin/leads/42 signed out signs in and lands on that lead. A
 * session that ends while the inbox is open (expired, signed out elsewhere) shows the login with a
 * line saying so; the page stays where it was, and a call being written keeps its draft for that
 * operator. A signed-out tab keeps no drafts in storage: after "Вийти" they are gone; after a session
 * ended they wait in memory for the same operator to sign in again, and go if someone else does.
 */
export function App() {
  const location = useLocation();
  const navigate = useNavigate();
  const setupToken = location.pathname === '/setup' ? new URLSearchParams(location.search).get('token') : null;
  // Signed in by the setup: on to the inbox, and the used link leaves the address bar and history.
  const setUp = useCallback(() => navigate('/', { replace: true }), [navigate]);
  if (setupToken !== null) return <Setup token={setupToken} onSignedIn={setUp} />;
  return <SessionApp />;
}

/** The inbox for whoever is signed in, or the login. */
function SessionApp() {
  const [state, setState] = useState<State>({ kind: 'checking' });
  const [check, setCheck] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    getSession(controller.signal).then(
      (session) => setState(session ? { kind: 'signed-in', session } : { kind: 'signed-out' }),
      (error: unknown) => {
        if (!isAbort(error)) setState({ kind: 'failed', message: errorText(error) });
      },
    );
    return () => controller.abort();
  }, [check]);

  const heldDrafts = useRef<{ email: string; drafts: StoredDrafts } | null>(null);
  // After the page has left the inbox, so the last keystroke's draft is in storage too.
  useEffect(() => {
    if (state.kind !== 'signed-out') return;
    const drafts = takeDrafts();
    const email = state.expiredFor;
    const held = heldDrafts.current?.email === email ? heldDrafts.current?.drafts : {};
    heldDrafts.current = email === undefined ? null : { email, drafts: { ...held, ...drafts } };
  }, [state]);

  const signIn = useCallback((session: Session) => {
    if (heldDrafts.current?.email === session.email) restoreDrafts(heldDrafts.current.drafts);
    heldDrafts.current = null;
    setState({ kind: 'signed-in', session });
  }, []);
  const signOut = useCallback(() => setState({ kind: 'signed-out' }), []);
  const expire = useCallback((email: string) => setState({ kind: 'signed-out', expiredFor: email }), []);
  // Set up on the second-factor page: the session the server holds says so from now on.
  const secondFactorOn = useCallback(() => {
    setState((current) => {
      if (current.kind !== 'signed-in') return current;
      const secondFactor = { ...current.session.second_factor, on: true };
      return { kind: 'signed-in', session: { ...current.session, second_factor: secondFactor } };
    });
  }, []);

  switch (state.kind) {
    case 'checking':
      return <p className="page-message">Завантаження…</p>;
    case 'failed':
      return (
        <div className="page-message">
          <p role="alert" className="error">
            {state.message}
          </p>
          <button
            type="button"
            className="button"
            onClick={() => {
              setState({ kind: 'checking' });
              setCheck((n) => n + 1);
            }}
          >
            Спробувати ще раз
          </button>
        </div>
      );
    case 'signed-out':
      return <Login onSignedIn={signIn} expired={state.expiredFor !== undefined} />;
    case 'signed-in':
      return (
        <Inbox session={state.session} onSignedOut={signOut} onExpired={expire} onSecondFactorOn={secondFactorOn} />
      );
  }
}

/** What the page mounts: the router under /admin (the server's path for the inbox). */
export function AdminRoot() {
  return (
    <StrictMode>
      <BrowserRouter basename="/admin">
        <App />
      </BrowserRouter>
    </StrictMode>
  );
}
