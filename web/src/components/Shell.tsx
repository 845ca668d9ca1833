// The frame every page shares: header with the brand, main, and the footer with its three
// disclosure widgets (privacy summary, public offer, contacts) and the copyright line.
// Every page is a document of its own (the server routes, links are plain <a>), so its title is the
// one the prerender wrote: nothing here sets document.title.
import type { ReactNode } from 'react';
import { useConfig, withRetention } from '../config';
import { useTexts } from '../texts';

/** The id the form's "публічної оферти" link points at. */
export const PUBLIC_OFFER_ID = 'public-offer';

function Logo() {
  return (
    <svg className="logo" viewBox="0 0 32 32" width="32" height="32" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="8" fill="currentColor" />
      <path d="M13 7h6v6h6v6h-6v6h-6v-6H7v-6h6z" fill="#fff" />
    </svg>
  );
}

export function Shell({ children }: { children: ReactNode }) {
  const config = useConfig();
  const footer = useTexts().footer;
  return (
    <>
      <header className="site-header">
        <div className="container">
          <a className="brand" href="/">
            <Logo />
            <span>{config.brand}</span>
          </a>
        </div>
      </header>
      <main id="main" className="site-main">
        {children}
      </main>
      <footer className="site-footer">
        <div className="container">
          <details className="disclosure">
            <summary>{footer.privacy.summary}</summary>
            <div className="disclosure-body">
              <p>{withRetention(footer.privacy.text, config)}</p>
              <p>
                <a href="/privacy-policy">{footer.privacy.link}</a>
              </p>
            </div>
          </details>
          <details className="disclosure" id={PUBLIC_OFFER_ID}>
            <summary>{footer.offer.summary}</summary>
            <div className="disclosure-body">
              {footer.offer.paragraphs.map((text) => (
                <p key={text}>{text}</p>
              ))}
            </div>
          </details>
          <details className="disclosure">
            <summary>{footer.contacts.summary}</summary>
            <div className="disclosure-body">
              <p>
                {footer.contacts.phoneLabel}
                <a className="phone" href={config.phoneHref}>
                  {config.phone}
                </a>
              </p>
              <p>{footer.contacts.text}</p>
            </div>
          </details>
          <p className="copyright">{`${footer.copyright} ${config.brand}`}</p>
        </div>
      </footer>
    </>
  );
}
