// What every page's script does (src/entries/*.tsx): read the settings and the texts the page carries
// and hydrate it with the same component the prerender rendered.
import './styles.css';
import { startTransition, type ComponentType } from 'react';
import { createRoot, hydrateRoot, type HydrationOptions, type Root } from 'react-dom/client';
import { App } from './App';
import { readConfig } from './config';
import { readTexts, type Texts } from './texts';

interface Hydration {
  doc?: Document;
  options?: HydrationOptions;
  /** `vite dev` only (src/main.tsx): the bare template carries no texts block. */
  texts?: Texts;
}

export function hydratePage(page: ComponentType, { doc = document, options, texts }: Hydration = {}): Root | null {
  const container = doc.getElementById('root');
  if (!container) return null;
  const app = <App config={readConfig(doc)} texts={texts ?? readTexts(doc)} page={page} />;
  // `vite dev` serves the bare template; everything built is prerendered and hydrates.
  if (!container.firstElementChild) {
    const root = createRoot(container);
    root.render(app);
    return root;
  }
  // As a transition, React hydrates in slices of a few milliseconds and lets the browser in between,
  // instead of one long task (Lighthouse's Total Blocking Time).
  let root: Root | null = null;
  startTransition(() => {
    root = hydrateRoot(container, app, options);
  });
  return root;
}
