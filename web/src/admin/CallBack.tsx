import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { kyivInputValue, kyivToInstant, parseTime } from './format';

/** The words of "Передзвонити о …", where a card or a lead's page offers it. */
export const CALL_BACK_LABEL = 'Передзвонити о …';

/**
 * "Передзвонити о …": the time the person asked to be called, read as Kyiv time whatever the
 * device's zone, not in the past. Shown when `open`: the time field takes the focus, so a keyboard
 * goes straight from the toggle to it. A time that will not do is said under the field and tied
 * to it (`error`: this form's own check, or the server's answer about the time).
 */
export function CallBackForm({
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
