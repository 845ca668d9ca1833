import { useConfig } from '../config';
import { useTexts } from '../texts';
import { Shell } from './Shell';

/**
 * The generic 'Unexpected Application Error!' screen: shown by ErrorBoundary, and prerendered as
 * error.html, which the server answers with its 500s (that file carries no script).
 * Links are plain <a>: after an error a full page load is the safe way back.
 */
export function ErrorScreen() {
  const config = useConfig();
  const text = useTexts().error;
  return (
    <Shell>
      <div className="container narrow message">
        <h1 lang="en">{text.title}</h1>
        <p>{text.text}</p>
        <p>
          {text.phone}
          <a className="phone" href={config.phoneHref}>
            {config.phone}
          </a>
        </p>
        <p>
          <a className="button button-primary" href="/">
            {text.home}
          </a>
        </p>
      </div>
    </Shell>
  );
}
