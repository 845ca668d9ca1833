import { useEffect, useId, useRef, useState } from 'react';
import { Link, useLocation } from 'react-router';
import type { LeadDetail, LeadView, Received } from './api';
import { ClaimMarker, LeadCall } from './Claims';
import { useInbox } from './context';
import {
  commentStart,
  isOverdue,
  nextCallText,
  outcomeLabel,
  parseTime,
  statusLabel,
  timeLeft,
} from './format';
import { RepeatMarker } from './LeadList';
import { LeadMarks, RetriesUsedUp } from './LeadMarks';
import { OutcomeButtons } from './OutcomeButtons';
import { useCallRecorder } from './recorder';

/** What a card shows once a call is recorded on it: the lead as the server answered, and how. */
export interface Recorded {
  answer: Received<LeadDetail>;
  outcome: string;
}

/**
 * One lead of "Кому дзвонити зараз", laid out for the call: the name, the number as a big tap-to-call
 * button (which takes the lead as it dials, `LeadCall`), the time left, the start of the visitor's
 * comment, the server's marks (`LeadMarks`) and who has the lead; under them the call's outcome,
 * each one tap, with an optional note, and "Передзвонити о …" for a time the person asked for.
 * Recorded, the card shrinks to one line that says so and when the next call is (the lead leaves
 * the list at its next refresh); a lead whose retries are used up says what to do about it.
 */
export function DeskCard({
  lead,
  now,
  recorded,
  onRecorded,
  onTaken,
}: {
  lead: LeadView;
  now: number;
  recorded: Recorded | null;
  onRecorded: (recorded: Recorded) => void;
  /** The lead as the take its call button made answered. */
  onTaken: (lead: LeadView) => void;
}) {
  const shown = recorded?.answer.lead ?? lead;
  // A recorded call is judged at the server's time in its own answer: the list's clock, redrawn
  // only every half minute, can lag behind the call, and would read "due at the call's time" as
  // a next call still to come.
  const at = recorded ? Math.max(now, parseTime(recorded.answer.now)) : now;
  const stillDue = shown.open && !nextCallText(shown, at);
  if (recorded && !stillDue) return <SettledCard lead={shown} now={at} outcome={recorded.outcome} />;
  const left = timeLeft(shown, now);
  return (
    <li className="lead desk-card" data-open="true" data-overdue={isOverdue(shown, now) ? 'true' : undefined}>
      <div className="lead-head">
        <Link className="desk-link" to={`/leads/${shown.id}`}>
          Заявка №{shown.id}
        </Link>
        <RepeatMarker count={shown.repeat_count} />
        <span className="status">{statusLabel(shown.status)}</span>
      </div>
      <p className="lead-name">{shown.name}</p>
      <LeadCall lead={shown} onTaken={(answer) => onTaken(answer.lead)} />
      {left && <p className="due">{left}</p>}
      {shown.comment && (
        <p className="comment-start">
          <span className="visually-hidden">Коментар: </span>«{commentStart(shown.comment)}»
        </p>
      )}
      <LeadMarks lead={shown} />
      <ClaimMarker lead={shown} />
      <RetriesUsedUp lead={shown} />
      <CardOutcomes lead={shown} now={now} onRecorded={onRecorded} />
    </li>
  );
}

/** A card whose call is recorded: one line, focused, so the next lead is right below. */
function SettledCard({ lead, now, outcome }: { lead: LeadView; now: number; outcome: string }) {
  const line = useRef<HTMLParagraphElement>(null);
  useEffect(() => line.current?.focus(), []);
  const next = nextCallText(lead, now);
  return (
    <li className="lead desk-card" data-settled="true">
      <p ref={line} tabIndex={-1} className="settled">
        <Link to={`/leads/${lead.id}`}>Заявка №{lead.id}</Link> {lead.name}: {outcomeLabel(outcome)}.{' '}
        {next ? `${next}.` : 'Заявку закрито.'}
      </p>
    </li>
  );
}

/**
 * The outcome buttons of a card, recorded as the lead's page records them (`useCallRecorder`):
 * the note is the same draft (`drafts.ts`), typed here it is there too, and a reload loses nothing.
 */
function CardOutcomes({
  lead,
  now,
  onRecorded,
}: {
  lead: LeadView;
  now: number;
  onRecorded: (recorded: Recorded) => void;
}) {
  const { notify } = useInbox();
  const { pathname } = useLocation();
  const noteId = useId();
  const recorder = useCallRecorder(lead, (answer, outcome) => {
    onRecorded({ answer, outcome });
    notify('Дзвінок записано.', pathname);
  });
  const { draft, setDraft, failure } = recorder;
  const [noteOpen, setNoteOpen] = useState(draft.note !== '');

  return (
    <div className="card-outcomes">
      <OutcomeButtons label={`Результат дзвінка: заявка №${lead.id}`} now={now} recorder={recorder} />
      <button
        type="button"
        className="link-button"
        aria-expanded={noteOpen}
        aria-controls={noteId}
        onClick={() => setNoteOpen((open) => !open)}
      >
        Нотатка до дзвінка
      </button>
      <div id={noteId} hidden={!noteOpen}>
        <label className="field">
          <span>Нотатка</span>
          <textarea
            rows={2}
            maxLength={1000}
            value={draft.note}
            onChange={(event) => {
              const note = event.target.value;
              setDraft((current) => ({ ...current, note }));
            }}
          />
        </label>
      </div>
      {failure?.from === 'tap' && (
        <p role="alert" className="error">
          {failure.message}
        </p>
      )}
    </div>
  );
}
