import { uk } from './content/uk';

/** One file the prerender writes into dist/ (the server's side of this list: docs/architecture.md). */
export interface PageFile {
  file: string;
  /** The URL rendered; null for the error screen, which is not a route. */
  url: string | null;
  title: string;
  description: string;
  /** Whether the page loads the script and hydrates. error.html is static: a 500 must not need JS. */
  hydrate: boolean;
  /** Whether the page shows today's date; only such pages carry the per-day `__ZAYAVKA_TODAY__`. */
  usesToday: boolean;
  /** The landing page as the server's answer to a refused POST /leads, with slots (form/refusal.ts). */
  refusal?: boolean;
}

export const PAGES: readonly PageFile[] = [
  { file: 'index.html', url: '/', ...uk.meta.home, hydrate: true, usesToday: false },
  { file: 'thank-you.html', url: '/thank-you', ...uk.meta.thankYou, hydrate: true, usesToday: false },
  { file: 'privacy-policy.html', url: '/privacy-policy', ...uk.meta.privacy, hydrate: true, usesToday: true },
  // Any unknown path renders the not-found route; this one stands for them all.
  { file: '404.html', url: '/__not-found__', ...uk.meta.notFound, hydrate: true, usesToday: false },
  // Not hydrated: the server fills in the visitor's entries and marks, which the client would not render.
  { file: 'form-refused.html', url: '/', ...uk.meta.home, hydrate: false, usesToday: false, refusal: true },
  { file: 'error.html', url: null, ...uk.meta.error, hydrate: false, usesToday: false },
];
