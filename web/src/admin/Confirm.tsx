import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { errorText } from './api';
import { FormError } from './FormError';

/**
 * A destructive action asked first: `label` on the button, then `question` (what goes) with
 * `confirm` and "Скасувати". Focus follows the step: onto "Скасувати" (the safe choice) when asked,
 * back onto the button that asked when cancelled. A refusal of `act` is shown in the server's words;
 * once it succeeds the caller usually removes this from the page, so it stays pending.
 */
export function ConfirmedAction({
  label,
  question,
  confirm,
  act,
  describedBy,
}: {
  label: string;
  question: ReactNode;
  confirm: string;
  act: () => Promise<void>;
  describedBy?: string;
}) {
  const [confirming, setConfirming] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const start = useRef<HTMLButtonElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);
  const questionId = useId();
  useEffect(() => {
    if (confirming) cancelButton.current?.focus();
    else if (asked.current) start.current?.focus();
    asked.current = confirming;
  }, [confirming]);

  async function run() {
    setPending(true);
    setError(null);
    try {
      await act();
    } catch (caught) {
      setError(errorText(caught));
      setPending(false);
    }
  }

  if (!confirming) {
    return (
      <button
        ref={start}
        type="button"
        className="button danger-outline"
        onClick={() => setConfirming(true)}
        aria-describedby={describedBy}
      >
        {label}
      </button>
    );
  }
  return (
    <div className="stack erase-confirm" role="group" aria-labelledby={questionId}>
      <p id={questionId} className="warning">
        {question}
      </p>
      <FormError error={error} />
      <div className="actions">
        <button type="button" className="button danger" onClick={run} disabled={pending}>
          {confirm}
        </button>
        <button ref={cancelButton} type="button" className="button" onClick={() => setConfirming(false)}>
          Скасувати
        </button>
      </div>
    </div>
  );
}
