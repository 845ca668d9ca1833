import type { PromiseRow } from './api';
import { sourceLabel } from './Claims';
import { REFRESH_SHOWN_MS } from './clock';
import { useInbox } from './context';
import { LoadError } from './LoadError';
import { useRefreshedRead } from './refreshed';

/** How often the promise figures are asked again while shown. */
export const PROMISE_REFRESH_MS = 10 * REFRESH_SHOWN_MS;

/**
 * How the 48-hour promise is kept over 30 days, with the other figures: how long people waited for
 * the first call and for a call that reached them, and how many were reached in time, overall,
 * per operator (whoever called first; an operator sees their own) and per source. Loaded when the
 * figures are shown, and again every ten minutes while they are.
 */
export function PromiseFigures() {
  const { role } = useInbox();
  // Asked again while shown, every ten minutes, not every minute as the headline figures: exact
  // percentiles over a month cost the server about 0.35 s at two million leads, and twenty inboxes
  // asking each minute would cost it 12 % of a core.
  const {
    value: figures,
    error,
    again,
  } = useRefreshedRead((client, signal) => client.promise(signal), { every: PROMISE_REFRESH_MS });

  return (
    <section className="breakdown promise stat-wide" aria-labelledby="promise-heading">
      <h3 id="promise-heading">Як ми тримаємо обіцянку (30 днів)</h3>
      {error && (
        <LoadError message={error} onRetry={again} />
      )}
      {figures && (
        <>
          <p className="promise-note">
            Час від заявки. Заявку рахуємо тому, хто подзвонив першим; за {figures.promise_hours} год рахуємо лише
            заявки, чий строк минув або до кого вже додзвонилися.
          </p>
          <PromiseTable
            caption={role === 'admin' ? 'За операторами' : 'Ваші заявки'}
            group="Оператор"
            overall={figures.overall}
            hours={figures.promise_hours}
            rows={figures.by_operator.map((row) => ({ ...row, name: row.operator ?? 'Ще ніхто не дзвонив' }))}
          />
          <PromiseTable
            caption="За джерелами"
            group="Джерело"
            overall={figures.overall}
            hours={figures.promise_hours}
            rows={figures.by_source.map((row) => ({ ...row, name: sourceLabel(row.source) }))}
          />
        </>
      )}
    </section>
  );
}

function PromiseTable({
  caption,
  group,
  overall,
  hours,
  rows,
}: {
  caption: string;
  group: string;
  overall: PromiseRow;
  hours: number;
  rows: (PromiseRow & { name: string })[];
}) {
  const heads = ['Заявки', 'До першої спроби (медіана / 90%)', 'До розмови (медіана)', `Додзвонилися за ${hours} год`];
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{group}</th>
          {heads.map((head) => (
            <th key={head} scope="col">
              {head}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        <PromiseLine name="Усі заявки" row={overall} heads={heads} />
        {rows.map((row) => (
          <PromiseLine key={row.name} name={row.name} row={row} heads={heads} />
        ))}
      </tbody>
    </table>
  );
}

/**
 * A group's row. Where the figures are narrow (a phone, the desk's side column) each row is shown
 * as a block of "header: value" lines (admin.css, `data-label`), so no word is cut in half.
 */
function PromiseLine({ name, row, heads }: { name: string; row: PromiseRow; heads: string[] }) {
  const first =
    row.first_attempt_median_minutes === null
      ? '—'
      : `${waited(row.first_attempt_median_minutes)} / ${waited(row.first_attempt_p90_minutes)}`;
  const cells = [String(row.leads), first, waited(row.reach_median_minutes), inTime(row)];
  return (
    <tr>
      <th scope="row">{name}</th>
      {cells.map((cell, i) => (
        <td key={heads[i]} data-label={heads[i]}>
          {cell}
        </td>
      ))}
    </tr>
  );
}

/** 45 → "45 хв", 125 → "2 год 5 хв", 3000 → "2 дн 2 год"; null → "—". */
export function waited(minutes: number | null): string {
  if (minutes === null) return '—';
  if (minutes < 60) return `${minutes} хв`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours} год` : `${hours} год ${minutes % 60} хв`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} дн` : `${days} дн ${hours % 24} год`;
}

/** "3 з 4 (75%)", or "—" while no lead's hours are over. */
function inTime(row: PromiseRow): string {
  if (row.reached_in_time_share === null) return '—';
  return `${row.reached_in_time} з ${row.due} (${Math.round(row.reached_in_time_share * 100)}%)`;
}
