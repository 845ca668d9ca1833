import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import type { AuditEntry } from './api';
import { useInbox } from './context';
import { auditActionLabel, formatKyiv } from './format';
import { LoadError } from './LoadError';
import { usePagedList } from './pages';
import { ShowMore } from './ShowMore';

/**
 * /admin/audit (admins): the audit trail, newest first: when (Kyiv time), who, what, the lead by
 * its link, what else the server noted and from which address. "Показати ще" pages on.
 */
export function AuditLog() {
  const { client } = useInbox();
  const { page, loading, loadingMore, error, again, showMore } = usePagedList<AuditEntry>(
    (beforeId, signal) =>
      client.audit(beforeId, signal).then((answer) => ({ items: answer.entries, next_before_id: answer.next_before_id })),
    client,
  );
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => heading.current?.focus(), []);

  return (
    <>
      <p>
        <Link to="/">← До списку</Link>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        Журнал дій
      </h1>
      <p className="muted">
        Хто входив, відкривав, завантажував і видаляв заявки та змінював команду, нові записи вгорі. Заявки названо
        лише номером: імен, телефонів і коментарів тут немає.
      </p>
      {error && <LoadError message={error} onRetry={again} />}
      <p aria-live="polite" className="visually-hidden">
        {page && !loading ? `Показано записів: ${page.items.length}${page.next_before_id !== null ? ', є ще' : ''}` : ''}
      </p>
      {!page && loading && <p className="muted">Завантаження…</p>}
      {page &&
        (page.items.length === 0 ? (
          <p className="empty">Записів немає</p>
        ) : (
          <ol className="calls audit" aria-label="Записи журналу">
            {page.items.map((entry) => (
              <AuditItem key={entry.id} entry={entry} />
            ))}
          </ol>
        ))}
      <ShowMore page={page} loading={loadingMore} onShowMore={showMore} />
    </>
  );
}

function AuditItem({ entry }: { entry: AuditEntry }) {
  return (
    <li>
      <p className="call-head">
        <time dateTime={entry.at}>{formatKyiv(entry.at)}</time> <span>{entry.actor}</span>
      </p>
      <p className="call-outcome">
        {auditActionLabel(entry.action)}
        {entry.lead_id !== null && (
          <>
            {': '}
            <Link to={`/leads/${entry.lead_id}`}>Заявка №{entry.lead_id}</Link>
          </>
        )}
      </p>
      {entry.detail && <p className="audit-detail">{entry.detail}</p>}
      {entry.address && <p className="muted audit-address">Адреса: {entry.address}</p>}
    </li>
  );
}
