import { Shell } from '../components/Shell';
import { useTexts } from '../texts';

/** `/thank-you`: the default redirect target after a successful submit. */
export function ThankYouPage() {
  const text = useTexts().thankYou;
  return (
    <Shell>
      <div className="container narrow message">
        <svg className="message-icon" viewBox="0 0 48 48" width="48" height="48" aria-hidden="true" focusable="false">
          <circle cx="24" cy="24" r="24" fill="currentColor" />
          <path d="M14 25l7 7 13-15" fill="none" stroke="#fff" strokeWidth="4" strokeLinecap="round" strokeLinejoin="round" />
        </svg>
        <h1>{text.title}</h1>
        <p className="lead">{text.call}</p>
        <p>{text.keepPhone}</p>
        <p>
          <a className="button button-secondary" href="/">
            {text.home}
          </a>
        </p>
      </div>
    </Shell>
  );
}
