import { useEffect, useMemo, useState } from 'react';

/** How often "time left" is recomputed while a page stays open. */
export const TICK_MS = 30_000;

/**
 * The server's clock now, in ms since the epoch: its `now` from the last answer plus the time this
 * page has measured since (a monotonic clock), so a phone set to the wrong time shows the right
 * time left, and a page left open keeps counting down. Null before the first answer.
 */
export function useServerNow(serverNow: string | undefined): number | null {
  const anchor = useMemo(
    () => (serverNow === undefined ? null : { server: Date.parse(serverNow), local: performance.now() }),
    [serverNow],
  );
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!anchor) return;
    const timer = window.setInterval(() => setTick((tick) => tick + 1), TICK_MS);
    return () => window.clearInterval(timer);
  }, [anchor]);
  return anchor && anchor.server + (performance.now() - anchor.local);
}
