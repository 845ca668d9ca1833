import { StrictMode } from 'react';
import { Route, Routes } from 'react-router';
import { ErrorBoundary } from './components/ErrorBoundary';
import { ToastProvider } from './components/Toast';
import { ConfigContext, type Config } from './config';
import { HomePage } from './routes/home';
import { NotFoundPage } from './routes/not-found';
import { PrivacyPolicyPage } from './routes/privacy-policy';
import { ThankYouPage } from './routes/thank-you';

/**
 * The whole site, without its router: the browser wraps it in BrowserRouter, the prerender in
 * StaticRouter, tests in either. Routes here must match the files in src/pages.ts.
 */
export function App({ config }: { config: Config }) {
  return (
    <StrictMode>
      <ConfigContext value={config}>
        <ToastProvider>
          <ErrorBoundary>
            <Routes>
              <Route path="/" element={<HomePage />} />
              <Route caseSensitive path="/thank-you" element={<ThankYouPage />} />
              <Route caseSensitive path="/privacy-policy" element={<PrivacyPolicyPage />} />
              <Route path="*" element={<NotFoundPage />} />
            </Routes>
          </ErrorBoundary>
        </ToastProvider>
      </ConfigContext>
    </StrictMode>
  );
}
