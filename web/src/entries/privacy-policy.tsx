// The script of privacy-policy.html (src/pages.ts).
import { hydratePage } from '../client';
import { PrivacyPolicyPage } from '../routes/privacy-policy';

hydratePage(PrivacyPolicyPage);
