import { useSyncExternalStore, type MouseEvent } from 'react';
import { Shell } from '../components/Shell';
import { useConfig, withRetention } from '../config';
import { useTexts } from '../texts';

const noSubscription = () => () => {};
/** The visitor's local date, in the same format the server writes (dd.mm.yyyy). */
export const localToday = () => new Date().toLocaleDateString('uk-UA');

/** `/privacy-policy`: the full policy (a Back button, eight sections, today's date). */
export function PrivacyPolicyPage() {
  const config = useConfig();
  // Hydration uses the server's date (config.today, also written into the HTML), then React
  // re-renders with the visitor's own date, so the two never disagree during hydration.
  const today = useSyncExternalStore(noSubscription, localToday, () => config.today);

  function goBack(event: MouseEvent<HTMLButtonElement>): void {
    event.preventDefault();
    // Opened directly (nothing to go back to): go to the landing page instead of doing nothing.
    if (window.history.length > 1) window.history.back();
    else window.location.assign('/');
  }

  const policy = useTexts().privacy;
  return (
    <Shell>
      <article className="container narrow prose">
        {/* Without JavaScript the button still leads somewhere useful: the landing page. */}
        <form action="/" method="get" className="back">
          <button type="submit" className="button button-secondary" onClick={goBack}>
            <span aria-hidden="true">←</span>
            {policy.back}
          </button>
        </form>
        <h1>{policy.title}</h1>
        <p className="muted">{`${policy.lastRevised}${today}`}</p>
        {policy.sections.map((section) => (
          <section key={section.title}>
            <h2>{section.title}</h2>
            {section.paragraphs.map((text) => (
              <p key={text}>
                {withRetention(text, config)}
                {'phone' in section && (
                  <a className="phone" href={config.phoneHref}>
                    {config.phone}
                  </a>
                )}
              </p>
            ))}
          </section>
        ))}
      </article>
    </Shell>
  );
}
