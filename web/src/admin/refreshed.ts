import { useEffect, useEffectEvent, useState } from 'react';
import { errorText, isAbort, type Client } from './api';
import { REFRESH_SHOWN_MS, useRefreshWhenShown, useRefreshWhileShown } from './clock';
import { useInbox } from './context';

/**
 * What `read` answers, asked for at once (while `enabled`), again every `every` ms while the page is
 * shown and when it is shown again; the answer shown stays until the next one comes. `again` asks
 * at once, as "Спробувати ще раз" does.
 */
export function useRefreshedRead<T>(
  read: (client: Client, signal: AbortSignal) => Promise<T>,
  { every = REFRESH_SHOWN_MS, enabled = true }: { every?: number; enabled?: boolean } = {},
) {
  const { client } = useInbox();
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [retry, setRetry] = useState(0);
  const again = () => {
    setError(null);
    setRetry((n) => n + 1);
  };
  const readNow = useEffectEvent(read);

  useEffect(() => {
    if (!enabled) return;
    const controller = new AbortController();
    readNow(client, controller.signal).then(setValue, (caught: unknown) => {
      if (!isAbort(caught)) setError(errorText(caught));
    });
    return () => controller.abort();
  }, [client, enabled, retry]);
  useRefreshWhenShown(again);
  useRefreshWhileShown(again, every);
  return { value, error, again };
}
