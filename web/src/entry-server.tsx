// Build-time rendering: scripts/prerender.mjs runs this (after `vite build --ssr`) to write every
// page of dist/. Tests call the same functions.
import { renderToString } from 'react-dom/server';
import { StaticRouter } from 'react-router';
import { App } from './App';
import { ErrorScreen } from './components/ErrorScreen';
import { ConfigContext, TOKENS, configScript, type Config } from './config';
import { pageTitle } from './content/uk';
import { RefusalTemplate } from './form/refusal';
import { PAGES, type PageFile } from './pages';

export { PAGES, TOKENS };

/**
 * React escapes ' as &#x27; although text and double-quoted attributes (all React writes) allow it
 * raw. We unescape it so the served HTML carries the labels verbatim ("Ваше ім'я"), as people and
 * tools searching the page expect; what the browser parses is the same either way.
 */
function plainApostrophes(html: string): string {
  return html.replace(/&#x27;/g, "'");
}

/** The markup inside #root for a URL; `refusal` renders the form's slots for the server (form/refusal.ts). */
export function renderApp(url: string, config: Config, refusal = false): string {
  return plainApostrophes(
    renderToString(
      <RefusalTemplate value={refusal}>
        <StaticRouter location={url}>
          <App config={config} />
        </StaticRouter>
      </RefusalTemplate>,
    ),
  );
}

export function renderErrorScreen(config: Config): string {
  return plainApostrophes(
    renderToString(
      <ConfigContext value={config}>
        <ErrorScreen />
      </ConfigContext>,
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

const STYLESHEET_LINK = /[ \t]*<link\b[^>]*\brel="stylesheet"[^>]*>\n?/g;
const MODULE_SCRIPT = /[ \t]*<script\b[^>]*\btype="module"[^>]*><\/script>\n?/g;
const MODULE_PRELOAD = /[ \t]*<link\b[^>]*\brel="modulepreload"[^>]*>\n?/g;

/** The hrefs of the stylesheet links Vite put into the template (the prerender inlines them). */
export function stylesheetHrefs(template: string): string[] {
  return [...template.matchAll(STYLESHEET_LINK)].map((m) => /\bhref="([^"]+)"/.exec(m[0])?.[1] ?? '');
}

/**
 * One page's HTML: the template with the title and description, all CSS in one <style> in the head
 * (one round trip paints the page; the server hashes this element for its CSP), the app markup, and
 * the config data block. No other inline script and no style attributes.
 */
export function renderPage(template: string, css: string, page: PageFile, config: Config = TOKENS): string {
  const pageConfig: Config = { ...config, today: page.usesToday ? config.today : '' };
  const appHtml = page.url === null ? renderErrorScreen(pageConfig) : renderApp(page.url, pageConfig, page.refusal);
  const head =
    `<title>${escapeHtml(pageTitle(page.title, pageConfig.brand))}</title>\n` +
    `    <meta name="description" content="${escapeHtml(page.description)}" />\n` +
    `    <style>${css.trim()}</style>`;
  let html = template.replace(STYLESHEET_LINK, '');
  if (!page.hydrate) html = html.replace(MODULE_SCRIPT, '').replace(MODULE_PRELOAD, '');
  return html
    .replace('<!--app-head-->', () => head)
    .replace('<!--app-html-->', () => appHtml)
    .replace('<!--app-config-->', () => configScript(pageConfig));
}

/** Every page of dist/, rendered with the placeholder tokens. */
export function prerenderAll(template: string, css: string): { file: string; html: string }[] {
  for (const marker of ['<!--app-head-->', '<!--app-html-->', '<!--app-config-->']) {
    if (!template.includes(marker)) throw new Error(`index.html template lacks ${marker}`);
  }
  return PAGES.map((page) => ({ file: page.file, html: renderPage(template, css, page) }));
}
