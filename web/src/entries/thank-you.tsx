// The script of thank-you.html (src/pages.ts).
import { hydratePage } from '../client';
import { ThankYouPage } from '../routes/thank-you';

hydratePage(ThankYouPage);
