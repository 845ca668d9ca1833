// Where a lead came from, as the landing page itself sees it: its own utm_* parameters and the
// host of the page that linked to it. Nothing is stored in the browser and nothing goes to a
// third party; the values travel with the insert as optional columns.

/** The optional columns of the insert (the server's `lead::attribution::KEYS`). */
export const UTM_KEYS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term'] as const;

export type Attribution = Partial<Record<(typeof UTM_KEYS)[number] | 'referrer', string>>;

/** The server cuts longer values; sending more would only cost bytes. */
const MAX_CHARS = 200;

/**
 * The page's own utm_* parameters (non-empty ones) and the linking page's host when it is another
 * site (a visitor moving between this site's pages came from nowhere new).
 */
export function pageAttribution(page: { search: string; host: string }, referrer: string): Attribution {
  const attribution: Attribution = {};
  const query = new URLSearchParams(page.search);
  for (const key of UTM_KEYS) {
    const value = query.get(key)?.trim();
    if (value) attribution[key] = value.slice(0, MAX_CHARS);
  }
  try {
    const host = referrer ? new URL(referrer).host : '';
    if (host && host !== page.host) attribution.referrer = new URL(referrer).hostname;
  } catch {
    // Not a URL: nothing to say.
  }
  return attribution;
}
