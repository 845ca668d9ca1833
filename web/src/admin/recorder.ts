// Recording a call on a lead, shared by its page and its desk card: the call being written kept
// as a draft, one call at a time, and where a refusal is said.
import { useEffect, useRef, useState } from 'react';
import { errorText, type CallBack, type LeadDetail, type LeadView, type Outcome, type Received } from './api';
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
  lead: Pick<LeadView, 'id' | 'attempt_count'>,
  onRecorded: (answer: Received<LeadDetail>, outcome: Outcome | CallBack) => void,
) {
  const leadId = lead.id;
  const { client } = useInbox();
  const [draft, setDraft] = useCallDraft(leadId);
  const [pending, setPending] = useState(false);
  // A second tap before the first answer is the same call, not another.
  const busy = useRef(false);
  const [failure, setFailure] = useState<{ from: RecordedFrom; message: string } | null>(null);

  async function send(
    from: RecordedFrom,
    outcome: Outcome | CallBack,
    call: (key: string) => Promise<Received<LeadDetail>>,
    at: string | null = null,
  ) {
    if (busy.current) return;
    busy.current = true;
    setPending(true);
    setFailure(null);
    // Kept with the draft before it goes: a call sent again, after a lost answer or a reload, goes
    // under the same key (`CallDraft.sending`). A changed call goes under a new one, and so does
    // the same call once the lead shows more calls than when the key was made: the lost one was
    // recorded, and this is the next (a retry two hours on taps the same «Не відповіли»).
    const sent = JSON.stringify([outcome, draft.note, at]);
    const before = draft.sending;
    const sending =
      before?.call === sent && before.calls === lead.attempt_count
        ? before
        : { call: sent, key: newKey(), calls: lead.attempt_count };
    if (sending !== draft.sending) {
      const kept: CallDraft = { ...draft, sending };
      saveDraft(leadId, kept);
      setDraft(kept);
    }
    try {
      const answer = await call(sending.key);
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
    void send(from, outcome, (key) => client.recordAttempt(leadId, outcome, draft.note, key));
  }

  /** The person asked to be called at `at`: the lead stays open, due then. */
  function recordCallBack(at: string) {
    void send('call-back', 'call_back', (key) => client.recordCallBack(leadId, at, draft.note, key), at);
  }

  function refuse(from: RecordedFrom, message: string) {
    setFailure({ from, message });
  }

  return { draft, setDraft, pending, failure, record, recordCallBack, refuse };
}

export type CallRecorder = ReturnType<typeof useCallRecorder>;

/** A request key no other call shares: 128 random bits (`crypto.randomUUID` needs HTTPS). */
function newKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
