import { useEffect } from 'react';
import { Shell } from '../components/Shell';
import { useTexts } from '../texts';

/** Any other path (the server answers it with status 404 and this page). */
export function NotFoundPage() {
  const text = useTexts().notFound;
  // After hydration, so the page's markup stays the same for every path it stands for.
  useEffect(() => {
    console.error(text.log, window.location.pathname);
  }, [text.log]);

  return (
    <Shell>
      <div className="container narrow message">
        <p className="big-code" aria-hidden="true">
          {text.code}
        </p>
        <h1 lang="en">{text.title}</h1>
        <p>{text.text}</p>
        <p>
          <a className="button button-primary" href="/" lang="en">
            {text.home}
          </a>
        </p>
      </div>
    </Shell>
  );
}
