import { useInbox } from './context';
import { ConfirmedAction } from './Confirm';
import { forgetDraft } from './drafts';
import { displayPhone } from './format';

/**
 * "Видалити дані цієї людини", then a confirmation that says what goes (every lead with this phone)
 * before anything is erased. `onErased` gets how many leads the server deleted.
 */
export function EraseConfirm({
  lead,
  onErased,
}: {
  lead: { id: number; phone: string; phone_e164: string };
  onErased: (erased: number) => void;
}) {
  const { client } = useInbox();
  return (
    <ConfirmedAction
      label="Видалити дані цієї людини"
      question={
        <>
          Буде назавжди видалено всі заявки з номером {displayPhone(lead)} (усі заявки цієї людини) разом із записами
          дзвінків. Відновити їх буде неможливо.
        </>
      }
      confirm="Так, видалити назавжди"
      act={async () => {
        const { erased } = await client.erase(lead.phone);
        forgetDraft(lead.id);
        onErased(erased);
      }}
    />
  );
}
