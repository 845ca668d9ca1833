import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import { errorText, isAbort, type Notifications as NotificationsData, type PendingNotification } from './api';
import { ConfirmedAction } from './Confirm';
import { useInbox } from './context';
import { channelLabel, formatKyiv, notificationEventLabel } from './format';
import { FormError } from './FormError';
import { LoadError } from './LoadError';

/**
 * /admin/notifications (admins): what the channels have not delivered. Per channel its state and
 * last error; then each waiting notification (lead №, kind, tries, next try in Kyiv time, last
 * error) with "Надіслати ще раз" and "Відкинути". Dropping is asked first: it is recorded in the
 * audit trail and the notification is never sent. A notification handled either way leaves the list.
 */
export function NotificationsPage() {
  const { client, notify } = useInbox();
  const [data, setData] = useState<NotificationsData | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [retry, setRetry] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);

  useEffect(() => {
    const controller = new AbortController();
    client.notifications(controller.signal).then(
      (answer) => {
        setData(answer);
        setError(null);
      },
      (caught: unknown) => {
        if (!isAbort(caught)) setError(errorText(caught));
      },
    );
    return () => controller.abort();
  }, [client, retry]);

  /** Takes a handled notification off the list and reads the list again (the channels' counts change). */
  const handled = useCallback(
    (id: number, text: string) => {
      setData((current) => current && { ...current, notifications: current.notifications.filter((n) => n.id !== id) });
      notify(text, '/notifications');
      setRetry((n) => n + 1);
    },
    [notify],
  );

  return (
    <>
      <p>
        <Link to="/">← До списку</Link>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        Сповіщення
      </h1>
      <p className="muted">
        Сповіщення, які ще не дійшли до команди. Сервер повторює спроби сам; тут можна надіслати одразу або відкинути
        непотрібне.
      </p>
      {error && <LoadError message={error} onRetry={() => setRetry((n) => n + 1)} />}
      {!data && !error && <p className="muted">Завантаження…</p>}
      {data && (
        <>
          <h2>Канали</h2>
          {data.channels.length === 0 ? (
            <p className="empty">Усе надіслано: нічого не чекає.</p>
          ) : (
            <ul className="calls channels" aria-label="Канали">
              {data.channels.map((channel) => (
                <li key={channel.channel}>
                  <p className="call-head">
                    <strong>{channelLabel(channel.channel)}</strong>{' '}
                    <span className={channel.failing > 0 ? 'error' : undefined}>
                      {!channel.configured
                        ? 'не налаштовано'
                        : channel.failing > 0
                          ? `не працює: невдалих ${channel.failing}`
                          : 'працює'}
                    </span>
                  </p>
                  <p>
                    Чекає: {channel.waiting}, найдавніше з {formatKyiv(channel.oldest_at)}
                  </p>
                  {channel.last_error && <p className="audit-detail">Остання помилка: {channel.last_error}</p>}
                </li>
              ))}
            </ul>
          )}
          <h2>Чекають на надсилання</h2>
          {data.notifications.length === 0 ? (
            <p className="empty">Сповіщень у черзі немає</p>
          ) : (
            <ol className="calls notifications" aria-label="Сповіщення в черзі">
              {data.notifications.map((item) => (
                <NotificationItem key={item.id} item={item} onHandled={handled} />
              ))}
            </ol>
          )}
        </>
      )}
    </>
  );
}

function NotificationItem({
  item,
  onHandled,
}: {
  item: PendingNotification;
  onHandled: (id: number, text: string) => void;
}) {
  const { client } = useInbox();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const headId = useId();
  const what = `сповіщення «${notificationEventLabel(item.event)}» про заявку №${item.lead_id}`;

  async function sendAgain() {
    setPending(true);
    setError(null);
    try {
      await client.sendAgain(item.id);
      onHandled(item.id, `Сповіщення про заявку №${item.lead_id} надсилається ще раз.`);
    } catch (caught) {
      setError(errorText(caught));
      setPending(false);
    }
  }

  return (
    <li>
      <p className="call-head" id={headId}>
        <Link to={`/leads/${item.lead_id}`}>Заявка №{item.lead_id}</Link>{' '}
        <span>
          {notificationEventLabel(item.event)}, {channelLabel(item.channel)}
        </span>
      </p>
      <p>
        Спроб: {item.attempts}. Наступна спроба: <time dateTime={item.next_attempt_at}>{formatKyiv(item.next_attempt_at)}</time>
      </p>
      {item.last_error && <p className="audit-detail">Остання помилка: {item.last_error}</p>}
      <FormError error={error} />
      <div className="actions">
        <button
          type="button"
          className="button"
          aria-disabled={pending ? 'true' : undefined}
          aria-describedby={headId}
          onClick={() => !pending && void sendAgain()}
        >
          Надіслати ще раз
        </button>
        <ConfirmedAction
          label="Відкинути"
          question={`Відкинути ${what}? Його не буде надіслано ніколи, а в журналі дій залишиться запис.`}
          confirm="Так, відкинути"
          describedBy={headId}
          act={async () => {
            await client.dropNotification(item.id);
            onHandled(item.id, `Сповіщення про заявку №${item.lead_id} відкинуто.`);
          }}
        />
      </div>
    </li>
  );
}
