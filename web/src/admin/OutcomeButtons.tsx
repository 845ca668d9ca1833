import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { Outcome } from './api';
import { OUTCOMES, OUTCOME_LABELS, kyivInputValue, kyivToInstant, parseTime } from './format';
import type { CallRecorder } from './recorder';

/**
 * A call's outcome, each one tap, for a desk card and a lead's page alike: "Не відповіли", then
 * "Передзвонити о …" (which opens the time the person asked for), then the outcomes that close the
 * lead. The buttons stay enabled to the eye and to focus while a call is sent (a disabled button
 * would drop the focus); a tap then does nothing. Each is recorded by `recorder`, which says where
 * a refusal goes. `label` names the buttons as a group where nothing around them does.
 */
export function OutcomeButtons({
  label,
  now,
  recorder,
}: {
  label?: string;
  now: number;
  recorder: CallRecorder;
}) {
  const { pending, failure, record, recordCallBack, refuse } = recorder;
  const callBackId = useId();
  const [callBackOpen, setCallBackOpen] = useState(false);
  const [noAnswer, ...closing] = OUTCOMES;
  const outcomeButton = (value: Outcome) => (
    <button
      key={value}
      type="button"
      className="button"
      aria-disabled={pending ? 'true' : undefined}
      onClick={() => record(value, 'tap')}
    >
      {OUTCOME_LABELS[value]}
    </button>
  );
  return (
    <>
      <div className="quick-buttons" role={label ? 'group' : undefined} aria-label={label}>
        {outcomeButton(noAnswer)}
        <button
          type="button"
          className="button"
          aria-expanded={callBackOpen}
          aria-controls={callBackId}
          onClick={() => setCallBackOpen((open) => !open)}
        >
          Передзвонити о …
        </button>
        {closing.map(outcomeButton)}
      </div>
      <CallBackForm
        id={callBackId}
        open={callBackOpen}
        now={now}
        pending={pending}
        error={failure?.from === 'call-back' ? failure.message : null}
        onTime={recordCallBack}
        onInvalid={(message) => refuse('call-back', message)}
      />
    </>
  );
}

/**
 * "Передзвонити о …": the time the person asked to be called, read as Kyiv time whatever the
 * device's zone, not in the past. Shown when `open`: the time field takes the focus, so a keyboard
 * goes straight from the toggle to it. A time that will not do is said under the field and tied
 * to it (`error`: this form's own check, or the server's answer about the time).
 */
function CallBackForm({
  id,
  open,
  now,
  pending,
  error,
  onTime,
  onInvalid,
}: {
  id: string;
  open: boolean;
  now: number;
  pending: boolean;
  error: string | null;
  onTime: (at: string) => void;
  onInvalid: (message: string) => void;
}) {
  const errorId = useId();
  const field = useRef<HTMLInputElement>(null);
  const [value, setValue] = useState('');
  useEffect(() => {
    if (open) field.current?.focus();
  }, [open]);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const at = kyivToInstant(value);
    if (at !== null && parseTime(at) > now) {
      onTime(at);
      return;
    }
    onInvalid(at === null ? 'Вкажіть, коли передзвонити.' : 'Цей час уже минув: вкажіть пізніший.');
    field.current?.focus();
  }

  return (
    <div id={id} hidden={!open}>
      <form className="call-back" onSubmit={submit} noValidate>
        <label className="field">
          <span>Передзвонити о (за київським часом)</span>
          <input
            ref={field}
            type="datetime-local"
            value={value}
            min={kyivInputValue(now)}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={error ? errorId : undefined}
            onChange={(event) => setValue(event.target.value)}
          />
        </label>
        {error && (
          <p id={errorId} role="alert" className="error">
            {error}
          </p>
        )}
        <button type="submit" className="button primary" aria-disabled={pending ? 'true' : undefined}>
          Записати час дзвінка
        </button>
      </form>
    </div>
  );
}
