import { displayPhone } from './format';

type Phone = { phone: string; phone_e164: string };

/**
 * What a screen reader hears of a link that dials a lead, "Подзвонити +380 67 123 45 01": the
 * verb, then the number as shown (said in words, not pieced together from the link's parts).
 */
function callName(number: string): string {
  return `Подзвонити ${number}`;
}

/** A lead's number in reading groups, as a link that dials it: in the lists, a finger-sized pill. */
export function PhoneLink({ lead }: { lead: Phone }) {
  const number = displayPhone(lead);
  return (
    <a className="tel" href={`tel:${lead.phone_e164}`} aria-label={callName(number)}>
      {number}
    </a>
  );
}

/**
 * A lead's call on its desk card and its page (`LeadCall`): the widest, tallest control of the
 * screen, the number under its verb. `onCall` runs as the tap dials, without holding the dial up.
 */
export function CallButton({ lead, onCall }: { lead: Phone; onCall: () => void }) {
  const number = displayPhone(lead);
  return (
    <a className="call-button" href={`tel:${lead.phone_e164}`} aria-label={callName(number)} onClick={onCall}>
      <span className="call-verb">Подзвонити</span>
      <span className="call-number">{number}</span>
    </a>
  );
}
