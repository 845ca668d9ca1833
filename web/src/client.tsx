import { createRoot, hydrateRoot, type HydrationOptions, type Root } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './App';
import { readConfig } from './config';

/** Reads the server-filled config and hydrates the prerendered page. */
export function start(doc: Document = document, options?: HydrationOptions): Root | null {
  const container = doc.getElementById('root');
  if (!container) return null;
  const app = (
    <BrowserRouter>
      <App config={readConfig(doc)} />
    </BrowserRouter>
  );
  // `vite dev` serves the bare template; everything built is prerendered and hydrates.
  if (!container.firstElementChild) {
    const root = createRoot(container);
    root.render(app);
    return root;
  }
  return hydrateRoot(container, app, options);
}
