import { Link } from 'react-router';
import type { Stats as StatsData } from './api';
import { BreakdownFigures } from './Claims';
import { channelLabel, formatKyiv, reachedInTime } from './format';
import { LoadError } from './LoadError';
import { PromiseFigures } from './Promise';
import { useRefreshedRead } from './refreshed';

/**
 * The figures of the call desk, asked for on arrival, every minute while shown and when the page is
 * shown again: the warning about failing channels needs them as much as the figures do.
 */
export function useStats() {
  const { value: stats, error, again } = useRefreshedRead((client, signal) => client.stats(signal));
  return { stats, error, again };
}

/**
 * The numbers an operator checks, the leads per day of the last 30 days, the breakdown, and how the
 * 48-hour promise is kept.
 */
export function Stats({ stats, error, again }: ReturnType<typeof useStats>) {
  return (
    <section className="stats" aria-labelledby="stats-heading">
      <h2 id="stats-heading" className="stat-wide">
        Показники
      </h2>
      {error && <LoadError message={error} onRetry={again} />}
      {stats && (
        <>
          <p className="stat stat-main">Передзвонили вчасно за 30 днів: {reachedInTime(stats.reached_in_time)}</p>
          <p className="stat">Відкриті: {stats.open}</p>
          <p className="stat" data-alarm={stats.overdue > 0 ? 'true' : undefined}>
            Прострочені: {stats.overdue}
          </p>
          <p className="stat stat-wide stat-held" data-attention={stats.held > 0 ? 'true' : undefined}>
            <Link to="/held">На перевірці: {stats.held}</Link>
          </p>
          <PerDayChart days={stats.per_day} />
          <BreakdownFigures />
          <PromiseFigures />
        </>
      )}
    </section>
  );
}

/**
 * The team learns of new leads through the channels: while one fails (a revoked bot token, a
 * mailbox that refuses), say so where the operators look every day, with what the channel answered:
 * above the call desk, never folded away with the figures.
 */
export function DeliveryWarning({ stats, admins }: { stats: StatsData | null; admins: boolean }) {
  const queues = stats?.notifications.filter((queue) => queue.failing > 0) ?? [];
  if (queues.length === 0) return null;
  return (
    <div className="delivery-warning stat-wide" role="alert">
      <p>
        <strong>Сповіщення не доходять.</strong> Нові заявки збережені й є в цьому списку, але команда може про них не
        знати.
      </p>
      <ul>
        {queues.map((queue) => (
          <li key={queue.channel}>
            {channelLabel(queue.channel)}: не надіслано {queue.waiting}, найдавніше чекає з {formatKyiv(queue.oldest_at)}.
            {queue.last_error && ` Відповідь: ${queue.last_error}`}
          </li>
        ))}
      </ul>
      <p>Сервер повторює спроби сам і надішле все, щойно канал запрацює. Перевірте налаштування каналу.</p>
      {admins && (
        <p>
          <Link to="/notifications">Сповіщення: надіслати ще раз або відкинути</Link>
        </p>
      )}
    </div>
  );
}

const BAR = 10; // one day's slot in viewBox units: a bar of 8 and a gap of 2
const HEIGHT = 40;

/**
 * The bars, under a caption with the figures a phone cannot show on hover and a screen reader
 * cannot read from a picture: the total and the busiest day.
 */
function PerDayChart({ days }: { days: StatsData['per_day'] }) {
  const max = Math.max(1, ...days.map((day) => day.count));
  const total = days.reduce((sum, day) => sum + day.count, 0);
  const busiest = days.reduce<StatsData['per_day'][number] | null>(
    (best, day) => (day.count > (best?.count ?? 0) ? day : best),
    null,
  );
  return (
    <div className="stat-wide">
      <p className="chart-caption">
        Заявки за 30 днів: {total}
        {busiest && `, найбільше за день: ${busiest.count} (${dayAndMonth(busiest.date)})`}
      </p>
      <svg
        className="chart"
        role="img"
        aria-label="Заявки за останні 30 днів"
        viewBox={`0 0 ${Math.max(days.length, 1) * BAR} ${HEIGHT}`}
        preserveAspectRatio="none"
      >
        {days.map((day, i) => {
          // An empty day keeps a sliver, so the axis reads as 30 days, not as missing data.
          const height = day.count === 0 ? 1 : (day.count / max) * (HEIGHT - 1);
          return (
            <rect
              key={day.date}
              className={day.count === 0 ? 'bar-empty' : undefined}
              x={i * BAR + 1}
              y={HEIGHT - height}
              width={BAR - 2}
              height={height}
            >
              <title>{`${day.date}: ${day.count}`}</title>
            </rect>
          );
        })}
      </svg>
    </div>
  );
}

/** "2026-11-20" as "20.11". */
function dayAndMonth(date: string): string {
  const [, month, day] = date.split('-');
  return `${day}.${month}`;
}
