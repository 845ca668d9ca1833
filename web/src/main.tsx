// `npm run dev` only (index.html's script): vite dev serves the bare template for every path, so
// this picks the page as the server would and brings the texts a built page carries itself. The
// build has one entry per page (src/entries/) and never includes this file.
import { hydratePage } from './client';
import { uk } from './content/uk';
import { HomePage } from './routes/home';
import { NotFoundPage } from './routes/not-found';
import { PrivacyPolicyPage } from './routes/privacy-policy';
import { ThankYouPage } from './routes/thank-you';

const pages: Record<string, typeof HomePage> = {
  '/': HomePage,
  '/thank-you': ThankYouPage,
  '/privacy-policy': PrivacyPolicyPage,
};
hydratePage(pages[window.location.pathname] ?? NotFoundPage, { texts: uk });
