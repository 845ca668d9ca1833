import { StrictMode, type ComponentType } from 'react';
import { ErrorBoundary } from './components/ErrorBoundary';
import { ToastProvider } from './components/Toast';
import { ConfigContext, type Config } from './config';
import { TextsContext, type Texts } from './texts';

/**
 * The frame of every page around the page itself. There is no client router: the server answers
 * each URL with its own prerendered page (src/pages.ts), that page's script hydrates only it, and
 * pages link to each other with plain <a> (a full load of a small page).
 */
export function App({ config, texts, page: Page }: { config: Config; texts: Texts; page: ComponentType }) {
  return (
    <StrictMode>
      <ConfigContext value={config}>
        <TextsContext value={texts}>
          <ToastProvider>
            <ErrorBoundary>
              <Page />
            </ErrorBoundary>
          </ToastProvider>
        </TextsContext>
      </ConfigContext>
    </StrictMode>
  );
}
