import { Link } from 'react-router';

/** A path under /admin that is no page of the inbox (or a lead id that cannot be one). */
export function NotFound() {
  return (
    <>
      <h1>Сторінку не знайдено</h1>
      <p>
        <Link to="/">← До списку</Link>
      </p>
    </>
  );
}

/** An admin's page opened by an operator (a bookmark, a shared link): says why there is nothing. */
export function AdminOnly({ title }: { title: string }) {
  return (
    <>
      <h1>{title}</h1>
      <p>Це може зробити лише адміністратор.</p>
      <p>
        <Link to="/">← До списку</Link>
      </p>
    </>
  );
}
