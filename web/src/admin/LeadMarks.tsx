import type { LeadView } from './api';
import { OUTCOME_LABELS, commentStart, formatKyiv } from './format';

/**
 * What the server flags on an open lead, on its desk card and its page: its 48 hours end in or just
 * after days off, the admins were told nobody tried it, the person sent the form again (when, with
 * the newest comment). Nothing for a lead with none of them, or from a server that sends none yet.
 */
export function LeadMarks({ lead }: { lead: LeadView }) {
  const { at_risk: atRisk, escalated_at: escalatedAt, wrote_again: wroteAgain } = lead;
  if (!atRisk && !escalatedAt && !wroteAgain) return null;
  return (
    <ul className="lead-marks" aria-label="Позначки заявки">
      {atRisk && <li className="mark mark-risk">Під загрозою: вихідні</li>}
      {escalatedAt && (
        <li className="mark mark-escalated">
          Ескальовано <time dateTime={escalatedAt}>{formatKyiv(escalatedAt)}</time>
        </li>
      )}
      {wroteAgain && (
        <li className="mark mark-wrote-again">
          Написав(ла) ще раз <time dateTime={wroteAgain.at}>{formatKyiv(wroteAgain.at)}</time>
          {wroteAgain.comment && <>: «{commentStart(wroteAgain.comment)}»</>}
        </li>
      )}
    </ul>
  );
}

/**
 * An open lead whose last call went unanswered with no step of the retry cadence left (the server
 * keeps it as `retries_used_up`): what the operator should do, on its desk card and its page.
 */
export function RetriesUsedUp({ lead }: { lead: LeadView }) {
  if (!lead.open || !lead.retries_used_up) return null;
  return (
    <p className="used-up">
      Спроби за графіком вичерпано: закрийте заявку як «{OUTCOME_LABELS.unreachable}» або домовтеся про час.
    </p>
  );
}
