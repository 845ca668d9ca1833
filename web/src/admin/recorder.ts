// Recording a call on a lead, shared by its page and its desk card: the call being written kept
// as a draft, one call at a time, and where a refusal is said.
import { useEffect, useRef, useState } from 'react';
import { errorText, type CallBack, type LeadDetail, type Outcome, type Received } from './api';
import { useInbox } from './context';
import { type CallDraft, readDraft, saveDraft } from './drafts';

/**
 * A call being written is kept (`drafts.ts`) until it is recorded, so a reload loses nothing typed,
 * nor does a session that ends meanwhile, for the operator who signs in again (`App`).
 */
function useCallDraft(leadId: number) {
  const [draft, setDraft] = useState<CallDraft>(() => readDraft(leadId));
  useEffect(() => saveDraft(leadId, draft), [leadId, draft]);
  return [draft, setDraft] as const;
}

/**
 * Where a call was recorded from: the outcome buttons at the top, "Передзвонити о …" beside them,
 * or the form with its note.
 */
export type RecordedFrom = 'tap' | 'call-back' | 'form';

/**
 * Records calls on a lead, on its page or its desk card: one at a time, with the note being
 * written (if any); a failure is said where the operator asked. `onRecorded` gets the answer and
 * the outcome recorded.
 */
export function useCallRecorder(
  leadId: number,
  onRecorded: (answer: Received<LeadDetail>, outcome: Outcome | CallBack) => void,
) {
  const { client } = useInbox();
  const [draft, setDraft] = useCallDraft(leadId);
  const [pending, setPending] = useState(false);
  // A second tap before the first answer is the same call, not another.
  const busy = useRef(false);
  const [failure, setFailure] = useState<{ from: RecordedFrom; message: string } | null>(null);

  async function send(
    from: RecordedFrom,
    outcome: Outcome | CallBack,
    call: () => Promise<Received<LeadDetail>>,
  ) {
    if (busy.current) return;
    busy.current = true;
    setPending(true);
    setFailure(null);
    try {
      const answer = await call();
      // Forgotten now, not by the effect: a desk card that becomes its summary in the same render
      // never runs it, and the note would come back on the lead's next call.
      const recorded: CallDraft = { outcome: null, note: '' };
      saveDraft(leadId, recorded);
      setDraft(recorded);
      onRecorded(answer, outcome);
    } catch (caught) {
      setFailure({ from, message: errorText(caught) });
    } finally {
      busy.current = false;
      setPending(false);
    }
  }

  function record(outcome: Outcome | null, from: 'tap' | 'form') {
    if (busy.current) return;
    if (!outcome) {
      setFailure({ from, message: 'Виберіть результат дзвінка.' });
      return;
    }
    void send(from, outcome, () => client.recordAttempt(leadId, outcome, draft.note));
  }

  /** The person asked to be called at `at`: the lead stays open, due then. */
  function recordCallBack(at: string) {
    void send('call-back', 'call_back', () => client.recordCallBack(leadId, at, draft.note));
  }

  function refuse(from: RecordedFrom, message: string) {
    setFailure({ from, message });
  }

  return { draft, setDraft, pending, failure, record, recordCallBack, refuse };
}

export type CallRecorder = ReturnType<typeof useCallRecorder>;
