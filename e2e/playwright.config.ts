import { defineConfig } from '@playwright/test';
import { PERSON_LAUNCH, PERSON_USER_AGENT } from './support/browsers';

// The built binary is started by the fixtures (support/fixtures.ts), one per test with a fresh
// database, so tests never share state. Chromium is the system's (no browser download), made to look
// like a person's browser (support/browsers.ts): the server holds leads of automated browsers.
export default defineConfig({
  testDir: './tests',
  fullyParallel: true,
  // Three on this 2-core machine type: a test waiting on the server (a webhook's retry, a scan each
  // second) leaves its worker idle, and a third keeps both cores busy (170 → 158 s, ADR 0042).
  workers: 3,
  // In CI a failed test runs once more; one that passes then is reported as flaky (scripts/test-all
  // lists it) rather than failing the run on a shared 2-core machine.
  retries: process.env.CI ? 1 : 0,
  forbidOnly: !!process.env.CI,
  timeout: 20_000,
  expect: { timeout: 5_000 },
  reporter: 'list',
  use: {
    // Visitors are mostly on phones.
    viewport: { width: 360, height: 740 },
    locale: 'uk-UA',
    // Recording a trace costs Chromium a screencast of every test (about 50 s of a CI run): in CI
    // only the retry of a failed test records one; elsewhere a failed test keeps its own.
    trace: process.env.CI ? 'on-first-retry' : 'retain-on-failure',
    userAgent: PERSON_USER_AGENT,
    launchOptions: PERSON_LAUNCH,
  },
});
