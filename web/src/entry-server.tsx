// Build-time rendering: scripts/prerender.mjs runs this (after `vite build --ssr`) to write every
// page of dist/. Tests call the same functions.
import { renderToString } from 'react-dom/server';
import { App } from './App';
import { ErrorScreen } from './components/ErrorScreen';
import { LEAD_FORM_ID } from './components/LeadForm';
import { ConfigContext, TOKENS, configScript, type Config } from './config';
import { pageTitle, uk } from './content/uk';
import { proofFieldHtml } from './form/proof-field';
import { RefusalTemplate } from './form/refusal';
import { PAGES, pagesManifest, showsForm, type PageFile } from './pages';
import { TextsContext, textsScript } from './texts';

// `uk`: the prerender checks that no visitor text ended up in a script (they travel in the pages).
export { PAGES, TOKENS, pagesManifest, uk };

/**
 * React escapes ' as &#x27; although text and double-quoted attributes (all React writes) allow it
 * raw. We unescape it so the served HTML carries the labels verbatim ("Ваше ім'я"), as people and
 * tools searching the page expect; what the browser parses is the same either way.
 */
function plainApostrophes(html: string): string {
  return html.replace(/&#x27;/g, "'");
}

/**
 * The markup inside #root for a page, rendered with every text; form-refused.html renders the form's
 * slots for the server (form/refusal.ts), error.html the error screen without the app around it.
 */
export function renderApp(page: PageFile, config: Config): string {
  if (page.page === null) {
    return plainApostrophes(
      renderToString(
        <ConfigContext value={config}>
          <TextsContext value={uk}>
            <ErrorScreen />
          </TextsContext>
        </ConfigContext>,
      ),
    );
  }
  return plainApostrophes(
    renderToString(
      <RefusalTemplate value={page.serves === 'form-refused'}>
        <App config={config} texts={uk} page={page.page} />
      </RefusalTemplate>,
    ),
  );
}

function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** The part of Vite's build manifest (`build.manifest`) read here, by source path. */
export type Manifest = Record<string, { file: string; isEntry?: boolean; imports?: string[]; css?: string[] }>;

/** What a page loads besides its HTML: its entry script and the chunks that script imports. */
export interface PageScripts {
  src: string;
  /** Every chunk the entry imports, however deep, so the browser asks for all at once, not in turns. */
  preload: string[];
}

/** The source file of an entry (the key of the build manifest). */
export const entrySource = (entry: string) => `src/entries/${entry}.tsx`;

/** Every page's scripts, and all CSS files the build wrote (the prerender inlines them). */
export function readManifest(manifest: Manifest): { scripts: (entry: string) => PageScripts; css: string[] } {
  const css = new Set<string>();
  for (const chunk of Object.values(manifest)) for (const file of chunk.css ?? []) css.add(file);
  const scripts = (entry: string): PageScripts => {
    const root = manifest[entrySource(entry)];
    if (!root?.isEntry) throw new Error(`the client build has no entry ${entrySource(entry)}`);
    const preload: string[] = [];
    const visit = (imports: string[] = []) => {
      for (const key of imports) {
        const file = `/${manifest[key].file}`;
        if (preload.includes(file)) continue;
        preload.push(file);
        visit(manifest[key].imports);
      }
    };
    visit(root.imports);
    return { src: `/${root.file}`, preload };
  };
  return { scripts, css: [...css] };
}

/**
 * Where the template (index.html) loads the app in `vite dev`; each built page gets its own
 * scripts here instead, or none.
 */
export const DEV_SCRIPT = '<script type="module" src="/src/main.tsx"></script>';
const DEV_SCRIPT_LINE = /([ \t]*)<script type="module" src="\/src\/main\.tsx"><\/script>\n?/;

/**
 * What a page's one inline script does with its scripts (`SCRIPTS`): import them once the page has
 * shown its first content, or at once where there is no paint to wait for (a hidden page, a browser
 * that reports no paints). The page paints from its HTML and inline CSS alone and its form works
 * without JavaScript, so its code is not asked for before that paint: it never competes with it, and
 * Lighthouse, which counts every request that finished before the paint it observed as needed for
 * the largest one, no longer counts React (docs/decisions/0036). The server allows it by its hash.
 */
const LOADER = `const load = () => SCRIPTS.forEach((src) => import(src));
      if (document.visibilityState === 'hidden' || !PerformanceObserver.supportedEntryTypes?.includes('paint')) load();
      else new PerformanceObserver((paints, observer) => {
        if (paints.getEntriesByName('first-contentful-paint').length === 0) return;
        observer.disconnect();
        load();
      }).observe({ type: 'paint', buffered: true });`;

/**
 * A page's script, at the end of the body: the loader of its entry and of the chunks the entry
 * imports, all at once (not in turns, as the imports would find them).
 */
export function scriptTags({ src, preload }: PageScripts): string {
  const scripts = JSON.stringify([src, ...preload]);
  return `<script type="module">\n      ${LOADER.replace('SCRIPTS', scripts)}\n    </script>`;
}

/**
 * One page's HTML: the template with the title and description, all CSS in one <style> in the head
 * (one round trip paints the page; the server hashes this element for its CSP), the app markup,
 * the config data block, on a page with a script its texts block and the loader of its scripts (the
 * server hashes it too), and on a page with the lead form the form's proof field
 * (form/proof-field.ts). No other inline script and no style attributes.
 */
export function renderPage(
  template: string,
  css: string,
  page: PageFile,
  scripts: (entry: string) => PageScripts,
  config: Config = TOKENS,
): string {
  const pageConfig: Config = { ...config, today: page.usesToday ? config.today : '' };
  const head =
    `<title>${escapeHtml(pageTitle(page.title, pageConfig.brand))}</title>\n` +
    `    <meta name="description" content="${escapeHtml(page.description)}" />\n` +
    `    <style>${css.trim()}</style>`;
  return template
    .replace('<!--app-head-->', () => head)
    .replace('<!--app-html-->', () => renderApp(page, pageConfig))
    .replace('<!--app-config-->', () =>
      page.entry === null ? configScript(pageConfig) : `${configScript(pageConfig)}\n    ${textsScript(uk, page.texts)}`,
    )
    .replace(DEV_SCRIPT_LINE, (_, indent: string) =>
      [
        ...(page.entry === null ? [] : [`${indent}${scriptTags(scripts(page.entry))}\n`]),
        // Last, so that the server sends only the bytes after its value uncompressed.
        ...(showsForm(page) ? [`${indent}${proofFieldHtml(LEAD_FORM_ID)}\n`] : []),
      ].join(''),
    );
}

/** Every page of dist/, rendered with the placeholder tokens. */
export function prerenderAll(
  template: string,
  css: string,
  scripts: (entry: string) => PageScripts,
): { file: string; html: string }[] {
  for (const marker of ['<!--app-head-->', '<!--app-html-->', '<!--app-config-->', DEV_SCRIPT]) {
    if (!template.includes(marker)) throw new Error(`index.html template lacks ${marker}`);
  }
  return PAGES.map((page) => ({ file: page.file, html: renderPage(template, css, page, scripts) }));
}
