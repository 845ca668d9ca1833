// Every Vitest file starts here. On a loaded machine (CI runs the browser tests beside these) a
// file's first render can take longer than Testing Library's default one-second wait for
// `findBy…` and `waitFor`; a test that is right then failed (LeadList's first test, 28 Nov).
// Tests take this wait rather than setting their own.
import { configure } from '@testing-library/react';

configure({ asyncUtilTimeout: 5000 });
