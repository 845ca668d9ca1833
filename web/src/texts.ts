import { createContext, useContext } from 'react';
import type { Content } from './content/uk';

/**
 * The visitor's texts (content/uk.ts) travel as data in the page, like the settings (config.ts): the
 * prerender renders each page with all of them and writes the parts it shows into the page's
 * `zayavka-texts` data block (src/pages.ts says which); the page's script reads them back from there
 * and renders the same markup. So a text is sent once, in the HTML, where brotli finds it again in the
 * markup at little cost, and the scripts carry code only: they stay small (bench/RESULTS.md) and keep
 * their cache when a text changes.
 */
export type Texts = Content;
export type TextPart = keyof Texts;

export const TEXTS_ELEMENT_ID = 'zayavka-texts';

export const TextsContext = createContext<Texts | null>(null);

/** The page's texts. A page holds only its own parts (a component of another page would fail here). */
export function useTexts(): Texts {
  const texts = useContext(TextsContext);
  if (texts === null) throw new Error('no texts: render inside <TextsContext>');
  return texts;
}

/** Reads the texts the prerender wrote into this page. */
export function readTexts(doc: Document): Texts {
  const block = doc.getElementById(TEXTS_ELEMENT_ID);
  if (!block) throw new Error(`the page has no #${TEXTS_ELEMENT_ID} block`);
  return JSON.parse(block.textContent ?? '') as Texts;
}

/** The data block with the given parts. `<` is escaped so no text can close the element early. */
export function textsScript(texts: Texts, parts: readonly TextPart[]): string {
  const picked = Object.fromEntries(parts.map((part) => [part, texts[part]]));
  const json = JSON.stringify(picked).replace(/</g, '\\u003c');
  return `<script id="${TEXTS_ELEMENT_ID}" type="application/json">${json}</script>`;
}
