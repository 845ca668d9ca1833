import { useEffect, useEffectEvent, useState } from 'react';
import type { Received } from './api';
import { parseTime } from './format';

/** How often "time left" is recomputed while a page stays open. */
export const TICK_MS = 30_000;

/** A page hidden at least this long asks the server again when it is shown. */
export const STALE_AFTER_MS = 60_000;

/** The list and the figures, while shown, ask the server again this often. */
export const REFRESH_SHOWN_MS = 60_000;

/**
 * The server's clock now, in ms since the epoch: the server's `now` in the last answer plus the
 * time this device's clock has run since that answer arrived (`receivedAt`, stamped by the client
 * in `api.ts`), so a phone set to the wrong time shows the right time left. The device's wall
 * clock, not a monotonic one: on phones the monotonic clock stops while the device sleeps, and a
 * list left open in a pocket would show hours more time left than there is. Redrawn every
 * `TICK_MS` and at once when the page is shown again. Null before the first answer.
 */
export function useServerNow(answer: Received<{ now: string }> | null | undefined): number | null {
  // The device's clock at the last redraw; read in the timer and the event, never while rendering.
  const [redrawnAt, setRedrawnAt] = useState<number | null>(null);
  useEffect(() => {
    const redraw = () => setRedrawnAt(Date.now());
    const timer = window.setInterval(redraw, TICK_MS);
    document.addEventListener('visibilitychange', redraw);
    return () => {
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', redraw);
    };
  }, []);
  if (!answer) return null;
  const offset = parseTime(answer.now) - answer.receivedAt;
  if (Number.isNaN(offset)) return null;
  // A redraw before this answer came is older than the answer itself.
  return Math.max(answer.receivedAt, redrawnAt ?? answer.receivedAt) + offset;
}

/**
 * Calls `refresh` when the page is shown again after being hidden for `STALE_AFTER_MS` or more (a
 * phone taken out of a pocket, a tab switched back to), so new leads and other operators' calls
 * appear without a reload.
 */
export function useRefreshWhenShown(refresh: () => void): void {
  const shown = useEffectEvent(refresh);
  useEffect(() => {
    let hiddenAt: number | null = null;
    function changed() {
      if (document.visibilityState === 'hidden') {
        hiddenAt = Date.now();
      } else if (hiddenAt !== null) {
        if (Date.now() - hiddenAt >= STALE_AFTER_MS) shown();
        hiddenAt = null;
      }
    }
    document.addEventListener('visibilitychange', changed);
    return () => document.removeEventListener('visibilitychange', changed);
  }, []);
}

/**
 * Calls `refresh` every `every` ms (a minute unless said) while the page is shown, so that new
 * leads appear on an inbox left open; a hidden page (a phone in a pocket) asks nothing.
 */
export function useRefreshWhileShown(refresh: () => void, every: number = REFRESH_SHOWN_MS): void {
  const due = useEffectEvent(refresh);
  useEffect(() => {
    const timer = window.setInterval(() => {
      if (document.visibilityState === 'visible') due();
    }, every);
    return () => window.clearInterval(timer);
  }, [every]);
}
