import type { ComponentType } from 'react';
import { uk } from './content/uk';
import type { TextPart } from './texts';
import { HomePage } from './routes/home';
import { NotFoundPage } from './routes/not-found';
import { PrivacyPolicyPage } from './routes/privacy-policy';
import { ThankYouPage } from './routes/thank-you';

/**
 * What the server answers with a page: at its URL path, or in one of its own cases (any unknown path,
 * a refused POST /leads, its own 500).
 */
export type Serves = `/${string}` | 'not-found' | 'form-refused' | 'error';

/**
 * One file the prerender writes into dist/. This list is the only list of the visitor's pages: the
 * prerender writes `dist/pages.json` from it (`pagesManifest`), and the server routes by that file
 * (src/site.rs; docs/decisions/0017).
 */
export interface PageFile {
  file: string;
  serves: Serves;
  title: string;
  description: string;
  /** What it shows inside the site's frame; null for the error screen (components/ErrorScreen.tsx). */
  page: ComponentType | null;
  /**
   * The script that hydrates it, `src/entries/<entry>.tsx`, which renders the same `page`; null for
   * no script at all: error.html is the server's 500 and must not need JS, and form-refused.html
   * carries entries the server fills in, which the client would not render.
   */
  entry: string | null;
  /** The texts its script needs (its `zayavka-texts` block, src/texts.ts): what it shows, and may show later. */
  texts: readonly TextPart[];
  /** Whether the page shows today's date; only such pages carry the per-day `__ZAYAVKA_TODAY__`. */
  usesToday: boolean;
  /** The privacy policy the visitor agrees to: the server keeps a hash of it with each lead. */
  policy?: boolean;
}

/** Every page has the frame: Shell's footer, the toasts and the error boundary's screen. */
const FRAME = ['footer', 'toast', 'error'] as const;

export const PAGES: readonly PageFile[] = [
  {
    file: 'index.html',
    serves: '/',
    ...uk.meta.home,
    page: HomePage,
    entry: 'home',
    texts: [...FRAME, 'home', 'form'],
    usesToday: false,
  },
  {
    file: 'thank-you.html',
    serves: '/thank-you',
    ...uk.meta.thankYou,
    page: ThankYouPage,
    entry: 'thank-you',
    texts: [...FRAME, 'thankYou'],
    usesToday: false,
  },
  {
    file: 'privacy-policy.html',
    serves: '/privacy-policy',
    ...uk.meta.privacy,
    page: PrivacyPolicyPage,
    entry: 'privacy-policy',
    texts: [...FRAME, 'privacy'],
    usesToday: true,
    policy: true,
  },
  {
    file: '404.html',
    serves: 'not-found',
    ...uk.meta.notFound,
    page: NotFoundPage,
    entry: 'not-found',
    texts: [...FRAME, 'notFound'],
    usesToday: false,
  },
  // Pages without a script carry no texts block. The landing page with slots (form/refusal.ts).
  {
    file: 'form-refused.html',
    serves: 'form-refused',
    ...uk.meta.home,
    page: HomePage,
    entry: null,
    texts: [],
    usesToday: false,
  },
  { file: 'error.html', serves: 'error', ...uk.meta.error, page: null, entry: null, texts: [], usesToday: false },
];

/** `dist/pages.json`: what the server needs of PAGES, read by src/site.rs at start-up. */
export interface PagesManifest {
  /** The pages served at their own path; `form`: it shows the lead form (the server hands out a page-load proof with it). */
  routes: { path: string; file: string; form: boolean }[];
  notFound: string;
  formRefused: string;
  error: string;
  policy: string;
}

/** Whether a page shows the lead form: its script needs the form's texts, or it is the refusal page. */
export function showsForm(page: PageFile): boolean {
  return page.texts.includes('form') || page.serves === 'form-refused';
}

export function pagesManifest(pages: readonly PageFile[] = PAGES): PagesManifest {
  const only = (what: string, found: readonly PageFile[]) => {
    if (found.length !== 1) throw new Error(`PAGES must have exactly one ${what}, not ${found.length}`);
    return found[0].file;
  };
  const servingCase = (serves: Serves) => only(`page serving ${serves}`, pages.filter((p) => p.serves === serves));
  return {
    routes: pages.flatMap((p) => (p.serves.startsWith('/') ? [{ path: p.serves, file: p.file, form: showsForm(p) }] : [])),
    notFound: servingCase('not-found'),
    formRefused: servingCase('form-refused'),
    error: servingCase('error'),
    policy: only('privacy policy', pages.filter((p) => p.policy)),
  };
}
