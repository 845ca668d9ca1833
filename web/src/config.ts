import { createContext, useContext } from 'react';

/**
 * Run-time settings of one deployment (docs/architecture.md). The build writes the tokens below into
 * every page; the server replaces them when it serves the page (HTML-escaped in the markup,
 * JSON-escaped inside the `zayavka-config` data block, which is raw text); the browser reads the
 * same values back from that block, so its first render equals the served HTML.
 */
export interface Config {
  brand: string;
  phone: string;
  /** The phone as a `tel:` URL. Computed by the server: never derive it from `phone` here. */
  phoneHref: string;
  /** Where a visitor goes after a successful submit (a full page navigation). */
  redirectUrl: string;
  /** Base URL of the one call; empty means this same origin. */
  backendUrl: string;
  anonKey: string;
  /** Today's date (uk-UA, dd.mm.yyyy) as the server saw it; only the privacy policy uses it. */
  today: string;
  /** How long leads are kept, in words ("180 днів"): the server's retention setting. */
  retention: string;
}

export const CONFIG_KEYS = [
  'brand',
  'phone',
  'phoneHref',
  'redirectUrl',
  'backendUrl',
  'anonKey',
  'today',
  'retention',
] as const satisfies readonly (keyof Config)[];

/** The placeholders the prerender writes; the server fills them in. */
export const TOKENS: Config = {
  brand: '__ZAYAVKA_BRAND__',
  phone: '__ZAYAVKA_PHONE__',
  phoneHref: '__ZAYAVKA_PHONE_HREF__',
  redirectUrl: '__ZAYAVKA_REDIRECT_URL__',
  backendUrl: '__ZAYAVKA_BACKEND_URL__',
  anonKey: '__ZAYAVKA_ANON_KEY__',
  today: '__ZAYAVKA_TODAY__',
  retention: '__ZAYAVKA_RETENTION__',
};

/** A content text with `{retention}` (the retention period) filled in. */
export function withRetention(text: string, config: Config): string {
  return text.replace('{retention}', config.retention);
}

export const CONFIG_ELEMENT_ID = 'zayavka-config';

/** Parses the data block's text. Missing, non-string or unparseable values become empty strings. */
export function parseConfig(text: string | null | undefined): Config {
  let raw: unknown = null;
  try {
    raw = JSON.parse(text ?? '');
  } catch {
    raw = null;
  }
  const source = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const config = {} as Config;
  for (const key of CONFIG_KEYS) {
    const value = source[key];
    config[key] = typeof value === 'string' ? value : '';
  }
  return config;
}

/** Reads the config the server filled into this page. */
export function readConfig(doc: Document): Config {
  return parseConfig(doc.getElementById(CONFIG_ELEMENT_ID)?.textContent);
}

/**
 * The data block as the prerender writes it. `<` is escaped so no value can close the element early
 * (the tokens have none; this is for tests that render real values).
 */
export function configScript(config: Config): string {
  const json = JSON.stringify(config).replace(/</g, '\\u003c');
  return `<script id="${CONFIG_ELEMENT_ID}" type="application/json">${json}</script>`;
}

export const ConfigContext = createContext<Config>(TOKENS);

export function useConfig(): Config {
  return useContext(ConfigContext);
}
