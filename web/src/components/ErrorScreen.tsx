import { useConfig } from '../config';
import { uk } from '../content/uk';
import { Shell, usePageTitle } from './Shell';

/**
 * The generic 'Unexpected Application Error!' screen: shown by ErrorBoundary, and prerendered as
 * error.html, which the server answers with its 500s (that file carries no script).
 * Links are plain <a>: after an error a full page load is the safe way back.
 */
export function ErrorScreen() {
  const config = useConfig();
  usePageTitle(uk.meta.error.title);
  return (
    <Shell>
      <div className="container narrow message">
        <h1 lang="en">{uk.error.title}</h1>
        <p>{uk.error.text}</p>
        <p>
          {uk.error.phone}
          <a className="phone" href={config.phoneHref}>
            {config.phone}
          </a>
        </p>
        <p>
          <a className="button button-primary" href="/">
            {uk.error.home}
          </a>
        </p>
      </div>
    </Shell>
  );
}
