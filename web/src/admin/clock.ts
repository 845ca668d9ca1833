import { useEffect, useMemo, useRef, useState } from 'react';
import { parseTime } from './format';

/** How often "time left" is recomputed while a page stays open. */
export const TICK_MS = 30_000;

/** A page hidden at least this long asks the server again when it is shown. */
export const STALE_AFTER_MS = 60_000;

/**
 * The server's clock now, in ms since the epoch: this device's clock plus the difference to the
 * server's `now` in the last answer, so a phone set to the wrong time shows the right time left.
 * The device's wall clock, not a monotonic one: on phones the monotonic clock stops while the
 * device sleeps, and a list left open in a pocket would show hours more time left than there is.
 * Redrawn every `TICK_MS` and at once when the page is shown again. Null before the first answer.
 */
export function useServerNow(serverNow: string | undefined): number | null {
  const offset = useMemo(() => (serverNow === undefined ? null : parseTime(serverNow) - Date.now()), [serverNow]);
  const [, setTick] = useState(0);
  useEffect(() => {
    if (offset === null) return;
    const redraw = () => setTick((tick) => tick + 1);
    const timer = window.setInterval(redraw, TICK_MS);
    document.addEventListener('visibilitychange', redraw);
    return () => {
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', redraw);
    };
  }, [offset]);
  return offset === null || Number.isNaN(offset) ? null : Date.now() + offset;
}

/**
 * Calls `refresh` when the page is shown again after being hidden for `STALE_AFTER_MS` or more (a
 * phone taken out of a pocket, a tab switched back to), so new leads and other operators' calls
 * appear without a reload.
 */
export function useRefreshWhenShown(refresh: () => void): void {
  const latest = useRef(refresh);
  latest.current = refresh;
  useEffect(() => {
    let hiddenAt: number | null = null;
    function changed() {
      if (document.visibilityState === 'hidden') {
        hiddenAt = Date.now();
      } else if (hiddenAt !== null) {
        if (Date.now() - hiddenAt >= STALE_AFTER_MS) latest.current();
        hiddenAt = null;
      }
    }
    document.addEventListener('visibilitychange', changed);
    return () => document.removeEventListener('visibilitychange', changed);
  }, []);
}
