import { useEffect, useRef, useState } from 'react';
import { errorText } from './api';
import { useInbox } from './context';
import { forgetDraft } from './drafts';

/**
 * "Видалити дані цієї людини", then a confirmation that says what goes (every lead with this phone)
 * before anything is erased. `onErased` gets how many leads the server deleted.
 */
export function EraseConfirm({
  lead,
  onErased,
}: {
  lead: { id: number; phone: string };
  onErased: (erased: number) => void;
}) {
  const { client } = useInbox();
  const [confirming, setConfirming] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const start = useRef<HTMLButtonElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);
  const questionId = `erase-question-${lead.id}`;

  // Focus follows the step: onto "Скасувати" (the safe choice) when asked, back when cancelled.
  useEffect(() => {
    if (confirming) cancelButton.current?.focus();
    else if (asked.current) start.current?.focus();
    asked.current = confirming;
  }, [confirming]);

  async function erase() {
    setPending(true);
    setError(null);
    try {
      const { erased } = await client.erase(lead.phone);
      forgetDraft(lead.id);
      onErased(erased);
    } catch (caught) {
      setError(errorText(caught));
      setPending(false);
    }
  }

  if (!confirming) {
    return (
      <button ref={start} type="button" className="button danger-outline" onClick={() => setConfirming(true)}>
        Видалити дані цієї людини
      </button>
    );
  }
  return (
    <div className="stack erase-confirm" role="group" aria-labelledby={questionId}>
      <p id={questionId} className="warning">
        Буде назавжди видалено всі заявки з номером {lead.phone} (усі заявки цієї людини) разом із записами
        дзвінків. Відновити їх буде неможливо.
      </p>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="button" className="button danger" onClick={erase} disabled={pending}>
          Так, видалити назавжди
        </button>
        <button ref={cancelButton} type="button" className="button" onClick={() => setConfirming(false)}>
          Скасувати
        </button>
      </div>
    </div>
  );
}
