// axe-core on a page, with every rule, for the tests' accessibility checks (support/inbox.ts,
// support/visitor.ts).
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

/**
 * In legacy mode axe runs once in the page itself. The default runs it in each frame and then
 * opens a blank page to merge the results, which took more than half of every scan (370 → 180 ms
 * on the landing page, 290 → 120 ms on the inbox, ADR 0042); that matters only for frames from
 * other origins, and these pages have none.
 */
export function scan(page: Page) {
  return new AxeBuilder({ page }).setLegacyMode().analyze();
}
