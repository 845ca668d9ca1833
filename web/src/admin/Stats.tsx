import { useEffect, useState } from 'react';
import { errorText, isAbort, type Stats as StatsData } from './api';
import { useInbox } from './context';
import { reachedInTime } from './format';

/** The numbers an operator checks first, and the leads per day of the last 30 days. */
export function Stats() {
  const { client } = useInbox();
  const [stats, setStats] = useState<StatsData | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    client.stats(controller.signal).then(setStats, (caught: unknown) => {
      if (!isAbort(caught)) setError(errorText(caught));
    });
    return () => controller.abort();
  }, [client]);

  return (
    <section className="stats" aria-labelledby="stats-heading">
      <h2 id="stats-heading" className="visually-hidden">
        Статистика
      </h2>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {stats && (
        <>
          <p className="stat stat-main">Передзвонили вчасно за 30 днів: {reachedInTime(stats.reached_in_time)}</p>
          <p className="stat">Відкриті: {stats.open}</p>
          <p className="stat" data-alarm={stats.overdue > 0 ? 'true' : undefined}>
            Прострочені: {stats.overdue}
          </p>
          <PerDayChart days={stats.per_day} />
        </>
      )}
    </section>
  );
}

const BAR = 10; // one day's slot in viewBox units: a bar of 8 and a gap of 2
const HEIGHT = 40;

function PerDayChart({ days }: { days: StatsData['per_day'] }) {
  const max = Math.max(1, ...days.map((day) => day.count));
  return (
    <div className="stat-wide">
      <p className="chart-caption" aria-hidden="true">
        Заявки за 30 днів
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
