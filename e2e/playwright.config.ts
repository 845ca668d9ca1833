import { defineConfig } from '@playwright/test';

// The built binary is started by the fixtures (support/fixtures.ts), one per test with a fresh
// database, so tests never share state. Chromium is the system's (no browser download).
export default defineConfig({
  testDir: './tests',
  fullyParallel: true,
  workers: 2,
  retries: 0,
  forbidOnly: !!process.env.CI,
  timeout: 20_000,
  expect: { timeout: 5_000 },
  reporter: 'list',
  use: {
    // Visitors are mostly on phones.
    viewport: { width: 360, height: 740 },
    locale: 'uk-UA',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
