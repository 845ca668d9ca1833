// The script of 404.html (src/pages.ts).
import { hydratePage } from '../client';
import { NotFoundPage } from '../routes/not-found';

hydratePage(NotFoundPage);
