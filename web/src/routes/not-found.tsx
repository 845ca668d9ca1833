import { useEffect } from 'react';
import { Link, useLocation } from 'react-router';
import { Shell, usePageTitle } from '../components/Shell';
import { uk } from '../content/uk';

/** Any other path (the server answers it with status 404 and this page). */
export function NotFoundPage() {
  const location = useLocation();
  usePageTitle(uk.meta.notFound.title);

  useEffect(() => {
    console.error(uk.notFound.log, location.pathname);
  }, [location.pathname]);

  return (
    <Shell>
      <div className="container narrow message">
        <p className="big-code" aria-hidden="true">
          {uk.notFound.code}
        </p>
        <h1 lang="en">{uk.notFound.title}</h1>
        <p>{uk.notFound.text}</p>
        <p>
          <Link className="button button-primary" to="/" lang="en">
            {uk.notFound.home}
          </Link>
        </p>
      </div>
    </Shell>
  );
}
