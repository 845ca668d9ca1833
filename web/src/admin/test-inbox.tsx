// What the inbox's test files share (App, Team, Setup, Desk, Claims): the real app at an address,
// and a clean slate around every test.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { AdminRoot } from './App';
import { expectNoUnexpectedRequests } from './test-server';

/** The real inbox app, under its /admin router, opened at `path`. */
export function openInbox(path: string): void {
  window.history.replaceState(null, '', path);
  render(<AdminRoot />);
}

/** Opens the header bar's "Меню" (if it is closed): the account, the admins' pages, the exports, "Вийти". */
export async function openMenu(): Promise<void> {
  const menu = await screen.findByRole('button', { name: 'Меню' });
  if (menu.getAttribute('aria-expanded') !== 'true') fireEvent.click(menu);
}

/** Opens the call desk's "Показники" (jsdom has no wide screen: they start folded away). */
export async function openFigures(): Promise<void> {
  const toggle = await screen.findByRole('button', { name: 'Показники' });
  if (toggle.getAttribute('aria-expanded') !== 'true') fireEvent.click(toggle);
}

/**
 * Taps a `tel:` link as a phone would, its own handlers and all; the dialer a phone opens is left
 * out (jsdom cannot follow the link, and says so on the console).
 */
export function tapToDial(link: HTMLElement): void {
  link.addEventListener('click', (event) => event.preventDefault(), { once: true });
  fireEvent.click(link);
}

/**
 * Waits for the focus to reach what `target` finds: the app moves it in an effect, after the
 * render a test has waited for.
 */
export async function focusMovesTo(target: () => Element | null): Promise<void> {
  await waitFor(() => expect(document.activeElement).toBe(target()));
}

/**
 * Call once at the top of a test file: each test starts at a blank address with empty tab
 * storage, and ends with the app unmounted, real timers and globals back, and no request the fake
 * server did not expect.
 */
export function isolateEachTest(): void {
  beforeEach(() => {
    window.history.replaceState(null, '', '/');
    sessionStorage.clear();
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    expectNoUnexpectedRequests();
  });
}
