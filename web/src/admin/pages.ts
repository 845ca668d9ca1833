// A list the server hands out a page at a time (`next_before_id`), newest first: the first page on
// mount and on `again()`, "Показати ще" appending the next without repeating an item.
import { useEffect, useState } from 'react';
import { errorText, isAbort } from './api';

export interface Paged<T> {
  items: T[];
  next_before_id: number | null;
}

/**
 * `load(beforeId, signal)`: the page before that id, or the first with `null`. A new `source` (the
 * API client of another session) loads the first page again.
 */
export function usePagedList<T extends { id: number }>(
  load: (beforeId: number | null, signal?: AbortSignal) => Promise<Paged<T>>,
  source: unknown,
) {
  const [page, setPage] = useState<Paged<T> | null>(null);
  const [loading, setLoading] = useState(true);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [retry, setRetry] = useState(0);
  const again = () => {
    setLoading(true);
    setError(null);
    setRetry((n) => n + 1);
  };

  useEffect(() => {
    const controller = new AbortController();
    load(null, controller.signal).then(
      (answer) => {
        setPage(answer);
        setLoading(false);
      },
      (caught: unknown) => {
        if (isAbort(caught)) return;
        setError(errorText(caught));
        setLoading(false);
      },
    );
    return () => controller.abort();
    // `load` is a new function each render: `source` and `retry` say when the first page is due.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [source, retry]);

  async function showMore() {
    if (page?.next_before_id == null) return;
    setLoadingMore(true);
    setError(null);
    try {
      const answer = await load(page.next_before_id);
      setPage((current) => {
        const seen = new Set(current?.items.map((item) => item.id));
        return { ...answer, items: [...(current?.items ?? []), ...answer.items.filter((item) => !seen.has(item.id))] };
      });
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setLoadingMore(false);
    }
  }

  /** Takes items out of the list (a lead that left the view). */
  function drop(leaves: (item: T) => boolean) {
    setPage((current) => current && { ...current, items: current.items.filter((item) => !leaves(item)) });
  }

  return { page, loading, loadingMore, error, again, showMore, drop };
}
