// The script of index.html (src/pages.ts).
import { hydratePage } from '../client';
import { HomePage } from '../routes/home';

hydratePage(HomePage);
